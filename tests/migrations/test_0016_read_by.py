"""Revision 0016 (issue 34): `event.read_by`, the read models' bits decided when a row is written; the
rows stored before it get theirs from their texts, every other column byte for byte as it was, and the
append-only trigger stands again."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.exc import DatabaseError

from events.store import Head, Store
from events.store.migrate import downgrade, upgrade
from projections.readmodels import hand_facts, ratings
from tests.migrations.helpers import schema_diff

#: (seq, type, result) of the events stored before the revision
STORED = (
    (1, "note", "{}"),  # a game's first event: the ratings' context
    (2, "retract", "{}"),  # both read models
    (3, "play", '{"hand_ended":true}'),  # the ratings
    (4, "play", "{}"),  # neither
)


def _columns(url: str) -> set[str]:
    engine = create_engine(url)
    columns = {c["name"] for c in inspect(engine).get_columns("event")}
    engine.dispose()
    return columns


def _index_texts(conn: Any, dialect: str) -> dict[str, str]:
    if dialect == "postgresql":
        found = conn.execute(text("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'event'"))
    else:
        found = conn.execute(text("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'event'"))
    return {name: sql or "" for name, sql in found if name in ("ix_event_hand_facts", "ix_event_ratings")}


@pytest.mark.filterwarnings("ignore:Did not recognize type 'xid8'")
def test_0016_adds_read_by_without_touching_a_stored_event_and_takes_it_back(fresh_url: str) -> None:
    upgrade(fresh_url, "0015")
    engine = create_engine(fresh_url)
    dialect = engine.dialect.name
    with engine.begin() as conn:
        club = conn.execute(text("INSERT INTO club (name, created_at) VALUES ('c', 't') RETURNING id")).scalar_one()
        conn.execute(
            text(
                "INSERT INTO game (id, club_id, kind, players, options, created_at, updated_at, genesis_hash, seq, "
                "hand, status, totals, head_hash) VALUES ('g1', :club, 'schnapsen', '[]', '{}', 't', 't', 'g', 4, "
                "1, 'live', '{}', 'h4')"
            ),
            {"club": club},
        )
        for seq, kind, result in STORED:
            conn.execute(
                text(
                    "INSERT INTO event (game_id, seq, hand, type, data, result, recorded_at, actor, prev_hash, hash) "
                    "VALUES ('g1', :seq, 1, :type, '{}', :result, 't', 'a', :prev, :hash)"
                ),
                {"seq": seq, "type": kind, "result": result, "prev": f"h{seq - 1}", "hash": f"h{seq}"},
            )
        before = [tuple(r) for r in conn.execute(text("SELECT * FROM event ORDER BY position"))]
        assert not any("read_by" in sql for sql in _index_texts(conn, dialect).values())
    engine.dispose()

    upgrade(fresh_url)
    assert "read_by" in _columns(fresh_url)
    assert schema_diff(fresh_url) == []
    store = Store(fresh_url)
    try:
        last = {"seq": 5, "hand": 1, "type": "retract", "data": {"to_seq": 3}, "result": {}}
        envelope = {**last, "recorded_at": "t", "actor": "a", "prev_hash": "h4", "hash": "h5"}
        head = Head(seq=5, hand=1, status="live", totals={}, winner=None, head_hash="h5")
        store.append("g1", [envelope], base_seq=4, head=head)  # type: ignore[list-item]
        with store.engine.connect() as conn:
            rows = [tuple(r) for r in conn.execute(text("SELECT * FROM event ORDER BY position"))]
            width = len(before[0])
            assert [row[:width] for row in rows[:4]] == before  # every stored row byte for byte
            both = hand_facts.FLAG | ratings.FLAG
            assert [row[-1] for row in rows] == [ratings.FLAG, both, ratings.FLAG, 0, both]
            for only, wanted in ((hand_facts.READS, [2, 5]), (ratings.READS, [1, 2, 3, 5])):
                assert only is not None
                where = only.sql(dialect)
                assert "read_by" in where
                read = [r[0] for r in conn.execute(text(f"SELECT seq FROM event WHERE {where} ORDER BY seq"))]
                assert read == wanted
            assert all("read_by" in sql for sql in _index_texts(conn, dialect).values())
        with pytest.raises(DatabaseError, match="append-only"), store.engine.begin() as conn:
            conn.execute(text("UPDATE event SET read_by = 0"))
    finally:
        store.dispose()

    downgrade(fresh_url, "0015")
    assert "read_by" not in _columns(fresh_url)
    engine = create_engine(fresh_url)
    with engine.connect() as conn:
        after = [tuple(r) for r in conn.execute(text("SELECT * FROM event ORDER BY position"))]
        texts = _index_texts(conn, dialect)
    engine.dispose()
    assert after[:4] == before and len(after) == 5
    assert set(texts) == {"ix_event_hand_facts", "ix_event_ratings"}
    assert not any("read_by" in sql for sql in texts.values())
