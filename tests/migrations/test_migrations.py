"""The Alembic revisions: they build the models' schema, with its triggers, and come back down."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect
from sqlmodel import SQLModel

from events.migrate import downgrade, upgrade
from events.store import Store
from events.tables import include_object


def _diff(url: str) -> list[object]:
    engine = create_engine(url)
    with engine.connect() as conn:
        diff = compare_metadata(
            MigrationContext.configure(conn, opts={"include_object": include_object}), SQLModel.metadata
        )
    engine.dispose()
    return list(diff)


@pytest.mark.filterwarnings("ignore:Did not recognize type 'xid8'")
def test_the_migrated_schema_is_the_models_schema(store_url: str) -> None:
    assert _diff(store_url) == []


def test_triggers_exist_after_upgrade(store: Store) -> None:
    with store.engine.connect() as conn:
        if store.dialect == "postgresql":
            names = {
                r[0]
                for r in conn.exec_driver_sql(
                    "SELECT tgname FROM pg_trigger WHERE tgrelid = 'event'::regclass AND NOT tgisinternal"
                )
            }
            assert names == {"event_no_update", "event_no_delete", "event_no_truncate"}
        else:
            names = {r[0] for r in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
            assert names == {"event_no_update", "event_no_delete"}


def test_downgrade_and_upgrade_again_on_a_fresh_database(tmp_path: object) -> None:
    url = f"sqlite:///{tmp_path}/m.db"
    upgrade(url)
    downgrade(url, "base")
    engine = create_engine(url)
    assert set(inspect(engine).get_table_names()) == {"alembic_version"}
    engine.dispose()
    upgrade(url)
    engine = create_engine(url)
    assert {"club", "api_key", "game", "event", "append_request"} <= set(inspect(engine).get_table_names())
    engine.dispose()
