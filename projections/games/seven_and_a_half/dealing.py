"""Seven and a Half's dealing order, for server deals (`rules/server-deal.md`, `GameRules.dealing_order`).

The `deal` takes one card a seat, in the hand's playing order (counter-clockwise from the banker's
right), the banker's last; each `hit` takes the next card.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from projections.core.dealing_order import DealingOrder, Draw
from projections.games.seven_and_a_half._cards import CARDS
from projections.games.seven_and_a_half._state import SevenAndAHalfState


def _fill(state: SevenAndAHalfState, event: Mapping[str, Any], draw: Draw) -> dict[str, Any]:
    if event["type"] == "hit":
        return {"card": draw(1)[0]}
    dealt = {seat: draw(1)[0] for seat in (*state.order(), state.banker)}
    return {"cards": {str(seat): dealt[seat] for seat in range(state.seats)}}


DEALING_ORDER = DealingOrder(deck=CARDS, takes={"deal": ("cards",), "hit": ("card",)}, fill=_fill)
