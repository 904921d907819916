"""Players as records (issue 20), on SQLite and PostgreSQL: identity, filters, rename, merge, erasure
seen by another process at once, `has=` restricted to a player's own situations, the player page's
data and the standings."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from api.service import Tablebook
from api.settings import Settings
from events.store import Store
from tests.api.helpers import DEAL, MARRIAGE, schnapsen, search
from tests.conftest import BOTH, Club, error_of, new_game

#: both stores (tests/conftest.py `stores_of`):
#: names are matched in each store's SQL
STORES = BOTH
#: `has=` with a player reads the hand facts, which follow the log below PostgreSQL's transaction-id horizon:
#: on a shared server another run's open transaction would hold a just-recorded marriage back
OWN_SERVER = True


@pytest.fixture
def other_process(store: Store) -> Iterator[TestClient]:
    """A second server process on the same database: its own store, engine and state cache."""
    second = Store(store.url)
    app = create_app(Settings(database_url=store.url), second)
    with TestClient(app) as c:
        yield c
    second.dispose()


def _players(client: TestClient, club: Club, query: str = "") -> list[dict[str, Any]]:
    response = client.get(f"/v1/players{query}", headers=club.viewer)
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()["players"]
    return found


def _names(client: TestClient, club: Club, game_id: str) -> list[str]:
    response = client.get(f"/v1/games/{game_id}", headers=club.viewer)
    assert response.status_code == 200, response.text
    names: list[str] = response.json()["players"]
    return names


def test_a_game_names_players_who_become_records_found_by_name_in_any_case(client: TestClient, club: Club) -> None:
    first = new_game(client, club, players=["Anna", "Ben"])
    second = new_game(client, club, players=["anna", "Cleo"])
    players = _players(client, club)
    assert [p["name"] for p in players] == ["Anna", "Ben", "Cleo"]  # "anna" is Anna
    anna = players[0]["id"]
    for query in ("player=ANNA", "player=anna", f"player_id={anna}"):
        ids = {g["id"] for g in search(client, club, query)["games"]}
        assert ids == {first["id"], second["id"]}, query
    assert {g["id"] for g in search(client, club, "player=cleo")["games"]} == {second["id"]}
    assert search(client, club, "player=Dora")["games"] == []


def test_a_rename_shows_at_once_in_every_process_and_the_old_name_still_finds_the_player(
    client: TestClient, other_process: TestClient, club: Club
) -> None:
    game = new_game(client, club, players=["Anna", "Ben"])
    assert _names(other_process, club, game["id"]) == ["Anna", "Ben"]  # the other process has it cached now
    anna = _players(client, club, "?name=anna")[0]["id"]
    response = client.patch(f"/v1/players/{anna}", json={"name": "Anna M."}, headers=club.recorder)
    assert response.status_code == 200, response.text
    assert response.json()["aliases"] == ["Anna"]
    assert _names(other_process, club, game["id"]) == ["Anna M.", "Ben"]
    state = other_process.get(f"/v1/games/{game['id']}/state", headers=club.viewer).json()
    assert [s["name"] for s in state["seats"]] == ["Anna M.", "Ben"]
    assert [g["id"] for g in search(other_process, club, "player=anna")["games"]] == [game["id"]]
    viewer = client.patch(f"/v1/players/{anna}", json={"name": "X"}, headers=club.viewer)
    assert viewer.status_code == 403


def test_merging_two_players_moves_the_games_and_names(client: TestClient, club: Club) -> None:
    one = new_game(client, club, players=["Ben", "Anna"])
    two = new_game(client, club, players=["Ben K.", "Cleo"])
    response = client.post("/v1/players/Ben K./merge", json={"into": "ben"}, headers=club.recorder)
    assert response.status_code == 200, response.text
    merged = response.json()
    assert merged["name"] == "Ben" and merged["aliases"] == ["Ben K."]
    assert _names(client, club, two["id"]) == ["Ben", "Cleo"]
    ids = {g["id"] for g in search(client, club, f"player_id={merged['id']}")["games"]}
    assert ids == {one["id"], two["id"]}
    assert [p["name"] for p in _players(client, club)] == ["Ben", "Anna", "Cleo"]
    # two people who sat at one table are not one player
    refused = client.post("/v1/players/Anna/merge", json={"into": "Ben"}, headers=club.recorder)
    assert refused.status_code == 422 and refused.json()["error"]["code"] == "invalid"


def test_an_erased_player_is_gone_everywhere_at_once_and_the_chains_still_verify(
    client: TestClient, other_process: TestClient, club: Club
) -> None:
    game = {"id": schnapsen(client, club, ["Anna", "Ben"], [DEAL, MARRIAGE])}
    other = new_game(client, club, players=["Cleo", "Anna"])
    assert _names(other_process, club, other["id"]) == ["Cleo", "Anna"]
    anna = _players(client, club, "?name=Anna")[0]["id"]
    response = client.delete(f"/v1/players/{anna}", headers=club.recorder)
    assert response.status_code == 200, response.text
    assert sorted(response.json()["games"]) == sorted([game["id"], other["id"]])
    for process in (client, other_process):
        assert _names(process, club, game["id"]) == ["(erased)", "Ben"]
        assert _names(process, club, other["id"]) == ["Cleo", "(erased)"]
        text = process.get(f"/v1/games/{game['id']}/export?format=text", headers=club.viewer).text
        assert "Anna" not in text
        assert _players(process, club, "?name=anna") == []
        page = process.get(f"/v1/players/{anna}", headers=club.viewer).json()
        assert page["player"]["name"] == "(erased)" and page["player"]["erased"] is True
        verified = process.get(f"/v1/games/{game['id']}/verify", headers=club.viewer).json()
        assert verified["ok"] is True
    assert search(client, club, "player=anna")["games"] == []


def test_has_with_a_player_counts_only_that_players_own_situations(client: TestClient, club: Club) -> None:
    annas = {"id": schnapsen(client, club, ["Anna", "Ben"], [DEAL, MARRIAGE])}  # seat 0 declares it: Anna
    bens = {"id": schnapsen(client, club, ["Ben", "Anna"], [DEAL, MARRIAGE])}  # seat 0 is Ben here
    found = search(client, club, "has=marriage&player=anna")["games"]
    assert [g["id"] for g in found] == [annas["id"]]
    assert {h["seat"] for h in found[0]["hits"]} == {0}
    assert [g["id"] for g in search(client, club, "has=marriage&player=BEN")["games"]] == [bens["id"]]
    assert {g["id"] for g in search(client, club, "has=marriage")["games"]} == {annas["id"], bens["id"]}


def _demo_games(store: Store, club: Club, kind: str, count: int) -> list[str]:
    service = Tablebook.open(store)
    club_id = store.ensure_club(club.name)
    rng = random.Random(11)
    return [service.record_demo_game(club_id, kind, rng) for _ in range(count)]


def test_the_player_page_has_statistics_ratings_and_an_explained_history(
    client: TestClient, store: Store, club: Club
) -> None:
    ids = _demo_games(store, club, "schnapsen", 3)
    games = [store.get_game(g) for g in ids]
    anna = _players(client, club, "?name=Anna")[0]
    page = client.get(f"/v1/players/{anna['id']}", headers=club.viewer).json()
    stats = page["statistics"]["schnapsen"]
    seat = {g.id: g.players.index("Anna") for g in games}
    assert stats["games"] == 3 and stats["finished"] == 3
    assert stats["wins"] == sum(1 for g in games if g.winner == seat[g.id])
    # Schnapsen's points are the game points won (7 less what its sheet has still to go), more being better
    assert stats["points"] == sum(7 - int(g.totals[str(seat[g.id])]) for g in games)
    marriages = sum(
        1 for row in store.hand_fact_rows(ids) if row["situation"] == "marriage" and row["seat"] == seat[row["game_id"]]
    )
    assert stats["marriages"] == marriages
    rating = page["ratings"]["schnapsen"]
    assert rating["results"] == 3 and rating["provisional"] is True and rating["text"].endswith("?")
    history = page["history"]
    assert [h["game_id"] for h in history] == [g.id for g in sorted(games, key=lambda g: g.created_at)]
    for h in history:
        assert h["change"] == pytest.approx(h["after"]["mu"] - h["before"]["mu"], abs=2e-3)
        assert h["opponents"][0]["name"] == "Ben" and "against Ben" in h["reason"]
        assert ("won" in h["reason"]) == (h["actual"] == 1)
    assert {g["id"] for g in page["games"]} == set(ids)
    assert all(g["won"] == (g["winner"] == g["seat"]) for g in page["games"])


def test_standings_rank_the_club_by_rating_over_a_range_and_by_event(
    client: TestClient, store: Store, club: Club
) -> None:
    ids = _demo_games(store, club, "casino", 2)
    store.registry.set_labels(ids[0], {"event": "Winter league"})
    response = client.get("/v1/standings?game=casino", headers=club.viewer)
    assert response.status_code == 200, response.text
    table = response.json()["pools"]["casino"]["standings"]
    assert [r["place"] for r in table] == list(range(1, len(table) + 1))
    assert {r["name"] for r in table} == set(store.get_game(ids[0]).players)
    assert all(r["results"] == 2 and r["games"] == 2 for r in table)
    ordinals = [r["rating"]["ordinal"] for r in table]
    assert ordinals == sorted(ordinals, reverse=True)
    league = client.get("/v1/standings?game=casino&event=Winter league", headers=club.viewer).json()
    assert all(r["results"] == 1 for r in league["pools"]["casino"]["standings"])
    later = client.get("/v1/standings?game=casino&since=2999-01-01", headers=club.viewer).json()
    assert later["pools"]["casino"]["standings"] == []


# --------------------------------------------------------------------------- the OpenAPI document of these routes

PLAYER_ROUTES = {
    ("get", "/v1/players"): ("200", {"players"}),
    ("post", "/v1/players"): ("201", {"id", "name", "aliases", "created_at", "merged_into", "erased"}),
    ("get", "/v1/players/{ref}"): ("200", {"player", "statistics", "ratings", "history", "games", "games_total"}),
    ("patch", "/v1/players/{ref}"): ("200", {"id", "name", "aliases"}),
    ("post", "/v1/players/{ref}/merge"): ("200", {"id", "name", "aliases", "merged_into"}),
    ("delete", "/v1/players/{ref}"): ("200", {"player", "games", "mentions"}),
    ("get", "/v1/standings"): ("200", {"game", "range", "model", "pools"}),
}


def _resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def _validator(spec: dict[str, Any], schema: dict[str, Any]) -> Any:
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator({**schema, "components": spec["components"]})


def test_the_openapi_document_names_the_fields_of_the_player_and_standings_routes(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    for (method, path), (status, fields) in PLAYER_ROUTES.items():
        answer = spec["paths"][path][method]["responses"][status]["content"]["application/json"]["schema"]
        model = _resolve(spec, answer)
        assert fields <= set(model.get("properties", {})), (method, path, model)
    # the nested documents are typed too, down to a rating and a leaderboard's row
    schemas = spec["components"]["schemas"]
    profile = schemas["PlayerProfile"]["properties"]
    assert _resolve(spec, profile["ratings"]["additionalProperties"])["required"] == [
        "mu",
        "sigma",
        "ordinal",
        "provisional",
        "results",
        "text",
    ]
    statistics = _resolve(spec, profile["statistics"]["additionalProperties"])["properties"]
    assert {"games", "finished", "wins", "points", "marriages", "gins", "sweeps", "bids_set", "busts"} <= set(
        statistics
    )
    change = _resolve(spec, profile["history"]["items"])["properties"]
    assert {"before", "after", "expected", "actual", "change", "reason", "opponents"} <= set(change)
    assert "copy_of" in _resolve(spec, profile["games"]["items"])["properties"]
    pool = _resolve(spec, schemas["Standings"]["properties"]["pools"]["additionalProperties"])
    row = _resolve(spec, pool["properties"]["standings"]["items"])
    assert {"place", "player_id", "name", "rating", "change", "results", "score", "expected"} <= set(row["properties"])
    # request bodies name their fields, with examples
    for method, path, body, required in (
        ("post", "/v1/players", "PlayerCreate", "name"),
        ("patch", "/v1/players/{ref}", "PlayerRename", "name"),
        ("post", "/v1/players/{ref}/merge", "PlayerMerge", "into"),
    ):
        content = spec["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]
        assert content == {"$ref": f"#/components/schemas/{body}"}
        assert schemas[body]["required"] == [required] and schemas[body]["properties"][required]["examples"]
        assert schemas[body]["additionalProperties"] is False


def test_the_player_routes_errors_have_the_documented_shape(client: TestClient, club: Club) -> None:
    spec = client.get("/openapi.json").json()

    def refused(method: str, path: str, url: str, status: int, code: str, **kw: Any) -> dict[str, Any]:
        response = client.request(method.upper(), url, **kw)
        error = error_of(response, status, code)
        documented = spec["paths"][path][method]["responses"][str(status)]["content"]["application/json"]["schema"]
        problems = [e.message for e in _validator(spec, documented).iter_errors(response.json())]
        assert not problems, (method, url, problems)
        return error

    new_game(client, club, players=["Anna", "Ben"])
    ben = _players(client, club, "?name=ben")[0]["id"]
    refused("get", "/v1/players/{ref}", "/v1/players/nobody", 404, "not_found", headers=club.viewer)
    refused(
        "patch", "/v1/players/{ref}", "/v1/players/nobody", 404, "not_found", headers=club.recorder, json={"name": "X"}
    )
    refused("delete", "/v1/players/{ref}", "/v1/players/nobody", 404, "not_found", headers=club.recorder)
    merge = "/v1/players/{ref}/merge"
    refused("post", merge, "/v1/players/nobody/merge", 404, "not_found", headers=club.recorder, json={"into": ben})
    refused("post", merge, f"/v1/players/{ben}/merge", 404, "not_found", headers=club.recorder, json={"into": "nobody"})
    itself = refused(
        "post", merge, f"/v1/players/{ben}/merge", 422, "invalid", headers=club.recorder, json={"into": ben}
    )
    assert itself["field"] == "into"
    together = refused(
        "post", merge, "/v1/players/Anna/merge", 422, "invalid", headers=club.recorder, json={"into": "Ben"}
    )
    assert together["field"] == "into" and len(together["games"]) == 1
    refused("post", merge, "/v1/players/Anna/merge", 422, "invalid", headers=club.recorder, json={"to": "Ben"})
    refused("post", merge, "/v1/players/Anna/merge", 403, "forbidden", headers=club.viewer, json={"into": "Ben"})
    refused("post", "/v1/players", "/v1/players", 422, "invalid", headers=club.recorder, json={"name": ""})
    refused("get", "/v1/standings", "/v1/standings?game=chess", 422, "invalid", headers=club.viewer)
    refused("get", "/v1/players", "/v1/players", 401, "unauthorized")
    # a name two players have is refused (422, naming both) rather than guessed
    client.post("/v1/players", json={"name": "anna"}, headers=club.recorder)
    twice = refused("get", "/v1/players/{ref}", "/v1/players/ANNA", 422, "invalid", headers=club.viewer)
    assert "anna" in twice["message"].casefold()
    # and the answers are the documented ones: the merge happened nowhere (nothing written by a refusal)
    assert sorted(p["name"] for p in _players(client, club)) == ["Anna", "Ben", "anna"]
    page = client.get(f"/v1/players/{ben}", headers=club.viewer)
    documented = spec["paths"]["/v1/players/{ref}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert not [e.message for e in _validator(spec, documented).iter_errors(page.json())]
