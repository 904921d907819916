"""What every part of the store shares: the engine with its pragmas, the table handles, raw SQL helpers.

Durability: an acknowledged append is on disk. `make_engine` runs SQLite in WAL mode with
`synchronous=FULL` (the WAL is fsynced at every commit; `fullfsync` too, which matters on macOS only),
and sets PostgreSQL's `synchronous_commit=on` on every connection, so a server or database configured
with it off does not weaken the promise. `TABLEBOOK_DURABILITY` trades it away: `full` (the default) or
`fast` (SQLite `synchronous=NORMAL`, PostgreSQL `synchronous_commit=off`), which is faster per commit and
may lose the last acknowledged events on power loss or an OS crash (PostgreSQL: also when its server
crashes), whole transactions only, never half of one.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from importlib.util import find_spec
from types import SimpleNamespace
from typing import Any, Protocol

from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool, QueuePool

from events.store.dialect import Dialect, dialect_for_url, dialect_of
from events.store.tables import ApiKey, AppendRequest, Club, Event, Game

DEFAULT_URL = "sqlite:///./data/tablebook.db"
#: the largest seq (an INTEGER column) and position (BIGINT): reads past them find nothing, and never
#: send the database an integer it cannot bind (SQLite refuses Python ints over 64 bits: a 500, found by
#: tests/reliability)
MAX_SEQ = 2**31 - 1
MAX_POSITION = 2**63 - 1

EVENTS = Event.__table__  # type: ignore[attr-defined]
GAMES = Game.__table__  # type: ignore[attr-defined]
CLUBS = Club.__table__  # type: ignore[attr-defined]
KEYS = ApiKey.__table__  # type: ignore[attr-defined]
REQUESTS = AppendRequest.__table__  # type: ignore[attr-defined]

#: the values of TABLEBOOK_DURABILITY (see the module docstring); the first is the default
DURABILITY_MODES = ("full", "fast")


def clamp(value: int, high: int = MAX_SEQ) -> int:
    """`value` within [-1, high]: a bound past the column's range finds what it would, and binds on every driver."""
    return max(min(value, high), -1)


def new_id(prefix: str = "", nbytes: int = 6) -> str:
    """A short random id (hex)."""
    return prefix + secrets.token_hex(nbytes)


def durability_from(value: str | None = None) -> str:
    """`"full"` or `"fast"`: `value`, or TABLEBOOK_DURABILITY when it is None; empty means `"full"`.

    Raises:
        ValueError: anything else, naming the setting and its values.
    """
    raw = os.environ.get("TABLEBOOK_DURABILITY", "") if value is None else value
    mode = raw.strip().lower() or DURABILITY_MODES[0]
    if mode not in DURABILITY_MODES:
        raise ValueError(
            f"TABLEBOOK_DURABILITY={raw!r}: must be 'full' (the default: an acknowledged event is on disk) or "
            "'fast' (may lose the last acknowledged events on power loss)"
        )
    return mode


#: SQLSTATE classes and codes that say the database is not available now, not that the request is wrong:
#: 08 connection exception, 53 insufficient resources (too many connections), 57P01..57P05 a server shutting
#: down or starting (a failover's restart), 25006 a read-only transaction (a primary demoted under the
#: connection, or a standby reached as the primary)
UNAVAILABLE_STATES = ("08", "53", "57P0", "25006")


class HeadBusyError(Exception):
    """An append waited for its turn at a game's head past its deadline (other appends to that game kept it
    busy): nothing was written, and the request may be sent again, so the API answers it as `unavailable`
    (503 with Retry-After), never as a `seq_conflict`, which only an append naming a seq it did not find gets."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id} was kept busy by other appends past this one's deadline; nothing written")
        self.game_id = game_id


#: the errors a database access may raise: the drivers' and SQLAlchemy's (the hot paths read on raw driver
#: connections), and `HeadBusyError`; the API answers those that are `unavailable` with a 503, the others
#: are bugs
DATABASE_ERRORS: tuple[type[Exception], ...] = (DBAPIError, sqlite3.Error, HeadBusyError)
if find_spec("psycopg") is not None:
    import psycopg

    DATABASE_ERRORS += (psycopg.Error,)


def unavailable(error: BaseException) -> bool:
    """Whether `error` says the database did not answer (a connection lost, a node restarting or demoted by a
    failover, SQLite busy past its timeout), so that the request may succeed when sent again: a 503 with
    Retry-After, never a 500. An error in the statement itself (a missing table, a bad value) is not one.
    A game kept busy by other appends past an append's deadline (`HeadBusyError`) is one.
    """
    if isinstance(error, HeadBusyError):
        return True
    if isinstance(error, DBAPIError):
        if error.connection_invalidated:
            return True
        error = error.orig if isinstance(error.orig, BaseException) else error
    module = type(error).__module__
    if module.startswith("psycopg"):
        state = getattr(error, "sqlstate", None)
        if state is None:  # raised by the driver: the connection failed, or was closed under it
            return type(error).__name__ in ("OperationalError", "InterfaceError")
        return str(state).startswith(UNAVAILABLE_STATES)
    if module == "sqlite3" and type(error).__name__ == "OperationalError":
        text = str(error).lower()
        return "locked" in text or "busy" in text
    return False


def shown_url(url: str) -> str:
    """A database URL fit to print: its password, if any, masked."""
    return make_url(url).render_as_string(hide_password=True)


def make_engine(url: str, durability: str | None = None) -> Engine:
    """An engine with the pragmas and transaction behaviour the store relies on (each dialect's `engine`,
    `events/store/dialect.py`).

    `durability` is `"full"` or `"fast"` (see the module docstring); None reads TABLEBOOK_DURABILITY.

    Raises:
        ValueError: `durability` (or TABLEBOOK_DURABILITY) is neither.
        TablebookError: a PostgreSQL URL without the psycopg driver installed.
    """
    full = durability_from(durability) == "full"
    dialect = dialect_for_url(url)
    if dialect is not None:
        return dialect.engine(url, full=full)
    return create_engine(url, poolclass=NullPool)


class OpenGroup(Protocol):
    """The appends' transaction left open for a turn of the event loop (`events/store/turn_commit.py`)."""

    def owned_here(self) -> bool:
        """Whether the calling thread is the one that holds it open."""

    def commit(self) -> None:
        """Commit it now (its appends are answered)."""


class Database:
    """An engine and the two ways the store's parts talk to it.

    Hot paths (append, stream reads, key lookups) use fixed SQL on the engine's raw DBAPI connection:
    building, compiling and executing a Core statement costs more than the SQLite insert itself. The
    rest uses SQLAlchemy Core on a connection from `write()` (a write transaction: `BEGIN IMMEDIATE` on
    SQLite, so a writer never upgrades a read lock and deadlocks) or `engine.connect()`.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        #: where SQLite and PostgreSQL differ (`events/store/dialect.py`)
        self.dialect: Dialect = dialect_of(engine)
        self.integrity_error: type[Exception] = engine.dialect.loaded_dbapi.IntegrityError
        #: re-entrant: `writer_if_free` holds it around a whole append, whose write takes it again
        self._writer = threading.RLock() if self.dialect.single_writer else None
        #: `one_writer`'s lock itself, for the appends: a `with` on the lock costs a tenth of one on the generator
        #: (about 0.3 us against 3, measured); PostgreSQL: a lock of nothing
        self.writer_lock: contextlib.AbstractContextManager[Any] = (
            self._writer if self._writer is not None else contextlib.nullcontext()
        )
        #: SQLite: the appends' transaction left open by the event loop for its turn (`events/store/turn_commit.py`),
        #: committed first by any other write of the loop's thread (`commit_open_group`)
        self.open_group: OpenGroup | None = None
        #: PostgreSQL: a raw read runs in autocommit (`_reading`)
        self._autocommit_reads = self.dialect.name == "postgresql"
        #: SQLite: the raw connection this process's appends write on, kept out of the pool (`writer_connection`)
        self._kept: Any | None = None
        #: SQLite: whether that connection checks no foreign key (`writer_connection`): a pool's own connection,
        #: closed when dropped; not a connection that a pool shares with a thread's other uses
        self._kept_unchecked = self.dialect.single_writer and isinstance(engine.pool, QueuePool)
        #: PostgreSQL: the connection this thread's reads and one-statement appends share (`one_connection`)
        self._local = threading.local()
        #: the column names of each statement `records` has read (fixed SQL: a few dozen at most)
        self._columns: dict[str, tuple[str, ...]] = {}

    @contextlib.contextmanager
    def one_writer(self) -> Iterator[None]:
        """Held around a SQLite write transaction: this process's writers queue here, in turn.

        SQLite lets one writer in at a time; the others wait in its busy handler, which sleeps in steps
        of up to 100 ms and wakes no one when the lock is released: with 16 concurrent appends, p99 went
        to 640 ms at p50 12 ms. A lock in the process hands the database on at once. Writers of other
        processes still meet the busy handler (`busy_timeout`). PostgreSQL: nothing to hold.
        """
        if self._writer is None:
            yield
            return
        self.commit_open_group()
        with self._writer:
            yield

    @property
    def writer_rlock(self) -> threading.RLock | None:
        """SQLite: the lock of `one_writer` itself (for `events/store/turn_commit.py`); PostgreSQL: None."""
        return self._writer

    def commit_open_group(self) -> None:
        """Before a write of the event loop's thread: the appends' transaction that thread left open for its turn
        (`events/store/turn_commit.py`) committed now, since the write would otherwise wait for it. Another
        thread's write waits for the writer lock instead, as for any append."""
        group = self.open_group
        if group is not None and group.owned_here():
            group.commit()

    def writer_connection(self) -> Any | None:
        """SQLite, for the holder of `one_writer`: the raw connection the appends write on, taken from the pool
        once and kept, since one writer at a time uses it (a checkout and its return cost an append of one
        event about 11 us of CPU, measured: a sixth of it). PostgreSQL: None (its appends run in parallel,
        each on a pooled connection).

        Its foreign keys are off, and it is closed when dropped (never given back to the pool as it is), so
        no other write runs without them. Every row an append writes on it (events, seeds, its Idempotency-Key)
        names the game whose head the append's transaction has just moved (`UPDATE game ... WHERE id = ?`, one
        row, or the append is refused), and nothing else writes in that `BEGIN IMMEDIATE` transaction: the game
        is there. The check SQLite would make again for each row, a probe of the game's key, cost a batch of
        50 about 0.4 us an event of 7 (5%, the store's statements on bare sqlite3, five runs in turn)."""
        if self._writer is None:
            return None
        if self._kept is None:
            kept = self.engine.raw_connection()
            if self._kept_unchecked:
                cursor = kept.cursor()
                cursor.execute("PRAGMA foreign_keys=OFF")
                cursor.close()
            self._kept = kept
        return self._kept

    def drop_writer_connection(self) -> None:
        """Close the appends' kept connection (after an error on it, or when the store is disposed of); the
        next append takes a fresh one."""
        kept, self._kept = self._kept, None
        if kept is not None:
            if self._kept_unchecked:
                with contextlib.suppress(Exception):
                    kept.invalidate()  # closed, never given back as it is: its foreign keys are off
            with contextlib.suppress(Exception):
                kept.close()

    @contextlib.contextmanager
    def writer_within(self, timeout: float) -> Iterator[bool]:
        """SQLite: this process's writer lock, waited for at most `timeout` seconds (True, held to the end; False
        if it did not come in time). PostgreSQL has no such lock: always True at once."""
        if self._writer is None:
            yield True
            return
        self.commit_open_group()
        if not self._writer.acquire(timeout=max(timeout, 0.0)):
            yield False
            return
        try:
            yield True
        finally:
            self._writer.release()

    @contextlib.contextmanager
    def writer_if_free(self) -> Iterator[bool]:
        """SQLite: this process's writer lock if no one holds it (True, held to the end), else False at once.

        For a caller that must not wait (the event loop): it does the write itself only when nothing is
        queued before it. PostgreSQL has no such lock: always False.
        """
        self.commit_open_group()
        if self._writer is None or not self._writer.acquire(blocking=False):
            yield False
            return
        try:
            yield True
        finally:
            self._writer.release()

    def sql(self, statement: str) -> str:
        """A statement written with `?` placeholders in the driver's own style (`%s` for psycopg)."""
        return self.dialect.sql(statement)

    @contextlib.contextmanager
    def write(self) -> Iterator[Connection]:
        """A connection whose transactions are write transactions (BEGIN IMMEDIATE on SQLite), used as
        `with db.write() as conn, conn.begin():`. On SQLite it holds this process's writer lock meanwhile
        (`one_writer`), as the appends do: every writer of the process takes its turn there."""
        with self.one_writer(), self.engine.connect().execution_options(write=True) as conn:
            yield conn

    def rows(self, statement: str, params: Sequence[Any]) -> list[Any]:
        """The rows of a raw statement (already in the driver's style), read on a raw connection."""
        with self._reading() as cursor:
            cursor.execute(statement, tuple(params))
            return list(cursor.fetchall())

    def records(self, statement: str, params: Sequence[Any], *, on_writer: bool = False) -> list[SimpleNamespace]:
        """The rows of a raw statement with `?` placeholders, each with its columns by name (`row.seq`).

        For a hot read that a Core `select()` would spend most of its time building and compiling. `on_writer`:
        a short read that may run on SQLite's kept writer connection when it is free (`_reading`).
        """
        with self._reading(on_writer) as cursor:
            cursor.execute(self.sql(statement), tuple(params))
            rows = cursor.fetchall()
            names = self._columns.get(statement)
            if names is None or (rows and len(rows[0]) != len(names)):  # a `SELECT *` after a migration: anew
                # psycopg makes an object a column of `cursor.description` at every read: a key and its game's
                # row (26 columns) took a third of the CPU of the lookup; the names of a statement are its own
                names = self._columns[statement] = tuple(column[0] for column in cursor.description)
            return [SimpleNamespace(**dict(zip(names, row, strict=True))) for row in rows]

    @contextlib.contextmanager
    def _reading(self, on_writer: bool = False) -> Iterator[Any]:
        """A cursor for one read statement, on a pooled raw connection, given back after it.

        PostgreSQL: the statement runs in autocommit (its own snapshot, as the first statement of a READ
        COMMITTED transaction would have), which spares the BEGIN and the ROLLBACK psycopg would send around it,
        two round trips of three; the connection goes back to the pool as it came (not in autocommit).
        SQLite's connections begin their transactions themselves (`dialect.py`): a read is one statement there.

        SQLite, `on_writer` (the key and the game's row of an append, read on the event loop): on the appends'
        kept connection (`writer_connection`) if this process's writer lock is free now and the connection is in
        no transaction, so that the read is its own statement and sees what has committed, as on a pooled one;
        a pool's checkout, rollback and return cost that read more than its statement (12 of 21 us, measured).
        The lock is held for the read only; taken, or the connection in a transaction: a pooled connection.
        """
        if on_writer and self._writer is not None and self._writer.acquire(blocking=False):
            try:
                kept = self.writer_connection()
                if kept is not None and not kept.driver_connection.in_transaction:
                    cursor = kept.cursor()
                    try:
                        yield cursor
                    except DATABASE_ERRORS:
                        self.drop_writer_connection()  # whatever state it is in, the next use takes a fresh one
                        raise
                    finally:
                        with contextlib.suppress(*DATABASE_ERRORS):
                            cursor.close()
                    return
            finally:
                self._writer.release()
        if self._autocommit_reads:  # PostgreSQL (inside `one_connection`, on this thread's shared connection)
            with self.autocommit_connection() as raw:
                cursor = raw.cursor()
                try:
                    yield cursor
                finally:
                    cursor.close()
            return
        raw = self.engine.raw_connection()
        try:
            cursor = raw.cursor()
            try:
                yield cursor
            finally:
                cursor.close()
            raw.rollback()
        except DATABASE_ERRORS as error:
            self.lost(raw, error)
            raise
        finally:
            raw.close()

    @contextlib.contextmanager
    def one_connection(self) -> Iterator[None]:
        """PostgreSQL: within the block, this thread's reads (`_reading`) and its one-statement appends
        (`autocommit_connection`) share one pooled connection, in autocommit throughout: one checkout a request
        where each took its own (an append: the key and the game's row, then the write), and no switching of
        autocommit on and off around each (measured: a tenth of the CPU of an append's worker thread). It is
        checked out at its first use and given back at the end, or before the thread waits for another append
        (`release_shared`: a wait holds no connection, as before). A transaction (a batch, an Idempotency-Key, a
        held head) still takes a connection of its own. SQLite, or inside another such block: nothing.
        """
        if not self._autocommit_reads or getattr(self._local, "sharing", False):
            yield
            return
        self._local.sharing = True
        try:
            yield
        finally:
            self._local.sharing = False
            self.release_shared()

    def _shared(self) -> Any | None:
        """Inside `one_connection`: this thread's shared connection (checked out now if it has none), else None."""
        if not getattr(self._local, "sharing", False):
            return None
        raw: Any = getattr(self._local, "raw", None)
        if raw is None:
            raw = self.engine.raw_connection()
            try:
                raw.driver_connection.autocommit = True
            except BaseException:
                raw.close()
                raise
            self._local.raw = raw
        return raw

    def release_shared(self) -> None:
        """Give this thread's shared connection (`one_connection`) back to the pool now, if it has one: before a
        wait for another append, and after a database error on it. A later use in the block takes another."""
        raw = getattr(self._local, "raw", None)
        if raw is None:
            return
        self._local.raw = None
        with contextlib.suppress(Exception):
            raw.driver_connection.autocommit = False
        with contextlib.suppress(Exception):
            raw.close()

    @contextlib.contextmanager
    def autocommit_connection(self) -> Iterator[Any]:
        """PostgreSQL: a raw connection in autocommit for one statement that is its own transaction: this thread's
        shared one (`one_connection`), else a pooled one (autocommit for the block, given back after it). After a
        database error it is dropped if it is gone (`lost`), and a shared one is given back."""
        shared = self._shared()
        raw: Any = shared if shared is not None else self.engine.raw_connection()
        try:
            if shared is None:
                raw.driver_connection.autocommit = True
            yield raw
        except DATABASE_ERRORS as error:
            self.lost(raw, error)
            if shared is not None:
                self.release_shared()
            raise
        finally:
            if shared is None:
                with contextlib.suppress(Exception):
                    raw.driver_connection.autocommit = False
                raw.close()

    def lost(self, raw: Any, error: BaseException) -> bool:
        """After `error` on the raw connection `raw`: if the connection is gone (the server restarted, a failover,
        the backend terminated), drop it and every idle connection of the pool, and say so (True).

        With the check of a connection as it leaves the pool (`dialect.py`: no round trip), this stands in for
        a ping before every checkout (`pool_pre_ping`, a round trip each): the request that meets a connection
        that died unseen fails as `unavailable` (503 with Retry-After, as before: a lost connection rolls its
        transaction back; one lost in its very commit is answered 503 whether or not it landed, and a retry
        under the same Idempotency-Key says which), and the next checkout connects anew instead of finding the
        pool's other dead connections one by one. SQLAlchemy's own statements (`engine.connect()`) invalidate
        the pool the same way on a disconnect.
        """
        driver = getattr(raw, "driver_connection", None)
        gone = bool(getattr(driver, "broken", False) or getattr(driver, "closed", False))
        if not gone and not (isinstance(error, DBAPIError) and error.connection_invalidated):
            return False
        with contextlib.suppress(Exception):
            raw.invalidate(error if isinstance(error, Exception) else None)
        with contextlib.suppress(Exception):
            self.engine.pool.dispose()  # the idle connections: those of a restarted server are dead too
        return True

    def query(self, statement: str, params: Sequence[Any]) -> list[Any]:
        """The rows of a raw statement written with `?` placeholders."""
        return self.rows(self.sql(statement), params)


class HoldsDatabase(Protocol):
    """Whatever holds a database handle: the `Store` facade, or any of its parts (`Registry`, `LogReader`...).

    The store's modules that need only the database (share tokens, rule profiles, the notifier, the
    followed log) take this, not the facade they are part of.
    """

    @property
    def db(self) -> Database: ...
