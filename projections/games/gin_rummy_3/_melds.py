"""Meld arithmetic for Gin Rummy: what a meld is, deadwood, and the best melding.

Pure functions over canonical card codes (`rules/gin-rummy-3.md`, "Cards and
values"): the ace is always low (A-2-3 is a run, Q-K-A is not); deadwood
values are A 1, 2-T their number, J Q K 10. A *meld* is a set (3 or 4 cards
of one rank) or a run (3 or more consecutive cards of one suit).

The solver works on up to 11 cards (a hand after the draw), enumerating every
meld the cards can form and searching over bitmasks of the hand with a
memo, which is exact and fast at this size.

Public functions:

- `card_value`, `deadwood_value`: the deadwood count of cards;
- `meld_kind`, `is_meld`, `ordered_meld`: recognise and normalise one meld;
- `candidate_melds`: every meld a set of cards can form;
- `best_melding(cards)`: a minimum-deadwood arrangement (used by the bots
  and by the audit); `best_melding_without(cards, card)`, the same of all but
  one card, for the bots' "what if I throw this" in one search;
- `better_melding(cards, declared_melds)`: the best arrangement when it beats
  the declared one, else None (the audit's "a better melding existed" note);
- `maximal_meldings(cards)`: every arrangement of disjoint melds to which no
  further meld can be added (what `legal_events` offers the defender);
- `all_meldings(cards, limit)`: every arrangement of disjoint melds with
  deadwood at most `limit` (what `legal_events` offers for a knock);
- `extend_meld`: one lay-off onto a (possibly already extended) meld;
- `layoff_steps`: the lay-offs in order, each with the meld as it was when
  the card joined it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, pairwise
from typing import Any

from events.cards import FULL_DECK, RANKS, SUITS
from projections.core.fastreplace import fast_init

#: A low (index 0) ... K high (index 12).
RANK_INDEX = {r: i for i, r in enumerate(RANKS)}
VALUES = {r: min(i + 1, 10) for i, r in enumerate(RANKS)}


def card_value(card: str) -> int:
    """The deadwood value of one card: A 1, 2-T their number, J Q K 10."""
    return VALUES[card[0]]


def deadwood_value(cards: Iterable[str]) -> int:
    """The deadwood count of the cards: the sum of their values."""
    return sum(VALUES[c[0]] for c in cards)


def _card_key(card: str) -> tuple[int, int]:
    return (SUITS.index(card[1]), RANK_INDEX[card[0]])


#: every card's `_card_key`, worked out once: a fold sorts a hand at every knock and lay-off
_CARD_KEYS: dict[str, tuple[int, int]] = {card: _card_key(card) for card in FULL_DECK}


def sort_cards(cards: Iterable[str]) -> tuple[str, ...]:
    """Cards by suit (C D H S), then by rank A low to K high: a stable display order."""
    listed = list(cards)
    try:
        return tuple(sorted(listed, key=_CARD_KEYS.__getitem__))  # the key of each card looked up, at C speed
    except KeyError:  # not a card of the deck: `_card_key` says what is wrong with it
        return tuple(sorted(listed, key=_card_key))


def meld_kind(cards: Sequence[str]) -> str | None:
    """`"set"`, `"run"`, or None when the cards (in any order) form no meld."""
    if len(cards) < 3 or len(set(cards)) != len(cards):
        return None
    if len({c[0] for c in cards}) == 1:
        return "set" if len(cards) <= 4 else None
    if len({c[1] for c in cards}) != 1:
        return None
    ranks = sorted(RANK_INDEX[c[0]] for c in cards)
    if all(b == a + 1 for a, b in pairwise(ranks)):
        return "run"
    return None


def is_meld(cards: Sequence[str]) -> bool:
    """Do the cards form a set or a run (ace low)?"""
    return meld_kind(cards) is not None


def ordered_meld(cards: Iterable[str]) -> tuple[str, ...]:
    """A meld's cards in display order: a run from low to high, a set by suit."""
    return sort_cards(cards)


@fast_init
@dataclass(frozen=True, slots=True)
class Melding:
    """An arrangement of cards: disjoint melds and the deadwood left over."""

    melds: tuple[tuple[str, ...], ...]
    deadwood: tuple[str, ...]

    @property
    def count(self) -> int:
        """The deadwood count (sum of the deadwood cards' values)."""
        return deadwood_value(self.deadwood)

    def to_dict(self) -> dict[str, Any]:
        return {"melds": [list(m) for m in self.melds], "deadwood": list(self.deadwood), "count": self.count}

    def describe(self) -> str:
        """`5D 5H 5S + 6C 7C 8C, deadwood 2S 3D (5)` for reasons and notes."""
        melds = " + ".join(" ".join(m) for m in self.melds) or "no meld"
        dead = " ".join(self.deadwood) or "none"
        return f"{melds}, deadwood {dead} ({self.count})"


#: each suit's runs by the bitmask of its ranks present (A low = bit 0), in the order `candidate_melds` gives
#: them: by lowest rank, then by length; cached, since a hand has only a few distinct suit holdings
@lru_cache(maxsize=8192)
def _runs_of(present: int, suit: str) -> tuple[tuple[str, ...], ...]:
    out: list[tuple[str, ...]] = []
    for low in range(len(RANKS)):
        high = low
        while high < len(RANKS) and present >> high & 1:
            if high - low >= 2:
                out.append(tuple(RANKS[i] + suit for i in range(low, high + 1)))
            high += 1
    return tuple(out)


def candidate_melds(cards: Iterable[str]) -> list[tuple[str, ...]]:
    """Every meld the cards can form: each 3-card subset of a rank and the 4-card set,
    and every run of 3 or more consecutive cards of a suit (all sub-runs), in a
    stable order (the sets by rank, then each suit's runs by lowest rank and length:
    the order breaks ties in `best_melding`, so the bots' play depends on it)."""
    hand = set(cards)
    out: list[tuple[str, ...]] = []
    per_rank = dict.fromkeys(RANKS, 0)
    per_suit = dict.fromkeys(SUITS, 0)
    for card in hand:
        per_rank[card[0]] += 1
        per_suit[card[1]] |= 1 << RANK_INDEX[card[0]]
    for r in RANKS:
        if per_rank[r] >= 3:
            same = [r + s for s in SUITS if r + s in hand]
            out.extend(combinations(same, 3))
            if len(same) == 4:
                out.append(tuple(same))
    for s in SUITS:
        if per_suit[s]:
            out.extend(_runs_of(per_suit[s], s))
    return out


class _Solver:
    """The hand's cards as bit positions and its melds as bitmasks."""

    def __init__(self, cards: Iterable[str]) -> None:
        self.cards: tuple[str, ...] = sort_cards(set(cards))
        self.index = {c: i for i, c in enumerate(self.cards)}
        self.values = tuple(card_value(c) for c in self.cards)
        self.melds: tuple[int, ...] = tuple(self.mask(m) for m in candidate_melds(self.cards))
        by_card: list[list[int]] = [[] for _ in self.cards]
        for m in self.melds:
            bits = m
            while bits:
                low = bits & -bits
                by_card[low.bit_length() - 1].append(m)
                bits ^= low
        self.by_card = tuple(tuple(ms) for ms in by_card)
        self._memo: dict[int, tuple[int, tuple[int, ...]]] = {0: (0, ())}

    def mask(self, cards: Iterable[str]) -> int:
        out = 0
        for c in cards:
            out |= 1 << self.index[c]
        return out

    def unmask(self, mask: int) -> tuple[str, ...]:
        return tuple(c for i, c in enumerate(self.cards) if mask >> i & 1)

    def best(self, mask: int) -> tuple[int, tuple[int, ...]]:
        """(minimum deadwood, melds used) of the cards in `mask`."""
        found = self._memo.get(mask)
        if found is not None:
            return found
        low = (mask & -mask).bit_length() - 1
        rest, melds = self.best(mask & ~(1 << low))
        result = (rest + self.values[low], melds)
        for m in self.by_card[low]:
            if m & mask == m:
                count, more = self.best(mask & ~m)
                if count < result[0]:
                    result = (count, (m, *more))
        self._memo[mask] = result
        return result

    def melding(self, mask: int, melds: Iterable[int]) -> Melding:
        used = 0
        out = []
        for m in melds:
            used |= m
            out.append(ordered_meld(self.unmask(m)))
        return Melding(tuple(sorted(out, key=lambda m: _card_key(m[0]))), self.unmask(mask & ~used))

    def maximal(self, mask: int) -> Iterator[tuple[int, ...]]:
        """Every set of disjoint melds within `mask` that no further meld can join."""
        melds = [m for m in self.melds if m & mask == m]

        def walk(start: int, used: int, chosen: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
            if not any(m & used == 0 for m in melds):
                yield chosen
                return
            for j in range(start, len(melds)):
                if melds[j] & used == 0:
                    yield from walk(j + 1, used | melds[j], (*chosen, melds[j]))

        # Melds are chosen in index order, so each arrangement is reached once; a
        # branch yields only when no meld at all fits beside the chosen ones.
        yield from walk(0, 0, ())


@lru_cache(maxsize=4096)
def _best_cached(cards: frozenset[str]) -> Melding:
    solver = _Solver(cards)
    full = (1 << len(solver.cards)) - 1
    _, melds = solver.best(full)
    return solver.melding(full, melds)


@lru_cache(maxsize=256)
def _solver_of(cards: frozenset[str]) -> _Solver:
    return _Solver(cards)


def best_melding_without(cards: Iterable[str], card: str) -> Melding:
    """`best_melding` of the cards but `card`, searched in the memo of the whole hand's solver: a bot asking
    it for each card of an 11-card hand builds one solver, not eleven. The answer is `best_melding`'s: the
    whole hand's melds within the smaller hand come in the order the smaller hand's own would.

    >>> hand = ["AS", "2S", "3S", "4S", "4H", "4D", "KC"]
    >>> best_melding_without(hand, "KC") == best_melding([c for c in hand if c != "KC"])
    True
    """
    solver = _solver_of(frozenset(cards))
    mask = ((1 << len(solver.cards)) - 1) & ~(1 << solver.index[card])
    _, melds = solver.best(mask)
    return solver.melding(mask, melds)


def best_melding(cards: Iterable[str]) -> Melding:
    """A minimum-deadwood arrangement of the cards (ties: the first one found, stably).

    >>> best_melding(["AS", "2S", "3S", "4S", "4H", "4D", "KC"]).describe()
    '4D 4H 4S + AS 2S 3S, deadwood KC (10)'
    """
    return _best_cached(frozenset(cards))


def better_melding(cards: Iterable[str], declared_melds: Iterable[Iterable[str]]) -> Melding | None:
    """The best arrangement of `cards` if its deadwood is lower than that of the
    declared melds, else None.

    `cards` are the knocker's 10 cards (after the discard), `declared_melds` the
    melds of the `knock` event. The declared deadwood is the cards in no
    declared meld; the declared melds are taken as given (the caller has
    checked them). The audit writes "a better melding existed: ... deadwood N
    instead of M" from the answer.

    >>> hand = ["7C", "7D", "7H", "8H", "9H", "2S", "3S", "4S", "KD", "AC"]
    >>> better_melding(hand, [["7C", "7D", "7H"], ["2S", "3S", "4S"]]).describe()
    '7H 8H 9H + 2S 3S 4S, deadwood AC 7C 7D KD (25)'
    >>> better_melding(hand, [["7H", "8H", "9H"], ["2S", "3S", "4S"]]) is None
    True
    """
    hand = frozenset(cards)
    declared: set[str] = set()
    for meld in declared_melds:
        declared.update(meld)
    declared_count = deadwood_value(hand - declared)
    best = _best_cached(hand)
    return best if best.count < declared_count else None


def maximal_meldings(cards: Iterable[str], limit: int | None = None) -> list[Melding]:
    """Every arrangement of disjoint melds to which no further meld of the cards
    can be added, in a stable order (a hand with no meld has one: no melds).

    If `limit` is given, arrangements whose deadwood count is above it are left out.
    """
    solver = _Solver(cards)
    full = (1 << len(solver.cards)) - 1
    out = []
    for chosen in solver.maximal(full):
        melding = solver.melding(full, chosen)
        if limit is None or melding.count <= limit:
            out.append(melding)
    return out


def all_meldings(cards: Iterable[str], limit: int | None = None) -> list[Melding]:
    """Every arrangement of disjoint melds of the cards (no meld at all included),
    maximal or not, in a stable order; with `limit`, only those whose deadwood
    count is at most `limit`."""
    solver = _Solver(cards)
    full = (1 << len(solver.cards)) - 1
    melds = solver.melds
    out: list[Melding] = []

    def walk(start: int, used: int, chosen: tuple[int, ...]) -> None:
        melding = solver.melding(full, chosen)
        if limit is None or melding.count <= limit:
            out.append(melding)
        for j in range(start, len(melds)):
            if melds[j] & used == 0:
                walk(j + 1, used | melds[j], (*chosen, melds[j]))

    walk(0, 0, ())
    return out


def min_deadwood_after_discard(cards: Collection[str]) -> dict[str, int]:
    """For each card of an 11-card hand, the best deadwood of the other 10.

    A cheap bound comes first: cards that fit no meld of the whole hand are
    deadwood in every arrangement, so when they already count over 10 after
    any discard the exact search is skipped (returns only discards worth a look).
    """
    hand = sort_cards(cards)
    meldable: set[str] = set()
    for m in candidate_melds(hand):
        meldable.update(m)
    loose = deadwood_value(c for c in hand if c not in meldable)
    solver = _Solver(hand)
    full = (1 << len(solver.cards)) - 1
    out: dict[str, int] = {}
    for card in hand:
        bound = loose - (card_value(card) if card not in meldable else 0)
        if bound > 10:
            continue
        out[card] = solver.best(full & ~solver.mask([card]))[0]
    return out


def extend_meld(meld: Sequence[str], card: str) -> tuple[str, ...] | None:
    """`meld` (a set or a run, possibly already extended by lay-offs) with `card`
    laid off on it, or None when the card does not fit: a 3-card set takes the
    fourth card of its rank, a 4-card set nothing; a run takes the card just
    below its low end or just above its high end, in its suit (no A above a K,
    nothing below an A)."""
    kind = meld_kind(meld)
    if card in meld:
        return None
    if kind == "set":
        if len(meld) < 4 and card[0] == meld[0][0]:
            return ordered_meld([*meld, card])
        return None
    if kind == "run":
        if card[1] != meld[0][1]:
            return None
        ranks = sorted(RANK_INDEX[c[0]] for c in meld)
        if RANK_INDEX[card[0]] in (ranks[0] - 1, ranks[-1] + 1):
            return ordered_meld([*meld, card])
    return None


def layoff_steps(
    melds: Sequence[tuple[str, ...]], layoffs: Iterable[tuple[str, int]]
) -> list[tuple[str, int, tuple[str, ...]]]:
    """`(card, meld index, the meld's cards as the card found them)` for each lay-off in order: the
    second card laid off on a run sees the run the first extended (`9S` on `TS JS QS`, then `8S` on
    `9S TS JS QS`). An index out of range (never validated) is left out.

    >>> layoff_steps([("TS", "JS", "QS")], [("9S", 0), ("8S", 0)])
    [('9S', 0, ('TS', 'JS', 'QS')), ('8S', 0, ('9S', 'TS', 'JS', 'QS'))]
    """
    extended = list(melds)
    out: list[tuple[str, int, tuple[str, ...]]] = []
    for card, index in layoffs:
        if not 0 <= index < len(extended):
            continue
        out.append((card, index, extended[index]))
        grown = extend_meld(extended[index], card)
        if grown is not None:
            extended[index] = grown
    return out
