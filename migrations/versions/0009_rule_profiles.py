"""Rule profiles: a club's named house rules, option values per game (`events.store.tables.RuleProfile`).

One table, `rule_profile`, keyed by (club, name); `options` is canonical JSON text `{kind: {option:
value}}`. A profile is copied into a game's options when the game is created with it (those options
are in the game's genesis hash; the profile is not), so removing or changing a profile changes no
record. Nothing else is touched: games made before read their options as before.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rule_profile",
        sa.Column("club_id", sa.Integer(), sa.ForeignKey("club.id"), nullable=False),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("options", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("club_id", "name"),
    )


def downgrade() -> None:
    op.drop_table("rule_profile")
