"""bench/growth.py fills a store in bulk with copies of games: each copy's rows must be the rows the store
itself writes for that game (every column of the event table, the read flags too), or the bench measures
a store that the service never makes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bench import growth
from bench.folds import sealed, simulated
from events.store import Store
from events.store.migrate import upgrade


def test_the_fill_writes_the_rows_the_store_writes(tmp_path: Path) -> None:
    envs = sealed("schnapsen", simulated("schnapsen", 1, seed=3)[0])
    template = growth.template("schnapsen", envs)
    url = f"sqlite:///{tmp_path}/growth.db"
    upgrade(url)
    done = growth.fill(url, [template], 2 * len(envs), "test")
    assert (done.games, done.events) == (2, 2 * len(envs))

    store = Store(url)
    club = store.ensure_club("growth")
    made = store.import_game(
        club_id=club,
        kind="schnapsen",
        players=["A", "B"],
        options={},
        created_at=template.first_at,
        genesis_hash="0" * 64,
        envelopes=envs,
        head=template.head,
    )
    read_back = store.read_events(made.id)
    store.dispose()

    with sqlite3.connect(tmp_path / "growth.db") as conn:
        columns = [row[1] for row in conn.execute("PRAGMA table_info(event)")]
        rows = conn.execute("SELECT * FROM event ORDER BY position").fetchall()
        seats = conn.execute("SELECT game_id, COUNT(*) FROM game_player GROUP BY game_id").fetchall()
    game, position = columns.index("game_id"), columns.index("position")
    by_game: dict[str, list[tuple[object, ...]]] = {}
    for row in rows:
        by_game.setdefault(row[game], []).append(tuple(v for i, v in enumerate(row) if i not in (game, position)))
    written = by_game.pop(made.id)
    assert len(by_game) == 2 and len(written) == len(envs) == len(read_back)
    for copy in by_game.values():
        assert copy == written  # every column but the position and the id, as the store wrote them
    assert sorted(n for _, n in seats) == [2, 2, 2]  # each copy seated its players
