"""The players of each club (`player`) and who sat where (`game_player`): SQL only, no rules.

A name given for a seat when a game is created or imported is resolved to a player of the club:
the one whose name or alias is that name case-insensitively (`casefold`; the oldest if several), or
a new player. Names are compared, and kept by `create_player` and `rename`, normalised (`normal_name`:
no spaces around, each run of whitespace inside one space); the API normalises the names it is given
the same way before they get here. A game's registry row keeps the names as *display copies* (`game.players`): a rename,
merge or erasure rewrites them in the same transaction as the player row, so that every process,
which reads a game's row on every request (`projections/core/recorder.py` `live`), shows the new name at
once; nothing about players is cached in a process. Names are in no hash (events name seats).

A game stored as a *copy* of another (`game.copy_of`: a record the club had, imported again on purpose)
seats its players like any game, but it is a record, not a second result: `copies` names such games,
`rated_seats` leaves them out (what the ratings rate), and `situation_counts` counts no hand fact of
theirs (what the statistics show).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, func, insert, select, update

from events.codec import dumps, loads, utc_now
from events.errors import InvalidEventError, NotFoundError
from events.store.base import GAMES, Database, new_id
from events.store.tables import GamePlayer, HandFact, Player

PLAYERS = Player.__table__  # type: ignore[attr-defined]
SEATS = GamePlayer.__table__  # type: ignore[attr-defined]
_FACTS = HandFact.__table__  # type: ignore[attr-defined]
#: the most ids one `IN (...)` names (PostgreSQL and SQLite both take far more; pages keep statements small)
_PAGE = 500
#: the games and their seats, in seat order (`PlayerBook.rated_games`)
_RATED_GAMES = (
    "SELECT game.id, game.kind, game.club_id, game.copy_of, game_player.player_id FROM game "
    "LEFT JOIN game_player ON game_player.game_id = game.id WHERE game.id IN ({}) ORDER BY game.id, game_player.seat"
)

#: what an erased player's name reads as, wherever it is shown
ERASED = "(erased)"


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """A player's row."""

    id: str
    club_id: int
    name: str
    aliases: tuple[str, ...]
    created_at: str
    merged_into: str | None
    erased_at: str | None

    def names(self) -> tuple[str, ...]:
        """The name and aliases, as matched (case-insensitively)."""
        return (self.name, *self.aliases)

    def to_public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "aliases": list(self.aliases),
            "created_at": self.created_at,
            "merged_into": self.merged_into,
            "erased": self.erased_at is not None,
        }


def _record(row: Any) -> PlayerRecord:
    return PlayerRecord(
        row.id, int(row.club_id), row.name, tuple(loads(row.aliases)), row.created_at, row.merged_into, row.erased_at
    )


def normal_name(name: str) -> str:
    """A name as it is kept and matched: without spaces around it, each run of whitespace inside (spaces,
    tabs, a newline) one space. `" Anna \n Lee "` is `"Anna Lee"`; a name of spaces only is `""`."""
    return " ".join(str(name).split())


def matches(record: PlayerRecord, name: str) -> bool:
    """Whether `name` is the player's name or an alias, case-insensitively and whitespace normalised on both
    sides (`normal_name`: a name stored before names were normalised is found too)."""
    wanted = normal_name(name).casefold()
    return any(normal_name(n).casefold() == wanted for n in record.names())


def _active(conn: Connection, club_id: int) -> list[PlayerRecord]:
    query = (
        select(PLAYERS)
        .where(PLAYERS.c.club_id == club_id, PLAYERS.c.merged_into.is_(None), PLAYERS.c.erased_at.is_(None))
        .order_by(PLAYERS.c.created_at, PLAYERS.c.id)
    )
    return [_record(row) for row in conn.execute(query)]


def seat_players(conn: Connection, club_id: int, game_id: str, names: Sequence[str]) -> list[str]:
    """Resolve each seat's name to a player of the club (created when new) and write the `game_player` rows.

    Called inside the transaction that inserts the game's row. Two seats with the same name are one
    player each only if the names differ; the same name twice gives a second player for the second
    seat (a game never seats one player twice).
    """
    known = _active(conn, club_id)
    ids: list[str] = []
    for name in names:
        found = next((p.id for p in known if matches(p, name) and p.id not in ids), None)
        if found is None:
            found = new_id("p")
            record = PlayerRecord(found, club_id, str(name), (), utc_now(), None, None)
            conn.execute(insert(PLAYERS).values(_row(record)))
            known.append(record)
        ids.append(found)
    conn.execute(insert(SEATS), [{"game_id": game_id, "seat": s, "player_id": p} for s, p in enumerate(ids)])
    return ids


def _row(record: PlayerRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "club_id": record.club_id,
        "name": record.name,
        "aliases": dumps(list(record.aliases)),
        "created_at": record.created_at,
        "merged_into": record.merged_into,
        "erased_at": record.erased_at,
    }


class PlayerBook:
    """Players: list, find, create, rename, merge, erase; and their seats in games."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def list_players(self, club_id: int, *, include_gone: bool = False) -> list[PlayerRecord]:
        """The club's players, oldest first; merged and erased ones only with `include_gone`."""
        with self.db.engine.connect() as conn:
            if not include_gone:
                return _active(conn, club_id)
            query = select(PLAYERS).where(PLAYERS.c.club_id == club_id).order_by(PLAYERS.c.created_at, PLAYERS.c.id)
            return [_record(row) for row in conn.execute(query)]

    def get_player(self, player_id: str, club_id: int | None = None) -> PlayerRecord:
        """A player of that club (any club when None).

        Raises:
            NotFoundError: no such player there.
        """
        query = select(PLAYERS).where(PLAYERS.c.id == player_id)
        if club_id is not None:
            query = query.where(PLAYERS.c.club_id == club_id)
        with self.db.engine.connect() as conn:
            row = conn.execute(query).first()
        if row is None:
            raise NotFoundError(f"no player {player_id!r}")
        return _record(row)

    def find_players(self, club_id: int | None, name: str) -> list[PlayerRecord]:
        """The players (of a club, or of all clubs) with this name or alias, case-insensitively."""
        query = select(PLAYERS).where(PLAYERS.c.erased_at.is_(None), PLAYERS.c.merged_into.is_(None))
        if club_id is not None:
            query = query.where(PLAYERS.c.club_id == club_id)
        with self.db.engine.connect() as conn:
            rows = [_record(row) for row in conn.execute(query.order_by(PLAYERS.c.created_at, PLAYERS.c.id))]
        return [p for p in rows if matches(p, name)]

    def create_player(self, club_id: int, name: str, aliases: Iterable[str] = ()) -> PlayerRecord:
        """A new player of the club (even if another has the same name: two people may share one).

        The name and aliases are normalised (`normal_name`); an alias that is the name, or an alias given
        before, in any case, is kept once.

        Raises:
            InvalidEventError: an empty name or alias (after normalising).
        """
        kept = _clean(name)
        others: list[str] = []
        for alias in aliases:
            cleaned = _clean(alias, field="aliases")
            if all(cleaned.casefold() != n.casefold() for n in (kept, *others)):
                others.append(cleaned)
        record = PlayerRecord(new_id("p"), club_id, kept, tuple(others), utc_now(), None, None)
        with self.db.write() as conn, conn.begin():
            conn.execute(insert(PLAYERS).values(_row(record)))
        return record

    def seats_of(self, player_id: str) -> list[tuple[str, int]]:
        """`(game_id, seat)` of every game the player sat in."""
        query = select(SEATS.c.game_id, SEATS.c.seat).where(SEATS.c.player_id == player_id)
        with self.db.engine.connect() as conn:
            return [(r.game_id, int(r.seat)) for r in conn.execute(query.order_by(SEATS.c.game_id))]

    def game_seats(self, game_ids: Sequence[str]) -> dict[str, list[str]]:
        """`{game_id: [player_id by seat]}` for these games."""
        out: dict[str, list[str]] = {}
        if not game_ids:
            return out
        query = select(SEATS).where(SEATS.c.game_id.in_(list(game_ids))).order_by(SEATS.c.game_id, SEATS.c.seat)
        with self.db.engine.connect() as conn:
            for row in conn.execute(query):
                out.setdefault(row.game_id, []).append(row.player_id)
        return out

    def copies(self, game_ids: Iterable[str]) -> dict[str, str]:
        """`{copy id: original id}` for those of these games that are copies (`copy_of` set): records, not
        results, so never rated or counted. `game_id in copies(...)` asks whether one is."""
        ids = sorted(set(game_ids))
        found: dict[str, str] = {}
        with self.db.engine.connect() as conn:
            for start in range(0, len(ids), _PAGE):
                page = ids[start : start + _PAGE]
                query = select(GAMES.c.id, GAMES.c.copy_of).where(GAMES.c.id.in_(page), GAMES.c.copy_of.isnot(None))
                found.update((row.id, row.copy_of) for row in conn.execute(query))
        return found

    def rated_seats(self, game_ids: Sequence[str]) -> dict[str, list[str]]:
        """`game_seats` without the copies: the games whose results count, `{game_id: [player_id by seat]}`.

        A copy is absent, as a game with no seats is: the ratings rate no result of it.
        """
        seats = self.game_seats(game_ids)
        for game_id in self.copies(seats):
            del seats[game_id]
        return seats

    def rated_games(self, game_ids: Sequence[str]) -> dict[str, tuple[str, int, list[str]]]:
        """`{game_id: (kind, club_id, [player_id by seat])}` for these games: `game_kinds` and `rated_seats` in one
        raw read (a page's worth of games at a time: the ratings ask it once a page, for every game the page
        names), a copy with no seats (its results do not count) as a game with none."""
        ids = sorted(set(game_ids))
        out: dict[str, tuple[str, int, list[str]]] = {}
        for start in range(0, len(ids), _PAGE):
            page = ids[start : start + _PAGE]
            statement = self.db.sql(_RATED_GAMES.format(", ".join("?" * len(page))))
            for game_id, kind, club_id, copy_of, player_id in self.db.rows(statement, page):
                found = out.get(game_id)
                if found is None:
                    found = out[game_id] = (str(kind), int(club_id), [])
                if player_id is not None and copy_of is None:
                    found[2].append(str(player_id))
        return out

    def situation_counts(self, player_id: str) -> dict[str, dict[str, int]]:
        """`{kind: {situation: count}}` of the hand facts at the player's own seats, copies left out."""
        query = (
            select(GAMES.c.kind, _FACTS.c.situation, func.count().label("n"))
            .select_from(_FACTS)
            .join(SEATS, (SEATS.c.game_id == _FACTS.c.game_id) & (SEATS.c.seat == _FACTS.c.seat))
            .join(GAMES, GAMES.c.id == _FACTS.c.game_id)
            .where(SEATS.c.player_id == player_id, GAMES.c.copy_of.is_(None))
            .group_by(GAMES.c.kind, _FACTS.c.situation)
        )
        out: dict[str, dict[str, int]] = {}
        with self.db.engine.connect() as conn:
            for row in conn.execute(query):
                out.setdefault(row.kind, {})[row.situation] = int(row.n)
        return out

    def rename(self, player_id: str, name: str, *, club_id: int | None = None, keep_alias: bool = True) -> PlayerRecord:
        """Give a player a new name (the old one kept as an alias, unless not wanted), shown in all their games.

        Raises:
            NotFoundError: no such player (or it was merged or erased).
            InvalidEventError: an empty name.
        """
        new = _clean(name)
        with self.db.write() as conn, conn.begin():
            record = self._live(conn, player_id, club_id)
            aliases = [a for a in record.aliases if a.casefold() != new.casefold()]
            if keep_alias and record.name.casefold() != new.casefold():
                aliases.append(record.name)
            conn.execute(update(PLAYERS).where(PLAYERS.c.id == player_id).values(name=new, aliases=dumps(aliases)))
            self._show(conn, player_id, new)
        return self.get_player(player_id)

    def merge(self, source_id: str, target_id: str, *, club_id: int | None = None) -> PlayerRecord:
        """Merge `source` into `target`: its seats become the target's, its names the target's aliases.

        Raises:
            NotFoundError: either player missing (or already merged or erased), or in another club.
            InvalidEventError: a player merged into itself, two clubs, or both sat in one game.
        """
        if source_id == target_id:
            raise InvalidEventError("a player cannot be merged into itself", field="into")
        with self.db.write() as conn, conn.begin():
            source = self._live(conn, source_id, club_id)
            target = self._live(conn, target_id, club_id)
            if source.club_id != target.club_id:
                raise InvalidEventError("players of two clubs cannot be merged", field="into")
            both = set(self._games(conn, source_id)) & set(self._games(conn, target_id))
            if both:
                raise InvalidEventError(
                    f"both players sat in game {sorted(both)[0]}: they are two people", field="into", games=sorted(both)
                )
            aliases = list(target.aliases)
            for name in source.names():
                if all(name.casefold() != n.casefold() for n in (target.name, *aliases)):
                    aliases.append(name)
            conn.execute(update(PLAYERS).where(PLAYERS.c.id == target_id).values(aliases=dumps(aliases)))
            conn.execute(update(SEATS).where(SEATS.c.player_id == source_id).values(player_id=target_id))
            conn.execute(update(PLAYERS).where(PLAYERS.c.id == source_id).values(merged_into=target_id))
            self._show(conn, target_id, target.name)
        return self.get_player(target_id)

    def erase(self, player_id: str, *, club_id: int | None = None, replacement: str = ERASED) -> list[str]:
        """Erase a player's names: the record keeps its id only, every game shows `replacement`; the games' ids.

        Raises:
            NotFoundError: no such player (or it was merged or erased).
        """
        with self.db.write() as conn, conn.begin():
            self._live(conn, player_id, club_id)
            conn.execute(
                update(PLAYERS)
                .where(PLAYERS.c.id == player_id)
                .values(name=replacement, aliases="[]", erased_at=utc_now())
            )
            return self._show(conn, player_id, replacement)

    def _live(self, conn: Connection, player_id: str, club_id: int | None) -> PlayerRecord:
        query = select(PLAYERS).where(PLAYERS.c.id == player_id)
        if club_id is not None:
            query = query.where(PLAYERS.c.club_id == club_id)
        row = conn.execute(query).first()
        if row is None or row.merged_into is not None or row.erased_at is not None:
            raise NotFoundError(f"no player {player_id!r}")
        return _record(row)

    def _games(self, conn: Connection, player_id: str) -> list[str]:
        return [r[0] for r in conn.execute(select(SEATS.c.game_id).where(SEATS.c.player_id == player_id))]

    def _show(self, conn: Connection, player_id: str, name: str) -> list[str]:
        """Rewrite the display copy of the player's name in every game they sat in; the games' ids."""
        seats = conn.execute(
            select(SEATS.c.game_id, SEATS.c.seat, GAMES.c.players)
            .join(GAMES, GAMES.c.id == SEATS.c.game_id)
            .where(SEATS.c.player_id == player_id)
            .order_by(SEATS.c.game_id)
        ).all()
        by_game: dict[str, list[str]] = {}
        for game_id, seat, players in seats:
            names = by_game.setdefault(game_id, list(loads(players)))
            names[seat] = name
        for game_id, names in by_game.items():
            conn.execute(update(GAMES).where(GAMES.c.id == game_id).values(players=dumps(names)))
        return sorted(by_game)


def _clean(name: str, field: str = "name") -> str:
    """A name as stored: normalised (`normal_name`); never empty.

    Raises:
        InvalidEventError: an empty name (or one of spaces only).
    """
    text = normal_name(name)
    if not text:
        raise InvalidEventError("a player's name may not be empty (or spaces only)", field=field)
    return text
