"""Revision 0011 (issue 20): `game.copy_of`, the mark of a record stored again; existing copies marked."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import create_engine, text

from events.store import Store
from events.store.migrate import downgrade, upgrade
from tests.migrations.helpers import game_columns, schema_diff


def _game(conn: Any, game_id: str, club: int, genesis: str, head: str) -> None:
    conn.execute(
        text(
            "INSERT INTO game (id, club_id, kind, players, options, created_at, updated_at, genesis_hash, seq, "
            "hand, status, totals, head_hash) VALUES (:id, :club, 'schnapsen', '[]', '{}', 't', 't', :genesis, 1, "
            "0, 'finished', '{}', :head)"
        ),
        {"id": game_id, "club": club, "genesis": genesis, "head": head},
    )


def _event(conn: Any, game_id: str) -> None:
    conn.execute(
        text(
            "INSERT INTO event (game_id, seq, hand, type, data, result, recorded_at, actor, prev_hash, hash) "
            "VALUES (:game, 1, 0, 'note', '{\"text\":\"x\"}', '{}', 't', 'a', 'g', 'h')"
        ),
        {"game": game_id},
    )


@pytest.mark.filterwarnings("ignore:Did not recognize type 'xid8'")
def test_0011_marks_the_copies_already_stored_without_touching_an_event(fresh_url: str) -> None:
    """Games of one club with one genesis and one head hash are one record: the one whose events were
    written first stays the original, whatever its id, and the others name it; the same chain in another
    club, or a game that only shares the genesis, is no copy. Event rows stay byte for byte; down again
    drops the column and keeps every game."""
    upgrade(fresh_url, "0010")
    engine = create_engine(fresh_url)
    with engine.begin() as conn:
        one = conn.execute(text("INSERT INTO club (name, created_at) VALUES ('c1', 't') RETURNING id")).scalar_one()
        two = conn.execute(text("INSERT INTO club (name, created_at) VALUES ('c2', 't') RETURNING id")).scalar_one()
        for game_id, club, head in (
            ("gz", one, "H"),  # written first: the original, though its id sorts last
            ("ga", one, "H"),  # imported again with copy=true
            ("gb", one, "H"),
            ("gc", one, "other"),  # the same genesis, another chain: not a copy
            ("gd", two, "H"),  # another club's record of it
        ):
            _game(conn, game_id, club, "G", head)
        for game_id in ("gz", "gb", "ga", "gc", "gd"):
            _event(conn, game_id)
        before = [tuple(r) for r in conn.execute(text("SELECT * FROM event ORDER BY position"))]
    engine.dispose()
    upgrade(fresh_url)
    assert "copy_of" in game_columns(fresh_url)
    assert schema_diff(fresh_url) == []
    engine = create_engine(fresh_url)
    with engine.connect() as conn:
        after = [tuple(r) for r in conn.execute(text("SELECT * FROM event ORDER BY position"))]
        marks: dict[str, str | None] = {r.id: r.copy_of for r in conn.execute(text("SELECT id, copy_of FROM game"))}
    engine.dispose()
    # later revisions add columns: 0014's `v`, NULL in every row written before it, and last 0016's `read_by`,
    # which it decides from the texts (tests/migrations/test_0016_read_by.py)
    width = len(before[0])
    assert [row[:width] for row in after] == before and all(value is None for row in after for value in row[width:-1])
    assert marks == {"gz": None, "ga": "gz", "gb": "gz", "gc": None, "gd": None}
    store = Store(fresh_url)
    try:
        assert store.get_game("ga").copy_of == "gz" and store.get_game("gz").copy_of is None
        assert store.players.copies(["ga", "gb", "gc", "gz", "nope"]) == {"ga": "gz", "gb": "gz"}
    finally:
        store.dispose()
    downgrade(fresh_url, "0010")
    assert "copy_of" not in game_columns(fresh_url)
    engine = create_engine(fresh_url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM game")).scalar_one() == 5
        assert [tuple(r) for r in conn.execute(text("SELECT * FROM event ORDER BY position"))] == before
    engine.dispose()
    upgrade(fresh_url)
    assert schema_diff(fresh_url) == []
