"""`event.v`: the version of its type's shape each event was written in (events/upcast.py).

Records outlive the code: when the shape of an event type's data or derived result changes, the type
gets a new version and an upcast from the one before, and each envelope says which version wrote it.
The column is nullable and no row is written: an event stored before this revision has no `v`, reads
as version 1, and its hash (which covers the envelope's fields as they were, without `v`) verifies as
before. Down again drops the column, but only while no event records a version (the older code could
not check the hash of one that does).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("event", sa.Column("v", sa.Integer(), nullable=True))


def downgrade() -> None:
    versioned = op.get_bind().execute(sa.text("SELECT count(*) FROM event WHERE v IS NOT NULL")).scalar_one()
    if versioned:
        raise RuntimeError(
            f"{versioned} events record the version they were written in; the code before revision 0014 cannot "
            "verify them: keep this revision (or restore a backup taken before it)"
        )
    op.drop_column("event", "v")
