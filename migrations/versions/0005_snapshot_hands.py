"""The `snapshot_hand` table: each finished hand of a snapshot's history kept once, a cache
(projections/core/snapshots.py).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "snapshot_hand",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("version", sa.String(64), nullable=False),
        sa.Column("idx", sa.Integer(), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("prev", sa.String(64), nullable=False),
        sa.Column("hand", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "version", "idx", "digest"),
    )


def downgrade() -> None:
    op.drop_table("snapshot_hand")
