"""Partial indexes on `event` for the two read models, so a rebuild reads only the events it needs.

- `ix_event_hand_facts`: the events a game's `situations` can tag, and the retracts (the WHERE is
  `projections.readmodels.hand_facts.READS`' SQL, made from each game's `situation_reads`).
- `ix_event_ratings`: the events that may settle a rated result or give a hand's context (the WHERE
  is `projections.readmodels.ratings.READS`' SQL).
- `ix_event_retracts`: every retract by game and seq (the ratings ask which results a game's retracts
  take back).

Each WHERE is the read's own condition, text for text: SQLite and PostgreSQL use a partial index only
for a query whose WHERE holds the index's (tests/projections/test_read_indexes.py checks the texts
against the code and EXPLAINs the reads on both stores). A game that changes its `situation_reads`
needs a new migration with the new text (the test says so); until then the read is the same, only
slower. The order is the log reader's: `position` on SQLite, `(xact_id, position)` on PostgreSQL
(migration 0006). Building them reads the event table once; no event row is written or changed, so
every chain verifies as before. Down again drops the three indexes.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

#: the texts of `LogFilter.sql` for the two read models at this revision; `{find}` is SQLite's `instr`,
#: PostgreSQL's `strpos` (both: a plain substring, no wildcards)
HAND_FACTS_WHERE = (
    "(type IN ('bank_passed', 'bid', 'build', 'close', 'exchange_trump', 'knock', 'lay_off', 'retract', "
    "'session_closed', 'split') OR {find}(result, '\"all_bust\"') > 0 OR {find}(result, '\"bank_taken_by\"') > 0 "
    "OR {find}(result, '\"banker_bust\"') > 0 OR {find}(result, '\"builds\"') > 0 OR {find}(result, '\"bust\"') > 0 "
    "OR {find}(result, '\"drawn\"') > 0 OR {find}(result, '\"jack_won_by\"') > 0 OR {find}(result, '\"made\"') > 0 "
    "OR {find}(result, '\"pair_of_sevens\"') > 0 OR {find}(result, '\"schnapsen.closer_failed\"') > 0 "
    "OR {find}(result, '\"seven_and_a_half\"') > 0 OR {find}(result, '\"sweeps\"') > 0 "
    "OR {find}(result, '\"three_faces\"') > 0 OR {find}(result, '\"thrown_in\"') > 0 "
    "OR {find}(result, '\"two_card\"') > 0 OR {find}(result, '\"upcard\"') > 0 OR {find}(result, '\"voided\"') > 0 "
    "OR {find}(data, '\"face_down\"') > 0 OR {find}(data, '\"marriage\"') > 0)"
)
RATINGS_WHERE = (
    "(type IN ('bet', 'cut', 'deal', 'retract') OR seq = 1 OR {find}(result, '\"game_ended\"') > 0 "
    "OR {find}(result, '\"hand_ended\"') > 0)"
)
RETRACTS_WHERE = "type = 'retract'"

#: name -> the WHERE text
INDEXES = {"ix_event_hand_facts": HAND_FACTS_WHERE, "ix_event_ratings": RATINGS_WHERE}


def where(text: str, dialect: str) -> str:
    """A WHERE of `INDEXES` in the dialect's spelling."""
    return text.format(find="strpos" if dialect == "postgresql" else "instr")


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    order = "xact_id, position" if dialect == "postgresql" else "position"
    for name, text in INDEXES.items():
        op.execute(f"CREATE INDEX {name} ON event ({order}) WHERE {where(text, dialect)}")
    op.execute(f"CREATE INDEX ix_event_retracts ON event (game_id, seq) WHERE {RETRACTS_WHERE}")


def downgrade() -> None:
    for name in (*INDEXES, "ix_event_retracts"):
        op.execute(f"DROP INDEX {name}")
