"""Events (club evenings, tournaments) in the registry: the `tournament`, `tournament_round`, `tournament_table`,
`board_set` and `board` rows (migration 0015).

A small module of the store layer, beside `shares.py` and `profiles.py`, so that no SQL is written above
`events/`: the application service (`api/service/tournaments.py`) plans and records events through these
functions, the recorder's board dealer (`projections/core/boards.py`) asks which boards a table deals and
reveals them, and the visibility of a read (`projections/reading/visibility.py`) asks which hand of a table
is a board still being played elsewhere. It knows no rules and no movement: lists of players and seats are
canonical JSON text, as the layer above made them.

The set's secret is read by two functions only (`table_link` for the dealer, `set_secret` for the reveal),
like `server_seed`: no route, export or log shows it; a board's seed is written when it is revealed.
Reads are on a plain connection; writes in the store's own write transactions (`Database.write`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy import and_, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from events.codec import canonical, utc_now
from events.errors import NotFoundError
from events.store.base import MAX_SEQ, Database
from events.store.tables import BoardSet, DuplicateBoard, Tournament, TournamentRound, TournamentTable

EVENTS = Tournament.__table__  # type: ignore[attr-defined]
ROUNDS = TournamentRound.__table__  # type: ignore[attr-defined]
TABLES = TournamentTable.__table__  # type: ignore[attr-defined]
SETS = BoardSet.__table__  # type: ignore[attr-defined]
BOARDS = DuplicateBoard.__table__  # type: ignore[attr-defined]

#: `done_through` of a table that has played every board it will
EVERY_BOARD = MAX_SEQ


def _text(value: Any) -> str:
    return canonical(value).decode()


@dataclass(frozen=True, slots=True)
class EventRecord:
    """An event's row."""

    id: str
    club_id: int
    name: str
    #: the game every table plays
    kind: str
    #: `evening` or `tournament`
    category: str
    players: tuple[str, ...]
    seats: int
    movement: str
    rounds: int
    options: dict[str, Any]
    boards: int
    scoring: str
    created_at: str
    created_by: str
    source_id: str | None = None


@dataclass(frozen=True, slots=True)
class RoundRecord:
    number: int
    sit_out: tuple[int, ...]
    started_at: str | None = None
    closed_at: str | None = None


@dataclass(frozen=True, slots=True)
class TableRecord:
    round: int
    number: int
    players: tuple[int, ...]
    game_id: str | None = None
    done_through: int = -1
    finished: bool = False


@dataclass(frozen=True, slots=True)
class SetRecord:
    """A board set as anyone may read it (no secret)."""

    genesis: str
    commitment: str
    count: int
    seeds: tuple[str, ...]
    created_at: str
    sealed_at: str | None = None


@dataclass(frozen=True, slots=True)
class BoardRecord:
    number: int
    round: int
    hand: int
    commitment: str
    revealed_at: str | None = None
    seed: str | None = None


@dataclass(frozen=True, slots=True)
class EventRows:
    """Everything stored of one event."""

    event: EventRecord
    rounds: tuple[RoundRecord, ...]
    tables: tuple[TableRecord, ...]
    board_set: SetRecord | None
    boards: tuple[BoardRecord, ...]


def _event(row: Any) -> EventRecord:
    return EventRecord(
        id=row.id,
        club_id=row.club_id,
        name=row.name,
        kind=row.kind,
        category=row.category,
        players=tuple(orjson.loads(row.players)),
        seats=row.seats,
        movement=row.movement,
        rounds=row.rounds,
        options=orjson.loads(row.options),
        boards=row.boards,
        scoring=row.scoring,
        created_at=row.created_at,
        created_by=row.created_by,
        source_id=row.source_id,
    )


def _table(row: Any) -> TableRecord:
    return TableRecord(
        row.round, row.number, tuple(orjson.loads(row.players)), row.game_id, row.done_through, bool(row.finished)
    )


def _table_values(event_id: str, table: TableRecord) -> dict[str, Any]:
    return {
        "tournament_id": event_id,
        "round": table.round,
        "number": table.number,
        "players": _text(list(table.players)),
        "game_id": table.game_id,
        "done_through": table.done_through,
        "finished": table.finished,
    }


def _round_values(event_id: str, rnd: RoundRecord) -> dict[str, Any]:
    return {
        "tournament_id": event_id,
        "number": rnd.number,
        "sit_out": _text(list(rnd.sit_out)),
        "started_at": rnd.started_at,
        "closed_at": rnd.closed_at,
    }


def create_event(
    db: Database,
    event: EventRecord,
    rounds: Sequence[RoundRecord],
    tables: Sequence[TableRecord],
    board_set: SetRecord | None = None,
    secret: str | None = None,
    boards: Sequence[BoardRecord] = (),
) -> None:
    """Write a new event with its planned rounds and tables and its board set, in one transaction."""
    values = {
        "id": event.id,
        "club_id": event.club_id,
        "name": event.name,
        "kind": event.kind,
        "category": event.category,
        "players": _text(list(event.players)),
        "seats": event.seats,
        "movement": event.movement,
        "rounds": event.rounds,
        "options": _text(event.options),
        "boards": event.boards,
        "scoring": event.scoring,
        "created_at": event.created_at,
        "created_by": event.created_by,
        "source_id": event.source_id,
    }
    with db.write() as conn, conn.begin():
        conn.execute(insert(EVENTS).values(**values))
        if rounds:
            conn.execute(insert(ROUNDS), [_round_values(event.id, r) for r in rounds])
        if tables:
            conn.execute(insert(TABLES), [_table_values(event.id, t) for t in tables])
        if board_set is not None:
            conn.execute(
                insert(SETS).values(
                    tournament_id=event.id,
                    genesis=board_set.genesis,
                    commitment=board_set.commitment,
                    count=board_set.count,
                    secret=secret,
                    seeds=_text(list(board_set.seeds)),
                    created_at=board_set.created_at,
                    sealed_at=board_set.sealed_at,
                )
            )
        if boards:
            conn.execute(
                insert(BOARDS),
                [
                    {
                        "tournament_id": event.id,
                        "number": b.number,
                        "round": b.round,
                        "hand": b.hand,
                        "commitment": b.commitment,
                        "revealed_at": b.revealed_at,
                        "seed": b.seed,
                    }
                    for b in boards
                ],
            )


def get_event(db: Database, event_id: str, club_id: int | None = None) -> EventRows:
    """Every row of one event (of `club_id`, when given).

    Raises:
        NotFoundError: no such event in that club (another club's event is not found either).
    """
    with db.engine.connect() as conn:
        query = select(EVENTS).where(EVENTS.c.id == event_id)
        if club_id is not None:
            query = query.where(EVENTS.c.club_id == club_id)
        row = conn.execute(query).first()
        if row is None:
            raise NotFoundError(f"no event {event_id!r}")
        rounds = conn.execute(select(ROUNDS).where(ROUNDS.c.tournament_id == event_id).order_by(ROUNDS.c.number))
        tables = conn.execute(
            select(TABLES).where(TABLES.c.tournament_id == event_id).order_by(TABLES.c.round, TABLES.c.number)
        )
        found_set = conn.execute(select(SETS).where(SETS.c.tournament_id == event_id)).first()
        boards = conn.execute(select(BOARDS).where(BOARDS.c.tournament_id == event_id).order_by(BOARDS.c.number))
        return EventRows(
            _event(row),
            tuple(RoundRecord(r.number, tuple(orjson.loads(r.sit_out)), r.started_at, r.closed_at) for r in rounds),
            tuple(_table(t) for t in tables),
            None
            if found_set is None
            else SetRecord(
                found_set.genesis,
                found_set.commitment,
                int(found_set._mapping["count"]),  # `Row.count` is the tuple's method
                tuple(orjson.loads(found_set.seeds)),
                found_set.created_at,
                found_set.sealed_at,
            ),
            tuple(BoardRecord(b.number, b.round, b.hand, b.commitment, b.revealed_at, b.seed) for b in boards),
        )


def list_events(db: Database, club_id: int | None) -> list[EventRecord]:
    """The club's events (every club's for None), newest first."""
    query = select(EVENTS).order_by(EVENTS.c.created_at.desc(), EVENTS.c.id)
    if club_id is not None:
        query = query.where(EVENTS.c.club_id == club_id)
    with db.engine.connect() as conn:
        return [_event(row) for row in conn.execute(query)]


def add_round(db: Database, event_id: str, rnd: RoundRecord, tables: Sequence[TableRecord]) -> bool:
    """Plan one more round (a Swiss round is paired once the one before it is over); False, and nothing
    written, when that round exists already (two directors pairing it at once)."""
    try:
        with db.write() as conn, conn.begin():
            conn.execute(insert(ROUNDS).values(**_round_values(event_id, rnd)))
            if tables:
                conn.execute(insert(TABLES), [_table_values(event_id, t) for t in tables])
    except IntegrityError:
        return False
    return True


def link_games(db: Database, event_id: str, number: int, games: Mapping[int, str]) -> bool:
    """Give the round's tables their game ids (table -> id; written before the games are created, so that a
    table game is linked from its first event) and mark the round started and the board set sealed. False when
    the round had been started already (nothing written)."""
    now = utc_now()
    with db.write() as conn, conn.begin():
        started = conn.execute(
            update(ROUNDS)
            .where(ROUNDS.c.tournament_id == event_id, ROUNDS.c.number == number, ROUNDS.c.started_at.is_(None))
            .values(started_at=now)
        )
        if not started.rowcount:
            return False
        for table, game_id in games.items():
            conn.execute(
                update(TABLES)
                .where(TABLES.c.tournament_id == event_id, TABLES.c.round == number, TABLES.c.number == table)
                .values(game_id=game_id)
            )
        conn.execute(
            update(SETS).where(SETS.c.tournament_id == event_id, SETS.c.sealed_at.is_(None)).values(sealed_at=now)
        )
    return True


def attach_game(db: Database, event_id: str, table: TableRecord) -> bool:
    """A game already recorded, as a table of a round (the round is created, started, if it was not); False,
    and nothing written, when the table exists or the game is a table of an event already."""
    try:
        _attach(db, event_id, table)
    except IntegrityError:
        return False
    return True


def _attach(db: Database, event_id: str, table: TableRecord) -> None:
    now = utc_now()
    with db.write() as conn, conn.begin():
        has_round = conn.execute(
            select(ROUNDS.c.number).where(ROUNDS.c.tournament_id == event_id, ROUNDS.c.number == table.round)
        ).first()
        if has_round is None:
            conn.execute(insert(ROUNDS).values(**_round_values(event_id, RoundRecord(table.round, (), now, None))))
        conn.execute(insert(TABLES).values(**_table_values(event_id, table)))


def add_seed(db: Database, event_id: str, seed: str) -> bool:
    """Add a seed (`-:text`) to the event's board set; False when the set is sealed (a board was dealt)."""
    with db.write() as conn, conn.begin():
        row = conn.execute(select(SETS.c.seeds, SETS.c.sealed_at).where(SETS.c.tournament_id == event_id)).first()
        if row is None or row.sealed_at is not None:
            return False
        seeds = [*orjson.loads(row.seeds), seed]
        conn.execute(update(SETS).where(SETS.c.tournament_id == event_id).values(seeds=_text(seeds)))
    return True


def close_round(db: Database, event_id: str, number: int) -> None:
    """Close a round: each of its tables has played every board it will."""
    now = utc_now()
    with db.write() as conn, conn.begin():
        conn.execute(
            update(ROUNDS)
            .where(ROUNDS.c.tournament_id == event_id, ROUNDS.c.number == number, ROUNDS.c.closed_at.is_(None))
            .values(closed_at=now)
        )
        conn.execute(
            update(TABLES)
            .where(TABLES.c.tournament_id == event_id, TABLES.c.round == number)
            .values(done_through=EVERY_BOARD, finished=True)
        )


# --------------------------------------------------------------------------- the dealer's reads and writes


def table_link(db: Database, game_id: str) -> dict[str, Any] | None:
    """The duplicate boards a game deals, with the set's secret (the dealer's read): `{event_id, round, table,
    genesis, seeds, secret, boards: [{number, hand, commitment}]}`, or None for a game that is no table of an
    event with boards."""
    with db.engine.connect() as conn:
        row = conn.execute(
            select(TABLES.c.tournament_id, TABLES.c.round, TABLES.c.number, SETS.c.genesis, SETS.c.seeds, SETS.c.secret)
            .join(SETS, SETS.c.tournament_id == TABLES.c.tournament_id)
            .where(TABLES.c.game_id == game_id)
        ).first()
        if row is None:
            return None
        boards = conn.execute(
            select(BOARDS.c.number, BOARDS.c.hand, BOARDS.c.commitment).where(
                BOARDS.c.tournament_id == row.tournament_id, BOARDS.c.round == row.round
            )
        ).all()
    return {
        "event_id": row.tournament_id,
        "round": row.round,
        "table": row.number,
        "genesis": row.genesis,
        "seeds": orjson.loads(row.seeds),
        "secret": row.secret,
        "boards": [{"number": b.number, "hand": b.hand, "commitment": b.commitment} for b in boards],
    }


def set_secret(db: Database, event_id: str) -> str | None:
    """The set's secret, in hex (the reveal's read), or None (no set, or an imported one)."""
    with db.engine.connect() as conn:
        row = conn.execute(select(SETS.c.secret).where(SETS.c.tournament_id == event_id)).first()
    return None if row is None else row.secret


def table_played(db: Database, event_id: str, number: int, table: int, done_through: int, finished: bool) -> bool:
    """Record that a table has finished its hands up to `done_through` (every board, when `finished`): True
    when that is further than it was."""
    done = EVERY_BOARD if finished else done_through
    with db.write() as conn, conn.begin():
        moved = conn.execute(
            update(TABLES)
            .where(
                TABLES.c.tournament_id == event_id,
                TABLES.c.round == number,
                TABLES.c.number == table,
                TABLES.c.done_through < done,
            )
            .values(done_through=done, finished=finished)
        )
    return bool(moved.rowcount)


def boards_ready(db: Database, event_id: str) -> list[int]:
    """The unrevealed boards of the event that every table of their round has finished (a round's table
    without a game yet has finished nothing)."""
    with db.engine.connect() as conn:
        done: dict[int, int] = dict(
            conn.execute(
                select(TABLES.c.round, func.min(TABLES.c.done_through))
                .where(TABLES.c.tournament_id == event_id)
                .group_by(TABLES.c.round)
            ).all()
        )
        waiting = conn.execute(
            select(BOARDS.c.number, BOARDS.c.round, BOARDS.c.hand).where(
                BOARDS.c.tournament_id == event_id, BOARDS.c.revealed_at.is_(None)
            )
        ).all()
    return sorted(b.number for b in waiting if b.round in done and b.hand <= done[b.round])


def unrevealed(db: Database, event_id: str, number: int | None = None) -> list[int]:
    """The numbers of the event's boards not revealed yet (of round `number` only, when given)."""
    query = select(BOARDS.c.number).where(BOARDS.c.tournament_id == event_id, BOARDS.c.revealed_at.is_(None))
    if number is not None:
        query = query.where(BOARDS.c.round == number)
    with db.engine.connect() as conn:
        return [row.number for row in conn.execute(query.order_by(BOARDS.c.number))]


def reveal_boards(db: Database, event_id: str, seeds: Mapping[int, str]) -> list[int]:
    """Publish the seeds of boards (number -> seed in hex) not revealed yet: the numbers revealed now."""
    now = utc_now()
    revealed = []
    with db.write() as conn, conn.begin():
        for number, seed in sorted(seeds.items()):
            done = conn.execute(
                update(BOARDS)
                .where(BOARDS.c.tournament_id == event_id, BOARDS.c.number == number, BOARDS.c.revealed_at.is_(None))
                .values(revealed_at=now, seed=seed)
            )
            if done.rowcount:
                revealed.append(number)
    return revealed


# --------------------------------------------------------------------------- what a reader may see


def held_hand(db: Database, game_id: str) -> int | None:
    """The lowest hand of a table game whose board is not revealed yet (a board still being played at a table
    of its round), or None: a game that deals no board, or whose boards are all revealed."""
    query = (
        select(func.min(BOARDS.c.hand))
        .select_from(
            TABLES.join(
                BOARDS, and_(BOARDS.c.tournament_id == TABLES.c.tournament_id, BOARDS.c.round == TABLES.c.round)
            )
        )
        .where(TABLES.c.game_id == game_id, BOARDS.c.revealed_at.is_(None))
    )
    with db.engine.connect() as conn:
        found = conn.execute(query).scalar()
    return None if found is None else int(found)


def held_games(db: Database, game_ids: Iterable[str] | None = None) -> dict[str, int]:
    """game id -> `held_hand`, for every table game with a board not revealed yet (of `game_ids` only, when
    given)."""
    query = (
        select(TABLES.c.game_id, func.min(BOARDS.c.hand))
        .select_from(
            TABLES.join(
                BOARDS, and_(BOARDS.c.tournament_id == TABLES.c.tournament_id, BOARDS.c.round == TABLES.c.round)
            )
        )
        .where(TABLES.c.game_id.is_not(None), BOARDS.c.revealed_at.is_(None))
        .group_by(TABLES.c.game_id)
    )
    if game_ids is not None:
        query = query.where(TABLES.c.game_id.in_(list(game_ids)))
    with db.engine.connect() as conn:
        return {row[0]: int(row[1]) for row in conn.execute(query)}


def event_of_game(db: Database, game_id: str) -> tuple[str, int, int] | None:
    """`(event id, round, table)` of a game that is a table of an event, else None."""
    with db.engine.connect() as conn:
        row = conn.execute(
            select(TABLES.c.tournament_id, TABLES.c.round, TABLES.c.number).where(TABLES.c.game_id == game_id)
        ).first()
    return None if row is None else (row.tournament_id, row.round, row.number)
