"""Read models for search (hand facts and their checkpoint) and share tokens.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "hand_fact",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("club_id", sa.Integer(), nullable=False, index=True),
        sa.Column("game_id", sa.String(32), nullable=False, index=True),
        sa.Column("hand", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("situation", sa.String(32), nullable=False, index=True),
        sa.Column("seat", sa.Integer(), nullable=True),
    )
    op.create_table(
        "projection_checkpoint",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("position", BigId, nullable=False, server_default="0"),
        sa.Column("updated_at", sa.Text(), nullable=False),
    )
    op.create_table(
        "share_token",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("club_id", sa.Integer(), sa.ForeignKey("club.id"), nullable=False, index=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("game.id"), nullable=False, index=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_by", sa.String(64), nullable=False),
        sa.Column("created_at", sa.Text(), nullable=False),
        sa.Column("revoked_at", sa.Text(), nullable=True),
    )


def downgrade() -> None:
    for table in ("share_token", "projection_checkpoint", "hand_fact"):
        op.drop_table(table)
