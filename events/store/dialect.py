"""What differs between the two databases the store runs on, in one place: SQLite and PostgreSQL.

Every other module of the store is written once for both and asks its `Database`'s dialect
(`db.dialect`) where they differ, by what the difference means rather than by name:

- `single_writer`: SQLite lets in one writer at a time, for the whole database (this process's
  writers queue on a lock in the process, `Database.one_writer`); PostgreSQL locks rows, so appends to
  different games run in parallel and those of one process to one game take their turn
  (`EventRecorder.turn`);
- `begin_write`: a raw write transaction begins with `BEGIN IMMEDIATE` on SQLite (a writer never
  upgrades a read lock), and by itself on PostgreSQL;
- `log_horizon`: the global order is `position` on SQLite (positions commit in order) and
  `(xact_id, position)` below the transaction-id horizon on PostgreSQL (`events/store/log.py`);
- `pushes`: PostgreSQL wakes other processes' live streams with LISTEN/NOTIFY; on SQLite they look at
  the head every 1.5 s (`events/store/notify.py`);
- the spelling: placeholders (`mark`: `?` or `%s`, `sql()`), the substring test (`find`: `instr` or
  `strpos`), the index hint for a hand's events (`by_hand`: SQLite's planner may pick the seq index),
  `INSERT ... ON CONFLICT` (`insert()`);
- the fast paths of read models: their rows in one `executemany` (SQLite) or one `COPY` (PostgreSQL)
  (`insert_rows`), their reset with SQLite's `secure_delete=FAST` (`emptied_fast`); an append's events
  the same way (`insert_events`: a `COPY` from `COPY_FROM` rows on);
- the engine (`engine()`): WAL, `synchronous`, foreign keys and a busy timeout on SQLite;
  `synchronous_commit` on every connection and a larger pool on PostgreSQL.

The durability settings the engines are made with are explained in `events/store/base.py`.
"""

from __future__ import annotations

import contextlib
import select
from collections.abc import Iterator, Sequence
from importlib.util import find_spec
from pathlib import Path
from typing import Any, ClassVar

from sqlalchemy import Engine, Table, create_engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import DisconnectionError

from events.errors import TablebookError

#: PostgreSQL: the fewest rows an append writes with a `COPY` (`PostgreSQL.insert_events`)
COPY_FROM = 4


class Dialect:
    """One database's ways; `SQLITE` and `POSTGRESQL` are the two there are (`dialect_of`)."""

    #: SQLAlchemy's name of the dialect (`engine.dialect.name`), and what the health check reports
    name: ClassVar[str]
    #: the driver's placeholder: statements are written with `?` and spelled with this (`sql`)
    mark: ClassVar[str]
    #: whether the database lets in one writer at a time (SQLite), rather than locking rows (PostgreSQL)
    single_writer: ClassVar[bool]
    #: the statement that begins a write transaction on a raw connection (None: the driver begins one)
    begin_write: ClassVar[str | None]
    #: whether the global order is read below a transaction-id horizon (`events/store/log.py`)
    log_horizon: ClassVar[bool]
    #: whether an append wakes the other processes' streams itself (LISTEN/NOTIFY)
    pushes: ClassVar[bool]
    #: the function that finds a substring (`find(text, part) > 0`)
    find: ClassVar[str]
    #: the hint that makes a read of one hand's events walk the `(game_id, hand, seq)` index
    by_hand: ClassVar[str]
    #: whether an append of one event can be one statement in autocommit: the head moved and the row inserted by
    #: a data-modifying `WITH` (PostgreSQL; SQLite has none: `EventRecorder._append_in_one`)
    one_statement_append: ClassVar[bool] = False

    def __repr__(self) -> str:
        return f"<dialect {self.name}>"

    def sql(self, statement: str) -> str:
        """A statement written with `?` placeholders in the driver's own style."""
        return statement if self.mark == "?" else statement.replace("?", self.mark)

    def marks(self, count: int) -> str:
        """`count` placeholders, comma-separated (`"?, ?, ?"`)."""
        return ", ".join([self.mark] * count)

    def insert(self, table: Table) -> Any:
        """An `INSERT` of the dialect's own construct, which has `on_conflict_do_nothing()`."""
        raise NotImplementedError

    def insert_rows(self, conn: Any, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """Insert a read model's rows (tuples in `columns` order) in its transaction, the fastest way the driver has."""
        raise NotImplementedError

    def insert_events(self, cursor: Any, statement: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """Insert an append's `event` rows on a raw cursor in its transaction: `statement` (an INSERT of one row
        of `columns`) for each, or the driver's faster way. One row (an append of one event): `execute`, which
        spares psycopg's pipeline around an `executemany` (its own sync with the server)."""
        if len(rows) == 1:
            cursor.execute(statement, rows[0])
        else:
            cursor.executemany(statement, rows)

    @contextlib.contextmanager
    def emptied_fast(self, conn: Any) -> Iterator[None]:
        """Around a read model's reset, inside its transaction: the deleted pages freed the cheap way."""
        yield

    def engine(self, url: str, *, full: bool) -> Engine:
        """An engine with the settings the store relies on; `full`: an acknowledged commit is on disk."""
        raise NotImplementedError


class SQLite(Dialect):
    name = "sqlite"
    mark = "?"
    single_writer = True
    begin_write = "BEGIN IMMEDIATE"
    log_horizon = False
    pushes = False
    find = "instr"
    by_hand = "INDEXED BY ix_event_game_hand_seq"

    def insert(self, table: Table) -> Any:
        return sqlite.insert(table)

    def insert_rows(self, conn: Any, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """One `executemany` (its C loop costs less than building a Core statement)."""
        if rows:
            names, marks = ", ".join(columns), self.marks(len(columns))
            conn.exec_driver_sql(f"INSERT INTO {table} ({names}) VALUES ({marks})", rows)

    @contextlib.contextmanager
    def emptied_fast(self, conn: Any) -> Iterator[None]:
        """SQLite frees the deleted pages without overwriting them, for the transaction only.

        Debian's SQLite is built with `secure_delete` on: every page a DELETE frees is overwritten with zeros,
        which for the whole of a read model's table costs ten times the delete itself (0.2-0.8 s against
        0.02 s for 43,000 rating changes, measured). A read model's rows name no player, only ids, and are
        rebuilt from the events at will, so their reset uses `FAST` (zeros only where that costs no extra
        I/O); the connection's own setting is put back before the transaction ends, for the record's tables.
        """
        before = int(conn.exec_driver_sql("PRAGMA secure_delete").scalar_one())
        conn.exec_driver_sql("PRAGMA secure_delete=FAST")
        try:
            yield
        finally:
            conn.exec_driver_sql(f"PRAGMA secure_delete={before}")

    def engine(self, url: str, *, full: bool) -> Engine:
        """WAL; `synchronous=FULL` (every commit fsyncs the WAL; `fullfsync` too, which matters on macOS
        only) or `NORMAL`; foreign keys; a 30 s busy timeout; transactions begun by the store itself
        (`BEGIN IMMEDIATE` on a connection with the `write` execution option)."""
        path = url.split("///", 1)[1] if "///" in url else ""
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, pool_size=8)
        synchronous = "FULL" if full else "NORMAL"

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None  # transactions are begun below
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            # FULL: every commit fsyncs the WAL before it returns; NORMAL only at checkpoints
            cursor.execute(f"PRAGMA synchronous={synchronous}")
            # F_FULLFSYNC where fsync alone does not reach the platter (macOS); a no-op elsewhere
            cursor.execute(f"PRAGMA fullfsync={'ON' if full else 'OFF'}")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _on_begin(connection: Connection) -> None:
            immediate = connection.get_execution_options().get("write", False)
            connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

        return engine


class PostgreSQL(Dialect):
    name = "postgresql"
    mark = "%s"
    single_writer = False
    begin_write = None
    log_horizon = True
    pushes = True
    find = "strpos"
    by_hand = ""
    one_statement_append = True

    def insert(self, table: Table) -> Any:
        return postgresql.insert(table)

    def insert_rows(self, conn: Any, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """One `COPY ... FROM STDIN` on the transaction's own connection (psycopg's `executemany` pays a round
        of its pipeline per row, about 70 µs; a multi-row `VALUES` spends as long parsing its placeholders)."""
        if not rows:
            return
        cursor = conn.connection.dbapi_connection.cursor()
        try:
            with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        finally:
            cursor.close()

    def insert_events(self, cursor: Any, statement: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """From `COPY_FROM` rows on, one `COPY ... FROM STDIN`: psycopg's `executemany` runs the INSERT once a row
        (its executor started anew, each index's WHERE and each row's defaults made ready again), 44 us of
        CPU an event of a batch of 50 against 18-24 us for the COPY (the server's and this process's,
        measured); the constraints and the triggers hold for a COPY as for an INSERT. Fewer rows: the INSERT,
        one round trip where a COPY takes two."""
        if len(rows) < COPY_FROM:
            super().insert_events(cursor, statement, columns, rows)
            return
        with cursor.copy(f"COPY event ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

    def engine(self, url: str, *, full: bool) -> Engine:
        """`synchronous_commit` set on every connection (libpq `options`), after any `options` of the URL, so
        neither the server's, the database's or the role's configuration nor the URL can turn it off unseen;
        a pool that keeps 20 connections (and opens 10 more at a burst, 30 at most as before). It kept 10: with
        16 appends at once in one process (each holds its connection from its key's read to its write), every
        connection past the tenth was closed as it came back and the next append connected anew, a backend
        started and ended each time (379 sessions in a 4-s run of bench/http_appends.py with one worker, 19
        with 20 kept). Four workers keep at most 80 idle, under PostgreSQL's default of 100. Last in, first out
        (`pool_use_lifo`): the connections used just before, and their backends, are used again while the others
        wait (with one worker and 16 clients, three runs each way: server 1.00-1.20 ms of CPU a request against
        1.02-1.40, the backends 0.44-0.51 against 0.48-0.60).

        No `pool_pre_ping`: it cost a round trip at every checkout (three or four a request). A checked pool
        instead: a connection is looked at as it leaves the pool, without a round trip (`_dead`: an idle
        connection has nothing to read; one whose backend was terminated, or whose server shut down, has its
        last message or its end waiting), and replaced if it is dead. A connection that dies unseen (a
        network cut) is found by its next statement and dropped with the pool's idle ones (`Database.lost`;
        SQLAlchemy's own statements do the same): that request answers 503, and the next connects anew."""
        if make_url(url).get_driver_name() == "psycopg" and find_spec("psycopg") is None:
            raise TablebookError("PostgreSQL needs the psycopg driver, not installed: pip install -e '.[postgres]'")
        given = make_url(url).query.get("options", ())
        options = [given] if isinstance(given, str) else list(given)
        options.append(f"-c synchronous_commit={'on' if full else 'off'}")
        engine = create_engine(
            url, connect_args={"options": " ".join(options)}, pool_size=20, max_overflow=10, pool_use_lifo=True
        )

        @event.listens_for(engine, "checkout")
        def _on_checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
            if _dead(dbapi_connection):
                raise DisconnectionError("the pooled connection was closed by the server")  # the pool takes another

        return engine


def _dead(connection: Any) -> bool:
    """Whether an idle pooled psycopg connection is closed, or has something to read (an idle one has nothing: a
    terminated backend's last error or the socket's end is waiting), looked at without a round trip."""
    if connection.closed or connection.broken:
        return True
    try:
        readable, _, _ = select.select([connection.fileno()], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


SQLITE = SQLite()
POSTGRESQL = PostgreSQL()
DIALECTS: dict[str, Dialect] = {SQLITE.name: SQLITE, POSTGRESQL.name: POSTGRESQL}


def dialect_of(engine_or_name: Engine | Dialect | str) -> Dialect:
    """The dialect of an engine, or the one of that name (`"sqlite"`, `"postgresql"`); a dialect is itself.

    Raises:
        TablebookError: another database (the store runs on SQLite and PostgreSQL only).
    """
    if isinstance(engine_or_name, Dialect):
        return engine_or_name
    name = engine_or_name if isinstance(engine_or_name, str) else engine_or_name.dialect.name
    found = DIALECTS.get(name)
    if found is None:
        raise TablebookError(f"the store runs on SQLite or PostgreSQL, not {name!r}")
    return found


def dialect_for_url(url: str) -> Dialect | None:
    """The dialect a database URL names (`sqlite:///...`, `postgresql+psycopg://...`), or None."""
    for dialect in DIALECTS.values():
        if url.startswith(dialect.name):
            return dialect
    return None
