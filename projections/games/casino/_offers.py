"""What the table pad's offer adds to Casino's `legal_events` under `record` enforcement
(`projections/reading/offers.py`, `RULES.disputed`): every capture, build, increase and trail the table's
arithmetic allows, whether or not it keeps the build rules; `decide` says which rule each breaks."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations

from events.cards import sorted_cards
from projections.core.rules import Event
from projections.games.casino._groups import packings, value_of
from projections.games.casino._state import CasinoState


def disputed(state: CasinoState) -> list[Event]:
    """Every capture, build, increase and trail the table's arithmetic allows (`legal_events` without the
    ownership rules)."""
    if state.phase != "play":
        return []
    seat = state.to_play
    loose = tuple(c for c in state.loose if c[0] not in "JQK")
    values = tuple(value_of(c) or 0 for c in loose)
    out: list[Event] = []
    for card in sorted_cards(state.hands[seat]):
        out.append({"type": "trail", "seat": seat, "card": card})
        v = value_of(card)
        if v is None:
            out.extend(_face_moves(state, seat, card))
            continue
        for ids in _subsets([b.id for b in state.builds if b.value == v]):
            for mask in packings(values, v, 0):
                taken = [c for i, c in enumerate(loose) if mask >> i & 1]
                if taken or ids:
                    out.append({"type": "capture", "seat": seat, "card": card, "take": [*taken, *ids]})
        for target in range(max(v, 2), 11):
            for ids in _subsets([b.id for b in state.builds if b.value == target]):
                for mask in packings((v, *values), target, 1):
                    onto = [c for i, c in enumerate(loose) if mask >> (i + 1) & 1]
                    if onto or ids:
                        out.append(
                            {"type": "build", "seat": seat, "card": card, "onto": [*onto, *ids], "value": target}
                        )
        for b in state.builds:
            if isinstance(b.value, int) and b.value + v <= 10:
                out.append({"type": "build", "seat": seat, "card": card, "onto": [b.id], "value": b.value + v})
    return out


def _face_moves(state: CasinoState, seat: int, card: str) -> list[Event]:
    r = card[0]
    same = [c for c in state.loose if c[0] == r]
    faces = [b.id for b in state.builds if b.value == r]
    takes: list[list[str]] = [[c] for c in same] + [[b] for b in faces] + [[c, b] for b in faces for c in same]
    if len(same) == 3:
        takes.append(same)
    out: list[Event] = [{"type": "capture", "seat": seat, "card": card, "take": t} for t in takes]
    out += [{"type": "build", "seat": seat, "card": card, "onto": [i], "value": r} for i in [*same, *faces]]
    return out


def _subsets(items: Sequence[str]) -> Iterator[tuple[str, ...]]:
    for k in range(len(items) + 1):
        yield from combinations(items, k)
