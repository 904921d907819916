"""Several API processes on one database: no process acts on a decision another process has undone.

The per-process state of an API process, and why none of it can go stale across processes:

- keys (`api.auth.authenticate`) and share links (`api.auth.authenticate_share`): looked up in the database on every
  request, no cache, so a key or link revoked anywhere (another API process, `tablebook keys revoke`) is
  refused by the very next request to any process. Not a TTL: a TTL of a second would still let a
  revoked key read hidden cards, or append, for that second.
- players' names: read from the game's row on every request (`Recorder.live` re-reads the row and
  serves its `players`, never the ones cached with the state), so an erasure shows everywhere at once.
- the folded state (`StateCache`): checked against the game's head seq in the database on every read
  and append, and caught up (or folded again) when another process appended.
- the read model's game-kind cache (`projections.readmodels.hand_facts.HandFacts`) holds a game's kind and club,
  which never change; settings are per process and read once, from the environment.

Each test runs against two real server processes on one database (`shared_server`: a SQLite file, and
PostgreSQL) and asserts on the first request after the change, which is stricter than "within a second".
"""

from __future__ import annotations

import secrets
from typing import Any

import httpx
import pytest

from events.store import Store
from projections.histories.erasure import erase_player
from tests.conftest import make_club
from tests.reliability.load import Api, simulated
from tests.reliability.server import ServerGroup

pytestmark = pytest.mark.reliability


def _get(url: str, path: str, key: str) -> httpx.Response:
    return httpx.get(url + path, headers={"Authorization": f"Bearer {key}"}, timeout=30)


def test_a_revoked_key_is_refused_by_every_process_at_once(store: Store, shared_server: ServerGroup) -> None:
    a, b = shared_server.urls
    club = make_club(store)
    with Api(a, club.keys["recorder"]) as api:
        game_id = api.create_game("schnapsen")
    viewer = club.keys["viewer"]
    for url in (a, b):  # both processes have served the key (any cache they keep is warm)
        assert _get(url, f"/v1/games/{game_id}", viewer).status_code == 200
    assert store.revoke_key(viewer.split("_")[1])  # what `tablebook keys revoke` does, in a third process
    for url in (b, a):
        answer = _get(url, f"/v1/games/{game_id}", viewer)
        assert answer.status_code == 401, (url, answer.text)
        assert "revoked" in answer.json()["error"]["message"]
    # the other keys of the club are untouched
    assert _get(b, f"/v1/games/{game_id}", club.keys["recorder"]).status_code == 200


def test_a_share_link_revoked_through_one_process_is_refused_by_the_other(
    store: Store, shared_server: ServerGroup
) -> None:
    a, b = shared_server.urls
    club = make_club(store)
    with Api(a, club.keys["recorder"]) as api:
        game_id = api.create_game("schnapsen")
        link = api.http.post(f"/v1/games/{game_id}/share")
        assert link.status_code == 201, link.text
        token, share_id = link.json()["token"], link.json()["id"]
        assert _get(b, f"/v1/games/{game_id}", token).status_code == 200  # B has served the link
        revoked = api.http.delete(f"/v1/games/{game_id}/share/{share_id}")  # through A
        assert revoked.status_code == 200, revoked.text
    answer = _get(b, f"/v1/games/{game_id}", token)
    assert answer.status_code == 401, answer.text
    assert "revoked" in answer.json()["error"]["message"]


def test_an_erased_name_is_not_shown_by_any_process(store: Store, shared_server: ServerGroup) -> None:
    a, b = shared_server.urls
    club = make_club(store)
    name = f"Erasable-{secrets.token_hex(4)}"
    with Api(a, club.keys["recorder"]) as api:
        created = api.http.post("/v1/games", json={"game": "schnapsen", "players": [name, "Other"], "options": {}})
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        assert api.append(game_id, simulated("schnapsen", seed=3, max_events=6))[0] == 201
    paths = [f"/v1/games/{game_id}", f"/v1/games/{game_id}/state", f"/v1/games/{game_id}/export?format=json"]
    key = club.keys["recorder"]
    for url in (a, b):  # both processes have the game's state (and its names) cached
        for path in paths:
            answer = _get(url, path, key)
            assert answer.status_code == 200 and name in answer.text, (url, path, answer.text[:300])
    club_id = store.get_game(game_id).club_id
    assert erase_player(store, name, "(erased)", club_id=club_id).games == [game_id]  # `tablebook players erase`
    for url in (b, a):
        for path in paths:
            answer = _get(url, path, key)
            assert answer.status_code == 200, (url, path, answer.text[:300])
            assert name not in answer.text and "(erased)" in answer.text, (url, path, answer.text[:300])
        listed = _get(url, f"/v1/games?player={name}", key)
        assert listed.status_code == 200 and game_id not in listed.text, listed.text[:300]


def _state(url: str, game_id: str, key: str) -> dict[str, Any]:
    answer = _get(url, f"/v1/games/{game_id}/state", key)
    assert answer.status_code == 200, answer.text
    document: dict[str, Any] = answer.json()
    return document


def test_after_one_process_appends_the_other_never_serves_the_old_state(
    store: Store, shared_server: ServerGroup
) -> None:
    """Appends alternate between the processes; after each, the other one reads the new head, refuses an
    append on the old one (409), and accepts the next event, which is legal only at the new head."""
    a, b = shared_server.urls
    club = make_club(store)
    key = club.keys["recorder"]
    events = simulated("schnapsen", seed=11, max_events=40)
    with Api(a, key) as api_a, Api(b, key) as api_b:
        game_id = api_a.create_game("schnapsen")
        apis = (api_a, api_b)
        for url in (a, b):
            assert _state(url, game_id, key)["seq"] == 0  # both cache the empty game
        for index, event in enumerate(events):
            writer, reader = apis[index % 2], apis[(index + 1) % 2]
            status, body = writer.append(game_id, [event], expected_seq=index)
            assert status == 201, (writer.url, index, body)
            state = _state(reader.url, game_id, key)
            assert state["seq"] == index + 1, (reader.url, index, state["seq"])
            assert reader.head(game_id) == index + 1
            if index % 5 == 0 and index + 1 < len(events):
                status, body = reader.append(game_id, [events[index + 1]], expected_seq=index)
                assert status == 409 and body["error"]["code"] == "seq_conflict", (reader.url, index, body)
    assert store.get_game(game_id).seq == len(events)
