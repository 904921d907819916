"""`event.read_by`: which read models read an event, decided once when its row is written.

Migrations 0012 and 0013 made the read models' partial indexes with the reads' own conditions: about
twenty substring tests (`instr`/`strpos`) on the JSON texts of each row. A partial index's WHERE is
evaluated for every row inserted, so every append paid for them (an append of 50 events took three times
the raw insert of the same rows on SQLite, two thirds of it in these two WHEREs). Now the writer decides
in Python, with the same filters (`events.store.mapper.ReadFlags`, told by `projections/readmodels`), and
stores the answer as bits: 1, the hand facts read the event; 2, the ratings do. The indexes test the bit.

The column is not hashed (the envelope and its hash are unchanged) and no row is written or changed:
an event stored before this revision, or by a writer that knows no read models, has NULL and is tested
on its texts, with the conditions of 0012/0013 as they were, which each index keeps behind
`read_by IS NULL`. So every stored event is read as before and every chain verifies as before. Each WHERE
is still the read's own SQL, text for text (`LogFilter.sql` with its `flag`;
tests/projections/test_read_indexes.py). A later change of a read model's filter needs a migration that
decides the stored rows' bits again (an UPDATE of `read_by` alone, the triggers lifted around it: the
column is not hashed) or sets them NULL, besides the index's new text. Down again puts back 0013's
indexes, then drops the column (the bits are derived from the texts, nothing is lost).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-06
"""

from __future__ import annotations

import importlib

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

READS_0012 = importlib.import_module("migrations.versions.0012_read_model_indexes")
READS_0013 = importlib.import_module("migrations.versions.0013_narrower_ratings_index")

#: the bit of `read_by` each index tests, and the condition a row without bits is tested on
FLAGS = {"ix_event_hand_facts": 1, "ix_event_ratings": 2}
TEXTS = {"ix_event_hand_facts": READS_0012.HAND_FACTS_WHERE, "ix_event_ratings": READS_0013.RATINGS_WHERE}

#: name -> the WHERE text (`LogFilter.sql` of the read with its flag); `{find}` as in 0012
INDEXES = {name: f"((read_by & {FLAGS[name]}) <> 0 OR (read_by IS NULL AND {TEXTS[name]}))" for name in FLAGS}

where = READS_0012.where


def _make(texts: dict[str, str]) -> None:
    dialect = op.get_bind().dialect.name
    order = "xact_id, position" if dialect == "postgresql" else "position"
    for name, text in texts.items():
        op.execute(f"DROP INDEX {name}")
        op.execute(f"CREATE INDEX {name} ON event ({order}) WHERE {where(text, dialect)}")


def upgrade() -> None:
    op.add_column("event", sa.Column("read_by", sa.SmallInteger(), nullable=True))
    _make(INDEXES)


def downgrade() -> None:
    _make(TEXTS)
    op.drop_column("event", "read_by")
