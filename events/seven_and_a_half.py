"""Seven and a Half's event schemas (`rules/seven-and-a-half.md`).

Stakes are integers from -10**9 to 10**9 here (`MAX_AMOUNT`, the largest
table limit): whether one is within the table's limits is a rule
(`half.stake_limits`, illegal), not a question of shape. The bound keeps a
stake recorded under `record` enforcement settleable: multiplied and summed
over the table it stays far inside 64 bits.
"""

from __future__ import annotations

from events.common import COMMON_EVENTS
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
