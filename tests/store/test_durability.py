"""Durability: an acknowledged append is on disk unless TABLEBOOK_DURABILITY=fast says otherwise.

Every connection of a Store's engine is checked, the pooled ones the append path takes with
`raw_connection()` as well as `connect()`: SQLite's `PRAGMA synchronous` (2 FULL, 1 NORMAL) and
PostgreSQL's `SHOW synchronous_commit`, also on a database configured with it off.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import psycopg
import pytest

from api.settings import Settings
from events.codec import utc_now
from events.store import Head, Store, durability_from, make_engine
from tests.conftest import PG_SERVER

#: what each mode must read back: (SQLite PRAGMA synchronous, PostgreSQL synchronous_commit)
EXPECTED = {"full": (2, "on"), "fast": (1, "off")}
QUERY = {"sqlite": "PRAGMA synchronous", "postgresql": "SHOW synchronous_commit"}


def _expected(store: Store, mode: str) -> Any:
    return EXPECTED[mode][0 if store.dialect == "sqlite" else 1]


def settings_of_connections(store: Store, n: int = 3) -> list[Any]:
    """The setting as seen by `n` connections held at once (so the pool opens n of them), both ways."""
    query = QUERY[store.dialect]
    seen = []
    with ExitStack() as stack:
        for _ in range(n):
            connection = stack.enter_context(store.engine.connect())
            seen.append(connection.exec_driver_sql(query).scalar())
        raws = [store.engine.raw_connection() for _ in range(n)]
        try:
            for raw in raws:
                cursor = raw.cursor()
                cursor.execute(query)
                seen.append(cursor.fetchone()[0])
                cursor.close()
                raw.rollback()
        finally:
            for raw in raws:
                raw.close()
    return seen


def append_one(store: Store) -> None:
    """One real append through the store, so the mode is exercised, not only configured."""
    club = store.ensure_club(f"durability-{secrets.token_hex(3)}")
    game = store.create_game(
        club_id=club,
        kind="schnapsen",
        players=["A", "B"],
        options={},
        created_at=utc_now(),
        genesis_hash="g",
        totals={"0": 7, "1": 7},
    )
    env: dict[str, Any] = {
        "seq": 1,
        "hand": 0,
        "type": "note",
        "data": {"text": "kept"},
        "recorded_at": utc_now(),
        "actor": "test",
        "result": {},
        "prev_hash": "g",
        "hash": "h" * 64,
    }
    head = Head(seq=1, hand=0, status="live", totals={"0": 7, "1": 7}, winner=None, head_hash=env["hash"])
    store.append(game.id, [env], base_seq=0, head=head)
    assert [e["seq"] for e in store.read_events(game.id)] == [1]


@pytest.fixture
def no_durability_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TABLEBOOK_DURABILITY", raising=False)


@pytest.mark.usefixtures("no_durability_env")
def test_durable_by_default(store_url: str) -> None:
    store = Store(store_url)
    try:
        assert settings_of_connections(store) == [_expected(store, "full")] * 6
        append_one(store)
        assert settings_of_connections(store) == [_expected(store, "full")] * 6
    finally:
        store.dispose()


@pytest.mark.parametrize("mode", ["full", "fast"])
@pytest.mark.usefixtures("no_durability_env")
def test_make_engine_durability(store_url: str, mode: str) -> None:
    store = Store(store_url, engine=make_engine(store_url, mode))
    try:
        append_one(store)
        assert settings_of_connections(store) == [_expected(store, mode)] * 6
    finally:
        store.dispose()


@pytest.mark.parametrize(("value", "mode"), [("fast", "fast"), ("full", "full"), (" FAST ", "fast"), ("", "full")])
def test_environment_variable(store_url: str, monkeypatch: pytest.MonkeyPatch, value: str, mode: str) -> None:
    """TABLEBOOK_DURABILITY reaches a plain `Store(url)`, as the CLI and the server make it."""
    monkeypatch.setenv("TABLEBOOK_DURABILITY", value)
    assert Settings().durability == mode
    store = Store(store_url)
    try:
        assert settings_of_connections(store) == [_expected(store, mode)] * 6
    finally:
        store.dispose()


@pytest.mark.parametrize("value", ["normal", "off", "on", "fsync", "0", "full,fast"])
def test_bad_value_refused(store_url: str, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    with pytest.raises(ValueError, match=r"TABLEBOOK_DURABILITY=.*'full'.*'fast'.*may lose the last acknowledged"):
        make_engine(store_url, value)
    with pytest.raises(ValueError, match="TABLEBOOK_DURABILITY"):
        Settings(durability=value)
    monkeypatch.setenv("TABLEBOOK_DURABILITY", value)
    with pytest.raises(ValueError, match="TABLEBOOK_DURABILITY"):
        Store(store_url)
    with pytest.raises(ValueError, match="TABLEBOOK_DURABILITY"):
        Settings()


def test_durability_from() -> None:
    assert durability_from("full") == "full"
    assert durability_from("Fast") == "fast"
    assert durability_from("") == "full"


@pytest.fixture
def weak_database() -> Iterator[str]:
    """A PostgreSQL database whose own default is `synchronous_commit = off`, and a URL that asks for it too."""
    name = f"tablebook_weak_{secrets.token_hex(4)}"
    admin_dsn = PG_SERVER.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        admin.execute(f'ALTER DATABASE "{name}" SET synchronous_commit = off')
    yield f"{PG_SERVER.rsplit('/', 1)[0]}/{name}"
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.mark.usefixtures("no_durability_env")
def test_postgres_configured_off_is_overridden(weak_database: str) -> None:
    with psycopg.connect(weak_database.replace("postgresql+psycopg://", "postgresql://")) as raw:
        assert raw.execute("SHOW synchronous_commit").fetchone() == ("off",)  # the database's own default
    # the URL's own options are kept, and synchronous_commit comes after them
    url = weak_database + "?options=-c%20statement_timeout%3D4321%20-c%20synchronous_commit%3Doff"
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql("SHOW synchronous_commit").scalar() == "on"
            assert connection.exec_driver_sql("SHOW statement_timeout").scalar() == "4321ms"
    finally:
        engine.dispose()
