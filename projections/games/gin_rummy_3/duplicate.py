"""Gin Rummy for three's duplicate boards (`GameRules.duplicate`, `projections/core/duplicate.py`).

The same deal at every table: the two hands dealt (the lower seat's ten cards of the two dealt in, then the
higher seat's), the upcard and the order of the stock; a round's first board is the cut (hand 0), which
ranks the seats the same way at every table. A seat's result on a board is its hand points less the mean
of the others'; the difference score's steps grow like duplicate bridge's IMPs, in Gin points.
"""

from __future__ import annotations

from collections.abc import Sequence

from projections.core.duplicate import Duplicate, take

HAND_SIZE = 10
CUT_SIZE = 3


def parts(deck: Sequence[str], seats: int, hand: int) -> list[tuple[str, list[str]]]:
    if hand == 0:
        return take(deck, [("the cut", CUT_SIZE)])
    return take(
        deck,
        [
            ("the lower seat's hand", HAND_SIZE),
            ("the higher seat's hand", HAND_SIZE),
            ("the upcard", 1),
            ("the stock, from the top", -1),
        ],
    )


DUPLICATE = Duplicate(
    same="the two hands dealt, the upcard and the order of the stock",
    parts=parts,
    imps=(5, 10, 15, 20, 25, 30, 40, 50, 60, 75, 90, 110, 130, 150),
)
