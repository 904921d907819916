"""Schnapsen's dealing order, for server deals (`rules/server-deal.md`, `GameRules.dealing_order`).

The deal takes `hands[0]` (5 cards), `hands[1]` (5), then the `trump_card` turned up; each `draw` takes
the next card of the talon, except the draw that empties it: that one takes the face-up trump card (the
trump card, or the jack exchanged for it), which is not a card of the deck.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from events.cards import deck
from projections.core.dealing_order import DealingOrder, Draw

HAND_SIZE = 5


class _Table(Protocol):
    """What the dealing order reads of the state: the seats, the talon and its face-up trump card."""

    @property
    def seats(self) -> int: ...

    @property
    def talon(self) -> int: ...

    @property
    def trump_card(self) -> str | None: ...


def _fill(state: _Table, event: Mapping[str, Any], draw: Draw) -> dict[str, Any]:
    if event["type"] == "draw":
        if state.talon == 1 and state.trump_card is not None:
            return {"card": state.trump_card}
        return {"card": draw(1)[0]}
    hands = [draw(HAND_SIZE) for _ in range(state.seats)]
    return {"hands": hands, "trump_card": draw(1)[0]}


def _taken(state: _Table, event: Mapping[str, Any]) -> int | None:
    """The last draw takes the face-up trump card: no card of the deck."""
    return 0 if event["type"] == "draw" and state.talon == 1 else None


DEALING_ORDER = DealingOrder(
    deck=deck("ATJQK"),
    takes={"deal": ("hands", "trump_card"), "draw": ("card",)},
    fill=_fill,
    taken=_taken,
)
