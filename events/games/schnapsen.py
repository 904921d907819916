"""Schnapsen's event schemas (`rules/schnapsen.md`), and the typed events the game folds."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from events.common import COMMON_EVENTS, HandVoided
from events.schema import Shape, boolean, card, list_of, per_seat_list, seat

EVENTS: dict[str, Shape] = {
    "deal": Shape({"dealer": seat, "hands": per_seat_list(list_of(card, length=5)), "trump_card": card}),
    "play": Shape({"seat": seat, "card": card}, {"marriage": boolean}),
    "draw": Shape({"seat": seat, "card": card}),
    "exchange_trump": Shape({"seat": seat}),
    "close": Shape({"seat": seat}),
    **COMMON_EVENTS,
}


class Deal(TypedDict):
    type: Literal["deal"]
    dealer: int
    hands: list[list[str]]
    trump_card: str


class Play(TypedDict):
    type: Literal["play"]
    seat: int
    card: str
    marriage: NotRequired[bool]


class Draw(TypedDict):
    type: Literal["draw"]
    seat: int
    card: str


class ExchangeTrump(TypedDict):
    type: Literal["exchange_trump"]
    seat: int


class Close(TypedDict):
    type: Literal["close"]
    seat: int


#: every event Schnapsen's `evolve` folds
SchnapsenEvent = Play | Draw | Deal | ExchangeTrump | Close | HandVoided
