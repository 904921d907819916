"""PostgreSQL: each event keeps its transaction's id, so the global order needs no append lock.

`event.xact_id xid8 NOT NULL DEFAULT pg_current_xact_id()`, and an index on `(xact_id, position)`:
the log reader (`events/store/log.py`) reads in that order, below the oldest running transaction,
and never skips an event that commits late (the proof is in its docstring). Rows already there get
0: they committed under the old global lock, in position order, and come first in that order. The
default fills the column on every insert, so no statement names it. Adding a column with a constant
default rewrites nothing and fires no UPDATE trigger. SQLite has one writer and needs nothing.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-15
"""

from __future__ import annotations

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("ALTER TABLE event ADD COLUMN xact_id xid8 NOT NULL DEFAULT '0'")
    op.execute("ALTER TABLE event ALTER COLUMN xact_id SET DEFAULT pg_current_xact_id()")
    op.execute("CREATE INDEX ix_event_xact_position ON event (xact_id, position)")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("DROP INDEX ix_event_xact_position")
    op.execute("ALTER TABLE event DROP COLUMN xact_id")
