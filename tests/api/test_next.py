"""`GET /v1/games/{id}/next`: the table pad's offer, for every game, every role, `record` enforcement and errors."""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient

from projections.core import dealing
from projections.core.registry import available, rules_for
from tests.conftest import Club, error_of, new_game

DEAL = {
    "type": "deal",
    "dealer": 1,
    "hands": [["KH", "QH", "TD", "AC", "JS"], ["TS", "AD", "KC", "QS", "JD"]],
    "trump_card": "JH",
}
HANDS = set(DEAL["hands"][0]) | set(DEAL["hands"][1])  # type: ignore[arg-type]


def _next(client: TestClient, club: Club, game_id: str, role: str = "recorder", **params: Any) -> Any:
    return client.get(f"/v1/games/{game_id}/next", params=params, headers=getattr(club, role))


def _append(client: TestClient, club: Club, game_id: str, events: list[dict[str, Any]], **body: Any) -> Any:
    response = client.post(f"/v1/games/{game_id}/events", json={"events": events, **body}, headers=club.recorder)
    assert response.status_code == 201, response.text
    return response.json()


def _strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {s for v in value.values() for s in _strings(v)}
    if isinstance(value, list):
        return {s for v in value for s in _strings(v)}
    return set()


def _pick(doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """One event the offer holds: a decision, an amount of a range, or a reveal's example."""
    choices = list(doc["decisions"])
    choices += [{**r["event"], r["field"]: rng.randint(r["min"], r["max"])} for r in doc["ranges"]]
    if doc["reveal"]:
        choices += [v["event"] for v in doc["reveal"]["events"]]
    assert choices, doc
    return rng.choice(choices)


@pytest.mark.parametrize("kind", available())
def test_every_game_is_recorded_from_its_offer_alone(client: TestClient, club: Club, kind: str) -> None:
    rules = rules_for(kind)
    game_id = new_game(client, club, kind, list(rules.demo_players))["id"]
    rng = random.Random(kind)
    steps = 40
    for step in range(steps):
        response = _next(client, club, game_id)
        assert response.status_code == 200, response.text
        doc = response.json()
        assert doc["game"] == game_id and doc["seq"] == step and doc["sends"] == "events"
        assert doc["viewpoint"] == "all" and doc["flagged"] == [] and doc["enforcement"] == "strict"
        if doc["finished"]:  # a Seven and a Half session closed
            assert doc["to_act"] == [] and doc["decisions"] == [] and doc["reveal"] is None
            steps = step
            break
        assert doc["to_act"] or doc["chance"]
        stored = _append(client, club, game_id, [_pick(doc, rng)], expected_seq=doc["seq"])
        assert stored["events"][0]["seq"] == step + 1 and "violation" not in stored["events"][0]
    state = client.get(f"/v1/games/{game_id}/state", headers=club.recorder).json()
    assert state["seq"] == steps > 0


def test_the_first_event_of_each_game_is_a_reveal_with_the_whole_deck(client: TestClient, club: Club) -> None:
    for kind, shape in (("schnapsen", "seat_cards"), ("cutthroat-smear", "seat_cards"), ("casino", "seat_cards")):
        rules = rules_for(kind)
        game_id = new_game(client, club, kind, list(rules.demo_players))["id"]
        doc = _next(client, club, game_id).json()
        reveal = doc["reveal"]
        assert doc["chance"] and doc["to_act"] == [] and reveal["type"] == "deal"
        assert reveal["fields"]["hands"]["shape"] == shape
        assert reveal["fields"]["hands"]["seats"] == list(range(len(rules.demo_players)))
        players = list(rules.demo_players)
        assert set(reveal["unseen"]) == rules.census(rules.initial_state(players, rules.options_for(players, {}))).deck


def test_schnapsen_after_the_deal_offers_the_leaders_plays_and_a_draw_later(client: TestClient, club: Club) -> None:
    game_id = new_game(client, club, options={"first_dealer": 1})["id"]
    _append(client, club, game_id, [DEAL])
    doc = _next(client, club, game_id).json()
    assert doc["to_act"] == [0] and not doc["chance"] and doc["reveal"] is None
    plays = {e["card"] for e in doc["decisions"] if e["type"] == "play" and not e.get("marriage")}
    assert plays == set(DEAL["hands"][0])  # type: ignore[arg-type]
    assert {"type": "play", "seat": 0, "card": "KH", "marriage": True} in doc["decisions"]
    assert {"type": "close", "seat": 0} in doc["decisions"]
    _append(
        client, club, game_id, [{"type": "play", "seat": 0, "card": "AC"}, {"type": "play", "seat": 1, "card": "KC"}]
    )
    doc = _next(client, club, game_id).json()
    reveal = doc["reveal"]
    assert doc["chance"] and reveal["type"] == "draw" and reveal["fields"] == {"card": {"shape": "card", "count": 1}}
    assert reveal["event"]["seat"] == 0 and reveal["event"]["card"] in reveal["unseen"]
    assert len(reveal["unseen"]) == 20 - 10 - 1 and not HANDS & set(reveal["unseen"])
    assert any(c["event"]["type"] == "retract" and c["max"] == 2 for c in doc["common"])


def test_a_viewer_is_shown_no_hidden_card(client: TestClient, club: Club) -> None:
    game_id = new_game(client, club, options={"first_dealer": 1})["id"]
    _append(
        client,
        club,
        game_id,
        [DEAL, {"type": "play", "seat": 0, "card": "AC"}, {"type": "play", "seat": 1, "card": "KC"}],
    )
    for params in ({}, {"seat": 0}, {"seat": 1}):
        response = _next(client, club, game_id, "viewer", **params)
        assert response.status_code == 200, response.text
        doc = response.json()
        assert doc["viewpoint"] == "public" and doc["sends"] == "nothing"
        assert doc["decisions"] == [] and doc["withheld"] == []  # a draw: a chance event, public
        reveal = doc["reveal"]
        assert reveal["event"]["card"] == "??"
        shown = _strings({k: v for k, v in doc.items() if k != "reveal"}) | _strings(reveal["event"])
        assert not shown & (HANDS - {"AC", "KC"}), shown & HANDS
        # the hands are hidden from a viewer: no card is listed at all (not even as "unseen" beside the talon's)
        assert reveal["unseen"] == [] and reveal["unseen_count"] == 20 - 2 - 1  # less the two played and the trump card
    _append(
        client, club, game_id, [{"type": "draw", "seat": 0, "card": "AS"}, {"type": "draw", "seat": 1, "card": "TC"}]
    )
    doc = _next(client, club, game_id, "viewer").json()
    assert doc["to_act"] == [0] and doc["decisions"] == [] and doc["withheld"] == [0]
    assert not _strings(doc) & (HANDS | {"AS", "TC"}) - {"AC", "KC"}
    mine = _next(client, club, game_id, seat=0).json()
    assert mine["viewpoint"] == 0 and "AS" in {e.get("card") for e in mine["decisions"]}
    theirs = _next(client, club, game_id, seat=1).json()
    assert theirs["decisions"] == [] and theirs["withheld"] == [0]
    assert not _strings(theirs) & {"AS", "KH", "QH"}


def test_record_enforcement_lists_the_flagged_plays_with_their_rule(client: TestClient, club: Club) -> None:
    game_id = new_game(client, club, options={"first_dealer": 1, "enforcement": "record"})["id"]
    _append(client, club, game_id, [DEAL, {"type": "close", "seat": 0}, {"type": "play", "seat": 0, "card": "AC"}])
    doc = _next(client, club, game_id).json()
    assert doc["enforcement"] == "record"
    assert doc["decisions"] == [{"type": "play", "seat": 1, "card": "KC"}]
    flagged = {f["event"]["card"]: f for f in doc["flagged"]}
    assert set(flagged) == {"TS", "AD", "QS", "JD"}
    for flag in flagged.values():
        assert flag["rule"] == "schnapsen.follow_suit" and "Ben" in flag["reason"] and "{" not in flag["reason"]
        assert flag["template"] and "seat" in flag["fields"]
    stored = _append(client, club, game_id, [flagged["TS"]["event"]], expected_seq=doc["seq"])
    assert stored["events"][0]["violation"]["rule"] == "schnapsen.follow_suit"
    _append(client, club, game_id, [{"type": "retract", "to_seq": 3, "reason": "test"}])
    viewer = _next(client, club, game_id, "viewer").json()
    assert viewer["decisions"] == [] and viewer["flagged"] == [] and viewer["withheld"] == [1]


def test_a_wide_table_offers_stakes_as_ranges_and_flags_those_beyond_its_limits(client: TestClient, club: Club) -> None:
    rules = rules_for("seven-and-a-half")
    options = {"min_bet": 5, "max_bet": 10**6, "enforcement": "record"}
    game_id = new_game(client, club, "seven-and-a-half", list(rules.demo_players), options)["id"]
    doc = _next(client, club, game_id).json()
    ranges = {r["event"]["seat"]: (r["min"], r["max"]) for r in doc["ranges"] if r["event"]["type"] == "bet"}
    assert ranges == {1: (5, 10**6), 2: (5, 10**6), 3: (5, 10**6)}
    beyond = {(f["min"], f["max"]) for f in doc["flagged"] if f["event"]["seat"] == 1}
    assert beyond == {(-(10**9), 4), (10**6 + 1, 10**9)}
    stored = _append(client, club, game_id, [{"type": "bet", "seat": 1, "amount": 777_777}])
    assert "violation" not in stored["events"][0]


def test_an_unknown_game_is_not_found(client: TestClient, club: Club, other_club: Club) -> None:
    error_of(_next(client, club, "gnope"), 404, "not_found")
    game_id = new_game(client, club)["id"]
    error_of(_next(client, other_club, game_id), 404, "not_found")


@pytest.mark.parametrize("seat", [2, 9, -1, "x"])
def test_a_bad_seat_is_refused_with_the_error_shape(client: TestClient, club: Club, seat: Any) -> None:
    game_id = new_game(client, club)["id"]
    error = error_of(_next(client, club, game_id, seat=seat), 422, "invalid")
    assert error["field"] == "seat" and "{seat:" not in error["message"]
    if seat == 2:
        assert "Anna" in error["message"] and "Ben" in error["message"]


def test_a_share_link_may_not_read_the_offer(client: TestClient, club: Club) -> None:
    game_id = new_game(client, club)["id"]
    token = client.post(f"/v1/games/{game_id}/share", headers=club.recorder).json()["token"]
    error_of(client.get(f"/v1/games/{game_id}/next", headers={"Authorization": f"Bearer {token}"}), 403, "forbidden")


def test_an_auditor_sees_everything_and_may_send_corrections_only(client: TestClient, club: Club) -> None:
    game_id = new_game(client, club, options={"first_dealer": 1})["id"]
    _append(client, club, game_id, [DEAL])
    doc = _next(client, club, game_id, "auditor").json()
    assert doc["viewpoint"] == "all" and doc["sends"] == "corrections" and doc["withheld"] == []
    assert {e["card"] for e in doc["decisions"] if e["type"] == "play"} == set(DEAL["hands"][0])  # type: ignore[arg-type]
    retract = next(c for c in doc["common"] if c["event"]["type"] == "retract")
    response = client.post(
        f"/v1/games/{game_id}/events",
        json={"events": [{**retract["event"], "reason": "misdeal"}]},
        headers=club.auditor,
    )
    assert response.status_code == 201, response.text
    assert _next(client, club, game_id, "auditor").json()["reveal"]["type"] == "deal"


def test_the_offer_is_the_document_the_schema_publishes(client: TestClient, club: Club) -> None:
    import jsonschema_rs

    spec = client.get("/openapi.json").json()
    operation = spec["paths"]["/v1/games/{game_id}/next"]["get"]
    assert {"200", "401", "403", "404", "422"} <= set(operation["responses"])
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    validator = jsonschema_rs.Draft202012Validator({**schema, "components": spec["components"]})
    rng = random.Random(1)
    for kind in available():
        rules = rules_for(kind)
        game_id = new_game(client, club, kind, list(rules.demo_players), {"enforcement": "record"})["id"]
        for _ in range(6):
            for role in ("recorder", "viewer"):
                doc = _next(client, club, game_id, role).json()
                errors = [f"{e.instance_path}: {e.message}" for e in validator.iter_errors(doc)]
                assert not errors, (kind, errors[:3])
            _append(client, club, game_id, [_pick(_next(client, club, game_id).json(), rng)])


@pytest.mark.parametrize("kind", available())
def test_a_server_dealt_game_is_recorded_from_its_offer_with_no_card_to_enter(
    client: TestClient, club: Club, kind: str
) -> None:
    """In a server-dealt game the deals and draws are offered without cards (the server deals them), as
    decisions, never as a reveal to fill in; a seed is offered until the hand's first card is dealt."""
    rules = rules_for(kind)
    game = new_game(client, club, kind, list(rules.demo_players), options={"dealing": "server"})
    game_id, rng = game["id"], random.Random(kind)
    doc = _next(client, club, game_id).json()
    assert any(c["event"]["type"] == "seed" for c in doc["common"]), doc["common"]
    seq, dealt = doc["seq"], 0
    for _ in range(30):
        doc = _next(client, club, game_id).json()
        if doc["finished"]:
            break
        assert doc["reveal"] is None, doc["reveal"]
        event = _pick(doc, rng)
        from_deck = dealing.takes(kind, event)  # the fields whose cards leave the deck (a pile draw names its card)
        if from_deck:
            assert not set(from_deck) & set(event), event  # the server fills the cards
            dealt += 1
        stored = _append(client, club, game_id, [event], expected_seq=doc["seq"])
        assert stored["events"][0]["seq"] == doc["seq"] + 1
        seq = stored["events"][-1]["seq"]
    assert dealt and seq > 1
    verified = client.get(f"/v1/games/{game_id}/verify", headers=club.auditor).json()
    assert verified["ok"], verified["problems"][:3]
