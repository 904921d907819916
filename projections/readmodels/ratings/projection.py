"""The projection: the ratings follow the global log from a stored checkpoint, page by page, and a rebuild reads
it all again from zero through the same code.

Like the hand facts (`projections/readmodels/hand_facts.py`): a stored checkpoint (`ratings`), each page's changes
written with the checkpoint's move in one transaction, so an append is rated incrementally without refolding any
game (only the event that settles a result is read, with the hand's context kept in memory: the game's
`HandContext`). `rebuild()` empties the rows and reads the whole log again, so it gives the same rows (tested). A
result taken back by a `retract` (its seq between the retract's `to_seq` and the retract) is never rated; a
retract that takes back a result already rated is a correction (`correction.py`). A merge of two players
rebuilds from zero (their results are now one player's).

Speed (100,000 games is the scale asked for; `python -m bench.ratings` prints where it stands): the database
hands the projection only the events `READS` admits, over migration 0016's partial index (about one in eleven);
a rebuild keeps every player's latest rating in memory from page to page instead of asking the rows, rates with
openskill's numbers on plain floats (`maths.py`), and writes each page's changes with one executemany
(PostgreSQL: one COPY), a large page with Python's cyclic collector off and freed before it is back
(`projections/readmodels/pages.py`: its walks of the page's objects find nothing, and cost a 10,000-game rebuild
an eighth of its CPU). A page is decoded in one loop that also says which events settle a result.

Against its ceiling (the same rows read and written bare, openskill's own update and predictions for as many
matches), in CPU of this process, pairs with the code before in turn on a loaded 2-core machine (2026-12-07,
issue 34): SQLite 0.99-1.36x (before: 1.32-2.09x), PostgreSQL 1.27-1.48x at 1,000 games and 1.34-2.11x at
2,000 (before: 1.57-2.19x). Of a 2,000-game rebuild on PostgreSQL (0.78 s CPU, ceiling 0.50 s): the read and
the write about their bare cost, the decoding 0.06 s, the rating of the page 0.30 s (the maths on floats about
0.06 s of it, where the library's takes 0.17-0.24 s; the rest the games' contexts and matches and the rows),
and about 0.06 s the reset and the freeing of the pages.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import orjson

from events.store import Store
from projections.core.rating import HandContext, Rating
from projections.readmodels.pages import large_page
from projections.readmodels.ratings.changes import ChangeRow, Ratings, rate
from projections.readmodels.ratings.correction import Correction, Decoded, Replay, correction_of, voided
from projections.readmodels.ratings.declared import NAME, POOLS, RATED, READS, Progress

log = logging.getLogger(__name__)


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
        retract of a result already rated is a correction (`correction.correction_of`): the changes from the
        first one it takes back are re-derived in the page's transaction, and what it did to each player is added to
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
                correction = correction_of(self.store.ratings, wanted, ratings, self.in_place)
                if correction:
                    self._looked_up |= correction.keys
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
        correction: Replay | None,
    ) -> bool:
        """Rate the page's results (after the correction's rows, if any) and write them with the checkpoint's move
        from `old` to `new`; False when another process moved it first (nothing written)."""
        rows = self._changes(page, ratings)
        rewrite = None
        if correction is not None:
            rows = correction.rows + rows
            rewrite = correction.rewrite
        return self.store.ratings.commit_ratings(NAME, old=old, new=new, rows=rows, rewrite=rewrite)

    def _forget(self) -> None:
        self._context.clear()
        self._ratings, self._looked_up, self._at = {}, set(), None
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
        rows: list[ChangeRow] = []
        for position, game_id, env, settles in page:
            kept = contexts.get(game_id)
            if settles:
                kind, club_id, players, rating = games[game_id]
                voids = retracts.get(game_id)
                if rating is not None and players and (voids is None or not voided(env["seq"], voids)):
                    if not rating.per_hand:
                        context = rating.context()
                    elif kept is not None and kept.hand == env["hand"]:  # `_hand_context`'s kept one
                        context = kept
                    else:
                        context = kept = self._hand_context(game_id, env, rating)
                    base = (club_id, game_id, kind, position, env["recorded_at"])
                    for match in rating.matches(len(players), env, context):
                        rows += rate(match, players, ratings, base)
            if kept is not None:  # `_observe`
                kept.observe(env)
        return rows

    def _observe(self, game_id: str, env: Mapping[str, Any]) -> None:
        """Keep the hand context of a game this process follows from its first event (else read back)."""
        context = self._context.get(game_id)
        if context is not None:
            context.observe(env)


