"""Helpers the store's tests and others share: not a test module, so test modules import from here."""

from __future__ import annotations

import importlib
from typing import Any

from sqlalchemy import text

from events.codec import envelope_hash
from events.store import Head, Store

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


def note_envelope(seq: int, prev: str = "p") -> dict[str, Any]:
    """A note at `seq` of a raw game (the store checks no rule), hashed with a stand-in link `prev`."""
    env: dict[str, Any] = {
        "seq": seq,
        "hand": 0,
        "type": "note",
        "data": {"text": f"n{seq}"},
        "recorded_at": "2026-11-29T00:00:00.000000Z",
        "actor": "t",
        "result": {},
        "prev_hash": prev,
    }
    env["hash"] = envelope_hash(env)
    return env


def new_raw_game(store: Store) -> str:
    """A Schnapsen game registered in the store, with no event: the raw store's tests append to it."""
    club_id = store.ensure_club(f"raw-{store.dialect}")
    game = store.create_game(
        club_id=club_id,
        kind="schnapsen",
        players=["A", "B"],
        options={"first_dealer": 0, "enforcement": "strict"},
        created_at="2026-11-29T00:00:00.000000Z",
        genesis_hash="g",
        totals={"0": 7, "1": 7},
    )
    return game.id


def head_at(seq: int) -> Head:
    """The head a raw game has after a note at `seq`."""
    return Head(seq=seq, hand=0, status="live", totals={"0": 7, "1": 7}, winner=None, head_hash=f"h{seq}")
