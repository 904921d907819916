"""Player names are normalised where they come in: no spaces around, each run of whitespace inside one space.

`" Anna  Lee\\n"` was stored as given and then could not be found by `?player=Anna Lee` or
`/v1/players?name=`; now every way a name comes in (a game's players, a new player and their aliases, a
rename, a merge's target, the name filters) keeps or looks for `"Anna Lee"`, and a name that is empty
once normalised is a 422 `invalid` naming its field, on both stores.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from events.store import Store
from tests.conftest import BOTH, Club, error_of, make_club, new_game

#: both stores (tests/conftest.py `stores_of`):
#: names are matched in each store's SQL
STORES = BOTH


def players_named(client: TestClient, club: Club, name: str) -> list[dict[str, Any]]:
    response = client.get("/v1/players", params={"name": name}, headers=club.recorder)
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()["players"]
    return found


def games_of(client: TestClient, club: Club, player: str) -> list[str]:
    response = client.get("/v1/games", params={"player": player}, headers=club.recorder)
    assert response.status_code == 200, response.text
    return [g["id"] for g in response.json()["games"]]


def test_a_games_players_are_kept_normalised_and_found_by_any_spelling_of_their_spaces(
    client: TestClient, club: Club
) -> None:

    game = new_game(client, club, players=[" Anna \t Lee\n", "\u00a0Ben  "])
    assert game["players"] == ["Anna Lee", "Ben"]
    assert client.get(f"/v1/games/{game['id']}", headers=club.recorder).json()["players"] == ["Anna Lee", "Ben"]
    for spelling in ("Anna Lee", "  anna   lee ", "ANNA\nLEE", "Anna\tLee"):
        assert games_of(client, club, spelling) == [game["id"]], spelling
        assert [p["name"] for p in players_named(client, club, spelling)] == ["Anna Lee"], spelling
    again = new_game(client, club, players=["anna lee", "Ben"])  # the same players, found by name
    seats = client.get(f"/v1/games/{again['id']}/state", headers=club.recorder).json()["seats"]
    assert [s["name"] for s in seats] == ["anna lee", "Ben"]
    assert len(players_named(client, club, "Anna Lee")) == 1
    assert games_of(client, club, "Anna Lee") == [again["id"], game["id"]]


def test_a_new_player_a_rename_and_a_merge_keep_their_names_normalised(client: TestClient, club: Club) -> None:
    made = client.post(
        "/v1/players", json={"name": "  Cleo \n M. ", "aliases": [" Clee ", "clee", "Cleo   m."]}, headers=club.recorder
    )
    assert made.status_code == 201, made.text
    assert (made.json()["name"], made.json()["aliases"]) == ("Cleo M.", ["Clee"])
    renamed = client.patch(f"/v1/players/{made.json()['id']}", json={"name": "\tDora\t\tK "}, headers=club.recorder)
    assert renamed.status_code == 200, renamed.text
    assert (renamed.json()["name"], renamed.json()["aliases"]) == ("Dora K", ["Clee", "Cleo M."])
    assert [p["id"] for p in players_named(client, club, " dora  k ")] == [made.json()["id"]]
    other = client.post("/v1/players", json={"name": "Dora Kay"}, headers=club.recorder).json()
    merged = client.post(f"/v1/players/{other['id']}/merge", json={"into": "  Dora \n K"}, headers=club.recorder)
    assert merged.status_code == 200, merged.text
    assert merged.json()["id"] == made.json()["id"] and "Dora Kay" in merged.json()["aliases"]


@pytest.mark.parametrize("blank", ["   ", "\n\t", "\u00a0 \u2003"])
def test_a_name_empty_once_normalised_is_refused_naming_its_field(client: TestClient, club: Club, blank: str) -> None:
    player = client.post("/v1/players", json={"name": "Eve"}, headers=club.recorder).json()
    before = (client.get("/v1/games", headers=club.recorder).json(), players_named(client, club, "Eve"))
    ref = player["id"]
    refused = [
        ("post", "/v1/players", {"name": blank}, None, "name"),
        ("post", "/v1/players", {"name": "Fay", "aliases": ["Fee", blank]}, None, "aliases.1"),
        ("patch", f"/v1/players/{ref}", {"name": blank}, None, "name"),
        ("post", f"/v1/players/{ref}/merge", {"into": blank}, None, "into"),
        ("post", "/v1/games", {"game": "schnapsen", "players": ["Al", blank]}, None, "players.1"),
        ("get", "/v1/games", None, {"player": blank}, "player"),
        ("get", "/v1/players", None, {"name": blank}, "name"),
    ]
    for method, target, body, query, field in refused:
        response = client.request(method, target, json=body, params=query, headers=club.recorder)
        assert error_of(response, 422, "invalid")["field"] == field, response.text
    assert (client.get("/v1/games", headers=club.recorder).json(), players_named(client, club, "Eve")) == before
    assert players_named(client, club, "Fay") == []


def test_names_stored_before_they_were_normalised_are_found_normalised(
    client: TestClient, club: Club, store: Store
) -> None:
    """A game imported as exported (names as written, `  Eve  Ray `) is found by `Eve Ray`, and its
    player by name: the search compares both sides normalised."""
    game = new_game(client, club, players=["Zed", "Bo"])
    exported = client.get(f"/v1/games/{game['id']}/export", params={"format": "json"}, headers=club.recorder).json()
    exported["players"] = ["  Eve  Ray ", "Bo"]
    theirs = make_club(store)
    imported = client.post(
        "/v1/import",
        content=orjson.dumps(exported),
        headers={**theirs.recorder, "Content-Type": "application/json"},
    )
    assert imported.status_code == 201, imported.text
    new_id = imported.json()["game"]["id"]
    assert games_of(client, theirs, "eve ray") == [new_id]
    assert len(players_named(client, theirs, "Eve Ray")) == 1


def test_the_store_keeps_the_names_it_is_given_normalised(store: Store) -> None:
    """`tablebook players add` and `rename` reach the store without the API: it normalises too."""
    club_id = store.ensure_club(make_club(store).name)
    made = store.players.create_player(club_id, " Gil \n Ode ", [" G.O. ", "g.o.", "gil ode"])
    assert (made.name, made.aliases) == ("Gil Ode", ("G.O.",))
    renamed = store.players.rename(made.id, "  Gil   Oder\t", club_id=club_id)
    assert (renamed.name, renamed.aliases) == ("Gil Oder", ("G.O.", "Gil Ode"))
    assert [p.id for p in store.players.find_players(club_id, "GIL  ODER")] == [made.id]


def test_an_imported_record_keeps_its_names_normalised(client: TestClient, club: Club) -> None:
    game = new_game(client, club, players=["Anna Lee", "Ben"])
    export = client.get(f"/v1/games/{game['id']}/export", params={"format": "json"}, headers=club.recorder)
    doc = orjson.loads(export.content)
    doc["players"] = ["  Anna \n Lee ", "Ben\t"]
    imported = client.post(
        "/v1/import",
        params={"copy": "true"},
        content=orjson.dumps(doc),
        headers={**club.recorder, "Content-Type": "application/json"},
    )
    assert imported.status_code == 201, imported.text
    assert imported.json()["game"]["players"] == ["Anna Lee", "Ben"]
    found = client.get("/v1/games", params={"player": "anna lee"}, headers=club.recorder).json()["games"]
    assert imported.json()["game"]["id"] in {g["id"] for g in found}
