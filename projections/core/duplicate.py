"""What a game means by "the same deal" at every table of a duplicate event, and how its boards compare.

Each game declares a `Duplicate` (`GameRules.duplicate`): every table of a duplicate round deals the same
deck for a board (`projections/core/boards.py`), and the game says which parts of that deck are the deal
that every table gets alike (Schnapsen: the two hands, the trump card and the order of the talon; Seven
and a Half: the order of the whole deck, since who gets which card depends on the banker), what a seat's
result on a board is (by default its hand points less the mean of the other seats'), and the steps of its
difference score: the IMP scale of duplicate bridge, in the game's own points.

The comparison (`projections/tournaments/compare.py`) compares each seat with the same seat at the other
tables of the round: matchpoints (2 for each table beaten, 1 for each tie) and cross-IMPs (the mean, over
the other tables, of the difference's steps on the game's scale).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: `parts(deck, seats, hand)`: a board's deal as the game reads it, from the board's deck (the top card
#: first), for a table of `seats` playing it as hand `hand`: `[(what, cards)]`, in dealing order
Parts = Callable[[Sequence[str], int, int], list[tuple[str, list[str]]]]


def net_result(points: Sequence[float], seat: int) -> float:
    """A seat's result on a board: its hand points less the mean of the other seats' (for two seats, the
    difference: Schnapsen's 3 game points to one seat are +3 for it and -3 for the other)."""
    others = [p for s, p in enumerate(points) if s != seat]
    return points[seat] - (sum(others) / len(others) if others else 0)


def own_points(points: Sequence[float], seat: int) -> float:
    """A seat's result on a board: its own points (a game whose hand points sum to zero already: chips)."""
    return points[seat]


def _one(options: Mapping[str, Any]) -> float:
    return 1.0


@dataclass(frozen=True, slots=True)
class Duplicate:
    """A game's declaration for duplicate boards."""

    #: what "the same deal" is, in words ("the two hands, the trump card and the order of the talon")
    same: str
    #: the board's deal as the game reads it (`Parts`)
    parts: Parts
    #: the steps of the difference score: a difference of at least `imps[i]` (in `unit`s) is worth i + 1
    imps: tuple[float, ...]
    #: `result(points, seat)`: a seat's result on a board from the hand's points of every seat
    result: Callable[[Sequence[float], int], float] = net_result
    #: `unit(options)`: what one step of `imps` counts in (Seven and a Half: the table's smallest bet)
    unit: Callable[[Mapping[str, Any]], float] = field(default=_one)

    def imps_of(self, difference: float, options: Mapping[str, Any]) -> int:
        """The difference score of a difference of results: the steps of `imps` it reaches, with its sign."""
        size = abs(difference) / (self.unit(options) or 1.0)
        steps = sum(1 for threshold in self.imps if size >= threshold)
        return steps if difference >= 0 else -steps


def take(deck: Sequence[str], counts: Sequence[tuple[str, int]]) -> list[tuple[str, list[str]]]:
    """`[(what, cards)]` dealing `counts` cards of each part from the top of `deck` in turn; a count of -1 takes
    the rest (the talon, the stock)."""
    out: list[tuple[str, list[str]]] = []
    at = 0
    for what, count in counts:
        cards = list(deck[at:]) if count < 0 else list(deck[at : at + count])
        at = len(deck) if count < 0 else at + count
        if cards:
            out.append((what, cards))
    return out
