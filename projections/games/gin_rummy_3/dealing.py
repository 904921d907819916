"""Gin Rummy for three's dealing order, for server deals (`rules/server-deal.md`, `GameRules.dealing_order`).

The `cut` (hand 0, before the first deal) takes `cards[0]`, `cards[1]`, `cards[2]`; a `deal` takes the
lower seat's 10 cards of `hands`, then the higher seat's 10, then the `upcard`; each `draw` from the
stock takes the next card (a draw from the discard pile names a card everyone sees: as at the table).
The cut ranks the seats, so its three cards must be of three ranks: after a tie the deck is cut again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from events.cards import FULL_DECK
from events.errors import ImpossibleEventError
from projections.core.dealing_order import DealingOrder, Draw
from projections.games.gin_rummy_3._state import GinState

HAND_SIZE = 10
CUT_SIZE = 3


def _fill(state: GinState, event: Mapping[str, Any], draw: Draw) -> dict[str, Any]:
    if event["type"] == "draw":
        return {"card": draw(1)[0]}
    if event["type"] == "cut":
        return {"cards": draw(CUT_SIZE)}
    roles = state.dealing_roles  # the next deal's box and captain (the shown roles stay the last hand's)
    if roles is None or state.phase != "deal":
        raise ImpossibleEventError("no deal is due now")
    hands = {str(s): draw(HAND_SIZE) for s in sorted(roles[:2])}
    return {"hands": hands, "upcard": draw(1)[0]}


def _from_stock(event: Mapping[str, Any]) -> bool:
    return event.get("source") == "stock"


def _due_hand(state: GinState) -> int | None:
    """The cut comes before the first hand, from hand 0's deck."""
    return 0 if state.phase == "cut" else None


def _recut(state: GinState, event: Mapping[str, Any], top: Draw) -> bool:
    """A cut whose cards would hold two of one rank: the tied players cut again."""
    if event.get("type") != "cut" or state.phase != "cut" or "cards" in event:
        return False
    return len({card[0] for card in top(CUT_SIZE)}) < CUT_SIZE


DEALING_ORDER = DealingOrder(
    deck=FULL_DECK,
    takes={"cut": ("cards",), "deal": ("hands", "upcard"), "draw": ("card",)},
    fill=_fill,
    when={"draw": _from_stock},
    due_hand=_due_hand,
    recut=_recut,
)
