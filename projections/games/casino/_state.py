"""Casino's state: the round in progress, the builds on the table, the totals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from events.cards import FULL_DECK
from projections.core.fastreplace import fast_init
from projections.core.handlog import EMPTY_LOG, HandLog
from projections.core.rules import BaseState
from projections.games.casino._groups import value_of

CARDS: tuple[str, ...] = FULL_DECK
CARD_SET = frozenset(CARDS)
FACES = frozenset("JQK")
#: deals in a round, by the number of players (the deck runs out exactly)
DEALS = {2: 6, 3: 4, 4: 3}


@fast_init
@dataclass(frozen=True, slots=True)
class Build:
    """A build on the table: captured later as one unit by a card of its value.

    `value` is 2 to 10 for a number build, or `J`/`Q`/`K` for a face build.
    `multiple` is true for a build of two or more groups (it cannot be
    increased). `seq` is the event that made or last changed it. `groups` are
    its cards in the groups they were built in, each adding up to the value
    (empty: one group of all its cards, as for a single or a face build).
    """

    id: str
    value: int | str
    cards: tuple[str, ...]
    multiple: bool
    owner: int
    seq: int
    groups: tuple[tuple[str, ...], ...] = ()

    @property
    def group_list(self) -> tuple[tuple[str, ...], ...]:
        """The build's groups: those it was built in, or its cards as one group."""
        return self.groups or (self.cards,)

    @property
    def is_face(self) -> bool:
        return isinstance(self.value, str)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "value": self.value,
            "cards": list(self.cards),
            "multiple": self.multiple,
            "owner": self.owner,
            "seq": self.seq,
            "groups": [list(g) for g in self.group_list],
        }


def fits(card: str, value: int | str) -> bool:
    """Does `card` capture a build (or make a group) of `value`?"""
    if isinstance(value, str):
        return card[0] == value
    return value_of(card) == value


@dataclass(frozen=True, kw_only=True)
class CasinoState(BaseState):
    """A Casino game between rounds or within one.

    `won[seat]` holds `(card, seq)` for every card the seat captured this
    round, `seq` being the capture that took it (the cards left on the table
    at the end count under the last capture's seq). `cleared` lists the
    captures `(seat, seq)` that left the table empty; all but the round's
    last capture are sweeps.
    """

    phase: str = "deal"
    next_dealer: int = 0
    dealer: int | None = None
    deals: int = 0
    hands: tuple[frozenset[str], ...] = ()
    seen: frozenset[str] = frozenset()
    loose: tuple[str, ...] = ()
    builds: tuple[Build, ...] = ()
    build_count: int = 0
    to_play: int = 0
    won: tuple[tuple[tuple[str, int], ...], ...] = ()
    cleared: tuple[tuple[int, int], ...] = ()
    last_capture: tuple[int, int] | None = None
    #: the last capture's cards: the card played, then what it took (loose cards, then the builds' cards)
    last_captured: tuple[str, ...] = ()
    #: the cards left on the table at the end of the round, and who took them
    rest: tuple[str, ...] = ()
    rest_seat: int | None = None
    results: HandLog = EMPTY_LOG
    totals: tuple[int, ...] = ()
    winner: int | None = None

    def build(self, build_id: str) -> Build | None:
        for b in self.builds:
            if b.id == build_id:
                return b
        return None

    @property
    def in_round(self) -> bool:
        """From a round's first deal to its last card."""
        return self.deals > 0

    @property
    def deals_in_round(self) -> int:
        return DEALS[self.seats]

    @property
    def table_cards(self) -> tuple[str, ...]:
        """Every card on the table: loose cards, then the builds' cards."""
        return self.loose + tuple(c for b in self.builds for c in b.cards)

    def owned(self, seat: int) -> tuple[Build, ...]:
        return tuple(b for b in self.builds if b.owner == seat)
