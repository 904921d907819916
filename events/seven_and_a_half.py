"""Seven and a Half's event schemas (`rules/seven-and-a-half.md`).

Stakes are plain integers here: whether one is within the table limits is a
rule (`half.stake_limits`, illegal), not a question of shape.
"""

from __future__ import annotations

from events.common import COMMON_EVENTS
from events.schema import Shape, boolean, card, integer, seat, seat_map

EVENTS: dict[str, Shape] = {
    "bet": Shape({"seat": seat, "amount": integer()}),
    "deal": Shape({"cards": seat_map(card, every_seat=True)}),
    "hit": Shape({"seat": seat, "card": card}, {"face_down": boolean, "hand": integer(0)}),
    "stand": Shape({"seat": seat}, {"hand": integer(0)}),
    "split": Shape({"seat": seat, "hand": integer(0), "amount": integer()}),
    "flip": Shape({"seat": seat}, {"hand": integer(0)}),
    "bank_passed": Shape({"to": seat}),
    "session_closed": Shape({}),
    **COMMON_EVENTS,
}
