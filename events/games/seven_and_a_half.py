"""Seven and a Half's event schemas (`rules/seven-and-a-half.md`).

Stakes are integers from -10**9 to 10**9 here (`MAX_AMOUNT`, the largest
table limit): whether one is within the table's limits is a rule
(`half.stake_limits`, illegal), not a question of shape. The bound keeps a
stake recorded under `record` enforcement settleable: multiplied and summed
over the table it stays far inside 64 bits.
"""

from typing import Literal, NotRequired, TypedDict

from events.common import COMMON_EVENTS, HandVoided
from events.schema import MAX_AMOUNT, Shape, boolean, card, integer, seat, seat_map

#: a stake (`bet`, `split`): any amount up to the largest table limit, either sign (zero and below are illegal)
STAKE = integer(-MAX_AMOUNT, MAX_AMOUNT)

EVENTS: dict[str, Shape] = {
    "bet": Shape({"seat": seat, "amount": STAKE}),
    "deal": Shape({"cards": seat_map(card, every_seat=True)}),
    "hit": Shape({"seat": seat, "card": card}, {"face_down": boolean, "hand": integer(0)}),
    "stand": Shape({"seat": seat}, {"hand": integer(0)}),
    "split": Shape({"seat": seat, "hand": integer(0), "amount": STAKE}),
    "flip": Shape({"seat": seat}, {"hand": integer(0)}),
    "bank_passed": Shape({"to": seat}),
    "session_closed": Shape({}),
    **COMMON_EVENTS,
}


# --------------------------------------------------------------------------- typed events (as `parse_event` gives them)
#
# No `from __future__ import annotations` here: the annotations are evaluated, so `NotRequired` sets
# each class's `__required_keys__` / `__optional_keys__` at run time too.


class Bet(TypedDict):
    type: Literal["bet"]
    seat: int
    amount: int


class Deal(TypedDict):
    type: Literal["deal"]
    #: seat (as a string, "0", "1"...) -> the card dealt face down to it
    cards: dict[str, str]


class Hit(TypedDict):
    type: Literal["hit"]
    seat: int
    card: str
    face_down: NotRequired[bool]
    hand: NotRequired[int]


class Stand(TypedDict):
    type: Literal["stand"]
    seat: int
    hand: NotRequired[int]


class Split(TypedDict):
    type: Literal["split"]
    seat: int
    hand: int
    amount: int


class Flip(TypedDict):
    type: Literal["flip"]
    seat: int
    hand: NotRequired[int]


class BankPassed(TypedDict):
    type: Literal["bank_passed"]
    to: int


class SessionClosed(TypedDict):
    type: Literal["session_closed"]


#: every event Seven and a Half folds itself (the engine folds `score_claimed`, `note` and `retract`)
SevenAndAHalfEvent = Hit | Stand | Bet | Deal | Split | Flip | BankPassed | SessionClosed | HandVoided
