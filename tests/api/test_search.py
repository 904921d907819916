"""Search by situation (`GET /v1/games?has=`), served by the hand-facts read model, on SQLite and PostgreSQL."""

from __future__ import annotations

import random
from typing import Any

from fastapi.testclient import TestClient

from events.store import Store
from projections.core.registry import rules_for
from projections.core.simulate import play
from projections.readmodels.hand_facts import KNOWN, HandFacts
from tests.api.helpers import CLOSE, DEAL, MARRIAGE, append, schnapsen, search
from tests.conftest import BOTH, Club, make_club, new_game

#: PostgreSQL on the session's own server: these tests read the log below the transaction-id horizon
#: (tests/conftest.py `store_url`), which open transactions elsewhere on a shared server hold back
OWN_SERVER = True

#: both stores (tests/conftest.py `stores_of`):
#: the hand facts are each store's read model
STORES = BOTH


def ids(page: dict[str, Any]) -> list[str]:
    return [g["id"] for g in page["games"]]


def test_has_finds_the_games_and_names_the_hand_and_seq(client: TestClient, store: Store) -> None:
    club = make_club(store)
    married = schnapsen(client, club, ["Anna", "Ben"], [DEAL, MARRIAGE])
    closed = schnapsen(client, club, ["Anna", "Cleo"], [DEAL, CLOSE])
    plain = schnapsen(client, club, ["Dora", "Ben"], [DEAL])
    page = search(client, club, "has=marriage")
    assert ids(page) == [married]
    assert page["games"][0]["hits"] == [{"hand": 1, "seq": 2, "situation": "marriage", "seat": 0}]
    assert ids(search(client, club, "has=close")) == [closed]
    assert search(client, club, "has=close")["games"][0]["hits"] == [
        {"hand": 1, "seq": 2, "situation": "close", "seat": 0}
    ]
    assert search(client, club, "has=gin")["games"] == []
    listed = search(client, club, "limit=10")["games"]
    assert sorted(g["id"] for g in listed) == sorted([married, closed, plain]) and all("hits" not in g for g in listed)


def test_has_combines_with_the_other_filters_and_with_itself(client: TestClient, store: Store) -> None:
    club = make_club(store)
    both = schnapsen(client, club, ["Anna", "Ben"], [DEAL, CLOSE, {**MARRIAGE}])
    married = schnapsen(client, club, ["Cleo", "Ben"], [DEAL, MARRIAGE])
    assert sorted(ids(search(client, club, "has=marriage"))) == sorted([both, married])
    assert ids(search(client, club, "has=marriage&has=close")) == [both]
    assert ids(search(client, club, "has=marriage,close")) == [both]
    page = search(client, club, "has=marriage,close")
    assert [h["situation"] for h in page["games"][0]["hits"]] == ["close", "marriage"]
    assert ids(search(client, club, "has=marriage&player=Cleo")) == [married]
    assert ids(search(client, club, "has=marriage&game=casino")) == []
    assert sorted(ids(search(client, club, "has=marriage&status=live"))) == sorted([both, married])
    assert ids(search(client, club, "has=marriage&status=finished")) == []
    assert ids(search(client, club, "has=marriage&since=2999-01-01")) == []


def test_has_pages_with_the_cursor(client: TestClient, store: Store) -> None:
    club = make_club(store)
    made = [schnapsen(client, club, ["Anna", f"B{i}"], [DEAL, MARRIAGE]) for i in range(5)]
    page = search(client, club, "has=marriage&limit=2")
    seen = ids(page)
    while page["next_cursor"]:
        page = search(client, club, f"has=marriage&limit=2&cursor={page['next_cursor']}")
        seen += ids(page)
    assert seen == list(reversed(made))  # newest first, each once


def test_search_sees_an_event_appended_just_before(client: TestClient, store: Store) -> None:
    club = make_club(store)
    game_id = schnapsen(client, club, ["Anna", "Ben"], [DEAL])
    assert ids(search(client, club, "has=marriage")) == []
    append(client, club, game_id, [MARRIAGE])
    assert ids(search(client, club, "has=marriage")) == [game_id]
    assert HandFacts(store).behind() == 0


def test_a_retracted_situation_is_no_longer_found(client: TestClient, store: Store) -> None:
    club = make_club(store)
    game_id = schnapsen(client, club, ["Anna", "Ben"], [DEAL, MARRIAGE])
    assert ids(search(client, club, "has=marriage")) == [game_id]
    append(client, club, game_id, [{"type": "retract", "to_seq": 1, "reason": "it was the queen"}])
    assert ids(search(client, club, "has=marriage")) == []


def test_another_clubs_games_are_never_found(client: TestClient, club: Club, other_club: Club) -> None:
    schnapsen(client, club, ["Anna", "Ben"], [DEAL, MARRIAGE])
    assert search(client, other_club, "has=marriage")["games"] == []


def test_an_unknown_situation_is_refused_with_the_known_ones(client: TestClient, club: Club) -> None:
    response = client.get("/v1/games?has=swep", headers=club.viewer)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "invalid" and error["field"] == "has" and "'swep'" in error["message"]
    assert all(tag in error["message"] for tag in ("sweep", "gin", "undercut", "bust", "failed_bid"))
    assert error["known"] == sorted(KNOWN)
    assert {"sweep", "undercut", "gin", "close", "marriage", "bust", "failed_bid"} <= KNOWN


def test_a_casino_sweep_hit_is_the_sweeping_capture(client: TestClient, store: Store) -> None:
    club = make_club(store)
    rules = rules_for("casino")
    playout = play(rules, ["A", "B", "C"], {}, rng=random.Random(178), max_events=600)
    game_id: str = new_game(client, club, "casino", ["A", "B", "C"])["id"]
    append(client, club, game_id, list(playout.events))
    (game,) = search(client, club, "has=sweep")["games"]
    events = client.get(f"/v1/games/{game_id}/events?after=47&limit=1", headers=club.recorder).json()["events"]
    assert game["hits"] == [
        {"hand": events[0]["hand"], "seq": 48, "situation": "sweep", "seat": events[0]["data"]["seat"]}
    ]
