"""What a capture, build or trail means on the table, and whether it may be made.

`capture_check` and `build_check` raise `ImpossibleEventError` for a move
that cannot be made with the cards on the table (its items do not exist, its
cards do not add up); `breach` then names the rule a possible move breaks, if
any. `validate` and `legal_events` share them, so a listed move always passes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from events.errors import ImpossibleEventError
from projections.core.fastreplace import fast_init
from projections.core.phrases import card as card_marker
from projections.core.phrases import cards as cards_marker
from projections.core.phrases import seat as seat_marker
from projections.games.casino._groups import splits, value_of
from projections.games.casino._state import FACES, Build, CasinoState, fits


@fast_init
@dataclass(frozen=True, slots=True)
class BuildMove:
    """A `build` event read against the table.

    `kind` is `new` (a new build, new id), `increase` (a single build made
    higher with the played card, same id) or `face_add` (a face card added
    to a face build of its rank, same id). `target` is the build changed in
    place, `consumed` the ids of the builds the move uses up or changes.
    """

    kind: str
    value: int | str
    loose: tuple[str, ...]
    builds: tuple[Build, ...]
    target: Build | None
    multiple: bool

    @property
    def consumed(self) -> frozenset[str]:
        return frozenset(b.id for b in self.builds)


def describe(value: int | str) -> str:
    """A build's value in words: `7`, or `Ks` for a face build of kings."""
    return f"{value}s" if isinstance(value, str) else str(value)


def _item(item: str) -> str:
    """A table item in a message: a build id as it is, a card as a card marker."""
    return item if item.startswith("b") else card_marker(item)


def resolve(state: CasinoState, items: Sequence[str], field: str) -> tuple[tuple[str, ...], tuple[Build, ...]]:
    """The loose cards and the builds named by `items`.

    Raises:
        ImpossibleEventError: an empty list, an item named twice, or one not on the table.
    """
    if not items:
        raise ImpossibleEventError(f"{field} names no table item", field=field)
    twice = sorted(item for item, n in Counter(items).items() if n > 1)
    if twice:
        raise ImpossibleEventError(f"{field} names {', '.join(_item(i) for i in twice)} twice", field=field)
    loose: list[str] = []
    builds: list[Build] = []
    for item in items:
        if item.startswith("b"):
            found = state.build(item)
            if found is None:
                on_table = ", ".join(b.id for b in state.builds) or "none"
                raise ImpossibleEventError(f"there is no build {item} on the table (builds: {on_table})", field=field)
            builds.append(found)
        elif item in state.loose:
            loose.append(item)
        else:
            raise ImpossibleEventError(f"{card_marker(item)} is not a loose card on the table", field=field)
    return tuple(loose), tuple(builds)


def capture_check(state: CasinoState, card: str, items: Sequence[str]) -> tuple[tuple[str, ...], tuple[Build, ...]]:
    """The loose cards and builds a capture takes.

    Raises:
        ImpossibleEventError: the items are not on the table or do not make groups of the card.
    """
    loose, builds = resolve(state, items, "take")
    r = card[0]
    if r in FACES:
        for c in loose:
            if c[0] != r:
                raise ImpossibleEventError(
                    f"a {r} captures only loose {r}s and a face build of {r}s, not {card_marker(c)}"
                )
        for b in builds:
            if b.value != r:
                raise ImpossibleEventError(
                    f"a {r} captures only a face build of {r}s, not {b.id} (a build of {b.value})"
                )
        on_table = sum(1 for c in state.loose if c[0] == r)
        if len(loose) > 1 and not (len(loose) == 3 and on_table == 3 and not builds):
            raise ImpossibleEventError(
                f"{card_marker(card)} takes one loose {r}, or all three when three lie on the table, not {len(loose)} "
                f"of the {on_table} on the table" + (" with a face build" if builds else "")
            )
        return loose, builds
    v = value_of(card)
    assert v is not None
    for b in builds:
        if b.value != v:
            raise ImpossibleEventError(
                f"{card_marker(card)} captures only builds of {v}; {b.id} is a build of {describe(b.value)}"
            )
    faces = [c for c in loose if c[0] in FACES]
    if faces:
        raise ImpossibleEventError(
            f"{card_marker(faces[0])} has no number: it is taken only by a {faces[0][0]}, not by {card_marker(card)}"
        )
    values = [value_of(c) or 0 for c in loose]
    if not splits(values, v):
        shown = " + ".join(card_marker(c) for c in loose)
        raise ImpossibleEventError(f"{shown} do not split into groups adding up to {v} ({card_marker(card)})")
    return loose, builds


def build_check(state: CasinoState, card: str, items: Sequence[str], value: int | str) -> BuildMove:
    """What a build does to the table.

    Raises:
        ImpossibleEventError: the items are not on the table, the value is out of
            range, or the cards do not make groups of the value.
    """
    loose, builds = resolve(state, items, "onto")
    r = card[0]
    if r in FACES:
        if value != r:
            raise ImpossibleEventError(
                f"{card_marker(card)} makes only a face build of {r}s, not a build of {value}", field="value"
            )
        if len(items) != 1 or (loose and loose[0][0] != r) or (builds and builds[0].value != r):
            raise ImpossibleEventError(
                f"a face build is {card_marker(card)} played onto one loose {r} or onto a face build of {r}s"
            )
        if builds:
            return BuildMove("face_add", r, (), builds, builds[0], False)
        return BuildMove("new", r, loose, (), None, False)
    cv = value_of(card)
    assert cv is not None
    if isinstance(value, str):
        raise ImpossibleEventError(
            f"a face build of {value}s is made with a {value}, not with {card_marker(card)}", field="value"
        )
    if not 2 <= value <= 10:
        raise ImpossibleEventError(f"a build's value is 2 to 10, not {value}", field="value")
    if len(items) == 1 and builds and not builds[0].is_face and builds[0].value == value - cv:
        return BuildMove("increase", value, (), builds, builds[0], False)
    for b in builds:
        if b.value != value:
            raise ImpossibleEventError(
                f"{b.id} is a build of {describe(b.value)}: it joins only a build of {describe(b.value)} as one group, "
                f"and is increased only with the played card alone",
                field="onto",
            )
    faces = [c for c in loose if c[0] in FACES]
    if faces:
        raise ImpossibleEventError(
            f"{card_marker(faces[0])} has no number and cannot be part of a build of {value}", field="onto"
        )
    if cv > value:
        raise ImpossibleEventError(
            f"{card_marker(card)} is worth more than {value}; it cannot be part of a build of {value}"
        )
    values = [value_of(c) or 0 for c in loose]
    if not splits([cv, *values], value):
        shown = " + ".join(card_marker(c) for c in (card, *loose))
        raise ImpossibleEventError(f"{shown} do not split into groups adding up to {value}", field="onto")
    multiple = bool(builds) or cv + sum(values) > value
    return BuildMove("new", value, loose, builds, None, multiple)


def breach(
    state: CasinoState,
    seat: int,
    card: str,
    *,
    trail: bool = False,
    consumed: frozenset[str] = frozenset(),
    new_value: int | str | None = None,
    increased: Build | None = None,
) -> tuple[str, str] | None:
    """The rule id and reason of the rule a possible move breaks, or None.

    `consumed` are the builds the move takes or turns into the new one;
    `new_value` the value of a build the move makes or changes (rule 1);
    `increased` the build a move increases.
    """
    owned = state.owned(seat)
    if trail and owned:
        ids = ", ".join(b.id for b in owned)
        return (
            "casino.trail_with_build",
            f"{seat_marker(seat)} owns build {ids} and may not trail {card_marker(card)}: they must capture or build",
        )
    if increased is not None and increased.multiple:
        return (
            "casino.increase_multiple_build",
            f"{increased.id} is a multiple build of {increased.value} ({cards_marker(increased.cards)}) "
            f"and cannot be increased with {card_marker(card)}",
        )
    held = state.hands[seat] - {card}
    if new_value is not None and not any(fits(c, new_value) for c in held):
        return (
            "casino.build_without_capturing_card",
            f"{seat_marker(seat)} builds {describe(new_value)} with {card_marker(card)} but holds no other card "
            f"to capture it (holds {cards_marker(sorted(held)) if held else 'nothing'})",
        )
    for b in owned:
        if b.id not in consumed and not any(fits(c, b.value) for c in held):
            return (
                "casino.keep_capturing_card",
                f"playing {card_marker(card)} leaves {seat_marker(seat)} without a card to capture "
                f"their build {b.id} of {describe(b.value)}",
            )
    return None
