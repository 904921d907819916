"""What the table pad's offer adds to Smear's `legal_events` under `record` enforcement
(`projections/reading/offers.py`, `RULES.disputed`): the seat to play may play any card it holds, whatever
it must follow; `decide` flags the revokes."""

from __future__ import annotations

from events.cards import sorted_cards
from projections.core.rules import Event
from projections.games.cutthroat_smear._state import SmearState


def disputed(state: SmearState) -> list[Event]:
    """Every card the seat to play holds, as a play."""
    if state.phase != "play":
        return []
    seat = (state.leader + len(state.trick)) % state.seats
    return [{"type": "play", "seat": seat, "card": c} for c in sorted_cards(state.hands[seat])]
