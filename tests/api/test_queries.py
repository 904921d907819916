"""Typed query parameters (issue 14): times with a zone, known kinds, no unknown parameter; the stream
(sse-starlette) and the state cache (cachetools)."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace
from typing import Any, cast

import orjson
import pytest
from fastapi.testclient import TestClient

from api.queries import GameKind, stored_time
from api.routes import replays
from events.codec import utc_now
from events.store import Store
from projections.core.recorder import Live, Recorder, StateCache
from projections.core.registry import KINDS
from tests.conftest import Club, error_of, new_game

#: three games of a club, created at known times (UTC, as the store writes them)
TIMES = ("2026-11-29T11:00:00.000000Z", "2026-11-29T12:00:00.500000Z", "2026-11-29T13:30:00.000000Z")


@pytest.fixture
def timed(store: Store, club: Club) -> list[str]:
    """The ids of three games created at TIMES (the last one a Casino game), oldest first."""
    recorder = Recorder(store)
    club_id = store.ensure_club(club.name)
    kinds = ("schnapsen", "schnapsen", "casino")
    return [
        recorder.create_game(club_id=club_id, kind=kind, players=["Anna", "Ben"], options={}, created_at=at).id
        for kind, at in zip(kinds, TIMES, strict=True)
    ]


def listed(client: TestClient, club: Club, **params: str) -> list[str]:
    response = client.get("/v1/games", params=params, headers=club.recorder)
    assert response.status_code == 200, response.text
    return [g["id"] for g in response.json()["games"]][::-1]  # oldest first


def exported(client: TestClient, club: Club, **params: str) -> list[str]:
    response = client.get("/v1/export", params=params, headers=club.recorder)
    assert response.status_code == 200, response.text
    lines = [orjson.loads(line) for line in response.text.splitlines()]
    return [line["id"] for line in lines if "format" in line]


# --------------------------------------------------------------------------- since / until


@pytest.mark.parametrize(
    "noon",  # the same instant, 2026-11-29 12:00 UTC, written five ways
    ["2026-11-29T12:00:00Z", "2026-11-29T13:00:00+01:00", "2026-11-29T07:00:00-05:00", "2026-11-29T12:00Z",
     "2026-11-29T12:00:00.000+00:00"],
)  # fmt: skip
def test_the_same_instant_in_any_offset_finds_the_same_games(
    client: TestClient, club: Club, timed: list[str], noon: str
) -> None:
    assert listed(client, club, since=noon) == exported(client, club, since=noon) == timed[1:]
    assert listed(client, club, until=noon) == exported(client, club, until=noon) == timed[:1]
    assert listed(client, club, since=noon, game="casino") == timed[2:]


def test_an_unencoded_plus_is_an_offset(client: TestClient, club: Club, timed: list[str]) -> None:
    # `+` in a query string reads as a space: ?since=2026-11-29T13:00:00+01:00 typed as is
    response = client.get("/v1/games?since=2026-11-29T13:00:00+01:00", headers=club.recorder)
    assert [g["id"] for g in response.json()["games"]][::-1] == timed[1:]


def test_times_compare_to_the_microsecond(client: TestClient, club: Club, timed: list[str]) -> None:
    assert listed(client, club, since="2026-11-29T12:00:00.5Z") == timed[1:]
    assert listed(client, club, since="2026-11-29T12:00:00.500001Z") == timed[2:]
    assert listed(client, club, until="2026-11-29T12:00:00.500001Z") == timed[:2]
    assert listed(client, club, since="2026-11-29T12:00:00Z", until="2026-11-29T13:30:00Z") == timed[1:2]


def test_a_date_is_midnight_utc(client: TestClient, club: Club, timed: list[str]) -> None:
    assert listed(client, club, since="2026-11-29") == exported(client, club, since="2026-11-29") == timed
    assert listed(client, club, until="2026-11-29") == exported(client, club, until="2026-11-29") == []
    assert listed(client, club, until="2026-11-30") == listed(client, club, until="2026-11-30T01:00:00+01:00")
    assert listed(client, club, until="2026-11-30") == timed


def test_the_bound_is_written_as_the_store_writes_times() -> None:
    from datetime import UTC, datetime, timedelta, timezone

    plus_one = datetime(2026, 11, 29, 13, 0, tzinfo=timezone(timedelta(hours=1)))
    assert stored_time(plus_one) == "2026-11-29T12:00:00.000000Z"
    assert len(stored_time(datetime.now(UTC)) or "") == len(utc_now())
    assert stored_time(datetime(1, 1, 1, tzinfo=UTC)) == "0001-01-01T00:00:00.000000Z"  # 4 digits, as stored


@pytest.mark.parametrize("route", ["/v1/games", "/v1/export"])
@pytest.mark.parametrize("name", ["since", "until"])
@pytest.mark.parametrize(
    "value",
    ["yesterday", "2026-13-45", "2026-11-31", "2026-11-29T25:00:00Z", "29.11.2026", "0001-01-01T00:00:00+01:00"],
)
def test_a_bad_time_is_refused_naming_its_field(
    client: TestClient, club: Club, route: str, name: str, value: str
) -> None:
    error = error_of(client.get(route, params={name: value}, headers=club.recorder), 422, "invalid")
    assert error["field"] == name and error["message"].startswith(f"{name}: ")


@pytest.mark.parametrize("route", ["/v1/games", "/v1/export"])
@pytest.mark.parametrize("value", ["2026-11-29T12:00:00", "2026-11-29T12:00", "2026-11-29 12:00:00"])
def test_a_time_without_a_zone_is_refused(client: TestClient, club: Club, route: str, value: str) -> None:
    error = error_of(client.get(route, params={"since": value}, headers=club.recorder), 422, "invalid")
    assert error["field"] == "since" and "time zone" in error["message"]


# --------------------------------------------------------------------------- game


def test_the_kinds_are_the_registry_s() -> None:
    assert [kind.value for kind in GameKind] == list(KINDS)


@pytest.mark.parametrize("route", ["/v1/games", "/v1/export"])
@pytest.mark.parametrize("value", ["Casino", "poker", ""])
def test_an_unknown_game_kind_is_refused_with_the_known_ones(
    client: TestClient, club: Club, route: str, value: str
) -> None:
    error = error_of(client.get(route, params={"game": value}, headers=club.recorder), 422, "invalid")
    assert error["field"] == "game"
    assert all(f"'{kind}'" in error["message"] for kind in KINDS), error["message"]


def test_a_known_kind_filters(client: TestClient, club: Club, timed: list[str]) -> None:
    assert listed(client, club, game="casino") == exported(client, club, game="casino") == timed[2:]
    assert listed(client, club, game="schnapsen") == exported(client, club, game="schnapsen") == timed[:2]
    assert listed(client, club, game="gin-rummy-3") == []


# --------------------------------------------------------------------------- unknown parameters


def test_an_unknown_query_parameter_is_refused_naming_it(client: TestClient, club: Club, store: Store) -> None:
    game_id = new_game(client, club)["id"]
    base = f"/v1/games/{game_id}"
    key = club.keys["viewer"]
    cases = [
        ("GET", "/v1/games?plyer=Anna", "plyer", ["player", "since", "until", "game", "has"]),
        ("GET", "/v1/games?player=Anna&limit=5&Player=Anna", "Player", ["player"]),
        ("GET", f"{base}?seat=1", "seat", []),
        ("GET", f"{base}/events?after=0&afterr=3", "afterr", ["after", "limit"]),
        ("GET", f"{base}/state?sea=1", "sea", ["at", "seat"]),
        ("GET", f"{base}/export?fromat=csv", "fromat", ["format"]),
        ("GET", "/v1/export?sinse=2026-11-29", "sinse", ["since", "until", "cursor", "limit", "game"]),
        ("GET", f"{base}/stream?follow=false&folow=false", "folow", ["access_token", "after", "follow", "limit"]),
        ("GET", f"{base}/stream?follow=false&access_token={key}&x=1", "x", ["access_token"]),
        ("POST", f"{base}/events?expected_seq=0", "expected_seq", []),
        ("GET", "/healthz?verbose=1", "verbose", []),
    ]
    for method, url, name, known in cases:
        response = client.request(method, url, headers=club.viewer if "access_token" not in url else {})
        error = error_of(response, 422, "invalid")
        assert error["field"] == name, (url, error)
        assert error["message"].startswith(f"unknown query parameter {name!r} (known: "), error["message"]
        listed_known = error["message"].split("(known: ", 1)[1].rstrip(")")
        assert all(k in listed_known.split(", ") for k in known), (url, error["message"])
        if not known:
            assert listed_known == "none"
    # the declared ones still pass, the stream's access_token included; the pages take any (`?share=`)
    assert client.get(f"{base}/stream?follow=false&access_token={key}").status_code == 200
    assert client.get(f"{base}/events?after=0&limit=5", headers=club.viewer).status_code == 200
    assert client.get(f"/replay/{game_id}?share=x").status_code == 200


def test_the_schema_lists_the_typed_parameters(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    params = {p["name"]: p for p in schema["paths"]["/v1/games"]["get"]["parameters"]}
    since = params["since"]["schema"]["anyOf"][0]
    assert since["type"] == "string" and since["format"] == "date-time"
    kinds = schema["components"]["schemas"][params["game"]["schema"]["anyOf"][0]["$ref"].rsplit("/", 1)[1]]
    assert kinds["enum"] == list(KINDS)


# --------------------------------------------------------------------------- the stream


def notes(client: TestClient, club: Club, game_id: str, count: int, text: str = "table 3") -> None:
    batch = [{"type": "note", "text": f"{text} {i}"} for i in range(count)]
    response = client.post(f"/v1/games/{game_id}/events", json={"events": batch}, headers=club.recorder)
    assert response.status_code == 201, response.text


def test_the_stream_frames_resumes_and_limits(client: TestClient, club: Club) -> None:
    game_id = new_game(client, club)["id"]
    notes(client, club, game_id, 4)
    body = client.get(f"/v1/games/{game_id}/stream?follow=false", headers=club.viewer)
    assert body.headers["content-type"].startswith("text/event-stream")
    assert "\r" not in body.text and body.text.startswith("retry: 1000\n\n")
    blocks = body.text.split("\n\n")[1:-1]
    assert len(blocks) == 4
    for seq, block in enumerate(blocks, 1):
        lines = block.split("\n")
        assert lines[:2] == [f"id: {seq}", "event: envelope"] and lines[2].startswith("data: ")
        assert orjson.loads(lines[2][6:])["seq"] == seq
    resumed = client.get(f"/v1/games/{game_id}/stream?follow=false", headers={**club.viewer, "Last-Event-ID": "2"})
    assert [line for line in resumed.text.splitlines() if line.startswith("id: ")] == ["id: 3", "id: 4"]
    later = client.get(
        f"/v1/games/{game_id}/stream?follow=false&after=3", headers={**club.viewer, "Last-Event-ID": "1"}
    )
    assert [line for line in later.text.splitlines() if line.startswith("id: ")] == ["id: 4"]  # the later one
    limited = client.get(f"/v1/games/{game_id}/stream?limit=1&after=1", headers=club.viewer)
    assert [line for line in limited.text.splitlines() if line.startswith("id: ")] == ["id: 2"]
    bad = error_of(
        client.get(f"/v1/games/{game_id}/stream", headers={**club.viewer, "Last-Event-ID": "1e3"}), 422, "invalid"
    )
    assert bad["field"] == "last_event_id"


def test_a_followed_stream_pings_sends_new_events_and_ends_for_a_revoked_key(
    client: TestClient, club: Club, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replays, "KEEPALIVE_SECONDS", 0.2)
    game_id = new_game(client, club)["id"]
    notes(client, club, game_id, 1)
    answer: dict[str, Any] = {}

    def follow() -> None:
        answer["response"] = client.get(f"/v1/games/{game_id}/stream", headers=club.viewer)

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    time.sleep(0.8)
    notes(client, club, game_id, 1, "before the revocation")
    time.sleep(0.8)
    assert store.revoke_key(club.keys["viewer"].split("_")[1])
    notes(client, club, game_id, 1, "after the revocation")
    follower.join(timeout=10)
    assert not follower.is_alive(), "the revoked key's stream went on"
    text = answer["response"].text
    assert ": keep-alive\n\n" in text
    assert "before the revocation" in text and "after the revocation" not in text
    # the last event is the error (a keep-alive comment, sent by sse-starlette's own ping task, may still
    # land between it and the close: a comment, not an event)
    events = [block for block in text.rstrip("\n").split("\n\n") if block and not block.startswith(":")]
    last = events[-1].split("\n")
    assert last[0] == "event: error" and orjson.loads(last[1][6:])["error"]["code"] == "unauthorized"


# --------------------------------------------------------------------------- the state cache


def entry(game_id: str, seq: int) -> Live:
    return Live(cast(Any, SimpleNamespace(id=game_id)), cast(Any, None), SimpleNamespace(seq=seq), f"h{seq}")


def test_the_state_cache_evicts_the_least_recently_used() -> None:
    cache = StateCache(2)
    cache.put(entry("a", 1))
    cache.put(entry("b", 1))
    assert cache.get("a") is not None  # a is now the most recent
    cache.put(entry("c", 1))
    assert len(cache) == 2 and cache.get("b") is None
    assert cache.get("a") is not None and cache.get("c") is not None
    assert (cache.hits, cache.misses) == (3, 1)
    cache.put(entry("d", 1))  # a was read before c: a goes
    assert cache.get("a") is None and cache.get("c") is not None and cache.get("d") is not None
    cache.drop("c")
    cache.drop("nothing")
    assert len(cache) == 1 and cache.get("c") is None


def test_the_state_cache_never_moves_a_head_backwards() -> None:
    cache = StateCache(4)
    cache.put(entry("a", 5))
    cache.put(entry("a", 3))
    assert cache.get("a") == entry("a", 5)
    cache.put(entry("a", 6))
    assert cache.get("a") == entry("a", 6)
    cache.drop("a")
    cache.put(entry("a", 2))  # after a drop (a reload), any head
    assert cache.get("a") == entry("a", 2)


def test_the_state_cache_is_safe_across_threads() -> None:
    cache = StateCache(8)

    def work(n: int) -> None:
        for i in range(500):
            cache.put(entry(f"g{(n + i) % 20}", i))
            cache.get(f"g{i % 20}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(cache) == 8 and cache.hits + cache.misses == 2000


def test_a_recorder_keeps_the_cache_it_is_given(store: Store) -> None:
    cache = StateCache(3)  # empty, so falsy: it was replaced by a default cache of 1024
    assert Recorder(store, cache).cache is cache
    with pytest.raises(ValueError):
        StateCache(0)
