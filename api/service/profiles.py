"""Rule profiles: a club's house rules as a named set of option values per game, chosen at creation.

"The house rules of the Tuesday club" are a profile: `{"gin-rummy-3": {"undercut_bonus": 20},
"casino": {"sweeps": true}}`. A profile names only the options it changes; every option it leaves
out is at its default, so the built-in defaults are a profile too (`default`, the empty profile,
which every club has and nobody may store over). A profile never names a seating option
(`OptionSpec.seating`: who deals first, the first roles): that belongs to one game at one table.

Where a profile is used:

- creating a game (`POST /v1/games` with `profile`): the game's options are the profile's for its
  kind, then the request's `options` on top (`creation_options`). The options are copied into the
  game (and its genesis hash); the profile itself is not part of the record, so changing or
  removing a profile later changes no game.
- re-scoring (`api/service/rescore.py`): a recorded game, or a season of them, scored under a
  profile's options instead of its own.

Profiles are checked here, against each game's declaration (every option known and in range, and the
whole set accepted by the game's `initial_state`, which checks options together, such as Seven and a
Half's `min_bet` not above `max_bet`), and stored by `events/store/profiles.py`.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from api.service.base import Service
from events.errors import InvalidEventError, TablebookError, UnknownGameError
from events.schema import unstorable
from events.store import profiles as stored
from projections.core import engine
from projections.core.registry import KINDS, rules_for
from projections.core.rules import OptionSpec
from projections.reading.visibility import Reader

if TYPE_CHECKING:
    from events.store import Store

#: the built-in profile: every option of every game at its default
DEFAULT = "default"


@dataclass(frozen=True, slots=True)
class Profile:
    """A named set of option values per game kind; the options it leaves out are at their defaults."""

    name: str
    #: kind -> {option: value}, only the options the profile names
    games: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    builtin: bool = False
    created_at: str | None = None
    updated_at: str | None = None

    def options_for(self, kind: str) -> dict[str, Any]:
        """The options this profile names for `kind` (the rest are at their defaults)."""
        return dict(self.games.get(kind, {}))

    def to_dict(self) -> dict[str, Any]:
        """`{name, builtin, games, rules, created_at, updated_at}`: `games` as stored, `rules` every game's
        house options with the profile's values filled in (its defaults where the profile names none)."""
        return {
            "name": self.name,
            "builtin": self.builtin,
            "games": {kind: dict(values) for kind, values in self.games.items()},
            "rules": {kind: house_options(kind, self.options_for(kind)) for kind in KINDS},
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


BUILTIN = Profile(DEFAULT, {}, builtin=True)


def house_options(kind: str, named: Mapping[str, Any]) -> dict[str, Any]:
    """Every option of `kind` but the seating ones, at the profile's value or its default."""
    rules = rules_for(kind)
    return {name: named.get(name, spec.default) for name, spec in rules.options.items() if not spec.seating}


# --------------------------------------------------------------------------- checks


def check_name(name: str) -> str:
    """A profile's name: one line of 1 to 80 characters without `/`, spaces around it clipped, not the
    built-in's.

    Raises:
        InvalidEventError: empty, too long, several lines, a `/`, unstorable, or `default`.
    """
    clipped = name.strip()
    if not clipped or len(clipped) > stored.MAX_NAME:
        raise InvalidEventError(f"a profile's name is 1 to {stored.MAX_NAME} characters", field="name")
    if any(ord(c) < 32 or ord(c) == 127 for c in clipped) or unstorable(clipped):
        raise InvalidEventError("a profile's name is one line of text", field="name")
    if "/" in clipped:  # it is a path segment: /v1/profiles/{name}
        raise InvalidEventError("a profile's name has no '/'", field="name")
    if clipped == DEFAULT:
        raise InvalidEventError(f"{DEFAULT!r} is the built-in profile (every option at its default)", field="name")
    return clipped


def check_games(games: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """A profile's options, checked against each game's declaration: `{kind: {option: value}}`.

    Raises:
        UnknownGameError: an unknown game, an option it does not take, a value out of range, or options
            the game refuses together.
        InvalidEventError: a seating option (it belongs to one game at its table), or not an object.
    """
    out: dict[str, dict[str, Any]] = {}
    for kind, values in games.items():
        if kind not in KINDS:
            raise UnknownGameError(f"unknown game {kind!r}; games: {', '.join(KINDS)}", field=f"games.{kind}")
        if not isinstance(values, Mapping):
            raise InvalidEventError("expected an object of option values", field=f"games.{kind}")
        rules = rules_for(kind)
        checked: dict[str, Any] = {}
        for name, value in values.items():
            spec = rules.options.get(name)
            where = f"games.{kind}.{name}"
            if spec is None:
                raise UnknownGameError(
                    f"{rules.title} has no option {name!r}; it takes: {', '.join(_house(kind))}", field=where
                )
            if spec.seating:
                raise InvalidEventError(
                    f"{name!r} says who sits where or deals first: it is set for each game, not by a profile",
                    field=where,
                )
            try:
                checked[name] = spec.check(value, max(rules.player_counts))
            except ValueError as exc:
                raise UnknownGameError(f"option {name!r} {exc}", field=where) from None
        players = list(rules.demo_players)
        try:
            engine.start(rules, players, rules.options_for(players, checked))
        except TablebookError as exc:
            raise UnknownGameError(exc.message, field=f"games.{kind}") from None
        if checked:
            out[kind] = checked
    return out


def _house(kind: str) -> list[str]:
    return [name for name, spec in rules_for(kind).options.items() if not spec.seating]


# --------------------------------------------------------------------------- the use cases


def _club(reader: Reader) -> int:
    if reader.club_id is None:
        raise InvalidEventError("name the club whose profiles these are", field="club")
    return reader.club_id


def _profile(record: stored.ProfileRecord) -> Profile:
    return Profile(record.name, record.games, False, record.created_at, record.updated_at)


def list_profiles(store: Store, reader: Reader) -> list[Profile]:
    """The club's profiles: the built-in `default` first, then the stored ones by name."""
    return [BUILTIN, *(_profile(r) for r in stored.list_profiles(store, _club(reader)))]


def find_profile(store: Store, club_id: int, name: str) -> Profile:
    """The profile `name` of the club (`default` is the built-in one).

    Raises:
        NotFoundError: the club has no such profile.
    """
    if name == DEFAULT:
        return BUILTIN
    return _profile(stored.get_profile(store, club_id, name))


def get_profile(store: Store, reader: Reader, name: str) -> Profile:
    """The reader's club's profile `name`.

    Raises:
        NotFoundError: no such profile in the club.
    """
    return find_profile(store, _club(reader), name)


def save_profile(store: Store, reader: Reader, name: str, games: Mapping[str, Any]) -> tuple[Profile, bool]:
    """Store a profile of the reader's club, new or replacing the one of that name: (it, whether it is new).

    Raises:
        ForbiddenError: a viewer key (a recorder or an auditor sets a club's house rules).
        InvalidEventError / UnknownGameError: a bad name or option (`check_name`, `check_games`).
    """
    reader.require("recorder", "auditor")
    record, created = stored.put_profile(store, _club(reader), check_name(name), check_games(games))
    return _profile(record), created


def delete_profile(store: Store, reader: Reader, name: str) -> None:
    """Remove a profile of the reader's club (the games created with it keep their options).

    Raises:
        ForbiddenError: a viewer key.
        InvalidEventError: the built-in profile.
        NotFoundError: no such profile.
    """
    reader.require("recorder", "auditor")
    if name == DEFAULT:
        raise InvalidEventError(f"{DEFAULT!r} is built in and cannot be removed", field="name")
    stored.delete_profile(store, _club(reader), name)


def creation_options(
    store: Store, club_id: int, kind: str, profile: str | None, options: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The options of a new game created with a profile: the profile's for `kind`, then `options` on top
    (the request's own options win; the game's defaults fill the rest when the game is created).

    Raises:
        NotFoundError: the club has no such profile.
        UnknownGameError: an unknown kind.
    """
    rules_for(kind)
    if profile is None:
        return dict(options or {})
    return {**find_profile(store, club_id, profile).options_for(kind), **(options or {})}


def profile_of(store: Store, reader: Reader, name: str | None) -> Profile | None:
    """The profile a request names (None for none), of the reader's club.

    Raises:
        NotFoundError: the club has no such profile.
    """
    if name is None:
        return None
    return get_profile(store, reader, name)


# --------------------------------------------------------------------------- the catalogue


def option_values(spec: OptionSpec) -> dict[str, Any]:
    """The values an option takes, from its check: `{"type": "boolean"}`, `{"type": "integer", "minimum",
    "maximum"}`, `{"type": "choice", "choices"}`, `{"type": "seat"}`, or `{"type": "other", "text"}` (the
    first line of the check's documentation)."""
    check = spec.check
    name = getattr(check, "__qualname__", "")
    free = inspect.getclosurevars(check).nonlocals
    if name.startswith("opt_int."):
        return {"type": "integer", "minimum": free["minimum"], "maximum": free["maximum"]}
    if name.startswith("opt_choice."):
        return {"type": "choice", "choices": list(free["choices"])}
    if name == "opt_seat":
        return {"type": "seat"}
    if name == "opt_bool":
        return {"type": "boolean"}
    return {"type": "other", "text": (inspect.getdoc(check) or "").split("\n")[0]}


def rules_catalog() -> dict[str, Any]:
    """`GET /v1/games/rules`: every game with its options, their defaults, values, help texts and kinds
    (`scoring`: re-scored from the same events; `play`: replayed until the first event refused), the rule
    each governs, and whether it is a seating option (set per game, never by a profile)."""
    games = []
    for kind in KINDS:
        rules = rules_for(kind)
        options = [
            {
                "name": name,
                "default": spec.default,
                "values": option_values(spec),
                "kind": spec.kind,
                "scoring_only": spec.scoring_only,
                "rule": spec.rule or None,
                "seating": spec.seating,
                "help": spec.help,
            }
            for name, spec in rules.options.items()
        ]
        games.append({"game": kind, "title": rules.title, "players": list(rules.player_counts), "options": options})
    return {"games": games}


class HouseRules(Service):
    """The games' options and a club's rule profiles (`/v1/games/rules`, `/v1/profiles`)."""

    def rules(self) -> dict[str, Any]:
        """Every game with its options, defaults, ranges, help texts and kind (scoring or play)."""
        return rules_catalog()

    def profiles(self, reader: Reader) -> list[Profile]:
        """The reader's club's rule profiles, the built-in `default` first."""
        return list_profiles(self.store, reader)

    def profile(self, reader: Reader, name: str) -> Profile:
        """One rule profile of the reader's club."""
        return get_profile(self.store, reader, name)

    def save_profile(self, reader: Reader, name: str, games: Mapping[str, Any]) -> tuple[Profile, bool]:
        """Create or replace a rule profile; (the profile, whether it is new)."""
        return save_profile(self.store, reader, name, games)

    def delete_profile(self, reader: Reader, name: str) -> None:
        """Remove a rule profile of the reader's club."""
        delete_profile(self.store, reader, name)
