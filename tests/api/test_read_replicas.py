"""Reads on replicas with read-your-writes (events.store.replicas, api.deps), on two plain SQLite databases.

The "replica" is a copy of the primary taken with SQLite's backup API: it lags by whatever was
appended since. The real cluster (streaming replication, failover) is tests/reliability/test_failover.py.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from api.settings import Settings
from events.store import Store
from events.store.migrate import upgrade
from events.store.replicas import PRIMARY, REPLICA, ReadRoutes
from tests.conftest import Club, make_club, new_game


def copy_db(source: Path, target: Path) -> None:
    """`target` becomes a copy of `source` as committed now (what a replica that caught up holds)."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    src.close()
    dst.close()


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    primary, replica = tmp_path / "primary.db", tmp_path / "replica.db"
    upgrade(f"sqlite:///{primary}")
    yield primary, replica


def note(client: TestClient, club: Club, game_id: str, text: str) -> int:
    answer = client.post(
        f"/v1/games/{game_id}/events", json={"events": [{"type": "note", "text": text}]}, headers=club.recorder
    )
    assert answer.status_code == 201, answer.text
    seq: int = answer.json()["events"][-1]["seq"]
    return seq


def test_routes_wait_for_the_replica_or_fall_back_to_the_primary(pair: tuple[Path, Path]) -> None:
    primary_path, replica_path = pair
    primary = Store(f"sqlite:///{primary_path}")
    club = make_club(primary)
    with TestClient(create_app(Settings(database_url=primary.url), primary)) as client:
        game_id = new_game(client, club)["id"]
        note(client, club, game_id, "one")
        copy_db(primary_path, replica_path)
        head = note(client, club, game_id, "two")
    replica = Store(f"sqlite:///{replica_path}")
    routes = ReadRoutes(primary, [replica], wait=0.1, poll=0.01)

    assert routes.store_for(game_id, None) == (replica, REPLICA)  # no min seq: the replica as it is
    assert routes.store_for(game_id, head - 1) == (replica, REPLICA)  # it has reached that seq
    started = time.monotonic()
    assert routes.store_for(game_id, head) == (primary, PRIMARY)  # behind: waited, then the primary
    assert time.monotonic() - started >= 0.09
    assert routes.store_for("g-unknown", 1) == (primary, PRIMARY)  # a game the replica has not got yet

    # the replica catches up during the wait: the read stays on it
    routes.wait = 2.0
    catch_up = threading.Timer(0.1, copy_db, (primary_path, replica_path))
    catch_up.start()
    started = time.monotonic()
    assert routes.store_for(game_id, head) == (replica, REPLICA)  # not the primary: it did not wait out the 2 s
    assert time.monotonic() - started > 0.05  # it waited for the copy made at 0.1 s
    catch_up.join()
    primary.dispose()
    replica.dispose()


def test_a_replica_that_fails_is_left_out(pair: tuple[Path, Path], tmp_path: Path) -> None:
    primary = Store(f"sqlite:///{pair[0]}")
    broken_path = tmp_path / "not-a-database"
    broken_path.mkdir()  # a directory: every connection fails
    broken = Store(f"sqlite:///{broken_path}")
    routes = ReadRoutes(primary, [broken], wait=0.05, down_for=60.0)
    assert routes.store_for("g-any", 1) == (primary, PRIMARY)
    assert routes.store_for("g-any", None) == (primary, PRIMARY)  # left out now, even without a min seq
    primary.dispose()


def test_the_api_routes_reads_and_says_where(pair: tuple[Path, Path]) -> None:
    primary_path, replica_path = pair
    primary = Store(f"sqlite:///{primary_path}")
    club = make_club(primary)
    settings = Settings(database_url=primary.url, read_urls=f"sqlite:///{replica_path}", read_wait=0.05)
    copy_db(primary_path, replica_path)  # the club's keys; the game comes after
    with TestClient(create_app(settings, primary)) as client:
        game_id = new_game(client, club)["id"]
        seq = note(client, club, game_id, "one")  # appends go to the primary
        behind = client.get(f"/v1/games/{game_id}", headers={**club.viewer, "Tablebook-Min-Seq": str(seq)})
        assert behind.status_code == 200 and behind.headers["Tablebook-Read-From"] == PRIMARY
        assert behind.json()["seq"] == seq
        copy_db(primary_path, replica_path)
        caught_up = client.get(f"/v1/games/{game_id}", headers={**club.viewer, "Tablebook-Min-Seq": str(seq)})
        assert caught_up.status_code == 200 and caught_up.headers["Tablebook-Read-From"] == REPLICA
        assert caught_up.json() == behind.json()
        events = client.get(f"/v1/games/{game_id}/events", headers=club.viewer)
        assert events.headers["Tablebook-Read-From"] == REPLICA and events.json()["head"] == seq
        bad = client.get(f"/v1/games/{game_id}", headers={**club.viewer, "Tablebook-Min-Seq": "soon"})
        assert bad.status_code == 422
        # a write never goes to a replica, and the single-URL default routes nothing
        assert "Tablebook-Read-From" not in client.post("/v1/games", json={}, headers=club.recorder).headers
    with TestClient(create_app(Settings(database_url=primary.url), primary)) as client:
        assert "Tablebook-Read-From" not in client.get(f"/v1/games/{game_id}", headers=club.viewer).headers
    primary.dispose()


def _streamed(client: TestClient, club: Club, game_id: str) -> tuple[str, list[str]]:
    """(where the stream's first page was read, the note texts it sent)."""
    import orjson

    answer = client.get(f"/v1/games/{game_id}/stream?follow=false", headers=club.viewer)
    assert answer.status_code == 200, answer.text
    texts = [
        orjson.loads(line[len("data: ") :])["data"]["text"]
        for line in answer.text.splitlines()
        if line.startswith("data: ") and '"note"' in line
    ]
    return answer.headers["Tablebook-Read-From"], texts


def test_a_stream_reads_a_replica_only_once_it_has_the_primarys_head(pair: tuple[Path, Path]) -> None:
    """A stream's page goes to a replica only if that replica has reached the game's head on the primary
    (read after the wake-up): a lagging replica never makes a stream miss or delay an event."""
    primary_path, replica_path = pair
    primary = Store(f"sqlite:///{primary_path}")
    club = make_club(primary)
    settings = Settings(database_url=primary.url, read_urls=f"sqlite:///{replica_path}", read_wait=0.05)
    with TestClient(create_app(settings, primary)) as client:
        game_id = new_game(client, club)["id"]
        note(client, club, game_id, "one")
        copy_db(primary_path, replica_path)
        note(client, club, game_id, "two")  # the replica lags this one
        assert _streamed(client, club, game_id) == (PRIMARY, ["one", "two"])
        copy_db(primary_path, replica_path)
        assert _streamed(client, club, game_id) == (REPLICA, ["one", "two"])
    primary.dispose()


def test_unavailable_tells_a_database_that_went_away_from_a_bad_statement() -> None:
    import psycopg.errors

    from events.store.base import unavailable

    assert unavailable(psycopg.OperationalError("server closed the connection unexpectedly"))
    assert unavailable(psycopg.errors.AdminShutdown("terminating connection due to administrator command"))
    assert unavailable(psycopg.errors.ReadOnlySqlTransaction("cannot execute INSERT in a read-only transaction"))
    assert unavailable(sqlite3.OperationalError("database is locked"))
    assert not unavailable(psycopg.errors.UndefinedTable('relation "event" does not exist'))
    assert not unavailable(sqlite3.OperationalError("no such table: event"))
    assert not unavailable(ValueError("not a database error"))


def test_a_replica_that_fails_in_the_middle_of_a_read_answers_503_and_is_left_out(postgres_url: str) -> None:
    """The replica answers the router's probe, then its connection is cut under the read itself (as when the
    failover manager restarts it): a 503 in the error shape with Retry-After, not a 500; the retry goes to
    the primary."""
    import psycopg
    from sqlalchemy import event

    from tests.conftest import PG_SERVER
    from tests.reliability.load import is_error_shape

    admin_dsn = PG_SERVER.replace("postgresql+psycopg://", "postgresql://")
    primary = Store(postgres_url)
    club = make_club(primary)
    replica = Store(postgres_url)  # the same database: this test is about the failure, not the lag
    checkouts: list[int] = []
    cut = {"armed": False}

    @event.listens_for(replica.engine, "checkout")
    def _cut_the_second(dbapi_connection: object, _record: object, _proxy: object) -> None:
        checkouts.append(1)
        if cut["armed"] and len(checkouts) == 2:  # the probe was the first; the read's is this one
            pid = dbapi_connection.info.backend_pid  # type: ignore[attr-defined]
            with psycopg.connect(admin_dsn, autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
                for _ in range(100):
                    if not admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone():
                        break
                    time.sleep(0.02)

    app = create_app(Settings(database_url=primary.url), primary)
    with TestClient(app) as client:
        game_id = new_game(client, club)["id"]
        note(client, club, game_id, "one")
        app.state.read_routes = routes = ReadRoutes(primary, [replica], wait=0.1)
        from api.service import Tablebook
        from projections.core.recorder import ReplicaRecorder, StateCache

        app.state.replica_services = {id(replica): Tablebook(ReplicaRecorder(replica, StateCache(16)))}
        checkouts.clear()
        cut["armed"] = True
        answer = client.get(f"/v1/games/{game_id}/events", headers=club.viewer)
        assert answer.status_code == 503, answer.text
        assert is_error_shape(answer.json()) and answer.json()["error"]["code"] == "unavailable"
        assert answer.headers["Retry-After"] == "1"
        assert len(checkouts) >= 2  # the cut came under the read, after the probe
        cut["armed"] = False
        again = client.get(f"/v1/games/{game_id}/events", headers=club.viewer)
        assert again.status_code == 200 and again.headers["Tablebook-Read-From"] == PRIMARY
        assert [e["data"]["text"] for e in again.json()["events"]] == ["one"]
        assert routes.store_for(game_id, None) == (primary, PRIMARY)  # left out for down_for seconds
    primary.dispose()
    replica.dispose()
