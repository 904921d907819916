"""Every legal move of the seat to play: captures, builds, increases and trails.

Moves are generated from the arithmetic (`_groups.packings`) rather than by
trying every subset of the table, then filtered by `_moves.breach`, so the
list is exactly what `validate` accepts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from itertools import combinations
from typing import Any

from projections.games.casino._groups import packings, value_of
from projections.games.casino._moves import breach
from projections.games.casino._state import FACES, CasinoState, fits

#: is a move that uses up these build ids free of `casino.keep_capturing_card`?
Keeps = Callable[[Sequence[str]], bool]


@lru_cache(maxsize=4096)
def _packings(values: tuple[int, ...], target: int, forced: int) -> tuple[int, ...]:
    return tuple(sorted(packings(values, target, forced)))


def _subsets(ids: Sequence[str]) -> Iterator[tuple[str, ...]]:
    for k in range(len(ids) + 1):
        yield from combinations(ids, k)


def legal_events(state: CasinoState) -> list[dict[str, Any]]:
    """Every legal decision of the seat to play, sorted (deals are chance events)."""
    if state.phase != "play":
        return []
    seat = state.to_play
    hand = state.hands[seat]
    owned = state.owned(seat)
    number_loose = tuple(c for c in state.loose if c[0] not in FACES)
    values = tuple(value_of(c) or 0 for c in number_loose)
    out: list[dict[str, Any]] = []
    for card in sorted(hand):
        held = hand - {card}
        # builds the seat owns that it could no longer capture after playing `card`
        stranded = frozenset(b.id for b in owned if not any(fits(c, b.value) for c in held))

        def keeps(consumed: Sequence[str], stranded: frozenset[str] = stranded) -> bool:
            return stranded <= set(consumed)

        if card[0] in FACES:
            out.extend(_face_moves(state, seat, card, held, keeps))
        else:
            out.extend(_number_moves(state, seat, card, held, number_loose, values, keeps))
        if not owned:
            out.append({"type": "trail", "seat": seat, "card": card})
    if state.options.get("trail_only_when_forced") and any(e["type"] != "trail" for e in out):
        out = [e for e in out if e["type"] != "trail"]  # the house rule: trail only when nothing else is legal
    out.sort(key=_order)
    return out


def _order(event: dict[str, Any]) -> tuple[str, str, tuple[str, ...], str]:
    items = event.get("take", event.get("onto", ()))
    return (event["type"], event["card"], tuple(items), str(event.get("value", "")))


def _face_moves(state: CasinoState, seat: int, card: str, held: frozenset[str], keeps: Keeps) -> list[dict[str, Any]]:
    r = card[0]
    same = [c for c in state.loose if c[0] == r]
    face_builds = [b.id for b in state.builds if b.value == r]
    takes: list[list[str]] = [[c] for c in same]
    if len(same) == 3:
        takes.append(same)
    takes += [[b] for b in face_builds]
    takes += [[c, b] for b in face_builds for c in same]
    out = [{"type": "capture", "seat": seat, "card": card, "take": t} for t in takes if keeps(t)]
    if any(c[0] == r for c in held):
        for item in [*same, *face_builds]:
            if keeps([item] if item.startswith("b") else []):
                out.append({"type": "build", "seat": seat, "card": card, "onto": [item], "value": r})
    return out


def _number_moves(
    state: CasinoState,
    seat: int,
    card: str,
    held: frozenset[str],
    loose: tuple[str, ...],
    values: tuple[int, ...],
    keeps: Keeps,
) -> list[dict[str, Any]]:
    v = value_of(card)
    assert v is not None
    out: list[dict[str, Any]] = []

    def of_value(value: int) -> list[str]:
        return [b.id for b in state.builds if b.value == value]

    # captures: loose cards splitting into groups of v, with any builds of v
    builds_v = of_value(v)
    for mask in _packings(values, v, 0):
        taken = [c for i, c in enumerate(loose) if mask >> i & 1]
        for ids in _subsets(builds_v):
            if (taken or ids) and keeps(ids):
                out.append({"type": "capture", "seat": seat, "card": card, "take": [*taken, *ids]})
    # new builds: the played card in a group with table cards, or alone next to other groups
    with_card = (v, *values)
    for target in range(max(v, 2), 11):
        if not any(fits(c, target) for c in held):
            continue
        builds_t = of_value(target)
        for mask in _packings(with_card, target, 1):
            onto = [c for i, c in enumerate(loose) if mask >> (i + 1) & 1]
            for ids in _subsets(builds_t):
                if (onto or ids) and keeps(ids):
                    event = {"type": "build", "seat": seat, "card": card, "onto": [*onto, *ids], "value": target}
                    out.append(event)
    # increases of single builds (a multiple build cannot be increased)
    for b in state.builds:
        if b.is_face or b.multiple or not isinstance(b.value, int) or b.value + v > 10:
            continue
        if breach(state, seat, card, consumed=frozenset({b.id}), new_value=b.value + v, increased=b) is None:
            out.append({"type": "build", "seat": seat, "card": card, "onto": [b.id], "value": b.value + v})
    return out
