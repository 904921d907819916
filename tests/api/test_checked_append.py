"""An append by a key this process has read before, decided on the cached state and written by a statement that
checks the key and the game's head in the database (`api.routes.events._append_known`; on SQLite in the append's
transaction, on the event loop): every answer is the one the append gives without it (a revoked key, a key of another
club, a viewer's, an auditor's, a head another process moved, a stale `expected_seq`), on both stores, and it is the
path of an ordinary append."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

import api.routes.events
from api.main import create_app
from api.settings import Settings
from events.store import Store
from projections.core.registry import rules_for
from projections.core.simulate import play
from tests.conftest import BOTH, make_club, new_game

STORES = BOTH

#: what differs between two runs given the same requests: ids, times and hashes
_VOLATILE = re.compile(r'"(recorded_at|hash|prev_hash)":"[^"]*"|revoked at [0-9T:.+-]+Z?|key[: ][0-9a-f]{12}')


def _body(event: dict[str, Any], **extra: Any) -> bytes:
    return orjson.dumps({**extra, "events": [event]})


def _scenario(store: Store) -> tuple[list[tuple[int, str]], int]:
    """One game's appends and refusals through one app, with a second app on the same database (another process:
    its own state cache and keys) moving the head in between: the answers, each made comparable, and the head."""
    events = list(play(rules_for("schnapsen"), ["Anna", "Ben"], {}, rng=random.Random(5), max_events=14).events)
    club, other = make_club(store), make_club(store)
    elsewhere = Store(store.url)
    answers: list[tuple[int, str]] = []
    try:
        with (
            TestClient(create_app(Settings(database_url=store.url), store)) as client,
            TestClient(create_app(Settings(database_url=store.url), elsewhere)) as second,
        ):
            game_id = new_game(client, club)["id"]
            own_id = new_game(client, other)["id"]

            def post(headers: dict[str, str], body: bytes, to: str = game_id, via: TestClient = client) -> None:
                response = via.post(f"/v1/games/{to}/events", headers=headers, content=body)
                text = _VOLATILE.sub("-", response.text.replace(game_id, "{game}"))
                answers.append((response.status_code, text))

            post(club.recorder, _body(events[0]))  # the key and the game read: both known from here on
            post(club.recorder, _body(events[1]))
            post(club.recorder, _body(events[2], expected_seq=2))
            post(club.recorder, _body(events[3], expected_seq=1))  # a stale expected_seq: 409
            post(club.recorder, _body(events[3]), via=second)  # another process moves the head
            post(club.recorder, _body(events[3]))  # legal on this process's cached head, played already: 422
            post(club.recorder, _body(events[4]))
            post(club.recorder, _body(events[5]), via=second)
            post(club.recorder, _body(events[6]))  # this process's cache is one event behind: lands
            post(club.recorder, b"{not json")
            post(club.recorder, _body({"type": "no_such_event"}))
            post(other.recorder, _body(events[0]), to=own_id)  # the other club's key, known here now
            post(other.recorder, _body(events[7]))  # not its club's game: 404, nothing decided on it
            post(club.viewer, _body(events[7]))  # a viewer's key, read (and valid): 403
            post(club.viewer, _body(events[7]))
            post(club.auditor, _body({"type": "note", "text": "checked"}))  # a correction
            post(club.auditor, _body(events[7]))  # not a correction: 403
            post(club.auditor, _body({"type": "note", "text": "again"}))
            post(club.recorder, _body(events[7]))
            assert elsewhere.revoke_key(club.keys["recorder"].split("_")[1])  # revoked by another process
            post(club.recorder, _body(events[8]))  # 401, though this process read the key valid before
            post(club.recorder, _body(events[8]))
            post(club.auditor, _body(events[8]))  # still 403: nothing was written by the revoked key
            head = store.get_game(game_id).seq
    finally:
        elsewhere.dispose()
    return answers, head


def test_an_append_by_a_known_key_answers_as_the_append_that_reads_the_key(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken: list[bool] = []
    known = api.routes.events._append_known
    known_on_loop = api.routes.events._append_known_on_loop

    def counted(*args: Any, **kwargs: Any) -> dict[str, Any] | None:
        done = known(*args, **kwargs)
        taken.append(done is not None)
        return done

    async def counted_on_loop(*args: Any, **kwargs: Any) -> dict[str, Any] | None:
        done = await known_on_loop(*args, **kwargs)
        taken.append(done is not None)
        return done

    async def nothing_on_loop(*args: Any, **kwargs: Any) -> None:
        return None

    monkeypatch.setattr(api.routes.events, "_append_known", counted)
    monkeypatch.setattr(api.routes.events, "_append_known_on_loop", counted_on_loop)
    checked, checked_head = _scenario(store)
    written = taken.count(True)
    monkeypatch.setattr(api.routes.events, "_append_known", lambda *args, **kwargs: None)
    monkeypatch.setattr(api.routes.events, "_append_known_on_loop", nothing_on_loop)
    plain, plain_head = _scenario(store)
    statuses = [201, 201, 201, 409, 201, 422, 201, 201, 201, 422, 422, 201, 404, 403, 403, 201, 403, 201, 201]
    assert [status for status, _ in checked] == [*statuses, 401, 401, 403]
    assert checked == plain
    assert checked_head == plain_head == 10
    # by the known key: events[1], events[2], events[4], the auditor's second note, events[7]; events[3] and
    # events[6] found the head moved by the other process (the statement wrote nothing, then the key was read);
    # on SQLite in the append's transaction on the event loop (`_append_known_on_loop`), on PostgreSQL in one statement
    assert written == 5, taken


def test_a_known_key_appends_without_reading_the_key_first(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """After the first append by a key, the next ones read neither the key nor the game before writing."""
    events = list(play(rules_for("schnapsen"), ["Anna", "Ben"], {}, rng=random.Random(8), max_events=6).events)
    club = make_club(store)
    reads: list[str] = []
    find: Callable[..., Any] = store.find_key_and_game

    def counted(key_id: str, game_id: str) -> Any:
        reads.append(game_id)
        return find(key_id, game_id)

    monkeypatch.setattr(store, "find_key_and_game", counted)
    with TestClient(create_app(Settings(database_url=store.url), store)) as client:
        game_id = new_game(client, club)["id"]
        reads.clear()
        for event in events:
            response = client.post(f"/v1/games/{game_id}/events", headers=club.recorder, content=_body(event))
            assert response.status_code == 201, response.text
    assert len(reads) == 1
    assert store.get_game(game_id).seq == len(events)


def test_a_body_that_fails_to_arrive_is_refused_after_the_key_as_before(store: Store) -> None:
    """A known key's append reads its body before the key's row (`_append_known_on_loop`): when that read fails (a
    streamed body over the limit), the key and its role are still checked first, as when the key is read first."""
    if store.dialect != "sqlite":
        pytest.skip("PostgreSQL reads every append's body before its key (`_append`), as it did before")
    events = list(play(rules_for("schnapsen"), ["Anna", "Ben"], {}, rng=random.Random(8), max_events=2).events)
    club = make_club(store)
    elsewhere = Store(store.url)

    def too_large() -> Any:
        yield b'{"events": ['
        for _ in range(64):
            yield b" " * 65536
        yield b"]}"

    try:
        with TestClient(create_app(Settings(database_url=store.url), store)) as client:
            game_id = new_game(client, club)["id"]
            path = f"/v1/games/{game_id}/events"
            assert client.post(path, headers=club.recorder, content=_body(events[0])).status_code == 201  # known
            assert client.post(path, headers=club.recorder, content=too_large()).status_code == 413
            assert client.post(path, headers=club.viewer, content=_body(events[1])).status_code == 403  # known
            assert client.post(path, headers=club.viewer, content=too_large()).status_code == 403
            assert elsewhere.revoke_key(club.keys["recorder"].split("_")[1])
            assert client.post(path, headers=club.recorder, content=too_large()).status_code == 401
            assert client.post(path, headers=club.recorder, content=_body(events[1])).status_code == 401
    finally:
        elsewhere.dispose()
    assert store.get_game(game_id).seq == 1
