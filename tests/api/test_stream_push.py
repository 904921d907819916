"""Live streams are pushed (events/store/notify.py): an append wakes its game's streams, and idle streams read nothing.

The fallback check is set to ten minutes here, so an event that arrives in well under that came by the
in-process signal; and an idle stream that reads the database (a poll) is counted.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from api.routes import replays
from events.store import Store, notify
from tests.conftest import BOTH, Club, new_game
from tests.reliability.load import simulated

#: both stores (tests/conftest.py `stores_of`):
#: a stream is woken by LISTEN/NOTIFY on PostgreSQL, in-process on SQLite
STORES = BOTH


def notes(client: TestClient, club: Club, game_id: str, count: int, text: str = "note") -> None:
    batch = [{"type": "note", "text": f"{text} {i}"} for i in range(count)]
    response = client.post(f"/v1/games/{game_id}/events", json={"events": batch}, headers=club.recorder)
    assert response.status_code == 201, response.text


def count_reads(store: Store, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count the reads of each game's events (the stream's only read of new events)."""
    counts: dict[str, int] = {}
    real: Callable[..., Any] = store.read_events

    def counted(game_id: str, *args: Any, **kwargs: Any) -> Any:
        counts[game_id] = counts.get(game_id, 0) + 1
        return real(game_id, *args, **kwargs)

    monkeypatch.setattr(store, "read_events", counted)
    return counts


def wait_for(condition: Callable[[], bool], seconds: float = 60.0) -> None:
    """Wait until `condition` holds; the bound is for a broken build only (measured 2026-12-06: three streams
    took over 10 s to subscribe on 2 cores under two suites and a benchmark), never a speed the test asks for."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def open_stream(
    client: TestClient, club: Club, game_id: str, query: str, role: str = "viewer"
) -> tuple[threading.Thread, dict[str, Any]]:
    """A following stream in a thread; its answer (and when it ended) lands in the dict."""
    answer: dict[str, Any] = {}

    def follow() -> None:
        answer["response"] = client.get(f"/v1/games/{game_id}/stream?{query}", headers=getattr(club, role))
        answer["ended"] = time.monotonic()

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    return thread, answer


def ids_of(text: str) -> list[int]:
    return [int(line[4:]) for line in text.splitlines() if line.startswith("id: ")]


def test_an_append_wakes_its_stream_at_once_and_an_idle_stream_reads_nothing(
    client: TestClient, club: Club, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(notify, "FALLBACK_SECONDS", 600.0)
    monkeypatch.setattr(replays, "RECHECK_SECONDS", 600.0)
    game_id, other_id = new_game(client, club)["id"], new_game(client, club)["id"]
    notes(client, club, game_id, 2)
    reads = count_reads(store, monkeypatch)
    notifier = notify.notifier_for(store)
    follower, answer = open_stream(client, club, game_id, "after=2&limit=2")
    wait_for(lambda: notifier.subscriptions(game_id) == 1 and reads.get(game_id, 0) >= 1)
    # the watcher thread (LISTEN, or the SQLite fallback) wakes every stream once when it starts
    wait_for(lambda: notifier.wake_alls >= 1)
    time.sleep(0.3)
    settled = reads[game_id]
    time.sleep(1.0)  # the old stream read four times a second here
    assert reads[game_id] == settled, "an idle stream read the database"
    notes(client, club, other_id, 3)  # another game's appends do not wake it
    time.sleep(0.3)
    assert reads[game_id] == settled, "another game's append woke the stream"
    began = time.monotonic()
    notes(client, club, game_id, 1, "first")
    wait_for(lambda: reads[game_id] > settled, seconds=120)
    notes(client, club, game_id, 1, "second")
    follower.join(timeout=45)
    assert not follower.is_alive(), "the stream did not end after its two events"
    assert answer["ended"] - began < 120.0  # the fallback would have taken ten minutes
    text = answer["response"].text
    assert ids_of(text) == [3, 4]
    assert "first 0" in text and "second 0" in text
    assert notifier.subscriptions(game_id) == 0  # the ended stream unsubscribed


def test_many_streams_of_a_game_wake_together_and_each_shows_what_a_plain_read_shows(
    client: TestClient, club: Club, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(notify, "FALLBACK_SECONDS", 600.0)
    game_id = new_game(client, club)["id"]
    events = simulated("schnapsen", seed=2, max_events=12)
    notifier = notify.notifier_for(store)
    roles = ["viewer", "viewer", "viewer", "recorder"]
    streams = [open_stream(client, club, game_id, f"limit={len(events)}", role) for role in roles]
    wait_for(lambda: notifier.subscriptions(game_id) == len(roles))
    response = client.post(f"/v1/games/{game_id}/events", json={"events": events}, headers=club.recorder)
    assert response.status_code == 201, response.text
    for thread, _ in streams:
        thread.join(timeout=45)
        assert not thread.is_alive()
    plain = {
        role: client.get(f"/v1/games/{game_id}/stream?follow=false", headers=getattr(club, role)).text
        for role in set(roles)
    }
    assert plain["viewer"] != plain["recorder"]  # a viewer's envelopes are redacted, and carry no hash
    for role, (_, answer) in zip(roles, streams, strict=True):
        assert ids_of(answer["response"].text) == list(range(1, len(events) + 1))
        assert answer["response"].text == plain[role]  # what a viewer may see is decided as in a plain read


def test_a_revoked_key_ends_an_idle_stream_without_an_append(
    client: TestClient, club: Club, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replays, "RECHECK_SECONDS", 0.2)
    game_id = new_game(client, club)["id"]
    notifier = notify.notifier_for(store)
    followers = [open_stream(client, club, game_id, "") for _ in range(3)]
    wait_for(lambda: notifier.subscriptions(game_id) == 3)
    assert store.revoke_key(club.keys["viewer"].split("_")[1])
    for thread, answer in followers:
        thread.join(timeout=45)
        assert not thread.is_alive(), "the revoked key's idle stream went on"
        blocks = answer["response"].text.rstrip("\n").split("\n\n")
        last = [block for block in blocks if block and not block.startswith(":")][-1].split("\n")  # not a ping
        assert last[0] == "event: error" and orjson.loads(last[1][6:])["error"]["code"] == "unauthorized"
    wait_for(lambda: notifier.subscriptions(game_id) == 0)
