"""The published OpenAPI document against the server's real answers.

Every route is called (each game's records, every role, a share link, live and finished hands),
and every answer, errors included, must be one its operation documents: its status is listed,
its content type is, and a JSON body validates against the documented schema. Each operation
is also probed for the errors every route can give (401, 404, 422, 403, 413): those answers
must be documented too. And: no operation refers to FastAPI's `{detail}` 422
(`HTTPValidationError`), which the server never answers; every `/v1` operation takes the bearer
key; `/docs` and `/redoc` load nothing from another host.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import jsonschema_rs
import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from api.settings import Settings
from events.store import Store
from tests.conftest import Club, make_club
from tests.projections.helpers import EXAMPLES, load_example

JSON = "application/json"
METHODS = ("get", "post", "patch", "delete")
#: a well-formed body of the routes that read one, for the probes that must get past it
BODIES: dict[str, Any] = {
    "/v1/games/{game_id}/events": {"events": [{"type": "note", "text": "x"}]},
    "/v1/games/{game_id}/audit": {"points": {"0": 0, "1": 0}},
}


@dataclass
class Checker:
    """Calls routes, checks each answer against the document, and remembers what was covered."""

    client: TestClient
    spec: dict[str, Any]
    covered: set[tuple[str, str, int]] = field(default_factory=set)
    _validators: dict[tuple[str, str, str, str], Any] = field(default_factory=dict)

    def call(
        self, method: str, template: str, path: str | None = None, *, key: dict[str, str] | None = None, **kw: Any
    ) -> httpx.Response:
        response = self.client.request(method.upper(), path or template, headers=key or {}, **kw)
        self.check(method, template, response)
        return response

    def check(self, method: str, template: str, response: httpx.Response) -> None:
        operation = self.spec["paths"][template][method]
        status = str(response.status_code)
        where = f"{method.upper()} {template} answered {status}"
        assert status in operation["responses"], f"{where}, which it does not document: {response.text[:300]}"
        documented = operation["responses"][status]
        media = response.headers.get("content-type", "").split(";")[0].strip()
        content = documented.get("content", {})
        assert media in content, f"{where} as {media!r}; documented: {sorted(content)}"
        schema = content[media].get("schema")
        if media == JSON:
            assert schema, f"{where}: no schema for its JSON body"
            errors = [
                f"{e.instance_path}: {e.message}"
                for e in self._validator(method, template, status, schema).iter_errors(response.json())
            ]
            assert not errors, f"{where} a body its schema does not allow: {errors[:5]}"
        self.covered.add((method, template, response.status_code))

    def _validator(self, method: str, template: str, status: str, schema: dict[str, Any]) -> Any:
        key = (method, template, status, JSON)
        if key not in self._validators:
            root = {**schema, "components": self.spec["components"]}
            self._validators[key] = jsonschema_rs.Draft202012Validator(root)
        return self._validators[key]


@pytest.fixture(scope="module")
def setup(sqlite_url: str) -> Iterator[tuple[Checker, Club, Store]]:
    store = Store(sqlite_url)
    app = create_app(Settings(database_url=sqlite_url), store)
    with TestClient(app) as client:
        spec = client.get("/openapi.json").json()
        yield Checker(client, spec), make_club(store), store
    store.dispose()


def _examples() -> list[dict[str, Any]]:
    return [load_example(p.name) for p in sorted(EXAMPLES.glob("*.json"))]


def _operations(spec: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m, p) for p, ops in spec["paths"].items() for m in ops if m in METHODS]


def test_the_document_has_no_fastapi_validation_error_and_bearer_on_every_v1_route(
    setup: tuple[Checker, Club, Store],
) -> None:
    spec = setup[0].spec
    text = json.dumps(spec)
    assert "HTTPValidationError" not in text and '"ValidationError"' not in text
    assert "detail" not in spec["components"]["schemas"]
    assert spec["components"]["securitySchemes"]["bearer"] == {
        **spec["components"]["securitySchemes"]["bearer"],
        "type": "http",
        "scheme": "bearer",
    }
    for method, path in _operations(spec):
        operation = spec["paths"][path][method]
        if path.startswith("/v1/"):
            assert operation.get("security") == [{"bearer": []}], f"{method} {path}"
            for status in ("401", "422"):
                assert status in operation["responses"], f"{method} {path} documents no {status}"
        else:
            assert "security" not in operation, f"{method} {path}"
        for status, response in operation["responses"].items():
            if status.startswith(("4", "5")):
                schema = response["content"][JSON]["schema"]
                assert schema == {"$ref": f"#/components/schemas/ErrorBody{status}"}, f"{method} {path} {status}"


def test_the_append_body_is_a_union_of_every_games_events(setup: tuple[Checker, Club, Store]) -> None:
    spec = setup[0].spec
    schemas = spec["components"]["schemas"]
    body = spec["paths"]["/v1/games/{game_id}/events"]["post"]["requestBody"]["content"][JSON]
    assert body["schema"] == {"$ref": "#/components/schemas/AppendBody"}
    assert schemas["AppendBody"]["properties"]["events"]["items"] == {"$ref": "#/components/schemas/Event"}
    assert len(schemas["Event"]["anyOf"]) == 5
    mapping = schemas["SchnapsenEvent"]["discriminator"]["mapping"]
    assert set(mapping) == {
        "deal",
        "play",
        "draw",
        "exchange_trump",
        "close",
        "score_claimed",
        "note",
        "hand_voided",
        "retract",
    }
    play = schemas["SchnapsenPlay"]
    assert play["required"] == ["type", "seat", "card"] and "marriage" in play["properties"]
    root = {"$ref": "#/components/schemas/AppendBody", "components": spec["components"]}
    validator = jsonschema_rs.Draft202012Validator(root)
    for example in body["examples"].values():
        assert validator.is_valid(example["value"]), example
    for example in _examples():
        assert validator.is_valid({"events": example["events"]}), example["game"]
    assert not validator.is_valid({"events": [{"type": "play", "seat": 0, "card": "ZZ"}]})
    assert not validator.is_valid({"events": [{"type": "note"}]})


def test_the_docs_pages_load_nothing_from_another_host(setup: tuple[Checker, Club, Store]) -> None:
    client = setup[0].client
    for page in ("/docs", "/redoc"):
        response = client.get(page)
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
        html = response.text
        assert "default-src 'none'" in response.headers["content-security-policy"]  # nothing from elsewhere
        assert not re.search(r"(https?:)?//[a-z0-9]", html, re.IGNORECASE), f"{page} names another host"
        for asset in re.findall(r'(?:src|href)="([^"]+)"', html):
            assert asset.startswith("/"), asset
            assert client.get(asset).status_code == 200, asset


def test_every_answer_of_every_route_is_documented(setup: tuple[Checker, Club, Store]) -> None:
    checker, club, store = setup
    rec, view, aud = club.recorder, club.viewer, club.auditor
    c = checker.call
    games: dict[str, str] = {}
    for example in _examples():
        created = c(
            "post",
            "/v1/games",
            key=rec,
            json={"game": example["game"], "players": example["players"], "options": example["options"]},
        )
        assert created.status_code == 201
        game_id = created.json()["id"]
        events = example["events"]
        first = c(
            "post",
            "/v1/games/{game_id}/events",
            f"/v1/games/{game_id}/events",
            key=rec,
            json={"expected_seq": 0, "events": events[:2]},
        )
        assert first.status_code == 201, first.text
        rest = c(
            "post", "/v1/games/{game_id}/events", f"/v1/games/{game_id}/events", key=rec, json={"events": events[2:]}
        )
        assert rest.status_code == 201, rest.text
        games.setdefault(example["game"], game_id)
        path = f"/v1/games/{game_id}"
        for key in (rec, view, aud):
            assert c("get", "/v1/games/{game_id}", path, key=key).status_code == 200
            assert c("get", "/v1/games/{game_id}/events", f"{path}/events", key=key).status_code == 200
            assert c("get", "/v1/games/{game_id}/state", f"{path}/state", key=key).status_code == 200
            assert c("get", "/v1/games/{game_id}/score", f"{path}/score", key=key).status_code == 200
            assert c("get", "/v1/games/{game_id}/verify", f"{path}/verify", key=key).status_code == 200
            assert c("get", "/v1/games/{game_id}/hands", f"{path}/hands", key=key).status_code == 200
            assert c("get", "/v1/games/{game_id}/next", f"{path}/next", key=key).status_code == 200
            assert c("get", "/v1/games/{game_id}/deals", f"{path}/deals", key=key).status_code == 200
            assert c("get", "/v1/deals/report", key=key).status_code == 200
        c("get", "/v1/games/{game_id}/next", f"{path}/next", key=rec, params={"seat": 1})
        c("get", "/v1/games/{game_id}/next", f"{path}/next", key=rec, params={"seat": 99})
        for at in (1, 2, len(events) // 2):
            for seat in (0, 1):
                c("get", "/v1/games/{game_id}/state", f"{path}/state", key=rec, params={"at": at, "seat": seat})
        for hand in (0, 1, 2):
            c("get", "/v1/games/{game_id}/replay", f"{path}/replay", key=rec, params={"hand": hand})
        c("get", "/v1/games/{game_id}/replay", f"{path}/replay", key=view, params={"hand": 1, "seat": 1})
        if example["game"] == "gin-rummy-3":  # the cheapest review: the route's answers, not its searches
            c("get", "/v1/games/{game_id}/review", f"{path}/review", key=view, params={"hand": 1, "seat": 1})
        assert c("get", "/v1/games/{game_id}/audit", f"{path}/audit", key=aud).status_code == 200
        seats = {str(s): 0 for s in range(len(example["players"]))}
        for body in ({"points": seats}, {"hand": 1, "points": seats}, {"hand": 10**6, "points": seats}, {"points": {}}):
            c("post", "/v1/games/{game_id}/audit", f"{path}/audit", key=aud, json=body)
        for fmt in ("json", "jsonl", "text", "csv"):
            assert (
                c("get", "/v1/games/{game_id}/export", f"{path}/export", key=rec, params={"format": fmt}).status_code
                == 200
            )
        exported = checker.client.get(f"{path}/export", headers=rec).content
        assert c("post", "/v1/import", key=rec, content=exported).status_code == 200  # the club has it
        assert c("post", "/v1/import", key=rec, content=exported, params={"copy": "true"}).status_code == 201
        stream = c(
            "get", "/v1/games/{game_id}/stream", f"{path}/stream", key=view, params={"follow": "false", "limit": 3}
        )
        assert stream.status_code == 200

    schnapsen = load_example("schnapsen-9001.json")
    live = c(
        "post",
        "/v1/games",
        key=rec,
        json={"game": "schnapsen", "players": ["A", "B"], "options": {**schnapsen["options"], "enforcement": "record"}},
    ).json()["id"]
    live_path = f"/v1/games/{live}"
    c("post", "/v1/games/{game_id}/events", f"{live_path}/events", key=rec, json={"events": schnapsen["events"][:3]})
    c(
        "post",
        "/v1/games/{game_id}/events",
        f"{live_path}/events",
        key=aud,
        json={"events": [{"type": "note", "text": "x", "ref": 1}]},
    )

    # share links: made, listed, used on a live hand (withheld, refused) and on finished hands, revoked
    made = c("post", "/v1/games/{game_id}/share", f"{live_path}/share", key=rec)
    assert made.status_code == 201
    token = {"Authorization": f"Bearer {made.json()['token']}"}
    c("get", "/v1/games/{game_id}/share", f"{live_path}/share", key=aud)
    assert c("get", "/v1/games/{game_id}/events", f"{live_path}/events", key=token).status_code == 200
    assert c("get", "/v1/games/{game_id}/state", f"{live_path}/state", key=token).status_code == 403
    assert (
        c("get", "/v1/games/{game_id}/replay", f"{live_path}/replay", key=token, params={"hand": 1}).status_code == 403
    )
    assert c("get", "/v1/games/{game_id}/state", f"{live_path}/state", key=view).status_code == 200
    assert c("get", "/v1/games/{game_id}/verify", f"{live_path}/verify", key=view).status_code == 200
    assert c("get", "/v1/games/{game_id}/events", f"{live_path}/events", key=view).status_code == 200
    finished = games["schnapsen"]
    shared = c("post", "/v1/games/{game_id}/share", f"/v1/games/{finished}/share", key=aud).json()
    shared_key = {"Authorization": f"Bearer {shared['token']}"}
    for route in ("", "/events", "/state", "/score", "/hands"):
        assert (
            c("get", "/v1/games/{game_id}" + route, f"/v1/games/{finished}{route}", key=shared_key).status_code == 200
        )
    share_id = made.json()["id"]
    template = "/v1/games/{game_id}/share/{share_id}"
    assert c("delete", template, f"{live_path}/share/{share_id}", key=rec).status_code == 200
    assert c("delete", template, f"{live_path}/share/nope", key=rec).status_code == 404

    # players and standings (issue 20)
    assert c("get", "/v1/players", key=view, params={"name": "a"}).status_code == 200
    made_player = c("post", "/v1/players", key=rec, json={"name": "Zed", "aliases": ["Z"]})
    assert made_player.status_code == 201
    zed = made_player.json()["id"]
    other_player = c("post", "/v1/players", key=rec, json={"name": "Yan"}).json()["id"]
    assert c("get", "/v1/players/{ref}", f"/v1/players/{zed}", key=view).status_code == 200
    assert c("get", "/v1/players/{ref}", "/v1/players/nobody", key=view).status_code == 404
    renamed = c("patch", "/v1/players/{ref}", f"/v1/players/{zed}", key=rec, json={"name": "Zed K."})
    assert renamed.status_code == 200 and renamed.json()["aliases"] == ["Z", "Zed"]
    assert c("patch", "/v1/players/{ref}", "/v1/players/nobody", key=rec, json={"name": "X"}).status_code == 404
    itself = c("post", "/v1/players/{ref}/merge", f"/v1/players/{zed}/merge", key=rec, json={"into": zed})
    assert itself.status_code == 422
    merged = c("post", "/v1/players/{ref}/merge", f"/v1/players/{other_player}/merge", key=rec, json={"into": zed})
    assert merged.status_code == 200
    assert c("delete", "/v1/players/{ref}", f"/v1/players/{zed}", key=rec).status_code == 200
    assert c("get", "/v1/standings", key=view, params={"game": "schnapsen"}).status_code == 200

    # the appends' refusals
    append = "/v1/games/{game_id}/events"
    assert (
        c(
            "post",
            append,
            f"{live_path}/events",
            key=rec,
            json={"expected_seq": 1, "events": [{"type": "note", "text": "x"}]},
        ).status_code
        == 409
    )
    for bad in (
        [{"type": "play", "seat": 0, "card": "ZZ"}],
        [{"type": "draw", "seat": 1, "card": "AS"}],
        [],
        [{"type": "nope"}],
    ):
        assert c("post", append, f"{live_path}/events", key=rec, json={"events": bad}).status_code == 422
    assert (
        c("post", append, f"{live_path}/events", key=view, json={"events": [{"type": "note", "text": "x"}]}).status_code
        == 403
    )
    assert (
        c("post", append, f"{live_path}/events", key=aud, json={"events": [{"type": "close", "seat": 0}]}).status_code
        == 403
    )
    key = {**rec, "Idempotency-Key": "k1"}
    assert (
        c("post", append, f"{live_path}/events", key=key, json={"events": [{"type": "note", "text": "a"}]}).status_code
        == 201
    )
    assert (
        c("post", append, f"{live_path}/events", key=key, json={"events": [{"type": "note", "text": "b"}]}).status_code
        == 409
    )

    # the club's lists, searches, bulk export and import
    assert c("get", "/v1/games", key=view, params={"limit": 2}).status_code == 200
    assert c("get", "/v1/games", key=rec, params={"has": "marriage"}).status_code == 200
    assert c("get", "/v1/games", key=rec, params={"cursor": "!!"}).status_code == 422
    bulk = c("get", "/v1/export", key=rec, params={"game": "casino"})
    assert bulk.status_code == 200
    other = make_club(store)
    assert c("post", "/v1/import/bulk", key=other.recorder, content=bulk.content).status_code == 200
    assert c("post", "/v1/import", key=rec, content=b"not an export").status_code == 422
    assert c("post", "/v1/games", key=rec, json={"game": "chess", "players": ["A"]}).status_code == 422
    assert c("post", "/v1/games", key=aud, json={"game": "schnapsen", "players": ["A", "B"]}).status_code == 403
    assert c("get", "/healthz").status_code == 200

    # issue 21: rules, profiles, re-scores
    assert c("get", "/v1/games/rules", key=view).status_code == 200
    house = {"name": "house", "games": {"casino": {"sweeps": True}}}
    assert c("post", "/v1/profiles", key=rec, json=house).status_code == 201
    assert c("post", "/v1/profiles", key=rec, json=house).status_code == 200
    assert c("get", "/v1/profiles", key=view).status_code == 200
    assert c("get", "/v1/profiles/{name}", "/v1/profiles/house", key=view).status_code == 200
    rescore = f"/v1/games/{games['casino']}/rescore"
    assert c("post", "/v1/games/{game_id}/rescore", rescore, key=view, json={"profile": "house"}).status_code == 200
    assert c("post", "/v1/games/{game_id}/rescore", rescore, key=view, json={}).status_code == 422
    assert c("post", "/v1/rescore", key=view, json={"profile": "house"}).status_code == 200
    assert c("delete", "/v1/profiles/{name}", "/v1/profiles/house", key=rec).status_code == 200
    assert c("get", "/v1/profiles/{name}", "/v1/profiles/house", key=view).status_code == 404
    # issue 33: events, their rounds, results, the whole record out and in
    made = c(
        "post", "/v1/events", key=rec, json={"name": "E", "game": "schnapsen", "players": ["A", "B", "C"], "boards": 1}
    )
    assert made.status_code == 201
    event = f"/v1/events/{made.json()['id']}"
    assert c("get", "/v1/events", key=view).status_code == 200
    assert c("get", "/v1/events/{event_id}", event, key=view).status_code == 200
    assert c("post", "/v1/events/{event_id}/seeds", f"{event}/seeds", key=rec, json={"seed": "x"}).status_code == 200
    start, close = "/v1/events/{event_id}/rounds/{number}/start", "/v1/events/{event_id}/rounds/{number}/close"
    assert c("post", start, f"{event}/rounds/1/start", key=rec).status_code == 200
    assert c("post", start, f"{event}/rounds/1/start", key=rec).status_code == 422
    assert c("post", close, f"{event}/rounds/1/close", key=rec).status_code == 200
    for fmt in ("json", "csv"):
        results = c("get", "/v1/events/{event_id}/results", f"{event}/results", key=view, params={"format": fmt})
        assert results.status_code == 200
    whole = c("get", "/v1/events/{event_id}/export", f"{event}/export", key=rec)
    assert c("post", "/v1/import/event", key=make_club(store).recorder, content=whole.content).status_code == 201
    assert c("post", "/v1/import/event", key=rec, content=b"{}").status_code == 422
    swiss = c(
        "post",
        "/v1/events",
        key=rec,
        json={"name": "S", "game": "schnapsen", "players": ["A", "B"], "movement": "swiss", "rounds": 2},
    ).json()["id"]
    c("post", start, f"/v1/events/{swiss}/rounds/1/start", key=rec)
    c("post", close, f"/v1/events/{swiss}/rounds/1/close", key=rec)
    assert c("post", "/v1/events/{event_id}/rounds", f"/v1/events/{swiss}/rounds", key=rec).status_code == 201
    example = load_example("schnapsen-9001.json")
    free = c(
        "post",
        "/v1/events",
        key=rec,
        json={"name": "F", "game": "schnapsen", "players": example["players"], "movement": "free"},
    ).json()["id"]
    attach = {"game_id": games["schnapsen"], "round": 1, "table": 1}
    assert (
        c("post", "/v1/events/{event_id}/tables", f"/v1/events/{free}/tables", key=rec, json=attach).status_code == 200
    )
    # the errors every route can give, probed operation by operation
    huge = b"{" + b" " * (2 * 1024 * 1024) + b"}"
    for method, template in _operations(checker.spec):
        if not template.startswith("/v1/"):
            continue
        path = template.replace("{game_id}", live).replace("{share_id}", "nope")
        hand = {"hand": 1} if template.endswith(("/replay", "/review")) else {}
        assert c(method, template, path).status_code == 401, (method, template)
        assert c(method, template, path, key=rec, params={"at": "\x00"}).status_code == 422, (method, template)
        if "{game_id}" in template:
            missing = template.replace("{game_id}", "gnope").replace("{share_id}", "nope")
            body = BODIES.get(template) if method == "post" else None
            assert c(method, template, missing, key=aud, params=hand, json=body).status_code == 404, (method, template)
            c(method, template, path, key=token, params=hand)  # a revoked share link: 401
            c(method, template, path, key=shared_key, params=hand)  # another game's share link: 404
        else:
            assert c(method, template, path, key=shared_key).status_code == 403, (method, template)
        if method == "post" and not template.startswith("/v1/import"):  # imports may be 64 MiB
            assert c(method, template, path, key=rec, content=huge).status_code == 413, (method, template)

    missing = {
        (m, p)
        for m, p in _operations(checker.spec)
        if not any(s < 300 for mm, pp, s in checker.covered if (mm, pp) == (m, p))
    }
    assert not missing, f"operations never answered 2xx here: {sorted(missing)}"
    statuses = {s for _, _, s in checker.covered}
    assert {200, 201, 401, 403, 404, 409, 413, 422} <= statuses
