"""The tracking recorder: read models' rows and their checkpoints, written together.

A read model (today the hand facts behind `GET /v1/games?has=`, `projections/readmodels/hand_facts.py`) follows the
log (`events/store/log.py`) and keeps how far it has read in `projection_checkpoint`. Its rows and its
checkpoint move in one transaction, guarded by the old checkpoint, so two processes catching up at
once never both apply a page: the loser writes nothing and reads on from the winner's checkpoint.
These tables are disposable (`tablebook rebuild`): nothing here is part of the record.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from operator import itemgetter
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError

from events.codec import utc_now
from events.store.base import GAMES, Database
from events.store.dialect import DIALECTS, Dialect, dialect_of
from events.store.players import SEATS
from events.store.registry import GameRecord, filter_games, filter_labels, game_record, newest_first
from events.store.tables import HandFact, ProjectionCheckpoint

FACTS = HandFact.__table__  # type: ignore[attr-defined]
CHECKPOINTS = ProjectionCheckpoint.__table__  # type: ignore[attr-defined]


#: a `hand_fact` row's columns, in the order `commit_hand_facts` takes its rows
FACT_COLUMNS = ("club_id", "game_id", "hand", "seq", "situation", "seat")
#: what makes a `hand_fact` row the same fact as another: (game_id, hand, seq, situation, seat)
_FACT_KEY = itemgetter(1, 2, 3, 4, 5)


class Lost(Exception):
    """Another process moved the checkpoint inside our transaction: roll it all back."""


def check_checkpoint(conn: Any, name: str, old: int) -> None:
    """Inside a read model's transaction: the checkpoint `name` is still at `old` (made at 0 if new). Past 0
    the row is there, and `move_checkpoint`, last in the transaction, is the guard: nothing is read here.

    Raises:
        Lost: another process moved it (or made it) first.
    """
    if old != 0:
        return
    current = conn.execute(select(CHECKPOINTS.c.position).where(CHECKPOINTS.c.name == name)).scalar()
    if current is None:
        try:
            with conn.begin_nested():
                conn.execute(insert(CHECKPOINTS).values(name=name, position=0, updated_at=utc_now()))
        except IntegrityError:  # another process made the row first: it is catching up
            raise Lost() from None
    elif int(current) != 0:
        raise Lost()


#: the guarded move of a checkpoint, raw (a Core `update` costs more to build than to run: a catch-up of one event
#: is little else), in each driver's placeholders
_MOVE = "UPDATE projection_checkpoint SET position = ?, updated_at = ? WHERE name = ? AND position = ?"
_MOVES = {name: dialect.sql(_MOVE) for name, dialect in DIALECTS.items()}


#: PostgreSQL: the guarded move as one statement in autocommit, its transaction's commit made unsynced by the
#: statement itself (`set_config(..., true)` is `SET LOCAL`): one round trip where BEGIN, SET, UPDATE, COMMIT
#: took four
_PG_ADVANCE = (
    "WITH unsynced AS (SELECT set_config('synchronous_commit', 'off', true)) "
    "UPDATE projection_checkpoint SET position = %s, updated_at = %s FROM unsynced WHERE name = %s AND position = %s"
)


def move_checkpoint(conn: Any, name: str, old: int, new: int) -> None:
    """Move the checkpoint `name` from `old` to `new`, last in a read model's transaction.

    Raises:
        Lost: another process moved it in between.
    """
    moved = conn.exec_driver_sql(_MOVES[conn.dialect.name], (new, utc_now(), name, old))
    if moved.rowcount != 1:
        raise Lost()


def reset_checkpoint(conn: Any, name: str) -> None:
    """Put the checkpoint `name` back to 0 (made if missing), before a rebuild."""
    done = conn.execute(update(CHECKPOINTS).where(CHECKPOINTS.c.name == name).values(position=0, updated_at=utc_now()))
    if done.rowcount == 0:
        conn.execute(insert(CHECKPOINTS).values(name=name, position=0, updated_at=utc_now()))


def emptied_fast(conn: Any, dialect: Dialect | str) -> contextlib.AbstractContextManager[None]:
    """Inside a read model's reset transaction: the deleted pages freed the cheap way (SQLite's
    `secure_delete=FAST`, the connection's own setting put back after; `Dialect.emptied_fast`)."""
    return dialect_of(dialect).emptied_fast(conn)


def insert_rows(
    conn: Any, dialect: Dialect | str, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
) -> None:
    """Insert a read model's rows (tuples in `columns` order) in its transaction, the fastest way each driver has
    (SQLite: one `executemany`; PostgreSQL: one `COPY ... FROM STDIN`; `Dialect.insert_rows`)."""
    dialect_of(dialect).insert_rows(conn, table, columns, rows)


@contextlib.contextmanager
def unsynced_write(db: Database) -> Iterator[Any]:
    """A read model's write transaction, `with unsynced_write(db) as conn:`, committed without waiting for the
    disk: SQLite `synchronous=NORMAL` for it (set on the connection before it begins, as SQLite requires,
    and put back after it ends), PostgreSQL `SET LOCAL synchronous_commit = off`.

    A read model's rows and checkpoint still commit together or not at all; a power cut may only lose its
    newest commits, which the next catch-up reads again from the checkpoint they left (the log itself is
    written with the store's own durability). On SQLite the next fsynced commit (an append) makes them
    durable anyway: the WAL is written in order. What it saves is an fsync per page, most of the cost of a
    catch-up of one event (measured: `python -m bench.ratings`).
    """
    with db.write() as conn:
        if db.dialect.name != "sqlite":
            with conn.begin():
                conn.exec_driver_sql("SET LOCAL synchronous_commit = off")
                yield conn
            return
        raw: Any = conn.connection.dbapi_connection
        level = int(raw.execute("PRAGMA synchronous").fetchone()[0])
        if level > 1:
            raw.execute("PRAGMA synchronous=NORMAL")
        try:
            with conn.begin():
                yield conn
        finally:
            if level > 1:
                try:
                    raw.execute(f"PRAGMA synchronous={level}")
                except Exception:  # never hand the pool a connection that commits unsynced: it is closed
                    conn.invalidate()
                    raise


def advance(db: Database, name: str, old: int, new: int) -> bool:
    """Move the checkpoint `name` from `old` (past 0) to `new` with nothing else to write: a page of events the
    read model needs nothing of (most appends, for each read model). The same transaction `unsynced_write`
    makes, with the guarded move alone, on a raw connection: SQLAlchemy's connection, transaction and
    statement cost about 90 us of CPU here against 11 us for the driver's own (measured on SQLite), which
    is most of the catch-up of one event; on PostgreSQL one statement (`_PG_ADVANCE`), where a read model's
    own read (`LogReader.read_checkpointed`) makes the move itself unless its log is followed on a standby.
    False when another process moved it first.
    """
    if db.dialect.name != "sqlite":  # one statement in autocommit, its own transaction, committed unsynced
        with db.autocommit_connection() as postgres:
            cursor = postgres.cursor()
            try:
                cursor.execute(_PG_ADVANCE, (new, utc_now(), name, old))
                return bool(cursor.rowcount == 1)
            finally:
                cursor.close()
    raw = None
    with db.one_writer():
        try:
            raw = db.engine.raw_connection()
            cursor = raw.cursor()
            level = int(cursor.execute("PRAGMA synchronous").fetchone()[0])
            if level > 1:
                cursor.execute("PRAGMA synchronous=NORMAL")
            try:
                cursor.execute("BEGIN IMMEDIATE")
                cursor.execute(_MOVE, (new, utc_now(), name, old))
                moved = cursor.rowcount == 1
                cursor.execute("COMMIT")
            finally:
                driver: Any = raw.driver_connection
                if driver.in_transaction:
                    cursor.execute("ROLLBACK")
                if level > 1:
                    cursor.execute(f"PRAGMA synchronous={level}")
            return moved
        except BaseException:
            if raw is not None:  # never hand the pool a connection left unsynced or in a transaction
                raw.invalidate()
            raise
        finally:
            if raw is not None:
                raw.close()


class TrackingRecorder:
    """Read-model rows and checkpoints; the queries the read model answers."""

    def __init__(self, db: Database) -> None:
        self.db = db
        #: a raw statement: a catch-up reads it first, every time (a Core select costs it more than the read)
        self._position = db.sql("SELECT position FROM projection_checkpoint WHERE name = ?")

    def projection_position(self, name: str) -> int:
        """How far (a log position, see `events/store/log.py`) the read model `name` has read; 0 when it never ran."""
        found = self.db.rows(self._position, (name,))
        return int(found[0][0] or 0) if found else 0

    def commit_hand_facts(
        self,
        name: str,
        *,
        old: int,
        new: int,
        deletes: Sequence[tuple[str, int, int]] = (),
        inserts: Sequence[Sequence[Any]] = (),
        once: Sequence[Sequence[Any]] = (),
    ) -> bool:
        """Move the checkpoint `name` from `old` to `new` with its hand-fact changes, in one transaction.

        `deletes` are `(game_id, above_seq, below_seq)` ranges (facts of retracted events), applied
        first; `inserts` are `hand_fact` rows as `(club_id, game_id, hand, seq, situation, seat)`;
        `once` rows are inserted only if the same fact (game, hand, seq, situation, seat) is not there
        yet. False, and nothing written, when another process moved the checkpoint first (it did this
        work).
        """
        if old != 0 and not (deletes or inserts or once):
            return advance(self.db, name, old, new)
        try:
            with unsynced_write(self.db) as conn:
                self._write_hand_facts(conn, name, old, new, deletes, inserts, once)
        except Lost:
            return False
        return True

    def _write_hand_facts(
        self,
        conn: Any,
        name: str,
        old: int,
        new: int,
        deletes: Sequence[tuple[str, int, int]],
        inserts: Sequence[Sequence[Any]],
        once: Sequence[Sequence[Any]],
    ) -> None:
        check_checkpoint(conn, name, old)
        for game_id, above, below in deletes:
            conn.execute(FACTS.delete().where(FACTS.c.game_id == game_id, FACTS.c.seq > above, FACTS.c.seq < below))
        rows: Sequence[Sequence[Any]] = inserts  # written as they come: no copy of a page's rows
        if once:
            # the facts already there of the games and tags these rows name, in one read (not one per row)
            game_ids = sorted({r[1] for r in once})
            tags = sorted({r[4] for r in once})
            named, tagged = set(game_ids), set(tags)  # only these can match a `once` row: not the whole page's keys
            seen = {_FACT_KEY(r) for r in inserts if r[4] in tagged and r[1] in named}  # the tag first: rarer
            for start in range(0, len(game_ids), 500):  # raw: a Core IN of as many binds costs more than the read
                some = game_ids[start : start + 500]
                query = self.db.sql(
                    "SELECT game_id, hand, seq, situation, seat FROM hand_fact "
                    f"WHERE game_id IN ({', '.join('?' * len(some))}) AND situation IN ({', '.join('?' * len(tags))})"
                )
                seen.update(tuple(found) for found in conn.exec_driver_sql(query, (*some, *tags)))
            fresh = []
            for row in once:
                key = _FACT_KEY(row)
                if key not in seen:
                    seen.add(key)
                    fresh.append(row)
            rows = [*inserts, *fresh]
        insert_rows(conn, self.db.dialect, "hand_fact", FACT_COLUMNS, rows)
        move_checkpoint(conn, name, old, new)

    def reset_hand_facts(self, name: str) -> None:
        """Empty the hand-fact read model and put its checkpoint back to 0 (before a rebuild)."""
        with self.db.write() as conn, conn.begin(), emptied_fast(conn, self.db.dialect):
            conn.execute(FACTS.delete())
            reset_checkpoint(conn, name)

    def hand_fact_rows(self, game_ids: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Every hand fact (of these games), without its row id, in a stable order."""
        query = select(FACTS.c.club_id, FACTS.c.game_id, FACTS.c.hand, FACTS.c.seq, FACTS.c.situation, FACTS.c.seat)
        if game_ids is not None:
            query = query.where(FACTS.c.game_id.in_(list(game_ids)))
        query = query.order_by(FACTS.c.game_id, FACTS.c.seq, FACTS.c.situation, FACTS.c.seat)
        with self.db.engine.connect() as conn:
            return [dict(row._mapping) for row in conn.execute(query)]

    def hits(
        self,
        game_ids: Sequence[str],
        situations: Sequence[str],
        per_game: int = 200,
        player_ids: Sequence[str] | None = None,
    ) -> dict[str, list[Any]]:
        """`{game_id: [{hand, seq, situation, seat}]}` for these games and situations, in seq order; with
        `player_ids`, only the facts at those players' seats."""
        out: dict[str, list[Any]] = {gid: [] for gid in game_ids}
        if not game_ids or not situations:
            return out
        query = (
            select(FACTS.c.game_id, FACTS.c.hand, FACTS.c.seq, FACTS.c.situation, FACTS.c.seat)
            .where(FACTS.c.game_id.in_(list(game_ids)), FACTS.c.situation.in_(list(situations)))
            .order_by(FACTS.c.game_id, FACTS.c.seq, FACTS.c.situation, FACTS.c.seat)
        )
        if player_ids is not None:
            query = query.where(
                select(SEATS.c.seat)
                .where(
                    SEATS.c.game_id == FACTS.c.game_id,
                    SEATS.c.seat == FACTS.c.seat,
                    SEATS.c.player_id.in_(list(player_ids)),
                )
                .exists()
            )
        with self.db.engine.connect() as conn:
            for row in conn.execute(query):
                found = out[row.game_id]
                if len(found) < per_game:
                    found.append({"hand": row.hand, "seq": row.seq, "situation": row.situation, "seat": row.seat})
        return out

    def search_games(
        self,
        club_id: int,
        *,
        situations: Sequence[str],
        kind: str | None = None,
        status: str | None = None,
        player_ids: Sequence[str] | None = None,
        winner: int | None = None,
        since: str | None = None,
        until: str | None = None,
        event: str | None = None,
        round: str | None = None,
        limit: int = 50,
        before: tuple[str, str] | None = None,
    ) -> list[GameRecord]:
        """`Registry.list_games` with one more filter: games with a hand fact of *every* situation given.

        With `player_ids`, the games where one of these players sat, and the facts must be that
        player's own: a fact at the seat the player held (`game_player`), so that "Anna's sweeps"
        are not another player's sweeps in a game Anna played.
        """
        query = select(GAMES).where(GAMES.c.club_id == club_id)
        for situation in situations:
            fact = select(FACTS.c.id).where(FACTS.c.game_id == GAMES.c.id, FACTS.c.situation == situation)
            if player_ids is not None:
                fact = fact.where(
                    select(SEATS.c.seat)
                    .where(
                        SEATS.c.game_id == FACTS.c.game_id,
                        SEATS.c.seat == FACTS.c.seat,
                        SEATS.c.player_id.in_(list(player_ids)),
                    )
                    .exists()
                )
            query = query.where(fact.exists())
        query = filter_games(
            query, kind=kind, status=status, player_ids=player_ids, winner=winner, since=since, until=until
        )
        query = filter_labels(query, event, round)
        with self.db.engine.connect() as conn:
            return [game_record(row) for row in conn.execute(newest_first(query, before, limit))]
