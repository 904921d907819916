"""The API on PostgreSQL, route by route: one walk through what a club does, on the real server.

The HTTP tests run on SQLite (tests/conftest.py `stores_of`); the store itself, the migrations, the read
models, the streams and the reliability runs are tested on both stores where they differ. This module
is the API's PostgreSQL smoke test: every kind of request a club makes, answered from PostgreSQL, with
the same answers the SQLite tests check in detail.
"""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import orjson
from fastapi.testclient import TestClient

from projections.fairness import fairdeal
from tests.api.server_tables import Table
from tests.conftest import Club, error_of, new_game

STORES = ("postgres",)

DEAL = {"type": "deal", "dealer": 0, "hands": [["AH", "TH", "KH", "QH", "JH"], ["AS", "TS", "KS", "QS", "JS"]]}
RECORDS = Path(__file__).resolve().parents[1] / "data" / "records"


def test_a_game_is_recorded_read_exported_imported_and_audited(client: TestClient, club: Club) -> None:
    game = new_game(client, club, players=["Anna", "Ben"])
    path = f"/v1/games/{game['id']}"
    first = client.post(
        f"{path}/events",
        json={"events": [{**DEAL, "trump_card": "AC"}], "expected_seq": 0},
        headers={**club.recorder, "Idempotency-Key": "k1"},
    )
    assert first.status_code == 201, first.text
    again = client.post(
        f"{path}/events",
        json={"events": [{**DEAL, "trump_card": "AC"}], "expected_seq": 0},
        headers={**club.recorder, "Idempotency-Key": "k1"},
    )
    assert again.json() == first.json()
    conflict = error_of(
        client.post(
            f"{path}/events", json={"events": [{"type": "note", "text": "x"}], "expected_seq": 0}, headers=club.recorder
        ),
        409,
        "seq_conflict",
    )
    assert (conflict["expected"], conflict["actual"]) == (0, 1)
    error_of(
        client.post(
            f"{path}/events", json={"events": [{"type": "play", "seat": 1, "card": "AH"}]}, headers=club.recorder
        ),
        422,
        "impossible",
    )
    error_of(
        client.post(f"{path}/events", json={"events": [{"type": "note", "text": "a\u0000b"}]}, headers=club.recorder),
        422,
        "invalid",
    )
    plays = [{"type": "play", "seat": 1, "card": "AS"}, {"type": "play", "seat": 0, "card": "JH"}]
    assert client.post(f"{path}/events", json={"events": plays}, headers=club.recorder).status_code == 201
    viewer = client.get(f"{path}/state", headers=club.viewer).json()
    assert all("cards" not in seat for seat in viewer["seats"])  # a live hand: the viewer sees no hand
    assert client.get(f"{path}/replay", params={"hand": 1}, headers=club.recorder).json()["frames"]
    assert client.get(f"{path}/score", headers=club.viewer).status_code == 200
    assert client.get(f"{path}/verify", headers=club.auditor).json()["ok"]
    assert client.get(f"{path}/audit", headers=club.auditor).json()["chain"]["ok"]
    for fmt in ("json", "jsonl", "text", "csv"):
        exported = client.get(f"{path}/export", params={"format": fmt}, headers=club.recorder)
        assert exported.status_code == 200 and exported.content, fmt
    body = client.get(f"{path}/export", params={"format": "json"}, headers=club.recorder).content
    copy = client.post(
        "/v1/import",
        params={"copy": "true"},
        content=body,
        headers={**club.recorder, "Content-Type": "application/json"},
    )
    assert copy.status_code == 201 and copy.json()["same_head_hash"], copy.text
    listed = client.get("/v1/games", params={"player": "anna"}, headers=club.viewer).json()["games"]
    assert {game["id"], copy.json()["game"]["id"]} <= {g["id"] for g in listed}
    streamed = client.get(f"{path}/stream", params={"follow": "false"}, headers=club.recorder)
    assert streamed.status_code == 200 and b"seq" in streamed.content


def test_an_old_gin_record_imports_and_verifies(client: TestClient, club: Club) -> None:
    body = gzip.decompress((RECORDS / "2026-12-01-f53c362" / "gin-rummy-3.json.gz").read_bytes())
    imported = client.post(
        "/v1/import",
        params={"copy": "true"},
        content=body,
        headers={**club.recorder, "Content-Type": "application/json"},
    )
    assert imported.status_code == 201 and imported.json()["same_head_hash"], imported.text[:300]
    game_id = imported.json()["game"]["id"]
    assert client.get(f"/v1/games/{game_id}/verify", headers=club.auditor).json()["ok"]


def test_a_server_dealt_game_deals_and_checks(client: TestClient, club: Club) -> None:
    table = Table(client, club, "cutthroat-smear")
    table.play_to_hand(random.Random(1), 2)
    error_of(
        table.send({"type": "seed", "seed": "s"}, {"type": "deal", "dealer": 0}, {"type": "note", "text": "n"}),
        422,
        "invalid",
    )
    deals = client.get(f"/v1/games/{table.id}/deals", headers=club.viewer).json()
    assert deals["ok"] and deals["hands"][0]["verified"]
    assert fairdeal.verify_file(table.export()).ok


def test_players_standings_rules_and_rescoring(client: TestClient, club: Club) -> None:
    created = client.post("/v1/players", json={"name": "  Carla  Diaz ", "aliases": ["CD"]}, headers=club.recorder)
    assert created.status_code == 201 and created.json()["name"] == "Carla Diaz", created.text
    found = client.get("/v1/players", params={"name": "carla diaz"}, headers=club.viewer).json()
    assert [p["name"] for p in found["players"]] == ["Carla Diaz"]
    assert client.get("/v1/games/rules", headers=club.viewer).status_code == 200
    game = new_game(client, club, game="casino", players=["Ann", "Ben"])
    rescored = client.post(f"/v1/games/{game['id']}/rescore", json={"options": {"sweeps": True}}, headers=club.auditor)
    assert rescored.status_code == 200, rescored.text
    assert client.get("/v1/standings", params={"game": "casino"}, headers=club.viewer).status_code == 200
    report = client.get("/v1/deals/report", headers=club.viewer)
    assert report.status_code == 200 and orjson.loads(report.content)["kinds"] is not None
