"""Copies (issue 20): `game.copy_of`, the club's game an import stored again on purpose is a copy of.

A record the club holds already is not imported again unless asked (`import --copy`, `?copy=true`);
when it is, the new game is a *copy*: a record, not a second result, which the ratings, the players'
statistics and the standings skip. One nullable column of `game`, NULL for an original.

Existing games are read, never their events: in each club, games with the same genesis hash (kind,
seats, options, created_at) and the same head hash are one chain stored more than once (a json or
jsonl export imported again with `copy=true` before this revision); the one whose events were written
first (lowest event `position`; the game id breaks a tie) stays the original, the others become its
copies. No event row is written, so every chain verifies as before; `tablebook rebuild` then drops
the copies' results from the ratings. Down again drops the column (in place, on SQLite too).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections import defaultdict

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("game", sa.Column("copy_of", sa.String(32), nullable=True))
    _mark_copies()


def _mark_copies() -> None:
    """Mark the second and later games of each (club, genesis hash, head hash) as copies of the first.

    Only the games of such groups are read (with the position of their first event); a database
    without copies reads one grouped pass over `game` and no event.
    """
    conn = op.get_bind()
    rows = conn.execute(
        sa.text(
            "SELECT g.id, g.club_id, g.genesis_hash, g.head_hash, "
            "(SELECT MIN(e.position) FROM event e WHERE e.game_id = g.id) AS first "
            "FROM game g JOIN ("
            "SELECT club_id, genesis_hash, head_hash FROM game "
            "GROUP BY club_id, genesis_hash, head_hash HAVING COUNT(*) > 1"
            ") r ON r.club_id = g.club_id AND r.genesis_hash = g.genesis_hash AND r.head_hash = g.head_hash"
        )
    ).all()
    groups: dict[tuple[int, str, str], list[tuple[float, str]]] = defaultdict(list)
    for game_id, club, genesis, head, first in rows:
        groups[(int(club), genesis, head)].append((float("inf") if first is None else float(first), game_id))
    mark = sa.text("UPDATE game SET copy_of = :original WHERE id = :id")
    for games in groups.values():
        games.sort()
        original = games[0][1]
        for _, game_id in games[1:]:
            conn.execute(mark, {"original": original, "id": game_id})


def downgrade() -> None:
    # a plain column (no key, no index): SQLite (3.35+) drops it in place; a batch's table copy would have
    # to drop `game`, which `game_player` and `event` refer to
    op.execute("ALTER TABLE game DROP COLUMN copy_of")
