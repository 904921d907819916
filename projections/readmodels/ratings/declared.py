"""What the ratings are, as the games declare them (`GameRules.rating`): the rated games and their pools, what
the ratings read of the log, and the few numbers a page shows of a rating (provisional, ordinal).

Apart from the projection (`projection.py`) so that what reads the ratings (the standings, the pages, the
migrations' index) imports what they are without the machinery that writes them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from events.errors import UnknownGameError
from events.store.log import LogFilter
from events.store.mapper import READ_FLAGS
from projections.core.rating import HandContext, Match, Rating
from projections.core.registry import KINDS, rules_for

#: the checkpoint's name in `projection_checkpoint`
NAME = "ratings"

#: a rating is provisional while its sigma is above this (it starts at 25/3 ~ 8.33)
PROVISIONAL_SIGMA = 6.0


def rating_of(kind: str) -> Rating[Any] | None:
    """How the game `kind` is rated (`GameRules.rating`); None: it is not, or this server has no such game."""
    try:
        return rules_for(kind).rating
    except UnknownGameError:
        return None


#: every game rated, and its rating
RATED: dict[str, Rating[Any]] = {kind: rating for kind in KINDS if (rating := rating_of(kind)) is not None}

#: every pool a kind rates, in the order pages show them
POOLS: dict[str, tuple[str, ...]] = {kind: tuple(rating.pools) for kind, rating in RATED.items()}

Progress = Callable[[int], None]


def _reads() -> LogFilter:
    """What the ratings read of the log (`LogReader.read_filtered`): retracts, a game's first event (from which
    a hand's context is followed without reading back), the events whose result text marks a game's end (or
    a hand's, for a game whose results settle per hand), and what each game's hand context is read from
    (its `Rating.read_types` and `read_marks`: the bets that make the stakes, the result of a deal that names
    the roles; a deal of any other game, most of a deal's bytes, is left out). Every other event is left
    out by the database, over migration 0016's partial index `ix_event_ratings`, whose WHERE is exactly this
    filter's SQL (tests/projections/test_read_indexes.py)."""
    types = {"retract"}
    marks = {'"game_ended"'}
    for rating in RATED.values():
        if rating.per_hand:
            marks.add('"hand_ended"')
        types.update(rating.read_types)
        marks.update(rating.read_marks)
    return LogFilter(types=tuple(sorted(types)), result_marks=tuple(sorted(marks)), first_events=True, flag=FLAG)


#: the bit of `event.read_by` that says the ratings read an event (migration 0016): the filter's answer,
#: written with the event (`events.store.mapper.READ_FLAGS`), so an append tests that bit, not the texts
FLAG = 2
READS = _reads()
READ_FLAGS.register(FLAG, READS)


def context_of(kind: str) -> HandContext:
    """A new hand context for the game `kind` (its `Rating.context`; the plain one for a game not rated)."""
    rating = rating_of(kind)
    return HandContext() if rating is None else rating.context()


def matches_of(kind: str, seats: int, envelope: Mapping[str, Any], context: HandContext) -> list[Match]:
    """The rated results one stored envelope settles (pure: the envelope and its hand's context, from
    `context_of`), by the game's `Rating.matches`."""
    rating = rating_of(kind)
    return [] if rating is None else rating.matches(seats, envelope, context)


def is_provisional(sigma: float) -> bool:
    """Whether a rating is still provisional (shown with a `?`): its sigma above `PROVISIONAL_SIGMA`."""
    return sigma > PROVISIONAL_SIGMA


def ordinal(mu: float, sigma: float) -> float:
    """The conservative rating leaderboards order by: `mu - 3 sigma`."""
    return mu - 3.0 * sigma

