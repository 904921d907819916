"""Group commit on SQLite (`events/store/turn_commit.py`): the checked appends that the event loop writes in one turn
of it share one transaction. Every answer, refusal and stored event is the one the appends give each in its own
transaction (random legal games, a head moved by another process, a rule's refusal, two appends to one game in
one turn), each append is answered only after its commit, and a write of the loop's thread commits the open
transaction first."""

from __future__ import annotations

import asyncio
import random
import secrets
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest

import projections.core.recorder
from api.auth import known_key
from api.main import create_app
from api.service import Tablebook
from api.settings import Settings
from events.store import Store
from events.store.turn_commit import TurnCommit
from projections.core.registry import rules_for
from projections.core.simulate import play
from tests.conftest import Club, make_club

STORES = ("sqlite",)
GAMES = 6
ROUNDS = 8
#: what differs between two runs given the same requests, times frozen and the same keys: nothing but the games' ids


@pytest.fixture
def frozen_time(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every recorded time the same: the two runs' hashes are then byte for byte the same."""
    monkeypatch.setattr(projections.core.recorder, "utc_now", lambda: "2026-12-07T12:00:00.000000Z")
    yield


def _client(store: Store) -> httpx.AsyncClient:
    app = create_app(Settings(database_url=store.url), store)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test")


async def _scenario(store: Store, club: Club) -> tuple[list[tuple[int, str]], list[str]]:
    """Six games played at once through one app, one event each a turn of the loop, with another process (a second
    app on the same database) moving a head in between, an event the rules refuse and two appends to one game in
    one turn: the answers and every game's stored events, each made comparable (`club`: the same keys in both
    runs, whose ids the hashes hold)."""
    headers = club.recorder
    rules = rules_for("schnapsen")
    plays = [
        list(play(rules, ["Anna", "Ben"], {}, rng=random.Random(seed), max_events=40).events) for seed in range(GAMES)
    ]
    elsewhere = Store(store.url)
    answers: list[tuple[int, str]] = []
    try:
        async with _client(store) as client, _client(elsewhere) as second:
            ids: list[str] = []
            for _ in range(GAMES):
                made = await client.post(
                    "/v1/games", json={"game": "schnapsen", "players": ["Anna", "Ben"]}, headers=headers
                )
                assert made.status_code == 201, made.text
                ids.append(made.json()["id"])

            def comparable(text: str) -> str:
                for index, game_id in enumerate(ids):
                    text = text.replace(game_id, f"{{game {index}}}")
                return text

            async def post(game: int, event: dict[str, Any], via: httpx.AsyncClient = client) -> tuple[int, str]:
                response = await via.post(
                    f"/v1/games/{ids[game]}/events", content=orjson.dumps({"events": [event]}), headers=headers
                )
                return response.status_code, comparable(response.text)

            played = [0] * GAMES

            def next_event(game: int) -> dict[str, Any]:
                played[game] += 1
                return plays[game][played[game] - 1]

            for game in range(GAMES):  # the key and each game read: known from here on
                answers.append(await post(game, next_event(game)))
            for round_ in range(ROUNDS):
                if round_ == 3:  # another process moves game 0's head: its next append here is refused by the check
                    moved = next_event(0)
                    answers.append(await post(0, moved, via=second))
                    played[0] -= 1  # and posted here again: legal on this process's cached head, played: 422
                calls = [post(game, next_event(game)) for game in range(GAMES)]
                if round_ == 4:
                    calls.append(post(1, {"type": "no_such_event"}))  # the rules refuse it: 422
                    calls.append(post(2, next_event(2)))  # a second append to game 2 in the same turn: lands after
                answers.extend(await asyncio.gather(*calls))
            stored = []
            for game_id in ids:
                response = await client.get(f"/v1/games/{game_id}/events", headers=headers)
                assert response.status_code == 200, response.text
                stored.append(comparable(response.text))
    finally:
        elsewhere.dispose()
    return answers, stored


def _turns(store: Store) -> TurnCommit:
    commits = store.recorder.turn_commit
    assert commits is not None, "group commit is on by default on SQLite"
    return commits


@pytest.mark.usefixtures("frozen_time")
def test_appends_grouped_in_a_turn_answer_and_store_as_appends_alone(store: Store) -> None:
    commits = _turns(store)
    club = make_club(store)
    grouped, grouped_events = asyncio.run(_scenario(store, club))
    assert commits.committed > commits.commits, "some turn's commit held more than one append"
    store.recorder.turn_commit = None  # each append its own transaction, as with TABLEBOOK_GROUP_COMMIT=off
    alone, alone_events = asyncio.run(_scenario(store, club))
    assert grouped == alone
    assert grouped_events == alone_events
    statuses = [status for status, _ in grouped]
    assert statuses.count(422) == 2 and set(statuses) == {201, 422}, statuses


def test_an_append_is_answered_after_its_transaction_commits(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both appends of one turn answered after the one COMMIT, and no other connection sees either before it."""
    club = make_club(store)
    log: list[str] = []
    commit = TurnCommit.commit

    def logged(self: TurnCommit) -> None:
        seen = store.db.rows("SELECT COUNT(*) FROM event WHERE game_id IN (?, ?)", tuple(ids))[0][0]
        log.append(f"commit, {seen} events seen before it")
        commit(self)

    monkeypatch.setattr(TurnCommit, "commit", logged)
    rules = rules_for("schnapsen")
    ids: list[str] = []

    async def run() -> None:
        async with _client(store) as client:
            for _ in range(2):
                made = await client.post(
                    "/v1/games", json={"game": "schnapsen", "players": ["A", "B"]}, headers=club.recorder
                )
                ids.append(made.json()["id"])
            events = list(play(rules, ["A", "B"], {}, rng=random.Random(1), max_events=2).events)

            async def post(game_id: str, event: dict[str, Any]) -> None:
                response = await client.post(
                    f"/v1/games/{game_id}/events", json={"events": [event]}, headers=club.recorder
                )
                assert response.status_code == 201, response.text
                log.append("answered")

            await asyncio.gather(*(post(game_id, events[0]) for game_id in ids))  # keys and games read, alone
            log.clear()
            await asyncio.gather(*(post(game_id, events[1]) for game_id in ids))

    asyncio.run(run())
    assert log == ["commit, 2 events seen before it", "answered", "answered"], log


async def _second_append_waiting(store: Store, seed: int) -> tuple[Tablebook, str, asyncio.Future[Any]]:
    """A game with one event appended over HTTP (its key and state known to the app), then its second event appended
    on the loop through the service (`append_checked_on_loop`), run up to its wait for its turn's commit: the
    service, the game and that append's future."""
    club = make_club(store)
    events = list(play(rules_for("schnapsen"), ["A", "B"], {}, rng=random.Random(seed), max_events=2).events)
    app = create_app(Settings(database_url=store.url), store)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        made = await client.post("/v1/games", json={"game": "schnapsen", "players": ["A", "B"]}, headers=club.recorder)
        game_id = made.json()["id"]
        first = await client.post(f"/v1/games/{game_id}/events", json={"events": [events[0]]}, headers=club.recorder)
        assert first.status_code == 201, first.text
    known = known_key(store, club.recorder["Authorization"])
    assert known is not None
    service: Tablebook = app.state.service
    appended = asyncio.ensure_future(service.append_checked_on_loop(*known, game_id, [events[1]], expected_seq=1))
    await asyncio.sleep(0)  # the append runs: it writes, then waits for its transaction's commit
    assert _turns(store).owned_here() and not appended.done()
    return service, game_id, appended


def test_a_write_of_the_loop_commits_the_open_transaction_first(store: Store) -> None:
    """A write the event loop's thread starts while its turn's transaction is open (it would wait for that
    transaction's lock) commits that transaction first: its append lands and is answered."""

    async def run() -> tuple[dict[str, Any] | None, int, int]:
        _, game_id, appended = await _second_append_waiting(store, 2)
        with store.db.one_writer():  # a write of the loop's thread: the open transaction is committed first
            assert not _turns(store).owned_here()
            seq = store.get_game(game_id).seq
        return await appended, seq, store.get_game(game_id).seq

    answer, seq_in_write, seq_after = asyncio.run(run())
    assert answer is not None and answer["events"][0]["seq"] == 2
    assert (seq_in_write, seq_after) == (2, 2)


def test_an_append_whose_caller_stops_waiting_still_lands_whole(store: Store) -> None:
    """An append cancelled while it waits for its turn's commit (a client gone) is committed with the others, and
    what follows a commit is done for it all the same: its game's state cached at the new head."""

    async def run() -> tuple[int, int]:
        service, game_id, appended = await _second_append_waiting(store, 3)
        appended.cancel()
        await asyncio.sleep(0.01)  # the commit's callback has run
        cached = service.recorder.cache.get(game_id)
        assert cached is not None and appended.cancelled()
        return cached.state.seq, store.get_game(game_id).seq

    assert asyncio.run(run()) == (2, 2)


def test_an_integrity_error_rolls_the_turn_back_and_writes_nothing(store: Store) -> None:
    """A member whose row collides leaves its head's UPDATE in the shared transaction: the transaction rolls back,
    the member gets None and the others False (each appends as before), and nothing of any of them is there."""
    commits = _turns(store)
    name = f"turn-{secrets.token_hex(4)}"

    def club_row(cursor: Any) -> bool:
        cursor.execute("INSERT INTO club (name, created_at) VALUES (?, ?)", (name, "2026-12-07T12:00:00Z"))
        return True

    async def run() -> bool:
        first = commits.append("game a", club_row, lambda: None)
        second = commits.append("game b", club_row, lambda: None)  # the same unique name: an integrity error
        assert first is not None and second is None and not commits.owned_here()
        return await first

    assert asyncio.run(run()) is False
    assert store.db.rows("SELECT COUNT(*) FROM club WHERE name = ?", (name,))[0][0] == 0
