"""Appends without `expected_seq` under contention: each one lands, on whatever the head is by then.

Many threads append a note each to one game through two `Recorder`s, each on its own `Store` (its own
pool, its own SQLite writer lock, its own state cache: two API processes sharing one database). A
batch sent without `expected_seq` is decided again on the new head whenever it loses a race, so
every one is acknowledged, none is lost, the seqs run 1..n with no gap, and none is refused with a
`seq_conflict` (which only an append naming a seq it did not find may get). With `expected_seq`, the
losers of the same race still get `seq_conflict`, naming the head they did not find. Through the API,
a race lost to another process is decided again (201), or refused with 409 when it named a seq; an
append that cannot get its turn before its deadline is answered 503 with Retry-After, never 409.
"""

from __future__ import annotations

import itertools
import secrets
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from events.errors import IdempotencyMismatchError, StreamConflictError
from events.store import Store
from events.store.base import HeadBusyError, unavailable
from projections.core.recorder import Recorder
from tests.conftest import Club, error_of, new_game

NOTES = 90
THREADS = 16
RECORDERS = 2


@pytest.fixture
def recorders(store_url: str) -> Iterator[list[Recorder]]:
    """Two recorders, each on its own store of the same database."""
    stores = [Store(store_url) for _ in range(RECORDERS)]
    yield [Recorder(s) for s in stores]
    for s in stores:
        s.dispose()


def recorded_game(recorder: Recorder) -> tuple[str, int]:
    club_id = recorder.store.ensure_club(f"contention-{secrets.token_hex(4)}")
    game = recorder.create_game(club_id=club_id, kind="schnapsen", players=["Anna", "Ben"], options={})
    return game.id, club_id


def race(recorders: list[Recorder], jobs: int, job: Callable[[Recorder, int], Any]) -> list[Any]:
    """Run `job(recorder, n)` for n in 0..jobs-1 on THREADS threads, all started together, the recorders
    taken in turn; each job's result or the exception it raised."""
    results: list[Any] = [None] * jobs
    numbers = iter(range(jobs))
    lock = threading.Lock()
    start = threading.Barrier(THREADS)

    def worker(index: int) -> None:
        recorder = recorders[index % len(recorders)]
        start.wait()
        while True:
            with lock:
                n = next(numbers, None)
            if n is None:
                return
            try:
                results[n] = job(recorder, n)
            except Exception as error:  # the outcome of that job, asserted by the test
                results[n] = error

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def note(n: int) -> list[dict[str, Any]]:
    return [{"type": "note", "text": f"note {n}"}]


def test_appends_without_expected_seq_all_land(recorders: list[Recorder]) -> None:
    game_id, club_id = recorded_game(recorders[0])

    def append(recorder: Recorder, n: int) -> Any:
        return recorder.append(game_id, note(n), club_id=club_id, actor="test")

    results = race(recorders, NOTES, append)

    refused = [r for r in results if isinstance(r, BaseException)]
    assert not refused, f"{len(refused)} of {NOTES} refused: {refused[:3]}"
    acked = sorted(envelopes[0]["seq"] for envelopes in results)
    assert acked == list(range(1, NOTES + 1))  # each acknowledged once, at a seq of its own
    stored = recorders[1].store.read_events(game_id)
    assert [e["seq"] for e in stored] == list(range(1, NOTES + 1))  # gapless
    assert sorted(e["data"]["text"] for e in stored) == sorted(f"note {n}" for n in range(NOTES))  # none lost
    assert all(b["prev_hash"] == a["hash"] for a, b in itertools.pairwise(stored))  # one chain
    assert recorders[0].store.get_game(game_id).seq == NOTES


def test_racing_idempotent_retries_return_the_first_result(recorders: list[Recorder]) -> None:
    """Each request sent three times at once (the same Idempotency-Key, from both recorders): one lands,
    the others answer its envelopes."""
    game_id, club_id = recorded_game(recorders[0])
    requests = NOTES // 3

    def append(recorder: Recorder, n: int) -> Any:
        request = n % requests
        return recorder.append(
            game_id, note(request), club_id=club_id, actor="test", idempotency=(f"key-{request}", f"body-{request}")
        )

    results = race(recorders, requests * 3, append)

    refused = [r for r in results if isinstance(r, BaseException)]
    assert not refused, f"{len(refused)} refused: {refused[:3]}"
    for request in range(requests):
        answers = {tuple(e["hash"] for e in results[n]) for n in range(request, requests * 3, requests)}
        assert len(answers) == 1  # the retries answered the first result
    stored = recorders[0].store.read_events(game_id)
    assert [e["seq"] for e in stored] == list(range(1, requests + 1))  # each request landed once
    with pytest.raises(IdempotencyMismatchError):
        recorders[1].append(game_id, note(0), club_id=club_id, actor="test", idempotency=("key-0", "another"))


def test_appends_with_expected_seq_still_conflict(recorders: list[Recorder]) -> None:
    """The same race, each append naming the head seq 0: one lands, the others get `seq_conflict`, none of
    them naming the head it expected as the one it found."""
    game_id, club_id = recorded_game(recorders[0])

    def append(recorder: Recorder, n: int) -> Any:
        return recorder.append(game_id, note(n), club_id=club_id, actor="test", expected_seq=0)

    results = race(recorders, THREADS * 2, append)

    landed = [r for r in results if not isinstance(r, BaseException)]
    conflicts = [r for r in results if isinstance(r, StreamConflictError)]
    assert len(landed) == 1 and len(conflicts) == len(results) - 1, results
    assert all(c.expected == 0 and c.actual == 1 for c in conflicts)
    assert [e["seq"] for e in recorders[1].store.read_events(game_id)] == [1]


@pytest.fixture
def rival(store: Store) -> Iterator[Recorder]:
    """A recorder of another process on the database of `client`."""
    other = Store(store.url)
    yield Recorder(other)
    other.dispose()


def lose_the_next_race(store: Store, monkeypatch: pytest.MonkeyPatch, rival: Recorder, game_id: str) -> None:
    """The next append of `store` meets a note of `rival` that committed after it read the head."""
    append = store.append
    raced: list[bool] = []

    def racing(*args: Any, **kwargs: Any) -> Any:
        if not raced:
            raced.append(True)
            rival.append(game_id, [{"type": "note", "text": "rival"}], club_id=None, actor="rival")
        return append(*args, **kwargs)

    monkeypatch.setattr(store, "append", racing)


def test_a_lost_race_is_decided_again_on_the_new_head(
    store: Store, client: TestClient, club: Club, rival: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = new_game(client, club)["id"]
    lose_the_next_race(store, monkeypatch, rival, game_id)
    answer = client.post(f"/v1/games/{game_id}/events", json={"events": note(1)}, headers=club.recorder)
    assert answer.status_code == 201, answer.text
    assert [e["seq"] for e in answer.json()["events"]] == [2]
    assert [e["data"]["text"] for e in store.read_events(game_id)] == ["rival", "note 1"]


def test_a_lost_race_with_expected_seq_is_a_conflict(
    store: Store, client: TestClient, club: Club, rival: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = new_game(client, club)["id"]
    lose_the_next_race(store, monkeypatch, rival, game_id)
    body = {"expected_seq": 0, "events": note(1)}
    answer = client.post(f"/v1/games/{game_id}/events", json=body, headers=club.recorder)
    error = error_of(answer, 409, "seq_conflict")
    assert (error["expected"], error["actual"]) == (0, 1)
    assert [e["data"]["text"] for e in store.read_events(game_id)] == ["rival"]


def test_no_turn_before_the_deadline_is_a_503(
    store: Store, client: TestClient, club: Club, rival: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Starved (here: no time left once the race is lost), an append without expected_seq is answered as
    the API answers a database that did not answer: 503 `unavailable`, Retry-After, nothing written."""
    game_id = new_game(client, club)["id"]
    lose_the_next_race(store, monkeypatch, rival, game_id)
    monkeypatch.setattr("projections.core.recorder.APPEND_DEADLINE", 0.0)
    answer = client.post(f"/v1/games/{game_id}/events", json={"events": note(1)}, headers=club.recorder)
    error_of(answer, 503, "unavailable")
    assert answer.headers["Retry-After"]
    assert [e["data"]["text"] for e in store.read_events(game_id)] == ["rival"]
    assert unavailable(HeadBusyError(game_id))


def test_a_held_head_waits_for_the_holder(recorders: list[Recorder]) -> None:
    """PostgreSQL: a head held by one process is not held by another before the holder ends (past its
    timeout: HeadBusyError, nothing held); once it ended, the other one holds it."""
    if recorders[0].store.dialect != "postgresql":
        pytest.skip("SQLite holds a head with the process's writer lock: one process's only")
    game_id, _ = recorded_game(recorders[0])
    first, second = (r.store.recorder for r in recorders)
    with first.hold_head(game_id, 10.0), pytest.raises(HeadBusyError), second.hold_head(game_id, 0.2):
        pass
    with second.hold_head(game_id, 10.0) as held:
        assert held.connection is not None
