"""Helpers the store's tests and others share: not a test module, so test modules import from here."""

from __future__ import annotations

import importlib
from typing import Any

from sqlalchemy import text

from events.store import Store

MIGRATION = importlib.import_module("migrations.versions.0001_initial")


def tamper(store: Store, statement: str, **params: Any) -> None:
    """What someone holding the database does: drop the triggers, edit, restore the triggers."""
    with store.engine.connect() as conn, conn.begin():
        if store.dialect == "postgresql":
            conn.exec_driver_sql("DROP TRIGGER event_no_update ON event")
            conn.exec_driver_sql("DROP TRIGGER event_no_delete ON event")
            conn.execute(text(statement), params)
            for sql in MIGRATION.POSTGRES_TRIGGERS[1:3]:
                conn.exec_driver_sql(sql)
        else:
            conn.exec_driver_sql("DROP TRIGGER event_no_update")
            conn.exec_driver_sql("DROP TRIGGER event_no_delete")
            conn.execute(text(statement), params)
            for sql in MIGRATION.SQLITE_TRIGGERS:
                conn.exec_driver_sql(sql)
