"""Casino's dealing order, for server deals (`rules/server-deal.md`, `GameRules.dealing_order`).

The first deal of a round takes `hands[0]`, `hands[1]`, ... (4 cards each, in seat order), then the
`table` (4); the later deals of the round take the hands only. No other event takes a card.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from projections.core.dealing_order import DealingOrder, Draw
from projections.games.casino._state import CARDS, CasinoState

HAND_SIZE = 4
TABLE_SIZE = 4


def _fill(state: CasinoState, event: Mapping[str, Any], draw: Draw) -> dict[str, Any]:
    filled: dict[str, Any] = {"hands": [draw(HAND_SIZE) for _ in range(state.seats)]}
    if not state.in_round:
        filled["table"] = draw(TABLE_SIZE)
    return filled


DEALING_ORDER = DealingOrder(deck=CARDS, takes={"deal": ("hands", "table")}, fill=_fill)
