"""The read models' partial indexes (migrations 0012, 0016): their WHERE is the reads' own SQL, and the reads
use them, on SQLite and PostgreSQL (EXPLAIN)."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from events.store import Store
from projections.readmodels import hand_facts as readmodel
from projections.readmodels import ratings

#: index -> the read whose filter is its WHERE
READS = {"ix_event_hand_facts": readmodel.READS, "ix_event_ratings": ratings.READS}
#: index -> the last migration that made it (a later one that makes it again goes here)
MADE_BY = {
    "ix_event_hand_facts": importlib.import_module("migrations.versions.0016_event_read_by"),
    "ix_event_ratings": importlib.import_module("migrations.versions.0016_event_read_by"),
}


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
def test_the_migrations_where_is_the_reads_sql_text_for_text(dialect: str) -> None:
    """A game that changes its `situation_reads` (or the ratings their `READS`) needs a new migration that
    decides the stored rows' `read_by` bits again with the new conditions (as 0016 did, from `TEXTS`): the
    bits of the rows stored before it say what the old filter admitted."""
    for name, reads in READS.items():
        assert reads is not None
        migration = MADE_BY[name]
        assert migration.where(migration.INDEXES[name], dialect) == reads.index_sql(dialect), name
        assert migration.FLAGS[name] == reads.flag, name
        assert migration.where(migration.TEXTS[name], dialect) == reads.texts_sql(dialect), (
            f"{name}: the read's filter changed; add a migration that decides the stored rows' read_by again"
        )
        assert reads.index_sql(dialect) in reads.sql(dialect)  # one of the read's terms: the index is usable


def _plan(store: Store, statement: str, params: tuple[Any, ...]) -> str:
    raw = store.engine.raw_connection()
    try:
        cursor = raw.cursor()
        if store.dialect == "postgresql":
            cursor.execute("SET enable_seqscan = off")  # a test database is small: ask which index, not whether
            cursor.execute("EXPLAIN " + statement, params)
        else:
            cursor.execute("EXPLAIN QUERY PLAN " + statement, params)
        plan = "\n".join(" ".join(str(c) for c in row) for row in cursor.fetchall())
        cursor.close()
        raw.rollback()
    finally:
        raw.close()
    return plan


@pytest.mark.parametrize("name", sorted(READS))
def test_a_read_models_page_walks_its_partial_index(store: Store, name: str) -> None:
    statement = store.log.filtered_sql(READS[name])
    plan = _plan(store, statement, (0, 0, 5000) if store.log.horizon else (0, 10**9, 5000))
    assert name in plan, plan


def test_the_ratings_read_a_games_retracts_over_their_partial_index(store: Store) -> None:
    statement = store.db.sql(store.ratings._retracts.format("?, ?"))
    plan = _plan(store, statement, ("g1", "g2"))
    assert "ix_event_retracts" in plan, plan
