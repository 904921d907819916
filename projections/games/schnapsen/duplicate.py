"""Schnapsen's duplicate boards (`GameRules.duplicate`, `projections/core/duplicate.py`).

The same deal at every table: the two hands (seat 0's five cards, then seat 1's), the trump card and the
order of the talon, as the server deals them from the board's deck (`dealing.py`). A seat's result on a
board is the game points of the hand to it less the other's (+3 to -3); the difference score counts one
step a game point.
"""

from __future__ import annotations

from collections.abc import Sequence

from projections.core.duplicate import Duplicate, take

HAND_SIZE = 5


def parts(deck: Sequence[str], seats: int, hand: int) -> list[tuple[str, list[str]]]:
    hands = [(f"seat {s}'s hand", HAND_SIZE) for s in range(seats)]
    return take(deck, [*hands, ("the trump card", 1), ("the talon, from the top", -1)])


DUPLICATE = Duplicate(
    same="the two hands, the trump card and the order of the talon",
    parts=parts,
    imps=(1, 2, 3, 4, 5, 6),
)
