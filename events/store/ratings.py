"""The ratings read model's rows (`rating_change`) and checkpoint, and the queries over them: SQL only.

`projections/readmodels/ratings/` decides the changes; this writes a page of them with the checkpoint move
in one transaction (guarded like the hand facts, `events/store/tracking.py`), empties them for a
rebuild, and answers: a player's latest rating per pool, their history, a pool's leaderboard. For a
correction (a retract of a rated result) it finds the first change the retract takes back, reads the
changes from there on and the ratings just before it, and replaces those changes in the page's transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select

from events.codec import loads
from events.store.base import GAMES, Database
from events.store.players import SEATS
from events.store.tables import RatingChange
from events.store.tracking import (
    Lost,
    advance,
    check_checkpoint,
    emptied_fast,
    insert_rows,
    move_checkpoint,
    reset_checkpoint,
    unsynced_write,
)

CHANGES = RatingChange.__table__  # type: ignore[attr-defined]


def change_dict(row: Any) -> dict[str, Any]:
    """A `rating_change` row as a plain dict (opponents decoded), without its row id."""
    out = dict(row._mapping)
    out.pop("id", None)
    out["opponents"] = loads(out["opponents"])
    return out


#: the columns of a `rating_change` row a rating writes, in the insert's order
CHANGE_COLUMNS = (
    "club_id",
    "game_id",
    "kind",
    "pool",
    "hand",
    "seq",
    "position",
    "seat",
    "player_id",
    "mu_before",
    "sigma_before",
    "mu_after",
    "sigma_after",
    "expected",
    "actual",
    "opponents",
    "recorded_at",
)


@dataclass(frozen=True, slots=True)
class Rewrite:
    """What a correction does to the stored changes, before the page's own rows are written: every change from
    the row id `replace_from` on deleted (the page's rows then begin with their replacements), or, when few
    change, the changes `deletes` (row ids) deleted and `updates` made in place, each
    `(mu_before, sigma_before, mu_after, sigma_after, expected, opponents, id)` (`UPDATED`): the other rows
    keep their ids, so the order stays the log's."""

    replace_from: int | None = None
    deletes: Sequence[int] = ()
    updates: Sequence[tuple[Any, ...]] = ()


#: the columns of a change that a correction may change in place, in `Rewrite.updates` order (then the id)
UPDATED = ("mu_before", "sigma_before", "mu_after", "sigma_after", "expected", "opponents")


class RatingRecorder:
    """Rating changes and their checkpoint."""

    def __init__(self, db: Database) -> None:
        self.db = db
        #: a game's retracts, over migration 0012's partial index `ix_event_retracts` (its WHERE, a literal)
        self._update = db.sql(f"UPDATE rating_change SET {', '.join(c + ' = ?' for c in UPDATED)} WHERE id = ?")
        self._retracts = (
            "SELECT game_id, seq, data FROM event WHERE type = 'retract' AND game_id IN ({}) ORDER BY game_id, seq"
        )

    def commit_ratings(
        self, name: str, *, old: int, new: int, rows: Sequence[Sequence[Any]], rewrite: Rewrite | None = None
    ) -> bool:
        """Write a page's rating changes (tuples in `CHANGE_COLUMNS` order) and move the checkpoint `name` from
        `old` to `new`, in one transaction (`tracking.insert_rows`: SQLite's executemany, PostgreSQL's COPY),
        after the `rewrite` of a correction if any.

        False, and nothing written, when another process moved the checkpoint first (it did this work).
        """
        if old != 0 and not rows and rewrite is None:
            return advance(self.db, name, old, new)
        try:
            with unsynced_write(self.db) as conn:
                check_checkpoint(conn, name, old)
                if rewrite is not None:
                    self._rewrite(conn, rewrite)
                insert_rows(conn, self.db.dialect, "rating_change", CHANGE_COLUMNS, rows)
                move_checkpoint(conn, name, old, new)
        except Lost:
            return False
        return True

    def _rewrite(self, conn: Any, rewrite: Rewrite) -> None:
        if rewrite.replace_from is not None:
            with emptied_fast(conn, self.db.dialect):
                conn.execute(CHANGES.delete().where(CHANGES.c.id >= rewrite.replace_from))
        ids = sorted(rewrite.deletes)
        for start in range(0, len(ids), 500):
            conn.execute(CHANGES.delete().where(CHANGES.c.id.in_(ids[start : start + 500])))
        if rewrite.updates:
            conn.exec_driver_sql(self._update, list(rewrite.updates))

    def reset_ratings(self, name: str) -> None:
        """Empty the ratings and put their checkpoint back to 0 (before a rebuild)."""
        with self.db.write() as conn, conn.begin(), emptied_fast(conn, self.db.dialect):
            conn.execute(CHANGES.delete())
            reset_checkpoint(conn, name)

    def latest(
        self, keys: Iterable[tuple[str, str]], *, before: int | None = None
    ) -> dict[tuple[str, str], tuple[float, float, int]]:
        """`{(player_id, pool): (mu, sigma, results)}`: the rating after each player's last change in each pool
        (with `before`: their last change with a row id below it)."""
        wanted = set(keys)
        if not wanted:
            return {}
        players = sorted({p for p, _ in wanted})
        bound = () if before is None else (CHANGES.c.id < before,)
        out: dict[tuple[str, str], tuple[float, float, int]] = {}
        with self.db.engine.connect() as conn:
            for start in range(0, len(players), 500):
                some = players[start : start + 500]
                last = (
                    select(
                        CHANGES.c.player_id, CHANGES.c.pool, func.max(CHANGES.c.id).label("id"), func.count().label("n")
                    )
                    .where(CHANGES.c.player_id.in_(some), *bound)
                    .group_by(CHANGES.c.player_id, CHANGES.c.pool)
                    .subquery()
                )
                query = select(
                    CHANGES.c.player_id, CHANGES.c.pool, CHANGES.c.mu_after, CHANGES.c.sigma_after, last.c.n
                ).join(last, last.c.id == CHANGES.c.id)
                for row in conn.execute(query):
                    key = (row.player_id, row.pool)
                    if key in wanted:
                        out[key] = (float(row.mu_after), float(row.sigma_after), int(row.n))
        return out

    def retracts_of(self, game_ids: Sequence[str]) -> dict[str, list[tuple[int, int]]]:
        """`{game_id: [(seq, to_seq)]}`: every retract these games hold (their later ones too)."""
        out: dict[str, list[tuple[int, int]]] = {}
        ids = sorted(set(game_ids))
        for start in range(0, len(ids), 500):
            some = ids[start : start + 500]
            query = self.db.sql(self._retracts.format(", ".join("?" * len(some))))
            for game_id, seq, data in self.db.rows(query, some):
                out.setdefault(game_id, []).append((int(seq), int(loads(data)["to_seq"])))
        return out

    def first_taken_back(self, game_id: str, to_seq: int, at_seq: int) -> int | None:
        """The row id of the game's first rating change that a retract at `at_seq` back to `to_seq` takes back
        (a change from an event between the two), None when there is none."""
        query = select(func.min(CHANGES.c.id)).where(
            CHANGES.c.game_id == game_id, CHANGES.c.seq > to_seq, CHANGES.c.seq < at_seq
        )
        with self.db.engine.connect() as conn:
            found = conn.execute(query).scalar()
        return None if found is None else int(found)

    def changes_from(self, first_id: int) -> list[tuple[Any, ...]]:
        """Every rating change from the row id `first_id` on, in order, as `CHANGE_COLUMNS` tuples (opponents
        left encoded) with the row id last: what a correction re-derives."""
        query = self.db.sql(f"SELECT {', '.join(CHANGE_COLUMNS)}, id FROM rating_change WHERE id >= ? ORDER BY id")
        return [tuple(row) for row in self.db.rows(query, (first_id,))]

    def history(self, player_id: str, pool: str | None = None) -> list[dict[str, Any]]:
        """A player's rating changes, oldest first, with the game's creation time."""
        query = (
            select(CHANGES, GAMES.c.created_at.label("game_created_at"))
            .join(GAMES, GAMES.c.id == CHANGES.c.game_id)
            .where(CHANGES.c.player_id == player_id)
        )
        if pool is not None:
            query = query.where(CHANGES.c.pool == pool)
        with self.db.engine.connect() as conn:
            return [change_dict(row) for row in conn.execute(query.order_by(CHANGES.c.id))]

    def rows(self) -> list[dict[str, Any]]:
        """Every rating change in order, without row ids or write times (to compare a rebuild)."""
        with self.db.engine.connect() as conn:
            found = [change_dict(row) for row in conn.execute(select(CHANGES).order_by(CHANGES.c.id))]
        for row in found:
            row.pop("recorded_at", None)
        return found

    def changes_in(
        self,
        club_id: int,
        pools: Sequence[str],
        *,
        since: str | None = None,
        until: str | None = None,
        event: str | None = None,
        round: str | None = None,
    ) -> list[dict[str, Any]]:
        """The rating changes of a club's games in these pools, in order, for games created in the range
        and with these labels: what a leaderboard is made of."""
        query = (
            select(CHANGES, GAMES.c.winner, GAMES.c.status, GAMES.c.created_at.label("game_created_at"))
            .join(GAMES, GAMES.c.id == CHANGES.c.game_id)
            .where(CHANGES.c.club_id == club_id, CHANGES.c.pool.in_(list(pools)))
        )
        if since is not None:
            query = query.where(GAMES.c.created_at >= since)
        if until is not None:
            query = query.where(GAMES.c.created_at < until)
        if event is not None:
            query = query.where(GAMES.c.event_name == event)
        if round is not None:
            query = query.where(GAMES.c.round_name == round)
        with self.db.engine.connect() as conn:
            return [change_dict(row) for row in conn.execute(query.order_by(CHANGES.c.id))]

    def player_games(self, player_id: str) -> list[dict[str, Any]]:
        """`{game_id, seat, kind, status, winner, totals, created_at, players}` of every game the player sat in."""
        query = (
            select(SEATS.c.seat, GAMES)
            .join(GAMES, GAMES.c.id == SEATS.c.game_id)
            .where(SEATS.c.player_id == player_id)
            .order_by(GAMES.c.created_at.desc(), GAMES.c.id.desc())
        )
        with self.db.engine.connect() as conn:
            return [
                {
                    "game_id": row.id,
                    "seat": int(row.seat),
                    "kind": row.kind,
                    "status": row.status,
                    "winner": row.winner,
                    "totals": loads(row.totals),
                    "created_at": row.created_at,
                    "players": loads(row.players),
                    "event": row.event_name,
                    "round": row.round_name,
                }
                for row in conn.execute(query)
            ]
