"""Cutthroat Canadian Smear's event schemas (`rules/cutthroat-smear.md`).

A bid's `amount` is any integer here: the rule file makes a bid out of 2-4
*impossible*, not malformed, so the range is checked by the projection.
"""

from __future__ import annotations

from events.common import COMMON_EVENTS
from events.schema import Shape, card, integer, list_of, per_seat_list, seat

#: Cards dealt to each player; the rest of the deck is not used.
HAND_SIZE = 6

EVENTS: dict[str, Shape] = {
    "deal": Shape({"dealer": seat, "hands": per_seat_list(list_of(card, length=HAND_SIZE))}),
    "bid": Shape({"seat": seat, "amount": integer()}),
    "pass": Shape({"seat": seat}),
    "play": Shape({"seat": seat, "card": card}),
    **COMMON_EVENTS,
}
