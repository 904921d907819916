"""A Schnapsen match's state (`SchnapsenState`, its `Marriage`s), the cards' points and strength, and
which card takes a trick (`beats`): what the rules and the bot both read."""

from __future__ import annotations

from dataclasses import dataclass

from events.cards import rank, suit
from projections.core.fastreplace import fast_init
from projections.core.handlog import EMPTY_LOG, HandLog
from projections.core.rules import BaseState

CARD_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}
#: higher index wins within a suit: A > T > K > Q > J
STRENGTH = {r: i for i, r in enumerate("JQKTA")}
MATCH_POINTS = 7
TARGET = 66


@fast_init
@dataclass(frozen=True, slots=True)
class Marriage:
    """A declared marriage: pending until its declarer wins a trick."""

    seat: int
    suit: str
    points: int
    seq: int
    credited: bool


@dataclass(frozen=True, kw_only=True)
class SchnapsenState(BaseState):
    """A Schnapsen match between hands or within one."""

    phase: str = "deal"
    next_dealer: int = 0
    dealer: int | None = None
    hands: tuple[frozenset[str], ...] = (frozenset(), frozenset())
    trump_suit: str | None = None
    trump_card: str | None = None
    talon: int = 0
    leader: int = 0
    trick: tuple[tuple[int, str], ...] = ()
    draws_due: tuple[int, ...] = ()
    closed_by: int | None = None
    close_seq: int | None = None
    closed_opponent_points: int = 0
    closed_opponent_tricks: int = 0
    won: tuple[tuple[str, ...], ...] = ((), ())
    trick_points: tuple[int, ...] = (0, 0)
    tricks: tuple[int, ...] = (0, 0)
    marriages: tuple[Marriage, ...] = ()
    #: winner, cards (lead first), points, seq, the seat that led it
    last_trick: tuple[int, tuple[str, ...], int, int, int] | None = None
    results: HandLog = EMPTY_LOG
    to_go: tuple[int, ...] = (MATCH_POINTS, MATCH_POINTS)

    def marriage_points(self, seat: int) -> int:
        return sum(m.points for m in self.marriages if m.seat == seat and m.credited)

    def pending(self, seat: int) -> int:
        return sum(m.points for m in self.marriages if m.seat == seat and not m.credited)

    def hand_points(self, seat: int) -> int:
        """Trick points plus credited marriages: what counts toward 66."""
        return self.trick_points[seat] + self.marriage_points(seat)

    @property
    def strict(self) -> bool:
        """The strict rules apply: the talon is closed or exhausted."""
        return self.closed_by is not None or (self.talon == 0 and not self.draws_due)


def beats(card: str, best: str, trump: str | None) -> bool:
    """Does `card`, played after `best`, take the trick from it?"""
    if suit(card) == suit(best):
        return STRENGTH[rank(card)] > STRENGTH[rank(best)]
    return suit(card) == trump
