"""An index on (game_id, hand, seq): where a game's hidden hands begin, for withholding hashes from viewers.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_event_game_hand_seq", "event", ["game_id", "hand", "seq"])


def downgrade() -> None:
    op.drop_index("ix_event_game_hand_seq", table_name="event")
