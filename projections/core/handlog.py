"""Past hands in an append-only log that folds never recopy (STYLE.md point 5).

`HandLog` is an immutable sequence of `HandScore`s. Appending a hand costs
O(seats), not O(hands): the log shares one list with the logs it grew from,
and only ever appends to it; each log's length is its own, so an older log
(an older state, one a retract restores, one a cache holds) still sees only
its prefix. When a log that is not the longest one is appended to (a state
branched after a retract), it copies its prefix once into a list of its own.

The log also keeps, per prefix, the running totals of points per seat, so
`totals()` is O(1): `score()` stays O(1) in the number of hands.

A log may start with a *stored prefix* (`HandLog.stored`): its first hands
are kept elsewhere (a snapshot's hand rows, projections/core/snapshots.py) and
only their count, their totals and a key are known. Appending, `len`,
`totals()` and `bool` never need them; indexing, iterating, comparing or
hashing loads them once (`load()`, shared by every log grown from it).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from itertools import chain, islice
from operator import add
from typing import Any, overload

from projections.core.rules import HandScore

_lock = threading.Lock()


class StoredHands:
    """The first `n` hands of some logs, loaded on first use (once, under a lock) by `load()`."""

    __slots__ = ("_hands", "_load", "_lock", "key", "n", "totals")

    def __init__(
        self, n: int, totals: tuple[int, ...], key: str, load: Callable[[StoredHands], Sequence[HandScore]]
    ) -> None:
        self.n = n
        #: the sum of points per seat over the `n` hands
        self.totals = totals
        #: what the loader finds them by (a digest of the hands, for snapshots)
        self.key = key
        self._load = load
        self._hands: tuple[HandScore, ...] | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._hands is not None

    def hands(self) -> tuple[HandScore, ...]:
        """The hands, loaded on first use.

        Raises:
            ValueError: the loader found other hands than it promised (their count or their totals).
        """
        found = self._hands
        if found is None:
            with self._lock:
                found = self._hands
                if found is None:
                    found = tuple(self._load(self))
                    if len(found) != self.n:
                        raise ValueError(f"{len(found)} hands loaded, {self.n} expected")
                    sums = [0] * len(self.totals)
                    for hand in found:
                        for seat, points in enumerate(hand.points):
                            sums[seat] += points
                    if self.n and tuple(sums) != self.totals:
                        raise ValueError("the hands loaded do not add up to their totals")
                    self._hands = found
        return found


class HandLog(Sequence[HandScore]):
    """An immutable prefix of a shared, append-only list of finished hands (after an optional stored prefix)."""

    __slots__ = ("_base", "_hands", "_n", "_totals")

    #: the first hands, kept elsewhere (None: none)
    _base: StoredHands | None
    #: the hands after the stored prefix
    _hands: list[HandScore]
    #: `_totals[i]`: the sum of points per seat over the first `k + i + 1` hands (`k`: the stored prefix's)
    _totals: list[tuple[int, ...]]
    _n: int

    def __init__(self, hands: Sequence[HandScore] = ()) -> None:
        built = _build(hands) if hands else None
        object.__setattr__(self, "_base", None)
        object.__setattr__(self, "_hands", built._hands if built else [])
        object.__setattr__(self, "_totals", built._totals if built else [])
        object.__setattr__(self, "_n", len(hands))

    @classmethod
    def _of(
        cls, hands: list[HandScore], totals: list[tuple[int, ...]], n: int, base: StoredHands | None = None
    ) -> HandLog:
        log = _new(cls)
        _set_base(log, base)
        _set_hands(log, hands)
        _set_totals(log, totals)
        _set_n(log, n)
        return log

    @classmethod
    def stored(cls, base: StoredHands) -> HandLog:
        """The log of the `base.n` hands of `base`, loaded only when someone looks at them."""
        return cls._of([], [], base.n, base) if base.n else EMPTY_LOG

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a HandLog is immutable")

    @property
    def _k(self) -> int:
        base = self._base
        return base.n if base is not None else 0

    def stored_part(self) -> tuple[StoredHands | None, tuple[HandScore, ...]]:
        """The stored prefix (None: none) and the hands after it, without loading the prefix."""
        return self._base, tuple(islice(self._hands, self._n - self._k))

    def append(self, hand: HandScore) -> HandLog:
        """This log with one more hand, in O(seats): the shared list grows when this log is its longest prefix."""
        n = self._n
        base = self._base
        tail = n - base.n if base is not None else n
        points = hand.points
        if tail:
            last = self._totals[tail - 1]
        else:
            last = base.totals if base is not None else (0,) * len(points)
        if len(last) != len(points):
            raise ValueError(f"a hand of {len(points)} seats appended to a log of {len(last)}")
        totals = tuple(map(add, last, points))  # a fold appends every hand: no generator, no zip(strict=True)
        with _lock:
            hands, sums = self._hands, self._totals
            if tail == 0 or len(hands) != tail:
                hands, sums = hands[:tail], sums[:tail]  # a first hand, or a branch: a list of its own
            hands.append(hand)
            sums.append(totals)
        return HandLog._of(hands, sums, n + 1, self._base)

    def totals(self, seats: int) -> tuple[int, ...]:
        """The sum of points per seat over the hands of this log, in O(1)."""
        tail = self._n - self._k
        if tail:
            return self._totals[tail - 1]
        base = self._base
        return base.totals if base is not None else (0,) * seats

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> HandScore: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[HandScore, ...]: ...
    def __getitem__(self, index: int | slice) -> HandScore | tuple[HandScore, ...]:
        if isinstance(index, slice):
            return tuple(self)[index]
        if index < 0:
            index += self._n
        if not 0 <= index < self._n:
            raise IndexError("hand log index out of range")
        k = self._k
        if index < k:
            assert self._base is not None
            return self._base.hands()[index]
        return self._hands[index - k]

    def __iter__(self) -> Iterator[HandScore]:
        tail = islice(self._hands, self._n - self._k)
        return chain(self._base.hands(), tail) if self._base is not None else tail

    def __reversed__(self) -> Iterator[HandScore]:
        return (self[i] for i in range(self._n - 1, -1, -1))

    def __bool__(self) -> bool:
        return self._n > 0

    def __eq__(self, other: object) -> bool:
        if isinstance(other, HandLog):
            if self._n != other._n:
                return False
            if self._n and self.totals(0) != other.totals(0):
                return False
            return (self._hands is other._hands and self._base is other._base) or tuple(self) == tuple(other)
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


_new = object.__new__
#: each slot's own setter (a `HandLog` refuses `setattr`): `_of` makes a log on every hand a fold appends
_set_base = HandLog.__dict__["_base"].__set__
_set_hands = HandLog.__dict__["_hands"].__set__
_set_totals = HandLog.__dict__["_totals"].__set__
_set_n = HandLog.__dict__["_n"].__set__

#: The log of no hands (appending to it starts a list of its own).
EMPTY_LOG = HandLog._of([], [], 0)
