"""The event recorder: append a batch on an expected seq, at most once per Idempotency-Key; read a stream.

Guarantees:

- append-only: database triggers (created by the migrations) refuse UPDATE and DELETE on `event`;
- optimistic concurrency: an append names the head seq it builds on; the game row's head is moved
  with `WHERE seq = :old` (on PostgreSQL that also row-locks the game, so a second append to the same
  game waits, then finds the head moved), and the unique `(game_id, seq)` key is the backstop, so two
  racing appends never both land;
- a head held still (`hold_head`): an append that lost a race decides again while no other append can
  move the game's head (PostgreSQL: its transaction locks the game row first, waiting for the append
  ahead of it to end, and writes in that transaction; SQLite: this process's writer lock), so its
  second try is against the true head and lands, however many clients append to the game; on
  PostgreSQL the appends of one process to one game also take their `turn`, one after the other;
- all or nothing: a batch is one transaction;
- idempotency: an `append_request` row per Idempotency-Key, checked inside the append's transaction;
- wake-ups: on PostgreSQL the statement that moves the head also sends the game's NOTIFY, which the other
  processes' live streams hear once the append has committed, and never if it rolled back
  (`events/store/notify.py`);
- no global lock: appends to different games touch different rows and run in parallel on
  PostgreSQL (SQLite has one writer, `BEGIN IMMEDIATE`). The global order stays gapless for readers
  without one: see `events/store/log.py`;
- an append checked as it is written (PostgreSQL, `append_checked`): one event decided on a process's cached
  state, by a key that process read on an earlier request, written only if the head and the key's row are still
  those in the database, in the same statement; else nothing is written and the caller appends as above;
- group commit (PostgreSQL): single-event appends without an Idempotency-Key to different games that arrive
  while one is being written share one statement, one transaction and one WAL flush
  (`events/store/group_commit.py`; `TABLEBOOK_GROUP_COMMIT=off` turns it off); each caller is answered after
  that transaction's commit, with the answer it would have had alone (landed, `StreamConflictError`,
  `NotFoundError`). A lone append is written at once, with no delay.

- group commit (SQLite, `append_checked_in_turn`): the checked appends that the event loop writes in one turn of it
  share one transaction and one commit (`events/store/turn_commit.py`), each answered after it.

The recorder's parts, each in a module of its own: its statements (`append_sql.py`), what an append passes
around (`heads.py`), the per-game turns (`turns.py`), PostgreSQL's one-statement writes (`one_statement.py`,
mixed in), SQLite's checked appends (`single_writer.py`, mixed in) and a stream's reads (`stream_reads.py`,
mixed in).

`TABLEBOOK_TEST_COMMIT_DELAY_MS=A` or `A-B` (for the reliability tests only, never set in production)
sleeps A (or uniformly A to B) milliseconds inside every append transaction, after its rows are
written and before the commit: it widens the window in which transactions commit out of position
order, and in which a kill -9 lands in the middle of a transaction (tests/reliability).
"""

from __future__ import annotations

import contextlib
import os
import random
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from sqlalchemy import insert

from events.codec import dumps, utc_now
from events.envelope import Envelope
from events.errors import NotFoundError, StreamConflictError
from events.store.append_sql import MOVE_HEADS_AND_INSERT, NOTIFYING, SQL, check_of
from events.store.base import DATABASE_ERRORS, EVENTS, GAMES, Database, HeadBusyError, new_id
from events.store.group_commit import GroupCommit, enabled
from events.store.heads import DuplicateRequest, Head, HeldHead, PriorRequest
from events.store.mapper import EVENT_FIELDS, event_row, row_values
from events.store.notify import CHANNEL, payload
from events.store.one_statement import OneStatementWrites
from events.store.players import seat_players
from events.store.registry import GameRecord, KeyRecord, Registry, game_row
from events.store.seeds import SeedRow
from events.store.single_writer import SingleWriterWrites
from events.store.stream_reads import StreamReads
from events.store.turn_commit import TurnCommit
from events.store.turns import HOLDS, Turns

__all__ = ["DuplicateRequest", "EventRecorder", "Head", "HeldHead", "PriorRequest", "commit_delay_from"]


def commit_delay_from(value: str) -> tuple[float, float] | None:
    """`"A"` or `"A-B"` milliseconds as (low, high) seconds; None for "" (test-only, see the module docstring).

    Raises:
        ValueError: not one or two numbers of milliseconds.
    """
    if not value.strip():
        return None
    low, _, high = value.partition("-")
    bounds = (float(low) / 1000, float(high or low) / 1000)
    if not 0 <= bounds[0] <= bounds[1]:
        raise ValueError(f"TABLEBOOK_TEST_COMMIT_DELAY_MS: {value!r} is not 'A' or 'A-B' milliseconds, A <= B")
    return bounds


class EventRecorder(StreamReads, OneStatementWrites, SingleWriterWrites):
    """Appends to one game's stream and reads it back, in seq order (`StreamReads`; PostgreSQL's one-statement
    writes: `OneStatementWrites`; SQLite's checked appends: `SingleWriterWrites`)."""

    def __init__(self, db: Database, registry: Registry) -> None:
        self.db = db
        self.registry = registry
        statements = {**SQL, **NOTIFYING} if db.dialect.pushes else SQL
        self._sql = {name: db.sql(sql.replace("{by_hand}", db.dialect.by_hand)) for name, sql in statements.items()}
        #: PostgreSQL: whether an append's head move carries its NOTIFY (`NOTIFYING`, payload `notify.payload`)
        self._notifies = db.dialect.pushes
        #: Test-only: a sleep inside every append transaction (see the module docstring).
        self.commit_delay = commit_delay_from(os.environ.get("TABLEBOOK_TEST_COMMIT_DELAY_MS", ""))
        self._turns = Turns()
        self._holds = threading.BoundedSemaphore(HOLDS)
        notify_sql = f", pg_notify('{CHANNEL}', input.payload)" if self._notifies else ""
        self._batch_sql = db.sql(MOVE_HEADS_AND_INSERT.replace("{notify}", notify_sql))
        #: PostgreSQL: the queue that groups single-event appends to different games into shared transactions
        #: (`events/store/group_commit.py`; None: off, `TABLEBOOK_GROUP_COMMIT=off`, or SQLite)
        self.group_commit: GroupCommit | None = (
            GroupCommit(self._write_alone, self._write_batch) if db.dialect.one_statement_append and enabled() else None
        )
        #: SQLite: the transaction that the event loop's checked appends of one turn share
        #: (`events/store/turn_commit.py`; None: off, `TABLEBOOK_GROUP_COMMIT=off`, or PostgreSQL)
        self.turn_commit: TurnCommit | None = TurnCommit(db) if db.dialect.single_writer and enabled() else None

    # ------------------------------------------------------------------ one append at a time, per game

    @contextlib.contextmanager
    def turn(self, game_id: str, timeout: float) -> Iterator[None]:
        """This process's turn at a game, around a whole append (its reads, its decision, its write and any
        second try in `hold_head`).

        PostgreSQL: the appends of one process to one game wait here, on no connection, rather than in
        the database behind each other's row lock, each on a pooled connection (a `hold_head` takes a
        second connection for its reads while it holds the lock: 30 appends waiting for it would leave it
        none, measured with 100 threads on one game). SQLite: nothing to wait for (`one_writer` orders
        the process's writes; the event loop, which may hold that lock, must never wait here).

        Raises:
            HeadBusyError: the turn did not come within `timeout` seconds.
        """
        if self.db.dialect.single_writer:
            yield
            return
        with self._turns.taken(game_id, timeout, self.db.release_shared) as got:  # it waits on no connection
            if not got:
                raise HeadBusyError(game_id)
            yield

    # ------------------------------------------------------------------ a head held still

    @contextlib.contextmanager
    def hold_head(self, game_id: str, timeout: float) -> Iterator[HeldHead]:
        """Hold the game's head still until the block ends: no other append, of any process, can move it
        meanwhile, so a batch decided inside on the head read inside lands (`append(..., held=...)`).

        For the second try of an append that lost a race, inside its `turn`. PostgreSQL: a transaction that
        locks the game row (`FOR NO KEY UPDATE`: it waits for the append that holds it to commit or roll
        back), in which the append then writes; reads meanwhile, on other connections, see every commit
        before it.
        SQLite: this process's writer lock, around the reads, the decision and the append's transaction;
        another process may still get in before that transaction begins (a conflict again, for the caller
        to hold the head once more). An append inside the block passes `held` and ends the hold's use (on
        PostgreSQL an append to the game without it would wait for this very lock).

        Raises:
            HeadBusyError: the head did not come free within `timeout` seconds (none left: at once).
        """
        if timeout <= 0:
            raise HeadBusyError(game_id)
        if self.db.dialect.single_writer:
            with self.db.writer_within(timeout) as held:
                if not held:
                    raise HeadBusyError(game_id)
                yield HeldHead(game_id, None)
            return
        ends = time.monotonic() + timeout
        self.db.release_shared()  # it waits for a hold and the row's lock on no other connection, as before
        if not self._holds.acquire(timeout=timeout):
            raise HeadBusyError(game_id)
        try:
            raw = self.db.engine.raw_connection()
            try:
                cursor = raw.cursor()
                try:
                    wait = max(int((ends - time.monotonic()) * 1000), 1)
                    cursor.execute("SELECT set_config('lock_timeout', %s, true)", (f"{wait}ms",))
                    cursor.execute(self._sql["lock_head"], (game_id,))
                except DATABASE_ERRORS as error:
                    if getattr(error, "sqlstate", None) != "55P03":  # lock_not_available: lock_timeout passed
                        raise
                    raise HeadBusyError(game_id) from None
                finally:
                    cursor.close()
                yield HeldHead(game_id, raw)
            finally:
                with contextlib.suppress(*DATABASE_ERRORS):
                    raw.rollback()  # nothing, once the append committed; else it releases the lock
                raw.close()
        finally:
            self._holds.release()

    # ------------------------------------------------------------------ writes

    def append(
        self,
        game_id: str,
        envelopes: Sequence[Envelope],
        *,
        base_seq: int,
        head: Head,
        idempotency: tuple[str, str] | None = None,
        secrets: Sequence[SeedRow] = (),
        held: HeldHead | None = None,
    ) -> None:
        """Append a batch on top of `base_seq`, all or nothing; with the server seeds of the decks it commits.

        `held`: the game's head held still by `hold_head` (on PostgreSQL the append writes in its transaction).

        Raises:
            StreamConflictError: the game's head is not at `base_seq` (with the actual seq).
            DuplicateRequest: the Idempotency-Key has landed already (nothing written).
            NotFoundError: no such game.
        """
        rows = [row_values(game_id, env) for env in envelopes]
        now = envelopes[-1]["recorded_at"] if envelopes else utc_now()
        with self.db.writer_lock:  # `one_writer`
            self._append(game_id, rows, now, base_seq, head, idempotency, envelopes, secrets, held)

    def _append(
        self,
        game_id: str,
        rows: Sequence[Any],
        now: str,
        base_seq: int,
        head: Head,
        idempotency: tuple[str, str] | None,
        envelopes: Sequence[Envelope],
        secrets: Sequence[SeedRow] = (),
        held: HeldHead | None = None,
    ) -> None:
        """The append's one transaction (`append`, which holds this process's SQLite writer lock)."""
        if (
            self.db.dialect.one_statement_append
            and len(rows) == 1
            and idempotency is None
            and not secrets
            and held is None
            and self.commit_delay is None  # the reliability tests' sleep goes between the writes and the commit
        ):
            self._append_in_one(game_id, rows[0], now, base_seq, head)
            return
        sql = self._sql
        in_hold = held is not None and held.connection is not None and held.game_id == game_id
        kept = None if in_hold else self.db.writer_connection()  # SQLite: the appends' own, not the pool's
        if held is not None and in_hold:
            raw: Any = held.connection
        elif kept is not None:  # its driver's connection: the pool's proxy of `cursor` and `commit` cost ~1 us more
            raw = kept.dbapi_connection
        else:
            raw = self.db.engine.raw_connection()
        cursor = raw.cursor()
        try:
            if self.db.dialect.begin_write is not None:
                cursor.execute(self.db.dialect.begin_write)
            if idempotency is not None:
                cursor.execute(sql["find_request"], (game_id, idempotency[0]))
                prior = cursor.fetchone()
                if prior is not None:
                    raise DuplicateRequest(PriorRequest(prior[0], prior[1], prior[2]))
            totals = dumps(dict(head.totals))
            moved = (head.seq, head.hand, head.status, totals, head.winner, head.head_hash, now, game_id, base_seq)
            if self._notifies:
                cursor.execute(sql["move_head"], (*moved, payload(self.db, game_id)))
            elif self.db.dialect.single_writer:
                self._move_head_single_writer(cursor, head, totals, now, game_id, base_seq)
            else:
                cursor.execute(sql["move_head"], moved)
            if cursor.rowcount != 1:
                if idempotency is not None:
                    # the same request, sent again while its first try was still in its transaction: the
                    # game row's lock made this one wait for it, and (READ COMMITTED: each statement reads
                    # what has committed) the first try's record is there now. Its answer, not a conflict.
                    cursor.execute(sql["find_request"], (game_id, idempotency[0]))
                    prior = cursor.fetchone()
                    if prior is not None:
                        raise DuplicateRequest(PriorRequest(prior[0], prior[1], prior[2]))
                cursor.execute(sql["head_seq"], (game_id,))
                found = cursor.fetchone()
                if found is None:
                    raise NotFoundError(f"no game {game_id!r}")
                raise StreamConflictError(base_seq, int(found[0]))
            if rows:
                self.db.dialect.insert_events(cursor, sql["insert_event"], EVENT_FIELDS, rows)
            if secrets:
                cursor.executemany(
                    sql["insert_seed"], [(game_id, s.commitment, s.hand, s.seed.hex(), now) for s in secrets]
                )
            if idempotency is not None:
                first = envelopes[0]["seq"] if envelopes else base_seq
                last = envelopes[-1]["seq"] if envelopes else base_seq
                cursor.execute(sql["insert_request"], (game_id, idempotency[0], idempotency[1], first, last, now))
            if self.commit_delay is not None:
                time.sleep(random.uniform(*self.commit_delay))
            raw.commit()
        except self.db.integrity_error as exc:
            raw.rollback()
            if idempotency is not None:  # the same request, landed meanwhile: its answer, not a conflict
                prior = self.find_request(game_id, idempotency[0])
                if prior is not None:
                    raise DuplicateRequest(prior) from exc
            raise StreamConflictError(base_seq, self.registry.get_game(game_id).seq) from exc
        except BaseException as error:
            with contextlib.suppress(*DATABASE_ERRORS):
                raw.rollback()  # a lost connection cannot roll back: its transaction ended with it
            if isinstance(error, DATABASE_ERRORS):
                if kept is not None:
                    self.db.drop_writer_connection()  # whatever state it is in, the next append starts afresh
                else:
                    self.db.lost(raw, error)
            raise
        finally:
            with contextlib.suppress(*DATABASE_ERRORS):
                cursor.close()
            if not in_hold and kept is None:  # a held transaction's connection goes back with the hold
                raw.close()

    def _append_in_one(self, game_id: str, row: Sequence[Any], now: str, base_seq: int, head: Head) -> None:
        """PostgreSQL, one event and no Idempotency-Key (most appends): the transaction of `_append` as one
        statement in autocommit (`move_head_and_insert`: the head moved `WHERE seq = :old`, the row inserted
        only if it was), one round trip where BEGIN, UPDATE, INSERT and COMMIT took four, and a quarter of
        psycopg's CPU. All or nothing as before: a statement is its transaction; the unique `(game_id, seq)`
        key and the row lock of the head's UPDATE work as they do there. The statement also sends the
        append's NOTIFY (`NOTIFYING`), delivered at its commit.

        With group commit on (`events/store/group_commit.py`), appends to other games that arrive while one is
        being written are written together in one statement (`MOVE_HEADS_AND_INSERT`), one transaction and one
        WAL flush; this returns after that statement, so after its commit. An append that finds nothing in
        flight is written at once, alone, as above.

        Raises:
            StreamConflictError, NotFoundError: as `append`.
        """
        params = self.one_event_params(game_id, row, now, base_seq, head)
        try:
            done = self._write_one(game_id, params)
        except self.db.integrity_error as exc:
            raise StreamConflictError(base_seq, self.registry.get_game(game_id).seq) from exc
        if done.outcome == "landed":
            return
        found = done.found
        if not done.head_read:  # refused in a batch: its head read now (it only moves on, never back to base_seq)
            rows = self.db.rows(self._sql["head_seq"], (game_id,))
            found = rows[0] if rows else None
        if found is None:
            raise NotFoundError(f"no game {game_id!r}")
        raise StreamConflictError(base_seq, int(found[0]))

    def append_checked(self, game_id: str, envelope: Envelope, *, base_seq: int, head: Head, key: KeyRecord) -> bool:
        """PostgreSQL: append one event decided on this process's cached state of the game at `base_seq`, by the
        key whose row this process read on an earlier request, checking both in the statement that writes it
        (`move_head_and_insert_checked`): the head is still at `base_seq` with the hash the event chains to, the
        game is of the key's club, and the key is the same row, not revoked (`key_still`). One round trip for
        the key's read and the append, where the append read the key and the game first in a round trip of its
        own: the cache decides nothing that the database has not confirmed by the time the event is written.

        True: written (as `append`'s one-statement append, through group commit when it is on). False: nothing
        written, something changed (or SQLite, or the reliability tests' delay): the caller appends as before,
        reading the key and the game, and its answer is the one it would have been.
        """
        if self.commit_delay is not None:
            return False
        row = row_values(game_id, envelope)
        if not self.db.dialect.one_statement_append:
            return self._append_checked_single_writer(game_id, row, envelope, base_seq, head, key)
        params = self.one_event_params(game_id, row, envelope["recorded_at"], base_seq, head)
        check = check_of(envelope, key)
        try:
            done = self._write_one(game_id, params, check)
        except self.db.integrity_error:
            return False  # another append took the seq: written as before, the caller says what happened
        return done.outcome == "landed"

    def import_game(
        self,
        *,
        club_id: int,
        kind: str,
        players: Sequence[str],
        options: Mapping[str, Any],
        created_at: str,
        genesis_hash: str,
        envelopes: Sequence[Envelope],
        head: Head,
        game_id: str | None = None,
        labels: Mapping[str, str | None] | None = None,
        copy_of: str | None = None,
    ) -> GameRecord:
        """Register a game and write its already verified envelopes, exactly as given, in one transaction.

        All or nothing: the registry row (its event, round and table `labels` too, and `copy_of`: the
        club's game this one is a copy of, for a record imported again on purpose) and every event land
        together or not at all, so no reader ever sees a copy's events before its mark. Like any
        append it takes no global lock: its events are one transaction, ordered as one in the log.
        """
        gid = game_id or new_id("g")
        row = game_row(
            game_id=gid,
            club_id=club_id,
            kind=kind,
            players=players,
            options=options,
            created_at=created_at,
            updated_at=envelopes[-1]["recorded_at"] if envelopes else created_at,
            genesis_hash=genesis_hash,
            seq=head.seq,
            hand=head.hand,
            status=head.status,
            totals=head.totals,
            winner=head.winner,
            head_hash=head.head_hash,
            labels=labels,
            copy_of=copy_of,
        )
        event_rows = [event_row(gid, env) for env in envelopes]
        with self.db.write() as conn, conn.begin():
            conn.execute(insert(GAMES).values(**row))
            seat_players(conn, club_id, gid, players)
            for start in range(0, len(event_rows), 1000):
                conn.execute(insert(EVENTS), event_rows[start : start + 1000])
        return self.registry.get_game(gid)
