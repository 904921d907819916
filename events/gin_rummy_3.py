"""Three-handed Gin Rummy's event schemas (`rules/gin-rummy-3.md`).

Only the shape is checked here: which seats a deal names, whether melds are
melds and lay-offs fit is the business of `projections/gin_rummy_3`.
"""

from __future__ import annotations

from events.common import COMMON_EVENTS
from events.schema import Shape, card, integer, list_of, one_of, record, seat, seat_map

MELDS = list_of(list_of(card, max_length=13), max_length=13)

EVENTS: dict[str, Shape] = {
    "cut": Shape({"cards": list_of(card, length=3)}),
    "deal": Shape({"hands": seat_map(list_of(card, length=10)), "upcard": card}),
    "draw": Shape({"seat": seat, "source": one_of("stock", "discard"), "card": card}),
    "discard": Shape({"seat": seat, "card": card}),
    "pass": Shape({"seat": seat}),
    "knock": Shape({"seat": seat, "discard": card, "melds": MELDS}),
    "lay_off": Shape(
        {
            "seat": seat,
            "melds": MELDS,
            "layoffs": list_of(record({"card": card, "meld": integer(0)}), max_length=13),
        }
    ),
    **COMMON_EVENTS,
}
