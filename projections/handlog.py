"""Past hands in an append-only log that folds never recopy (STYLE.md point 5).

`HandLog` is an immutable sequence of `HandScore`s. Appending a hand costs
O(seats), not O(hands): the log shares one list with the logs it grew from,
and only ever appends to it; each log's length is its own, so an older log
(an older state, one a retract restores, one a cache holds) still sees only
its prefix. When a log that is not the longest one is appended to (a state
branched after a retract), it copies its prefix once into a list of its own.

The log also keeps, per prefix, the running totals of points per seat, so
`totals()` is O(1): `score()` stays O(1) in the number of hands.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from itertools import islice
from typing import Any, overload

from projections.rules import HandScore

_lock = threading.Lock()


class HandLog(Sequence[HandScore]):
    """An immutable prefix of a shared, append-only list of finished hands."""

    __slots__ = ("_hands", "_n", "_totals")

    _hands: list[HandScore]
    #: `_totals[i]`: the sum of points per seat over the first `i + 1` hands
    _totals: list[tuple[int, ...]]
    _n: int

    def __init__(self, hands: Sequence[HandScore] = ()) -> None:
        built = _build(hands) if hands else None
        object.__setattr__(self, "_hands", built._hands if built else [])
        object.__setattr__(self, "_totals", built._totals if built else [])
        object.__setattr__(self, "_n", len(hands))

    @classmethod
    def _of(cls, hands: list[HandScore], totals: list[tuple[int, ...]], n: int) -> HandLog:
        log = object.__new__(cls)
        object.__setattr__(log, "_hands", hands)
        object.__setattr__(log, "_totals", totals)
        object.__setattr__(log, "_n", n)
        return log

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a HandLog is immutable")

    def append(self, hand: HandScore) -> HandLog:
        """This log with one more hand, in O(seats): the shared list grows when this log is its longest prefix."""
        n = self._n
        last = self._totals[n - 1] if n else (0,) * len(hand.points)
        totals = tuple(t + p for t, p in zip(last, hand.points, strict=True))
        with _lock:
            hands, sums = self._hands, self._totals
            if n == 0 or len(hands) != n:
                hands, sums = hands[:n], sums[:n]  # a first hand, or a branch: a list of its own
            hands.append(hand)
            sums.append(totals)
        return HandLog._of(hands, sums, n + 1)

    def totals(self, seats: int) -> tuple[int, ...]:
        """The sum of points per seat over the hands of this log, in O(1)."""
        return self._totals[self._n - 1] if self._n else (0,) * seats

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> HandScore: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[HandScore, ...]: ...
    def __getitem__(self, index: int | slice) -> HandScore | tuple[HandScore, ...]:
        if isinstance(index, slice):
            return tuple(self._hands[: self._n])[index]
        if index < 0:
            index += self._n
        if not 0 <= index < self._n:
            raise IndexError("hand log index out of range")
        return self._hands[index]

    def __iter__(self) -> Iterator[HandScore]:
        return islice(self._hands, self._n)

    def __reversed__(self) -> Iterator[HandScore]:
        return (self._hands[i] for i in range(self._n - 1, -1, -1))

    def __bool__(self) -> bool:
        return self._n > 0

    def __eq__(self, other: object) -> bool:
        if isinstance(other, HandLog):
            return self._n == other._n and (self._hands is other._hands or tuple(self) == tuple(other))
        if isinstance(other, tuple):
            return tuple(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"HandLog({tuple(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (HandLog, (tuple(self),))

    def __copy__(self) -> HandLog:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> HandLog:
        return self


def _build(hands: Sequence[HandScore]) -> HandLog:
    log = EMPTY_LOG
    for hand in hands:
        log = log.append(hand)
    return log


#: The log of no hands (appending to it starts a list of its own).
EMPTY_LOG = HandLog._of([], [], 0)
