"""Casino's event schemas (`rules/casino.md`).

A table item (in `take` and `onto`) is a loose card's code or a build id
(`b1`, `b2`...). A build's `value` is an integer or a face rank `J`/`Q`/`K`;
whether the integer is in range (2 to 10) is for the rules to say (a build
over 10 is *impossible*, not malformed).
"""

# no `from __future__ import annotations`: a TypedDict's `NotRequired` is seen at run time only in annotations
# evaluated when the class is made (Python 3.11), and a check of the typed events reads `__required_keys__`
import re
from typing import Any, Literal, NotRequired, TypedDict

from events.common import COMMON_EVENTS, HandVoided
from events.errors import InvalidEventError
from events.schema import CARD_PATTERN, MAX_INT, Shape, card, described, integer, list_of, per_seat_list, seat

_BUILD_ID = re.compile(r"^[bB][1-9][0-9]{0,3}$")
FACE_RANKS = ("J", "Q", "K")
#: a number build's value: bounded like every integer of an event (2 to 10 is the rules' business)
_BUILD_NUMBER = integer()


def table_item(value: Any, path: str, seats: int) -> str:
    """A loose card (returned canonical) or a build id (returned as `b<n>`)."""
    if isinstance(value, str) and _BUILD_ID.match(value.strip()):
        return value.strip().lower()
    try:
        return card(value, path, seats)
    except InvalidEventError:
        raise InvalidEventError(
            f"{path}: {value!r} is neither a card code (e.g. 'TD') nor a build id (e.g. 'b1')", field=path
        ) from None


described(
    table_item,
    {
        "type": "string",
        "anyOf": [{"pattern": CARD_PATTERN}, {"pattern": r"^\s*[bB][1-9][0-9]{0,3}\s*$"}],
        "description": "a loose card (`TD`) or a build id (`b1`)",
        "examples": ["TD", "b1"],
    },
)


def build_value(value: Any, path: str, seats: int) -> int | str:
    """An integer (a number build) or `J`, `Q`, `K` (a face build)."""
    if isinstance(value, int) and not isinstance(value, bool):
        bounded: int = _BUILD_NUMBER(value, path, seats)
        return bounded
    if isinstance(value, str) and value.strip().upper() in FACE_RANKS:
        return value.strip().upper()
    raise InvalidEventError(f"{path}: expected a number from 2 to 10 or a face rank J, Q, K, got {value!r}", field=path)


described(
    build_value,
    {
        "anyOf": [
            {"type": "integer", "minimum": -MAX_INT, "maximum": MAX_INT},
            {"type": "string", "pattern": r"^\s*[JjQqKk]\s*$"},
        ],
        "description": "the build's value: a number (2 to 10, a rule) or a face rank `J`, `Q`, `K` (either case)",
        "examples": [7, "K"],
    },
)


EVENTS: dict[str, Shape] = {
    "deal": Shape(
        {"dealer": seat, "hands": per_seat_list(list_of(card, length=4))},
        {"table": list_of(card, length=4)},
    ),
    "capture": Shape({"seat": seat, "card": card, "take": list_of(table_item, max_length=52)}),
    "build": Shape({"seat": seat, "card": card, "onto": list_of(table_item, max_length=52), "value": build_value}),
    "trail": Shape({"seat": seat, "card": card}),
    **COMMON_EVENTS,
}


# --------------------------------------------------------------------------- typed events
# each event as `parse_event` leaves it: cards canonical, a face build's value upper-case


class Deal(TypedDict):
    type: Literal["deal"]
    dealer: int
    #: by seat, 4 cards each
    hands: list[list[str]]
    #: only in the first deal of a round
    table: NotRequired[list[str]]


class Capture(TypedDict):
    type: Literal["capture"]
    seat: int
    card: str
    #: loose cards and build ids
    take: list[str]


class Build(TypedDict):
    type: Literal["build"]
    seat: int
    card: str
    #: loose cards and build ids
    onto: list[str]
    #: 2 to 10 for a number build (a rule), or a face rank `J`/`Q`/`K`
    value: int | str


class Trail(TypedDict):
    type: Literal["trail"]
    seat: int
    card: str


#: every event Casino folds itself, for `evolve`'s exhaustive match
CasinoEvent = Trail | Capture | Build | Deal | HandVoided
