"""The arithmetic of captures and builds: splitting cards into groups of one value.

A capture with a number card of value v, and a number build of value v, both
need the loose cards involved to split into groups that each add up to v.
`splits` answers that for given cards (validation); `packings` lists every
set of loose cards that splits (legal move enumeration). Both work on card
values only (1 to 10), so the work is bounded by v, not by the suits.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache

#: card values for captures and builds; J, Q, K have none
VALUES: dict[str, int] = {r: i for i, r in enumerate("A23456789T", start=1)}


def value_of(card: str) -> int | None:
    """A card's number (A = 1, T = 10), or None for J, Q, K."""
    return VALUES.get(card[0])


def splits(values: Sequence[int], target: int) -> bool:
    """Can `values` (each 1 to 10) be split into groups each adding up to `target`?

    The empty list splits (into no groups).
    """
    if any(v > target or v < 1 for v in values) or sum(values) % target:
        return False
    counts = [0] * 11
    for v in values:
        counts[v] += 1
    return _splits(tuple(counts), target)


@lru_cache(maxsize=65536)
def _splits(counts: tuple[int, ...], target: int) -> bool:
    top = next((v for v in range(10, 0, -1) if counts[v]), 0)
    if top == 0:
        return True
    rest = list(counts)
    rest[top] -= 1
    return any(_splits(left, target) for left in _fill(tuple(rest), target - top, top))


def _fill(counts: tuple[int, ...], need: int, largest: int) -> Iterator[tuple[int, ...]]:
    """Every way to take values of at most `largest` adding up to `need`: the counts left."""
    if need == 0:
        yield counts
        return
    for v in range(min(need, largest), 0, -1):
        if counts[v]:
            left = list(counts)
            left[v] -= 1
            yield from _fill(tuple(left), need - v, v)


def groups(values: Sequence[int], target: int) -> list[int]:
    """Bit masks of every set of positions in `values` adding up to exactly `target`."""
    found: list[int] = []
    n = len(values)

    def walk(start: int, total: int, mask: int) -> None:
        for i in range(start, n):
            t = total + values[i]
            if t == target:
                found.append(mask | 1 << i)
            elif t < target:
                walk(i + 1, t, mask | 1 << i)

    walk(0, 0, 0)
    return found


def partition(cards: Sequence[str], target: int) -> list[tuple[str, ...]] | None:
    """The cards split into groups each adding up to `target`, in the cards' order; None if they do not split.

    For a reader of a multiple build (its groups, as the state shows them), not for validation:
    `splits` answers whether cards split without building the groups. The first group holds the
    first card, and so on; a build's few cards make this quick.
    """
    found = _partition_masks(tuple([VALUES.get(c[0], 0) for c in cards]), target)
    if found is None:
        return None
    n = len(cards)
    return [tuple([cards[i] for i in range(n) if g >> i & 1]) for g in found]


@lru_cache(maxsize=65536)
def _partition_masks(values: tuple[int, ...], target: int) -> tuple[int, ...] | None:
    """`partition`'s groups as bit masks of the cards' positions, or None: a function of the cards' values
    alone, so worked out once for each row of values (a fold splits a multiple build's cards at every
    build, and the rows a table holds are few), as `_splits` is."""
    n = len(values)
    masks = groups(values, target)
    full = (1 << n) - 1

    def walk(used: int) -> list[int] | None:
        if used == full:
            return []
        lowest = ~used & (used + 1)
        for g in masks:
            if g & lowest and not g & used:
                rest = walk(used | g)
                if rest is not None:
                    return [g, *rest]
        return None

    found = walk(0)
    return None if found is None else tuple(found)


def packings(values: Sequence[int], target: int, forced: int = 0) -> set[int]:
    """Bit masks of every set of positions that splits into groups of `target`.

    Positions in the mask `forced` must be included (a played card). The
    empty set is included when nothing is forced. Each partition is walked
    once, element by element (an element is left out, or starts a new group
    as its lowest position), and states already reached are skipped, so
    sets that split several ways cost little.
    """
    n = len(values)
    by_lowest: list[list[int]] = [[] for _ in range(n)]
    for g in groups(values, target):
        by_lowest[(g & -g).bit_length() - 1].append(g)
    found: set[int] = set()
    reached: set[tuple[int, int]] = set()
    stack = [(0, 0)]
    while stack:
        i, mask = stack.pop()
        while i < n and mask >> i & 1:
            i += 1
        if (i, mask) in reached:
            continue
        reached.add((i, mask))
        if i == n:
            found.add(mask)
            continue
        if not forced >> i & 1:
            stack.append((i + 1, mask))
        for g in by_lowest[i]:
            if not g & mask:
                stack.append((i + 1, mask | g))
    return found
