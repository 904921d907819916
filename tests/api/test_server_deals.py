"""Server-dealt games through the API (rules/server-deal.md): every kind played from `legal_events` and
checked from its export, the secret in no answer before its reveal, tampered records found, a retract
rewinding the deck, a restart, an import, the fairness report."""

from __future__ import annotations

import copy
import hashlib
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.cli import app as cli_app
from api.main import create_app
from api.settings import Settings
from events.store import Store
from projections.core.registry import available
from projections.fairness import fairdeal
from tests.api.server_tables import Table, server_seeds
from tests.conftest import Club, error_of, make_club

# --------------------------------------------------------------------------- every kind


@pytest.mark.parametrize("kind", available())
def test_a_server_dealt_game_of_every_kind_is_played_and_verified_from_its_export(
    client: TestClient, club: Club, store: Store, kind: str
) -> None:
    table = Table(client, club, kind)
    first = table.envelopes[0]
    assert first["type"] == "deck_committed" and first["actor"] == "server" and first["seq"] == 1
    assert first["data"]["hand"] == (0 if kind == "gin-rummy-3" else 1)
    table.play(random.Random(8), 260)
    kinds = [env["type"] for env in table.envelopes]
    revealed = [env for env in table.envelopes if env["type"] == "deck_revealed"]
    assert revealed, kinds
    # every reveal lands in the same append as the event that ended its hand, and the next deck with it
    by_seq = {env["seq"]: env for env in table.envelopes}
    for env in revealed:
        ending = by_seq[env["seq"] - 1]  # the event that ended (or voided) the hand, in the same append
        assert ending["actor"] != "server" and ending["recorded_at"] == env["recorded_at"], ending
        after = by_seq.get(env["seq"] + 1)
        if after is not None and after["type"] == "deck_committed":
            assert after["recorded_at"] == env["recorded_at"] and after["data"]["hand"] > env["data"]["hand"]
        else:  # the game ended with that hand: no next deck
            assert table.rules.is_terminal(table.position.game) and (after is None or after["actor"] != "server")
    report = fairdeal.verify_file(table.export("json"))
    assert report.ok, report.problems[:3]
    assert all(doc["verified"] for doc in report.hands.values() if doc["revealed"])
    assert sum(doc["cards_checked"] for doc in report.hands.values()) > 10
    jsonl = fairdeal.verify_file(table.export("jsonl"))
    assert jsonl.ok and jsonl.hands.keys() == report.hands.keys()
    verified = client.get(f"/v1/games/{table.id}/verify", headers=club.auditor).json()
    assert verified["ok"], verified["problems"][:3]
    assert verified["deals"]["ok"] and len(verified["deals"]["hands"]) == len(report.hands)
    deals = client.get(f"/v1/games/{table.id}/deals", headers=club.viewer).json()
    assert deals["server_dealt"] and deals["ok"]
    assert [h["verified"] for h in deals["hands"] if h["revealed"]] == [True] * len(revealed)


def test_a_table_dealt_game_is_unchanged(client: TestClient, club: Club) -> None:
    created = client.post("/v1/games", json={"game": "schnapsen", "players": ["A", "B"]}, headers=club.recorder).json()
    assert created["options"]["dealing"] == "table" and created["seq"] == 0
    seed = client.post(
        f"/v1/games/{created['id']}/events", json={"events": [{"type": "seed", "seed": "x"}]}, headers=club.recorder
    )
    error_of(seed, 422, "invalid")
    assert client.get(f"/v1/games/{created['id']}/deals", headers=club.viewer).json()["server_dealt"] is False


# --------------------------------------------------------------------------- what a client may send


def test_card_fields_and_server_events_from_a_client_are_invalid(client: TestClient, club: Club) -> None:
    table = Table(client, club, "schnapsen")
    dealt = {
        "type": "deal",
        "dealer": 0,
        "hands": [["AC", "TC", "JC", "QC", "KC"], ["AD", "TD", "JD", "QD", "KD"]],
        "trump_card": "AH",
    }
    assert error_of(table.send(dealt), 422, "invalid")["field"] == "hands"
    assert (
        error_of(table.send({"type": "deal", "dealer": 0, "trump_card": "AH"}), 422, "invalid")["field"] == "trump_card"
    )
    commitment = {"type": "deck_committed", "hand": 1, "commitment": "0" * 64, "algorithm": "tablebook-shuffle-v1"}
    error_of(table.send(commitment), 422, "invalid")
    error_of(table.send({"type": "deck_revealed", "hand": 1, "server_seed": "0" * 64}), 422, "invalid")
    error_of(table.send({"type": "seed", "seed": ""}), 422, "invalid")
    error_of(table.send({"type": "seed", "seed": "x" * 65}), 422, "invalid")
    error_of(table.send({"type": "seed", "seed": "x"}, key=club.auditor), 403, "forbidden")
    error_of(table.send({"type": "seed", "seed": "x"}, key=club.viewer), 403, "forbidden")
    table.append({"type": "seed", "seed": "ours", "seat": 1})
    table.append({"type": "deal", "dealer": 0})
    error_of(table.send({"type": "seed", "seed": "late"}), 422, "impossible")
    deal = table.envelopes[-1]
    assert deal["type"] == "deal" and len(deal["data"]["hands"][0]) == 5 and deal["data"]["trump_card"]


def test_a_refused_dealing_event_shows_no_card_of_the_deck(client: TestClient, club: Club, store: Store) -> None:
    table = Table(client, club, "schnapsen")
    wrong = table.send({"type": "deal", "dealer": 1})  # seat 0 deals first
    body = error_of(wrong, 422, "impossible")
    seed = bytes.fromhex(next(iter(server_seeds(store, table.id).values())))
    deck = fairdeal.shuffle(seed, table.envelopes[0]["prev_hash"], 1, [], fairdeal.canonical_deck("schnapsen"))
    assert not any(card in orjson.dumps(body).decode() for card in deck[:11]), body


# --------------------------------------------------------------------------- the secret


def every_get(client: TestClient, game_id: str, headers: dict[str, str], seats: int, hand: int) -> dict[str, str]:
    """The answer of every GET route the app has, for this game (each game route with its usual queries)."""
    out: dict[str, str] = {}
    queries: dict[str, list[dict[str, Any]]] = {
        "/state": [{}, *({"seat": s} for s in range(seats))],
        "/replay": [{"hand": hand}, *({"hand": hand, "seat": s} for s in range(seats))],
        "/export": [{"format": f} for f in ("json", "jsonl", "text", "csv")],
        "/stream": [{"follow": "false"}],
    }
    for route in client.app.routes:  # type: ignore[attr-defined]
        path = getattr(route, "path", "")
        if "GET" not in getattr(route, "methods", set()) or not path.startswith(("/v1", "/replay")):
            continue
        if "{" in path.replace("{game_id}", ""):
            continue  # a route of another resource's id (a share link's)
        url = path.replace("{game_id}", game_id)
        tail = path.split("{game_id}", 1)[1] if "{game_id}" in path else path
        for params in queries.get(tail, [{}]):
            response = client.get(url, params=params, headers=headers)
            assert response.status_code < 500, (url, params, response.text[:300])
            out[f"{url} {params}"] = response.text
    return out


@pytest.mark.parametrize("kind", available())
def test_the_server_seed_is_in_no_answer_before_its_reveal(
    client: TestClient, store: Store, kind: str, caplog: Any
) -> None:
    club = make_club(store)
    table = Table(client, club, kind)
    table.play_to_hand(random.Random(4), 2)
    table.append({"type": "note", "text": "mid-hand"})
    secrets = {c: s for c, s in server_seeds(store, table.id).items()}
    deal = table.position.deal
    assert deal is not None and not deal.revealed
    live_seed = secrets[deal.commitment]
    revealed = {env["data"]["server_seed"] for env in table.envelopes if env["type"] == "deck_revealed"}
    assert live_seed not in revealed and revealed <= set(secrets.values())
    deck = fairdeal.shuffle(
        bytes.fromhex(live_seed), table.envelopes[0]["prev_hash"], deal.hand, deal.seeds, fairdeal.canonical_deck(kind)
    )
    undealt = orjson.dumps(deck[deal.taken : deal.taken + 3]).decode()[1:-1]  # the next three cards, in order
    token = client.post(f"/v1/games/{table.id}/share", headers=club.recorder).json()["token"]
    readers = {
        **{role: getattr(club, role) for role in ("recorder", "viewer", "auditor")},
        "share": {"Authorization": f"Bearer {token}"},
    }
    seats = table.position.seats
    for role, headers in readers.items():
        for label, body in every_get(client, table.id, headers, seats, deal.hand).items():
            assert live_seed not in body, (role, label)
            assert live_seed.upper() not in body, (role, label)
            assert undealt not in body, (role, label)
    for event in ({"type": "deal"}, {"type": "hit", "seat": 7}, {"type": "draw", "seat": 7, "source": "stock"}):
        refused = table.send(event)
        assert live_seed not in refused.text and undealt not in refused.text
    assert all(live_seed not in record.getMessage() for record in caplog.records)
    # the snapshot cache holds the deal state, never the secret
    rows = store.db.rows(store.db.sql("SELECT state FROM snapshot WHERE game_id = ?"), (table.id,))
    assert all(live_seed not in row[0] for row in rows)


# --------------------------------------------------------------------------- tampering


def finished_record(client: TestClient, club: Club, kind: str = "cutthroat-smear") -> tuple[Table, dict[str, Any]]:
    table = Table(client, club, kind)
    table.append({"type": "seed", "seed": "the table's own", "seat": 1})
    # hand 3's deck committed, so hand 2's revealed; or the game over, its last hand's deck revealed too
    table.play_to_hand(random.Random(11), 3, cards_taken=False, or_end=True)
    doc = orjson.loads(table.export("json"))
    assert any(env["type"] == "deck_revealed" and env["data"]["hand"] == 2 for env in doc["events"])
    assert fairdeal.verify_events(doc, doc["events"]).ok
    return table, doc


def first_problem(doc: dict[str, Any]) -> dict[str, Any]:
    report = fairdeal.verify_events(doc, doc["events"])
    assert not report.ok
    return report.problems[0]


def test_a_swapped_card_is_found_with_its_hand_and_card(client: TestClient, club: Club) -> None:
    _, doc = finished_record(client, club)
    tampered = copy.deepcopy(doc)
    deal = next(env for env in tampered["events"] if env["type"] == "deal" and env["hand"] == 2)
    hands = deal["data"]["hands"]
    hands[0][2], hands[1][4] = hands[1][4], hands[0][2]
    problem = first_problem(tampered)
    assert problem["hand"] == 2 and problem["seq"] == deal["seq"]
    assert problem["card_index"] == 2 and problem["field"] == "hands[0][2]" and problem["found"] == hands[0][2]


def test_a_changed_seed_is_found(client: TestClient, club: Club) -> None:
    _, doc = finished_record(client, club)
    tampered = copy.deepcopy(doc)
    reveal = next(env for env in tampered["events"] if env["type"] == "deck_revealed" and env["data"]["hand"] == 1)
    reveal["data"]["server_seed"] = "ab" * 32
    problem = first_problem(tampered)
    assert problem["hand"] == 1 and problem["problem"] == "commitment"
    # and a seed event changed after the fact changes the deck: the first dealt card no longer matches
    tampered = copy.deepcopy(doc)
    seed = next(env for env in tampered["events"] if env["type"] == "seed")
    seed["data"]["seed"] += "!"
    assert first_problem(tampered)["problem"] == "card"


def test_a_re_dealt_hand_is_found(client: TestClient, club: Club, tmp_path: Any) -> None:
    """A forger deals hand 2 again from another shuffle and keeps the commitment: the first card differs."""
    _, doc = finished_record(client, club)
    tampered = copy.deepcopy(doc)
    deal = next(env for env in tampered["events"] if env["type"] == "deal" and env["hand"] == 2)
    cards = [c for hand in deal["data"]["hands"] for c in hand]
    random.Random(3).shuffle(cards)
    deal["data"]["hands"] = [cards[i * 6 : (i + 1) * 6] for i in range(len(deal["data"]["hands"]))]
    original = next(env for env in doc["events"] if env["seq"] == deal["seq"])["data"]["hands"]
    flat = [c for hand in original for c in hand]
    index = next(i for i, (a, b) in enumerate(zip(flat, cards, strict=True)) if a != b)
    problem = first_problem(tampered)
    assert (problem["hand"], problem["seq"], problem["card_index"]) == (2, deal["seq"], index)
    # the CLI names the same hand and card, and fails
    path = tmp_path / "tampered.json"
    path.write_bytes(orjson.dumps(tampered))
    result = CliRunner().invoke(cli_app, ["verify-deal", str(path)])
    assert result.exit_code == 1
    assert f"hand 2, seq {deal['seq']}" in result.output and f"card {index + 1} of the deck" in result.output
    good = tmp_path / "good.json"
    good.write_bytes(orjson.dumps(doc))
    assert CliRunner().invoke(cli_app, ["verify-deal", str(good)]).exit_code == 0
    # and the standalone file, copied out of the project and run by a bare Python, says the same
    checker = tmp_path / "fairdeal.py"
    checker.write_text(Path(fairdeal.__file__).read_text())
    alone = subprocess.run(
        [sys.executable, "-I", str(checker), str(path)], capture_output=True, text=True, cwd=tmp_path
    )
    assert alone.returncode == 1 and f"card {index + 1} of the deck" in alone.stdout
    alone = subprocess.run(
        [sys.executable, "-I", str(checker), str(good)], capture_output=True, text=True, cwd=tmp_path
    )
    assert alone.returncode == 0 and "every revealed hand matches" in alone.stdout, alone.stdout


# --------------------------------------------------------------------------- retract, restart, import


def test_a_retract_rewinds_the_deck(client: TestClient, club: Club) -> None:
    table = Table(client, club, "gin-rummy-3")
    table.play_to_hand(random.Random(2), 1)
    rng = random.Random(5)
    while True:  # a few stock draws into hand 1
        draws = [env for env in table.envelopes if env["type"] == "draw" and env["data"]["source"] == "stock"]
        if len(draws) >= 3:
            break
        table.step(rng)
    back_to = draws[0]["seq"] - 1
    taken = [draws[0]["data"]["card"]]
    table.append({"type": "retract", "to_seq": back_to, "reason": "misdraw"})
    again = table.append({"type": "draw", "seat": draws[0]["data"]["seat"], "source": "stock"})
    assert again[0]["data"]["card"] == taken[0]
    table.play(rng, 400)
    report = fairdeal.verify_file(table.export())
    assert report.ok, report.problems[:2]
    assert client.get(f"/v1/games/{table.id}/verify", headers=club.auditor).json()["ok"]


def test_a_hand_in_progress_survives_a_restart(store: Store) -> None:
    club = make_club(store)
    with TestClient(create_app(Settings(database_url=store.url), Store(store.url))) as first:
        table = Table(first, club, "seven-and-a-half")
        table.play_to_hand(random.Random(6), 1)
        game_id, envelopes = table.id, table.envelopes
    with TestClient(create_app(Settings(database_url=store.url), Store(store.url))) as second:
        table.client = second
        assert table.id == game_id and table.envelopes == envelopes
        table.play(random.Random(7), 150)
    report = fairdeal.verify_file(table.export())
    assert report.ok and report.hands[1]["verified"], report.problems[:2]


def test_an_imported_record_stays_verifiable(client: TestClient, club: Club, store: Store) -> None:
    table = Table(client, club, "casino")
    table.play(random.Random(9), 120)
    body = table.export("json")
    other = make_club(store)
    imported = client.post("/v1/import", content=body, headers={**other.recorder, "Content-Type": "application/json"})
    assert imported.status_code == 201, imported.text
    new_id = imported.json()["game"]["id"]
    assert imported.json()["same_head_hash"]
    again = client.get(f"/v1/games/{new_id}/export", params={"format": "json"}, headers=other.recorder).content
    assert orjson.loads(again)["events"][0]["prev_hash"] == orjson.loads(body)["events"][0]["prev_hash"]
    assert fairdeal.verify_file(again).ok
    assert client.get(f"/v1/games/{new_id}/verify", headers=other.auditor).json()["ok"]
    assert server_seeds(store, new_id) == {}


def test_a_tied_gin_cut_is_cut_again_with_a_server_seed(
    client: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever the deck gives, the cut that lands has three ranks, and the record checks. The server
    seeds come from a seeded generator here, so that the run is the same every time (and has a tie)."""
    rng = random.Random(7)
    monkeypatch.setattr("projections.core.recorder.secrets.token_bytes", lambda n: rng.randbytes(n))
    club = make_club(store)
    recuts = 0
    # 30 cuts: the patched generator is shared by every token drawn in the process (a key, a request id from
    # another thread), so which cut ties is not fixed; no tie in 30 cuts has a chance of (5/6)^30 ~ 0.4%
    for _ in range(30):
        table = Table(client, club, "gin-rummy-3")
        table.append({"type": "cut"})
        cut = table.envelopes[-3]  # the cut, then hand 0's reveal and hand 1's commitment
        assert cut["type"] == "cut" and len({c[0] for c in cut["data"]["cards"]}) == 3
        recuts += sum(1 for env in table.envelopes if env["type"] == "seed" and env["actor"] == "server")
        assert fairdeal.verify_file(table.export()).ok
    assert recuts > 0  # a tie comes about one cut in six


# --------------------------------------------------------------------------- the report


def test_the_fairness_report(client: TestClient, store: Store) -> None:
    club = make_club(store)
    for seed in range(2):
        Table(client, club, "schnapsen").play(random.Random(seed), 200)
    report = client.get("/v1/deals/report", headers=club.viewer).json()
    (doc,) = report["kinds"]
    assert doc["game"] == "schnapsen" and doc["hands"] >= 4 and doc["deck_size"] == 20
    patterns = doc["patterns"]
    assert patterns["hand_size"] == 5 and patterns["seat_hands"] == 2 * doc["hands"]
    assert sum(r["observed"] for r in patterns["rows"]) == patterns["seat_hands"]
    assert abs(sum(r["probability"] for r in patterns["rows"]) - 1) < 1e-9
    positions = doc["positions"]
    assert positions["df"] == 19 * 19 and 0 <= positions["p_value"] <= 1
    assert all(sum(counts) == doc["hands"] for counts in positions["observed"].values())
    only = client.get("/v1/deals/report", params={"game": "casino"}, headers=club.viewer).json()
    assert only["kinds"] == []
    error_of(client.get("/v1/deals/report", headers={"Authorization": "Bearer nope"}), 401, "unauthorized")
    result = CliRunner().invoke(cli_app, ["deals", "report", "--club", club.name, "--database", store.url])
    assert result.exit_code == 0, result.output
    assert "schnapsen" in result.output and "card positions" in result.output


def test_the_commitment_is_the_sha256_of_the_stored_seed(client: TestClient, club: Club, store: Store) -> None:
    table = Table(client, club, "cutthroat-smear")
    for commitment, seed in server_seeds(store, table.id).items():
        assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commitment and len(seed) == 64


def test_an_imported_hand_in_progress_is_voided_and_the_next_is_dealt_here(
    client: TestClient, club: Club, store: Store
) -> None:
    """The secret of a deck stays with the server that committed it: the importer voids that hand."""
    table = Table(client, club, "schnapsen")
    table.play_to_hand(random.Random(3), 1)
    other = make_club(store)
    imported = client.post("/v1/import", content=table.export("json"), headers=other.recorder)
    assert imported.status_code == 201, imported.text
    copy_of = Table.__new__(Table)
    copy_of.client, copy_of.club, copy_of.kind, copy_of.rules = client, other, "schnapsen", table.rules
    copy_of.id, copy_of.envelopes, copy_of.position = imported.json()["game"]["id"], [], table.position
    copy_of.take([])
    copy_of.catch_up()
    offered = [e for e in copy_of.offered() if e["type"] in ("deal", "draw")]
    if offered:
        assert "void the hand" in error_of(copy_of.send(offered[0]), 422, "impossible")["message"]
    stored = copy_of.append({"type": "hand_voided", "reason": "the deck stayed on the other server"})
    assert [env["type"] for env in stored] == ["hand_voided", "deck_committed"]
    copy_of.play(random.Random(4), 60)
    report = fairdeal.verify_file(copy_of.export())
    assert report.ok and report.hands[1]["verified"] is None and report.hands[2]["verified"]


def rechained(doc: dict[str, Any]) -> dict[str, Any]:
    """`doc` with every hash recomputed: a forger who rewrites the whole chain."""
    from events.codec import envelope_hash

    prev = doc["events"][0]["prev_hash"]
    for env in doc["events"]:
        env["prev_hash"] = prev
        env["hash"] = prev = envelope_hash(env)
    doc["head_hash"] = prev
    return doc


def test_a_forged_chain_with_a_wrong_deal_is_not_imported(client: TestClient, club: Club, store: Store) -> None:
    _, doc = finished_record(client, club)
    forged = copy.deepcopy(doc)
    reveal = next(env for env in forged["events"] if env["type"] == "deck_revealed" and env["data"]["hand"] == 2)
    reveal["data"]["server_seed"] = "cd" * 32
    rechained(forged)
    other = make_club(store)
    refused = client.post("/v1/import", content=orjson.dumps(forged), headers=other.recorder)
    error = error_of(refused, 422, "invalid")
    assert error["seq"] == reveal["seq"] and "commitment" in error["message"]
    # the untouched record, rechained the same way, is imported: only the deal was wrong
    assert (
        client.post(
            "/v1/import", content=orjson.dumps(rechained(copy.deepcopy(doc))), headers=other.recorder
        ).status_code
        == 201
    )


def test_a_voided_hand_is_revealed_so_a_re_deal_shows(client: TestClient, club: Club) -> None:
    table = Table(client, club, "schnapsen")
    first = table.append({"type": "deal", "dealer": 0})[0]
    stored = table.append({"type": "hand_voided", "reason": "misdeal"})
    assert [env["type"] for env in stored] == ["hand_voided", "deck_revealed", "deck_committed"]
    assert stored[1]["data"]["hand"] == 1 and stored[2]["data"]["hand"] == 2
    redeal = next(e for e in table.offered() if e["type"] == "deal")
    assert set(redeal) == {"type", "dealer"}  # what a client sends: no card
    again = table.append(redeal)[0]  # dealt again, from a new deck
    assert again["hand"] == 2 and again["data"] != first["data"]
    report = fairdeal.verify_file(table.export())
    assert report.ok and report.hands[1]["verified"] and report.hands[1]["cards_checked"] == 11


def test_odd_events_of_a_server_dealt_game_get_a_422(client: TestClient, club: Club) -> None:
    table = Table(client, club, "gin-rummy-3")
    for event in (
        {"type": ["deal"]},
        {"type": {"x": 1}},
        {"type": "draw", "seat": 0, "source": 5},
        {"type": "cut", "extra": 1},
        {"type": "deal"},
        {"type": "seed", "seed": "x", "seat": 9},
        "deal",
    ):
        response = table.send(event)  # type: ignore[arg-type]
        assert response.status_code == 422, (event, response.text)
