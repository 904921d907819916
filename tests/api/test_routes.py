"""Every route and every error of API v1, on SQLite and PostgreSQL."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from events.store import Store
from projections.core.registry import available
from tests.conftest import Club, error_of, make_club, new_game
from tests.projections.helpers import EXAMPLES, expected_of, load_example

DEAL = {
    "type": "deal",
    "dealer": 1,
    "hands": [["KH", "QH", "TD", "AC", "JS"], ["TS", "AD", "KC", "QS", "JD"]],
    "trump_card": "JH",
}


def append(
    client: TestClient, club: Club, game_id: str, events: list[dict[str, Any]], role: str = "recorder", **body: Any
) -> Any:
    return client.post(f"/v1/games/{game_id}/events", json={"events": events, **body}, headers=getattr(club, role))


def schnapsen(client: TestClient, club: Club, **options: Any) -> str:
    game_id: str = new_game(client, club, options={"first_dealer": 1, **options})["id"]
    return game_id


def count_events(client: TestClient, club: Club, game_id: str) -> int:
    return len(client.get(f"/v1/games/{game_id}/events", headers=club.recorder).json()["events"])


# --------------------------------------------------------------------------- auth


def test_no_key_a_bad_key_and_a_revoked_key_get_401(client: TestClient, club: Club, store: Store) -> None:
    error_of(client.get("/v1/games"), 401, "unauthorized")
    error_of(client.get("/v1/games", headers={"Authorization": "Bearer nope"}), 401, "unauthorized")
    key = club.keys["viewer"]
    forged = key[:-3] + ("aaa" if not key.endswith("aaa") else "bbb")
    error_of(client.get("/v1/games", headers={"Authorization": f"Bearer {forged}"}), 401, "unauthorized")
    assert client.get("/v1/games", headers=club.viewer).status_code == 200
    assert store.revoke_key(key.split("_")[1])
    error = error_of(client.get("/v1/games", headers=club.viewer), 401, "unauthorized")
    assert "revoked" in error["message"]


def test_keys_are_stored_only_as_hashes(club: Club, store: Store) -> None:
    for key in club.keys.values():
        record = store.find_key(key.split("_")[1])
        assert record is not None and key.split("_", 2)[2] not in record.key_hash and len(record.key_hash) == 64


def test_roles_are_enforced(client: TestClient, club: Club) -> None:
    error_of(
        client.post("/v1/games", json={"game": "schnapsen", "players": ["A", "B"]}, headers=club.viewer),
        403,
        "forbidden",
    )
    game_id = schnapsen(client, club)
    error_of(append(client, club, game_id, [DEAL], role="viewer"), 403, "forbidden")
    error = error_of(append(client, club, game_id, [DEAL], role="auditor"), 403, "forbidden")
    assert "corrections" in error["message"]
    assert append(client, club, game_id, [{"type": "note", "text": "seen"}], role="auditor").status_code == 201


def test_another_clubs_game_is_not_found(client: TestClient, club: Club, other_club: Club) -> None:
    game_id = schnapsen(client, club)
    append(client, club, game_id, [DEAL])
    for path in ("", "/events", "/state", "/score", "/verify"):
        error_of(client.get(f"/v1/games/{game_id}{path}", headers=other_club.recorder), 404, "not_found")
    error_of(append(client, other_club, game_id, [{"type": "note", "text": "x"}]), 404, "not_found")
    listed = client.get("/v1/games", headers=other_club.recorder).json()["games"]
    assert game_id not in [g["id"] for g in listed]


# --------------------------------------------------------------------------- games


def test_create_game_fills_default_options(client: TestClient, club: Club) -> None:
    created = new_game(client, club, players=["Anna", "Ben"])
    assert created["options"] == {"first_dealer": 0, "enforcement": "strict", "dealing": "table"}
    assert created["seq"] == 0 and created["status"] == "live" and created["totals"] == {"0": 7, "1": 7}
    got = client.get(f"/v1/games/{created['id']}", headers=club.viewer).json()
    assert got == created


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"game": "poker", "players": ["A", "B"]}, "game"),
        ({"game": "schnapsen", "players": ["A", "B", "C"]}, "players"),
        ({"game": "schnapsen", "players": ["A", "B"], "options": {"first_dealer": 5}}, "options.first_dealer"),
        ({"game": "schnapsen", "players": ["A", "B"], "options": {"target": 5}}, "options.target"),
        ({"game": "schnapsen", "players": ["A", "B"], "options": {"enforcement": "lax"}}, "options.enforcement"),
        ({"game": "schnapsen", "players": "AB"}, "players"),
        ({"game": "schnapsen", "players": ["A", ""]}, "players.1"),
        ({"game": "schnapsen", "players": ["A", "B"], "colour": "red"}, "colour"),
    ],
)
def test_bad_games_are_refused_with_invalid(client: TestClient, club: Club, body: dict[str, Any], field: str) -> None:
    error = error_of(client.post("/v1/games", json=body, headers=club.recorder), 422, "invalid")
    assert error.get("field") == field


def test_list_games_filters_and_pages(client: TestClient, store: Store) -> None:
    club = make_club(store)
    ids = [new_game(client, club, players=["Anna", f"Ben{i}"])["id"] for i in range(5)]
    finished = new_game(client, club, players=["Zoe", "Ben0"], options={"first_dealer": 1})["id"]
    for event in load_example("schnapsen-9001.json")["events"]:
        assert append(client, club, finished, [event]).status_code == 201
    page = client.get("/v1/games?limit=2", headers=club.viewer).json()
    assert len(page["games"]) == 2 and page["next_cursor"]
    seen = [g["id"] for g in page["games"]]
    while page["next_cursor"]:
        page = client.get(f"/v1/games?limit=2&cursor={page['next_cursor']}", headers=club.viewer).json()
        seen += [g["id"] for g in page["games"]]
    assert sorted(seen) == sorted([*ids, finished]) and len(seen) == 6
    done = client.get("/v1/games?status=finished", headers=club.viewer).json()["games"]
    assert [g["id"] for g in done] == [finished] and done[0]["winner"] == 0 and done[0]["totals"] == {"0": -1, "1": 4}
    assert [g["id"] for g in client.get("/v1/games?player=Zoe", headers=club.viewer).json()["games"]] == [finished]
    assert len(client.get("/v1/games?player=Ben0", headers=club.viewer).json()["games"]) == 2
    assert client.get("/v1/games?game=casino", headers=club.viewer).json()["games"] == []
    error_of(client.get("/v1/games?cursor=%%%", headers=club.viewer), 422, "invalid")
    error_of(client.get("/v1/games?limit=0", headers=club.viewer), 422, "invalid")


# --------------------------------------------------------------------------- appends


def test_append_returns_envelopes_with_seq_hash_and_facts(client: TestClient, club: Club) -> None:
    game_id = schnapsen(client, club)
    response = append(client, club, game_id, [DEAL, {"type": "play", "seat": 0, "card": "td"}], expected_seq=0)
    assert response.status_code == 201
    first, second = response.json()["events"]
    assert (first["seq"], first["hand"], first["type"]) == (1, 1, "deal")
    assert second["data"] == {"seat": 0, "card": "TD"}  # canonical card codes out
    assert second["prev_hash"] == first["hash"] and len(first["hash"]) == 64
    assert first["actor"].startswith("key:") and first["recorded_at"].endswith("Z")
    third = append(client, club, game_id, [{"type": "play", "seat": 1, "card": "AD"}]).json()["events"][0]
    assert third["result"] == {"trick_winner": 1, "trick_points": 21}


def test_expected_seq_conflict_is_409_and_writes_nothing(client: TestClient, club: Club) -> None:
    game_id = schnapsen(client, club)
    append(client, club, game_id, [DEAL], expected_seq=0)
    error = error_of(
        append(client, club, game_id, [{"type": "note", "text": "x"}], expected_seq=0), 409, "seq_conflict"
    )
    assert (error["expected"], error["actual"]) == (0, 1)
    error_of(append(client, club, game_id, [{"type": "note", "text": "x"}], expected_seq=5), 409, "seq_conflict")
    assert count_events(client, club, game_id) == 1


def test_idempotent_retry_returns_the_first_result_and_writes_nothing(client: TestClient, club: Club) -> None:
    game_id = schnapsen(client, club)
    headers = {**club.recorder, "Idempotency-Key": "deal-1"}
    body = {"events": [DEAL]}
    first = client.post(f"/v1/games/{game_id}/events", json=body, headers=headers)
    again = client.post(f"/v1/games/{game_id}/events", json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    assert count_events(client, club, game_id) == 1
    other = {"events": [{"type": "note", "text": "different"}]}
    error_of(client.post(f"/v1/games/{game_id}/events", json=other, headers=headers), 409, "idempotency_mismatch")
    assert count_events(client, club, game_id) == 1


def test_impossible_and_illegal_are_told_apart(client: TestClient, club: Club) -> None:
    game_id = schnapsen(client, club)
    append(client, club, game_id, [DEAL, {"type": "close", "seat": 0}, {"type": "play", "seat": 0, "card": "TD"}])
    error = error_of(append(client, club, game_id, [{"type": "play", "seat": 1, "card": "AS"}]), 422, "impossible")
    assert "Ben does not hold A♠" in error["message"] and error["index"] == 0
    assert error["template"] == "{seat} does not hold {card}" and error["fields"] == {"seat": 1, "card": "AS"}
    error = error_of(append(client, club, game_id, [{"type": "play", "seat": 1, "card": "TS"}]), 422, "illegal")
    assert error["rule"] == "schnapsen.follow_suit" and error["index"] == 0
    assert count_events(client, club, game_id) == 3


def test_record_enforcement_stores_illegal_events_flagged(client: TestClient, club: Club) -> None:
    game_id = schnapsen(client, club, enforcement="record")
    append(client, club, game_id, [DEAL, {"type": "close", "seat": 0}, {"type": "play", "seat": 0, "card": "TD"}])
    response = append(client, club, game_id, [{"type": "play", "seat": 1, "card": "TS"}])
    assert response.status_code == 201
    stored = response.json()["events"][0]
    assert stored["violation"]["rule"] == "schnapsen.follow_suit" and stored["result"]["trick_winner"] == 0
    error_of(append(client, club, game_id, [{"type": "play", "seat": 0, "card": "AS"}]), 422, "impossible")
    assert client.get(f"/v1/games/{game_id}/verify", headers=club.recorder).json()["ok"] is True


def test_a_batch_is_all_or_nothing_and_names_the_bad_event(client: TestClient, club: Club) -> None:
    game_id = schnapsen(client, club)
    error = error_of(
        append(client, club, game_id, [DEAL, {"type": "play", "seat": 1, "card": "TS"}]), 422, "impossible"
    )
    assert error["index"] == 1
    assert count_events(client, club, game_id) == 0


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "not valid JSON"),
        (b"[]", "must be an object"),
        (b'{"events": {}}', "expected a list"),
        (b'{"events": []}', "at least one event"),
        (b'{"events": [{"type": "note", "text": "x"}], "extra": 1}', "unknown field 'extra'"),
        (b'{"events": [{"type": "note", "text": "x"}], "expected_seq": "0"}', "expected_seq"),
        (b'{"events": [{"type": "shuffle"}]}', "unknown event type 'shuffle'"),
        (b'{"events": [{"type": "play", "seat": 0, "card": "ZZ"}]}', "not a card code"),
        (b'{"events": [{"type": "play", "seat": 2, "card": "AS"}]}', "out of range"),
        (b'{"events": [{"type": "play", "seat": true, "card": "AS"}]}', "expected a seat number"),
        (b'{"events": [{"type": "play", "seat": 0}]}', "missing field 'card'"),
        (b'{"events": [{"type": "note", "text": ""}]}', "1 to 2000 characters"),
        (b'{"events": [7]}', "must be an object"),
    ],
)
def test_malformed_appends_are_invalid(client: TestClient, club: Club, body: bytes, message: str) -> None:
    game_id = schnapsen(client, club)
    response = client.post(
        f"/v1/games/{game_id}/events", content=body, headers={**club.recorder, "Content-Type": "application/json"}
    )
    error = error_of(response, 422, "invalid")
    assert message in error["message"]
    assert count_events(client, club, game_id) == 0


def test_a_body_over_one_mebibyte_is_413(client: TestClient, club: Club) -> None:
    game_id = schnapsen(client, club)
    huge = b'{"events": [{"type": "note", "text": "' + b"x" * (1024 * 1024) + b'"}]}'
    error = error_of(client.post(f"/v1/games/{game_id}/events", content=huge, headers=club.recorder), 413, "too_large")
    assert error["limit"] == 1024 * 1024
    assert count_events(client, club, game_id) == 0


def test_unknown_game_and_route_and_method(client: TestClient, club: Club) -> None:
    error_of(client.get("/v1/games/nope", headers=club.recorder), 404, "not_found")
    error_of(append(client, club, "nope", [DEAL]), 404, "not_found")
    error_of(client.get("/v2/whatever", headers=club.recorder), 404, "not_found")
    error_of(client.delete("/v1/games", headers=club.recorder), 405, "method_not_allowed")


# --------------------------------------------------------------------------- reads


def test_events_page_with_after_and_limit(client: TestClient, club: Club) -> None:
    game_id = schnapsen(client, club)
    append(client, club, game_id, [DEAL, *[{"type": "note", "text": f"n{i}"} for i in range(5)]])
    page = client.get(f"/v1/games/{game_id}/events?after=2&limit=2", headers=club.recorder).json()
    assert [e["seq"] for e in page["events"]] == [3, 4] and page["head"] == 6
    error_of(client.get(f"/v1/games/{game_id}/events?limit=5000", headers=club.recorder), 422, "invalid")


def test_state_at_a_seq_from_a_seat(client: TestClient, club: Club) -> None:
    game_id = schnapsen(client, club)
    append(client, club, game_id, [DEAL, {"type": "play", "seat": 0, "card": "TD"}])
    state = client.get(f"/v1/games/{game_id}/state?at=1&seat=0", headers=club.recorder).json()
    assert state["seq"] == 1 and state["hand"] == 1 and state["phase"] == "lead" and state["to_act"] == [0]
    assert state["seats"][0]["cards"] and "cards" not in state["seats"][1]
    assert state["seats"][1]["card_count"] == 5 and state["seats"][0]["name"] == "Anna"
    head = client.get(f"/v1/games/{game_id}/state", headers=club.recorder).json()
    assert head["seq"] == 2 and head["table"]["trick"] == [{"seat": 0, "card": "TD"}]
    assert set(head["seats"][1]["cards"]) == {"TS", "AD", "KC", "QS", "JD"}
    error_of(client.get(f"/v1/games/{game_id}/state?at=9", headers=club.recorder), 404, "not_found")
    error_of(client.get(f"/v1/games/{game_id}/state?seat=2", headers=club.recorder), 422, "invalid")


def test_a_viewer_never_sees_a_live_hidden_card(client: TestClient, club: Club) -> None:
    game_id = schnapsen(client, club)
    append(
        client,
        club,
        game_id,
        [
            DEAL,
            {"type": "play", "seat": 0, "card": "TD"},
            {"type": "play", "seat": 1, "card": "AD"},
            {"type": "draw", "seat": 1, "card": "KD"},
        ],
    )
    hidden = {"KH", "QH", "AC", "JS", "TS", "KC", "QS", "JD", "KD"}
    for seat in ("", "&seat=0", "&seat=1"):
        text = client.get(f"/v1/games/{game_id}/state?at=4{seat}", headers=club.viewer).text
        assert not any(card in text for card in hidden), seat
    text = client.get(f"/v1/games/{game_id}/events", headers=club.viewer).text
    assert not any(f'"{card}"' in text for card in hidden)
    assert '"TD"' in text and '"AD"' in text  # played cards are public
    assert "KD" in client.get(f"/v1/games/{game_id}/events", headers=club.recorder).text


def test_score_and_verify(client: TestClient, club: Club) -> None:
    game_id = schnapsen(client, club)
    example = load_example("schnapsen-9001.json")
    append(client, club, game_id, example["events"])
    score = client.get(f"/v1/games/{game_id}/score", headers=club.viewer).json()
    assert expected_of(score) == example["expected"] and score["finished"] is True
    for hand in score["hands"]:
        for line in hand["lines"]:
            assert set(line) == {"seat", "points", "rule", "reason", "template", "fields", "events"} and line["events"]
            assert "{" not in line["reason"] and not re.search(r"\bseat \d", line["reason"])
    verified = client.get(f"/v1/games/{game_id}/verify", headers=club.viewer).json()
    assert verified["ok"] is True and verified["events"] == len(example["events"]) and verified["problems"] == []
    game = client.get(f"/v1/games/{game_id}", headers=club.viewer).json()
    assert (
        verified["head_hash"]
        == client.get(f"/v1/games/{game_id}/events?after={game['seq'] - 1}", headers=club.viewer).json()["events"][0][
            "hash"
        ]
    )


def test_the_openapi_schema_and_docs_are_served(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    for path in (
        "/v1/games",
        "/v1/games/{game_id}",
        "/v1/games/{game_id}/events",
        "/v1/games/{game_id}/state",
        "/v1/games/{game_id}/score",
        "/v1/games/{game_id}/verify",
    ):
        assert path in schema["paths"]
    assert client.get("/docs").status_code == 200


# --------------------------------------------------------------------------- golden games through the API


def _golden() -> list[str]:
    kinds = set(available())
    return sorted(p.name for p in EXAMPLES.glob("*.json") if load_example(p.name)["game"] in kinds)


@pytest.mark.parametrize("name", _golden())
def test_golden_records_replay_through_the_api(client: TestClient, club: Club, name: str) -> None:
    example = load_example(name)
    created = new_game(client, club, game=example["game"], players=example["players"], options=example["options"])
    events = example["events"]
    for start in range(0, len(events), 100):
        response = append(client, club, created["id"], events[start : start + 100])
        assert response.status_code == 201, response.text
    score = client.get(f"/v1/games/{created['id']}/score", headers=club.recorder).json()
    assert expected_of(score) == example["expected"]
    assert client.get(f"/v1/games/{created['id']}/verify", headers=club.recorder).json()["ok"] is True


def test_a_game_body_that_is_not_json_is_422_invalid(client: TestClient, club: Club) -> None:
    for body in (b"{not json", b"[" * 100_000):
        response = client.post("/v1/games", content=body, headers={**club.recorder, "Content-Type": "application/json"})
        error_of(response, 422, "invalid")
