"""Ratings: a read model of the events, one rating model per game shape, every change explained.

The library is `openskill` (Weng-Lin Bayesian ratings, MIT, pure Python, kept up to date, typed),
model `BradleyTerryFull`: each player has a `mu` (skill) and a `sigma` (how unsure it is), and a
result updates everyone in it by comparing *every pair* of sides by rank, which is exactly the
"every player against every other by final rank" the clubs asked for, while its expected result for
a pair is the same logistic of the rating difference that each change's explanation shows (so the
numbers a player reads are the model's own). It handles teams (Gin's captain and sitter) and ties
(a draw in Seven and a Half) with no special cases, and unlike Elo it knows how unsure a new
player's rating is: a rating is **provisional** while `sigma > PROVISIONAL_SIGMA` (about the first
ten results), shown with a `?`. Leaderboards order by the conservative `ordinal` (`mu - 3 sigma`)
so that a newcomer with two lucky wins does not top the table; the rating shown is `mu`.

One rating per game shape (`pool`), as each game declares it (`GameRules.rating`, a `Rating` of
`projections/core/rating.py`: its pools, whether its results settle per hand, how a stored result reads
as matches, what of a hand its results need), so that nothing here names a game. The games' own
modules say what they rate (`projections/games/<game>/readmodels.py`): the winner against the loser
when the game ends, every player against every other by final rank, every scored hand with the roles
or the stakes of that hand, a game's bankers and its punters in pools apart.

The projection follows the global log like the hand facts (`projections/readmodels/hand_facts.py`): a stored
checkpoint (`ratings`), each page's changes written with the checkpoint's move in one transaction,
so an append is rated incrementally without refolding any game (only the event that settles a
result is read, with the hand's context kept in memory: the game's `HandContext`).
`rebuild()` empties it and reads the whole log again through the same code, so it gives the same
rows (tested). A result taken back by a `retract` (its seq between the retract's `to_seq` and the
retract) is never rated. A retract that takes back a result already rated is a *correction*: every
later rating may depend on that result, so the changes from the first one it takes back (in the rows'
order, which is the log's) are re-derived, in the transaction of the page that holds the retract, from
each player's rating just before that point. The results are read back from the changes' own rows
(`matches_of_rows`: the event, the sides, the seats, the ranks) rather than from the log, and only a
result with a player whose rating the correction changed is rated again (the others' rows stand as they
are: a retract in one pool changes no other pool, nor the players never met); when few rows change they
are updated in place and the taken-back ones deleted (the others keep their ids and so their order), else
all are written again from the first. So the cost grows with the results after that point that it
touches, not with the log; the rows are those a rebuild from zero gives (tested), and
`RatingsModel.corrections` (and the log) say what each correction did: each player whose rating it
changed, before and after. Rows this code cannot read back as whole results make it rebuild from zero.
A merge of two players rebuilds from zero (their results are now one player's).

Speed (100,000 games is the scale asked for; `python -m bench.ratings` prints where it stands): the
database hands the projection only the events `READS` admits, over migration 0016's partial index
(about one in eleven); a rebuild keeps every player's latest rating, and the library's rating object
for it, in memory from page to page instead of asking the rows, updates those objects in place with
the library's own update (`update`, the same numbers as `MODEL.rate` without its copies), and writes
each page's changes with one executemany (PostgreSQL: one COPY), a large page with Python's cyclic collector
off and freed before it is back (`projections/readmodels/pages.py`: its walks of the page's objects find
nothing, and cost a 10,000-game rebuild an eighth of its CPU). A page is decoded in one loop that also says
which events settle a result, and a result of one player against one (most) is rated by `_rate_pair`
without the loops of `rate`. `tablebook rebuild` runs this beside the hand facts
(`projections/readmodels/rebuild.py`). Against its ceiling in `python -m bench.ratings` (the same rows read and
written bare, the library's update and predictions for as many matches) a rebuild takes about 1.7 times as
much CPU (2026-12-07, issue 34; 2.05 before). Of the excess, in a profile of a 2,000-game rebuild: about a
third is the games' own hand contexts and matches (`Rating.context`, `Rating.matches`), a third the decoding of
the events and this module's loop over them, a fifth `rate`'s own work per result (the rows, the opponents'
JSON), the rest the page's statements beyond the bare ones. The profile charges each small call, so the games'
part is smaller than it shows: timed alone (with a loop that calls them as `_changes` does, and the collector
off as a page runs), their contexts and matches take 0.047 s of that rebuild's 0.66 s CPU (ceiling 0.39 s on
SQLite), a sixth of the excess (0.056 s before their lookups were trimmed).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import orjson
from openskill.models import BradleyTerryFull, BradleyTerryFullRating

from events.errors import UnknownGameError
from events.store import Store
from events.store.log import LogFilter
from events.store.mapper import READ_FLAGS
from events.store.ratings import Rewrite
from projections.core.rating import HandContext as HandContext
from projections.core.rating import Match as Match
from projections.core.rating import Rating
from projections.core.registry import KINDS, rules_for
from projections.readmodels.pages import large_page

log = logging.getLogger(__name__)

#: the checkpoint's name in `projection_checkpoint`
NAME = "ratings"

MODEL = BradleyTerryFull()
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


def _score(mine: int, theirs: int) -> float:
    return 1.0 if mine < theirs else (0.5 if mine == theirs else 0.0)


def is_provisional(sigma: float) -> bool:
    return sigma > PROVISIONAL_SIGMA


def ordinal(mu: float, sigma: float) -> float:
    """The conservative rating leaderboards order by: `mu - 3 sigma`."""
    return mu - 3.0 * sigma


Ratings = dict[tuple[str, str], tuple[float, float, int]]
#: the library's rating object of each (player, pool), kept equal to `Ratings`' latest values and updated in
#: place by `update` (an object is made only for a rating not seen in this process: making one draws a uuid)
Objects = dict[tuple[str, str], BradleyTerryFullRating]
#: one `rating_change` row, in `CHANGE_COLUMNS` order (what `RatingRecorder.commit_ratings` writes)
ChangeRow = tuple[Any, ...]
#: an event of the log as the ratings read it: its position, game, envelope, and whether it settles a result
Decoded = tuple[int, str, dict[str, Any], bool]

#: `MODEL.rate`'s own additive dynamics (`tau`), squared as it squares it
_TAU_SQUARED = MODEL.tau * MODEL.tau
assert not MODEL.limit_sigma, "update() follows MODEL.rate without limit_sigma"


def update(sides: Sequence[Sequence[BradleyTerryFullRating]], ranks: Sequence[int]) -> None:
    """`MODEL.rate(sides, ranks)`, made on the rating objects themselves: the same numbers, bit for bit.

    `rate` checks its arguments, deep-copies every rating (a new object and a uuid each), widens each
    sigma by `tau`, orders the sides by rank, runs the model's update (`_compute`, which writes the new
    mu and sigma into the objects it is given) and puts the sides back in their order; the checks and
    the copies are five sixths of its time. Here the objects are this projection's own, each player in
    one side only (`rate` below goes through `MODEL.rate` otherwise), so the update may write into them:
    the same widening with the same expression, the same stable order by rank, the same `_compute`.
    `tests/projections/test_ratings.py` compares the two on random matches of every shape (ties, teams,
    sigmas near the floor), so an openskill that changes `rate` fails there before it changes a rating.
    """
    for side in sides:
        for rating in side:
            rating.sigma = math.sqrt(rating.sigma * rating.sigma + _TAU_SQUARED)
    order = sorted(range(len(sides)), key=ranks.__getitem__)
    MODEL._compute(teams=[sides[i] for i in order], ranks=[ranks[i] for i in order])


def expected_results(sides: list[list[BradleyTerryFullRating]]) -> list[float]:
    """Each side's expected result against the others: the library's win probability (`MODEL.predict_win`)
    against each other side, averaged over them like the actual result (with two sides, one call gives
    both: the library's `[p, 1 - p]`)."""
    count = len(sides)
    if count == 2:
        pair = MODEL.predict_win(sides)
        return [pair[0], pair[1]]
    return [
        sum(MODEL.predict_win([sides[i], sides[j]])[0] for j in range(count) if j != i) / (count - 1)
        for i in range(count)
    ]


def rate(
    match: Match,
    players: Sequence[str],
    ratings: Ratings,
    base: tuple[int, str, str, int, str],
    objects: Objects | None = None,
) -> list[ChangeRow]:
    """Rate one match: update `ratings` (and `objects`) in place; one explained `rating_change` row per player.

    `base` is the result's `(club_id, game_id, kind, position, recorded_at)`. Every number is the
    library's: `update` (= `MODEL.rate`) for the new ratings, `expected_results` for each side's expected
    result, taken before the update.

    A rebuild runs this for every result, so it makes no more than the rows need: each side's opponents'
    JSON once (`_side_json`; with three sides or more, a side's opponents are the others' texts joined), each
    player's rating before as one tuple, and in the usual case (each player in one side) the objects
    `update` wrote into are already those `objects` holds. `tests/projections/test_ratings.py` holds the
    rows of a rebuild of 300 games to those of openskill's public `rate` and the codec, bit for bit.
    """
    cache: Objects = {} if objects is None else objects
    if len(match.sides) == 2 and len(match.sides[0]) == 1 == len(match.sides[1]):
        pair = _rate_pair(match, players, ratings, base, cache)
        if pair is not None:
            return pair
    prior = _PRIOR
    sides: list[list[BradleyTerryFullRating]] = []
    befores: list[list[tuple[int, tuple[str, str], float, float, int]]] = []  # (seat, key, mu, sigma, results)
    texts: list[str] = []  # each side's players before, as its opponents' JSON names them
    seated: set[tuple[str, str]] = set()
    for side, pool in zip(match.sides, match.pools, strict=True):
        current = []
        before = []
        named = []
        for seat in side:
            player = players[seat]
            key = (player, pool)
            mu, sigma, results = ratings.get(key, prior)
            known = cache.get(key)
            if known is None or known.mu != mu or known.sigma != sigma:
                known = cache[key] = MODEL.rating(mu=mu, sigma=sigma)
            current.append(known)
            before.append((seat, key, mu, sigma, results))
            named.append({"mu": mu, "player_id": player, "seat": seat, "sigma": sigma})
            seated.add(key)
        sides.append(current)
        befores.append(before)
        texts.append(_side_json(named))
    count = len(sides)
    expectations = expected_results(sides)
    ranks = match.ranks
    apart = len(seated) == sum(map(len, befores))
    if apart:
        update(sides, ranks)
        after = sides
    else:  # one player in two sides (a name seated twice): the library's own copies keep them apart
        after = MODEL.rate(sides, ranks=list(ranks))
    club_id, game_id, kind, position, recorded_at = base
    pools = match.pools
    hand, seq = match.hand, match.seq
    rows: list[ChangeRow] = []
    for i in range(count):
        if count == 2:
            j = 1 - i
            actual = _score(ranks[i], ranks[j])
            opponents = texts[j]
        else:
            others = [j for j in range(count) if j != i]
            actual = sum(_score(ranks[i], ranks[j]) for j in others) / len(others)
            opponents = "[" + ",".join(texts[j][1:-1] for j in others) + "]"
        pool, expected = pools[i], expectations[i]
        for (seat, key, mu, sigma, results), new in zip(befores[i], after[i], strict=True):
            new_mu, new_sigma = new.mu, new.sigma
            if not apart:  # the same key again: count from its rating as this result left it
                results = ratings.get(key, prior)[2]
                cache[key] = new
            ratings[key] = (new_mu, new_sigma, results + 1)
            rows.append(
                (
                    club_id, game_id, kind, pool, hand, seq, position, seat, key[0],
                    mu, sigma, new_mu, new_sigma, expected, actual, opponents, recorded_at,
                )
            )  # fmt: skip
    return rows


def _rate_pair(
    match: Match, players: Sequence[str], ratings: Ratings, base: tuple[int, str, str, int, str], cache: Objects
) -> list[ChangeRow] | None:
    """`rate` of a match of one player against one (three results in four in `python -m bench.ratings`): the same
    rows, with no list of sides or seats to walk. None when both are the same player in the same pool (then
    `rate`'s general way, the library's copies)."""
    ((seat_a,), (seat_b,)), (pool_a, pool_b) = match.sides, match.pools
    player_a, player_b = players[seat_a], players[seat_b]
    key_a, key_b = (player_a, pool_a), (player_b, pool_b)
    if key_a == key_b:
        return None
    mu_a, sigma_a, results_a = ratings.get(key_a, _PRIOR)
    mu_b, sigma_b, results_b = ratings.get(key_b, _PRIOR)
    a, b = cache.get(key_a), cache.get(key_b)
    if a is None or a.mu != mu_a or a.sigma != sigma_a:
        a = cache[key_a] = MODEL.rating(mu=mu_a, sigma=sigma_a)
    if b is None or b.mu != mu_b or b.sigma != sigma_b:
        b = cache[key_b] = MODEL.rating(mu=mu_b, sigma=sigma_b)
    sides = [[a], [b]]
    expected_a, expected_b = expected_results(sides)
    update(sides, match.ranks)
    ratings[key_a] = (a.mu, a.sigma, results_a + 1)
    ratings[key_b] = (b.mu, b.sigma, results_b + 1)
    rank_a, rank_b = match.ranks
    club_id, game_id, kind, position, recorded_at = base
    hand, seq = match.hand, match.seq
    as_opponent_a = _side_json([{"mu": mu_a, "player_id": player_a, "seat": seat_a, "sigma": sigma_a}])
    as_opponent_b = _side_json([{"mu": mu_b, "player_id": player_b, "seat": seat_b, "sigma": sigma_b}])
    return [
        (
            club_id, game_id, kind, pool_a, hand, seq, position, seat_a, player_a,
            mu_a, sigma_a, a.mu, a.sigma, expected_a, _score(rank_a, rank_b), as_opponent_b, recorded_at,
        ),
        (
            club_id, game_id, kind, pool_b, hand, seq, position, seat_b, player_b,
            mu_b, sigma_b, b.mu, b.sigma, expected_b, _score(rank_b, rank_a), as_opponent_a, recorded_at,
        ),
    ]  # fmt: skip


def _side_json(entries: list[dict[str, Any]]) -> str:
    """A side's players before a result as the opponents' JSON names them: `events.codec.dumps` of these dicts,
    whose keys `rate` writes in sorted order, so orjson's own order is the codec's without its sorting."""
    return orjson.dumps(entries).decode()


#: a (player, pool) not rated yet: the model's prior, no results
_PRIOR = (MODEL.mu, MODEL.sigma, 0)


def _voided(seq: int, retracts: Iterable[tuple[int, int]]) -> bool:
    """Whether a retract (seq R back to seq T) takes back the event at `seq`: T < seq < R."""
    return any(to_seq < seq < at for at, to_seq in retracts)


@dataclass(frozen=True, slots=True)
class PlayerCorrection:
    """One player's rating in one pool before a correction and after it."""

    player_id: str
    pool: str
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float


@dataclass(frozen=True, slots=True)
class Correction:
    """What one correction did: the retracts `(game_id, seq)` that took back rated results, how many results
    (events) it rated again, and the rating before and after of each player whose rating it changed (player id
    and pool order)."""

    retracts: tuple[tuple[str, int], ...]
    results: int
    players: tuple[PlayerCorrection, ...]

    def lines(self) -> list[str]:
        """The correction in words: what it took back, then one line per player whose rating it changed."""
        taken = ", ".join(f"the retract at seq {seq} of {game_id}" for game_id, seq in self.retracts)
        head = (
            f"ratings corrected after {taken}: {self.results} results rated again, {len(self.players)} ratings changed"
        )
        return [head] + [
            f"  {p.player_id} {p.pool}: {p.mu_before:.2f} ±{p.sigma_before:.2f} "
            f"-> {p.mu_after:.2f} ±{p.sigma_after:.2f}"
            for p in self.players
        ]


@dataclass(frozen=True, slots=True)
class _Replay:
    """A correction ready to write: how the stored changes change, the rows the page's begin with, the report."""

    rewrite: Rewrite
    rows: list[ChangeRow]
    report: Correction


class RatingsModel:
    """The projection: catch up from the checkpoint, or rebuild from zero."""

    def __init__(self, store: Store, *, batch: int = 20_000) -> None:
        # the log on the synchronous standby when the store follows one (events/store/follow.py)
        self.store = store.follower
        #: events read per page (those `READS` admits): each page is one transaction
        self.batch = batch
        #: game id -> its kind, club, rated players by seat, and its rating (None: not rated here)
        self._games: dict[str, tuple[str, int, list[str], Rating[Any] | None]] = {}
        self._context: dict[str, HandContext] = {}
        #: the latest rating of every (player, pool) this process has looked up or written, and the
        #: checkpoint they are the ratings at: valid while this process is the one moving the checkpoint
        self._ratings: Ratings = {}
        self._objects: Objects = {}
        self._looked_up: set[tuple[str, str]] = set()
        self._at: int | None = None
        #: `_ratings` holds every rating the rows hold: this process has moved the checkpoint from 0 page after
        #: page (a checkpoint at 0 has no rows: a reset empties them with it, and every write moves it past 0),
        #: so a rating it does not hold is the prior, and none is looked up (a rebuild's later pages)
        self._whole = False
        #: what each correction this model made did to the players' ratings (a retract of a rated result)
        self.corrections: list[Correction] = []
        #: a correction that changes at most this share of the changes from its first one changes them in
        #: place (row by row); more, and it writes them all again from there (one delete, one bulk insert)
        self.in_place = 0.25

    def position(self) -> int:
        return self.store.projection_position(NAME)

    def catch_up(self, progress: Progress | None = None) -> int:
        """Rate every result after the checkpoint; returns the events read by this call.

        The log is read light (`LogReader.read_filtered`): only the events that may settle a result or
        give a hand's context (`READS`), with their payloads left encoded; of those, only what the
        game's kind needs is decoded. The players' latest ratings are kept in memory from page to page
        while this process is the one that moves the checkpoint (else read again from the rows). A
        retract of a result already rated is a correction (`_correct`): the changes from the first one it
        takes back are re-derived in the page's transaction, and what it did to each player is added to
        `corrections`.
        """
        read = 0
        while True:
            # the checkpoint and the page in one read (on PostgreSQL one statement, which also moves the
            # checkpoint over a page that holds nothing for the ratings: most appends)
            found = self.store.log.read_checkpointed(NAME, self.batch, READS)
            old, new, page = found.old, found.upto, found.rows
            if old != self._at:  # another process moved it (or first call): what we hold may be behind
                self._forget()
            if old == 0:
                self._whole = True
            if found.moved:  # nothing rated between: the ratings held are those at `new`
                self._at = new
                if progress is not None:
                    progress(max(0, new - old))
                return read
            if new == old and not page:
                return read
            with large_page(len(page)):  # decoded, rated and written with the cyclic collector off
                self._load_games(row[1] for row in page)
                wanted = self._decoded(page)
                ratings = dict(self._ratings)
                correction = self._correct(wanted, ratings)
                done = correction is not False and self._commit(old, new, wanted, ratings, correction)
                count = len(page)
                del found, page, wanted  # freed while the collector is off (`projections/readmodels/pages.py`)
            if correction is False:  # changes this code cannot re-derive from their rows: from zero
                return read + self.rebuild(progress)
            if done:
                read += count
                self._ratings, self._at = ratings, new
                if correction is not None:
                    self.corrections.append(correction.report)
                    told = correction.report.lines()
                    more = f"\n  and {len(told) - 51} more" if len(told) > 51 else ""
                    log.info("%s%s", "\n".join(told[:51]), more)  # the head and 50 players at most
                if progress is not None:
                    progress(max(0, new - old))
            else:  # another process did this page: our hand contexts may be ahead of it
                self._forget()
            if count < self.batch:
                return read

    def _commit(
        self,
        old: int,
        new: int,
        page: Sequence[Decoded],
        ratings: Ratings,
        correction: _Replay | None,
    ) -> bool:
        """Rate the page's results (after the correction's rows, if any) and write them with the checkpoint's move
        from `old` to `new`; False when another process moved it first (nothing written)."""
        rows = self._changes(page, ratings)
        rewrite = None
        if correction is not None:
            rows = correction.rows + rows
            rewrite = correction.rewrite
        return self.store.ratings.commit_ratings(NAME, old=old, new=new, rows=rows, rewrite=rewrite)

    def _correct(self, page: Sequence[Decoded], ratings: Ratings) -> _Replay | Literal[False] | None:
        """The correction the page's retracts make, if one takes back a result already rated: every change
        from the first one taken back (in the rows' order, which is the log's) is re-derived from the rows
        themselves (`matches_of_rows`: the same results, their players and ranks), except the changes taken
        back, starting from each player's rating just before that first change. `ratings` (this page's
        working copy) gets each affected player's rating after it. None: no correction; False: the rows
        hold a result this code cannot read back (then the caller rebuilds from zero)."""
        voids: list[tuple[str, int, int]] = []
        first: int | None = None
        for _, game_id, env, _ in page:
            if env["type"] != "retract":
                continue
            found = self.store.ratings.first_taken_back(game_id, env["data"]["to_seq"], env["seq"])
            if found is not None:
                voids.append((game_id, int(env["data"]["to_seq"]), int(env["seq"])))
                first = found if first is None else min(first, found)
        if first is None:
            return None
        stored = self.store.ratings.changes_from(first)
        taken = [_voided(row[5], [(at, to) for g, to, at in voids if g == row[1]]) for row in stored]
        kept = [row for row, gone in zip(stored, taken, strict=True) if not gone]
        keys = {(row[8], row[3]) for row in stored}
        #: the ratings as they stand from `first` on, re-derived; `dirty`: those that differ from the rows'
        replay: Ratings = dict(self.store.ratings.latest(keys, before=first))
        dirty = {(row[8], row[3]) for row, gone in zip(stored, taken, strict=True) if gone}
        rows: list[ChangeRow] = []  # every change from `first` on, as a rewrite from there writes them
        updates: list[tuple[Any, ...]] = []  # or only those that change, in place
        objects: Objects = {}
        results = 0
        start, count = 0, len(kept)
        while start < count:  # one event's results at a time (its rows are together)
            event, end = kept[start], start + 1
            while end < count and kept[end][6] == event[6] and kept[end][1] == event[1]:
                end += 1
            group = kept[start:end]
            if any((row[8], row[3]) in dirty for row in group):
                matches = matches_of_rows(group)
                if matches is None:
                    return False
                again: list[ChangeRow] = []
                for match, players, base in matches:
                    again += rate(match, players, replay, base, objects)
                for old, new in zip(group, again, strict=True):
                    if old[9:16] != new[9:16]:
                        updates.append((*new[9:14], new[15], old[17]))
                        if old[11:13] != new[11:13]:
                            dirty.add((new[8], new[3]))
                rows += again
                results += 1
            else:  # no player of it has a rating other than the rows': its changes stand as they are
                for row in group:
                    key = (row[8], row[3])
                    replay[key] = (row[11], row[12], replay.get(key, _PRIOR)[2] + 1)
                    rows.append(row[:17])
            start = end
        deletes = [row[17] for row, gone in zip(stored, taken, strict=True) if gone]
        if len(deletes) + len(updates) <= len(stored) * self.in_place:
            rewrite, rows = Rewrite(deletes=deletes, updates=updates), []
        else:
            rewrite = Rewrite(replace_from=first)
        was = {(row[8], row[3]): (row[11], row[12]) for row in stored}  # each key's last before the correction
        report = []
        for key in sorted(keys):
            mu, sigma, _ = replay.get(key, _PRIOR)
            if (mu, sigma) != was[key]:
                report.append(PlayerCorrection(key[0], key[1], *was[key], mu, sigma))
            if key in replay:
                ratings[key] = replay[key]
            else:
                ratings.pop(key, None)
        self._looked_up |= keys
        return _Replay(rewrite, rows, Correction(tuple((g, at) for g, _, at in voids), results, tuple(report)))

    def _forget(self) -> None:
        self._context.clear()
        self._ratings, self._objects, self._looked_up, self._at = {}, {}, set(), None
        self._whole = False

    def _decoded(self, page: Sequence[Sequence[Any]]) -> list[Decoded]:
        """The envelopes of a page of light rows that the ratings need (a result, a hand's context, a retract),
        each with whether it settles a result: the game's end, or a hand's in a game rated per hand.

        One loop over the page, its lookups bound once: a rebuild runs it for every event it reads."""
        games, contexts = self._games, self._context
        decode = orjson.loads  # `events.codec.loads` without the call around it
        out: list[Decoded] = []
        for position, game_id, seq, hand, kind, data, result, recorded_at in page:
            rating = games[game_id][3]
            per_hand = rating if rating is not None and rating.per_hand else None  # results settle per hand
            if per_hand is not None and seq == 1:
                contexts[game_id] = per_hand.context()  # followed from its first event: no read-back needed
            marked = '"game_ended"' in result or (per_hand is not None and '"hand_ended"' in result)
            if not (marked or kind == "retract" or (per_hand is not None and kind in per_hand.context_types)):
                continue
            # what a hand context reads of a data: a retract's, and the types the game's context reads
            reads_data = kind == "retract" or (rating is not None and kind in rating.context_data)
            decoded = decode(result)
            envelope = {
                "seq": seq,
                "hand": hand,
                "type": kind,
                "data": decode(data) if reads_data else {},
                "result": decoded,
                "recorded_at": recorded_at,
            }
            # from the result decoded here (a mark missing from its text is a key missing from it)
            settles = marked and bool(
                decoded and (decoded.get("game_ended") or (per_hand is not None and decoded.get("hand_ended")))
            )
            out.append((int(position), str(game_id), envelope, settles))
        return out

    def rebuild(self, progress: Progress | None = None) -> int:
        """Empty the ratings and read the whole log again; returns the events read."""
        self.store.ratings.reset_ratings(NAME)
        self._games.clear()
        self._forget()
        self._at = 0  # the ratings are empty: nothing to look up
        return self.catch_up(progress)

    def _load_games(self, game_ids: Iterable[str]) -> None:
        missing = sorted({g for g in game_ids if g not in self._games})
        if not missing:
            return
        # the kind, club and seats of each game in one read; a copy (`copy_of`) has no seats: it is not rated
        for game_id, (kind, club_id, seats) in self.store.players.rated_games(missing).items():
            self._games[game_id] = (kind, club_id, seats, RATED.get(kind))

    def _hand_context(self, game_id: str, envelope: Mapping[str, Any], rating: Rating[Any]) -> HandContext:
        """The game's context for this event's hand: kept from earlier pages, or read back from its hand's events."""
        kept = self._context.get(game_id)
        if kept is not None and kept.hand == envelope["hand"]:
            return kept
        context: HandContext = rating.context()
        span = self.store.hand_seqs(game_id, envelope["hand"], envelope["seq"] - 1)
        if span is not None:
            for earlier in self.store.read_events(game_id, span[0] - 1, upto=envelope["seq"] - 1):
                context.observe(earlier)
        self._context[game_id] = context
        return context

    def _changes(self, page: Sequence[Decoded], ratings: Ratings) -> list[ChangeRow]:
        """The explained rating changes of one page (its decoded events), in log order; `ratings` (the
        latest of each player and pool) is brought up to date in place."""
        games, contexts = self._games, self._context
        settling = [gid for _, gid, _, settles in page if settles]
        if not settling:
            for _, game_id, env, _ in page:
                self._observe(game_id, env)
            return []
        retracts = self.store.ratings.retracts_of(settling)
        if not self._whole:  # else every rating not held is the model's prior, and none is looked up (`_whole`)
            keys = {
                (pid, pool) for gid in set(settling) for pid in games[gid][2] for pool in POOLS.get(games[gid][0], ())
            }
            missing = keys - self._looked_up
            if missing:
                ratings.update(self.store.ratings.latest(missing))
            self._looked_up |= missing
        objects = self._objects
        rows: list[ChangeRow] = []
        for position, game_id, env, settles in page:
            kept = contexts.get(game_id)
            if settles:
                kind, club_id, players, rating = games[game_id]
                voids = retracts.get(game_id)
                if rating is not None and players and (voids is None or not _voided(env["seq"], voids)):
                    if not rating.per_hand:
                        context = rating.context()
                    elif kept is not None and kept.hand == env["hand"]:  # `_hand_context`'s kept one
                        context = kept
                    else:
                        context = kept = self._hand_context(game_id, env, rating)
                    base = (club_id, game_id, kind, position, env["recorded_at"])
                    for match in rating.matches(len(players), env, context):
                        rows += rate(match, players, ratings, base, objects)
            if kept is not None:  # `_observe`
                kept.observe(env)
        return rows

    def _observe(self, game_id: str, env: Mapping[str, Any]) -> None:
        """Keep the hand context of a game this process follows from its first event (else read back)."""
        context = self._context.get(game_id)
        if context is not None:
            context.observe(env)


def matches_of_rows(rows: Sequence[ChangeRow]) -> list[tuple[Match, list[str], tuple[int, str, str, int, str]]] | None:
    """The rated results that stored `rating_change` rows (`CHANGE_COLUMNS` tuples, in order) were made from:
    each `(match, players by seat, base)` as `rate` takes them, so that rating them again gives the same rows
    from the same ratings. None when the rows do not split into whole results.

    `rate` writes a result's rows side after side, seat after seat, each with the seats of every other side
    (`opponents`) and its actual result against them; so a result is a run of rows of one event (game and
    position) whose first side is the first rows with the first row's opponents, and whose rows are that
    side's and its opponents'; a side is a run of rows with the same opponents; and the ranks follow from
    the actual results (a better rank has a higher one, a tie the same; openskill reads ranks by order only).
    """
    out: list[tuple[Match, list[str], tuple[int, str, str, int, str]]] = []
    start, count = 0, len(rows)
    while start < count:
        head = rows[start]
        game_id, hand, seq, position = head[1], head[4], head[5], head[6]
        sides: list[tuple[int, ...]] = []
        pools: list[str] = []
        actuals: list[float] = []
        players: dict[int, str] = {}
        size, at = 0, start
        while at < count and (not sides or at < start + size):
            row = rows[at]
            if row[1] != game_id or row[6] != position or row[4] != hand or row[5] != seq:
                return None
            opponents = row[15]
            end = at + 1
            while end < count and rows[end][15] == opponents and rows[end][1] == game_id and rows[end][6] == position:
                end += 1  # a side: the rows with the same opponents (the same seats, the same ratings before)
            against = opponents.count('"seat":')  # one per opponent: a JSON string holds no bare quote
            if not sides:
                size = end - at + against
            elif end - at + against != size:
                return None
            side = tuple(int(r[7]) for r in rows[at:end])
            sides.append(side)
            pools.append(row[3])
            actuals.append(float(row[14]))
            for r in rows[at:end]:
                players[int(r[7])] = r[8]
            at = end
        seats = [seat for side in sides for seat in side]
        if at != start + size or len(sides) < 2 or len(set(seats)) != size:
            return None
        order = sorted(set(actuals), reverse=True)
        ranks = tuple(order.index(a) for a in actuals)
        seated = [players.get(seat, "") for seat in range(max(seats) + 1)]
        match = Match(hand=int(hand), seq=int(seq), sides=tuple(sides), pools=tuple(pools), ranks=ranks)
        out.append((match, seated, (int(head[0]), str(game_id), str(head[2]), int(position), str(head[16]))))
        start = at
    return out
