"""Events (club evenings, tournaments) as records: `tournament`, its rounds, tables, board set and boards.

An event has players, a game, a movement (who sits where in each round) and, when it plays duplicate, a
set of boards committed once (projections/core/boards.py). Its tables are ordinary games, linked by
`tournament_table.game_id`; games keep their `event`/`round`/`table` labels (migration 0007), and an older
game can be attached to an event's table. No event row is read or written, so every chain verifies as
before. Down again drops the five tables (the games stay, with their labels).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournament",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("club_id", sa.Integer(), sa.ForeignKey("club.id"), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("category", sa.String(16), nullable=False),
        sa.Column("players", sa.Text(), nullable=False),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("movement", sa.String(16), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("options", sa.Text(), nullable=False),
        sa.Column("boards", sa.Integer(), nullable=False),
        sa.Column("scoring", sa.String(16), nullable=False),
        sa.Column("created_at", sa.Text(), nullable=False),
        sa.Column("created_by", sa.String(64), nullable=False),
        sa.Column("source_id", sa.String(32), nullable=True),
    )
    op.create_index("ix_tournament_club_id", "tournament", ["club_id"])
    op.create_table(
        "tournament_round",
        sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournament.id"), primary_key=True),
        sa.Column("number", sa.Integer(), primary_key=True),
        sa.Column("sit_out", sa.Text(), nullable=False),
        sa.Column("started_at", sa.Text(), nullable=True),
        sa.Column("closed_at", sa.Text(), nullable=True),
    )
    op.create_table(
        "tournament_table",
        sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournament.id"), primary_key=True),
        sa.Column("round", sa.Integer(), primary_key=True),
        sa.Column("number", sa.Integer(), primary_key=True),
        sa.Column("players", sa.Text(), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=True, unique=True),
        sa.Column("done_through", sa.Integer(), nullable=False),
        sa.Column("finished", sa.Boolean(), nullable=False),
    )
    op.create_table(
        "board_set",
        sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournament.id"), primary_key=True),
        sa.Column("genesis", sa.String(64), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("secret", sa.String(64), nullable=True),
        sa.Column("seeds", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Text(), nullable=False),
        sa.Column("sealed_at", sa.Text(), nullable=True),
    )
    op.create_table(
        "board",
        sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournament.id"), primary_key=True),
        sa.Column("number", sa.Integer(), primary_key=True),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("hand", sa.Integer(), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("revealed_at", sa.Text(), nullable=True),
        sa.Column("seed", sa.String(64), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("board")
    op.drop_table("board_set")
    op.drop_table("tournament_table")
    op.drop_table("tournament_round")
    op.drop_table("tournament")
