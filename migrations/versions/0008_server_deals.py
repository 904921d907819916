"""The `server_seed` table: the secret of each server-dealt deck until its reveal (rules/server-deal.md).

One row per `deck_committed`: the game, the commitment (sha256 of the seed), the hand, the 32 secret
bytes in hex, and when it was made. Written in the append's transaction; read only by the write side.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "server_seed",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("hand", sa.Integer(), nullable=False),
        sa.Column("seed", sa.String(64), nullable=False),
        sa.Column("created_at", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.PrimaryKeyConstraint("game_id", "commitment"),
    )


def downgrade() -> None:
    op.drop_table("server_seed")
