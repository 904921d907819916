"""Isolation and secrets, against real server processes.

- A key of another club cannot read, list, append to, export, audit or share
  a club's games: 404 (not 403) on every route of the OpenAPI schema that
  names a game, whatever its role; listings and bulk exports leave them out;
  an Idempotency-Key that club used reveals nothing.
- A revoked key is refused at once by every API process, and its open
  event stream ends.
- Keys are stored only as hashes: the secret is nowhere in the database, the
  answers or the server's log.
- A viewer never reads a live hidden card, on any route that names a game,
  from any seat (the leak tests of tests/api/test_replays_audits.py, run
  against a live server and every route the schema has now).
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import threading
import time
from typing import Any

import httpx
import orjson
import pytest
from sqlalchemy import inspect, text

from events.cards import FULL_DECK as FULL
from events.cards import pretty
from events.store import Store
from projections.core.registry import rules_for
from tests.api.helpers import never_public_cards, simulate
from tests.conftest import Club, make_club
from tests.reliability.figures import FIGURES
from tests.reliability.load import PLAYERS, Api, is_error_shape, kinds, note, simulated
from tests.reliability.server import ROOT, ServerGroup

pytestmark = pytest.mark.reliability


def game_routes(url: str) -> list[tuple[str, str]]:
    """(method, path template) of every operation of the live schema whose path names a game."""
    schema = httpx.get(f"{url}/openapi.json").json()
    return sorted(
        (method.upper(), path)
        for path, item in schema["paths"].items()
        if "{game_id}" in path
        for method in item
        if method in ("get", "post", "put", "patch", "delete")
    )


def owner_request(method: str, path: str, game_id: str, seats: int) -> dict[str, Any]:
    """What the owner of the game would send to this route (a valid request)."""
    url = path.replace("{game_id}", game_id)
    url = re.sub(r"\{[a-z_]+\}", "s0000000000", url)
    params: dict[str, Any] = {}
    body: Any = None
    if path.endswith("/events") and method == "POST":
        body = {"events": [note("mine")]}
    elif path.endswith("/audit") and method == "POST":
        body = {"points": {str(s): 0 for s in range(seats)}}
    elif path.endswith(("/replay", "/review")):
        params["hand"] = 1
    elif path.endswith("/stream"):
        params["follow"] = "false"
    return {"method": method, "path": url, "params": params, **({"json": body} if body is not None else {})}


def test_another_clubs_key_finds_nothing(store: Store, shared_server: ServerGroup) -> None:
    owner, intruder = make_club(store), make_club(store)
    # a game whose first hand is over and reviews in 0.2 s: the walk asks each role for the review of hand 1,
    # and a hand's review is a search (seed 9's took 12 s a request, 3 requests a store)
    events = simulated("schnapsen", seed=15, max_events=40)
    with Api(shared_server.url, owner.keys["recorder"]) as api:
        game_id = api.create_game("schnapsen")
        assert api.append(game_id, events, idempotency_key="owners-key")[0] == 201
    routes = game_routes(shared_server.url)
    checked = refused = 0
    wrong: list[str] = []
    roles = ("recorder", "viewer", "auditor")
    mine = {role: Api(shared_server.url, owner.keys[role]) for role in roles}
    theirs = {role: Api(shared_server.urls[1], intruder.keys[role]) for role in roles}
    try:
        for method, path in routes:
            request = owner_request(method, path, game_id, 2)
            ghost = owner_request(method, path, "g000000000000", 2)  # a game that does not exist
            for role in roles:
                allowed = mine[role].request(**request)[0] in (200, 201)
                status, body = theirs[role].request(**request)
                unknown = theirs[role].request(**ghost)
                checked += 1
                code = body["error"]["code"] if is_error_shape(body) else None
                unknown_code = unknown[1]["error"]["code"] if is_error_shape(unknown[1]) else None
                if (status, code) != (unknown[0], unknown_code):
                    wrong.append(
                        f"{role} of another club: {method} {path}: {status} {code}, unlike a missing game {unknown}"
                    )
                elif allowed and (status, code) != (404, "not_found"):
                    wrong.append(f"{role} of another club: {method} {path}: {status} {str(body)[:200]}")
                refused += status == 404
    finally:
        for api in [*mine.values(), *theirs.values()]:
            api.close()
    with Api(shared_server.url, intruder.keys["recorder"]) as theirs:
        same_key = theirs.append(game_id, events, idempotency_key="owners-key")
        listed = theirs.request("GET", "/v1/games", params={"player": "Anna", "limit": 200})
        exported = theirs.http.get("/v1/export")
        created = theirs.request("POST", "/v1/games", json={"game": "schnapsen", "players": ["X", "Y"]})
    assert same_key[0] == 404 and is_error_shape(same_key[1]), same_key
    assert listed[0] == 200 and game_id not in [g["id"] for g in listed[1]["games"]]
    assert exported.status_code == 200 and game_id not in exported.text
    assert created[0] == 201
    owners = {f"key:{k.split('_')[1]}" for k in owner.keys.values()}
    assert {env["actor"] for env in store.read_events(game_id)} <= owners  # nothing of the intruder's landed
    FIGURES.note(
        "isolation",
        f"{store.dialect}: {len(routes)} routes that name a game x 3 roles of another club: {checked} requests, "
        f"{refused} answered 404 not_found, the others exactly as for a game that does not exist (a role the route "
        "refuses: 403); listing, search, bulk export and a reused Idempotency-Key reveal nothing",
    )
    assert not wrong, "\n".join(wrong)


def cli(*args: str, url: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "api.cli", *args, "--database", url],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_a_revoked_key_is_refused_at_once_and_keys_are_stored_only_as_hashes(
    store: Store, shared_server: ServerGroup
) -> None:
    club = make_club(store)
    key, recorder_key = club.keys["viewer"], club.keys["recorder"]
    key_id, secret = key.split("_", 2)[1:]
    with Api(shared_server.url, recorder_key) as api:
        game_id = api.create_game("schnapsen")
        api.append(game_id, simulated("schnapsen", seed=2, max_events=12))
    clients = [Api(url, key) for url in shared_server.urls]
    try:
        assert [c.request("GET", f"/v1/games/{game_id}")[0] for c in clients] == [200, 200]
        # an open stream of the key, following the game
        lines: list[str] = []
        stream_done = threading.Event()

        def follow() -> None:
            with httpx.stream(
                "GET",
                f"{shared_server.urls[1]}/v1/games/{game_id}/stream",
                headers={"Authorization": f"Bearer {key}"},
                timeout=30,
            ) as response:
                for line in response.iter_lines():
                    lines.append(line)
            stream_done.set()

        follower = threading.Thread(target=follow, daemon=True)
        follower.start()
        time.sleep(0.5)
        cli("keys", "revoke", key_id, url=store.url)
        revoked = time.monotonic()
        answers = [c.request("GET", f"/v1/games/{game_id}") for c in clients]
        refused_after = time.monotonic() - revoked
        with Api(shared_server.url, recorder_key) as api:
            api.append(game_id, [note("after the revocation")])
        ended = stream_done.wait(timeout=10)
        stream_after = time.monotonic() - revoked
    finally:
        for c in clients:
            c.close()
    assert [a[0] for a in answers] == [401, 401] and all("revoked" in a[1]["error"]["message"] for a in answers)
    assert ended, "the revoked key's stream went on"
    assert not any("after the revocation" in line for line in lines)
    assert any(line.startswith("event: error") for line in lines)

    # only the hash is stored: the secret is in no table, no answer, no log
    found = []
    with store.engine.connect() as conn:
        tables = inspect(conn).get_table_names()
        for table in tables:
            for row in conn.execute(text(f'SELECT * FROM "{table}"')):
                if any(secret in str(value) for value in row):
                    found.append(table)
        stored = conn.execute(text("SELECT key_hash FROM api_key WHERE id = :k"), {"k": key_id}).scalar_one()
    with Api(shared_server.url, recorder_key) as api:
        answers_text = orjson.dumps([api.request("GET", f"/v1/games/{game_id}/events")[1]]).decode()
    logs = "".join(p.log.read_text(errors="replace") for p in shared_server.processes)
    assert stored == hashlib.sha256(secret.encode()).hexdigest()
    assert not found and secret not in answers_text and secret not in logs and f"key:{key_id}" not in answers_text
    FIGURES.note(
        "isolation",
        f"{store.dialect}: a key revoked with the CLI: refused (401) by both API processes "
        f"{refused_after * 1000:.0f} ms later, its open stream ended within {stream_after:.1f} s; "
        f"its secret in none of {len(tables)} tables, "
        "the answers or the logs; only sha256(secret) stored",
    )


def first_hand_cut(kind: str, seed: int) -> tuple[list[dict[str, Any]], list[Any]]:
    """A random game stopped in the middle of its first hand: no finished hand shows cards legitimately."""
    rules = rules_for(kind)
    events, states = simulate(kind, seed)
    in_hand = [
        i
        for i, s in enumerate(states)
        if s.hand == 1 and rules.hand_in_progress(s.game) and any(rules.census(s.game).private.values())
    ]
    cut = in_hand[len(in_hand) // 2]
    return events[: cut + 1], states[: cut + 1]


CARD = re.compile(r"(?<![A-Za-z0-9])([A2-9TJQK][CDHS])(?![A-Za-z0-9])")


def cards_shown(body: str, hidden: set[str]) -> set[str]:
    """Hidden cards a text shows: as a code (quoted or not) or as `10♦`."""
    codes = {card for card in CARD.findall(body) if card in hidden}
    return codes | {card for card in hidden if pretty(card) in body}


@pytest.mark.parametrize("kind", kinds())
def test_a_viewer_never_reads_a_live_hidden_card_on_any_route(
    store: Store, shared_server: ServerGroup, kind: str
) -> None:
    club: Club = make_club(store)
    events, states = first_hand_cut(kind, seed=23)
    before_the_hand = [e for e, s in zip(events, states, strict=True) if s.hand == 0]  # a Gin cut shows cards
    hidden = never_public_cards(kind, states) - cards_shown(orjson.dumps(before_the_hand).decode(), set(FULL))
    head = states[-1]
    assert hidden
    with Api(shared_server.url, club.keys["recorder"]) as api:
        game_id = api.create_game(kind)
        assert api.append(game_id, events)[0] == 201
    seats = len(PLAYERS[kind])
    requests = 0
    leaks: list[str] = []
    paths = httpx.get(f"{shared_server.url}/openapi.json").json()["paths"]
    with Api(shared_server.urls[1], club.keys["viewer"]) as viewer:
        for method, path in game_routes(shared_server.url):
            if method != "GET" or "{share_id}" in path:
                continue
            url = path.replace("{game_id}", game_id)
            variants: list[dict[str, Any]] = [{}]
            declared = {p["name"] for p in paths[path]["get"].get("parameters", []) if p["in"] == "query"}
            for seat in range(seats) if "seat" in declared else ():  # an unknown query parameter is a 422
                variants.append({"seat": seat})
                if path.endswith("/state"):
                    variants += [{"seat": seat, "at": at} for at in range(max(1, head.seq - 3), head.seq + 1)]
            if path.endswith(("/replay", "/review")):
                variants = [{**v, "hand": head.hand} for v in variants if "at" not in v]
            if path.endswith("/stream"):
                variants = [{"follow": "false"}]
            if path.endswith("/export"):
                variants = [{"format": f} for f in ("json", "jsonl", "text", "csv")]
            for params in variants:
                response = viewer.http.get(url, params=params)
                requests += 1
                if response.status_code >= 400:
                    if response.status_code != 403:  # a route a viewer may not use shows nothing
                        leaks.append(f"{url} {params}: {response.status_code} {response.text[:200]}")
                    continue
                shown = cards_shown(response.text, hidden)
                if shown:
                    leaks.append(f"{url} {params} shows {sorted(shown)}")
    FIGURES.note(
        "isolation",
        f"{store.dialect}, {kind}: a live hand with {len(hidden)} hidden cards, {requests} viewer requests "
        f"over every GET route that names a game: {len(leaks)} leaks",
    )
    assert not leaks, leaks[:10]
