"""A share token reads the eight routes docs/replay-page.md names for it, and no other: `/deals` is not one of them.

docs/replay-page.md: "A share token reads only its game and only these routes: `GET /v1/games/{id}`, `/hands`,
`/state`, `/replay`, `/score`, `/events` and `/stream`. Anything else is 403, and another game is 404."
`GET /v1/games/{id}/deals` answered a share token (a server-dealt game's commitments, seeds and checks);
every operation of the OpenAPI document is tried here with a token of a finished game.
"""

from __future__ import annotations

import random
from typing import Any

from fastapi.testclient import TestClient

from events.store import Store
from projections.core.recorder import Recorder
from projections.core.registry import rules_for
from projections.core.simulate import play
from tests.api.helpers import bearer, share
from tests.conftest import Club, error_of

#: docs/replay-page.md's list of a share token's routes
TOKEN_ROUTES = {
    "/v1/games/{game_id}",
    "/v1/games/{game_id}/hands",
    "/v1/games/{game_id}/state",
    "/v1/games/{game_id}/replay",
    "/v1/games/{game_id}/review",
    "/v1/games/{game_id}/score",
    "/v1/games/{game_id}/events",
    "/v1/games/{game_id}/stream",
}


def finished_game(store: Store, club: Club, options: dict[str, Any] | None = None) -> str:
    """A Schnapsen match played to its end (every hand over: a share token may read all of it)."""
    rules = rules_for("schnapsen")
    playout = play(rules, ["Anna", "Ben"], dict(options or {}), rng=random.Random(5))
    club_id = store.ensure_club(club.name)
    recorder = Recorder(store)
    game = recorder.create_game(club_id=club_id, kind="schnapsen", players=["Anna", "Ben"], options=options or {})
    recorder.append(game.id, list(playout.events), club_id=club_id, actor="test")
    return game.id


def test_a_share_token_reads_the_seven_routes_and_is_refused_everywhere_else(
    client: TestClient, club: Club, store: Store
) -> None:
    game_id = finished_game(store, club)
    token = bearer(share(client, club, game_id)["token"])
    document = client.get("/openapi.json").json()
    read: set[str] = set()
    refused: set[tuple[str, str]] = set()
    wrong: list[tuple[str, int]] = []
    for path, operations in document["paths"].items():
        for method in operations:
            target = path.format(game_id=game_id, share_id="x", ref="Anna", name="default", event_id="ex", number=1)
            params = (
                {"follow": "false"}
                if path.endswith("/stream")
                else {"hand": "1"}
                if path.endswith(("/replay", "/review"))
                else {}
            )
            response = client.request(method, target, params=params, headers=token)
            if method == "get" and path in TOKEN_ROUTES and response.status_code == 200:
                read.add(path)
            elif response.status_code == 403 and response.json()["error"].get("role") == "share":
                refused.add((method, path))
            elif path != "/healthz":
                wrong.append((f"{method} {path}", response.status_code))
    assert not wrong, wrong
    assert read == TOKEN_ROUTES
    assert ("get", "/v1/games/{game_id}/deals") in refused


def test_the_deals_of_a_server_dealt_game_are_for_keys_not_share_links(
    client: TestClient, club: Club, store: Store
) -> None:
    created = client.post(
        "/v1/games",
        json={"game": "schnapsen", "players": ["Anna", "Ben"], "options": {"dealing": "server"}},
        headers=club.recorder,
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    assert client.get(f"/v1/games/{game_id}/deals", headers=club.viewer).json()["server_dealt"] is True
    token = bearer(share(client, club, game_id)["token"])
    body = error_of(client.get(f"/v1/games/{game_id}/deals", headers=token), 403, "forbidden")
    assert body["role"] == "share"
    assert client.head(f"/v1/games/{game_id}/deals", headers=token).status_code == 403
    other = finished_game(store, club)
    error_of(client.get(f"/v1/games/{other}/deals", headers=token), 404, "not_found")  # another game: not found
    assert client.get(f"/v1/games/{game_id}", headers=token).status_code == 200  # the token itself still works
