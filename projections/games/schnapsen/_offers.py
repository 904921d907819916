"""What the table pad's offer adds to Schnapsen's `legal_events` under `record` enforcement
(`projections/reading/offers.py`, `RULES.disputed`): the follower may play any card it holds, whatever
the strict rules make it follow; `decide` flags the revokes."""

from __future__ import annotations

from events.cards import sorted_cards
from projections.core.rules import Event
from projections.games.schnapsen._state import SchnapsenState


def disputed(state: SchnapsenState) -> list[Event]:
    """Every card the follower holds, as a play."""
    if state.phase != "follow":
        return []
    seat = 1 - state.leader
    return [{"type": "play", "seat": seat, "card": c} for c in sorted_cards(state.hands[seat])]
