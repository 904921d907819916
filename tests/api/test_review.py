"""`GET /v1/games/{id}/review`: a finished hand's decisions for every reader who may see the hand whole, never
a live one (403 in DESIGN.md's error shape), bad hands and seats refused with a 4xx, and the record untouched.

A Gin Rummy game (the cheapest review) recorded up to the middle of its second hand: hand 1 is over, hand 2
is being played.
"""

from __future__ import annotations

import dataclasses
import random
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest
from fastapi.testclient import TestClient

from events.store import Store
from projections.core.registry import rules_for
from projections.core.review import Decision, HandRecord
from projections.core.simulate import play
from projections.reading import review as review_reading
from tests.api.helpers import bearer, gin_in_hand_2, share
from tests.conftest import Club, error_of
from tests.projections.review_helpers import record

KIND = "gin-rummy-3"


def test_a_finished_hand_is_reviewed_and_a_live_one_refused(client: TestClient, store: Store, club: Club) -> None:
    game_id, hand_1 = gin_in_hand_2(store, club)
    path = f"/v1/games/{game_id}/review"
    before = client.get(f"/v1/games/{game_id}/events", headers=club.auditor).json()

    answer = client.get(path, params={"hand": 1}, headers=club.viewer)
    assert answer.status_code == 200, answer.text
    review = answer.json()
    assert review["hand"] == 1 and review["kind"] == KIND
    decisions = review["decisions"]
    seqs = {e["seq"] for e in before["events"] if e["hand"] == 1}
    assert decisions and all(d["seq"] in seqs for d in decisions)
    # every discard and knock of hand 1 is a decision (a draw is one too where Gin values it)
    discards = {i + 1 for i, e in enumerate(hand_1) if e["type"] in ("discard", "knock")}
    assert discards <= {d["seq"] for d in decisions}
    for d in decisions:
        assert d["mark"] in (None, "?!", "?", "??")
        assert d["sentence"].startswith(d["player"] + ": ") and len(d["sentence"]) > len(d["player"]) + 10
        figure = d["hindsight"] or d["seen"]
        assert figure is not None and figure["cost"] >= 0 and figure["best"]["value"] >= figure["played"]["value"]
    marked = [d for d in decisions if d["mark"]]
    tallies = {s["seat"]: s for s in review["seats"]}
    for seat, tally in tallies.items():
        counted = [d["mark"] for d in marked if d["seat"] == seat]
        assert tally["inaccuracies"] + tally["mistakes"] + tally["blunders"] == len(counted)

    # one seat's decisions only
    only = client.get(path, params={"hand": 1, "seat": 1}, headers=club.viewer).json()
    assert only["decisions"] and {d["seat"] for d in only["decisions"]} == {1}
    assert [d["seq"] for d in only["decisions"]] == [d["seq"] for d in decisions if d["seat"] == 1]

    # the live hand: refused to every role, in DESIGN.md's shape
    for role in ("viewer", "recorder", "auditor"):
        error = error_of(client.get(path, params={"hand": 2}, headers=getattr(club, role)), 403, "forbidden")
        assert error["live"] is True and "still being played" in error["message"]

    # bad hands and seats: 4xx, never a 500
    error_of(client.get(path, params={"hand": 99}, headers=club.viewer), 404, "not_found")
    error_of(client.get(path, params={"hand": 0}, headers=club.viewer), 422, "invalid")
    error_of(client.get(path, params={"hand": "x"}, headers=club.viewer), 422, "invalid")
    error_of(client.get(path, headers=club.viewer), 422, "invalid")
    error_of(client.get(path, params={"hand": 1, "seat": 3}, headers=club.viewer), 422, "invalid")
    error_of(client.get(path, params={"hand": 1, "seat": -1}, headers=club.viewer), 422, "invalid")
    error_of(client.get("/v1/games/nope/review", params={"hand": 1}, headers=club.viewer), 404, "not_found")

    # a share link: the finished hand, not the live one
    token = bearer(share(client, club, game_id)["token"])
    shared = client.get(path, params={"hand": 1}, headers=token)
    assert shared.status_code == 200 and [d["seq"] for d in shared.json()["decisions"]] == [d["seq"] for d in decisions]
    error_of(client.get(path, params={"hand": 2}, headers=token), 403, "forbidden")

    # reviewing wrote nothing: the same events, the same head
    after = client.get(f"/v1/games/{game_id}/events", headers=club.auditor).json()
    assert after == before
    assert client.get(f"/v1/games/{game_id}/verify", headers=club.auditor).json()["ok"] is True


def test_another_clubs_game_is_not_found(client: TestClient, store: Store, club: Club, other_club: Club) -> None:
    game_id, _ = gin_in_hand_2(store, club)
    error_of(client.get(f"/v1/games/{game_id}/review", params={"hand": 1}, headers=other_club.viewer), 404, "not_found")


def test_a_flood_of_reviews_is_refused_busy_and_a_remembered_one_still_served(
    client: TestClient, store: Store, club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every search slot of the process taken (held here): a hand not yet reviewed waits, then gets 429 `busy`
    with Retry-After in DESIGN.md's shape and nothing written; a hand reviewed before is served from memory."""
    game_id, _ = gin_in_hand_2(store, club)
    path = f"/v1/games/{game_id}/review"
    reviewed = client.get(path, params={"hand": 1, "seat": 0}, headers=club.viewer)
    assert reviewed.status_code == 200, reviewed.text
    before = client.get(f"/v1/games/{game_id}/events", headers=club.auditor).json()

    slots = threading.BoundedSemaphore(1)
    monkeypatch.setattr(review_reading, "_searches", slots)
    monkeypatch.setattr(review_reading, "WAIT_SECONDS", 0.0)
    assert slots.acquire(blocking=False)
    try:
        answer = client.get(path, params={"hand": 1, "seat": 1}, headers=club.viewer)
        error = error_of(answer, 429, "busy")
        assert answer.headers["Retry-After"] == str(error["retry_after"]) and error["retry_after"] >= 1
        assert "ask again" in error["message"]
        again = client.get(path, params={"hand": 1, "seat": 0}, headers=club.viewer)
        assert again.status_code == 200 and again.json() == reviewed.json()
    finally:
        slots.release()
    assert client.get(path, params={"hand": 1, "seat": 1}, headers=club.viewer).status_code == 200
    assert client.get(f"/v1/games/{game_id}/events", headers=club.auditor).json() == before


def test_two_readers_of_one_hand_share_one_search() -> None:
    """A hand asked for twice at once is searched once: the second reader waits for the first one's search,
    and both get the same decisions."""
    rules = rules_for(KIND)
    players = list(rules.demo_players)
    played = play(rules, players, {}, rng=random.Random(4), bot=rules.bot)
    hand_1 = record(rules, players, played.events, 1)
    assert rules.review is not None
    reviewer = rules.review
    calls: list[int] = []
    entered, release = threading.Event(), threading.Event()

    def slow_review(hand: HandRecord[Any], seat: int | None) -> Sequence[Decision]:
        calls.append(hand.hand)
        entered.set()
        assert release.wait(10)
        return reviewer.review(hand, seat)

    patched = dataclasses.replace(rules, review=dataclasses.replace(reviewer, review=slow_review))
    game = f"shared-search-{random.random()}"  # a key no other test has left in the process's memory
    answers: list[tuple[Decision, ...]] = []
    ask = lambda: answers.append(review_reading.reviewed(patched, game, hand_1, None))  # noqa: E731
    first = threading.Thread(target=ask)
    first.start()
    assert entered.wait(10)
    second = threading.Thread(target=ask)
    second.start()
    assert _blocked_in(second, {"wait", "slow_review"})  # waiting on the first search, or (wrongly) in its own
    release.set()
    first.join(10)
    second.join(10)
    assert calls == [1] and len(answers) == 2 and answers[0] is answers[1] and answers[0]


def _blocked_in(thread: threading.Thread, functions: set[str]) -> bool:
    """Whether `thread` comes to be inside one of `functions` (polled from its stack, up to 10 s)."""
    for _ in range(1000):
        frame = sys._current_frames().get(thread.ident or -1)
        while frame is not None:
            if frame.f_code.co_name in functions:
                return True
            frame = frame.f_back
        time.sleep(0.01)
    return False
