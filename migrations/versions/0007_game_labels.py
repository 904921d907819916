"""A game's event, round and table: optional labels given at creation (`POST /v1/games`).

Three nullable text columns of `game`: `event_name` ("Winter league"), `round_name` ("3"), `table_name`
("2"). They are registry metadata, like the players' names: in no hash (the genesis record is game, seats,
options and created_at), so they can be given, shown and exported without touching a chain. Games created
before have none (NULL). SQLite drops columns in a batch (a table copy), PostgreSQL directly.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-20
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

COLUMNS = ("event_name", "round_name", "table_name")


def upgrade() -> None:
    for name in COLUMNS:
        op.add_column("game", sa.Column(name, sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("game") as batch:
        for name in reversed(COLUMNS):
            batch.drop_column(name)
