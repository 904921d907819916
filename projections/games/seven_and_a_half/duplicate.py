"""Seven and a Half's duplicate boards (`GameRules.duplicate`, `projections/core/duplicate.py`).

The same deal at every table is the order of the deck: who gets which card depends on who holds the bank
and on every hit asked for, so the tables share the deck, not the seats' cards. A seat's result on a board
is the chips it won or lost in the hand (the hand's chips sum to nothing); the difference score counts in
the table's smallest bet, its steps growing like IMPs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from projections.core.duplicate import Duplicate, own_points


def parts(deck: Sequence[str], seats: int, hand: int) -> list[tuple[str, list[str]]]:
    return [("the deck, from the top", list(deck))]


def smallest_bet(options: Mapping[str, Any]) -> float:
    return float(options.get("min_bet") or 1)


DUPLICATE = Duplicate(
    same="the order of the deck",
    parts=parts,
    imps=(1, 2, 3, 4, 6, 8, 10, 13, 16, 20, 25, 30, 40, 50),
    result=own_points,
    unit=smallest_bet,
)
