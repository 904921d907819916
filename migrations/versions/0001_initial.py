"""The record: clubs, keys, games, events (append-only), idempotent requests.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

SQLITE_TRIGGERS = [
    """CREATE TRIGGER event_no_update BEFORE UPDATE ON event
       BEGIN SELECT RAISE(ABORT, 'event is append-only: UPDATE refused'); END""",
    """CREATE TRIGGER event_no_delete BEFORE DELETE ON event
       BEGIN SELECT RAISE(ABORT, 'event is append-only: DELETE refused'); END""",
]

POSTGRES_TRIGGERS = [
    """CREATE OR REPLACE FUNCTION event_append_only() RETURNS trigger AS $$
       BEGIN
         RAISE EXCEPTION 'event is append-only: % refused', TG_OP;
       END;
       $$ LANGUAGE plpgsql""",
    """CREATE TRIGGER event_no_update BEFORE UPDATE ON event
       FOR EACH ROW EXECUTE FUNCTION event_append_only()""",
    """CREATE TRIGGER event_no_delete BEFORE DELETE ON event
       FOR EACH ROW EXECUTE FUNCTION event_append_only()""",
    """CREATE TRIGGER event_no_truncate BEFORE TRUNCATE ON event
       FOR EACH STATEMENT EXECUTE FUNCTION event_append_only()""",
]


def upgrade() -> None:
    op.create_table(
        "club",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.Text(), nullable=False, unique=True),
        sa.Column("created_at", sa.Text(), nullable=False),
    )
    op.create_table(
        "api_key",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("club_id", sa.Integer(), sa.ForeignKey("club.id"), nullable=False, index=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("label", sa.Text(), nullable=False, server_default=""),
        sa.Column("created_at", sa.Text(), nullable=False),
        sa.Column("revoked_at", sa.Text(), nullable=True),
    )
    op.create_table(
        "game",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("club_id", sa.Integer(), sa.ForeignKey("club.id"), nullable=False, index=True),
        sa.Column("kind", sa.String(32), nullable=False, index=True),
        sa.Column("players", sa.Text(), nullable=False),
        sa.Column("options", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Text(), nullable=False, index=True),
        sa.Column("updated_at", sa.Text(), nullable=False),
        sa.Column("genesis_hash", sa.String(64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("hand", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("totals", sa.Text(), nullable=False),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("head_hash", sa.String(64), nullable=False),
    )
    op.create_table(
        "event",
        sa.Column("position", BigId, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("game.id"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("hand", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("result", sa.Text(), nullable=False),
        sa.Column("violation", sa.Text(), nullable=True),
        sa.Column("recorded_at", sa.Text(), nullable=False),
        sa.Column("actor", sa.String(64), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.UniqueConstraint("game_id", "seq", name="uq_event_game_seq"),
    )
    op.create_table(
        "append_request",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("game.id"), primary_key=True),
        sa.Column("idempotency_key", sa.String(200), primary_key=True),
        sa.Column("body_hash", sa.String(64), nullable=False),
        sa.Column("first_seq", sa.Integer(), nullable=False),
        sa.Column("last_seq", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Text(), nullable=False),
    )
    triggers = POSTGRES_TRIGGERS if op.get_bind().dialect.name == "postgresql" else SQLITE_TRIGGERS
    for statement in triggers:
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS event_no_truncate ON event")
        op.execute("DROP TRIGGER IF EXISTS event_no_delete ON event")
        op.execute("DROP TRIGGER IF EXISTS event_no_update ON event")
        op.execute("DROP FUNCTION IF EXISTS event_append_only()")
    else:
        op.execute("DROP TRIGGER IF EXISTS event_no_delete")
        op.execute("DROP TRIGGER IF EXISTS event_no_update")
    for table in ("append_request", "event", "game", "api_key", "club"):
        op.drop_table(table)
