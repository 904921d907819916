"""The Alembic revisions: they build the models' schema, with its triggers, and come back down."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, inspect, text

from events.store import Store
from events.store.migrate import downgrade, upgrade
from tests.migrations.helpers import game_columns, schema_diff


@pytest.mark.filterwarnings("ignore:Did not recognize type 'xid8'")
def test_the_migrated_schema_is_the_models_schema(store_url: str) -> None:
    assert schema_diff(store_url) == []


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


LABEL_COLUMNS = {"event_name", "round_name", "table_name"}


@pytest.mark.filterwarnings("ignore:Did not recognize type 'xid8'")
def test_0007_adds_the_game_labels_to_a_database_with_games_and_takes_them_back(fresh_url: str) -> None:
    """A game made before 0007 gets no labels (NULL); after it a game keeps its labels; down again, the
    games stay and the columns go, on SQLite (a batch table copy) and PostgreSQL alike."""
    upgrade(fresh_url, "0006")
    assert not LABEL_COLUMNS & game_columns(fresh_url)
    engine = create_engine(fresh_url)
    with engine.begin() as conn:
        club = conn.execute(text("INSERT INTO club (name, created_at) VALUES ('c', 't') RETURNING id")).scalar_one()
        conn.execute(
            text(
                "INSERT INTO game (id, club_id, kind, players, options, created_at, updated_at, genesis_hash, seq, "
                "hand, status, totals, head_hash) VALUES ('gold', :club, 'schnapsen', '[]', '{}', 't', 't', 'h', 0, "
                "0, 'live', '{}', 'h')"
            ),
            {"club": club},
        )
    engine.dispose()
    upgrade(fresh_url)
    assert game_columns(fresh_url) >= LABEL_COLUMNS
    assert schema_diff(fresh_url) == []
    store = Store(fresh_url)
    try:
        old = store.get_game("gold")
        assert (old.event, old.round, old.table, old.labels()) == (None, None, None, {})
        new = store.registry.set_labels("gold", {"event": "Winter league", "table": "2"})
        assert new.labels() == {"event": "Winter league", "table": "2"} and new.round is None
        made = store.create_game(
            club_id=club,
            kind="casino",
            players=["Ann", "Ben"],
            options={},
            created_at="t",
            genesis_hash="h",
            totals={},
            labels={"round": "Final"},
        )
        assert store.get_game(made.id).labels() == {"round": "Final"}
    finally:
        store.dispose()
    downgrade(fresh_url, "0006")
    assert not LABEL_COLUMNS & game_columns(fresh_url)
    engine = create_engine(fresh_url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM game")).scalar_one() == 2
    engine.dispose()
    upgrade(fresh_url)
    assert game_columns(fresh_url) >= LABEL_COLUMNS
    assert schema_diff(fresh_url) == []  # the batch copy kept the table's indexes and keys


def _game_insert(conn: object, game_id: str, club: int, players: str) -> None:
    conn.execute(  # type: ignore[attr-defined]
        text(
            "INSERT INTO game (id, club_id, kind, players, options, created_at, updated_at, genesis_hash, seq, "
            "hand, status, totals, head_hash) VALUES (:id, :club, 'schnapsen', :players, '{}', :created, 't', 'h', 1, "
            "0, 'live', '{}', 'h')"
        ),
        {"id": game_id, "club": club, "players": players, "created": game_id},
    )


@pytest.mark.filterwarnings("ignore:Did not recognize type 'xid8'")
def test_0010_makes_players_of_the_names_of_existing_games_without_touching_an_event(fresh_url: str) -> None:
    """Each distinct name of a club becomes one player of that club; every seat gets its `game_player`
    row; the event rows are byte for byte what they were; down again drops the new tables only."""
    upgrade(fresh_url, "0009")
    engine = create_engine(fresh_url)
    with engine.begin() as conn:
        one = conn.execute(text("INSERT INTO club (name, created_at) VALUES ('c1', 't') RETURNING id")).scalar_one()
        two = conn.execute(text("INSERT INTO club (name, created_at) VALUES ('c2', 't') RETURNING id")).scalar_one()
        _game_insert(conn, "g1", one, '["Anna","Ben"]')
        _game_insert(conn, "g2", one, '["Ben","Cleo"]')
        _game_insert(conn, "g3", two, '["Anna","Dora"]')
        conn.execute(
            text(
                "INSERT INTO event (game_id, seq, hand, type, data, result, recorded_at, actor, prev_hash, hash) "
                "VALUES ('g1', 1, 0, 'note', '{\"text\":\"Anna was late\"}', '{}', 't', 'a', 'h', 'x')"
            )
        )
        before = [tuple(r) for r in conn.execute(text("SELECT * FROM event ORDER BY position"))]
    engine.dispose()
    upgrade(fresh_url)
    assert schema_diff(fresh_url) == []
    engine = create_engine(fresh_url)
    with engine.connect() as conn:
        after = [tuple(r) for r in conn.execute(text("SELECT * FROM event ORDER BY position"))]
        players = {(r.club_id, r.name): r.id for r in conn.execute(text("SELECT id, club_id, name FROM player"))}
        seats = {
            (r.game_id, r.seat): r.player_id
            for r in conn.execute(text("SELECT game_id, seat, player_id FROM game_player"))
        }
    engine.dispose()
    # later revisions add columns: 0014's `v`, NULL in every row written before it, and last 0016's `read_by`,
    # which it decides from the texts (tests/migrations/test_0016_read_by.py)
    width = len(before[0])
    assert [row[:width] for row in after] == before and all(value is None for row in after for value in row[width:-1])
    assert set(players) == {(one, "Anna"), (one, "Ben"), (one, "Cleo"), (two, "Anna"), (two, "Dora")}
    assert seats[("g1", 1)] == seats[("g2", 0)] == players[(one, "Ben")]  # one Ben in club 1
    assert seats[("g1", 0)] != seats[("g3", 0)]  # the Annas of two clubs are two players
    assert len(seats) == 6
    store = Store(fresh_url)
    try:
        assert [g.id for g in store.list_games(one, player="ben")] == ["g2", "g1"]
        made = store.create_game(
            club_id=one,
            kind="schnapsen",
            players=["cleo", "Eve"],
            options={},
            created_at="z",
            genesis_hash="h",
            totals={},
        )
        assert store.players.game_seats([made.id])[made.id][0] == players[(one, "Cleo")]
    finally:
        store.dispose()
    downgrade(fresh_url, "0009")
    engine = create_engine(fresh_url)
    assert not {"player", "game_player", "rating_change"} & set(inspect(engine).get_table_names())
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM game")).scalar_one() == 4
    engine.dispose()
