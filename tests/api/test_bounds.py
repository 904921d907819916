"""Inputs no store can hold, on SQLite and PostgreSQL: each is a 4xx in the error shape, and writes nothing.

An outside test found each of these answering 500 (or 200 where it should
refuse): integers over 64 bits in game options and stakes, a text import
with thousands of digits, `Last-Event-ID: ²`, NaN and 1e400 in a claim, a
NUL in any string that reaches PostgreSQL (path, query, headers, bodies),
and a bulk export whose first query failed after its 200 had been sent.
"""

from __future__ import annotations

import base64
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from api.settings import Settings
from events.schema import MAX_AMOUNT
from events.store import Store
from tests.conftest import BOTH, Club, error_of, new_game

#: both stores (tests/conftest.py `stores_of`):
#: PostgreSQL's 32-bit INTEGER columns and its text bound what SQLite would take
STORES = BOTH

HALF = ["Juan", "Ines", "Carlo", "Sara"]
JSON = {"Content-Type": "application/json"}


def game_ids(client: TestClient, club: Club) -> set[str]:
    return {g["id"] for g in client.get("/v1/games?limit=200", headers=club.recorder).json()["games"]}


def seq_of(client: TestClient, club: Club, game_id: str) -> int:
    seq: int = client.get(f"/v1/games/{game_id}", headers=club.recorder).json()["seq"]
    return seq


def invalid(response: Any, field: str | None = None) -> dict[str, Any]:
    """A 422 `invalid` in the error shape, naming `field` when given."""
    error = error_of(response, 422, "invalid")
    if field is not None:
        assert error.get("field") == field, error
    return error


# --------------------------------------------------------------------------- 5: integer options


@pytest.mark.parametrize(
    ("game", "players", "options", "field"),
    [
        ("casino", ["A", "B", "C"], {"target": 2**64}, "options.target"),
        ("casino", ["A", "B", "C"], {"target": 1001}, "options.target"),
        ("seven-and-a-half", HALF, {"max_bet": 2**64}, "options.max_bet"),
        ("seven-and-a-half", HALF, {"max_bet": MAX_AMOUNT + 1}, "options.max_bet"),
        ("seven-and-a-half", HALF, {"min_bet": 2**63 - 1}, "options.min_bet"),
        ("gin-rummy-3", ["A", "B", "C"], {"undercut_bonus": 2**70}, "options.undercut_bonus"),
    ],
)
def test_an_integer_option_out_of_its_bounds_is_invalid(
    client: TestClient, club: Club, game: str, players: list[str], options: dict[str, Any], field: str
) -> None:
    """`{"target": 2**64}` once answered 500 "Integer exceeds 64-bit range"."""
    before = game_ids(client, club)
    body = {"game": game, "players": players, "options": options}
    invalid(client.post("/v1/games", json=body, headers=club.recorder), field)
    assert game_ids(client, club) == before


def test_an_integer_option_at_its_bound_is_taken(client: TestClient, club: Club) -> None:
    assert new_game(client, club, "casino", ["A", "B", "C"], {"target": 1000})["options"]["target"] == 1000
    half = new_game(client, club, "seven-and-a-half", HALF, {"max_bet": MAX_AMOUNT})
    assert half["options"]["max_bet"] == MAX_AMOUNT


# --------------------------------------------------------------------------- 6: stakes


def test_a_stake_over_64_bits_is_invalid_and_the_largest_stakes_settle(client: TestClient, club: Club) -> None:
    """Stakes of 2**63 - 1 were stored under `record`, then every `stand` answered 500."""
    game_id = new_game(client, club, "seven-and-a-half", HALF, {"enforcement": "record", "pair_of_sevens": True})["id"]
    for amount in (2**63 - 1, MAX_AMOUNT + 1):
        bets = [{"type": "bet", "seat": s, "amount": amount} for s in (3, 2, 1)]
        invalid(client.post(f"/v1/games/{game_id}/events", json={"events": bets}, headers=club.recorder), "amount")
    assert seq_of(client, club, game_id) == 0
    events = [
        *({"type": "bet", "seat": s, "amount": MAX_AMOUNT} for s in (3, 2, 1)),
        {"type": "deal", "cards": {"0": "6C", "1": "7C", "2": "7D", "3": "AC"}},
        {"type": "hit", "seat": 3, "card": "2C"},
        {"type": "stand", "seat": 3},
        {"type": "hit", "seat": 2, "card": "7H"},  # a pair of sevens: paid triple
        {"type": "hit", "seat": 1, "card": "7S"},
        {"type": "hit", "seat": 0, "card": "KH"},
        {"type": "stand", "seat": 0},
    ]
    for event in events:
        response = client.post(f"/v1/games/{game_id}/events", json={"events": [event]}, headers=club.recorder)
        assert response.status_code == 201, response.text
    score = client.get(f"/v1/games/{game_id}/score", headers=club.recorder).json()
    assert score["totals"] == {"0": -5 * MAX_AMOUNT, "1": 3 * MAX_AMOUNT, "2": 3 * MAX_AMOUNT, "3": -MAX_AMOUNT}


# --------------------------------------------------------------------------- 7: text imports

HISTORY = '[Game "schnapsen"]\n[Seat0 "Anna"]\n[Seat1 "Ben"]\n\n'
DEAL = "deal dealer=Ben trump_card=JH hands=[[KH QH TD AC JS] [TS AD KC QS JD]]"


@pytest.mark.parametrize(
    "line",
    [
        f"{'1' * 5000}. {DEAL}",
        f"1. {DEAL.replace('dealer=Ben', 'dealer=' + '1' * 5000)}",
        f"1. {DEAL.replace('dealer=Ben', 'dealer=#' + '1' * 5000)}",
        f"1. {DEAL} x=1e400",
    ],
    ids=["seq", "dealer", "seat ref", "1e400"],
)
def test_a_text_import_with_a_huge_number_is_refused_naming_the_line(client: TestClient, club: Club, line: str) -> None:
    """More than 4,300 digits once answered 500 (Python's limit on int() of a string)."""
    before = game_ids(client, club)
    response = client.post("/v1/import?format=text", content=HISTORY + line + "\n", headers=club.recorder)
    error = invalid(response)
    assert error["line"] == 5 and error["message"].startswith("line 5: ")
    assert game_ids(client, club) == before


# --------------------------------------------------------------------------- 8: Last-Event-ID


@pytest.mark.parametrize("value", ["²".encode("latin-1"), b"1" * 5000, str(2**31).encode(), b"-1", b"1 2", b"0x10"])
def test_a_last_event_id_that_is_not_a_seq_is_invalid(client: TestClient, club: Club, value: bytes) -> None:
    """`"²".isdigit()` is true, `int("²")` fails: it answered 500."""
    game_id = new_game(client, club)["id"]
    response = client.get(f"/v1/games/{game_id}/stream?follow=false", headers={**club.recorder, "Last-Event-ID": value})
    invalid(response, "last_event_id")


def test_a_last_event_id_in_ascii_digits_resumes(client: TestClient, club: Club) -> None:
    game_id = new_game(client, club)["id"]
    notes = [{"type": "note", "text": f"n{i}"} for i in range(3)]
    assert client.post(f"/v1/games/{game_id}/events", json={"events": notes}, headers=club.recorder).status_code == 201
    body = client.get(
        f"/v1/games/{game_id}/stream?follow=false", headers={**club.recorder, "Last-Event-ID": " 0002 "}
    ).text
    assert re.findall(r"^id: (\d+)$", body, re.MULTILINE) == ["3"]


# --------------------------------------------------------------------------- 9: NaN, Infinity, 1e400


@pytest.mark.parametrize(
    "body",
    [
        b'{"points": {"0": NaN, "1": 1e400}}',
        b'{"points": {"0": 1, "1": 1e400}}',
        b'{"points": {"0": Infinity, "1": 0}}',
        b'{"points": {"0": 1e300, "1": 0}}',
        b'{"points": {"0": true, "1": 0}}',
        b'{"hand": 18446744073709551616, "points": {"0": 1, "1": 0}}',
    ],
)
def test_a_claim_that_is_no_number_is_invalid(client: TestClient, club: Club, body: bytes) -> None:
    """`{"0": NaN, "1": 1e400}` was answered 200 ("claimed nan")."""
    game_id = new_game(client, club)["id"]
    invalid(client.post(f"/v1/games/{game_id}/audit", content=body, headers={**club.auditor, **JSON}))


@pytest.mark.parametrize("points", [b"1e300", b"1e400", b"NaN", b"-Infinity", b"true"])
def test_a_score_claimed_that_is_no_number_is_invalid_and_writes_nothing(
    client: TestClient, club: Club, points: bytes
) -> None:
    game_id = new_game(client, club)["id"]
    body = b'{"events": [{"type": "score_claimed", "hand": 0, "points": {"0": %s, "1": 0}}]}' % points
    invalid(client.post(f"/v1/games/{game_id}/events", content=body, headers={**club.auditor, **JSON}))
    assert seq_of(client, club, game_id) == 0


# --------------------------------------------------------------------------- 10: NUL and lone surrogates


#: the routes that name something in their path but are left out of the OpenAPI schema (the page)
UNLISTED = [("GET", "/replay/{game_id}"), ("GET", "/static/{name}")]


def game_routes(client: TestClient) -> list[tuple[str, str]]:
    """(method, path) of every route whose path names something (a game, a share, a file)."""
    paths = client.get("/openapi.json").json()["paths"]
    listed = [(method.upper(), path) for path, methods in paths.items() if "{" in path for method in methods]
    return listed + UNLISTED


def test_a_nul_in_the_path_is_invalid_on_every_route(client: TestClient, club: Club) -> None:
    """Every route that names a game, a share or a file, whatever the role: 422 before any query."""
    routes = game_routes(client)
    assert len(routes) >= 15
    real = new_game(client, club)["id"]
    for method, template in routes:
        for value in ("g%00", "%00"):
            path = re.sub(r"\{[a-z_]+\}", value, template)
            invalid(client.request(method, path, headers=club.recorder), "path")
        if "{share_id}" in template:  # a real game, a bad share id
            path = template.replace("{game_id}", real).replace("{share_id}", "x%00")
            invalid(client.request(method, path, headers=club.recorder), "path")


@pytest.mark.parametrize(
    "query",
    ["player=%00", "game=%00", "since=2026%00", "until=%00", "has=sweep%00", "status=%00", "cursor=%00", "%00=1"],
)
def test_a_nul_in_a_list_filter_is_invalid(client: TestClient, club: Club, query: str) -> None:
    invalid(client.get(f"/v1/games?{query}", headers=club.recorder))


def test_a_cursor_that_decodes_to_a_nul_is_invalid(client: TestClient, club: Club) -> None:
    for decoded in (b"2026-01-01|\x00", b"\x00|g1"):
        cursor = base64.urlsafe_b64encode(decoded).decode()
        invalid(client.get("/v1/games", params={"cursor": cursor}, headers=club.recorder), "cursor")
    export = base64.urlsafe_b64encode(b"export|2026|\x00").decode()
    invalid(client.get("/v1/export", params={"cursor": export}, headers=club.recorder), "cursor")


def test_a_nul_in_a_credential_is_invalid_without_a_key(client: TestClient, club: Club) -> None:
    game_id = new_game(client, club)["id"]
    invalid(client.get(f"/v1/games/{game_id}/stream?access_token=tb_%00_x&follow=false"), "access_token")
    invalid(client.get(f"/v1/games/{game_id}/stream?access_token=ts_%00_x&follow=false"), "access_token")
    invalid(client.get("/v1/games", headers={"Authorization": b"Bearer tb_\x00_x"}), "authorization")
    invalid(client.get("/v1/games", headers={"Authorization": b"Bearer ts_a\x00_b"}), "authorization")


def test_a_nul_in_an_idempotency_key_is_invalid_and_writes_nothing(client: TestClient, club: Club) -> None:
    game_id = new_game(client, club)["id"]
    response = client.post(
        f"/v1/games/{game_id}/events",
        json={"events": [{"type": "note", "text": "x"}]},
        headers={**club.recorder, "Idempotency-Key": b"k\x00"},
    )
    invalid(response, "idempotency_key")
    assert seq_of(client, club, game_id) == 0


@pytest.mark.parametrize("name", ["A\x00", "\x00"])
def test_a_player_name_no_store_can_hold_is_invalid(client: TestClient, club: Club, name: str) -> None:
    before = game_ids(client, club)
    body = {"game": "schnapsen", "players": [name, "Ben"]}
    error = invalid(client.post("/v1/games", json=body, headers=club.recorder), "players.0")
    assert "NUL" in error["message"]
    surrogate = b'{"game": "schnapsen", "players": ["A\\ud800", "Ben"]}'
    invalid(client.post("/v1/games", content=surrogate, headers={**club.recorder, **JSON}))
    assert game_ids(client, club) == before


@pytest.mark.parametrize(
    "event",
    [
        {"type": "note", "text": "a\x00b"},
        {"type": "hand_voided", "reason": "\x00"},
        {"type": "retract", "to_seq": 0, "reason": "mis\x00deal"},
    ],
)
def test_text_in_an_event_that_no_store_can_hold_is_invalid(
    client: TestClient, club: Club, event: dict[str, Any]
) -> None:
    game_id = new_game(client, club)["id"]
    note = {"type": "note", "text": "first"}
    assert client.post(f"/v1/games/{game_id}/events", json={"events": [note]}, headers=club.recorder).status_code == 201
    response = client.post(f"/v1/games/{game_id}/events", json={"events": [event]}, headers=club.recorder)
    error = invalid(response)
    assert error["index"] == 0 and "NUL" in error["message"]
    assert seq_of(client, club, game_id) == 1


# --------------------------------------------------------------------------- 11: the bulk export


@pytest.mark.parametrize("query", ["since=%00", "until=2026%00", "game=%00", "cursor=%00"])
def test_a_bad_bulk_export_parameter_is_a_422_before_the_stream(client: TestClient, club: Club, query: str) -> None:
    """`GET /v1/export?since=%00` once answered 200 on PostgreSQL, then cut the connection."""
    new_game(client, club)
    invalid(client.get(f"/v1/export?{query}", headers=club.recorder))


def test_a_bulk_export_whose_first_query_fails_answers_an_error_not_a_cut_stream(
    store: Store, club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the database went away")
        yield  # pragma: no cover - a generator, as the store's

    monkeypatch.setattr(store, "iter_games", broken)
    app = create_app(Settings(database_url=store.url), store)
    with TestClient(app, raise_server_exceptions=False) as client:
        error_of(client.get("/v1/export", headers=club.recorder), 500, "internal")
