"""The state of a Seven and a Half session, and the small questions asked of it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from projections.core.handlog import EMPTY_LOG, HandLog
from projections.core.rules import BaseState, HandScore, ScoreLine
from projections.games.seven_and_a_half._cards import OPEN, PAIR, PAIR_OF_SEVENS, PLAIN, TWO_CARD, is_two_card, total

# Phases of the session (documented in the package docstring).
BETWEEN = "between"
STAKES = "stakes"
DEAL = "deal"
PLAY = "play"
BANKER = "banker"
OVER = "over"


@dataclass(frozen=True, slots=True)
class Hand:
    """One hand of cards on the table: a player's (with its stake) or the banker's."""

    cards: tuple[str, ...]
    stake: int = 0
    #: seq of the `bet` (or `split`) that placed the stake
    stake_seq: int = 0
    status: str = OPEN
    #: seq of the event that finished the hand (its stand, bust, 7½ or pair)
    end_seq: int = 0

    @property
    def finished(self) -> bool:
        return self.status != OPEN


def positional_maker(cls: type) -> Callable[..., Any]:
    """A constructor of the frozen, slotted dataclass `cls` taking every field positionally, in order.

    The object `cls(*values)` builds (equal, same repr and hash), made by setting its slots directly:
    about half the cost of the dataclass `__init__`, which goes through `object.__setattr__` once
    per field. The fold builds a `Hand` on every hit and stand and two `ScoreLine`s per stake
    settled (issue 15). Only for classes with no `__post_init__` and no defaults that need computing.
    """
    names = [f.name for f in fields(cls)]
    assert not hasattr(cls, "__post_init__") and all(n in cls.__dict__ for n in names)
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    namespace.update({f"_set_{n}": cls.__dict__[n].__set__ for n in names})
    lines = [f"def make({', '.join(names)}):", "    obj = _new(_cls)"]
    lines += [f"    _set_{n}(obj, {n})" for n in names]
    lines.append("    return obj")
    exec("\n".join(lines), namespace)
    maker: Callable[..., Any] = namespace["make"]
    return maker


#: `Hand(cards, stake, stake_seq, status, end_seq)`, made directly (every field given)
make_hand: Callable[[tuple[str, ...], int, int, str, int], Hand] = positional_maker(Hand)

#: `HandScore(hand, points, lines)`, made directly (a settlement builds one)
make_hand_score: Callable[[int, tuple[int, ...], tuple[ScoreLine, ...]], HandScore] = positional_maker(HandScore)


class _Orders(dict[int, tuple[tuple[int, ...], ...]]):
    """`ORDERS[seats][banker]`: the players in playing order, worked out once per table size."""

    def __missing__(self, seats: int) -> tuple[tuple[int, ...], ...]:
        found = self[seats] = tuple(tuple((b - k) % seats for k in range(1, seats)) for b in range(seats))
        return found


#: the playing orders, by seats then banker: the fold reads them on most events (two indexings, no call)
ORDERS = _Orders()


@dataclass(frozen=True, kw_only=True)
class SevenAndAHalfState(BaseState):
    """A session between hands or within one."""

    phase: str = BETWEEN
    #: the banker of the hand in progress (or of the last hand)
    banker: int = 0
    #: the banker of the next hand: the 7½ rule and `bank_passed` change it
    next_banker: int = 0
    #: per seat, (amount, seq) of its stake for the coming deal, or None
    stakes: tuple[tuple[int, int] | None, ...] = ()
    #: per seat, its hands in order of creation (the banker has one)
    hands: tuple[tuple[Hand, ...], ...] = ()
    #: the seat to act while the hand is played
    turn: int | None = None
    #: cards lying face down now (dealt cards, face-down hits, the banker's card)
    face_down: frozenset[str] = frozenset()
    #: the score lines of the hand in progress (or of the last hand)
    lines: tuple[ScoreLine, ...] = ()
    results: HandLog = EMPTY_LOG
    #: the seat that took the bank with 7½ at the last settlement
    bank_taken_by: int | None = None

    @property
    def seen(self) -> frozenset[str]:
        """Every card named in the hand in progress (or the last hand, until the next one begins)."""
        return frozenset(c for hands in self.hands for h in hands for c in h.cards)

    @property
    def wild(self) -> str | None:
        wild: str | None = self.options.get("wild_card")
        return wild

    def order(self, banker: int | None = None) -> tuple[int, ...]:
        """The players in playing order: the banker's right first, counter-clockwise."""
        return ORDERS[self.seats][self.banker if banker is None else banker]

    def total(self, hand: Hand) -> int:
        return total(hand.cards, self.wild)

    def kind(self, hand: Hand) -> str:
        """How a finished, unbust hand settles: a pair of sevens, a two-card 7½ or plain."""
        if hand.status == PAIR_OF_SEVENS:
            return PAIR
        if self.options.get("two_card_bonus") and is_two_card(hand.cards):
            return TWO_CARD
        return PLAIN

    def holds_face_down(self, seat: int) -> bool:
        return any(c in self.face_down for h in self.hands[seat] for c in h.cards) if self.hands else False

    def flippable(self, seat: int, index: int | None) -> list[str]:
        """The seat's face-down cards in its unfinished hands (or in hand `index` only)."""
        return sorted(
            c
            for i, h in enumerate(self.hands[seat])
            if (index is None or i == index) and not h.finished
            for c in h.cards
            if c in self.face_down
        )

    @property
    def limits(self) -> tuple[int, int]:
        """The table limits: (min_bet, max_bet)."""
        return self.options["min_bet"], self.options["max_bet"]

    @property
    def in_progress(self) -> bool:
        return self.phase in (STAKES, DEAL, PLAY, BANKER)
