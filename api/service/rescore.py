"""Re-scoring, the use cases: a game of the reader's club, or a season of its games, scored under other
options or a rule profile (`POST /v1/games/{id}/rescore`, `POST /v1/rescore`, `tablebook rescore`,
`tablebook rescore-season`). Nothing is written: no event, no snapshot, no registry row, so a game's
head hash is the same after any re-score.

The re-score of one record is `projections/reading/rescore.py`'s (the recorded events replayed through
the engine from a game started with the new options; what changed and where the rules part ways);
here the record is read as the reader may see it, and a profile found in the reader's club.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from api.service import profiles
from api.service.base import Service
from events.envelope import Envelope
from events.errors import InvalidEventError, TablebookError
from events.store import GameRecord
from projections.core import phrases
from projections.core.registry import rules_for
from projections.core.rules import GameRules, ScoreSheet, seat_dict
from projections.reading.rescore import Rescore, filled, options_under, recorded_at, rescore_record
from projections.reading.visibility import Reader, first_hidden_hand, held_back

if TYPE_CHECKING:
    from events.store import Store


# --------------------------------------------------------------------------- on the store


def rescore_game(
    store: Store,
    reader: Reader,
    game_id: str,
    *,
    options: Mapping[str, Any] | None = None,
    profile: str | None = None,
) -> Rescore:
    """`POST /v1/games/{id}/rescore`: a game of the reader's club scored again under `options` (on top of
    its own) or a profile of the club (`options` then on top of the profile's). Only reads.

    A reader who is not shown every card (a viewer) gets the re-score of the hands finished before the
    first hand still hidden: a divergence inside a live hand would tell what a seat holds.

    Raises:
        NotFoundError: no such game in the club, or no such profile.
        InvalidEventError / UnknownGameError: neither options nor a profile, a seating option, a bad value.
    """
    game = store.get_game(game_id, reader.club_id)  # a missing game is a 404 before a bad body's 422
    if not options and profile is None:
        raise InvalidEventError("name the options to re-score under, or a rule profile", field="options")
    chosen = None if profile is None else profiles.find_profile(store, game.club_id, profile)
    return _rescore(store, reader, game, chosen, options)


def _rescore(
    store: Store,
    reader: Reader,
    game: GameRecord,
    profile: profiles.Profile | None,
    options: Mapping[str, Any] | None,
) -> Rescore:
    rules = rules_for(game.kind)
    envelopes = shown_record(store, reader, rules, game)
    new = options_under(
        rules,
        game.players,
        game.options,
        profile=None if profile is None else profile.options_for(game.kind),
        options=options,
    )
    return rescore_record(
        rules,
        game_id=game.id,
        players=game.players,
        recorded_options=game.options,
        options=new,
        envelopes=envelopes,
        head_hash=game.head_hash if len(envelopes) == game.seq else None,
        profile=None if profile is None else profile.name,
    )


def shown_record(store: Store, reader: Reader, rules: GameRules[Any], game: GameRecord) -> list[Envelope]:
    """The game's envelopes up to its head, or, for a reader not shown every card, those of the hands
    before the first hidden one."""
    envelopes = store.read_events(game.id, 0, upto=game.seq)
    if reader.sees_everything:
        return envelopes
    hidden = first_hidden_hand(
        rules, recorded_at(rules, game.players, filled(rules, game.players, game.options), envelopes)
    )
    held = held_back(store, game)  # a board still in play at another table of an event
    hidden = held if hidden is None else hidden if held is None else min(hidden, held)
    return envelopes if hidden is None else [env for env in envelopes if env["hand"] < hidden]


#: the filters of a season (those of `GET /v1/games`)
SEASON_FILTERS = ("kind", "player", "player_id", "event", "round", "status", "winner", "since", "until")
#: games a season re-scores at most
MAX_SEASON = 10_000
#: games read from the registry at a time
PAGE = 200


def rescore_season(
    store: Store,
    reader: Reader,
    *,
    profile: str | None = None,
    games: Mapping[str, Mapping[str, Any]] | None = None,
    against: str | None = None,
    limit: int = MAX_SEASON,
    **filters: Any,
) -> Iterator[dict[str, Any]]:
    """`POST /v1/rescore`: every game of the reader's club that matches the filters (`SEASON_FILTERS`),
    newest first, with its totals and winner under two sets of rules side by side: `a`, the record as it
    stands (or the profile `against`), and `b`, the profile `profile` (with `games`, per kind options, on
    top). One document per game as it is done, then `{"season": ...}`: each player's games and wins
    under `a` and under `b`. Only reads.

    Raises (before the first document):
        InvalidEventError: no profile and no options; an unknown filter.
        NotFoundError: no such profile in the club.
    """
    club_id = reader.club_id
    if club_id is None:
        raise InvalidEventError("name the club whose games to re-score", field="club")
    if profile is None and not games:
        raise InvalidEventError("name the rule profile to re-score under, or options per game", field="profile")
    unknown = sorted(set(filters) - set(SEASON_FILTERS))
    if unknown:
        raise InvalidEventError(f"unknown filter {unknown[0]!r}", field=unknown[0])
    side_b = None if profile is None else profiles.find_profile(store, club_id, profile)
    side_a = None if against is None else profiles.find_profile(store, club_id, against)
    checked = profiles.check_games(games or {})
    return _season(store, reader, side_a, side_b, checked, limit, filters)


def _season(
    store: Store,
    reader: Reader,
    side_a: profiles.Profile | None,
    side_b: profiles.Profile | None,
    games: Mapping[str, Mapping[str, Any]],
    limit: int,
    filters: Mapping[str, Any],
) -> Iterator[dict[str, Any]]:
    assert reader.club_id is not None
    labels = {"a": "recorded" if side_a is None else side_a.name, "b": "options" if side_b is None else side_b.name}
    standings: dict[str, dict[str, int]] = {}
    count = 0
    before: tuple[str, str] | None = None
    while count < limit:
        page = store.list_games(reader.club_id, limit=min(PAGE, limit - count), before=before, **filters)
        for game in page:
            line = _season_line(store, reader, game, side_a, side_b, games.get(game.kind))
            _tally(standings, game, line)
            count += 1
            yield line
        if len(page) < PAGE:
            break
        before = (page[-1].created_at, page[-1].id)
    yield {
        "season": {
            "games": count,
            "labels": labels,
            "players": [{"player": name, **tally} for name, tally in sorted(standings.items())],
        }
    }


def _season_line(
    store: Store,
    reader: Reader,
    game: GameRecord,
    side_a: profiles.Profile | None,
    side_b: profiles.Profile | None,
    options: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """One game of a season: its totals and winner under both sets of rules (an error line if it cannot be)."""
    line: dict[str, Any] = {
        "game": game.id,
        "kind": game.kind,
        "players": list(game.players),
        "created_at": game.created_at,
    }
    try:
        b = _rescore(store, reader, game, side_b, options)
        a = None if side_a is None else _rescore(store, reader, game, side_a, None)
    except TablebookError as refused:
        line["error"] = {"code": refused.code, "message": phrases.render(refused.message, list(game.players))}
        return line
    line["a"] = _side(a.rescored if a is not None else b.recorded, a, game.players)
    line["b"] = _side(b.rescored, b, game.players)
    return line


def _side(sheet: ScoreSheet, done: Rescore | None, players: Sequence[str]) -> dict[str, Any]:
    names = list(players)
    out: dict[str, Any] = {
        "totals": seat_dict(sheet.totals),
        "winner": sheet.winner,
        "winner_name": None if sheet.winner is None else names[sheet.winner],
        "finished": sheet.finished,
    }
    if done is not None:
        out["changed"] = sorted(done.changed)
        out["divergence"] = None if done.divergence is None else done.divergence.to_dict(names)
    return out


def _tally(standings: dict[str, dict[str, int]], game: GameRecord, line: Mapping[str, Any]) -> None:
    """Each player's games and wins under `a` and `b` (a season's standings before ratings exist)."""
    if "error" in line:
        return
    for seat, name in enumerate(game.players):
        tally = standings.setdefault(name, {"games": 0, "wins_a": 0, "wins_b": 0})
        tally["games"] += 1
        tally["wins_a"] += int(line["a"]["winner"] == seat)
        tally["wins_b"] += int(line["b"]["winner"] == seat)


class Rescoring(Service):
    """Re-scores of the reader's club's games."""

    def rescore(
        self, reader: Reader, game_id: str, *, options: Mapping[str, Any] | None = None, profile: str | None = None
    ) -> Rescore:
        """The recorded game scored under other options or a profile, nothing written (`rescore_game`)."""
        return rescore_game(self.store, reader, game_id, options=options, profile=profile)

    def rescore_season(self, reader: Reader, **asked: Any) -> Iterator[dict[str, Any]]:
        """The club's games matching the filters re-scored, one line each, then the standings side by side."""
        return rescore_season(self.store, reader, **asked)
