"""`event.read_by`: which read models read an event, decided once when its row is written.

Migrations 0012 and 0013 made the read models' partial indexes with the reads' own conditions: about
twenty substring tests (`instr`/`strpos`) on the JSON texts of each row. A partial index's WHERE is
evaluated for every row inserted (and on PostgreSQL made ready again for every statement executed, so for
every row of a driver's executemany), so every append paid for them: an append of 50 events took three
times the raw insert of the same rows on SQLite, two thirds of it in these two WHEREs. Now the writer
decides in Python, with the same filters (`events.store.mapper.ReadFlags`, told by `projections/readmodels`),
and stores the answer as bits: 1, the hand facts read the event; 2, the ratings do. Each index holds the
rows with its bit, and the rows without bits (NULL: written by a process that knows no read model), for
which the read tests the texts as before (`LogFilter.sql`): a missing bit makes a read slower, never wrong.

The rows stored before this revision get their bits here, from the texts, with the conditions of 0012 and
0013 as they were (`TEXTS`): one UPDATE of `read_by` alone, the append-only trigger lifted around it and
put back in the same transaction. The column is not hashed and not part of the envelope, so every chain
verifies as before. Each index's WHERE is the read's `LogFilter.index_sql`, text for text, and the bits'
conditions are the read's `LogFilter.texts_sql` (tests/projections/test_read_indexes.py): a later change
of a read model's filter needs a migration that decides the stored rows' bits again, like this one. Down
again puts back 0013's indexes, then drops the column (the bits are derived from the texts).

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

INITIAL = importlib.import_module("migrations.versions.0001_initial")
READS_0012 = importlib.import_module("migrations.versions.0012_read_model_indexes")
READS_0013 = importlib.import_module("migrations.versions.0013_narrower_ratings_index")

#: the bit of `read_by` each index holds
FLAGS = {"ix_event_hand_facts": 1, "ix_event_ratings": 2}
#: the condition each bit stands for, at this revision (`{find}` as in 0012)
TEXTS = {"ix_event_hand_facts": READS_0012.HAND_FACTS_WHERE, "ix_event_ratings": READS_0013.RATINGS_WHERE}
#: name -> the WHERE text (`LogFilter.index_sql` of the read)
INDEXES = {name: f"((read_by & {flag}) <> 0 OR read_by IS NULL)" for name, flag in FLAGS.items()}

where = READS_0012.where


def _indexes(texts: dict[str, str], dialect: str) -> None:
    order = "xact_id, position" if dialect == "postgresql" else "position"
    for name, text in texts.items():
        op.execute(f"CREATE INDEX {name} ON event ({order}) WHERE {where(text, dialect)}")


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.add_column("event", sa.Column("read_by", sa.SmallInteger(), nullable=True))
    for name in FLAGS:
        op.execute(f"DROP INDEX {name}")
    bits = " + ".join(
        f"(CASE WHEN {where(TEXTS[name], dialect)} THEN {flag} ELSE 0 END)" for name, flag in FLAGS.items()
    )
    if dialect == "postgresql":
        op.execute("DROP TRIGGER event_no_update ON event")
        op.execute(f"UPDATE event SET read_by = {bits}")
        op.execute(INITIAL.POSTGRES_TRIGGERS[1])
    else:
        op.execute("DROP TRIGGER event_no_update")
        op.execute(f"UPDATE event SET read_by = {bits}")
        op.execute(INITIAL.SQLITE_TRIGGERS[0])
    _indexes(INDEXES, dialect)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    for name in FLAGS:
        op.execute(f"DROP INDEX {name}")
    _indexes(TEXTS, dialect)
    op.drop_column("event", "read_by")
