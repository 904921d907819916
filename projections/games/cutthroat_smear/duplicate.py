"""Cutthroat Smear's duplicate boards (`GameRules.duplicate`, `projections/core/duplicate.py`).

The same deal at every table: the hands, six cards a seat in seat order (the rest of the deck is not
played). A seat's result on a board is its points of the hand less the mean of the others' (a bid set
counts its loss); the difference score counts one step a point, then two.
"""

from __future__ import annotations

from collections.abc import Sequence

from projections.core.duplicate import Duplicate, take

HAND_SIZE = 6


def parts(deck: Sequence[str], seats: int, hand: int) -> list[tuple[str, list[str]]]:
    return take(deck, [(f"seat {s}'s hand", HAND_SIZE) for s in range(seats)])


DUPLICATE = Duplicate(
    same="the hands",
    parts=parts,
    imps=(1, 2, 3, 4, 5, 6, 8, 10),
)
