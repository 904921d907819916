"""A game's score, explained: every point a line naming its rule, its reason and the events it comes from.

`score(state)` of every game answers a `ScoreSheet`: the totals, each hand's points and the lines that
make them up (`rules/README.md`, "Scores"): a hand's lines sum, seat by seat, to its points, and the
totals follow from the hands by the game's rule. Here, apart from the rest of the game interface
(`projections/core/rules.py`), so that a module that only reads scores needs nothing else.

A line's reason may be written when it is first read (`deferred_line`): a fold scores every hand it
passes and keeps the lines in the state, but a rebuild or a load reads the reasons of none of them, and
building the texts (joins, card lists, plurals) was a tenth to a quarter of some games' folds (issue 34).
The line keeps the function that writes its reason and that function's arguments, and writes the text
once, on the first read of `reason` (its equality, hash, repr, `to_dict`, a snapshot, a copy or a
pickle read it the same way), so that no reader can tell it from a line made with the text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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


#: the slot that holds a line's reason: its text, or `(render, args)` until it is first read
_REASON_SLOT = ScoreLine.__dict__["reason"]
_read_slot = _REASON_SLOT.__get__
_write_slot = _REASON_SLOT.__set__


def _reason(line: ScoreLine) -> str:
    """A line's reason: its text, written now (and kept) if the line was made by `deferred_line`."""
    value = _read_slot(line, ScoreLine)
    if value.__class__ is str:
        text: str = value
        return text
    text = value[0](*value[1])
    _write_slot(line, text)
    return text


#: `reason` read through `_reason`, set as the slot is (a snapshot's decoder and `copy` set it so)
setattr(ScoreLine, "reason", property(_reason, _write_slot, doc="Why: the rules' text, with markers."))  # noqa: B010


def deferred_reason(render: Callable[..., str], *args: Any) -> str:
    """The reason `render(*args)`, to be written when first read: only as the `reason` of a `ScoreLine`
    (which writes it then), for the lines a fold makes at every hand's end (the module docstring).
    `render` must be pure and its arguments immutable, so that the text is the same whenever it is
    written. Lines may share one (a settled stake's two lines): each writes its own text."""
    deferred: Any = (render, args)
    stands_for: str = deferred  # typed as the text it stands for: every read of `reason` gives that text
    return stands_for


def deferred_line(
    hand: int, seat: int, points: int, rule: str, render: Callable[..., str], *args: Any, events: tuple[int, ...] = ()
) -> ScoreLine:
    """The line `ScoreLine(hand, seat, points, rule, render(*args), events)`, whose reason is written only
    when it is read (`deferred_reason`; made here without that call: a fold makes several lines a hand)."""
    deferred: Any = (render, args)
    return ScoreLine(hand, seat, points, rule, deferred, events)


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
