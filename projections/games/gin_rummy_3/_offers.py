"""What the table pad's offer adds to Gin's `legal_events` (`projections/reading/offers.py`): knocks sorted
best first, every lay-out of the defender (`RULES.complete_offers`), and the knocks over ten that
`record` enforcement stores with a violation (`RULES.disputed`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from projections.core.rules import Event
from projections.games.gin_rummy_3._melds import all_meldings, deadwood_value, extend_meld, sort_cards
from projections.games.gin_rummy_3._state import KNOCK_LIMIT, GinState


def complete_offers(state: GinState, offered: list[Event]) -> list[Event]:
    """Knocks best first (the lowest deadwood); in the lay-off, every melding with every lay-off set."""
    if state.phase == "lay_off":
        return lay_offs(state)
    knocks = [e for e in offered if e["type"] == "knock"]
    if not knocks:
        return offered
    assert state.turn is not None
    held = state.hands[state.turn]
    rest = [e for e in offered if e["type"] != "knock"]
    return rest + sorted(knocks, key=lambda e: (_deadwood(held, e), len(e["melds"]), e["discard"]))


def _deadwood(held: frozenset[str], knock: Mapping[str, Any]) -> int:
    melded = {c for meld in knock["melds"] for c in meld}
    return deadwood_value(held - melded - {knock["discard"]})


def lay_offs(state: GinState) -> list[Event]:
    """Every lay-out the defender may make: each arrangement of its own melds (maximal or not), with each
    set of its other cards laid off on the knocker's melds (each seeing the melds as extended before
    it), best first (the lowest count left)."""
    knock, seat = state.knock, state.turn
    assert knock is not None and seat is not None
    scored: list[tuple[int, int, Event]] = []
    for melding in all_meldings(state.hands[seat]):
        for layoffs in layoff_sets(knock.melds, melding.deadwood):
            left = set(melding.deadwood) - {c for c, _ in layoffs}
            event = {
                "type": "lay_off",
                "seat": seat,
                "melds": [list(m) for m in melding.melds],
                "layoffs": [{"card": c, "meld": i} for c, i in layoffs],
            }
            scored.append((deadwood_value(left), -len(layoffs), event))
    scored.sort(key=lambda t: (t[0], t[1]))
    return [event for _, _, event in scored]


def layoff_sets(melds: Sequence[Sequence[str]], deadwood: Iterable[str]) -> list[list[tuple[str, int]]]:
    """Every set of lay-offs of `deadwood` cards onto `melds` (the empty one first), each in an order in
    which every card fits the meld as extended before it. The set of (card, meld) pairs decides the
    extended melds, so each set is walked once."""
    found: dict[frozenset[tuple[str, int]], list[tuple[str, int]]] = {}

    def walk(extended: tuple[tuple[str, ...], ...], left: frozenset[str], chosen: list[tuple[str, int]]) -> None:
        key = frozenset(chosen)
        if key in found:
            return
        found[key] = chosen
        for card in sorted(left):
            for index, meld in enumerate(extended):
                grown = extend_meld(meld, card)
                if grown is not None:
                    walk((*extended[:index], grown, *extended[index + 1 :]), left - {card}, [*chosen, (card, index)])

    walk(tuple(tuple(m) for m in melds), frozenset(deadwood), [])
    return list(found.values())


def disputed(state: GinState) -> list[Event]:
    """Knocks over ten: for each discard, every arrangement of the other cards whose deadwood is over 10
    (a lay-off after gin comes with the lay-offs, which `decide` flags)."""
    if state.phase != "discard":
        return []
    seat = state.turn
    assert seat is not None
    held = state.hands[seat]
    out: list[Event] = []
    for discard in sort_cards(held):
        for melding in all_meldings(held - {discard}):
            if melding.count > KNOCK_LIMIT:
                out.append(
                    {"type": "knock", "seat": seat, "discard": discard, "melds": [list(m) for m in melding.melds]}
                )
    return out
