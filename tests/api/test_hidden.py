"""Hidden cards stay hidden with two API processes on one database, and no hash reveals one.

Two apps on the same database are two processes as far as the recorder is
concerned: each has its own state cache. One of them (the reader) caches a
game while its hand is over; the other (the writer) then deals the next
hand. Every read of the reader must decide what is hidden at the head in the
database, not at its cached one (issue 13: 17 of 36 viewer replays leaked a
live deal that way).

Hashes: a redacted event's hash is a hash over its hidden cards, and every
later hash chains over it; a viewer could hash each candidate card and
compare. So a viewer gets no hash from the first hidden event on: these
tests collect everything a viewer and a share link are given, on every GET
route and in every export, and look for every such hash in it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from api.settings import Settings
from events.codec import envelope_hash
from events.envelope import event_of
from events.store import Store
from projections.core.registry import available, rules_for
from projections.core.rules import SPECTATOR
from tests.api.helpers import hand_cut, playout, secret_hashes, viewer_reads
from tests.conftest import BOTH, Club, make_club
from tests.reliability.load import PLAYERS

#: both stores (tests/conftest.py `stores_of`):
#: two processes on one database decide what a reader sees at each store's head
STORES = BOTH


@pytest.fixture
def apps(store: Store) -> Iterator[tuple[TestClient, TestClient]]:
    """(writer, reader): two apps, two recorders and caches, one database."""
    writer_store, reader_store = Store(store.url), Store(store.url)
    with (
        TestClient(create_app(Settings(database_url=store.url), writer_store)) as writer,
        TestClient(create_app(Settings(database_url=store.url), reader_store)) as reader,
    ):
        yield writer, reader
    writer_store.dispose()
    reader_store.dispose()


def append(client: TestClient, club: Club, game_id: str, events: list[dict[str, Any]]) -> None:
    for start in range(0, len(events), 500):
        response = client.post(
            f"/v1/games/{game_id}/events", headers=club.recorder, json={"events": events[start : start + 500]}
        )
        assert response.status_code == 201, response.text


@pytest.mark.parametrize("kind", available())
def test_a_second_process_never_shows_a_live_hand(apps: tuple[TestClient, TestClient], store: Store, kind: str) -> None:
    writer, reader = apps
    club = make_club(store)
    rules = rules_for(kind)
    events, _, over, cut = hand_cut(kind, 2)
    seats = len(PLAYERS[kind])
    game_id = writer.post("/v1/games", headers=club.recorder, json={"game": kind, "players": PLAYERS[kind]}).json()[
        "id"
    ]
    append(writer, club, game_id, events[: over + 1])
    token = writer.post(f"/v1/games/{game_id}/share", headers=club.recorder).json()["token"]
    share = {"Authorization": f"Bearer {token}"}
    # the reader caches the game while no hand is live
    viewer_reads(reader, club.viewer, game_id, seats, over + 1, 1)
    viewer_reads(reader, share, game_id, seats, over + 1, 1)
    append(writer, club, game_id, events[over + 1 : cut + 1])
    head = cut + 1
    stored = store.read_events(game_id)
    hidden_envelopes = [env for env in stored if env["hand"] == 2]
    first_hidden = hidden_envelopes[0]["seq"]
    secrets = secret_hashes(store, game_id, first_hidden)

    seen = viewer_reads(reader, club.viewer, game_id, seats, head, 2)
    shared = viewer_reads(reader, share, game_id, seats, head, 2)
    for label, (status, body) in {**seen, **{f"share {k}": v for k, v in shared.items()}}.items():
        assert status < 500, (label, body[:300])
        leaked = [h for h in secrets if h in body]
        assert not leaked, f"{kind}: {label} gives {len(leaked)} hashes over hidden cards"

    # the viewer's events: the live hand redacted exactly as the rules redact it for a spectator, no hashes
    shown = orjson.loads(seen["/events []"][1])["events"]
    assert orjson.loads(seen["/events []"][1])["head"] == head
    assert [env["seq"] for env in shown] == list(range(1, head + 1))
    for env, real in zip(shown, stored, strict=True):
        if real["hand"] == 2:
            expected = {k: v for k, v in rules.redact_event(event_of(real), SPECTATOR).items() if k != "type"}
            assert env["data"] == expected and env["redacted"] is True
            assert env["hash"] is None
        else:
            assert env["data"] == real["data"] and env["hash"] == real["hash"]
    # replays and states of hand 2: the public table only; the share link: refused, its events withheld
    for seat in range(seats):
        frames = orjson.loads(seen[f"/replay [('hand', 2), ('seat', {seat})]"][1])
        assert frames["viewpoint"] == "public"
        assert orjson.loads(seen[f"/state [('seat', {seat})]"][1])["viewpoint"] == "public"
    assert shared["/replay [('hand', 2)]"][0] == 403
    assert shared[f"/state [('at', {head})]"][0] == 403
    withheld = [env for env in orjson.loads(shared["/events []"][1])["events"] if env["hand"] == 2]
    assert withheld and all(env["type"] == "withheld" and "hash" not in env for env in withheld)
    hands = {h["hand"]: h["live"] for h in orjson.loads(seen["/hands []"][1])["hands"]}
    assert hands[2] is True and hands[1] is False
    verify = orjson.loads(seen["/verify []"][1])
    assert verify["ok"] is True and verify["head_hash"] is None
    export = orjson.loads(seen["/export [('format', 'json')]"][1])
    assert export["redacted"] is True and export["head_hash"] is None

    # a recorder reads every hash through the same stale process
    full = reader.get(f"/v1/games/{game_id}/events", headers=club.recorder).json()
    assert [env["hash"] for env in full["events"]] == [env["hash"] for env in stored]
    assert reader.get(f"/v1/games/{game_id}/verify", headers=club.viewer).json()["events"] == head


@pytest.mark.parametrize("kind", available())
def test_hashes_return_once_the_hand_is_over_and_chain_end_to_end(
    apps: tuple[TestClient, TestClient], store: Store, kind: str
) -> None:
    writer, reader = apps
    club = make_club(store)
    rules = rules_for(kind)
    events, states = playout(kind)
    cut = next(
        i
        for i, s in enumerate(states)
        if s.hand >= 1 and rules.hand_in_progress(s.game) and any(rules.census(s.game).private.values())
    )
    end = next(i for i in range(cut, len(states)) if not rules.hand_in_progress(states[i].game))
    game_id = writer.post("/v1/games", headers=club.recorder, json={"game": kind, "players": PLAYERS[kind]}).json()[
        "id"
    ]
    append(writer, club, game_id, events[: cut + 1])
    assert all(
        env["hash"] is None
        for env in reader.get(f"/v1/games/{game_id}/events", headers=club.viewer).json()["events"]
        if env["hand"] == states[cut].hand
    )
    append(writer, club, game_id, events[cut + 1 : end + 1])
    shown = reader.get(f"/v1/games/{game_id}/events", headers=club.viewer).json()["events"]
    assert not any(env.get("redacted") for env in shown)
    prev = shown[0]["prev_hash"]
    for env in shown:  # the viewer re-walks the chain itself
        assert env["prev_hash"] == prev
        body = {k: v for k, v in env.items() if k != "hash"}
        assert envelope_hash(body) == env["hash"]
        prev = env["hash"]
    assert reader.get(f"/v1/games/{game_id}/verify", headers=club.viewer).json()["head_hash"] == prev


def test_a_guessed_card_cannot_be_confirmed(apps: tuple[TestClient, TestClient], store: Store) -> None:
    """The attack of issue 13: put each candidate card for `??` and hash. Nothing given matches any more."""
    writer, reader = apps
    club = make_club(store)
    rules = rules_for("schnapsen")
    events, states = playout("schnapsen", 9)
    deal = next(i for i, e in enumerate(events) if e["type"] == "draw")  # after the first trick's draws
    game_id = writer.post(
        "/v1/games", headers=club.recorder, json={"game": "schnapsen", "players": PLAYERS["schnapsen"]}
    ).json()["id"]
    append(writer, club, game_id, events[: deal + 2])
    assert rules.hand_in_progress(states[deal + 1].game)
    given = orjson.dumps(viewer_reads(reader, club.viewer, game_id, 2, deal + 2, 1)).decode()
    real = store.read_events(game_id)
    draws = [env for env in real if env["type"] == "draw"]
    confirmed = 0
    for env in draws:
        for card in (c + s for c in "AKQJT" for s in "CDHS"):
            guess = {**{k: v for k, v in env.items() if k != "hash"}, "data": {**env["data"], "card": card}}
            if envelope_hash(guess) in given:
                confirmed += 1
    assert confirmed == 0


def test_a_lone_retract_keeps_the_retracted_deal_hidden(apps: tuple[TestClient, TestClient], store: Store) -> None:
    """Issue 13, 3: a retract back before a deal, appended before the hand is dealt again."""
    writer, reader = apps
    club = make_club(store)
    events, states, over, cut = hand_cut("schnapsen", 2)
    rules = rules_for("schnapsen")
    game_id = writer.post(
        "/v1/games", headers=club.recorder, json={"game": "schnapsen", "players": PLAYERS["schnapsen"]}
    ).json()["id"]
    append(writer, club, game_id, events[: cut + 1])
    retract = {"type": "retract", "to_seq": over + 1, "reason": "misdeal"}
    assert (
        writer.post(f"/v1/games/{game_id}/events", headers=club.recorder, json={"events": [retract]}).status_code == 201
    )
    stored = store.read_events(game_id)
    deal = next(env for env in stored if env["hand"] == 2 and env["type"] == "deal")
    for client in (writer, reader):
        page = client.get(f"/v1/games/{game_id}/events?after={over}", headers=club.viewer).json()["events"]
        shown = {env["seq"]: env for env in page}
        assert shown[deal["seq"]]["data"]["hands"] == [["??"] * 5, ["??"] * 5]
        assert all(env["hash"] is None for seq, env in shown.items() if seq >= deal["seq"])
        # the table after the retracted deal is the table the retract put back: hand 1 over (issue 17)
        state = client.get(f"/v1/games/{game_id}/state?at={deal['seq']}", headers=club.viewer).json()
        assert state["seq"] == over + 1 and state["hand"] == 1
        assert all(seat.get("cards", []) == [] for seat in state["seats"])  # nothing of hand 2 dealt yet
        assert client.get(f"/v1/games/{game_id}/replay?hand=2", headers=club.viewer).json()["viewpoint"] == "public"
    # dealt again and played to the hand's end: the retracted deal shows with the rest
    end = next(i for i in range(cut, len(states)) if not rules.hand_in_progress(states[i].game))
    append(writer, club, game_id, events[over + 1 : end + 1])
    page = reader.get(f"/v1/games/{game_id}/events?after={over}", headers=club.viewer).json()["events"]
    assert {env["seq"]: env for env in page}[deal["seq"]]["data"] == deal["data"]
    assert all(isinstance(env["hash"], str) for env in page)


def test_a_stale_process_appends_on_the_true_head(apps: tuple[TestClient, TestClient], store: Store) -> None:
    """Issue 13, 4: no 422 from a stale state, no stale head in reads, no 404 for a seq that exists."""
    writer, reader = apps
    club = make_club(store)
    events, _ = playout("gin-rummy-3", 3)
    game_id = writer.post(
        "/v1/games", headers=club.recorder, json={"game": "gin-rummy-3", "players": PLAYERS["gin-rummy-3"]}
    ).json()["id"]
    append(writer, club, game_id, events[:10])
    assert reader.get(f"/v1/games/{game_id}/state", headers=club.recorder).json()["seq"] == 10  # cached at 10
    append(writer, club, game_id, events[10:20])
    assert reader.get(f"/v1/games/{game_id}/state", headers=club.recorder).json()["seq"] == 20
    assert reader.get(f"/v1/games/{game_id}/events", headers=club.recorder).json()["head"] == 20
    assert reader.get(f"/v1/games/{game_id}/state?at=18", headers=club.recorder).status_code == 200
    append(writer, club, game_id, events[20:25])
    response = reader.post(f"/v1/games/{game_id}/events", headers=club.recorder, json={"events": events[25:27]})
    assert response.status_code == 201, response.text
    assert [env["seq"] for env in response.json()["events"]] == [26, 27]
    append(writer, club, game_id, events[27:28])
    conflict = reader.post(
        f"/v1/games/{game_id}/events", headers=club.recorder, json={"expected_seq": 28, "events": events[28:29]}
    )
    assert conflict.status_code == 201, conflict.text  # 28 is the true head: the stale cache did not refuse it
    append(writer, club, game_id, events[29:30])
    stale = reader.post(
        f"/v1/games/{game_id}/events", headers=club.recorder, json={"expected_seq": 25, "events": [events[30]]}
    )
    assert stale.status_code == 409
    assert stale.json()["error"]["actual"] == 30 and stale.json()["error"]["expected"] == 25
    assert len(store.read_events(game_id)) == 30


def test_a_retracted_play_of_a_live_hand_stays_hidden(apps: tuple[TestClient, TestClient], store: Store) -> None:
    """Issue 17: a retract put Anna's 10♦ back in her hand; a viewer must not read it off the retracted play,
    on any route (events, replay, states, stream, exports), nor any hash over it."""
    writer, reader = apps
    club = make_club(store)
    deal = {
        "type": "deal",
        "dealer": 1,
        "hands": [["KH", "QH", "TD", "AC", "JS"], ["TS", "AD", "KC", "QS", "JD"]],
        "trump_card": "JH",
    }
    game_id = writer.post(
        "/v1/games",
        headers=club.recorder,
        json={"game": "schnapsen", "players": ["Anna", "Ben"], "options": {"first_dealer": 1}},
    ).json()["id"]
    events = [
        deal,
        {"type": "play", "seat": 0, "card": "TD"},
        {"type": "note", "text": "Anna meant another card", "ref": 2},
        {"type": "retract", "to_seq": 1, "reason": "Anna meant to lead AC"},
    ]
    append(writer, club, game_id, events)
    stored = store.read_events(game_id)
    seen = viewer_reads(reader, club.viewer, game_id, 2, 4, 1)
    for label, (status, body) in seen.items():
        assert status < 500, (label, body[:300])
        assert "TD" not in body and "10♦" not in body, f"{label} shows the retracted 10♦"
        assert not [env["hash"] for env in stored if env["hash"] in body], f"{label} gives a hash"

    shown = {env["seq"]: env for env in orjson.loads(seen["/events []"][1])["events"]}
    assert shown[2]["data"] == {"seat": 0, "card": "??"} and shown[2]["redacted"] is True
    assert shown[2]["result"] == {}
    assert shown[3]["data"] == stored[2]["data"]  # the note stays as written, in force
    replay = orjson.loads(seen["/replay [('hand', 1)]"][1])
    frames = {f["seq"]: f for f in replay["frames"]}
    assert frames[2]["event"] == {"type": "play", "seat": 0, "card": "??"} and frames[2]["retracted_by"] == 4
    assert "retracted_by" not in frames[3]  # the note is not struck through
    assert frames[2]["state"]["seats"] == frames[1]["state"]["seats"]  # the table as the retract left it
    # the recorder still reads it all
    full = reader.get(f"/v1/games/{game_id}/events", headers=club.recorder).json()["events"]
    assert full[1]["data"] == {"seat": 0, "card": "TD"} and full[1]["hash"] == stored[1]["hash"]
