"""Schnapsen's event schemas (`rules/schnapsen.md`)."""

from __future__ import annotations

from events.common import COMMON_EVENTS
from events.schema import Shape, boolean, card, list_of, per_seat_list, seat

EVENTS: dict[str, Shape] = {
    "deal": Shape({"dealer": seat, "hands": per_seat_list(list_of(card, length=5)), "trump_card": card}),
    "play": Shape({"seat": seat, "card": card}, {"marriage": boolean}),
    "draw": Shape({"seat": seat, "card": card}),
    "exchange_trump": Shape({"seat": seat}),
    "close": Shape({"seat": seat}),
    **COMMON_EVENTS,
}
