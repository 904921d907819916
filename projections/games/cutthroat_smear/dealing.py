"""Cutthroat Smear's dealing order, for server deals (`rules/server-deal.md`, `GameRules.dealing_order`).

The deal takes `hands[0]`, `hands[1]`, ... (6 cards each, in seat order). No other event takes a card.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from events.cards import FULL_DECK
from projections.core.dealing_order import DealingOrder, Draw
from projections.core.rules import BaseState

HAND_SIZE = 6


def _fill(state: BaseState, event: Mapping[str, Any], draw: Draw) -> dict[str, Any]:
    return {"hands": [draw(HAND_SIZE) for _ in range(state.seats)]}


DEALING_ORDER = DealingOrder(deck=FULL_DECK, takes={"deal": ("hands",)}, fill=_fill)
