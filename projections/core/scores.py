"""A game's score, explained: every point a line naming its rule, its reason and the events it comes from.

`score(state)` of every game answers a `ScoreSheet`: the totals, each hand's points and the lines that
make them up (`rules/README.md`, "Scores"): a hand's lines sum, seat by seat, to its points, and the
totals follow from the hands by the game's rule. Here, apart from the rest of the game interface
(`projections/core/rules.py`), so that a module that only reads scores needs nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from projections.core import phrases
from projections.core.fastreplace import fast_init


@fast_init
@dataclass(frozen=True, slots=True)
class ScoreLine:
    """One reason for points: who, how many, which rule, why, from which events."""

    hand: int
    seat: int
    points: int
    rule: str
    reason: str
    events: tuple[int, ...] = ()

    def to_dict(self, names: Sequence[str] | None = None) -> dict[str, Any]:
        """The wire's line. Without `names`, the reason as the rules wrote it (with its markers, see
        `projections/core/phrases.py`); with the game's players, the reason a person reads (names, card
        glyphs, values in their units) and the `template` and `fields` it was made of, so that a
        client can render its own."""
        if names is None:
            return {
                "seat": self.seat,
                "points": self.points,
                "rule": self.rule,
                "reason": self.reason,
                "events": list(self.events),
            }
        return {
            "seat": self.seat,
            "points": self.points,
            "rule": self.rule,
            **phrases.explained(self.reason, names),
            "events": list(self.events),
        }


@fast_init
@dataclass(frozen=True, slots=True)
class HandScore:
    """A finished hand's points per seat and the lines that explain them."""

    hand: int
    points: tuple[int, ...]
    lines: tuple[ScoreLine, ...]

    def to_dict(self, names: Sequence[str] | None = None) -> dict[str, Any]:
        """The wire's hand; its lines rendered with `names` when given (`ScoreLine.to_dict`)."""
        return {
            "hand": self.hand,
            "points": seat_dict(self.points),
            "lines": [line.to_dict(names) for line in self.lines],
        }


def hand_score(hand: int, seats: int, lines: Sequence[ScoreLine]) -> HandScore:
    """A HandScore whose points are, seat by seat, the sum of its lines."""
    points = [0] * seats
    for line in lines:
        points[line.seat] += line.points
    return HandScore(hand, tuple(points), tuple(lines))


@dataclass(frozen=True, slots=True)
class ScoreSheet:
    """Totals by the game's rule, every finished hand, and who won."""

    totals: tuple[int, ...]
    #: in order; a game's append-only `HandLog` (projections/core/handlog.py), not a copy, or a tuple
    hands: Sequence[HandScore]
    finished: bool
    winner: int | None

    @property
    def lines(self) -> tuple[ScoreLine, ...]:
        return tuple(line for h in self.hands for line in h.lines)

    def hand(self, number: int) -> HandScore | None:
        for h in self.hands:
            if h.hand == number:
                return h
        return None

    def to_dict(self, names: Sequence[str] | None = None) -> dict[str, Any]:
        """The wire's sheet; its lines rendered with `names` when given (`ScoreLine.to_dict`)."""
        return {
            "totals": seat_dict(self.totals),
            "finished": self.finished,
            "winner": self.winner,
            "hands": [h.to_dict(names) for h in self.hands],
        }

    def named(self, names: Sequence[str]) -> NamedScoreSheet:
        """The same sheet, whose `to_dict()` renders every reason with the game's players: what the
        service hands to a route, so that no caller can forget the names."""
        return NamedScoreSheet(self.totals, self.hands, self.finished, self.winner, tuple(names))


@dataclass(frozen=True, slots=True)
class NamedScoreSheet(ScoreSheet):
    """A `ScoreSheet` that knows its game's players (`ScoreSheet.named`)."""

    names: tuple[str, ...] = ()

    def to_dict(self, names: Sequence[str] | None = None) -> dict[str, Any]:
        return ScoreSheet.to_dict(self, self.names if names is None else names)


def seat_dict(values: Sequence[Any]) -> dict[str, Any]:
    """A per-seat tuple as the wire's object keyed by seat strings."""
    return {str(i): v for i, v in enumerate(values)}


def replace_at(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """A copy of a per-seat tuple with one item replaced: the everyday step of an immutable fold."""
    return (*values[:index], value, *values[index + 1 :])


def cumulative_totals(seats: int, hands: Sequence[HandScore], start: int = 0, sign: int = 1) -> tuple[int, ...]:
    """`start + sign * sum(points)` per seat over the hands."""
    totals = [start] * seats
    for h in hands:
        for s, p in enumerate(h.points):
            totals[s] += sign * p
    return tuple(totals)
