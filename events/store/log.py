"""The log reader: every game's events in one global order, for read models and other followers.

The promise: a follower that reads page after page from its last cursor never skips an event, not
even one whose transaction commits after events that come later in the order have been read.

SQLite has one writer at a time (`BEGIN IMMEDIATE`), so `position`s commit in increasing order and
the order is `position` itself.

PostgreSQL runs appends to different games in parallel (no global lock), so positions do *not*
commit in order: a transaction may take position 5, another position 6 and commit first; a reader
that saw 6 and moved its cursor there would never see 5. The transaction-id technique
(eugene-khyst/postgresql-event-sourcing) closes that gap. Each event row stores its transaction's
top-level id, `xact_id xid8 DEFAULT pg_current_xact_id()` (migration 0006); the order is
`(xact_id, position)`, and a read returns only events with `xact_id < pg_snapshot_xmin(pg_current_snapshot())`
(the *horizon*), after the cursor in that order. Why no event is ever skipped:

1. The horizon `xmin` of a snapshot is the smallest transaction id still running when it is taken;
   every transaction with a smaller id has ended, committed (its rows are visible to the statement,
   whose snapshot it is) or rolled back (it has no rows). So the set of events below the horizon is
   final: no transaction can add an event to it afterwards, because a transaction still running has
   an id >= xmin and a transaction not yet begun gets an id above every id assigned so far.
2. A read returns a prefix, in `(xact_id, position)` order, of the events after its cursor in that
   final set. The horizon only rises, so every event that becomes readable later has
   `xact_id >= ` the old horizon `>` the `xact_id` of every event already returned: it sorts after
   the cursor. By induction the pages a follower reads, joined, are a prefix of the whole order.

Ordering by `position` with the same filter would not be enough: an old transaction (id 99) may
take position 6 after a younger one (id 100, still running) took position 5; at a horizon of 100
the reader returns 6, and 5, readable once id 100 commits, sorts before its cursor. Ordering by the
transaction id first puts all of one transaction's events together, in position order.

The cursor callers keep is still one `position` (a read model's checkpoint column): an event's
position names its row, and so its `(xact_id, position)`. Positions no longer rise monotonically
along the order on PostgreSQL (they do within a transaction, and almost always across), but they
stay unique. Events written before migration 0006 have `xact_id = 0`: they come first, in position
order, which is the order they committed in under the old global append lock.

The cost: a transaction that stays open (any transaction with an id, in any database of the
cluster: ids and snapshots are cluster-wide) holds the horizon back, and followers wait for it to
end; they never read past it. Appends are short; an idle-in-transaction session is the thing to
watch (`idle_in_transaction_session_timeout`).

`TABLEBOOK_LOG_HORIZON=off`, for tests/reliability only and never set in production, reads in plain
`position` order with no horizon: it reproduces the gap a catch-up reader skips without the technique.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select

from events.codec import utc_now
from events.envelope import Envelope
from events.store.base import EVENTS, MAX_POSITION, Database, clamp
from events.store.dialect import Dialect, dialect_of
from events.store.mapper import ENVELOPE_COLUMNS, ENVELOPE_SQL, envelope_from_row, envelope_from_values

#: the horizon: only transactions with an id below it can have written events a reader may rely on
HORIZON = "pg_snapshot_xmin(pg_current_snapshot())"
#: the cursor `(xact_id, position)` of a position a caller kept: that event's transaction id, or for a
#: position no event has (0; one rolled back), that of the nearest event before it
_CURSOR = "COALESCE((SELECT xact_id FROM event WHERE position <= %s ORDER BY position DESC LIMIT 1), '0'::xid8)"

_PG_READ = (
    f"SELECT position, game_id, {ENVELOPE_SQL} FROM event "
    f"WHERE (xact_id, position) > ({_CURSOR}, %s) AND xact_id < {HORIZON} "
    "ORDER BY xact_id, position LIMIT %s"
)
_PG_HEAD = f"SELECT position FROM event WHERE xact_id < {HORIZON} ORDER BY xact_id DESC, position DESC LIMIT 1"
_PLAIN_READ = f"SELECT position, game_id, {ENVELOPE_SQL} FROM event WHERE position > ? ORDER BY position LIMIT ?"
#: the light read (`read_texts`): the same order, the payloads left encoded
_TEXTS = "position, game_id, seq, hand, type, data, result, recorded_at"
_PG_TEXTS = _PG_READ.replace(ENVELOPE_SQL, _TEXTS.removeprefix("position, game_id, "), 1)
_PLAIN_TEXTS = f"SELECT {_TEXTS} FROM event WHERE position > ? ORDER BY position LIMIT ?"


#: what a type or a mark may hold: it is written into SQL as a literal (a partial index's WHERE must be
#: the query's own text, not a bound parameter, for SQLite and PostgreSQL to use the index)
_NAME_CHARS = frozenset('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"')


def _literal(text: str) -> str:
    if not text or not set(text) <= _NAME_CHARS:
        raise ValueError(f"log filter: {text!r} is not a plain type name or quoted mark")
    return f"'{text}'"


@dataclass(frozen=True, slots=True)
class LogFilter:
    """Which events a follower needs, as SQL over the stored texts: an event of one of `types`, a game's
    first event (`first_events`), or one whose `result` (`data`) text holds one of `result_marks`
    (`data_marks`), plain substrings (`instr` on SQLite, `strpos` on PostgreSQL: no wildcards, case kept).

    `admits` is the same test in Python. The SQL text is deterministic (sorted, literals inline), so a
    migration can create a partial index with exactly this WHERE and a read with it walks that index.

    `flag`: a read model's filter, whose answer is also written with each row as a bit of `event.read_by`
    (`events/store/mapper.py` `ReadFlags`, migration 0016). Its partial index holds the rows with that bit
    and the rows without bits (NULL), so an insert costs the index one integer test, not the substrings;
    the read tests the texts only of a row without bits.
    """

    types: tuple[str, ...] = ()
    result_marks: tuple[str, ...] = ()
    data_marks: tuple[str, ...] = ()
    first_events: bool = False
    flag: int = 0

    def sql(self, dialect: Dialect | str) -> str:
        """The condition, parenthesized, in the dialect's spelling (`"0 = 1"` when it admits nothing). With a
        `flag`: `index_sql` (the partial index's WHERE, which the read must hold as one of its terms for the
        database to walk that index), and the row's bit or, for a row without bits, `texts_sql`."""
        if not self.flag:
            return self.texts_sql(dialect)
        return f"({self.index_sql(dialect)} AND ((read_by & {int(self.flag)}) <> 0 OR {self.texts_sql(dialect)}))"

    def index_sql(self, dialect: Dialect | str) -> str:
        """The WHERE of the partial index a read of this filter walks (migrations 0012, 0016): with a `flag`,
        the rows with its bit and the rows without bits, a test so cheap that an insert hardly pays it."""
        if not self.flag:
            return self.texts_sql(dialect)
        return f"((read_by & {int(self.flag)}) <> 0 OR read_by IS NULL)"

    def texts_sql(self, dialect: Dialect | str) -> str:
        """The condition on the stored texts alone (what a flag's bit stands for)."""
        find = dialect_of(dialect).find
        terms = []
        if self.types:
            terms.append(f"type IN ({', '.join(_literal(t) for t in sorted(set(self.types)))})")
        if self.first_events:
            terms.append("seq = 1")
        terms += [f"{find}(result, {_literal(m)}) > 0" for m in sorted(set(self.result_marks))]
        terms += [f"{find}(data, {_literal(m)}) > 0" for m in sorted(set(self.data_marks))]
        return f"({' OR '.join(terms) or '0 = 1'})"

    def admits(self, kind: str, seq: int, data: str, result: str) -> bool:
        """Whether the SQL condition holds for an event with these stored values."""
        return (
            kind in self.types
            or (self.first_events and seq == 1)
            or any(mark in result for mark in self.result_marks)
            or any(mark in data for mark in self.data_marks)
        )


#: the columns of a PostgreSQL page statement's rows: a flag (0: a page row; else one of the statement's own
#: rows, which come last), then `read_texts`'s columns
_FLAGGED = f"h, {_TEXTS}"
#: a statement's own row, after the page's (its `xact_id` is NULL, which sorts last), flag 1: the head in the
#: `position` column; for `_pg_checkpointed`, the rows its move changed in `seq` and the checkpoint it read in `hand`
_OWN_ROW = "NULL::xid8, 1, {head}, NULL, {moved}, {mark}, NULL, NULL, NULL, NULL"


def _pg_page(cursor: str, where: str) -> str:
    """The page of `where` after the position `cursor` (an SQL expression), below the horizon, in log order: the
    rows `read_filtered` returns, with their `xact_id` first (for the order) and the flag 0 of `_FLAGGED`."""
    return (
        f"(SELECT xact_id, 0 AS h, {_TEXTS} FROM event WHERE (xact_id, position) > "
        f"(COALESCE((SELECT xact_id FROM event WHERE position <= {cursor} ORDER BY position DESC LIMIT 1), "
        f"'0'::xid8), {cursor}) AND xact_id < {HORIZON} AND {where} ORDER BY xact_id, position LIMIT %s)"
    )


#: the last event below the horizon
_PG_TOP = f"(SELECT position FROM event WHERE xact_id < {HORIZON} ORDER BY xact_id DESC, position DESC LIMIT 1)"


def _pg_filtered(where: str) -> str:
    """PostgreSQL: a filtered page below the horizon (flag 0) and, last, the last event below that same horizon
    (flag 1, its position in the `position` column), in one statement so that both see one snapshot:
    `(flag, position, game_id, seq, ...)`. Ordered by the database (`xact_id`, the statement's own row's NULL
    sorting last), which sorts nothing: the partial index gives the page's rows in `(xact_id, position)` order,
    the scan stops at the limit, and a merge of that with the one row keeps it; the reader slices the rows off
    the end instead of sorting them again (a Python sort with a key cost as much as the rest of the bare read)."""
    return (
        f"SELECT {_FLAGGED} FROM ({_pg_page('%s', where)} "
        f"UNION ALL SELECT {_OWN_ROW.format(head=_PG_TOP, moved='NULL', mark='NULL')}) AS page "
        "ORDER BY xact_id, position"
    )


def _pg_checkpointed(where: str) -> str:
    """PostgreSQL: `_pg_filtered` from a read model's own checkpoint, read in the same statement, and the
    checkpoint moved to the head by the same statement when the page holds nothing (an event the read model
    needs nothing of: most appends, for each read model): one round trip where the checkpoint's read, the
    page's and the move took three. Parameters `(name, limit, updated_at, name)`; rows as `_pg_filtered`'s
    (flag 0: the page; flag 1, last: the head, with the rows the move changed in the `seq` column and the
    checkpoint read in the `hand` column, NULL when the read model never ran).

    One statement, so one snapshot: the checkpoint, the page and the head are read below one horizon, the
    argument of the module docstring unchanged. The move is guarded like `tracking.move_checkpoint`'s (the
    row still at the position this statement read: a process that moved it meanwhile, and committed, is
    seen by the UPDATE's recheck of the row, and nothing is moved), and commits unsynced like
    `tracking.advance`'s (`set_config(..., true)` is `SET LOCAL`, for this statement's own transaction in
    autocommit). A page with rows moves nothing: the read model writes its rows and the move together.
    The page comes first, in log order, ordered by the statement (`_pg_filtered`'s order; PostgreSQL sorts the
    page it has kept for the move's test once more, where it numbered its rows before), and the reader slices
    off the statement's own row.
    """
    at, head, mark = "(SELECT position FROM at_mark)", "(SELECT position FROM head)", "(SELECT position FROM mark)"
    own = _OWN_ROW.format(head=head, moved="(SELECT count(*) FROM moved)", mark=mark)
    return (
        "WITH mark AS (SELECT position FROM projection_checkpoint WHERE name = %s), "
        "at_mark AS (SELECT COALESCE((SELECT position FROM mark), 0) AS position), "
        f"page AS {_pg_page(at, where)}, "
        f"head AS {_PG_TOP}, "
        "moved AS (UPDATE projection_checkpoint SET position = head.position, updated_at = %s "
        "FROM mark, head, (SELECT set_config('synchronous_commit', 'off', true)) AS unsynced "
        "WHERE projection_checkpoint.name = %s AND projection_checkpoint.position = mark.position "
        "AND head.position <> mark.position AND NOT EXISTS (SELECT FROM page) RETURNING 1) "
        f"SELECT {_FLAGGED} FROM (SELECT * FROM page UNION ALL SELECT {own}) AS rows ORDER BY xact_id, position"
    )


@dataclass(frozen=True, slots=True)
class CheckpointPage:
    """A read model's page read from its checkpoint (`LogReader.read_checkpointed`).

    `old`: the checkpoint as read (0 when the read model never ran); `upto` and `rows`: `read_filtered`'s
    answer from there; `moved`: the read itself moved the checkpoint from `old` to `upto` (the page held
    nothing for the read model, so it has nothing to write with the move).
    """

    old: int
    upto: int
    rows: list[tuple[Any, ...]]
    moved: bool = False


def _upto(found: Sequence[Sequence[Any]], after: int, limit: int) -> tuple[int, list[tuple[Any, ...]]]:
    """`read_filtered`'s answer from the rows of `_pg_filtered` (or `_pg_checkpointed`): the page's rows in log
    order (the statement's own, last, sliced off), and where the checkpoint may go: the last row's position when
    the page is full, else the head."""
    own = len(found)
    while own and found[own - 1][0] != 0:
        own -= 1
    rows = [tuple(row[1:]) for row in found[:own]]
    heads = [int(row[1]) for row in found[own:] if row[0] == 1 and row[1] is not None]
    if len(rows) == limit:
        return int(rows[-1][0]), rows
    return (heads[0] if heads else after), rows


class LogReader:
    """Reads the global order (see the module docstring for why it never skips an event)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        #: Test-only: TABLEBOOK_LOG_HORIZON=off reads by position alone (see the module docstring).
        self.horizon = db.dialect.log_horizon and os.environ.get("TABLEBOOK_LOG_HORIZON", "on") != "off"
        self._plain = db.sql(_PLAIN_READ)
        self._plain_texts = db.sql(_PLAIN_TEXTS)
        self._head = db.sql("SELECT MAX(position) FROM event")
        self._checkpoint = db.sql("SELECT position FROM projection_checkpoint WHERE name = ?")
        self._checkpoint_and_head = db.sql(
            "SELECT (SELECT position FROM projection_checkpoint WHERE name = ?), (SELECT MAX(position) FROM event)"
        )
        #: each filter's statements, made once (a filter's SQL text costs more to make than a catch-up's Python)
        self._filtered: dict[LogFilter | None, str] = {}
        self._checkpointed: dict[LogFilter | None, str] = {}

    def read_positions(self, after: int = 0, limit: int = 1000) -> list[tuple[int, str, Envelope]]:
        """`(position, game_id, envelope)` of the events after the one at position `after`, in log order.

        `after` is 0 (from the start) or the position of the last event a previous call returned.
        """
        if after >= MAX_POSITION or limit <= 0:
            return []
        after, limit = clamp(after, MAX_POSITION), min(limit, MAX_POSITION)
        if self.horizon:
            rows = self.db.rows(_PG_READ, (after, after, limit))
        else:
            rows = self.db.rows(self._plain, (after, limit))
        return [(int(row[0]), str(row[1]), envelope_from_values(row[2:])) for row in rows]

    def read_texts(self, after: int = 0, limit: int = 1000) -> list[tuple[Any, ...]]:
        """`read_positions` for a reader that decodes few events: `(position, game_id, seq, hand, type, data,
        result, recorded_at)` with `data` and `result` as their stored JSON text, in the same order and
        with the same guarantee (a read model that needs only the events that settle something)."""
        if after >= MAX_POSITION or limit <= 0:
            return []
        after, limit = clamp(after, MAX_POSITION), min(limit, MAX_POSITION)
        if self.horizon:
            return [tuple(row) for row in self.db.rows(_PG_TEXTS, (after, after, limit))]
        return [tuple(row) for row in self.db.rows(self._plain_texts, (after, limit))]

    def read_filtered(self, after: int, limit: int, only: LogFilter | None) -> tuple[int, list[tuple[Any, ...]]]:
        """`(upto, rows)`: the first `limit` events after the one at position `after`, in log order, that
        `only` admits (None: every event), as `read_texts` rows; `upto` is where a reader may put its
        checkpoint, having been shown every event it needs up to there: the last row's position when the
        page is full, else the last event readable now (the events between are ones `only` leaves out).
        The same guarantee as `read_positions`: on PostgreSQL the rows and that head are read in one
        statement, so below one horizon; on SQLite the head is read first and the rows up to it (one
        writer commits in order).

        The filter's SQL is the WHERE of a partial index (migrations 0012, 0016) when it is one of the read
        models' (`projections/readmodels/hand_facts.py`, `projections/readmodels/ratings/`): the read
        walks that index only.
        """
        if after >= MAX_POSITION or limit <= 0:
            return after, []
        after, limit = clamp(after, MAX_POSITION), min(limit, MAX_POSITION)
        query = self.filtered_sql(only)
        if self.horizon:
            found = self.db.rows(query, (after, after, limit))
            return _upto(found, after, limit)
        head = self.db.rows(self._head, ())
        return self._plain_page(query, after, int(head[0][0] or 0), limit)

    def _plain_page(self, query: str, after: int, top: int, limit: int) -> tuple[int, list[tuple[Any, ...]]]:
        """`read_filtered` without the horizon (SQLite: one writer commits in order): the rows up to `top`, the
        head read before them."""
        if top <= after:
            return after, []
        rows = [tuple(row) for row in self.db.rows(query, (after, top, limit))]
        return (int(rows[-1][0]) if len(rows) == limit else top), rows

    def read_checkpointed(self, name: str, limit: int, only: LogFilter | None) -> CheckpointPage:
        """`read_filtered` from the checkpoint `name` (`projection_checkpoint`, a read model's), with the
        checkpoint read by the same statement: what a read model's catch-up reads first.

        PostgreSQL (below the horizon): one statement (`_pg_checkpointed`), which also moves the checkpoint to
        the head when the page holds nothing (`moved`): a catch-up of events the read model needs nothing of is
        that one round trip. SQLite: the checkpoint and the head in one statement, then the page up to that head
        (no write: SQLite's writes queue behind `one_writer`, and the read model moves its checkpoint itself).
        """
        limit = min(max(limit, 1), MAX_POSITION)
        if self.horizon:
            statement = self._checkpointed.get(only)
            if statement is None:
                statement = self._checkpointed[only] = _pg_checkpointed(self._condition(only))
            found = self.db.rows(statement, (name, limit, utc_now(), name))
            own = found[-1]  # the statement's own row, after the page's: the head, the rows moved, the checkpoint
            old = int(own[4] or 0)
            upto, rows = _upto(found, old, limit)
            moved = bool(own[3])
            return CheckpointPage(old, upto, rows, moved)
        found = self.db.rows(self._checkpoint_and_head, (name,))
        old, top = int(found[0][0] or 0), int(found[0][1] or 0)
        if old >= MAX_POSITION:
            return CheckpointPage(old, old, [])
        upto, rows = self._plain_page(self.filtered_sql(only), old, top, limit)
        return CheckpointPage(old, upto, rows)

    def checkpoint(self, name: str) -> int:
        """The position of the checkpoint `name` in this database (0: the read model never ran)."""
        found = self.db.rows(self._checkpoint, (name,))
        return int(found[0][0] or 0) if found else 0

    def filtered_sql(self, only: LogFilter | None) -> str:
        """The statement `read_filtered` runs: with the horizon `(after, after, limit)`, else `(after, upto, limit)`."""
        statement = self._filtered.get(only)
        if statement is None:
            where = self._condition(only)
            statement = self._filtered[only] = (
                _pg_filtered(where)
                if self.horizon
                else self.db.sql(
                    f"SELECT {_TEXTS} FROM event WHERE position > ? AND position <= ? AND {where} "
                    "ORDER BY position LIMIT ?"
                )
            )
        return statement

    def _condition(self, only: LogFilter | None) -> str:
        if len(self._filtered) + len(self._checkpointed) > 64:  # statements of filters made on the fly: kept few
            self._filtered.clear()
            self._checkpointed.clear()
        return only.sql(self.db.dialect) if only is not None else "(1 = 1)"

    def head_position(self) -> int:
        """The position of the last event in log order that a reader can read now (0: none)."""
        if self.horizon:
            rows = self.db.rows(_PG_HEAD, ())
            return int(rows[0][0]) if rows else 0
        with self.db.engine.connect() as conn:
            return int(conn.execute(select(func.coalesce(func.max(EVENTS.c.position), 0))).scalar_one())

    def iter_typed_events(
        self, types: Sequence[str], game_ids: Sequence[str] | None = None, batch: int = 1000
    ) -> Iterator[tuple[str, Envelope]]:
        """`(game_id, envelope)` of every event of these types committed when each page is read, by position.

        A scan of what is there (erasure's search for notes), not a follower: it keeps no cursor in the log.
        """
        after = 0
        while True:
            query = select(EVENTS.c.position, EVENTS.c.game_id, *ENVELOPE_COLUMNS).where(
                EVENTS.c.type.in_(list(types)), EVENTS.c.position > after
            )
            if game_ids is not None:
                query = query.where(EVENTS.c.game_id.in_(list(game_ids)))
            with self.db.engine.connect() as conn:
                page = list(conn.execute(query.order_by(EVENTS.c.position).limit(batch)))
            for row in page:
                yield row.game_id, envelope_from_row(row)
            if len(page) < batch:
                return
            after = page[-1].position
