"""The service around the API (issue 14): /healthz, CORS, HEAD, static files, settings from the environment."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine

from api.main import create_app
from api.settings import Settings, env_name
from events.store import Store
from tests.conftest import ROOT, Club, error_of, new_game

ORIGIN = "https://club.example"


def test_healthz_answers_with_the_database(client: TestClient, store: Store) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["ok"] is True and body["database"] == store.dialect and body["database"] in ("sqlite", "postgresql")
    assert isinstance(body["version"], str) and body["version"]
    assert response.headers["cache-control"] == "no-store"
    head = client.head("/healthz")
    assert head.status_code == 200 and head.content == b""
    assert "/healthz" in client.get("/openapi.json").json()["paths"]


@pytest.mark.parametrize(
    "url",
    [
        "postgresql+psycopg://postgres@127.0.0.1:1/nothing?connect_timeout=2",  # nobody listens on port 1
        "sqlite:////nonexistent-tablebook-dir/no/such.db",  # a file SQLite cannot open
    ],
)
def test_healthz_is_503_when_the_database_does_not_answer(url: str) -> None:
    store = Store(url, engine=create_engine(url))
    with TestClient(create_app(Settings(database_url=url), store)) as client:
        response = client.get("/healthz")
        error = error_of(response, 503, "unavailable")
        assert error["message"].startswith(f"the database ({store.dialect}) does not answer: ")
        head = client.head("/healthz")
        assert head.status_code == 503 and head.content == b""
    store.dispose()


@pytest.fixture
def cors_client(store: Store) -> Iterator[TestClient]:
    app = create_app(Settings(database_url=store.url, cors_origins=[ORIGIN]), store)
    with TestClient(app) as c:
        yield c


def test_cors_headers_for_a_configured_origin(cors_client: TestClient, club: Club) -> None:
    game_id = new_game(cors_client, club)["id"]
    read = cors_client.get(f"/v1/games/{game_id}", headers={**club.viewer, "Origin": ORIGIN})
    assert read.status_code == 200 and read.headers["access-control-allow-origin"] == ORIGIN
    refused = cors_client.get("/v1/games", headers={"Origin": ORIGIN})  # errors carry them too
    assert refused.status_code == 401 and refused.headers["access-control-allow-origin"] == ORIGIN
    preflight = cors_client.options(
        "/v1/games",
        headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, idempotency-key",
        },
    )
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == ORIGIN
    allowed = preflight.headers["access-control-allow-headers"].lower()
    assert all(h in allowed for h in ("authorization", "content-type", "idempotency-key"))
    assert "POST" in preflight.headers["access-control-allow-methods"]
    other = cors_client.get("/healthz", headers={"Origin": "https://elsewhere.example"})
    assert other.status_code == 200 and "access-control-allow-origin" not in other.headers


def test_no_cors_headers_without_origins(client: TestClient, club: Club) -> None:
    response = client.get("/v1/games", headers={**club.viewer, "Origin": ORIGIN})
    assert response.status_code == 200 and "access-control-allow-origin" not in response.headers
    preflight = client.options("/v1/games", headers={"Origin": ORIGIN, "Access-Control-Request-Method": "POST"})
    assert preflight.status_code == 405 and "access-control-allow-origin" not in preflight.headers


def test_static_files_have_etags_and_answer_304_and_head(client: TestClient) -> None:
    first = client.get("/static/replay.js")
    assert first.status_code == 200 and first.content
    etag, modified = first.headers["etag"], first.headers["last-modified"]
    assert first.headers["content-type"].startswith("text/javascript")
    assert "default-src 'none'" in first.headers["content-security-policy"]
    assert first.headers["x-content-type-options"] == "nosniff" and first.headers["cache-control"] == "no-cache"
    again = client.get("/static/replay.js", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    assert client.get("/static/replay.js", headers={"If-None-Match": '"other"'}).status_code == 200
    head = client.head("/static/replay.js")
    assert head.status_code == 200 and head.content == b""
    assert head.headers["etag"] == etag and head.headers["last-modified"] == modified
    assert int(head.headers["content-length"]) == len(first.content)
    for name in ("replay.css", "cards.js", "tables.js", "favicon.svg"):
        assert client.get(f"/static/{name}").headers.get("etag"), name
    error_of(client.get("/static/nope.js"), 404, "not_found")
    assert client.head("/static/nope.js").status_code == 404
    error_of(client.post("/static/replay.js"), 405, "method_not_allowed")


def test_the_pages_use_the_static_paths_that_are_served(client: TestClient) -> None:
    """Every /static/... path the pages name is served."""
    for page in (ROOT / "api" / "static").glob("*.html"):
        for path in re.findall(r"""["'](/static/[^"'?#]+)""", page.read_text()):
            assert client.get(path).status_code == 200, (page.name, path)


def test_head_is_answered_wherever_get_is(client: TestClient, club: Club) -> None:
    game_id = new_game(client, club)["id"]
    for path in ("/", "/replay", f"/replay/{game_id}", "/healthz", "/docs", "/openapi.json"):
        get, head = client.get(path), client.head(path)
        assert head.status_code == get.status_code == 200, path
        assert head.content == b"" and head.headers["content-type"] == get.headers["content-type"], path
    for path in ("/v1/games", f"/v1/games/{game_id}", f"/v1/games/{game_id}/score"):
        assert client.head(path, headers=club.viewer).status_code == 200, path
        assert client.head(path).status_code == 401, path  # no key: the GET's answer, not 405
    stream = client.head(f"/v1/games/{game_id}/stream", headers=club.viewer)  # a following stream ends at once
    assert stream.status_code == 200 and stream.content == b""
    assert client.head(f"/v1/games/{game_id}/events", headers=club.recorder).status_code == 200


# --------------------------------------------------------------------------- settings


def test_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    values = {
        "TABLEBOOK_DATABASE_URL": "sqlite:///elsewhere.db",
        "TABLEBOOK_READ_URLS": "sqlite:///r1.db, sqlite:///r2.db",
        "TABLEBOOK_FOLLOW_PATRONI": "http://10.0.0.1:8008, http://10.0.0.2:8008",
        "TABLEBOOK_READ_WAIT": "0.25",
        "TABLEBOOK_DURABILITY": "fast",
        "TABLEBOOK_HOST": "0.0.0.0",
        "TABLEBOOK_PORT": "9123",
        "TABLEBOOK_WORKERS": "3",
        "TABLEBOOK_ACCESS_LOG": "false",
        "TABLEBOOK_CORS_ORIGINS": "https://a.example, https://b.example/",
        "TABLEBOOK_CACHE_SIZE": "7",
        "TABLEBOOK_BODY_TIMEOUT": "2.5",
        "TABLEBOOK_MAX_BODY": "1000",
        "TABLEBOOK_MAX_IMPORT_BODY": "2000",
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    settings = Settings()
    assert settings.model_dump() == {
        "database_url": "sqlite:///elsewhere.db",
        "read_urls": ["sqlite:///r1.db", "sqlite:///r2.db"],
        "follow_patroni": ["http://10.0.0.1:8008", "http://10.0.0.2:8008"],
        "read_wait": 0.25,
        "durability": "fast",
        "host": "0.0.0.0",
        "port": 9123,
        "workers": 3,
        "access_log": False,
        "cors_origins": ["https://a.example", "https://b.example"],
        "cache_size": 7,
        "body_timeout": 2.5,
        "max_body": 1000,
        "max_import_body": 2000,
    }
    assert sorted(values) == sorted(env_name(name) for name in Settings.model_fields)
    assert Settings(port=1, database_url="sqlite://").port == 1  # arguments win over the environment
    monkeypatch.setenv("TABLEBOOK_CORS_ORIGINS", '["https://c.example"]')
    assert Settings().cors_origins == ["https://c.example"]
    monkeypatch.setenv("TABLEBOOK_PORT", "")  # empty: unset
    assert Settings().port == 8000


@pytest.mark.parametrize(("name", "value"), [("TABLEBOOK_PORT", "eighty"), ("TABLEBOOK_WORKERS", "0")])
def test_a_bad_setting_names_its_variable(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=name.removeprefix("TABLEBOOK_").lower()):
        Settings()


def test_the_defaults() -> None:
    fields = {name: field.default for name, field in Settings.model_fields.items()}
    assert fields["host"] == "127.0.0.1" and fields["port"] == 8000 and fields["workers"] == 1
    assert fields["access_log"] is True and Settings.model_fields["cors_origins"].default_factory is list
    assert all(field.description for field in Settings.model_fields.values())


def test_the_api_docs_list_every_setting_with_its_default() -> None:
    page = (ROOT / "docs" / "api.md").read_text()
    section = page.split("## Serving: settings, health, CORS", 1)[1].split("\n## ", 1)[0]
    rows = {
        cells[1].strip("` "): cells[2].strip()
        for cells in (line.split("|") for line in section.splitlines() if line.startswith("| `TABLEBOOK_"))
    }
    shown = {
        "access_log": "`true`",
        "cors_origins": "empty (no CORS)",
        "body_timeout": "`60`",
        "read_urls": "empty (every read on the database URL)",
        "follow_patroni": "empty (the read models read the log on the database URL)",
    }
    for name, field in Settings.model_fields.items():
        assert env_name(name) in rows, f"docs/api.md has no row for {env_name(name)}"
        assert rows[env_name(name)] == shown.get(name, f"`{field.default}`"), name


def test_the_app_builds_its_store_with_the_settings_durability(sqlite_url: str) -> None:
    app = create_app(Settings(database_url=sqlite_url, durability="fast"))
    store: Store = app.state.service.store
    try:
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL
    finally:
        store.dispose()
