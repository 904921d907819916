"""The registry: clubs, API keys, and games (the stream registry with each stream's head and players).

Nothing here is hashed: a game's player names can be replaced (erasure) without touching a chain. A
game's head (`seq`, `hand`, `status`, `totals`, `winner`, `head_hash`) is moved by the event recorder,
in the append's own transaction; the registry only reads it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.sql import Select

from events.codec import dumps, loads, utc_now
from events.errors import NotFoundError
from events.store.base import CLUBS, GAMES, KEYS, Database, new_id
from events.store.players import SEATS, PlayerBook, seat_players


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
    #: the labels given at creation (`LABELS`), None when not given: registry metadata, in no hash
    event: str | None = None
    round: str | None = None
    table: str | None = None
    #: the id of the club's game this one is a copy of (`import --copy`, migration 0011), None for an original:
    #: a copy is a record, not a second result (ratings, statistics and standings skip it)
    copy_of: str | None = None

    def labels(self) -> dict[str, str]:
        """The labels that were given, by their API name (`{"event": "Winter league", "table": "2"}`)."""
        found = {"event": self.event, "round": self.round, "table": self.table}
        return {name: value for name, value in found.items() if value is not None}


#: a game's optional labels: API name -> `game` column (migration 0007)
LABELS = {"event": "event_name", "round": "round_name", "table": "table_name"}


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


def game_record(row: Any) -> GameRecord:
    """A `game` row (Core, by name) as a record."""
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
        event=row.event_name,
        round=row.round_name,
        table=row.table_name,
        copy_of=row.copy_of,
    )


def label_values(labels: Mapping[str, str | None] | None) -> dict[str, str | None]:
    """The `game` columns of a game's labels (`LABELS`); a label not given is NULL.

    Raises:
        KeyError: a label that is none of event, round, table (the API refuses it before).
    """
    given = dict(labels or {})
    unknown = set(given) - set(LABELS)
    if unknown:
        raise KeyError(f"not a game label: {sorted(unknown)[0]}")
    return {column: given.get(name) or None for name, column in LABELS.items()}


def game_row(
    *,
    game_id: str,
    club_id: int,
    kind: str,
    players: Sequence[str],
    options: Mapping[str, Any],
    created_at: str,
    updated_at: str,
    genesis_hash: str,
    seq: int = 0,
    hand: int = 0,
    status: str = "live",
    totals: Mapping[str, Any],
    winner: int | None = None,
    head_hash: str,
    labels: Mapping[str, str | None] | None = None,
    copy_of: str | None = None,
) -> dict[str, Any]:
    """A `game` row to insert: JSON fields as canonical text; `labels` its event, round and table; `copy_of`
    the original of a copy."""
    return {
        **label_values(labels),
        "id": game_id,
        "club_id": club_id,
        "kind": kind,
        "players": dumps(list(players)),
        "options": dumps(dict(options)),
        "created_at": created_at,
        "updated_at": updated_at,
        "genesis_hash": genesis_hash,
        "seq": seq,
        "hand": hand,
        "status": status,
        "totals": dumps(dict(totals)),
        "winner": winner,
        "head_hash": head_hash,
        "copy_of": copy_of,
    }


def filter_games(
    query: Select[Any],
    *,
    kind: str | None = None,
    status: str | None = None,
    player: str | None = None,
    winner: int | None = None,
    since: str | None = None,
    until: str | None = None,
    ids: Sequence[str] | None = None,
    player_ids: Sequence[str] | None = None,
) -> Select[Any]:
    """`query` narrowed by the game filters shared by listing and search.

    `player_ids`: games where one of these players sat (`game_player`); `player` (a name, LIKE on the
    display copies: a superset, callers filter again) is only the erasure's legacy match.
    """
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
    if player_ids is not None:
        query = query.where(
            select(SEATS.c.seat).where(SEATS.c.game_id == GAMES.c.id, SEATS.c.player_id.in_(list(player_ids))).exists()
        )
    if player is not None:  # LIKE on the JSON text: may match inside another name, so callers filter again
        query = query.where(GAMES.c.players.contains(dumps(player), autoescape=True))
    return query


def filter_labels(query: Select[Any], event: str | None, round: str | None) -> Select[Any]:
    """`query` narrowed to games with this `event` and `round` label (exactly; None: any)."""
    if event is not None:
        query = query.where(GAMES.c.event_name == event)
    if round is not None:
        query = query.where(GAMES.c.round_name == round)
    return query


def newest_first(query: Select[Any], before: tuple[str, str] | None, limit: int) -> Select[Any]:
    """`query` ordered newest first, after the `(created_at, id)` keyset cursor `before`."""
    if before is not None:
        created, gid = before
        query = query.where((GAMES.c.created_at < created) | ((GAMES.c.created_at == created) & (GAMES.c.id < gid)))
    return query.order_by(GAMES.c.created_at.desc(), GAMES.c.id.desc()).limit(limit)


class Registry:
    """Clubs, keys and games."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.players = PlayerBook(db)
        self._find_key = db.sql(
            "SELECT api_key.id, api_key.club_id, club.name, api_key.role, api_key.key_hash, api_key.label, "
            "api_key.created_at, api_key.revoked_at FROM api_key JOIN club ON club.id = api_key.club_id "
            "WHERE api_key.id = ?"
        )
        # the key and the game a request names, in one round trip: the game only if it is the key's club's
        self._find_key_and_game = (
            "SELECT api_key.id AS key_id, api_key.club_id AS key_club_id, club.name AS key_club, "
            "api_key.role AS key_role, api_key.key_hash AS key_hash, api_key.label AS key_label, "
            "api_key.created_at AS key_created_at, api_key.revoked_at AS key_revoked_at, game.* "
            "FROM api_key JOIN club ON club.id = api_key.club_id "
            "LEFT JOIN game ON game.id = ? AND game.club_id = api_key.club_id WHERE api_key.id = ?"
        )

    # ------------------------------------------------------------------ clubs and keys

    def ensure_club(self, name: str) -> int:
        """The id of the club called `name`, created if needed."""
        with self.db.write() as conn, conn.begin():
            found = conn.execute(select(CLUBS.c.id).where(CLUBS.c.name == name)).scalar()
            if found is not None:
                return int(found)
            return int(
                conn.execute(insert(CLUBS).values(name=name, created_at=utc_now()).returning(CLUBS.c.id)).scalar_one()
            )

    def club_name(self, club_id: int) -> str:
        """A club's name.

        Raises:
            NotFoundError: no such club.
        """
        with self.db.engine.connect() as conn:
            name = conn.execute(select(CLUBS.c.name).where(CLUBS.c.id == club_id)).scalar()
        if name is None:
            raise NotFoundError(f"no club {club_id}")
        return str(name)

    def clubs(self) -> dict[str, int]:
        """Every club, name -> id, in the order they were created."""
        with self.db.engine.connect() as conn:
            rows = conn.execute(select(CLUBS.c.id, CLUBS.c.name).order_by(CLUBS.c.id))
            return {row.name: int(row.id) for row in rows}

    def add_key(self, *, key_id: str, club_id: int, role: str, key_hash: str, label: str = "") -> None:
        with self.db.write() as conn, conn.begin():
            conn.execute(
                insert(KEYS).values(
                    id=key_id, club_id=club_id, role=role, key_hash=key_hash, label=label, created_at=utc_now()
                )
            )

    def find_key(self, key_id: str) -> KeyRecord | None:
        """A key by its public id (every request asks: the raw path keeps it cheap)."""
        rows = self.db.rows(self._find_key, (key_id,))
        return KeyRecord(*rows[0]) if rows else None

    def find_key_and_game(self, key_id: str, game_id: str) -> tuple[KeyRecord | None, GameRecord | None]:
        """A key by its public id and, in the same round trip, the game `game_id` if it is of the key's club.

        For a request that names a game (an append): its key is checked and its game's head read at once, both
        in the database, now (neither is cached: a revoked key or another process's append counts at once).
        """
        rows = self.db.records(self._find_key_and_game, (game_id, key_id), on_writer=True)
        if not rows:
            return None, None
        row = rows[0]
        key = KeyRecord(
            row.key_id,
            row.key_club_id,
            row.key_club,
            row.key_role,
            row.key_hash,
            row.key_label,
            row.key_created_at,
            row.key_revoked_at,
        )
        return key, None if row.id is None else game_record(row)

    def list_keys(self, club: str | None = None) -> list[KeyRecord]:
        query = select(KEYS, CLUBS.c.name.label("club")).join(CLUBS, CLUBS.c.id == KEYS.c.club_id)
        if club is not None:
            query = query.where(CLUBS.c.name == club)
        with self.db.engine.connect() as conn:
            return [
                KeyRecord(r.id, r.club_id, r.club, r.role, r.key_hash, r.label, r.created_at, r.revoked_at)
                for r in conn.execute(query.order_by(KEYS.c.created_at))
            ]

    def revoke_key(self, key_id: str) -> bool:
        """Revoke a key; False if there is no such key or it was revoked already."""
        with self.db.write() as conn, conn.begin():
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
        labels: Mapping[str, str | None] | None = None,
    ) -> GameRecord:
        """Register a new game with no events: its head is its genesis; `labels` its event, round, table."""
        gid = game_id or new_id("g")
        row = game_row(
            game_id=gid,
            club_id=club_id,
            kind=kind,
            players=players,
            options=options,
            created_at=created_at,
            updated_at=created_at,
            genesis_hash=genesis_hash,
            totals=totals,
            head_hash=genesis_hash,
            labels=labels,
        )
        with self.db.write() as conn, conn.begin():
            conn.execute(insert(GAMES).values(**row))
            seat_players(conn, club_id, gid, players)
        return self.get_game(gid)

    def get_game(self, game_id: str, club_id: int | None = None) -> GameRecord:
        """A game, only if it belongs to `club_id` (when given).

        Raises:
            NotFoundError: no such game in that club (another club's game is not found either).
        """
        # raw SQL: every append and read starts here, and a Core select() spent ~14% of an append's CPU
        if club_id is None:
            rows = self.db.records(f"SELECT * FROM {GAMES.name} WHERE id = ?", (game_id,))
        else:
            rows = self.db.records(f"SELECT * FROM {GAMES.name} WHERE id = ? AND club_id = ?", (game_id, club_id))
        if not rows:
            raise NotFoundError(f"no game {game_id!r}")
        return game_record(rows[0])

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
        player_id: str | None = None,
        event: str | None = None,
        round: str | None = None,
        limit: int = 50,
        before: tuple[str, str] | None = None,
    ) -> list[GameRecord]:
        """Games of a club, newest first; `before` is the (created_at, id) keyset cursor.

        `player`: a name or alias of a player of the club, case-insensitively (every player so named);
        `player_id`: that player; `event`, `round`: the labels, exactly.
        """
        query = filter_games(
            select(GAMES).where(GAMES.c.club_id == club_id),
            kind=kind,
            status=status,
            winner=winner,
            since=since,
            until=until,
            ids=ids,
            player_ids=self.player_ids(club_id, player, player_id),
        )
        query = filter_labels(query, event, round)
        with self.db.engine.connect() as conn:
            return [game_record(row) for row in conn.execute(newest_first(query, before, limit))]

    def player_ids(self, club_id: int | None, name: str | None, player_id: str | None) -> list[str] | None:
        """The players a `player` (name) and `player_id` filter name together (None: no filter)."""
        if name is None and player_id is None:
            return None
        ids = None if name is None else [p.id for p in self.players.find_players(club_id, name)]
        if player_id is not None:
            ids = [player_id] if ids is None or player_id in ids else []
        return ids

    def game_ids(self) -> list[str]:
        with self.db.engine.connect() as conn:
            return [row[0] for row in conn.execute(select(GAMES.c.id).order_by(GAMES.c.created_at, GAMES.c.id))]

    def set_players(self, game_id: str, players: Sequence[str]) -> None:
        """Replace a game's player names (erasure): names are not in any hash."""
        with self.db.write() as conn, conn.begin():
            conn.execute(update(GAMES).where(GAMES.c.id == game_id).values(players=dumps(list(players))))

    def set_labels(self, game_id: str, labels: Mapping[str, str | None]) -> GameRecord:
        """Give a game its event, round and table (`LABELS`; a label left out is cleared): they are in no hash.

        The service sets them right after creating a game, and an import after writing one.

        Raises:
            NotFoundError: no such game.
        """
        with self.db.write() as conn, conn.begin():
            conn.execute(update(GAMES).where(GAMES.c.id == game_id).values(**label_values(labels)))
        return self.get_game(game_id)

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
            query = filter_games(select(GAMES), kind=kind, ids=ids, since=since, until=until)
            if club_id is not None:
                query = query.where(GAMES.c.club_id == club_id)
            if last is not None:
                created, gid = last
                query = query.where(
                    (GAMES.c.created_at > created) | ((GAMES.c.created_at == created) & (GAMES.c.id > gid))
                )
            query = query.order_by(GAMES.c.created_at, GAMES.c.id).limit(batch)
            with self.db.engine.connect() as conn:
                page = [game_record(row) for row in conn.execute(query)]
            yield from page
            if len(page) < batch:
                return
            last = (page[-1].created_at, page[-1].id)

    def count_games(self, *, club_id: int | None = None) -> int:
        query = select(func.count()).select_from(GAMES)
        if club_id is not None:
            query = query.where(GAMES.c.club_id == club_id)
        with self.db.engine.connect() as conn:
            return int(conn.execute(query).scalar_one())

    def find_same_chain(self, club_id: int, genesis_hash: str, head_hash: str | None) -> list[str]:
        """Ids of the club's games with this genesis and head hash: the same record imported before.

        `head_hash=None`: every game of the club from this genesis (same game, seats, options, created_at).
        """
        query = select(GAMES.c.id).where(GAMES.c.club_id == club_id, GAMES.c.genesis_hash == genesis_hash)
        if head_hash is not None:
            query = query.where(GAMES.c.head_hash == head_hash)
        with self.db.engine.connect() as conn:
            return [row[0] for row in conn.execute(query.order_by(GAMES.c.created_at, GAMES.c.id))]

    def games_with_player(self, name: str, club_id: int | None = None) -> list[GameRecord]:
        """Every game (of a club, or of all clubs) whose registry names `name` exactly."""
        query = filter_games(select(GAMES), player=name)
        if club_id is not None:
            query = query.where(GAMES.c.club_id == club_id)
        with self.db.engine.connect() as conn:
            records = [game_record(row) for row in conn.execute(query.order_by(GAMES.c.created_at, GAMES.c.id))]
        return [r for r in records if name in r.players]

    def game_kinds(self, game_ids: Sequence[str]) -> dict[str, tuple[str, int]]:
        """`{game_id: (kind, club_id)}` for these games: raw reads of 500 at a time (the hand facts ask it once a
        page, for every game the page names: a Core `IN` of as many binds costs more to build than to run). On
        PostgreSQL one read with the ids as one array (`= ANY(%s)`): psycopg splits a statement's text at its
        placeholders in Python, which for 500 of them cost more than the read (2,000 games: 11 ms of CPU
        against 3 ms, measured)."""
        ids = sorted(set(game_ids))
        if self.db.dialect.name == "postgresql":
            found = self.db.rows("SELECT id, kind, club_id FROM game WHERE id = ANY(%s)", (ids,))
            return {str(game_id): (str(kind), int(club_id)) for game_id, kind, club_id in found}
        out: dict[str, tuple[str, int]] = {}
        for start in range(0, len(ids), 500):
            page = ids[start : start + 500]
            statement = self.db.sql(f"SELECT id, kind, club_id FROM game WHERE id IN ({', '.join('?' * len(page))})")
            out.update(
                (str(game_id), (str(kind), int(club_id))) for game_id, kind, club_id in self.db.rows(statement, page)
            )
        return out
