"""The snapshot cache: folded states at hand boundaries (`projections/core/snapshots.py`), not part of the record.

Rows are keyed by the game's code version, so a changed rule module never reads another's; deleting
every row loses nothing (the events are the record), which is why these writes may race freely: a row
already there is left as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select

from events.codec import utc_now
from events.store.base import GAMES, Database, clamp
from events.store.tables import Snapshot, SnapshotHand

SNAPSHOTS = Snapshot.__table__  # type: ignore[attr-defined]
SNAPSHOT_HANDS = SnapshotHand.__table__  # type: ignore[attr-defined]


class SnapshotCache:
    """Reads and writes of the `snapshot` and `snapshot_hand` tables."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def read_snapshot(self, game_id: str, version: str, at_most: int) -> tuple[int, str] | None:
        """The newest snapshot `(seq, state text)` of a game at or below seq `at_most`, for that code version."""
        rows = self.db.query(
            "SELECT seq, state FROM snapshot WHERE game_id = ? AND version = ? AND seq <= ? ORDER BY seq DESC LIMIT 1",
            (game_id, version, clamp(at_most)),
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
        now = utc_now()
        with self.db.write() as conn, conn.begin():
            head = conn.execute(select(GAMES.c.seq).where(GAMES.c.id == game_id)).scalar()
            rows = [(game_id, version, seq, text, now) for seq, text in states if head is not None and 0 <= seq <= head]
            if not rows:
                return 0
            if hands:  # one prepared INSERT run for every row (executemany): no statement built per row
                conn.exec_driver_sql(
                    "INSERT INTO snapshot_hand (game_id, version, idx, digest, prev, hand, created_at) "
                    f"VALUES ({self.db.dialect.marks(7)}) ON CONFLICT DO NOTHING",
                    [(game_id, version, idx, digest, prev, text, now) for idx, digest, prev, text in hands],
                )
            # the same for the snapshots; the rows written are the drivers' summed rowcount (sqlite3 and
            # psycopg 3 both add up an executemany's rows): a multi-row INSERT ... RETURNING built here was
            # compiled anew on every call (SQLAlchemy caches no statement whose VALUES vary in length),
            # about a quarter of the CPU of a game's first load
            written = conn.exec_driver_sql(
                "INSERT INTO snapshot (game_id, version, seq, state, created_at) "
                f"VALUES ({self.db.dialect.marks(5)}) ON CONFLICT DO NOTHING",
                rows,
            ).rowcount
            return int(written or 0)

    def delete_snapshots(self, game_id: str | None = None) -> int:
        """Drop the snapshots of a game (every game's when None), and their hand rows: nothing of the record is lost."""
        self.delete_snapshot_hands(game_id)
        table = SNAPSHOTS
        query = table.delete() if game_id is None else table.delete().where(table.c.game_id == game_id)
        with self.db.write() as conn, conn.begin():
            return int(conn.execute(query).rowcount or 0)

    def delete_snapshot_hands(self, game_id: str | None = None, *, from_idx: int = 0) -> int:
        """Drop the hand rows of a game's snapshots (every game's when None), those from hand index `from_idx` on."""
        table = SNAPSHOT_HANDS
        query = table.delete().where(table.c.idx >= from_idx)
        if game_id is not None:
            query = query.where(table.c.game_id == game_id)
        with self.db.write() as conn, conn.begin():
            return int(conn.execute(query).rowcount or 0)

    def read_snapshot_hands(self, game_id: str, version: str, below: int) -> list[tuple[int, str, str, str]]:
        """The hand rows `(idx, digest, prev, text)` of a game's snapshots of one version with `idx < below`."""
        rows = self.db.query(
            "SELECT idx, digest, prev, hand FROM snapshot_hand WHERE game_id = ? AND version = ? AND idx < ?",
            (game_id, version, clamp(below)),
        )
        return [(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]

    def snapshot_seqs(self, game_id: str, version: str | None = None) -> list[int]:
        """The seqs a game has snapshots at (of one code version, or any), in order."""
        if version is None:
            rows = self.db.query("SELECT DISTINCT seq FROM snapshot WHERE game_id = ? ORDER BY seq", (game_id,))
        else:
            rows = self.db.query(
                "SELECT seq FROM snapshot WHERE game_id = ? AND version = ? ORDER BY seq", (game_id, version)
            )
        return [int(r[0]) for r in rows]
