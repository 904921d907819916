"""The ratings' partial index reads no deal but Gin's: `ix_event_ratings` made again with the new WHERE.

The ratings read a hand's context from Seven and a Half's bets and Gin's roles. They used to ask for
every `deal` and `cut` by type, which is every deal of every game (a Casino, Smear or Schnapsen deal,
and a Seven and a Half one, give nothing to a rating, and a deal's cards are most of the bytes a page
reads: about one row in three of what the ratings read). Gin's deal and cut name the roles in their
result, so they are asked for by the mark `"captain"` instead (`projections.readmodels.ratings.READS`). Nothing
else changes: the WHERE is still the read's own SQL, text for text (tests/projections/test_read_indexes.py),
no event row is written or changed. Down again puts back 0012's index.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02
"""

from __future__ import annotations

import importlib

from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

PREVIOUS = importlib.import_module("migrations.versions.0012_read_model_indexes")

#: the text of `projections.readmodels.ratings.READS.sql` at this revision; `{find}` as in 0012
RATINGS_WHERE = (
    "(type IN ('bet', 'retract') OR seq = 1 OR {find}(result, '\"captain\"') > 0 "
    "OR {find}(result, '\"game_ended\"') > 0 OR {find}(result, '\"hand_ended\"') > 0)"
)

#: name -> the WHERE text, for the indexes this revision makes
INDEXES = {"ix_event_ratings": RATINGS_WHERE}

where = PREVIOUS.where


def _make(text: str) -> None:
    dialect = op.get_bind().dialect.name
    order = "xact_id, position" if dialect == "postgresql" else "position"
    op.execute("DROP INDEX ix_event_ratings")
    op.execute(f"CREATE INDEX ix_event_ratings ON event ({order}) WHERE {where(text, dialect)}")


def upgrade() -> None:
    _make(RATINGS_WHERE)


def downgrade() -> None:
    _make(PREVIOUS.RATINGS_WHERE)
