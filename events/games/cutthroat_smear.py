"""Cutthroat Canadian Smear's event schemas (`rules/cutthroat-smear.md`), and the events typed.

A bid's `amount` is any integer here: the rule file makes a bid out of 2-4
*impossible*, not malformed, so the range is checked by the projection.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from events.common import COMMON_EVENTS, HandVoided
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


class DealEvent(TypedDict):
    """`deal`: the dealer, and each seat's 6 cards, by seat."""

    type: Literal["deal"]
    dealer: int
    hands: list[list[str]]


class BidEvent(TypedDict):
    """`bid`: a seat bids `amount` (2, 3 or 4 to be possible)."""

    type: Literal["bid"]
    seat: int
    amount: int


class PassEvent(TypedDict):
    """`pass`: a seat passes."""

    type: Literal["pass"]
    seat: int


class PlayEvent(TypedDict):
    """`play`: a seat plays a card to the trick."""

    type: Literal["play"]
    seat: int
    card: str


#: Every event the Smear fold handles (the engine handles `score_claimed`, `note` and `retract`).
SmearEvent = PlayEvent | BidEvent | PassEvent | DealEvent | HandVoided
