"""The schema stays shardable by club on Citus (docs/sharding.md): a lint of `SQLModel.metadata`.

Each table is declared in `events.store.sharding` (distributed by club_id, reference, or local). A distributed
table's every primary and unique key contains club_id, and a foreign key between distributed tables
does too; a reference table refers to no distributed table. Today's exceptions are listed there with
the key the sharding migration gives them: the list must be exactly what the schema has, so it can
only shrink, and a new table or key that Citus could not enforce inside one shard fails here.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import SQLModel

import events.store.tables  # noqa: F401  (the tables, in the metadata)
import projections.readmodels.hand_facts  # noqa: F401
from events.store import sharding


def keys(table: sa.Table) -> list[tuple[str, ...]]:
    """The primary key and every unique constraint or unique index of `table`, as column names."""
    found = [tuple(c.name for c in table.primary_key.columns)]
    found += [tuple(c.name for c in con.columns) for con in table.constraints if isinstance(con, sa.UniqueConstraint)]
    found += [tuple(c.name for c in index.columns) for index in table.indexes if index.unique]
    found += [(c.name,) for c in table.columns if c.unique and not c.primary_key]
    return sorted(set(found))


def test_every_table_is_declared_once() -> None:
    tables = set(SQLModel.metadata.tables)
    kinds = (sharding.DISTRIBUTED, sharding.REFERENCE, sharding.LOCAL)
    declared = set().union(*kinds)
    assert tables - declared == set(), "declare each new table in events/store/sharding.py (docs/sharding.md)"
    assert declared - tables == set(), "events/store/sharding.py declares tables that are gone"
    assert sum(len(kind) for kind in kinds) == len(declared), "a table is declared twice"


def test_every_key_of_a_distributed_table_holds_the_distribution_column() -> None:
    column = sharding.DISTRIBUTION_COLUMN
    gaps = {
        (name, key)
        for name in sharding.DISTRIBUTED
        for key in keys(SQLModel.metadata.tables[name])
        if column not in key
    }
    assert gaps - set(sharding.PENDING) == set(), f"keys Citus cannot enforce inside one shard (add {column})"
    assert set(sharding.PENDING) - gaps == set(), "fixed: remove these from events.store.sharding.PENDING"
    for (name, _), planned in sharding.PENDING.items():
        assert column in planned and set(planned) <= set(SQLModel.metadata.tables[name].columns.keys()) | {column}


def test_foreign_keys_stay_inside_a_shard_or_point_at_reference_tables() -> None:
    column = sharding.DISTRIBUTION_COLUMN
    refused = set()
    for name, table in SQLModel.metadata.tables.items():
        for fk in table.foreign_key_constraints:
            target = fk.referred_table.name
            local = tuple(c.name for c in fk.columns)
            if target in sharding.REFERENCE or name in sharding.LOCAL:
                continue
            if name in sharding.REFERENCE or column not in local:
                refused.add((name, local, target))
    assert refused - set(sharding.PENDING_FOREIGN_KEYS) == set(), "foreign keys Citus would refuse"
    assert set(sharding.PENDING_FOREIGN_KEYS) - refused == set(), "fixed: remove from PENDING_FOREIGN_KEYS"


def test_every_distributed_table_carries_the_distribution_column_or_its_plan_adds_it() -> None:
    for name in sharding.DISTRIBUTED:
        columns = set(SQLModel.metadata.tables[name].columns.keys())
        planned = any(table == name for table, _ in sharding.PENDING)
        assert sharding.DISTRIBUTION_COLUMN in columns or planned, name
