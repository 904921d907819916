"""Every answer carries `X-Content-Type-Options: nosniff`, once: JSON, exports, NDJSON, the stream, pages,
their files, the docs, errors of every layer (a route, a dependency, FastAPI, the middlewares), HEAD, CORS.

A browser that sniffs could take a text export or an error that quotes a note for HTML; with the header
it keeps to the `Content-Type` the server sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from api.settings import Settings
from events.store import Store
from tests.conftest import Club, new_game

DEAL = {
    "type": "deal",
    "dealer": 1,
    "trump_card": "JH",
    "hands": [["KH", "QH", "TD", "AC", "JS"], ["TS", "AD", "KC", "QS", "JD"]],
}


def nosniff(response: Any) -> bool:
    return bool(response.headers.get_list("x-content-type-options") == ["nosniff"])


@pytest.fixture
def game_id(client: TestClient, club: Club) -> str:
    game = new_game(client, club, options={"first_dealer": 1})
    appended = client.post(f"/v1/games/{game['id']}/events", json={"events": [DEAL]}, headers=club.recorder)
    assert appended.status_code == 201, appended.text
    return str(game["id"])


def test_every_kind_of_answer_says_nosniff(client: TestClient, club: Club, game_id: str) -> None:
    base = f"/v1/games/{game_id}"
    share = client.post(f"{base}/share", headers=club.recorder).json()
    etag = client.get("/static/record.js").headers["etag"]
    answers: dict[str, tuple[Any, int, str]] = {
        # JSON
        "list": (client.get("/v1/games", headers=club.recorder), 200, "application/json"),
        "create": (
            client.post("/v1/games", json={"game": "schnapsen", "players": ["A", "B"]}, headers=club.recorder),
            201,
            "application/json",
        ),
        "state": (client.get(f"{base}/state", headers=club.recorder), 200, "application/json"),
        "healthz": (client.get("/healthz"), 200, "application/json"),
        "root": (client.get("/", headers={"Accept": "application/json"}), 200, "application/json"),
        "home page": (client.get("/"), 200, "text/html"),
        "error page": (client.get("/replay/not.a.game", headers={"Accept": "text/html"}), 404, "text/html"),
        "openapi": (client.get("/openapi.json"), 200, "application/json"),
        # exports: JSON, JSONL, text, CSV; NDJSON streams
        "export json": (client.get(f"{base}/export?format=json", headers=club.recorder), 200, "application/json"),
        "export jsonl": (client.get(f"{base}/export?format=jsonl", headers=club.recorder), 200, ""),
        "export text": (client.get(f"{base}/export?format=text", headers=club.recorder), 200, "text/plain"),
        "export csv": (client.get(f"{base}/export?format=csv", headers=club.recorder), 200, "text/csv"),
        "export csv-excel": (client.get(f"{base}/export?format=csv-excel", headers=club.recorder), 200, "text/csv"),
        "bulk export": (client.get("/v1/export", headers=club.recorder), 200, "application/x-ndjson"),
        "season": (client.post("/v1/rescore", json={"profile": "default"}, headers=club.recorder), 200, ""),
        # the stream
        "stream": (client.get(f"{base}/stream?follow=false", headers=club.recorder), 200, "text/event-stream"),
        # pages and their files
        "replay page": (client.get(f"/replay/{game_id}"), 200, "text/html"),
        "replay list": (client.get("/replay"), 200, "text/html"),
        "pad": (client.get("/record/"), 200, "text/html"),
        "pad worker": (client.get("/record/sw.js"), 200, ""),
        "standings page": (client.get("/standings"), 200, "text/html"),
        "docs": (client.get("/docs"), 200, "text/html"),
        "redoc": (client.get("/redoc"), 200, "text/html"),
        "static file": (client.get("/static/record.js"), 200, "javascript"),
        "static 304": (client.get("/static/record.js", headers={"If-None-Match": etag}), 304, ""),
        "static missing": (client.get("/static/nothing.js"), 404, ""),
        # errors of every layer
        "401 no key": (client.get("/v1/games"), 401, "application/json"),
        "403 viewer appends": (
            client.post(f"{base}/events", json={"events": [{"type": "note", "text": "x"}]}, headers=club.viewer),
            403,
            "application/json",
        ),
        "403 share": (
            client.get("/v1/games", headers={"Authorization": f"Bearer {share['token']}"}),
            403,
            "application/json",
        ),
        "404 game": (client.get("/v1/games/gnothing", headers=club.recorder), 404, "application/json"),
        "404 route": (client.get("/v1/nothing", headers=club.recorder), 404, "application/json"),
        "405": (client.put("/v1/games", headers=club.recorder), 405, "application/json"),
        "409": (
            client.post(
                f"{base}/events",
                json={"expected_seq": 0, "events": [{"type": "note", "text": "x"}]},
                headers=club.recorder,
            ),
            409,
            "application/json",
        ),
        "413 middleware": (
            client.post(f"{base}/events", content=b"{}", headers={**club.recorder, "Content-Length": str(10**9)}),
            413,
            "application/json",
        ),
        "422 middleware": (client.get("/v1/games/g%00", headers=club.recorder), 422, "application/json"),
        "422 validation": (client.get("/v1/games?limit=0", headers=club.recorder), 422, "application/json"),
        "422 rules": (
            client.post(
                f"{base}/events", json={"events": [{"type": "play", "seat": 0, "card": "AS"}]}, headers=club.recorder
            ),
            422,
            "application/json",
        ),
        # HEAD: the GET's headers, no body
        "head list": (client.head("/v1/games", headers=club.recorder), 200, "application/json"),
        "head page": (client.head(f"/replay/{game_id}"), 200, "text/html"),
    }
    wrong = {
        name: (response.status_code, dict(response.headers))
        for name, (response, status, media) in answers.items()
        if response.status_code != status
        or media not in response.headers.get("content-type", "")
        or not nosniff(response)
    }
    assert not wrong, wrong


@pytest.fixture
def cors_client(store: Store) -> Iterator[TestClient]:
    app = create_app(Settings(database_url=store.url, cors_origins=["https://a.example"]), store)
    with TestClient(app) as c:
        yield c


def test_cors_answers_and_preflights_say_nosniff_too(cors_client: TestClient, club: Club) -> None:
    origin = {"Origin": "https://a.example"}
    preflight = cors_client.options(
        "/v1/games",
        headers={**origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "Authorization"},
    )
    assert preflight.status_code == 200 and preflight.headers["access-control-allow-origin"] == "https://a.example"
    refused = cors_client.get("/v1/games", headers=origin)
    listed = cors_client.get("/v1/games", headers={**origin, **club.recorder})
    assert (refused.status_code, listed.status_code) == (401, 200)
    assert all(nosniff(r) for r in (preflight, refused, listed)), [
        dict(r.headers) for r in (preflight, refused, listed)
    ]
