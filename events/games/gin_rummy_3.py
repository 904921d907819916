"""Three-handed Gin Rummy's event schemas (`rules/gin-rummy-3.md`).

Only the shape is checked here: which seats a deal names, whether melds are
melds and lay-offs fit is the business of `projections/gin_rummy_3`.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from events.common import COMMON_EVENTS, HandVoided
from events.schema import Shape, Upcast, card, integer, list_of, one_of, record, seat, seat_map

MELDS = list_of(list_of(card, max_length=13), max_length=13)

EVENTS: dict[str, Shape] = {
    "cut": Shape({"cards": list_of(card, length=3)}),
    "deal": Shape({"hands": seat_map(list_of(card, length=10)), "upcard": card}),
    "draw": Shape({"seat": seat, "source": one_of("stock", "discard"), "card": card}),
    "discard": Shape({"seat": seat, "card": card}),
    "pass": Shape({"seat": seat}),
    "knock": Shape(
        {"seat": seat, "discard": card, "melds": MELDS},
        version=2,
        upcasts=(
            Upcast(
                "the knock's derived result names the knocker's melds (`melds`); a knock stored before "
                "(2026-12-01 and earlier) may not have them",
                new_result=("melds",),
            ),
        ),
    ),
    "lay_off": Shape(
        {
            "seat": seat,
            "melds": MELDS,
            "layoffs": list_of(record({"card": card, "meld": integer(0)}), max_length=13),
        },
        version=2,
        upcasts=(
            Upcast(
                "the lay-off's derived result names each card laid off with the meld it joins (`layoffs`); a "
                "lay-off stored before (2026-12-01 and earlier) may not have them",
                new_result=("layoffs",),
            ),
        ),
    ),
    **COMMON_EVENTS,
}


# --------------------------------------------------------------------------- typed events (as `parse_event` gives them)


class Cut(TypedDict):
    type: Literal["cut"]
    #: seat i's cut card at index i
    cards: list[str]


class Deal(TypedDict):
    type: Literal["deal"]
    #: seat (as a string, "0", "1"...) -> its 10 cards: the box's and the captain's
    hands: dict[str, list[str]]
    upcard: str


class Draw(TypedDict):
    type: Literal["draw"]
    seat: int
    source: Literal["stock", "discard"]
    card: str


class Discard(TypedDict):
    type: Literal["discard"]
    seat: int
    card: str


class Pass(TypedDict):
    type: Literal["pass"]
    seat: int


class Knock(TypedDict):
    type: Literal["knock"]
    seat: int
    discard: str
    melds: list[list[str]]


class Layoff(TypedDict):
    """One item of a `lay_off`'s `layoffs`: a card and the index of the knocker's meld it goes onto."""

    card: str
    meld: int


class LayOff(TypedDict):
    type: Literal["lay_off"]
    seat: int
    melds: list[list[str]]
    layoffs: list[Layoff]


#: every event three-handed Gin folds itself (the engine folds `score_claimed`, `note` and `retract`)
GinEvent = Draw | Discard | Pass | Knock | LayOff | Deal | Cut | HandVoided
