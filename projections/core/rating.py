"""How a game's results are rated, as the game declares it (`GameRules.rating`): its pools, and how a
stored result reads as matches.

The ratings read model (`projections/readmodels/ratings/`) rates every game through this declaration
and names no game. A game says which pools it rates (one per game shape: Seven and a Half rates its
bankers and its punters apart), whether its results settle per hand or at the game's end, and how one
stored envelope reads as `Match`es: sides of seats, the pool each side is rated in, their ranks. A game
whose results need what the hand has shown before them (the banker and the stakes, the roles of a deal)
follows it in a `HandContext` of its own, from the events the declaration names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Generic, TypeVar

Envelope = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Match:
    """One rated result: sides of seats, each rated in its pool, and their ranks (lower is better, ties equal)."""

    hand: int
    seq: int
    sides: tuple[tuple[int, ...], ...]
    pools: tuple[str, ...]
    ranks: tuple[int, ...]


@dataclass(slots=True)
class HandContext:
    """What a game's hand in progress has shown so far that its results need, taken in from the game's own
    events in seq order (`observe`). This one keeps the hand only: a game whose results need more (a
    banker, the stakes, the roles) declares a subclass (`Rating.context`)."""

    hand: int = -1

    def observe(self, envelope: Envelope) -> None:
        """Take in one event of the game (in seq order)."""
        self.hand = envelope["hand"]


C = TypeVar("C", bound=HandContext)


@dataclass(frozen=True, slots=True)
class Rating(Generic[C]):
    """How a game's results are rated (`projections/readmodels/ratings/`)."""

    #: every pool the game rates, in the order pages show them, with the title a page shows it under
    pools: Mapping[str, str]
    #: `matches(seats, envelope, context)`: the rated results one stored envelope settles (pure: the envelope,
    #: with its `result`, and its hand's context)
    matches: Callable[[int, Envelope, C], list[Match]]
    #: a new context of a hand (`HandContext`, or the game's own)
    context: Callable[[], C]
    #: results settle per hand (a `hand_ended` result), each read with its hand's context, followed from the
    #: game's first event; otherwise a result settles when the game ends (`game_ended`)
    per_hand: bool = False
    #: the side a pool rates, where the game rates two (Seven and a Half's `banker` and `punter`)
    roles: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: the event types that give a hand's context (besides a `retract`), observed as they come
    context_types: frozenset[str] = frozenset()
    #: of those, the types whose `data` the context reads (every other stored data is left encoded)
    context_data: frozenset[str] = frozenset()
    #: how the log reader finds the events that give a hand's context: by type, and by a mark (a quoted key
    #: or value) in their stored result (`events.store.log.LogFilter`); what every game reads besides (the
    #: results, the retracts, a game's first event) is the ratings' own
    read_types: tuple[str, ...] = ()
    read_marks: tuple[str, ...] = ()


def ranks_by_totals(totals: Mapping[str, Any], seats: int) -> tuple[int, ...]:
    """Competition ranks by total, highest first (1, 2, 2, 4 style; 0-based)."""
    values = [int(totals.get(str(s), 0)) for s in range(seats)]
    return tuple(sum(1 for other in values if other > mine) for mine in values)


def by_final_totals(pool: str) -> Callable[[int, Envelope, HandContext], list[Match]]:
    """The matches of a game that rates every player against every other by final rank (totals, higher
    first; equal totals tie) in `pool`, when the game ends."""

    def matches(seats: int, envelope: Envelope, context: HandContext) -> list[Match]:
        result = envelope.get("result") or {}
        if not result.get("game_ended"):
            return []
        ranks = ranks_by_totals(result.get("totals") or {}, seats)
        return [Match(envelope["hand"], envelope["seq"], tuple((s,) for s in range(seats)), (pool,) * seats, ranks)]

    return matches
