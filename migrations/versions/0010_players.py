"""Players as records (issue 20): `player`, `game_player` (a game's seats -> player ids), `rating_change`.

Existing games are read, never their events: every distinct name in a club's `game.players` becomes
one player of that club (names are matched exactly, as the erasure matched them before; players that
are one person under two spellings are merged afterwards, `tablebook players merge`), and each seat
of each game gets its `game_player` row. `game.players` stays as it was: the display copy of the
names. `rating_change` is an empty read model (`tablebook rebuild` fills it). No event row is read
or written, so every chain verifies as before. Down again drops the three tables.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "player",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("club_id", sa.Integer(), sa.ForeignKey("club.id"), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("aliases", sa.Text(), nullable=False, server_default="[]"),
        sa.Column("created_at", sa.Text(), nullable=False),
        sa.Column("merged_into", sa.String(32), nullable=True),
        sa.Column("erased_at", sa.Text(), nullable=True),
    )
    op.create_index("ix_player_club_id", "player", ["club_id"])
    op.create_table(
        "game_player",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("game.id"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("player.id"), nullable=False),
    )
    op.create_index("ix_game_player_player_id", "game_player", ["player_id"])
    op.create_table(
        "rating_change",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("pool", sa.String(48), nullable=False),
        sa.Column("hand", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("position", BigId, nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        sa.Column("expected", sa.Float(), nullable=False),
        sa.Column("actual", sa.Float(), nullable=False),
        sa.Column("opponents", sa.Text(), nullable=False),
        sa.Column("recorded_at", sa.Text(), nullable=False),
    )
    op.create_index("ix_rating_change_club_id", "rating_change", ["club_id"])
    op.create_index("ix_rating_change_game_id", "rating_change", ["game_id"])
    op.create_index("ix_rating_change_player_pool", "rating_change", ["player_id", "pool", "id"])
    _players_from_games()


def _players_from_games() -> None:
    """One player per distinct name per club, and one `game_player` row per seat of every game."""
    conn = op.get_bind()
    game = sa.table("game", sa.column("id"), sa.column("club_id"), sa.column("players"), sa.column("created_at"))
    player = sa.table(
        "player",
        sa.column("id"),
        sa.column("club_id"),
        sa.column("name"),
        sa.column("aliases"),
        sa.column("created_at"),
    )
    seat_row = sa.table("game_player", sa.column("game_id"), sa.column("seat"), sa.column("player_id"))
    now = datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
    known: dict[tuple[int, str], str] = {}
    players: list[dict[str, object]] = []
    seats: list[dict[str, object]] = []
    query = sa.select(game.c.id, game.c.club_id, game.c.players).order_by(game.c.created_at, game.c.id)
    for game_id, club_id, names in conn.execute(query):
        for seat, name in enumerate(json.loads(names)):
            key = (int(club_id), str(name))
            if key not in known:
                known[key] = "p" + secrets.token_hex(6)
                players.append(
                    {"id": known[key], "club_id": club_id, "name": str(name), "aliases": "[]", "created_at": now}
                )
            seats.append({"game_id": game_id, "seat": seat, "player_id": known[key]})
    if players:
        conn.execute(sa.insert(player), players)
    if seats:
        conn.execute(sa.insert(seat_row), seats)


def downgrade() -> None:
    op.drop_table("rating_change")
    op.drop_table("game_player")
    op.drop_table("player")
