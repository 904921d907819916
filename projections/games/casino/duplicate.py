"""Casino's duplicate boards (`GameRules.duplicate`, `projections/core/duplicate.py`).

A board is a round of Casino, the whole deck. The same deal at every table: the hands of each deal (four
cards a seat, in seat order) and the four cards of the table of the first deal. A seat's result on a board
is its points of the round less the mean of the others'; the difference score's steps grow like IMPs.
"""

from __future__ import annotations

from collections.abc import Sequence

from projections.core.duplicate import Duplicate, take

HAND_SIZE = 4
TABLE_SIZE = 4


def parts(deck: Sequence[str], seats: int, hand: int) -> list[tuple[str, list[str]]]:
    first = [(f"seat {s}'s first hand", HAND_SIZE) for s in range(seats)]
    rest = len(deck) - HAND_SIZE * seats - TABLE_SIZE
    deals = rest // (HAND_SIZE * seats)
    later = [(f"seat {s}'s hand of deal {d}", HAND_SIZE) for d in range(2, deals + 2) for s in range(seats)]
    return take(deck, [*first, ("the table", TABLE_SIZE), *later])


DUPLICATE = Duplicate(
    same="the hands of every deal and the table",
    parts=parts,
    imps=(1, 2, 3, 4, 6, 8, 10, 13, 16, 20),
)
