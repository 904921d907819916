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
  writer (`BEGIN IMMEDIATE`).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, func, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.pool import NullPool

from events.codec import dumps, loads, utc_now
from events.envelope import Envelope
from events.errors import NotFoundError, StreamConflictError
from events.tables import ApiKey, AppendRequest, Club, Event, Game

DEFAULT_URL = "sqlite:///./data/tablebook.db"
#: the key of the PostgreSQL advisory lock that orders all appends
APPEND_LOCK = 0x7AB1EB00C

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


def new_id(prefix: str = "", nbytes: int = 6) -> str:
    """A short random id (hex)."""
    return prefix + secrets.token_hex(nbytes)


def make_engine(url: str) -> Engine:
    """An engine with the pragmas and transaction behaviour the store relies on."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[1] if "///" in url else ""
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, pool_size=8)

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None  # transactions are begun below
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _on_begin(connection: Connection) -> None:
            immediate = connection.get_execution_options().get("write", False)
            connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

        return engine
    if url.startswith("postgresql"):
        return create_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True)
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
    """A stored row back into its envelope (the exact dict that was hashed)."""
    envelope: Envelope = {
        "seq": row.seq,
        "hand": row.hand,
        "type": row.type,
        "data": loads(row.data),
        "recorded_at": row.recorded_at,
        "actor": row.actor,
        "result": loads(row.result),
        "prev_hash": row.prev_hash,
    }
    if row.violation is not None:
        envelope["violation"] = loads(row.violation)
    envelope["hash"] = row.hash
    return envelope


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
    "WHERE game_id = {p} AND seq > {p} ORDER BY seq LIMIT {p}",
}


def _raw_sql(dialect: str) -> dict[str, str]:
    placeholder = "%s" if dialect == "postgresql" else "?"
    return {name: sql.replace("{p}", placeholder) for name, sql in _SQL.items()}


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
            query = query.where(GAMES.c.players.contains(dumps(player)))
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

    def read_events(self, game_id: str, after: int = 0, limit: int | None = None) -> list[Envelope]:
        """A game's envelopes with seq > after, in seq order."""
        raw = self.engine.raw_connection()
        try:
            cursor = raw.cursor()
            cursor.execute(self._sql["read_events"], (game_id, after, limit if limit is not None else 2**62))
            rows = cursor.fetchall()
            cursor.close()
            raw.rollback()
        finally:
            raw.close()
        return [_raw_envelope(row) for row in rows]

    def iter_events(self, game_id: str, batch: int = 1000) -> Iterator[Envelope]:
        """A game's envelopes in seq order, read in pages (constant memory)."""
        after = 0
        while True:
            page = self.read_events(game_id, after, batch)
            yield from page
            if len(page) < batch:
                return
            after = page[-1]["seq"]

    def read_positions(self, after: int = 0, limit: int = 1000) -> list[tuple[int, str, Envelope]]:
        """Events of every game in global `position` order: (position, game_id, envelope)."""
        query = (
            select(EVENTS.c.position, EVENTS.c.game_id, *_EVENT_COLUMNS)
            .where(EVENTS.c.position > after)
            .order_by(EVENTS.c.position)
            .limit(limit)
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
        rows = [
            {
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
            for env in envelopes
        ]
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
