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

`TABLEBOOK_TEST_COMMIT_DELAY_MS=A` or `A-B` (for the reliability tests only, never set in production)
sleeps A (or uniformly A to B) milliseconds inside every append transaction, after its rows are
written and before the commit: it widens the window in which transactions commit out of position
order, and in which a kill -9 lands in the middle of a transaction (tests/reliability).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Integer, SmallInteger, insert

from events.codec import dumps, loads, utc_now
from events.envelope import Envelope
from events.errors import NotFoundError, StreamConflictError
from events.store.base import DATABASE_ERRORS, EVENTS, GAMES, MAX_SEQ, Database, HeadBusyError, clamp, new_id
from events.store.group_commit import BatchFailed, GroupCommit, Pending, enabled
from events.store.mapper import (
    ENVELOPE_SQL,
    EVENT_FIELDS,
    FOLD_SQL,
    envelope_from_values,
    event_row,
    fold_envelope_from_values,
    row_values,
)
from events.store.notify import CHANNEL, payload
from events.store.players import seat_players
from events.store.registry import GameRecord, KeyRecord, Registry, game_row
from events.store.seeds import INSERT as INSERT_SEED
from events.store.seeds import SeedRow
from events.store.turn_commit import TurnCommit


@dataclass(frozen=True, slots=True)
class Head:
    """What an append moves a game's head to."""

    seq: int
    hand: int
    status: str
    totals: Mapping[str, Any]
    winner: int | None
    head_hash: str


@dataclass(frozen=True, slots=True)
class PriorRequest:
    """An earlier append with the same Idempotency-Key."""

    body_hash: str
    first_seq: int
    last_seq: int


@dataclass(frozen=True, slots=True)
class HeldHead:
    """A game's head held still for one append (`EventRecorder.hold_head`)."""

    game_id: str
    #: PostgreSQL: the raw connection whose open transaction holds the game row's lock, the append's to write
    #: in; SQLite: None (this process's writer lock is held instead, and the append begins its own)
    connection: Any | None


#: how many appends of one process may hold a head on PostgreSQL at once: each holds one pooled connection
#: in its transaction and takes another for its reads, so 8 of them need at most 16 of the pool's 30
#: (events/store/base.py), and none of them waits for a connection that another one holds
HOLDS = 8


class _Turns:
    """One re-entrant lock per game that an append of this process is busy with, made on demand and dropped
    when no thread holds or waits for it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._games: dict[str, tuple[threading.RLock, list[int]]] = {}

    @contextlib.contextmanager
    def taken(self, game_id: str, timeout: float, before_wait: Callable[[], None]) -> Iterator[bool]:
        """The game's lock, waited for at most `timeout` seconds: True, held to the end; False, not had.
        `before_wait` is called first if it must be waited for."""
        with self._lock:
            lock, users = self._games.setdefault(game_id, (threading.RLock(), [0]))
            users[0] += 1
        try:
            got = lock.acquire(blocking=False)
            if not got:
                before_wait()
                got = lock.acquire(timeout=max(timeout, 0.0))
            try:
                yield got
            finally:
                if got:
                    lock.release()
        finally:
            with self._lock:
                users[0] -= 1
                if not users[0]:
                    del self._games[game_id]


class DuplicateRequest(Exception):
    """Raised inside an append when its Idempotency-Key has landed already."""

    def __init__(self, prior: PriorRequest) -> None:
        super().__init__(prior)
        self.prior = prior


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


#: the placeholder of each `event` column, cast to the column's type (text for a VARCHAR: its length is checked by
#: the INSERT's own assignment, as for a plain INSERT's parameter), for `move_head_and_insert`
EVENT_CASTS = tuple(
    "?::" + ("smallint" if isinstance(t, SmallInteger) else "integer" if isinstance(t, Integer) else "text")
    for t in (EVENTS.c[name].type for name in EVENT_FIELDS)
)


_SQL = {
    "move_head": "UPDATE game SET seq = ?, hand = ?, status = ?, totals = ?, winner = ?, head_hash = ?, "
    "updated_at = ? WHERE id = ? AND seq = ?",
    # SQLite: the head moved with its status left out of the SET when it is unchanged (the same values, `status`
    # last, and `AND status = ?` in the WHERE): SQLite rewrites the entry of every index whose column an UPDATE
    # sets, whatever the value, and `ix_game_status` cost a quarter of the head's UPDATE (5 of 21 us an append)
    "move_head_same_status": "UPDATE game SET seq = ?, hand = ?, totals = ?, winner = ?, head_hash = ?, "
    "updated_at = ? WHERE id = ? AND seq = ? AND status = ?",
    "head_seq": "SELECT seq FROM game WHERE id = ?",
    # the lock an UPDATE of the head takes (not FOR UPDATE: a foreign key check of another connection, a
    # snapshot row of this game written meanwhile, takes FOR KEY SHARE, which FOR UPDATE would block)
    "lock_head": "SELECT seq FROM game WHERE id = ? FOR NO KEY UPDATE",
    "insert_event": f"INSERT INTO event ({', '.join(EVENT_FIELDS)}) VALUES ({', '.join(['?'] * len(EVENT_FIELDS))})",
    "find_request": "SELECT body_hash, first_seq, last_seq FROM append_request WHERE game_id = ? "
    "AND idempotency_key = ?",
    "insert_request": "INSERT INTO append_request (game_id, idempotency_key, body_hash, first_seq, last_seq, "
    "created_at) VALUES (?, ?, ?, ?, ?, ?)",
    "read_events": f"SELECT {ENVELOPE_SQL} FROM event WHERE game_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?",
    "read_for_fold": f"SELECT {FOLD_SQL} FROM event WHERE game_id = ? AND seq > ? AND seq <= ? ORDER BY seq",
    # SQLite, without statistics, would take MIN(seq) from the (game_id, seq) key and walk the whole game
    # from seq 1 (1.3 ms at 10,000 events); the hand index finds it among the last hands' rows
    "first_seq_from_hand": "SELECT MIN(seq) FROM event {by_hand} WHERE game_id = ? AND hand >= ? AND seq <= ?",
    "retracts": "SELECT seq, data FROM event WHERE game_id = ? AND seq > ? AND seq <= ? AND type = 'retract' "
    "ORDER BY seq",
    "hand_seqs": "SELECT MIN(seq), MAX(seq) FROM event WHERE game_id = ? AND hand = ? AND seq <= ?",
    # what a reader's view of a game turns on, in one round trip (projections/reading/retracts.py): a hand's
    # first and last seq, the first seq of the hands from a hidden one on, and every retract
    "reading_marks": "SELECT 0, MIN(seq), MAX(seq), NULL FROM event WHERE game_id = ? AND hand = ? AND seq <= ? "
    "UNION ALL SELECT 1, MIN(seq), NULL, NULL FROM event {by_hand} WHERE game_id = ? AND hand >= ? AND seq <= ? "
    "UNION ALL SELECT 2, seq, NULL, data FROM event WHERE game_id = ? AND seq > 0 AND seq <= ? "
    "AND type = 'retract' ORDER BY 1, 2",
    "insert_seed": INSERT_SEED,
    # PostgreSQL: an append of one event in one statement (`_append_in_one`): the head moved, and the row inserted
    # only if it was (each value cast to its column's type: a parameter of a SELECT has none of its own)
    "move_head_and_insert": "WITH moved AS (UPDATE game SET seq = ?, hand = ?, status = ?, totals = ?, winner = ?, "
    "head_hash = ?, updated_at = ? WHERE id = ? AND seq = ? RETURNING id) "
    f"INSERT INTO event ({', '.join(EVENT_FIELDS)}) SELECT {', '.join(EVENT_CASTS)} FROM moved",
}


def _key_still(key_id: str, key_hash: str, role: str, club: str) -> str:
    """The condition that an API key is still the row a process read on an earlier request (a `KeyRecord`): the same
    hash, not revoked, the same role, of the game's club under the same name; what `api.auth` checks of the row
    it reads (`Registry.find_key_and_game`), checked by the statement that appends (`append_checked`)."""
    return (
        "EXISTS (SELECT 1 FROM api_key JOIN club ON club.id = api_key.club_id "
        f"WHERE api_key.id = {key_id} AND api_key.key_hash = {key_hash} AND api_key.revoked_at IS NULL "
        f"AND api_key.role = {role} AND api_key.club_id = game.club_id AND club.name = {club})"
    )


#: PostgreSQL, `append_checked`: `move_head_and_insert` that moves the head only if the game's row is still the one
#: the event was decided on (its seq, its head's hash, its club) and the key still `_key_still`; parameters: those of
#: `move_head_and_insert` with the check's (`_check`) after the base seq
_SQL["move_head_and_insert_checked"] = _SQL["move_head_and_insert"].replace(
    " RETURNING id)", f" AND head_hash = ? AND club_id = ? AND {_key_still('?', '?', '?', '?')} RETURNING id)", 1
)
#: SQLite, `append_checked`: the head's UPDATE (`move_head_same_status`, then `move_head`) only if the game's row is
#: still the one the event was decided on and the key still `_key_still`; parameters: the UPDATE's, then `_check`'s
_CHECKED_HEAD = f" AND head_hash = ? AND club_id = ? AND {_key_still('?', '?', '?', '?')}"
_SQL["move_head_same_status_checked"] = _SQL["move_head_same_status"] + _CHECKED_HEAD
_SQL["move_head_checked"] = _SQL["move_head"] + _CHECKED_HEAD
#: PostgreSQL, group commit (`events/store/group_commit.py`): the heads of a batch of single-event appends to
#: distinct games moved and their events inserted in one statement, from one array a column (`unnest`: the same
#: text whatever the batch's size, prepared once). The games' rows are locked first, in the order of their ids
#: (`locked`; see the module docstring of group_commit.py on deadlocks); a head moves only if it is at its
#: append's base, and only a moved game's event is inserted. Answers the moved games (and sends their NOTIFYs).
_HEAD_ARRAYS = ("integer", "integer", "text", "text", "integer", "text", "text", "text", "integer")
_HEAD_NAMES = ("new_seq", "new_hand", "new_status", "new_totals", "new_winner", "new_head_hash", "new_updated_at")
#: a member's check (`_check`; all NULL: an append whose key was read in its own request, written as before)
_CHECK_NAMES = ("k_base_hash", "k_club_id", "k_id", "k_hash", "k_role", "k_club")
_CHECK_TYPES = ("text", "integer", "text", "text", "text", "text")
_INPUT_NAMES = (*_HEAD_NAMES, "id", "base_seq", *(f"e_{name}" for name in EVENT_FIELDS), "payload", *_CHECK_NAMES)
_INPUT_TYPES = (*_HEAD_ARRAYS, *(cast.removeprefix("?::") for cast in EVENT_CASTS), "text", *_CHECK_TYPES)
_CHECKED = (
    "(input.k_id IS NULL OR (game.head_hash = input.k_base_hash AND game.club_id = input.k_club_id AND "
    f"{_key_still('input.k_id', 'input.k_hash', 'input.k_role', 'input.k_club')}))"
)
MOVE_HEADS_AND_INSERT = (
    "WITH input AS MATERIALIZED (SELECT * FROM unnest("
    + ", ".join(f"?::{kind}[]" for kind in _INPUT_TYPES)
    + f") AS input({', '.join(_INPUT_NAMES)})), "
    "locked AS MATERIALIZED (SELECT game.id FROM game JOIN input ON game.id = input.id "
    "ORDER BY game.id FOR NO KEY UPDATE OF game), "
    "moved AS (UPDATE game SET seq = new_seq, hand = new_hand, status = new_status, totals = new_totals, "
    "winner = new_winner, head_hash = new_head_hash, updated_at = new_updated_at FROM input JOIN locked "
    "ON locked.id = input.id WHERE game.id = input.id AND game.seq = input.base_seq "
    f"AND {_CHECKED} RETURNING game.id), "
    f"inserted AS (INSERT INTO event ({', '.join(EVENT_FIELDS)}) "
    f"SELECT {', '.join(f'input.e_{name}' for name in EVENT_FIELDS)} FROM input JOIN moved ON moved.id = input.id) "
    "SELECT moved.id{notify} FROM moved JOIN input ON input.id = moved.id"
)
#: the server's answers after which a batch has certainly rolled back, and each member may write alone: a data
#: error (22: a value one member's column refuses), an integrity error (23: one member's row collides), a
#: transaction rollback (40: a deadlock, 40P01), the statement cancelled (57014)
_BATCH_REFUSALS = ("22", "23", "40")

#: PostgreSQL: the statements that move the head also send the append's NOTIFY (`events/store/notify.py`), which
#: PostgreSQL delivers when the transaction commits and never if it rolls back: the wake-up of the other
#: processes' streams comes after the commit, with no statement of its own (the payload is the last parameter)
_NOTIFYING = {
    "move_head": f"{_SQL['move_head']} RETURNING pg_notify('{CHANNEL}', CAST(? AS text))",
    "move_head_and_insert": f"{_SQL['move_head_and_insert']} RETURNING pg_notify('{CHANNEL}', CAST(? AS text))",
    "move_head_and_insert_checked": f"{_SQL['move_head_and_insert_checked']} "
    f"RETURNING pg_notify('{CHANNEL}', CAST(? AS text))",
}
#: a `Pending` append's check columns in a batch when it has none
_NO_CHECK = (None,) * len(_CHECK_NAMES)
#: where the check's parameters go in `move_head_and_insert_checked`'s: after the head's 7, the game id and base seq
_BASE_END = len(_HEAD_NAMES) + 2


def _check(envelope: Envelope, key: KeyRecord) -> tuple[Any, ...]:
    """`append_checked`'s check of one event by `key`, in the order of `_CHECK_NAMES`: the hash the event chains to
    (the game's head hash it was decided on), the key's club, id, hash, role and club name."""
    return (envelope["prev_hash"], key.club_id, key.id, key.key_hash, key.role, key.club)


class EventRecorder:
    """Appends to one game's stream and reads it back, in seq order."""

    def __init__(self, db: Database, registry: Registry) -> None:
        self.db = db
        self.registry = registry
        statements = {**_SQL, **_NOTIFYING} if db.dialect.pushes else _SQL
        self._sql = {name: db.sql(sql.replace("{by_hand}", db.dialect.by_hand)) for name, sql in statements.items()}
        #: PostgreSQL: whether an append's head move carries its NOTIFY (`_NOTIFYING`, payload `notify.payload`)
        self._notifies = db.dialect.pushes
        #: Test-only: a sleep inside every append transaction (see the module docstring).
        self.commit_delay = commit_delay_from(os.environ.get("TABLEBOOK_TEST_COMMIT_DELAY_MS", ""))
        self._turns = _Turns()
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
        append's NOTIFY (`_NOTIFYING`), delivered at its commit.

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
        game is of the key's club, and the key is the same row, not revoked (`_key_still`). One round trip for
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
        check = _check(envelope, key)
        try:
            done = self._write_one(game_id, params, check)
        except self.db.integrity_error:
            return False  # another append took the seq: written as before, the caller says what happened
        return done.outcome == "landed"

    def _append_checked_single_writer(
        self, game_id: str, row: Sequence[Any], envelope: Envelope, base_seq: int, head: Head, key: KeyRecord
    ) -> bool:
        """SQLite, `append_checked`: one transaction on the appends' kept connection, under this process's writer lock,
        whose head's UPDATE moves the head only if the game's row and the key are still what the event was decided
        on and the key's row read (`move_head_checked`, `_key_still`), and whose event is inserted only if it did;
        else it rolls back and nothing is written. The key's and the game's read before the append (a statement on
        the connection whose commit has just fsynced: 33 us of CPU where the same read costs 15 us after a read,
        measured) is so made by the write itself, in its transaction: the key is still read from the database at
        every append, as it is written."""
        write = self._checked_write(game_id, row, envelope, base_seq, head, key)
        with self.db.writer_lock:  # `one_writer`
            kept = self.db.writer_connection()
            if kept is None:  # pragma: no cover - SQLite always keeps one
                return False
            raw = kept.dbapi_connection
            cursor = raw.cursor()
            try:
                cursor.execute(self.db.dialect.begin_write or "BEGIN")
                if not write(cursor):
                    raw.rollback()
                    return False
                raw.commit()
                return True
            except BaseException as error:
                with contextlib.suppress(*DATABASE_ERRORS):
                    raw.rollback()
                if isinstance(error, DATABASE_ERRORS):
                    self.db.drop_writer_connection()  # whatever state it is in, the next append starts afresh
                if isinstance(error, self.db.integrity_error):
                    return False  # the caller appends as before and says what happened
                raise
            finally:
                with contextlib.suppress(*DATABASE_ERRORS):
                    cursor.close()

    def _checked_write(
        self, game_id: str, row: Sequence[Any], envelope: Envelope, base_seq: int, head: Head, key: KeyRecord
    ) -> Callable[[Any], bool]:
        """SQLite, `append_checked`'s statements on a cursor in a write transaction: the head's checked UPDATE, then
        the event's INSERT if the head moved. True: both written; False: nothing written (the head or the key
        changed)."""
        now = envelope["recorded_at"]
        totals = dumps(dict(head.totals))
        check = _check(envelope, key)

        def write(cursor: Any) -> bool:
            if not self._move_head_single_writer(cursor, head, totals, now, game_id, base_seq, check):
                return False
            cursor.execute(self._sql["insert_event"], tuple(row))
            return True

        return write

    def append_checked_in_turn(
        self, game_id: str, envelope: Envelope, *, base_seq: int, head: Head, key: KeyRecord
    ) -> asyncio.Future[bool] | None:
        """SQLite, on the event loop: `append_checked` written in the transaction that this turn of the loop shares
        with its other checked appends (`events/store/turn_commit.py`). A future that resolves True once that
        transaction has committed (False: it rolled back, nothing written; an error: its commit's), or None:
        nothing written (a refusal, group commit off, the reliability tests' delay, or not on the loop): the
        caller appends as before, as after `append_checked`'s False."""
        if self.turn_commit is None or self.commit_delay is not None:
            return None
        row = row_values(game_id, envelope)
        return self.turn_commit.append(game_id, self._checked_write(game_id, row, envelope, base_seq, head, key))

    def _move_head_single_writer(
        self, cursor: Any, head: Head, totals: str, now: str, game_id: str, base_seq: int, check: tuple[Any, ...] = ()
    ) -> bool:
        """SQLite, in an append's transaction under the one writer: the head moved to `head` if it is at `base_seq`,
        with its status as it was first (`move_head_same_status`, every append but a game's last: SQLite rewrites
        an index entry of every column an UPDATE sets), else a second statement that sets it (`move_head`); with a
        `check` (`append_checked`, `_check`), their `_checked` forms. True: the head moved."""
        checked = "_checked" if check else ""
        same = (head.seq, head.hand, totals, head.winner, head.head_hash, now, game_id, base_seq, head.status)
        cursor.execute(self._sql[f"move_head_same_status{checked}"], (*same, *check))
        if cursor.rowcount != 1:
            moved = (head.seq, head.hand, head.status, totals, head.winner, head.head_hash, now, game_id, base_seq)
            cursor.execute(self._sql[f"move_head{checked}"], (*moved, *check))
        return bool(cursor.rowcount == 1)

    def _write_one(self, game_id: str, params: tuple[Any, ...], check: tuple[Any, ...] | None = None) -> Pending:
        """PostgreSQL: a single-event append's statement, through group commit when it is on (in a batch, or alone
        when nothing else is in flight), else alone; its `Pending`, with its outcome ("landed" or refused)."""
        done = self.group_commit.append(game_id, params, check) if self.group_commit is not None else None
        if done is None or done.outcome == "alone":
            done = Pending(game_id, params, check=check)
            done.outcome = "landed" if self._write_alone(done) else "refused"
        return done

    def one_event_params(
        self, game_id: str, row: Sequence[Any], now: str, base_seq: int, head: Head
    ) -> tuple[Any, ...]:
        """The parameters of a single-event append's statement (`move_head_and_insert`, with its NOTIFY's payload
        last), which are also its column of a batch's arrays (`MOVE_HEADS_AND_INSERT`)."""
        moved = (head.seq, head.hand, head.status, dumps(dict(head.totals)), head.winner, head.head_hash, now)
        return (*moved, game_id, base_seq, *row, payload(self.db, game_id))

    def _write_alone(self, append: Pending) -> bool:
        """One single-event append in its own statement (`move_head_and_insert`): True if its head moved; if not,
        the head's row is read right after on the same connection (`append.found`, None: no such game). With a
        check (`append_checked`): `move_head_and_insert_checked`, and nothing read after."""
        with self.db.autocommit_connection() as raw:
            cursor = raw.cursor()
            try:
                if append.check is not None:  # `append_checked`: its check after the base seq; refused, no read
                    params = (*append.params[:_BASE_END], *append.check, *append.params[_BASE_END:])
                    cursor.execute(self._sql["move_head_and_insert_checked"], params)
                    return bool(cursor.rowcount == 1)
                cursor.execute(self._sql["move_head_and_insert"], append.params)
                if cursor.rowcount == 1:
                    return True
                cursor.execute(self._sql["head_seq"], (append.game_id,))
                append.found, append.head_read = cursor.fetchone(), True
                return False
            finally:
                cursor.close()

    def _write_batch(self, batch: Sequence[Pending]) -> set[str]:
        """Single-event appends to distinct games in one statement (`MOVE_HEADS_AND_INSERT`): the games whose
        heads moved, their events inserted, committed when this returns.

        Raises:
            BatchFailed: the server refused the statement (`_BATCH_REFUSALS`): it rolled back, nothing landed,
                and the connection is fine; the members write alone.
        """
        members = (append.params + (append.check or _NO_CHECK) for append in batch)
        arrays = [list(column) for column in zip(*members, strict=True)]
        with self.db.autocommit_connection() as raw:
            cursor = raw.cursor()
            try:
                cursor.execute(self._batch_sql, arrays)
                return {str(found[0]) for found in cursor.fetchall()}
            except DATABASE_ERRORS as error:
                state = str(getattr(error, "sqlstate", None) or "")
                broken = bool(getattr(raw.driver_connection, "broken", False) or raw.driver_connection.closed)
                if not broken and (state[:2] in _BATCH_REFUSALS or state == "57014"):
                    raise BatchFailed(state) from error
                raise
            finally:
                cursor.close()

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

    # ------------------------------------------------------------------ reads

    def find_request(self, game_id: str, key: str) -> PriorRequest | None:
        """The earlier append made with this Idempotency-Key, if any."""
        rows = self.db.rows(self._sql["find_request"], (game_id, key))
        return PriorRequest(rows[0][0], rows[0][1], rows[0][2]) if rows else None

    def read_events(
        self, game_id: str, after: int = 0, limit: int | None = None, *, upto: int | None = None
    ) -> list[Envelope]:
        """A game's envelopes with `after < seq <= upto`, in seq order, at most `limit` of them.

        `upto` is the head a reader decided visibility at: events appended since are left for its next read.
        """
        if after >= MAX_SEQ or (limit is not None and limit <= 0):
            return []  # nothing is above the largest seq; and SQLite refuses integers over 64 bits
        limit = min(limit, MAX_SEQ) if limit is not None else MAX_SEQ
        upto = MAX_SEQ if upto is None else clamp(upto)
        rows = self.db.rows(self._sql["read_events"], (game_id, max(after, -1), upto, limit))
        return [envelope_from_values(row) for row in rows]

    def read_for_fold(self, game_id: str, after: int, upto: int) -> tuple[list[Envelope], str | None]:
        """What a fold of a game's events with `after < seq <= upto` reads: each event's `seq`, `type`, `v` and
        `data` (`mapper.fold_envelope_from_values`), in seq order, and the hash of the event at `upto` (None
        when there is none): the state a load folds, and the head hash its next append chains to.

        The envelopes are partial, for `engine.fold` only: no hash, time, actor nor stored result is read.
        """
        if after >= MAX_SEQ:
            return [], None
        upto = clamp(upto)
        rows = self.db.rows(self._sql["read_for_fold"], (upto, game_id, max(after, -1), upto))
        return [fold_envelope_from_values(row) for row in rows], rows[-1][4] if rows else None

    def iter_events(self, game_id: str, batch: int = 1000, *, upto: int | None = None) -> Iterator[Envelope]:
        """A game's envelopes in seq order (up to seq `upto`), read in pages (constant memory)."""
        after = 0
        while True:
            page = self.read_events(game_id, after, batch, upto=upto)
            yield from page
            if len(page) < batch:
                return
            after = page[-1]["seq"]

    def first_seq_from_hand(self, game_id: str, hand: int, upto: int) -> int | None:
        """The lowest seq at or below `upto` recorded in hand `hand` or a later one (None: there is none).

        A hand above the head's hand is one that was begun and then retracted; see `projections/reading/visibility.py`.
        """
        rows = self.db.rows(self._sql["first_seq_from_hand"], (game_id, clamp(hand), clamp(upto)))
        return None if not rows or rows[0][0] is None else int(rows[0][0])

    def retracts(self, game_id: str, after: int = 0, upto: int | None = None) -> list[tuple[int, int]]:
        """`(seq, to_seq)` of every retract with `after < seq <= upto`, in seq order."""
        upper = MAX_SEQ if upto is None else clamp(upto)
        rows = self.db.rows(self._sql["retracts"], (game_id, clamp(after), upper))
        return [(int(seq), int(loads(data)["to_seq"])) for seq, data in rows]

    def hand_seqs(self, game_id: str, hand: int, upto: int) -> tuple[int, int] | None:
        """The lowest and highest seq at or below `upto` recorded in hand `hand` (None: there is none)."""
        rows = self.db.rows(self._sql["hand_seqs"], (game_id, clamp(hand), clamp(upto)))
        return None if not rows or rows[0][0] is None else (int(rows[0][0]), int(rows[0][1]))

    def reading_marks(
        self, game_id: str, upto: int, *, hand: int | None = None, from_hand: int | None = None
    ) -> tuple[tuple[int, int] | None, int | None, list[tuple[int, int]]]:
        """`hand_seqs(hand)`, `first_seq_from_hand(from_hand)` and `retracts()` up to `upto`, in one query: (the
        first and last seq of hand `hand`, the lowest seq of hand `from_hand` or a later one, `(seq, to_seq)` of
        every retract). A hand not asked for (None) answers None."""
        asked = (game_id, clamp(-1 if hand is None else hand), clamp(upto))
        hidden = (game_id, clamp(MAX_SEQ if from_hand is None else from_hand), clamp(upto))
        rows = self.db.rows(self._sql["reading_marks"], (*asked, *hidden, game_id, clamp(upto)))
        span: tuple[int, int] | None = None
        first: int | None = None
        retracts: list[tuple[int, int]] = []
        for part, low, high, data in rows:
            if part == 0 and low is not None:
                span = (int(low), int(high))
            elif part == 1 and low is not None:
                first = int(low)
            elif part == 2:
                retracts.append((int(low), int(loads(data)["to_seq"])))
        return span, first, retracts
