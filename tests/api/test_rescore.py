"""The routes of issue 21: `GET /v1/games/rules`, rule profiles, `POST /v1/games/{id}/rescore`, `POST /v1/rescore`.

Each test records through the API and checks the answer against what the rules say (the kinds of the
options, the divergence seq of a crafted record, the lines a scoring option changes), and that a
re-score writes nothing: the game's events, head and verification are the same before and after.
"""

from __future__ import annotations

import secrets
from typing import Any

import orjson
from fastapi.testclient import TestClient

from projections.core.registry import KINDS, rules_for
from tests.conftest import Club, error_of, make_club, new_game
from tests.projections.helpers import CASINO_DEAL, GIN_DEAL, GIN_ROLES, RUN

GIN_HAND: list[dict[str, Any]] = [
    GIN_DEAL,
    {"type": "pass", "seat": 1},
    {"type": "pass", "seat": 0},
    {"type": "draw", "seat": 1, "source": "stock", "card": "KH"},
    {"type": "knock", "seat": 1, "discard": "KH", "melds": [RUN]},
    {"type": "lay_off", "seat": 0, "melds": [], "layoffs": []},
]


def _append(client: TestClient, club: Club, game_id: str, events: list[dict[str, Any]]) -> None:
    response = client.post(f"/v1/games/{game_id}/events", json={"events": events}, headers=club.recorder)
    assert response.status_code == 201, response.text


def _record(client: TestClient, club: Club) -> tuple[str, str]:
    """A Gin game with one gin (Jo, 85 points) and a Casino game whose first play is a trail."""
    gin = new_game(client, club, "gin-rummy-3", ["Ida", "Jo", "Kim"], GIN_ROLES)["id"]
    _append(client, club, gin, GIN_HAND)
    casino = new_game(client, club, "casino", ["Ann", "Ben"])["id"]
    _append(client, club, casino, [CASINO_DEAL, {"type": "trail", "seat": 1, "card": "7D"}])
    return gin, casino


def _record_state(client: TestClient, club: Club, game_id: str) -> tuple[Any, ...]:
    game = client.get(f"/v1/games/{game_id}", headers=club.recorder).json()
    events = client.get(f"/v1/games/{game_id}/events", headers=club.recorder).content
    verified = client.get(f"/v1/games/{game_id}/verify", headers=club.recorder).json()
    return game["seq"], game["totals"], game["updated_at"], events, verified["ok"], verified["head_hash"]


def test_the_rules_route_lists_every_game_with_its_options_and_their_kinds(client: TestClient, club: Club) -> None:
    response = client.get("/v1/games/rules", headers=club.viewer)
    assert response.status_code == 200, response.text
    games = {g["game"]: g for g in response.json()["games"]}
    assert set(games) == set(KINDS)
    for kind, doc in games.items():
        declared = rules_for(kind).options
        assert [o["name"] for o in doc["options"]] == list(declared)
        for option in doc["options"]:
            spec = declared[option["name"]]
            assert option["kind"] == ("scoring" if spec.scoring_only else "play")
            assert option["default"] == spec.default and option["help"] == spec.help
    gin = {o["name"]: o for o in games["gin-rummy-3"]["options"]}
    assert gin["gin_scoring"]["kind"] == "scoring" and gin["gin_scoring"]["values"]["choices"] == [
        "bonus_plus_deadwood",
        "flat",
    ]
    assert gin["undercut_bonus"]["values"] == {"type": "integer", "minimum": 0, "maximum": 100}
    assert gin["discard_taken_card"] == {**gin["discard_taken_card"], "kind": "play", "rule": "gin.discard_taken_card"}
    assert gin["first_roles"]["seating"] is True
    assert client.get("/v1/games/rules").status_code == 401


def test_profiles_are_stored_per_club_checked_and_the_default_is_built_in(client: TestClient, club: Club) -> None:
    body = {"name": "tuesday", "games": {"gin-rummy-3": {"undercut_bonus": 20}, "casino": {"sweeps": True}}}
    made = client.post("/v1/profiles", json=body, headers=club.recorder)
    assert made.status_code == 201, made.text
    assert made.json()["rules"]["gin-rummy-3"]["undercut_bonus"] == 20
    assert made.json()["rules"]["gin-rummy-3"]["gin_bonus"] == 25  # not named: its default
    again = client.post("/v1/profiles", json={**body, "games": {"casino": {"sweeps": True}}}, headers=club.auditor)
    assert again.status_code == 200 and again.json()["games"] == {"casino": {"sweeps": True}}
    listed = client.get("/v1/profiles", headers=club.viewer).json()["profiles"]
    assert [p["name"] for p in listed] == ["default", "tuesday"] and listed[0]["builtin"] is True
    assert client.get("/v1/profiles/default", headers=club.viewer).json()["games"] == {}
    error_of(client.post("/v1/profiles", json=body, headers=club.viewer), 403, "forbidden")
    error_of(client.post("/v1/profiles", json={"name": "default", "games": {}}, headers=club.recorder), 422, "invalid")
    error_of(client.post("/v1/profiles", json={"name": "a/b", "games": {}}, headers=club.recorder), 422, "invalid")
    seating = {"name": "x", "games": {"casino": {"first_dealer": 1}}}
    assert error_of(client.post("/v1/profiles", json=seating, headers=club.recorder), 422, "invalid")["field"] == (
        "games.casino.first_dealer"
    )
    error_of(
        client.post("/v1/profiles", json={"name": "x", "games": {"casino": {"sweeps": 3}}}, headers=club.recorder),
        422,
        "invalid",
    )
    error_of(
        client.post("/v1/profiles", json={"name": "x", "games": {"chess": {}}}, headers=club.recorder), 422, "invalid"
    )
    bets = {"name": "x", "games": {"seven-and-a-half": {"min_bet": 50, "max_bet": 10}}}
    error_of(client.post("/v1/profiles", json=bets, headers=club.recorder), 422, "invalid")
    other = make_club(client.app.state.service.store)  # type: ignore[attr-defined]
    error_of(client.get("/v1/profiles/tuesday", headers=other.recorder), 404, "not_found")
    assert client.delete("/v1/profiles/tuesday", headers=club.recorder).json() == {"deleted": "tuesday"}
    error_of(client.get("/v1/profiles/tuesday", headers=club.recorder), 404, "not_found")
    error_of(client.delete("/v1/profiles/default", headers=club.recorder), 422, "invalid")


def test_a_game_created_with_a_profile_takes_its_options_under_the_requests(client: TestClient, club: Club) -> None:
    profile = {"name": "house", "games": {"gin-rummy-3": {"undercut_bonus": 20, "gin_scoring": "flat"}}}
    assert client.post("/v1/profiles", json=profile, headers=club.recorder).status_code == 201
    body = {
        "game": "gin-rummy-3",
        "players": ["Ida", "Jo", "Kim"],
        "profile": "house",
        "options": {"gin_scoring": "bonus_plus_deadwood"},
    }
    created = client.post("/v1/games", json=body, headers=club.recorder)
    assert created.status_code == 201, created.text
    options = created.json()["options"]
    assert options["undercut_bonus"] == 20 and options["gin_scoring"] == "bonus_plus_deadwood"
    error_of(client.post("/v1/games", json={**body, "profile": "nope"}, headers=club.recorder), 404, "not_found")
    plain = client.post("/v1/games", json={**body, "profile": "default", "options": {}}, headers=club.recorder)
    assert plain.json()["options"]["undercut_bonus"] == 10


def test_a_scoring_rescore_lists_the_changed_lines_and_writes_nothing(client: TestClient, club: Club) -> None:
    gin, _ = _record(client, club)
    before = _record_state(client, club, gin)
    response = client.post(f"/v1/games/{gin}/rescore", json={"options": {"gin_scoring": "flat"}}, headers=club.viewer)
    assert response.status_code == 200, response.text
    doc = response.json()
    assert _record_state(client, club, gin) == before
    assert doc["mode"] == "scoring" and doc["divergence"] is None and doc["head"]["hash"] == before[-1]
    assert doc["totals"]["recorded"]["1"] == 85 and doc["totals"]["rescored"]["1"] == 25
    (line,) = doc["lines"]
    assert (line["rule"], line["seat"], line["change"]) == ("gin.gin_deadwood", 1, -60)
    assert "Jo" in line["after"]["reason"] and "{seat" not in doc["summary"]
    assert doc["options"]["changed"] == {
        "gin_scoring": {"from": "bonus_plus_deadwood", "to": "flat", "kind": "scoring"}
    }


def test_a_play_rescore_says_where_it_diverges(client: TestClient, club: Club) -> None:
    _, casino = _record(client, club)
    before = _record_state(client, club, casino)
    body = {"options": {"trail_only_when_forced": True}}
    doc = client.post(f"/v1/games/{casino}/rescore", json=body, headers=club.recorder).json()
    assert _record_state(client, club, casino) == before
    assert doc["mode"] == "play" and doc["upto"] == 1
    assert doc["divergence"]["text"] == "diverges at seq 2: rule casino.trail_when_able"
    assert doc["divergence"]["message"].startswith("Ben may not trail 7♦")


def test_a_rescore_under_a_profile_keeps_the_seating_of_the_record(client: TestClient, club: Club) -> None:
    gin, _ = _record(client, club)
    profile = {"name": f"p{secrets.token_hex(3)}", "games": {"gin-rummy-3": {"gin_scoring": "flat"}}}
    client.post("/v1/profiles", json=profile, headers=club.recorder)
    doc = client.post(f"/v1/games/{gin}/rescore", json={"profile": profile["name"]}, headers=club.recorder).json()
    assert doc["profile"] == profile["name"] and doc["options"]["rescored"]["first_roles"] == GIN_ROLES["first_roles"]
    assert doc["totals"]["rescored"]["1"] == 25
    same = client.post(f"/v1/games/{gin}/rescore", json={"profile": "default"}, headers=club.recorder).json()
    assert same["lines"] == [] and same["options"]["changed"] == {}


def test_rescore_refusals(client: TestClient, club: Club) -> None:
    gin, _ = _record(client, club)
    error_of(client.post(f"/v1/games/{gin}/rescore", json={}, headers=club.recorder), 422, "invalid")
    error_of(client.post(f"/v1/games/{gin}/rescore", headers=club.recorder), 422, "invalid")
    error_of(
        client.post(f"/v1/games/{gin}/rescore", json={"options": {"nope": 1}}, headers=club.recorder), 422, "invalid"
    )
    seat = {"options": {"first_roles": {"box": 1, "captain": 0, "sitter": 2}}}
    error_of(client.post(f"/v1/games/{gin}/rescore", json=seat, headers=club.recorder), 422, "invalid")
    error_of(client.post(f"/v1/games/{gin}/rescore", json={"profile": "nope"}, headers=club.recorder), 404, "not_found")
    other = make_club(client.app.state.service.store)  # type: ignore[attr-defined]
    error_of(
        client.post(f"/v1/games/{gin}/rescore", json={"options": {"gin_bonus": 20}}, headers=other.recorder),
        404,
        "not_found",
    )


def test_a_viewer_rescores_only_the_finished_hands(client: TestClient, club: Club) -> None:
    """A divergence inside the live hand would tell a viewer what a seat holds: a viewer's re-score stops
    before the live hand (and gives no hash over its cards)."""
    game = new_game(client, club, "gin-rummy-3", ["Ida", "Jo", "Kim"], GIN_ROLES)["id"]
    clubs = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC"]
    odd = ["3H", "5H", "7H", "9H", "JH", "3D", "5D", "7D", "9D", "JD"]
    live: list[
        dict[str, Any]
    ] = [  # hand 2: Jo is in the box (the box lost), Kim captain; Kim takes the upcard and throws it back
        {"type": "deal", "hands": {"1": clubs, "2": odd}, "upcard": "KD"},
        {"type": "draw", "seat": 2, "source": "discard", "card": "KD"},
        {"type": "discard", "seat": 2, "card": "KD"},
    ]
    _append(client, club, game, [*GIN_HAND, *live])
    body = {"options": {"gin_bonus": 20, "discard_taken_card": False}}
    viewer = client.post(f"/v1/games/{game}/rescore", json=body, headers=club.viewer).json()
    recorder = client.post(f"/v1/games/{game}/rescore", json=body, headers=club.recorder).json()
    assert recorder["divergence"]["text"] == f"diverges at seq {len(GIN_HAND) + 3}: rule gin.discard_taken_card"
    assert "K♦" in recorder["divergence"]["message"]
    assert viewer["divergence"] is None and viewer["upto"] == len(GIN_HAND)
    assert viewer["totals"]["rescored"]["1"] == 80  # the finished hand, re-scored: 20 + 60
    assert viewer["head"]["hash"] is None and recorder["head"]["hash"] is not None  # no hash over hidden cards
    shown = orjson.dumps(viewer).decode()
    assert not [card for card in (*clubs, *odd, "KD", "K♦") if card in shown]


def test_a_season_streams_each_game_and_the_standings_under_both_profiles(client: TestClient, club: Club) -> None:
    _record(client, club)
    client.post(
        "/v1/profiles", json={"name": "flat", "games": {"gin-rummy-3": {"gin_scoring": "flat"}}}, headers=club.recorder
    )
    response = client.post("/v1/rescore", json={"profile": "flat"}, headers=club.viewer, params={"game": "gin-rummy-3"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/x-ndjson")
    lines = [orjson.loads(line) for line in response.content.splitlines()]
    (game, season) = lines
    assert game["kind"] == "gin-rummy-3" and game["a"]["totals"]["1"] == 85 and game["b"]["totals"]["1"] == 25
    assert game["b"]["changed"] == ["gin_scoring"]
    assert season["season"]["games"] == 1 and season["season"]["labels"] == {"a": "recorded", "b": "flat"}
    assert {p["player"] for p in season["season"]["players"]} == {"Ida", "Jo", "Kim"}
    error_of(client.post("/v1/rescore", json={}, headers=club.recorder), 422, "invalid")
    error_of(client.post("/v1/rescore", json={"profile": "nope"}, headers=club.recorder), 404, "not_found")


def test_a_season_picks_its_games_with_the_filters_of_the_games_list(client: TestClient, club: Club) -> None:
    """`POST /v1/rescore` reads the query as `GET /v1/games` does (one declaration, `api.queries.game_filters`):
    a player by name in any case, an unknown kind or parameter refused before anything is read."""
    _record(client, club)
    client.post(
        "/v1/profiles", json={"name": "flat", "games": {"gin-rummy-3": {"gin_scoring": "flat"}}}, headers=club.recorder
    )
    for player in ("jo", "ANN", "Zed"):
        listed = client.get("/v1/games", params={"player": player}, headers=club.viewer).json()["games"]
        response = client.post("/v1/rescore", json={"profile": "flat"}, headers=club.viewer, params={"player": player})
        assert response.status_code == 200, response.text
        *games, season = [orjson.loads(line) for line in response.content.splitlines()]
        assert [g["game"] for g in games] == [g["id"] for g in listed]
        assert season["season"]["games"] == len(listed) == (0 if player == "Zed" else 1)
    for bad in ({"game": "go"}, {"plyer": "Jo"}):
        refused = client.post("/v1/rescore", json={"profile": "flat"}, headers=club.viewer, params=bad)
        assert error_of(refused, 422, "invalid")["field"] in ("game", "plyer")


def _cli() -> Any:
    """A `tablebook`-like app with the commands of api/cli/rescore.py registered (as api/cli/ registers them)."""
    import typer

    from api.cli import rescore as cli_rescore

    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Tablebook."""

    cli_rescore.register(app)
    return app


def test_the_cli_rescores_a_game_and_keeps_profiles(sqlite_url: str) -> None:
    from typer.testing import CliRunner

    from events.store import Store
    from projections.core.recorder import Recorder

    store = Store(sqlite_url)
    try:
        club = f"cli-{secrets.token_hex(3)}"
        recorder = Recorder(store)
        game = recorder.create_game(
            club_id=store.ensure_club(club), kind="gin-rummy-3", players=["Ida", "Jo", "Kim"], options=GIN_ROLES
        )
        recorder.append(game.id, GIN_HAND, club_id=game.club_id, actor="t")
        run = CliRunner().invoke
        app, db = _cli(), ["-d", sqlite_url]
        done = run(app, ["rescore", game.id, "-o", "gin_scoring=flat", *db])
        assert done.exit_code == 0, done.output
        assert "gin_scoring: bonus_plus_deadwood -> flat (scoring)" in done.output and "-60" in done.output
        as_json = run(app, ["rescore", game.id, "-o", "gin_scoring=flat", "--json", *db])
        assert orjson.loads(as_json.output)["totals"]["rescored"]["1"] == 25
        made = run(app, ["profiles", "set", "flat", "--club", club, "-o", "gin-rummy-3.gin_scoring=flat", *db])
        assert made.exit_code == 0 and "created profile flat" in made.output
        listed = run(app, ["profiles", "list", "--club", club, *db])
        assert "default" in listed.output and "gin_scoring=flat" in listed.output
        season = run(app, ["rescore-season", "--club", club, "--profile", "flat", "--json", *db])
        lines = [orjson.loads(line) for line in season.output.splitlines()]
        assert lines[0]["b"]["totals"]["1"] == 25 and lines[-1]["season"]["games"] == 1
        refused = run(app, ["rescore", game.id, "--profile", "nope", *db])
        assert refused.exit_code == 1 and "no rule profile 'nope'" in refused.output
        bad = run(app, ["rescore", game.id, "-o", "gin_scoring", *db])
        assert bad.exit_code == 1
        assert store.get_game(game.id).head_hash == game_head(store, game.id)
    finally:
        store.dispose()


def game_head(store: Any, game_id: str) -> str:
    """The hash of the last stored event: what the registry's head must still name."""
    head: str = store.read_events(game_id, 0)[-1]["hash"]
    return head
