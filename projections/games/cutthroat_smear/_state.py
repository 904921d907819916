"""A Cutthroat Smear game's state (`SmearState`) and who acts in it (`to_act`): what the rules and the
bot both read."""

from __future__ import annotations

from dataclasses import dataclass

from projections.core.handlog import EMPTY_LOG, HandLog
from projections.core.rules import BaseState
from projections.games.cutthroat_smear._scoring import Play, Trick


@dataclass(frozen=True, kw_only=True)
class SmearState(BaseState):
    """A Smear game between hands or within one."""

    phase: str = "deal"
    next_dealer: int = 0
    dealer: int | None = None
    #: each seat's six dealt cards; what it still holds is `hands` (a play changes only the trick)
    dealt: tuple[frozenset[str], ...] = ()
    #: (seat, amount or None for a pass, seq), in the order spoken
    bids: tuple[tuple[int, int | None, int], ...] = ()
    #: (seat, amount, seq) of the highest bid so far (the first of equal ones), None before any bid
    high_bid: tuple[int, int, int] | None = None
    bidder: int | None = None
    trump: str | None = None
    leader: int = 0
    trick: tuple[Play, ...] = ()
    tricks: tuple[Trick, ...] = ()
    results: HandLog = EMPTY_LOG
    totals: tuple[int, ...] = ()
    winner: int | None = None

    @property
    def hands(self) -> tuple[frozenset[str], ...]:
        """What each seat holds: its dealt cards but those played (in the tricks and on the table).

        Derived, not folded: a play then copies no hand; `validate`, `view`, `census` and
        the simulator read it, once an event, not once a card.
        """
        if not self.tricks and not self.trick:
            return self.dealt
        played = {card for t in self.tricks for _, card, _ in t.plays}
        played.update([card for _, card, _ in self.trick])
        return tuple([cards - played for cards in self.dealt])

    def won(self, seat: int) -> tuple[str, ...]:
        return tuple(c for t in self.tricks if t.winner == seat for c in t.cards)


def to_act(state: SmearState) -> tuple[int, ...]:
    """The seats whose event is due."""
    if state.phase == "bid":
        assert state.dealer is not None
        return ((state.dealer + 1 + len(state.bids)) % state.seats,)
    if state.phase == "play":
        return ((state.leader + len(state.trick)) % state.seats,)
    if state.phase == "deal":
        return (state.next_dealer,)
    return ()
