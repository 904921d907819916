"""Replays, who sees what, the stream, audits and retractions: for every game kind."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from events.store import Store
from projections.core import engine, phrases
from projections.core.recorder import Recorder
from projections.core.registry import available, rules_for
from projections.core.simulate import play
from tests.api.helpers import never_public_cards, simulate
from tests.conftest import Club
from tests.projections.helpers import PLAYERS, cards_in, examples_of, load_example
from tests.store.helpers import tamper

KINDS = available()


def record(store: Store, club: Club, kind: str, events: list[dict[str, Any]]) -> str:
    recorder = Recorder(store)
    club_id = store.ensure_club(club.name)
    game = recorder.create_game(club_id=club_id, kind=kind, players=PLAYERS[kind], options={})
    for start in range(0, len(events), 300):
        recorder.append(game.id, events[start : start + 300], club_id=club_id, actor="test")
    return game.id


def live_cut(kind: str, seed: int) -> tuple[list[dict[str, Any]], list[Any]]:
    """A random game stopped in the middle of a hand (the second, or the first if there is one only)."""
    rules = rules_for(kind)
    events, states = simulate(kind, seed)
    target = 2 if max(s.hand for s in states) >= 2 else 1
    in_hand = [
        i
        for i, s in enumerate(states)
        if s.hand == target and rules.hand_in_progress(s.game) and any(rules.census(s.game).private.values())
    ]
    cut = in_hand[len(in_hand) // 2]
    return events[: cut + 1], states[: cut + 1]


@pytest.mark.parametrize("kind", KINDS)
def test_replay_frames_equal_a_fresh_fold(client: TestClient, club: Club, store: Store, kind: str) -> None:
    events, states = simulate(kind, seed=11, max_events=600)
    game_id = record(store, club, kind, events)
    for hand in sorted({s.hand for s in states if s.hand})[:3]:
        body = client.get(f"/v1/games/{game_id}/replay?hand={hand}", headers=club.recorder).json()
        assert body["frames"], hand
        for frame in body["frames"]:
            fresh = client.get(f"/v1/games/{game_id}/state?at={frame['seq']}", headers=club.recorder).json()
            assert frame["state"] == fresh
            assert frame["state"]["seq"] == frame["seq"] and frame["state"]["hand"] == hand
            assert frame["event"] == events[frame["seq"] - 1]
    seat_view = client.get(f"/v1/games/{game_id}/replay?hand=1&seat=0", headers=club.recorder).json()
    assert seat_view["viewpoint"] == 0
    assert client.get(f"/v1/games/{game_id}/replay?hand=999", headers=club.recorder).status_code == 404


@pytest.mark.parametrize("kind", KINDS)
def test_a_viewer_never_reads_a_live_hidden_card(client: TestClient, club: Club, store: Store, kind: str) -> None:
    events, states = live_cut(kind, seed=23)
    hidden = never_public_cards(kind, states)
    assert hidden, "the live hand should hold some private cards"
    game_id = record(store, club, kind, events)
    head = states[-1]
    seats = len(PLAYERS[kind])
    listed = client.get(f"/v1/games/{game_id}/events", headers=club.viewer).json()["events"]
    streamed = [
        orjson.loads(line[6:])
        for line in client.get(f"/v1/games/{game_id}/stream?follow=false", headers=club.viewer).text.splitlines()
        if line.startswith("data: ")
    ]
    assert len(listed) == len(streamed) == len(events)
    for envelope in [*listed, *streamed]:
        if envelope["hand"] == head.hand:  # earlier hands are over: all of them may be seen
            assert not cards_in(envelope) & hidden, envelope
    # the score sheet explains finished hands only, whose cards (in its lines' `fields`) may be seen
    score = client.get(f"/v1/games/{game_id}/score", headers=club.viewer).json()
    assert all(h["hand"] < head.hand for h in score["hands"])
    assert not cards_in({**score, "hands": [h for h in score["hands"] if h["hand"] == head.hand]}) & hidden
    responses = [client.get(f"/v1/games/{game_id}", headers=club.viewer)]
    for seat in [None, *range(seats)]:
        query = "" if seat is None else f"&seat={seat}"
        responses.append(client.get(f"/v1/games/{game_id}/replay?hand={head.hand}{query}", headers=club.viewer))
        responses.append(client.get(f"/v1/games/{game_id}/state?{query[1:]}", headers=club.viewer))
        first_of_hand = next(i + 1 for i, st in enumerate(states) if st.hand == head.hand)
        for at in range(max(first_of_hand, head.seq - 3), head.seq + 1):
            responses.append(client.get(f"/v1/games/{game_id}/state?at={at}{query}", headers=club.viewer))
    for response in responses:
        assert response.status_code == 200, response.text
        shown = {card for card in hidden if f'"{card}"' in response.text}
        assert not shown, f"{response.url} shows {shown}"
    # the recorder sees them all
    everything = client.get(f"/v1/games/{game_id}/events", headers=club.recorder).json()["events"]
    assert hidden <= set().union(*(cards_in(e) for e in everything if e["hand"] == head.hand))


def example_in_hand_2(kind: str) -> tuple[list[str], dict[str, Any], list[dict[str, Any]], list[Any]]:
    """The first example game of `kind` (tests/data/examples, a scripted whole game) cut in the middle of its
    second hand, where some seat holds cards privately: its players, options, events and states."""
    example = load_example(examples_of(kind)[0])
    rules = rules_for(kind)
    players, options = example["players"], rules.options_for(example["players"], example["options"])
    replay = engine.Replay(rules, engine.start(rules, players, options))
    events, states = [], []
    for event in example["events"]:  # as stored: decided, card codes canonical
        events.append(replay.push(event).event)
        states.append(replay.position)
    in_hand = [
        i
        for i, s in enumerate(states)
        if s.hand == 2 and rules.hand_in_progress(s.game) and any(rules.census(s.game).private.values())
    ]
    assert in_hand, f"{kind}: the example has no second hand with private cards"
    cut = in_hand[len(in_hand) // 2]
    return players, options, events[: cut + 1], states[: cut + 1]


@pytest.mark.parametrize("kind", KINDS)
def test_a_viewer_sees_a_finished_hand_whole(client: TestClient, club: Club, store: Store, kind: str) -> None:
    players, options, events, states = example_in_hand_2(kind)
    recorder = Recorder(store)
    club_id = store.ensure_club(club.name)
    game_id = recorder.create_game(club_id=club_id, kind=kind, players=players, options=options).id
    recorder.append(game_id, events, club_id=club_id, actor="test")
    first = [e for e, s in zip(events, states, strict=True) if s.hand == 1]
    viewer = client.get(f"/v1/games/{game_id}/replay?hand=1&seat=0", headers=club.viewer).json()
    assert [f["event"] for f in viewer["frames"]][: len(first)] == [
        dict(rules_for(kind).redact_event(e, 0)) for e in first
    ]
    omniscient = client.get(f"/v1/games/{game_id}/replay?hand=1", headers=club.viewer).json()
    assert [f["event"] for f in omniscient["frames"]][: len(first)] == first


def test_stream_sends_envelopes_resumes_and_redacts(client: TestClient, club: Club, store: Store) -> None:
    events, states = live_cut("schnapsen", seed=3)
    game_id = record(store, club, "schnapsen", events)
    body = client.get(f"/v1/games/{game_id}/stream?follow=false", headers=club.recorder).text
    ids = [int(line[4:]) for line in body.splitlines() if line.startswith("id: ")]
    assert ids == list(range(1, len(events) + 1))
    resumed = client.get(
        f"/v1/games/{game_id}/stream?follow=false", headers={**club.recorder, "Last-Event-ID": str(len(events) - 2)}
    ).text
    assert [int(line[4:]) for line in resumed.splitlines() if line.startswith("id: ")] == [len(events) - 1, len(events)]
    limited = client.get(f"/v1/games/{game_id}/stream?limit=2", headers=club.recorder).text
    datas = [orjson.loads(line[6:]) for line in limited.splitlines() if line.startswith("data: ")]
    assert [d["seq"] for d in datas] == [1, 2] and datas[0]["type"] == "deal"
    hidden = never_public_cards("schnapsen", states)
    viewer = client.get(f"/v1/games/{game_id}/stream?follow=false", headers=club.viewer).text
    live = [orjson.loads(line[6:]) for line in viewer.splitlines() if line.startswith("data: ")]
    live = [env for env in live if env["hand"] == states[-1].hand]
    assert live and all(env.get("redacted") for env in live)
    assert not set().union(*(cards_in(env) for env in live)) & hidden


# --------------------------------------------------------------------------- audits


def finished_game(kind: str, seed: int = 2) -> list[dict[str, Any]]:
    rules = rules_for(kind)
    playout = play(rules, PLAYERS[kind], {}, rng=random.Random(seed), max_events=3000)
    events = list(playout.events)
    if not playout.finished:  # a session game: end it between hands
        state = engine.fold_events(
            rules, engine.start(rules, PLAYERS[kind], rules.options_for(PLAYERS[kind], {})), events
        )
        rng = random.Random(seed)
        while rules.hand_in_progress(state.game):
            event = dict(rng.choice([*rules.legal_events(state.game), *rules.chance_events(state.game, rng)]))
            state = engine.apply(rules, state, engine.decide(rules, state, event).event, state.seq + 1)
            events.append(event)
    return events


@pytest.mark.parametrize("kind", KINDS)
def test_audit_agrees_with_right_claims_and_explains_wrong_ones(
    client: TestClient, club: Club, store: Store, kind: str
) -> None:
    events = finished_game(kind)
    game_id = record(store, club, kind, events)
    score = client.get(f"/v1/games/{game_id}/score", headers=club.recorder).json()
    hands = [h for h in score["hands"] if any(h["points"].values())]
    assert hands, "some hand scored points"
    right, wrong = hands[0], hands[-1]
    bad_points = dict(wrong["points"])
    seat = next(s for s, p in bad_points.items() if p) if any(bad_points.values()) else "0"
    bad_points[seat] = bad_points[seat] + 1
    claims = [
        {"type": "score_claimed", "hand": right["hand"], "points": right["points"]},
        {"type": "score_claimed", "hand": wrong["hand"], "points": bad_points},
    ]
    assert client.post(f"/v1/games/{game_id}/events", json={"events": claims}, headers=club.auditor).status_code == 201
    error = client.get(f"/v1/games/{game_id}/audit", headers=club.recorder).json()["error"]
    assert error["code"] == "forbidden"
    audit = client.get(f"/v1/games/{game_id}/audit", headers=club.auditor).json()
    assert audit["chain"]["ok"] is True and audit["chain"]["events"] == len(events) + 2
    agree, differ = audit["claims"]
    assert agree["agrees"] is True and agree["computed"] == right["points"]
    assert differ["agrees"] is False and differ["computed"] == wrong["points"] and differ["claimed"] == bad_points
    name = PLAYERS[kind][int(seat)]
    assert f"claimed {bad_points[seat]} for {name}, computed {wrong['points'][seat]}" in differ["summary"]
    assert differ["lines"] == [dict(line, hand=wrong["hand"]) for line in wrong["lines"]]
    # the same comparison for a claim not recorded, and for the totals
    posted = client.post(
        f"/v1/games/{game_id}/audit", json={"hand": wrong["hand"], "points": bad_points}, headers=club.auditor
    ).json()
    assert posted["agrees"] is False and posted["summary"] == differ["summary"]
    totals = client.post(f"/v1/games/{game_id}/audit", json={"points": score["totals"]}, headers=club.auditor).json()
    assert totals["agrees"] is True and totals["hand"] is None
    bad = client.post(f"/v1/games/{game_id}/audit", json={"points": {"0": 1}}, headers=club.auditor)
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid"


def test_audit_lists_violations_notes_and_a_broken_chain(client: TestClient, club: Club, store: Store) -> None:
    deal = {
        "type": "deal",
        "dealer": 1,
        "hands": [["KH", "QH", "TD", "AC", "JS"], ["TS", "AD", "KC", "QS", "JD"]],
        "trump_card": "JH",
    }
    response = client.post(
        "/v1/games",
        json={"game": "schnapsen", "players": ["Anna", "Ben"], "options": {"first_dealer": 1, "enforcement": "record"}},
        headers=club.recorder,
    )
    game_id = response.json()["id"]
    batch = [
        deal,
        {"type": "close", "seat": 0},
        {"type": "play", "seat": 0, "card": "TD"},
        {"type": "play", "seat": 1, "card": "TS"},
        {"type": "note", "text": "Ben revoked", "ref": 4},
    ]
    assert client.post(f"/v1/games/{game_id}/events", json={"events": batch}, headers=club.recorder).status_code == 201
    audit = client.get(f"/v1/games/{game_id}/audit", headers=club.auditor).json()
    assert audit["violations"] == [
        {
            "seq": 4,
            "hand": 1,
            "type": "play",
            "rule": "schnapsen.follow_suit",
            "message": audit["violations"][0]["message"],
            "retracted": False,
        }
    ]
    message = audit["violations"][0]["message"]  # stored with markers, rendered with the players' names
    assert "Ben holds" in message and "seat 1" not in message and not phrases.has_marker(message)
    assert "{seat:1}" in store.read_events(game_id)[3]["violation"]["message"]
    assert audit["notes"][0]["text"] == "Ben revoked" and audit["notes"][0]["ref"] == 4
    tamper(store, "UPDATE event SET actor = 'x' WHERE game_id = :g AND seq = 2", g=game_id)
    audit = client.get(f"/v1/games/{game_id}/audit", headers=club.auditor).json()
    assert audit["chain"]["ok"] is False and audit["chain"]["problems"][0]["seq"] == 2


# --------------------------------------------------------------------------- retractions


def test_retract_restores_the_state_and_is_listed_in_the_audit(client: TestClient, club: Club) -> None:
    deal = {
        "type": "deal",
        "dealer": 1,
        "hands": [["KH", "QH", "TD", "AC", "JS"], ["TS", "AD", "KC", "QS", "JD"]],
        "trump_card": "JH",
    }
    game_id = client.post(
        "/v1/games",
        json={"game": "schnapsen", "players": ["Anna", "Ben"], "options": {"first_dealer": 1}},
        headers=club.recorder,
    ).json()["id"]
    plays = [
        deal,
        {"type": "play", "seat": 0, "card": "TD"},
        {"type": "play", "seat": 1, "card": "AD"},
        {"type": "draw", "seat": 1, "card": "KD"},
    ]
    client.post(f"/v1/games/{game_id}/events", json={"events": plays}, headers=club.recorder)
    before = client.get(f"/v1/games/{game_id}/state?at=1", headers=club.recorder).json()
    viewer_try = client.post(
        f"/v1/games/{game_id}/events",
        json={"events": [{"type": "retract", "to_seq": 1, "reason": "x"}]},
        headers=club.viewer,
    )
    assert viewer_try.status_code == 403
    retract = {"type": "retract", "to_seq": 1, "reason": "Anna meant to lead AC"}
    stored = client.post(f"/v1/games/{game_id}/events", json={"events": [retract]}, headers=club.auditor).json()
    assert stored["events"][0]["seq"] == 5
    after = client.get(f"/v1/games/{game_id}/state", headers=club.recorder).json()
    assert after["seq"] == 5 and {k: v for k, v in after.items() if k != "seq"} == {
        k: v for k, v in before.items() if k != "seq"
    }
    # play goes on from the state at seq 1; the retracted cards are back in hand
    ok = client.post(
        f"/v1/games/{game_id}/events",
        json={"events": [{"type": "play", "seat": 0, "card": "AC"}]},
        headers=club.recorder,
    )
    assert ok.status_code == 201 and ok.json()["events"][0]["seq"] == 6
    again = client.post(
        f"/v1/games/{game_id}/events",
        json={"events": [{"type": "retract", "to_seq": 3, "reason": "no"}]},
        headers=club.auditor,
    )
    assert again.status_code == 422 and "past the retract at seq 5" in again.json()["error"]["message"]
    audit = client.get(f"/v1/games/{game_id}/audit", headers=club.auditor).json()
    (retraction,) = audit["retractions"]
    assert retraction["to_seq"] == 1 and retraction["retracted"] == [2, 3, 4]
    assert retraction["reason"] == "Anna meant to lead AC" and retraction["actor"].startswith("key:")
    assert audit["chain"]["ok"] is True
    replay = client.get(f"/v1/games/{game_id}/replay?hand=1", headers=club.recorder).json()
    assert [f.get("retracted_by") for f in replay["frames"]] == [None, 5, 5, 5, None, None]
    events = client.get(f"/v1/games/{game_id}/events", headers=club.recorder).json()["events"]
    assert len(events) == 6  # the retracted events stay in the log


def test_a_retract_over_a_note_and_a_claim_keeps_both_in_force(client: TestClient, club: Club) -> None:
    """Issue 17: a retract takes back game events only; the audit says what came before the correction."""
    deal = {
        "type": "deal",
        "dealer": 1,
        "hands": [["KH", "QH", "TD", "AC", "JS"], ["TS", "AD", "KC", "QS", "JD"]],
        "trump_card": "JH",
    }
    game_id = client.post(
        "/v1/games",
        json={"game": "schnapsen", "players": ["Anna", "Ben"], "options": {"first_dealer": 1}},
        headers=club.recorder,
    ).json()["id"]
    events = [
        deal,
        {"type": "play", "seat": 0, "card": "TD"},
        {"type": "note", "text": "Ben disputes this hand", "ref": 2},
        {"type": "score_claimed", "hand": 1, "points": {"0": 0, "1": 2}},
        {"type": "play", "seat": 1, "card": "AD"},
    ]
    assert client.post(f"/v1/games/{game_id}/events", json={"events": events}, headers=club.recorder).status_code == 201
    retract = {"type": "retract", "to_seq": 1, "reason": "Anna meant to lead AC"}
    assert (
        client.post(f"/v1/games/{game_id}/events", json={"events": [retract]}, headers=club.auditor).status_code == 201
    )
    audit = client.get(f"/v1/games/{game_id}/audit", headers=club.auditor).json()
    (retraction,) = audit["retractions"]
    assert retraction["retracted"] == [2, 5] and retraction["kept"] == [3, 4]
    (note,) = audit["notes"]
    assert (
        note["retracted"] is False and note["before_retract"] == 6 and "before the retract at seq 6" in note["remark"]
    )
    (claim,) = audit["claims"]
    assert claim["retracted"] is False and claim["before_retract"] == 6
    assert "Made before the retract at seq 6 (back to seq 1); still in force." in claim["summary"]
    replay = client.get(f"/v1/games/{game_id}/replay?hand=1", headers=club.recorder).json()
    assert {f["seq"]: f.get("retracted_by") for f in replay["frames"]} == {
        1: None,
        2: 6,
        3: None,
        4: None,
        5: 6,
        6: None,
    }


def test_a_retract_in_a_batch_and_score_without_the_retracted_events(client: TestClient, club: Club) -> None:
    from tests.projections.helpers import load_example

    example = load_example("schnapsen-9002.json")
    game_id = client.post(
        "/v1/games",
        json={"game": "schnapsen", "players": example["players"], "options": example["options"]},
        headers=club.recorder,
    ).json()["id"]
    events = example["events"]
    # hand 1 ends at seq 22; record it, then a wrong deal and its retraction in one batch, then the rest
    client.post(f"/v1/games/{game_id}/events", json={"events": events[:22]}, headers=club.recorder)
    wrong = dict(events[22])
    wrong["hands"] = [wrong["hands"][1], wrong["hands"][0]]
    batch = [wrong, {"type": "retract", "to_seq": 22, "reason": "hands swapped"}, *events[22:]]
    response = client.post(f"/v1/games/{game_id}/events", json={"events": batch}, headers=club.recorder)
    assert response.status_code == 201, response.text
    score = client.get(f"/v1/games/{game_id}/score", headers=club.recorder).json()
    assert score["totals"] == example["expected"]["totals"] and score["winner"] == example["expected"]["winner"]
    assert [h["points"] for h in score["hands"]] == [h["points"] for h in example["expected"]["hands"]]
    assert client.get(f"/v1/games/{game_id}/verify", headers=club.recorder).json()["ok"] is True


def test_audit_notes_a_better_gin_melding(client: TestClient, club: Club) -> None:
    game_id = client.post(
        "/v1/games",
        json={
            "game": "gin-rummy-3",
            "players": ["Ben", "Jo", "Ida"],
            "options": {"first_roles": {"box": 0, "captain": 1, "sitter": 2}},
        },
        headers=club.recorder,
    ).json()["id"]
    captain = ["AH", "2H", "3H", "4H", "5H", "5S", "5C", "7D", "8D", "9D"]
    box = ["2S", "3S", "4S", "6S", "7S", "8C", "9C", "JC", "QC", "KC"]
    events = [
        {"type": "deal", "hands": {"0": box, "1": captain}, "upcard": "KS"},
        {"type": "pass", "seat": 1},
        {"type": "pass", "seat": 0},
        {"type": "draw", "seat": 1, "source": "stock", "card": "TD"},
        # knocks with 5S 5C as deadwood (10) although 5H 5S 5C and AH-4H made gin
        {"type": "knock", "seat": 1, "discard": "TD", "melds": [["AH", "2H", "3H", "4H", "5H"], ["7D", "8D", "9D"]]},
    ]
    response = client.post(f"/v1/games/{game_id}/events", json={"events": events}, headers=club.recorder)
    assert response.status_code == 201, response.text
    audit = client.get(f"/v1/games/{game_id}/audit", headers=club.auditor).json()
    (note,) = audit["game_notes"]
    assert note["seq"] == 5 and note["text"].startswith("Jo knocked declaring deadwood 10")  # named, no "seat 1"
    assert "deadwood 0" in note["text"]
