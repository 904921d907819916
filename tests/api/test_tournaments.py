"""Events through the API (issue 33): a duplicate evening played end to end, its boards the same at every
table and checked by fairdeal.py alone, withheld from viewers until every table has finished them, compared
in travellers and standings, exported and imported elsewhere; bad input refused with nothing written."""

from __future__ import annotations

import copy
import random
from pathlib import Path

import orjson
from fastapi.testclient import TestClient

from api.main import create_app
from api.settings import Settings
from events.store import Store
from events.store.migrate import upgrade
from projections.fairness import fairdeal
from tests.api.event_tables import EventTable, cards_in, create_event, dealt, start
from tests.api.helpers import append
from tests.conftest import Club, error_of, make_club
from tests.projections.helpers import load_example

#: on PostgreSQL (the HTTP tests' default is SQLite): the record is imported "elsewhere" into a fresh SQLite
#: database, and the browser test (tests/browser/test_event_page.py) plays an event on SQLite, so both stores
#: run an event
STORES = ("postgres",)
PLAYERS = ["Anna", "Ben", "Cleo", "Dan"]


def test_a_duplicate_evening_end_to_end(client: TestClient, club: Club, store: Store, tmp_path: Path) -> None:
    event = create_event(
        client, club, name="Tuesday", game="schnapsen", players=PLAYERS, movement="round-robin", rounds=1, boards=2
    )
    assert event["board_set"]["count"] == 2 and len(event["board_set"]["commitment"]) == 64
    assert all(b["seed"] is None for b in event["board_set"]["boards"])  # nothing revealed before play
    assert event["same_deal"] == "the two hands, the trump card and the order of the talon"
    seeded = client.post(f"/v1/events/{event['id']}/seeds", json={"seed": "Cleo's dice"}, headers=club.recorder)
    assert seeded.json()["board_set"]["seeds"] == ["-:Cleo's dice"]
    event = start(client, club, event["id"], 1)
    again = client.post(f"/v1/events/{event['id']}/rounds/1/start", headers=club.recorder)
    assert error_of(again, 422, "impossible")["field"] == "round"
    late = client.post(f"/v1/events/{event['id']}/seeds", json={"seed": "late"}, headers=club.recorder)
    error_of(late, 422, "impossible")  # the set is sealed once a board is dealt
    one, two = (EventTable(client, club, event, 1, t) for t in (1, 2))
    refused = client.post(
        f"/v1/games/{one.id}/events", json={"events": [{"type": "seed", "seed": "x"}]}, headers=club.recorder
    )
    error_of(refused, 422, "invalid")  # a table's own seed would deal it another deck

    one.play_until(random.Random(1), 3)  # table 1 has finished both boards; table 2 has not begun
    board_one = cards_in(dealt(one, 1))
    assert len(board_one) == 11
    for path in ("events", "state", "score", "export", "replay"):
        params = {"hand": 1} if path == "replay" else {}
        answer = client.get(f"/v1/games/{one.id}/{path}", params=params, headers=club.viewer)
        assert answer.status_code in (200, 403), (path, answer.text[:200])
        assert not board_one & cards_in(answer.json()), f"{path} shows a card of a board still in play"
    bulk = client.get("/v1/export", params={"game": "schnapsen"}, headers=club.viewer)
    lines = [orjson.loads(line) for line in bulk.content.splitlines()]
    assert lines[-1]["games"] == 0 and not any(
        "format" in line for line in lines
    )  # both tables left out (cursors kept)
    assert board_one <= cards_in(client.get(f"/v1/games/{one.id}/events", headers=club.auditor).json())
    results = client.get(f"/v1/events/{event['id']}/results", headers=club.viewer).json()
    assert results["travellers"] == [] and [b["board"] for b in results["pending_boards"]] == [1, 2]

    rng = random.Random(2)
    while two.position.deal is None or two.position.deal.hand < 3:
        two.step(rng)
        if two.position.deal is not None and two.position.deal.hand == 3:  # the last board just finished
            results = client.get(f"/v1/events/{event['id']}/results", headers=club.viewer).json()
    assert dealt(one, 1) == dealt(two, 1) and dealt(one, 2) == dealt(two, 2)  # the same boards, the same seats
    assert board_one <= cards_in(client.get(f"/v1/games/{one.id}/events", headers=club.viewer).json())

    travellers = results["travellers"]
    assert [t["board"] for t in travellers] == [1, 2]
    for trav in travellers:
        assert trav["top"] == 2
        for seat in (0, 1):
            assert sum(t["matchpoints"][seat] for t in trav["tables"]) == 2  # one comparison: 2 to share
            a, b = (t["results"][seat] for t in trav["tables"])
            assert [t["matchpoints"][seat] for t in trav["tables"]] == (
                [2, 0] if a > b else [0, 2] if a < b else [1, 1]
            )
            assert trav["tables"][0]["imps"][seat] == -trav["tables"][1]["imps"][seat]
    rows = results["standings"]["rows"]
    assert sorted(r["name"] for r in rows) == sorted(PLAYERS)
    assert all(sum(c["matchpoints"] for c in r["cells"]) == r["matchpoints"] and r["boards"] == 2 for r in rows)
    assert all(c["events"] and c["game_id"] in (one.id, two.id) for r in rows for c in r["cells"])
    keys = [(-r["percentage"], -r["imps_per_board"], -r["tops"]) for r in rows]
    assert keys == sorted(keys)
    csv = client.get(f"/v1/events/{event['id']}/results", params={"format": "csv"}, headers=club.viewer)
    assert csv.headers["content-type"].startswith("text/csv")
    lines = csv.text.splitlines()
    assert lines[0].startswith("place,player,matchpoints") and sum(",Anna," in line for line in lines) == 3

    exported = client.get(f"/v1/events/{event['id']}/export", headers=club.recorder)
    doc = exported.json()
    reports = fairdeal.verify_event(doc)
    assert set(reports) == {one.id, two.id} and all(r.ok for r in reports.values())
    assert all(r.hands[h]["board"] == h and r.hands[h]["verified"] for r in reports.values() for h in (1, 2))
    forged = copy.deepcopy(doc)
    deal = next(e for e in forged["games"][1]["events"] if e["type"] == "deal")
    deal["data"]["hands"][0][0], deal["data"]["hands"][1][0] = deal["data"]["hands"][1][0], deal["data"]["hands"][0][0]
    assert not fairdeal.verify_event(forged)[two.id].ok
    other_set = copy.deepcopy(doc)
    other_set["board_set"]["boards"][0]["commitment"] = "0" * 64
    assert any(p["problem"] == "board_set" for p in fairdeal.verify_event(other_set)[one.id].problems)

    # elsewhere: another database, another server; a forged record is refused and writes no event
    url = f"sqlite:///{tmp_path / 'elsewhere.db'}"
    upgrade(url)
    there = Store(url)
    try:
        with TestClient(create_app(Settings(database_url=url), there)) as remote:
            other = make_club(there)
            error_of(
                remote.post("/v1/import/event", content=orjson.dumps(forged), headers=other.recorder), 422, "invalid"
            )
            assert remote.get("/v1/events", headers=other.recorder).json()["events"] == []
            imported = remote.post("/v1/import/event", content=exported.content, headers=other.recorder)
            assert imported.status_code == 201, imported.text
            assert imported.json()["source_id"] == event["id"]
            assert imported.json()["board_set"]["commitment"] == event["board_set"]["commitment"]
            remote_results = remote.get(f"/v1/events/{imported.json()['id']}/results", headers=other.viewer).json()
            again = fairdeal.verify_event(
                remote.get(f"/v1/events/{imported.json()['id']}/export", headers=other.recorder).json()
            )
            assert len(again) == 2 and all(r.ok for r in again.values())
    finally:
        there.dispose()
    summary = [(r["name"], r["place"], r["matchpoints"], r["imps"]) for r in rows]
    assert [
        (r["name"], r["place"], r["matchpoints"], r["imps"]) for r in remote_results["standings"]["rows"]
    ] == summary


def test_a_swiss_evening_pairs_the_winners(client: TestClient, club: Club) -> None:
    """Without boards: tables deal their own cards (here recorded games), a win is a point, and Swiss round 2
    pairs the two winners (the Monrad rule: first against the best-ranked not met)."""
    players = ["Emma", "Lukas", "Hanna", "Elias"]
    event = create_event(
        client,
        club,
        name="Swiss",
        game="schnapsen",
        players=players,
        movement="swiss",
        rounds=2,
        options={"first_dealer": 1},
    )
    assert event["scoring"] == "wins" and len(event["rounds"]) == 1
    event = start(client, club, event["id"], 1)
    tables = event["rounds"][0]["tables"]
    assert [t["players"] for t in tables] == [["Emma", "Lukas"], ["Hanna", "Elias"]]
    early = client.post(f"/v1/events/{event['id']}/rounds", headers=club.recorder)
    error_of(early, 422, "impossible")  # round 1 is still being played
    for table, name in zip(tables, ("schnapsen-9001.json", "schnapsen-9002.json"), strict=True):
        append(client, club, table["game_id"], load_example(name)["events"])
    results = client.get(f"/v1/events/{event['id']}/results", headers=club.viewer).json()
    rows = results["standings"]["rows"]
    winners = {r["name"] for r in rows if r["wins"] == 1}
    assert len(winners) == 2 and [r["place"] for r in rows] == [1, 2, 3, 4]
    assert all(len(r["cells"]) == 1 and r["cells"][0]["game_id"] in {t["game_id"] for t in tables} for r in rows)
    paired = client.post(f"/v1/events/{event['id']}/rounds", headers=club.recorder)
    assert paired.status_code == 201, paired.text
    second = paired.json()["rounds"][1]["tables"]
    assert set(second[0]["players"]) == winners  # the leader plays the next best-ranked they have not met
    assert paired.json()["met_most"] == 1


def test_a_free_event_takes_a_game_recorded_before_with_its_labels(client: TestClient, club: Club) -> None:
    example = load_example("schnapsen-9001.json")
    old = client.post(
        "/v1/games",
        json={
            "game": "schnapsen",
            "players": example["players"],
            "options": example["options"],
            "event": "Old night",
            "round": "1",
        },
        headers=club.recorder,
    ).json()["id"]
    append(client, club, old, example["events"])
    event = create_event(client, club, name="Old night", game="schnapsen", players=example["players"], movement="free")
    attached = client.post(
        f"/v1/events/{event['id']}/tables", json={"game_id": old, "round": 1, "table": 1}, headers=club.recorder
    )
    assert attached.status_code == 200, attached.text
    assert attached.json()["rounds"][0]["tables"][0]["game_id"] == old
    twice = client.post(
        f"/v1/events/{event['id']}/tables", json={"game_id": old, "round": 1, "table": 2}, headers=club.recorder
    )
    error_of(twice, 422, "impossible")
    assert client.get(f"/v1/games/{old}", headers=club.viewer).json()["event"] == "Old night"  # the label stays
    rows = client.get(f"/v1/events/{event['id']}/results", headers=club.viewer).json()["standings"]["rows"]
    assert sorted(r["wins"] for r in rows) == [0.0, 1.0]


def test_bad_events_are_refused_and_write_nothing(client: TestClient, club: Club) -> None:
    base = {"name": "x", "game": "schnapsen", "players": PLAYERS}
    cases = [
        ({**base, "game": "bridge"}, "invalid"),
        ({**base, "seats": 3}, "invalid"),
        ({**base, "players": ["A", "A", "B", "C"]}, "invalid"),
        ({**base, "movement": "howell"}, "invalid"),
        ({**base, "movement": "swiss", "seats": 3, "game": "casino"}, "invalid"),
        ({**base, "boards": 2, "scoring": "wins"}, "invalid"),
        ({**base, "boards": 99}, "invalid"),
        ({**base, "options": {"first_dealer": 7}}, "invalid"),
        ({**base, "rounds": 0}, "invalid"),
        ({**base, "extra": 1}, "invalid"),
    ]
    for body, code in cases:
        error_of(client.post("/v1/events", json=body, headers=club.recorder), 422, code)
    error_of(client.post("/v1/events", json=base, headers=club.viewer), 403, "forbidden")
    assert client.get("/v1/events", headers=club.recorder).json()["events"] == []
    error_of(client.get("/v1/events/enope", headers=club.viewer), 404, "not_found")
    error_of(client.post("/v1/import/event", content=b"{}", headers=club.recorder), 422, "invalid")
    error_of(client.post("/v1/import/event", content=b"not json", headers=club.recorder), 422, "invalid")
    fmt = {"format": "tablebook-event-v1"}
    for odd in ([], {**fmt, "games": [1]}, {**fmt, "games": [], "board_set": 5}, {**fmt, "games": []}):
        error_of(client.post("/v1/import/event", content=orjson.dumps(odd), headers=club.recorder), 422, "invalid")
    made = create_event(client, club, **base)
    error_of(client.post(f"/v1/events/{made['id']}/rounds/9/start", headers=club.recorder), 404, "not_found")
    error_of(client.post(f"/v1/events/{made['id']}/rounds", headers=club.recorder), 422, "impossible")
    error_of(
        client.post(f"/v1/events/{made['id']}/seeds", json={"seed": "x"}, headers=club.recorder), 422, "impossible"
    )
    error_of(client.get(f"/v1/events/{made['id']}", headers=make_club_headers(client)), 401, "unauthorized")


def make_club_headers(client: TestClient) -> dict[str, str]:
    return {"Authorization": "Bearer tb_nope"}
