"""Share links: a read-only token for one game's finished hands, revocable; the replay page's routes."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from events.store import Store
from projections.core import engine
from projections.core.recorder import Recorder
from projections.core.registry import rules_for
from projections.core.simulate import play
from tests.api.helpers import bearer, share
from tests.conftest import Club, make_club

PLAYERS = ["Anna", "Ben"]


def schnapsen_in_hand_2(store: Store, club: Club) -> tuple[str, list[dict[str, Any]]]:
    """A match recorded up to the middle of hand 2; returns its id and the events still to come."""
    rules = rules_for("schnapsen")
    playout = play(rules, PLAYERS, {}, rng=random.Random(21), keep_states=True)
    cut = next(i for i, s in enumerate(playout.states) if s.hand == 2) + 4
    assert rules.hand_in_progress(playout.states[cut - 1].game)
    recorder = Recorder(store)
    club_id = store.ensure_club(club.name)
    game = recorder.create_game(club_id=club_id, kind="schnapsen", players=PLAYERS, options={})
    recorder.append(game.id, list(playout.events[:cut]), club_id=club_id, actor="test")
    return game.id, list(playout.events[cut:])


def error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()["error"]
    assert body["code"] == code
    return body


def hand_seqs(client: TestClient, club: Club, game_id: str) -> dict[int, list[int]]:
    events = client.get(f"/v1/games/{game_id}/events", headers=club.recorder).json()["events"]
    out: dict[int, list[int]] = {}
    for env in events:
        out.setdefault(env["hand"], []).append(env["seq"])
    return out


def test_create_list_and_revoke(client: TestClient, club: Club, other_club: Club, store: Store) -> None:
    game_id, _ = schnapsen_in_hand_2(store, club)
    made = share(client, club, game_id)
    assert made["token"].startswith("ts_") and made["id"] in made["token"]
    assert made["path"] == f"/replay/{game_id}#share={made['token']}"
    assert made["url"].endswith(made["path"])
    assert made["game"] == game_id and made["revoked_at"] is None
    by_auditor = share(client, club, game_id, role="auditor")
    assert by_auditor["token"] != made["token"]

    error(client.post(f"/v1/games/{game_id}/share", headers=club.viewer), 403, "forbidden")
    error(client.post(f"/v1/games/{game_id}/share", headers=other_club.recorder), 404, "not_found")
    error(client.post("/v1/games/gnope/share", headers=club.recorder), 404, "not_found")
    error(client.post(f"/v1/games/{game_id}/share"), 401, "unauthorized")

    listed = client.get(f"/v1/games/{game_id}/share", headers=club.recorder).json()["shares"]
    assert [s["id"] for s in listed] == [made["id"], by_auditor["id"]]
    assert all("token" not in s and "token_hash" not in s for s in listed)
    error(client.get(f"/v1/games/{game_id}/share", headers=club.viewer), 403, "forbidden")
    error(client.get(f"/v1/games/{game_id}/share", headers=other_club.recorder), 404, "not_found")

    # revoke: the link stops working at once; revoking twice keeps the first time
    assert client.get(f"/v1/games/{game_id}", headers=bearer(made["token"])).status_code == 200
    error(client.delete(f"/v1/games/{game_id}/share/{made['id']}", headers=other_club.recorder), 404, "not_found")
    error(client.delete(f"/v1/games/{game_id}/share/{made['id']}", headers=club.viewer), 403, "forbidden")
    revoked = client.delete(f"/v1/games/{game_id}/share/{made['id']}", headers=club.recorder)
    assert revoked.status_code == 200 and revoked.json()["revoked"] is True
    again = client.delete(f"/v1/games/{game_id}/share/{made['id']}", headers=club.auditor).json()
    assert again["revoked_at"] == revoked.json()["revoked_at"]
    body = error(client.get(f"/v1/games/{game_id}", headers=bearer(made["token"])), 401, "unauthorized")
    assert "revoked" in body["message"]
    for path in ("/state?at=1", "/replay?hand=1", "/score", "/events", "/stream?follow=false", "/hands"):
        error(client.get(f"/v1/games/{game_id}{path}", headers=bearer(made["token"])), 401, "unauthorized")
    assert client.get(f"/v1/games/{game_id}", headers=bearer(by_auditor["token"])).status_code == 200
    error(client.delete(f"/v1/games/{game_id}/share/nope", headers=club.recorder), 404, "not_found")
    other_game, _ = schnapsen_in_hand_2(store, club)
    error(client.delete(f"/v1/games/{other_game}/share/{by_auditor['id']}", headers=club.recorder), 404, "not_found")


def test_a_share_token_sees_finished_hands_only(client: TestClient, club: Club, store: Store) -> None:
    game_id, rest = schnapsen_in_hand_2(store, club)
    token = share(client, club, game_id)["token"]
    shared = bearer(token)
    seqs = hand_seqs(client, club, game_id)
    base = f"/v1/games/{game_id}"

    # finished hand 1: as a recorder sees it, from above and from a seat
    assert (
        client.get(f"{base}/replay?hand=1", headers=shared).json()
        == client.get(f"{base}/replay?hand=1", headers=club.recorder).json()
    )
    for seat in ("", "&seat=1"):
        mine = client.get(f"{base}/state?at={seqs[1][3]}{seat}", headers=shared)
        assert mine.status_code == 200
        assert mine.json() == client.get(f"{base}/state?at={seqs[1][3]}{seat}", headers=club.recorder).json()
    assert (
        client.get(f"{base}/score", headers=shared).json() == client.get(f"{base}/score", headers=club.recorder).json()
    )
    assert client.get(base, headers=shared).json()["id"] == game_id
    hands = client.get(f"{base}/hands", headers=shared).json()
    assert hands["live_hand"] == 2
    assert [(h["hand"], h["first_seq"], h["last_seq"], h["live"]) for h in hands["hands"]] == [
        (1, seqs[1][0], seqs[1][-1], False),
        (2, seqs[2][0], seqs[2][-1], True),
    ]

    # live hand 2: refused, or withheld event by event
    body = error(client.get(f"{base}/replay?hand=2", headers=shared), 403, "forbidden")
    assert "finished hands only" in body["message"]
    error(client.get(f"{base}/state", headers=shared), 403, "forbidden")
    error(client.get(f"{base}/state?at={seqs[2][0]}&seat=0", headers=shared), 403, "forbidden")
    events = client.get(f"{base}/events", headers=shared).json()["events"]
    assert [e["seq"] for e in events] == seqs[1] + seqs[2]
    for env in events:
        if env["hand"] == 2:
            assert env == {"seq": env["seq"], "hand": 2, "type": "withheld", "data": {}, "result": {}, "withheld": True}
        else:
            assert "hash" in env and env["type"] != "withheld"
    stream = client.get(f"{base}/stream?follow=false&after={seqs[1][-1]}", headers=shared)
    sent = [orjson.loads(line[6:]) for line in stream.text.splitlines() if line.startswith("data: ")]
    assert [e["seq"] for e in sent] == seqs[2] and all(e["withheld"] for e in sent)

    # read-only, this game only, the replay's routes only
    head = client.get(base, headers=club.recorder).json()["seq"]
    error(client.post(f"{base}/events", headers=shared, json={"events": rest[:1]}), 403, "forbidden")
    assert client.get(base, headers=club.recorder).json()["seq"] == head
    error(client.post(f"{base}/share", headers=shared), 403, "forbidden")
    error(client.get(f"{base}/share", headers=shared), 403, "forbidden")
    error(client.get(f"{base}/audit", headers=shared), 403, "forbidden")
    error(client.get(f"{base}/verify", headers=shared), 403, "forbidden")
    error(client.get(f"{base}/export?format=text", headers=shared), 403, "forbidden")
    error(client.get("/v1/games", headers=shared), 403, "forbidden")
    other_game, _ = schnapsen_in_hand_2(store, club)
    error(client.get(f"/v1/games/{other_game}", headers=shared), 404, "not_found")
    error(client.get(f"/v1/games/{other_game}/replay?hand=1", headers=shared), 404, "not_found")

    # once hand 2 is over, it shows
    rules = rules_for("schnapsen")
    state, to_end = Recorder(store).live(game_id).state, []
    for event in rest:
        if not rules.hand_in_progress(state.game):
            break
        to_end.append(event)
        state = engine.apply(rules, state, event, state.seq + 1)
    assert client.post(f"{base}/events", headers=club.recorder, json={"events": to_end}).status_code == 201
    frames = client.get(f"{base}/replay?hand=2", headers=shared)
    assert frames.status_code == 200
    assert frames.json() == client.get(f"{base}/replay?hand=2", headers=club.recorder).json()


def test_malformed_and_forged_share_tokens(client: TestClient, club: Club, store: Store) -> None:
    game_id, _ = schnapsen_in_hand_2(store, club)
    made = share(client, club, game_id)
    for token in ("ts_", "ts_abc", f"ts_{made['id']}_wrong", "ts_nope_" + made["token"].split("_", 2)[2]):
        error(client.get(f"/v1/games/{game_id}", headers=bearer(token)), 401, "unauthorized")
    error(client.get(f"/v1/games/{game_id}", headers={"Authorization": "Bearer "}), 401, "unauthorized")


def test_the_stream_takes_an_access_token_and_no_other_route_does(client: TestClient, club: Club, store: Store) -> None:
    game_id, _ = schnapsen_in_hand_2(store, club)
    token = share(client, club, game_id)["token"]
    base = f"/v1/games/{game_id}"
    for credential in (token, club.keys["viewer"], club.keys["recorder"]):
        response = client.get(f"{base}/stream?follow=false&limit=2&access_token={credential}")
        assert response.status_code == 200, response.text
        assert response.text.count("event: envelope") == 2
    error(client.get(f"{base}/stream?follow=false&access_token=tb_x_y"), 401, "unauthorized")
    # another route does not declare it: an unknown query parameter (api/queries.py), refused before the key
    for path, credential in (("/events", club.keys["recorder"]), ("/state", token)):
        refused = error(client.get(f"{base}{path}?access_token={credential}"), 422, "invalid")
        assert refused["field"] == "access_token" and credential not in refused["message"]


def test_other_clubs_tokens_and_keys_stay_out(client: TestClient, club: Club, store: Store) -> None:
    game_id, _ = schnapsen_in_hand_2(store, club)
    stranger = make_club(store)
    theirs, _ = schnapsen_in_hand_2(store, stranger)
    their_token = share(client, stranger, theirs)["token"]
    error(client.get(f"/v1/games/{game_id}", headers=bearer(their_token)), 404, "not_found")
    error(client.get(f"/v1/games/{game_id}/share", headers=stranger.recorder), 404, "not_found")


def test_the_page_and_its_files(client: TestClient, club: Club, store: Store) -> None:
    game_id, _ = schnapsen_in_hand_2(store, club)
    page = client.get(f"/replay/{game_id}")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp and "connect-src 'self'" in csp
    assert "/static/replay.js" in page.text and "http" not in page.text.split("<body>")[0].replace("http-equiv", "")
    assert client.get("/replay").status_code == 200
    script = client.get("/static/replay.js")
    assert script.status_code == 200 and script.headers["content-type"].startswith("text/javascript")
    assert client.get("/static/replay.css").headers["content-type"].startswith("text/css")
    for name in ("nope.js", "..%2Fshare.py", "REPLAY.JS", ".hidden.js"):
        error(client.get(f"/static/{name}"), 404, "not_found")
    error(client.get("/replay/bad%20id"), 404, "not_found")


@pytest.mark.parametrize("path", ["/static/cards.js", "/static/tables.js", "/static/replay.js"])
def test_the_scripts_fetch_nothing_from_elsewhere(client: TestClient, path: str) -> None:
    text = client.get(path).text
    assert "http://" not in text and "https://" not in text
    assert "innerHTML" not in text, "names and notes must never be parsed as HTML"
