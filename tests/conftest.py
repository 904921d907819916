"""Fixtures: a migrated database on SQLite and on PostgreSQL, an app, and keys.

The PostgreSQL server is the one of `TABLEBOOK_TEST_PG` (default
`postgresql+psycopg://postgres@127.0.0.1:5432/test`); each test session
creates its own database there and drops it at the end. Tests never clean
tables: each creates its own clubs and games.
"""

from __future__ import annotations

import gc
import os
import secrets
import subprocess
import tempfile
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

from fastapi.testclient import TestClient  # noqa: E402

from api.auth import create_key  # noqa: E402
from api.main import create_app  # noqa: E402
from api.settings import Settings  # noqa: E402
from bench.scratch import start_private_postgres  # noqa: E402
from events.store import Store  # noqa: E402
from events.store.migrate import upgrade  # noqa: E402

PG_SERVER = os.environ.get("TABLEBOOK_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
#: both stores: where they differ (the store, migrations, read models, streams, reliability), a test runs on both
STORES = ("sqlite", "postgres")
BOTH = STORES
#: the HTTP tests (tests/api, tests/browser) run on SQLite; the PostgreSQL side of the API has its smoke
#: module (tests/api/test_postgres_smoke.py), and a module of them where the stores differ says `STORES = BOTH`
HTTP_STORES = ("sqlite",)
HTTP_FOLDERS = ("tests/api/", "tests/browser/")


def _pg_admin_dsn() -> str:
    return PG_SERVER.replace("postgresql+psycopg://", "postgresql://")


@pytest.fixture(scope="session")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("db") / "tablebook.db"
    url = f"sqlite:///{path}"
    upgrade(url)
    return url


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A migrated database of its own on the PostgreSQL server (dropped at the end of the session).

    No server: under CI (`CI=true`) that fails the tests, elsewhere it skips them (`-m "not postgres"`
    deselects them outright; `make test` starts the server first).
    """
    name = f"tablebook_test_{secrets.token_hex(4)}"
    try:
        admin = psycopg.connect(_pg_admin_dsn(), autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:  # pragma: no cover - CI starts the server
        message = f"PostgreSQL is not reachable at {PG_SERVER}: {exc}. Start it (README, 'make test') and re-run."
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    base = PG_SERVER.rsplit("/", 1)[0]
    url = f"{base}/{name}"
    upgrade(url)
    yield url
    with psycopg.connect(_pg_admin_dsn(), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def stores_of(module: Any, path: str) -> tuple[str, ...]:
    """The stores a test module runs on: its own `STORES`, else SQLite for the HTTP tests and both elsewhere."""
    declared = getattr(module, "STORES", None)
    if declared is not None:
        return tuple(declared)
    where = path.replace(os.sep, "/")
    return HTTP_STORES if any(folder in where for folder in HTTP_FOLDERS) else STORES


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "store_url" in metafunc.fixturenames:
        metafunc.parametrize("store_url", stores_of(metafunc.module, str(metafunc.definition.fspath)), indirect=True)


@pytest.fixture
def store_url(request: pytest.FixtureRequest) -> str:
    """The URL of a migrated database of the store the test is parametrised with (`stores_of`).

    A module that sets `OWN_SERVER = True` gets its PostgreSQL database on a server of the test session's
    own (`own_postgres_url`): its tests read the global log below the transaction-id horizon, which any
    open transaction anywhere on a shared server holds back (another test run, another database).
    """
    name = request.param
    if name == "postgres" and getattr(request.module, "OWN_SERVER", False):
        name = "own_postgres"
    url: str = request.getfixturevalue(f"{name}_url")
    return url


@pytest.fixture(scope="session")
def own_postgres_server() -> Iterator[str]:
    """A PostgreSQL server of this session's own (`bench.scratch.start_private_postgres`), its URL without a
    database: from the machine's binaries, 200 connections, stopped `immediate` at the session's end."""
    try:
        server = start_private_postgres(
            Path(tempfile.mkdtemp(prefix="tablebook-pg-")), max_connections=200, stop_mode="immediate"
        )
    except (OSError, subprocess.SubprocessError) as exc:  # pragma: no cover - the machine has PostgreSQL
        message = f"could not start a PostgreSQL server of the tests' own: {exc}"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def own_postgres_url(own_postgres_server: str) -> str:
    """A migrated database on the session's own PostgreSQL server."""
    admin = f"{own_postgres_server.replace('postgresql+psycopg://', 'postgresql://')}/postgres"
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute('CREATE DATABASE "tablebook_test"')
    url = f"{own_postgres_server}/tablebook_test"
    upgrade(url)
    return url


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    s = Store(store_url)
    yield s
    s.dispose()


@dataclass
class Club:
    """A club with one key of each role, and headers for each."""

    name: str
    recorder: dict[str, str]
    viewer: dict[str, str]
    auditor: dict[str, str]
    keys: dict[str, str]


def make_club(store: Store, name: str | None = None) -> Club:
    name = name or f"club-{secrets.token_hex(4)}"
    keys = {role: create_key(store, name, role) for role in ("recorder", "viewer", "auditor")}
    headers = {role: {"Authorization": f"Bearer {key}"} for role, key in keys.items()}
    return Club(name, headers["recorder"], headers["viewer"], headers["auditor"], keys)


@pytest.fixture
def app_store(store: Store) -> Store:
    return store


@pytest.fixture
def client(store: Store) -> Iterator[TestClient]:
    app = create_app(Settings(database_url=store.url), store)
    with TestClient(app) as c:
        yield c


@pytest.fixture
def club(store: Store) -> Club:
    return make_club(store)


@pytest.fixture
def other_club(store: Store) -> Club:
    return make_club(store)


def new_game(
    client: TestClient,
    club: Club,
    game: str = "schnapsen",
    players: list[str] | None = None,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    body = {"game": game, "players": players or ["Anna", "Ben"], "options": options or {}}
    response = client.post("/v1/games", json=body, headers=club.recorder)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def error_of(response: Any, status: int, code: str) -> dict[str, Any]:
    """The error body of a response, checked for its status, its code and the shape of DESIGN.md."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == code and body["error"]["message"]
    error: dict[str, Any] = body["error"]
    return error


ROOT = Path(__file__).resolve().parents[1]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--run-slow",
        action="store_true",
        default=False,
        help="also run the tests marked slow (make reliability does; make test keeps under 10 minutes)",
    )


def uses_postgres(item: pytest.Item) -> bool:
    """Whether a test needs the PostgreSQL server: it runs on the `postgres` store or asks for its URL."""
    callspec = getattr(item, "callspec", None)
    if callspec is not None and "postgres" in callspec.params.values():
        return True
    return bool({"postgres_url", "own_postgres_server"} & set(getattr(item, "fixturenames", ())))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that needs the PostgreSQL server is marked `postgres` (so `-m "not postgres"` runs without
    one); `slow` tests (a whole Gin match through the browser, say) run in `make reliability`, not `make test`."""
    for item in items:
        if uses_postgres(item):
            item.add_marker(pytest.mark.postgres)
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="long-running: make reliability runs it (--run-slow)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


#: FastAPI (0.165) remembers whether each endpoint is a coroutine or a generator in module-level
#: `lru_cache`s of 4,096 entries, keyed by the endpoint itself. The app's endpoints are closures over
#: the app, so those caches kept the last ~90 apps alive: 4.5 million objects (1.3 GB) at the end of
#: the HTTP tests, every full garbage collection walking them, and 20 s (50-85 s under load) spent
#: collecting and freeing them after the last test. One app serves a process in production, so only
#: a test session, which makes an app per test, needs them emptied.
_FASTAPI_ENDPOINT_CACHES = ("_is_gen_callable_cached", "_is_async_gen_callable_cached", "_is_coroutine_callable_cached")


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Let the test's FastAPI app go: empty FastAPI's endpoint caches (`_FASTAPI_ENDPOINT_CACHES`)."""
    from fastapi.dependencies import models

    for name in _FASTAPI_ENDPOINT_CACHES:
        cache = getattr(models, name, None)
        if cache is not None:
            cache.cache_clear()


def pytest_collection_finish(session: pytest.Session) -> None:
    """Keep the garbage collector off what lives for the whole session, and run it less often.

    Imported modules, their classes, functions and schemas, and the collected tests are never freed in a
    test process, yet every full collection walked them all: measured 2026-12-06, the HTTP tests spent 20 s
    of their 130 s of CPU in 98 full collections. `gc.freeze` moves what exists once collection is done to
    the permanent generation, so later collections walk only what the tests themselves make; a first
    threshold of 10,000 allocations (CPython's is 700) runs the young collections, and with them the full
    ones, less often. Together: 130 -> 106 s of CPU for tests/api, 25 -> 9 s of it collecting.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)
