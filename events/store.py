"""The append-only event store, the same code on SQLite and PostgreSQL.

The hot path (append, read a stream) uses SQLAlchemy Core statements on the
tables of `events/tables.py`, not ORM sessions. Guarantees:

- append-only: database triggers (created by the migrations) refuse UPDATE
  and DELETE on `event`;
- optimistic concurrency: an append names the head seq it builds on; the
  game row's head is moved with `WHERE seq = :old`, and the unique
  `(game_id, seq)` key is the backstop, so two racing appends never both land;
- all or nothing: a batch is one transaction;
- idempotency: an `append_request` row per Idempotency-Key, checked inside
  the append's transaction;
- gapless global order: on PostgreSQL every append takes one transaction-level
  advisory lock, so `position`s commit in increasing order; SQLite has one
  writer (`BEGIN IMMEDIATE`);
- durability: an acknowledged append is on disk. `make_engine` runs SQLite in
  WAL mode with `synchronous=FULL` (the WAL is fsynced at every commit;
  `fullfsync` too, which matters on macOS only), and sets PostgreSQL's
  `synchronous_commit=on` on every connection, so a server or database
  configured with it off does not weaken the promise. `TABLEBOOK_DURABILITY`
  trades it away: `full` (the default) or `fast` (SQLite `synchronous=NORMAL`,
  PostgreSQL `synchronous_commit=off`), which is faster per commit and may lose
  the last acknowledged events on power loss or an OS crash (PostgreSQL: also
  when its server crashes), whole transactions only, never half of one.

Two switches exist for the reliability tests only (tests/reliability), read
from the environment when a Store is made; neither is ever set in production:

- `TABLEBOOK_APPEND_LOCK=off` takes the PostgreSQL append lock out, to
  reproduce the gap a catch-up reader skips without it;
- `TABLEBOOK_TEST_COMMIT_DELAY_MS=A` or `A-B` sleeps A (or uniformly A to B)
  milliseconds inside every append transaction, after its rows are written
  and before the commit: it widens the window in which transactions commit
  out of position order (the gap above), and in which a kill -9 lands in the
  middle of a transaction (tests/reliability/test_crashes.py).
"""

from __future__ import annotations

import os
import random
import secrets
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, func, insert, select, update
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.pool import NullPool

from events.codec import dumps, loads, utc_now
from events.envelope import Envelope
from events.errors import NotFoundError, StreamConflictError, TablebookError
from events.tables import ApiKey, AppendRequest, Club, Event, Game, Snapshot, SnapshotHand

DEFAULT_URL = "sqlite:///./data/tablebook.db"
#: the key of the PostgreSQL advisory lock that orders all appends
APPEND_LOCK = 0x7AB1EB00C
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


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A game's registry row."""

    id: str
    club_id: int
    kind: str
    players: tuple[str, ...]
    options: dict[str, Any]
    created_at: str
    updated_at: str
    genesis_hash: str
    seq: int
    hand: int
    status: str
    totals: dict[str, Any]
    winner: int | None
    head_hash: str


@dataclass(frozen=True, slots=True)
class KeyRecord:
    """An API key's row (the secret itself is never stored)."""

    id: str
    club_id: int
    club: str
    role: str
    key_hash: str
    label: str
    created_at: str
    revoked_at: str | None


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


def new_id(prefix: str = "", nbytes: int = 6) -> str:
    """A short random id (hex)."""
    return prefix + secrets.token_hex(nbytes)


#: the values of TABLEBOOK_DURABILITY (see the module docstring); the first is the default
DURABILITY_MODES = ("full", "fast")


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


def make_engine(url: str, durability: str | None = None) -> Engine:
    """An engine with the pragmas and transaction behaviour the store relies on.

    `durability` is `"full"` or `"fast"` (see the module docstring); None reads TABLEBOOK_DURABILITY.

    Raises:
        ValueError: `durability` (or TABLEBOOK_DURABILITY) is neither.
    """
    full = durability_from(durability) == "full"
    if url.startswith("sqlite"):
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
    if url.startswith("postgresql"):
        if make_url(url).get_driver_name() == "psycopg" and find_spec("psycopg") is None:
            raise TablebookError("PostgreSQL needs the psycopg driver, not installed: pip install -e '.[postgres]'")
        # set on every connection (libpq `options`), after any `options` of the URL, so neither the
        # server's, the database's or the role's configuration nor the URL can turn it off unseen
        given = make_url(url).query.get("options", ())
        options = [given] if isinstance(given, str) else list(given)
        options.append(f"-c synchronous_commit={'on' if full else 'off'}")
        return create_engine(
            url, connect_args={"options": " ".join(options)}, pool_size=10, max_overflow=20, pool_pre_ping=True
        )
    return create_engine(url, poolclass=NullPool)


def _game_record(row: Any) -> GameRecord:
    return GameRecord(
        id=row.id,
        club_id=row.club_id,
        kind=row.kind,
        players=tuple(loads(row.players)),
        options=loads(row.options),
        created_at=row.created_at,
        updated_at=row.updated_at,
        genesis_hash=row.genesis_hash,
        seq=row.seq,
        hand=row.hand,
        status=row.status,
        totals=loads(row.totals),
        winner=row.winner,
        head_hash=row.head_hash,
    )


def envelope_from_row(row: Any) -> Envelope:
    """A stored row (selected with `_EVENT_COLUMNS`) back into its envelope (the exact dict that was hashed)."""
    return _raw_envelope(
        (
            row.seq,
            row.hand,
            row.type,
            row.data,
            row.recorded_at,
            row.actor,
            row.result,
            row.violation,
            row.prev_hash,
            row.hash,
        )
    )


_EVENT_COLUMNS = (
    EVENTS.c.seq,
    EVENTS.c.hand,
    EVENTS.c.type,
    EVENTS.c.data,
    EVENTS.c.recorded_at,
    EVENTS.c.actor,
    EVENTS.c.result,
    EVENTS.c.violation,
    EVENTS.c.prev_hash,
    EVENTS.c.hash,
)


# The append path and stream reads go through the engine's raw DBAPI connection
# with fixed SQL: building, compiling and executing a Core statement costs more
# than the SQLite insert itself. Parameters use each driver's own style.
_EVENT_FIELDS = (
    "game_id",
    "seq",
    "hand",
    "type",
    "data",
    "result",
    "violation",
    "recorded_at",
    "actor",
    "prev_hash",
    "hash",
)
_SQL = {
    "move_head": "UPDATE game SET seq = {p}, hand = {p}, status = {p}, totals = {p}, winner = {p}, head_hash = {p}, "
    "updated_at = {p} WHERE id = {p} AND seq = {p}",
    "head_seq": "SELECT seq FROM game WHERE id = {p}",
    "insert_event": f"INSERT INTO event ({', '.join(_EVENT_FIELDS)}) VALUES ({', '.join(['{p}'] * 11)})",
    "find_request": "SELECT body_hash, first_seq, last_seq FROM append_request WHERE game_id = {p} "
    "AND idempotency_key = {p}",
    "insert_request": "INSERT INTO append_request (game_id, idempotency_key, body_hash, first_seq, last_seq, "
    "created_at) VALUES ({p}, {p}, {p}, {p}, {p}, {p})",
    "find_key": "SELECT api_key.id, api_key.club_id, club.name, api_key.role, api_key.key_hash, api_key.label, "
    "api_key.created_at, api_key.revoked_at FROM api_key JOIN club ON club.id = api_key.club_id WHERE api_key.id = {p}",
    "read_events": "SELECT seq, hand, type, data, recorded_at, actor, result, violation, prev_hash, hash FROM event "
    "WHERE game_id = {p} AND seq > {p} AND seq <= {p} ORDER BY seq LIMIT {p}",
    # SQLite, without statistics, would take MIN(seq) from the (game_id, seq) key and walk the whole game
    # from seq 1 (1.3 ms at 10,000 events); the hand index finds it among the last hands' rows
    "first_seq_from_hand": "SELECT MIN(seq) FROM event {by_hand} WHERE game_id = {p} AND hand >= {p} AND seq <= {p}",
}


def _raw_sql(dialect: str) -> dict[str, str]:
    placeholder = "%s" if dialect == "postgresql" else "?"
    by_hand = "" if dialect == "postgresql" else "INDEXED BY ix_event_game_hand_seq"
    return {name: sql.replace("{p}", placeholder).replace("{by_hand}", by_hand) for name, sql in _SQL.items()}


def event_row(game_id: str, env: Envelope) -> dict[str, Any]:
    """The `event` table row of an envelope: JSON payloads as canonical text."""
    return {
        "game_id": game_id,
        "seq": env["seq"],
        "hand": env["hand"],
        "type": env["type"],
        "data": dumps(env["data"]),
        "result": dumps(env["result"]),
        "violation": dumps(env["violation"]) if "violation" in env else None,
        "recorded_at": env["recorded_at"],
        "actor": env["actor"],
        "prev_hash": env["prev_hash"],
        "hash": env["hash"],
    }


def _raw_envelope(row: Sequence[Any]) -> Envelope:
    seq, hand, kind, data, recorded_at, actor, result, violation, prev_hash, hash_ = row
    envelope: Envelope = {
        "seq": seq,
        "hand": hand,
        "type": kind,
        "data": loads(data),
        "recorded_at": recorded_at,
        "actor": actor,
        "result": loads(result),
        "prev_hash": prev_hash,
    }
    if violation is not None:
        envelope["violation"] = loads(violation)
    envelope["hash"] = hash_
    return envelope


class Store:
    """All reads and writes of the database."""

    def __init__(self, url: str = DEFAULT_URL, engine: Engine | None = None) -> None:
        self.url = url
        self.engine = engine or make_engine(url)
        self.dialect = self.engine.dialect.name
        self._sql = _raw_sql(self.dialect)
        #: Test-only: TABLEBOOK_APPEND_LOCK=off takes the PostgreSQL append lock out, to reproduce
        #: the gap a catch-up reader can skip without it (tests/reliability). Never in production.
        self.append_lock = os.environ.get("TABLEBOOK_APPEND_LOCK", "on") != "off"
        #: Test-only: a sleep inside every append transaction (see the module docstring).
        self.commit_delay = commit_delay_from(os.environ.get("TABLEBOOK_TEST_COMMIT_DELAY_MS", ""))
        self._integrity_error: type[Exception] = self.engine.dialect.loaded_dbapi.IntegrityError

    def dispose(self) -> None:
        self.engine.dispose()

    def _write(self) -> Any:
        """A write transaction: BEGIN IMMEDIATE on SQLite, the append lock on PostgreSQL."""
        return self.engine.connect().execution_options(write=True)

    # ------------------------------------------------------------------ clubs and keys

    def ensure_club(self, name: str) -> int:
        """The id of the club called `name`, created if needed."""
        with self._write() as conn, conn.begin():
            found = conn.execute(select(CLUBS.c.id).where(CLUBS.c.name == name)).scalar()
            if found is not None:
                return int(found)
            return int(
                conn.execute(insert(CLUBS).values(name=name, created_at=utc_now()).returning(CLUBS.c.id)).scalar_one()
            )

    def club_name(self, club_id: int) -> str:
        with self.engine.connect() as conn:
            name = conn.execute(select(CLUBS.c.name).where(CLUBS.c.id == club_id)).scalar()
        if name is None:
            raise NotFoundError(f"no club {club_id}")
        return str(name)

    def clubs(self) -> dict[str, int]:
        """Every club, name -> id, in the order they were created."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(CLUBS.c.id, CLUBS.c.name).order_by(CLUBS.c.id))
            return {row.name: int(row.id) for row in rows}

    def add_key(self, *, key_id: str, club_id: int, role: str, key_hash: str, label: str = "") -> None:
        with self._write() as conn, conn.begin():
            conn.execute(
                insert(KEYS).values(
                    id=key_id, club_id=club_id, role=role, key_hash=key_hash, label=label, created_at=utc_now()
                )
            )

    def find_key(self, key_id: str) -> KeyRecord | None:
        """A key by its public id (every request asks: the raw path keeps it cheap)."""
        raw = self.engine.raw_connection()
        try:
            cursor = raw.cursor()
            cursor.execute(self._sql["find_key"], (key_id,))
            row = cursor.fetchone()
            cursor.close()
            raw.rollback()
        finally:
            raw.close()
        return None if row is None else KeyRecord(*row)

    def list_keys(self, club: str | None = None) -> list[KeyRecord]:
        query = select(KEYS, CLUBS.c.name.label("club")).join(CLUBS, CLUBS.c.id == KEYS.c.club_id)
        if club is not None:
            query = query.where(CLUBS.c.name == club)
        with self.engine.connect() as conn:
            return [_key_record(row) for row in conn.execute(query.order_by(KEYS.c.created_at))]

    def revoke_key(self, key_id: str) -> bool:
        """Revoke a key; False if there is no such key or it was revoked already."""
        with self._write() as conn, conn.begin():
            done = conn.execute(
                update(KEYS).where(KEYS.c.id == key_id, KEYS.c.revoked_at.is_(None)).values(revoked_at=utc_now())
            )
            return bool(done.rowcount)

    # ------------------------------------------------------------------ games

    def create_game(
        self,
        *,
        club_id: int,
        kind: str,
        players: Sequence[str],
        options: Mapping[str, Any],
        created_at: str,
        genesis_hash: str,
        totals: Mapping[str, Any],
        game_id: str | None = None,
    ) -> GameRecord:
        gid = game_id or new_id("g")
        row = {
            "id": gid,
            "club_id": club_id,
            "kind": kind,
            "players": dumps(list(players)),
            "options": dumps(dict(options)),
            "created_at": created_at,
            "updated_at": created_at,
            "genesis_hash": genesis_hash,
            "seq": 0,
            "hand": 0,
            "status": "live",
            "totals": dumps(dict(totals)),
            "winner": None,
            "head_hash": genesis_hash,
        }
        with self._write() as conn, conn.begin():
            conn.execute(insert(GAMES).values(**row))
        return self.get_game(gid)

    def get_game(self, game_id: str, club_id: int | None = None) -> GameRecord:
        """A game, only if it belongs to `club_id` (when given).

        Raises:
            NotFoundError: no such game in that club (another club's game is not found either).
        """
        query = select(GAMES).where(GAMES.c.id == game_id)
        if club_id is not None:
            query = query.where(GAMES.c.club_id == club_id)
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        if row is None:
            raise NotFoundError(f"no game {game_id!r}")
        return _game_record(row)

    def list_games(
        self,
        club_id: int,
        *,
        kind: str | None = None,
        status: str | None = None,
        player: str | None = None,
        winner: int | None = None,
        since: str | None = None,
        until: str | None = None,
        ids: Sequence[str] | None = None,
        limit: int = 50,
        before: tuple[str, str] | None = None,
    ) -> list[GameRecord]:
        """Games of a club, newest first; `before` is the (created_at, id) keyset cursor."""
        query = select(GAMES).where(GAMES.c.club_id == club_id)
        if kind is not None:
            query = query.where(GAMES.c.kind == kind)
        if status is not None:
            query = query.where(GAMES.c.status == status)
        if winner is not None:
            query = query.where(GAMES.c.winner == winner)
        if since is not None:
            query = query.where(GAMES.c.created_at >= since)
        if until is not None:
            query = query.where(GAMES.c.created_at < until)
        if ids is not None:
            query = query.where(GAMES.c.id.in_(list(ids)))
        if player is not None:
            query = query.where(GAMES.c.players.contains(dumps(player), autoescape=True))
        if before is not None:
            created, gid = before
            query = query.where((GAMES.c.created_at < created) | ((GAMES.c.created_at == created) & (GAMES.c.id < gid)))
        query = query.order_by(GAMES.c.created_at.desc(), GAMES.c.id.desc()).limit(limit)
        with self.engine.connect() as conn:
            records = [_game_record(row) for row in conn.execute(query)]
        if player is not None:  # the LIKE above may match inside another name's JSON
            records = [r for r in records if player in r.players]
        return records

    def game_ids(self) -> list[str]:
        with self.engine.connect() as conn:
            return [row[0] for row in conn.execute(select(GAMES.c.id).order_by(GAMES.c.created_at, GAMES.c.id))]

    def set_players(self, game_id: str, players: Sequence[str]) -> None:
        """Replace a game's player names (erasure): names are not in any hash."""
        with self._write() as conn, conn.begin():
            conn.execute(update(GAMES).where(GAMES.c.id == game_id).values(players=dumps(list(players))))

    # ------------------------------------------------------------------ events

    def read_events(
        self, game_id: str, after: int = 0, limit: int | None = None, *, upto: int | None = None
    ) -> list[Envelope]:
        """A game's envelopes with `after < seq <= upto`, in seq order, at most `limit` of them.

        `upto` is the head a reader decided visibility at: events appended since are left for its next read.
        """
        if after >= MAX_SEQ or (limit is not None and limit <= 0):
            return []  # nothing is above the largest seq; and SQLite refuses integers over 64 bits
        limit = min(limit, MAX_SEQ) if limit is not None else MAX_SEQ
        upto = MAX_SEQ if upto is None else max(min(upto, MAX_SEQ), -1)
        return [_raw_envelope(row) for row in self._fetch("read_events", (game_id, max(after, -1), upto, limit))]

    def first_seq_from_hand(self, game_id: str, hand: int, upto: int) -> int | None:
        """The lowest seq at or below `upto` recorded in hand `hand` or a later one (None: there is none).

        A hand above the head's hand is one that was begun and then retracted; see `api/visibility.py`.
        """
        rows = self._fetch("first_seq_from_hand", (game_id, max(min(hand, MAX_SEQ), -1), max(min(upto, MAX_SEQ), -1)))
        return None if not rows or rows[0][0] is None else int(rows[0][0])

    def _fetch(self, name: str, params: Sequence[Any]) -> list[Any]:
        """The rows of one of the fixed raw statements (`_SQL`)."""
        return self._rows(self._sql[name], params)

    def _rows(self, sql: str, params: Sequence[Any]) -> list[Any]:
        """The rows of a raw statement in the driver's own placeholder style, read on the raw connection."""
        raw = self.engine.raw_connection()
        try:
            cursor = raw.cursor()
            cursor.execute(sql, tuple(params))
            rows = cursor.fetchall()
            cursor.close()
            raw.rollback()
        finally:
            raw.close()
        return list(rows)

    def iter_events(self, game_id: str, batch: int = 1000, *, upto: int | None = None) -> Iterator[Envelope]:
        """A game's envelopes in seq order (up to seq `upto`), read in pages (constant memory)."""
        after = 0
        while True:
            page = self.read_events(game_id, after, batch, upto=upto)
            yield from page
            if len(page) < batch:
                return
            after = page[-1]["seq"]

    def read_positions(self, after: int = 0, limit: int = 1000) -> list[tuple[int, str, Envelope]]:
        """Events of every game in global `position` order: (position, game_id, envelope)."""
        if after >= MAX_POSITION:
            return []
        query = (
            select(EVENTS.c.position, EVENTS.c.game_id, *_EVENT_COLUMNS)
            .where(EVENTS.c.position > after)
            .order_by(EVENTS.c.position)
            .limit(min(limit, MAX_POSITION))
        )
        with self.engine.connect() as conn:
            return [(row.position, row.game_id, envelope_from_row(row)) for row in conn.execute(query)]

    def head_position(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.coalesce(func.max(EVENTS.c.position), 0))).scalar_one())

    def find_request(self, game_id: str, key: str) -> PriorRequest | None:
        query = select(REQUESTS).where(REQUESTS.c.game_id == game_id, REQUESTS.c.idempotency_key == key)
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return None if row is None else PriorRequest(row.body_hash, row.first_seq, row.last_seq)

    def append(
        self,
        game_id: str,
        envelopes: Sequence[Envelope],
        *,
        base_seq: int,
        head: Head,
        idempotency: tuple[str, str] | None = None,
    ) -> None:
        """Append a batch on top of `base_seq`, all or nothing.

        Raises:
            StreamConflictError: the game's head is not at `base_seq` (with the actual seq).
            DuplicateRequest: the Idempotency-Key has landed already (nothing written).
        """
        rows = [event_row(game_id, env) for env in envelopes]
        now = envelopes[-1]["recorded_at"] if envelopes else utc_now()
        sql = self._sql
        raw = self.engine.raw_connection()
        cursor = raw.cursor()
        try:
            if self.dialect == "sqlite":
                cursor.execute("BEGIN IMMEDIATE")
            elif self.append_lock:
                cursor.execute(f"SELECT pg_advisory_xact_lock({APPEND_LOCK})")
            if idempotency is not None:
                cursor.execute(sql["find_request"], (game_id, idempotency[0]))
                prior = cursor.fetchone()
                if prior is not None:
                    raise DuplicateRequest(PriorRequest(prior[0], prior[1], prior[2]))
            cursor.execute(
                sql["move_head"],
                (
                    head.seq,
                    head.hand,
                    head.status,
                    dumps(dict(head.totals)),
                    head.winner,
                    head.head_hash,
                    now,
                    game_id,
                    base_seq,
                ),
            )
            if cursor.rowcount != 1:
                cursor.execute(sql["head_seq"], (game_id,))
                found = cursor.fetchone()
                if found is None:
                    raise NotFoundError(f"no game {game_id!r}")
                raise StreamConflictError(base_seq, int(found[0]))
            if rows:
                cursor.executemany(sql["insert_event"], [tuple(r[f] for f in _EVENT_FIELDS) for r in rows])
            if idempotency is not None:
                first = rows[0]["seq"] if rows else base_seq
                last = rows[-1]["seq"] if rows else base_seq
                cursor.execute(sql["insert_request"], (game_id, idempotency[0], idempotency[1], first, last, now))
            if self.commit_delay is not None:
                time.sleep(random.uniform(*self.commit_delay))
            raw.commit()
        except self._integrity_error as exc:
            raw.rollback()
            raise StreamConflictError(base_seq, self.get_game(game_id).seq) from exc
        except BaseException:
            raw.rollback()
            raise
        finally:
            cursor.close()
            raw.close()

    # ------------------------------------------------------------------ imports, bulk export, read models, erasure
    # (issue 8: hand histories). Everything below is generic: rows in, rows out; the rules are elsewhere.

    @staticmethod
    def _fact_tables() -> tuple[Any, Any]:
        from events.tables import HandFact, ProjectionCheckpoint

        return HandFact.__table__, ProjectionCheckpoint.__table__  # type: ignore[attr-defined]

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
    ) -> GameRecord:
        """Register a game and write its already verified envelopes, exactly as given, in one transaction.

        All or nothing: the registry row and every event land together or not at all. On
        PostgreSQL the append lock is taken as for any append, so the global order stays gapless.
        """
        gid = game_id or new_id("g")
        updated = envelopes[-1]["recorded_at"] if envelopes else created_at
        game_row = {
            "id": gid,
            "club_id": club_id,
            "kind": kind,
            "players": dumps(list(players)),
            "options": dumps(dict(options)),
            "created_at": created_at,
            "updated_at": updated,
            "genesis_hash": genesis_hash,
            "seq": head.seq,
            "hand": head.hand,
            "status": head.status,
            "totals": dumps(dict(head.totals)),
            "winner": head.winner,
            "head_hash": head.head_hash,
        }
        event_rows = [event_row(gid, env) for env in envelopes]
        with self._write() as conn, conn.begin():
            if self.dialect == "postgresql" and self.append_lock:
                conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({APPEND_LOCK})")
            conn.execute(insert(GAMES).values(**game_row))
            for start in range(0, len(event_rows), 1000):
                conn.execute(insert(EVENTS), event_rows[start : start + 1000])
        return self.get_game(gid)

    def iter_games(
        self,
        *,
        club_id: int | None = None,
        kind: str | None = None,
        ids: Sequence[str] | None = None,
        since: str | None = None,
        until: str | None = None,
        after: tuple[str, str] | None = None,
        batch: int = 200,
    ) -> Iterator[GameRecord]:
        """Games oldest first by `(created_at, id)`, read in keyset pages (constant memory).

        `after` is the `(created_at, id)` of the last game already seen: a resumable cursor that
        new games (created later) never shift.
        """
        last = after
        while True:
            query = select(GAMES)
            if club_id is not None:
                query = query.where(GAMES.c.club_id == club_id)
            if kind is not None:
                query = query.where(GAMES.c.kind == kind)
            if ids is not None:
                query = query.where(GAMES.c.id.in_(list(ids)))
            if since is not None:
                query = query.where(GAMES.c.created_at >= since)
            if until is not None:
                query = query.where(GAMES.c.created_at < until)
            if last is not None:
                created, gid = last
                query = query.where(
                    (GAMES.c.created_at > created) | ((GAMES.c.created_at == created) & (GAMES.c.id > gid))
                )
            query = query.order_by(GAMES.c.created_at, GAMES.c.id).limit(batch)
            with self.engine.connect() as conn:
                page = [_game_record(row) for row in conn.execute(query)]
            yield from page
            if len(page) < batch:
                return
            last = (page[-1].created_at, page[-1].id)

    def count_games(self, *, club_id: int | None = None) -> int:
        query = select(func.count()).select_from(GAMES)
        if club_id is not None:
            query = query.where(GAMES.c.club_id == club_id)
        with self.engine.connect() as conn:
            return int(conn.execute(query).scalar_one())

    def find_same_chain(self, club_id: int, genesis_hash: str, head_hash: str | None) -> list[str]:
        """Ids of the club's games with this genesis and head hash: the same record imported before.

        `head_hash=None`: every game of the club from this genesis (same game, seats, options, created_at).
        """
        query = select(GAMES.c.id).where(GAMES.c.club_id == club_id, GAMES.c.genesis_hash == genesis_hash)
        if head_hash is not None:
            query = query.where(GAMES.c.head_hash == head_hash)
        with self.engine.connect() as conn:
            return [row[0] for row in conn.execute(query.order_by(GAMES.c.created_at, GAMES.c.id))]

    def games_with_player(self, name: str, club_id: int | None = None) -> list[GameRecord]:
        """Every game (of a club, or of all clubs) whose registry names `name` exactly."""
        query = select(GAMES).where(GAMES.c.players.contains(dumps(name), autoescape=True))
        if club_id is not None:
            query = query.where(GAMES.c.club_id == club_id)
        with self.engine.connect() as conn:
            records = [_game_record(row) for row in conn.execute(query.order_by(GAMES.c.created_at, GAMES.c.id))]
        return [r for r in records if name in r.players]

    def iter_typed_events(
        self, types: Sequence[str], game_ids: Sequence[str] | None = None, batch: int = 1000
    ) -> Iterator[tuple[str, Envelope]]:
        """`(game_id, envelope)` of every event of these types, in global order, read in pages."""
        after = 0
        while True:
            query = select(EVENTS.c.position, EVENTS.c.game_id, *_EVENT_COLUMNS).where(
                EVENTS.c.type.in_(list(types)), EVENTS.c.position > after
            )
            if game_ids is not None:
                query = query.where(EVENTS.c.game_id.in_(list(game_ids)))
            with self.engine.connect() as conn:
                page = list(conn.execute(query.order_by(EVENTS.c.position).limit(batch)))
            for row in page:
                yield row.game_id, envelope_from_row(row)
            if len(page) < batch:
                return
            after = page[-1].position

    def game_kinds(self, game_ids: Sequence[str]) -> dict[str, tuple[str, int]]:
        """`{game_id: (kind, club_id)}` for these games."""
        if not game_ids:
            return {}
        query = select(GAMES.c.id, GAMES.c.kind, GAMES.c.club_id).where(GAMES.c.id.in_(list(game_ids)))
        with self.engine.connect() as conn:
            return {row.id: (row.kind, row.club_id) for row in conn.execute(query)}

    def projection_position(self, name: str) -> int:
        """How far (global `position`) the read model `name` has read; 0 when it never ran."""
        _, checkpoints = self._fact_tables()
        with self.engine.connect() as conn:
            found = conn.execute(select(checkpoints.c.position).where(checkpoints.c.name == name)).scalar()
        return int(found or 0)

    def commit_hand_facts(
        self,
        name: str,
        *,
        old: int,
        new: int,
        deletes: Sequence[tuple[str, int, int]] = (),
        inserts: Sequence[Mapping[str, Any]] = (),
        once: Sequence[Mapping[str, Any]] = (),
    ) -> bool:
        """Move the checkpoint `name` from `old` to `new` with its hand-fact changes, in one transaction.

        `deletes` are `(game_id, above_seq, below_seq)` ranges (facts of retracted events), applied
        first; `inserts` are rows of `hand_fact`; `once` rows are inserted only if the same fact
        (game, hand, seq, situation, seat) is not there yet. False, and nothing written, when
        another process moved the checkpoint first (it did this work).
        """

        class Lost(Exception):
            """Another process moved the checkpoint inside our transaction: roll it all back."""

        try:
            with self._write() as conn, conn.begin():
                self._write_hand_facts(conn, name, old, new, deletes, inserts, once, Lost)
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
        inserts: Sequence[Mapping[str, Any]],
        once: Sequence[Mapping[str, Any]],
        lost: type[Exception],
    ) -> None:
        facts, checkpoints = self._fact_tables()
        current = conn.execute(select(checkpoints.c.position).where(checkpoints.c.name == name)).scalar()
        if current is None:
            if old != 0:
                raise lost()
            from sqlalchemy.exc import IntegrityError

            try:
                with conn.begin_nested():
                    conn.execute(insert(checkpoints).values(name=name, position=0, updated_at=utc_now()))
            except IntegrityError:  # another process made the row first: it is catching up
                raise lost() from None
        elif int(current) != old:
            raise lost()
        for game_id, above, below in deletes:
            conn.execute(facts.delete().where(facts.c.game_id == game_id, facts.c.seq > above, facts.c.seq < below))
        rows = [dict(r) for r in inserts]
        for row in once:
            seat_match = facts.c.seat.is_(None) if row["seat"] is None else facts.c.seat == row["seat"]
            exists = conn.execute(
                select(facts.c.id)
                .where(
                    facts.c.game_id == row["game_id"],
                    facts.c.hand == row["hand"],
                    facts.c.seq == row["seq"],
                    facts.c.situation == row["situation"],
                    seat_match,
                )
                .limit(1)
            ).first()
            if exists is None and dict(row) not in rows:
                rows.append(dict(row))
        if rows:
            conn.execute(insert(facts), rows)
        moved = conn.execute(
            update(checkpoints)
            .where(checkpoints.c.name == name, checkpoints.c.position == old)
            .values(position=new, updated_at=utc_now())
        )
        if moved.rowcount != 1:
            raise lost()

    def reset_hand_facts(self, name: str) -> None:
        """Empty the hand-fact read model and put its checkpoint back to 0 (before a rebuild)."""
        facts, checkpoints = self._fact_tables()
        with self._write() as conn, conn.begin():
            conn.execute(facts.delete())
            done = conn.execute(
                update(checkpoints).where(checkpoints.c.name == name).values(position=0, updated_at=utc_now())
            )
            if done.rowcount == 0:
                conn.execute(insert(checkpoints).values(name=name, position=0, updated_at=utc_now()))

    def hand_fact_rows(self, game_ids: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Every hand fact (of these games), without its row id, in a stable order."""
        facts, _ = self._fact_tables()
        query = select(facts.c.club_id, facts.c.game_id, facts.c.hand, facts.c.seq, facts.c.situation, facts.c.seat)
        if game_ids is not None:
            query = query.where(facts.c.game_id.in_(list(game_ids)))
        query = query.order_by(facts.c.game_id, facts.c.seq, facts.c.situation, facts.c.seat)
        with self.engine.connect() as conn:
            return [dict(row._mapping) for row in conn.execute(query)]

    def hits(self, game_ids: Sequence[str], situations: Sequence[str], per_game: int = 200) -> dict[str, list[Any]]:
        """`{game_id: [{hand, seq, situation, seat}]}` for these games and situations, in seq order."""
        facts, _ = self._fact_tables()
        out: dict[str, list[Any]] = {gid: [] for gid in game_ids}
        if not game_ids or not situations:
            return out
        query = (
            select(facts.c.game_id, facts.c.hand, facts.c.seq, facts.c.situation, facts.c.seat)
            .where(facts.c.game_id.in_(list(game_ids)), facts.c.situation.in_(list(situations)))
            .order_by(facts.c.game_id, facts.c.seq, facts.c.situation, facts.c.seat)
        )
        with self.engine.connect() as conn:
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
        player: str | None = None,
        winner: int | None = None,
        since: str | None = None,
        until: str | None = None,
        limit: int = 50,
        before: tuple[str, str] | None = None,
    ) -> list[GameRecord]:
        """`list_games` with one more filter: games with a hand fact of *every* situation given."""
        facts, _ = self._fact_tables()
        query = select(GAMES).where(GAMES.c.club_id == club_id)
        for situation in situations:
            query = query.where(
                select(facts.c.id).where(facts.c.game_id == GAMES.c.id, facts.c.situation == situation).exists()
            )
        if kind is not None:
            query = query.where(GAMES.c.kind == kind)
        if status is not None:
            query = query.where(GAMES.c.status == status)
        if winner is not None:
            query = query.where(GAMES.c.winner == winner)
        if since is not None:
            query = query.where(GAMES.c.created_at >= since)
        if until is not None:
            query = query.where(GAMES.c.created_at < until)
        if player is not None:
            query = query.where(GAMES.c.players.contains(dumps(player), autoescape=True))
        if before is not None:
            created, gid = before
            query = query.where((GAMES.c.created_at < created) | ((GAMES.c.created_at == created) & (GAMES.c.id < gid)))
        query = query.order_by(GAMES.c.created_at.desc(), GAMES.c.id.desc()).limit(limit)
        with self.engine.connect() as conn:
            records = [_game_record(row) for row in conn.execute(query)]
        if player is not None:
            records = [r for r in records if player in r.players]
        return records

    # ------------------------------------------------------------------ snapshots (a disposable cache)

    def _query(self, sql: str, params: Sequence[Any]) -> list[Any]:
        """The rows of a raw statement written with `?` placeholders, read on the engine's raw connection."""
        return self._rows(sql.replace("?", "%s") if self.dialect == "postgresql" else sql, params)

    def read_snapshot(self, game_id: str, version: str, at_most: int) -> tuple[int, str] | None:
        """The newest snapshot `(seq, state text)` of a game at or below seq `at_most`, for that code version."""
        rows = self._query(
            "SELECT seq, state FROM snapshot WHERE game_id = ? AND version = ? AND seq <= ? ORDER BY seq DESC LIMIT 1",
            (game_id, version, max(min(at_most, MAX_SEQ), -1)),
        )
        return (int(rows[0][0]), str(rows[0][1])) if rows else None

    def write_snapshots(
        self,
        game_id: str,
        version: str,
        states: Sequence[tuple[int, str]],
        hands: Sequence[tuple[int, str, str, str]] = (),
    ) -> int:
        """Store snapshots `(seq, state text)` in one short transaction; how many were new.

        `hands` are rows `(idx, digest, prev, text)` of the `snapshot_hand` table the snapshots name
        (opaque here), written first, in the same transaction. A row already there (another process
        wrote it) is left as it is, and no snapshot is written past the head the game's row names (an
        event there is not part of the record yet).
        """
        if not states:
            return 0
        from sqlalchemy.dialects.postgresql import insert as pg_insert
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        table = Snapshot.__table__  # type: ignore[attr-defined]
        made = pg_insert if self.dialect == "postgresql" else sqlite_insert
        now = utc_now()
        with self._write() as conn, conn.begin():
            head = conn.execute(select(GAMES.c.seq).where(GAMES.c.id == game_id)).scalar()
            rows = [
                {"game_id": game_id, "version": version, "seq": seq, "state": text, "created_at": now}
                for seq, text in states
                if head is not None and 0 <= seq <= head
            ]
            if not rows:
                return 0
            if hands:  # one prepared INSERT run for every row (executemany): no statement built per row
                mark = "%s" if self.dialect == "postgresql" else "?"
                conn.exec_driver_sql(
                    "INSERT INTO snapshot_hand (game_id, version, idx, digest, prev, hand, created_at) "
                    f"VALUES ({', '.join([mark] * 7)}) ON CONFLICT DO NOTHING",
                    [(game_id, version, idx, digest, prev, text, now) for idx, digest, prev, text in hands],
                )
            written = 0
            for i in range(0, len(rows), 500):  # one multi-row INSERT a chunk, returning the rows it wrote
                query = made(table).values(rows[i : i + 500]).on_conflict_do_nothing().returning(table.c.seq)
                written += len(conn.execute(query).fetchall())
            return written

    def delete_snapshots(self, game_id: str | None = None) -> int:
        """Drop the snapshots of a game (every game's when None), and their hand rows: nothing of the record is lost."""
        self.delete_snapshot_hands(game_id)
        table = Snapshot.__table__  # type: ignore[attr-defined]
        query = table.delete() if game_id is None else table.delete().where(table.c.game_id == game_id)
        with self._write() as conn, conn.begin():
            return int(conn.execute(query).rowcount or 0)

    def delete_snapshot_hands(self, game_id: str | None = None, *, from_idx: int = 0) -> int:
        """Drop the hand rows of a game's snapshots (every game's when None), those from hand index `from_idx` on."""
        table = SnapshotHand.__table__  # type: ignore[attr-defined]
        query = table.delete().where(table.c.idx >= from_idx)
        if game_id is not None:
            query = query.where(table.c.game_id == game_id)
        with self._write() as conn, conn.begin():
            return int(conn.execute(query).rowcount or 0)

    def read_snapshot_hands(self, game_id: str, version: str, below: int) -> list[tuple[int, str, str, str]]:
        """The hand rows `(idx, digest, prev, text)` of a game's snapshots of one version with `idx < below`."""
        rows = self._query(
            "SELECT idx, digest, prev, hand FROM snapshot_hand WHERE game_id = ? AND version = ? AND idx < ?",
            (game_id, version, max(min(below, MAX_SEQ), -1)),
        )
        return [(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]

    def snapshot_seqs(self, game_id: str, version: str | None = None) -> list[int]:
        """The seqs a game has snapshots at (of one code version, or any), in order."""
        if version is None:
            rows = self._query("SELECT DISTINCT seq FROM snapshot WHERE game_id = ? ORDER BY seq", (game_id,))
        else:
            rows = self._query(
                "SELECT seq FROM snapshot WHERE game_id = ? AND version = ? ORDER BY seq", (game_id, version)
            )
        return [int(r[0]) for r in rows]

    def retracts(self, game_id: str, after: int = 0, upto: int | None = None) -> list[tuple[int, int]]:
        """`(seq, to_seq)` of every retract with `after < seq <= upto`, in seq order."""
        upto = MAX_SEQ if upto is None else max(min(upto, MAX_SEQ), -1)
        rows = self._query(
            "SELECT seq, data FROM event WHERE game_id = ? AND seq > ? AND seq <= ? AND type = 'retract' ORDER BY seq",
            (game_id, max(min(after, MAX_SEQ), -1), upto),
        )
        return [(int(seq), int(loads(data)["to_seq"])) for seq, data in rows]

    def hand_seqs(self, game_id: str, hand: int, upto: int) -> tuple[int, int] | None:
        """The lowest and highest seq at or below `upto` recorded in hand `hand` (None: there is none)."""
        rows = self._query(
            "SELECT MIN(seq), MAX(seq) FROM event WHERE game_id = ? AND hand = ? AND seq <= ?",
            (game_id, max(min(hand, MAX_SEQ), -1), max(min(upto, MAX_SEQ), -1)),
        )
        return None if not rows or rows[0][0] is None else (int(rows[0][0]), int(rows[0][1]))


def _key_record(row: Any) -> KeyRecord:
    return KeyRecord(
        id=row.id,
        club_id=row.club_id,
        club=row.club,
        role=row.role,
        key_hash=row.key_hash,
        label=row.label,
        created_at=row.created_at,
        revoked_at=row.revoked_at,
    )
