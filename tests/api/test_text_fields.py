"""A NUL in every text field of every route: a clear 422 `invalid` naming the field, no 5xx, nothing written.

The OpenAPI document is walked: every operation's path parameters, query parameters and header
parameters get a NUL in turn, and so does every string and every object key of a valid body of each
operation that takes one (`BODIES`; a test checks that each body covers every text field its schema
declares, and that every operation with a body has one). A key given twice, the NUL in either copy,
is refused too. The pages outside the schema (their path names a game or a player) are checked the
same way. PostgreSQL cannot keep a NUL in text (psycopg's DataError, a 500), SQLite kept one: both
stores must answer alike, before anything is read or written.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import orjson
import pytest
from fastapi.testclient import TestClient

from tests.conftest import BOTH, Club, error_of, new_game

#: both stores (tests/conftest.py `stores_of`):
#: PostgreSQL refuses a NUL in text that SQLite would store
STORES = BOTH

NUL = "\x00"
#: the routes of a JSON body read through `api.requests.StrictJSONRoute`: the field named is the JSON path
STRICT = {
    ("post", "/v1/games"),
    ("post", "/v1/profiles"),
    ("post", "/v1/games/{game_id}/rescore"),
    ("post", "/v1/rescore"),
    ("post", "/v1/games/{game_id}/audit"),
    ("post", "/v1/players"),
    ("patch", "/v1/players/{ref}"),
    ("post", "/v1/players/{ref}/merge"),
}
#: pages outside the OpenAPI document whose path names a game, a player or a file
PAGES = ("/replay/{x}", "/record/{x}", "/players/{x}", "/static/{x}")


def schnapsen_deal() -> dict[str, Any]:
    return {
        "type": "deal",
        "dealer": 1,
        "trump_card": "JH",
        "hands": [["KH", "QH", "TD", "AC", "JS"], ["TS", "AD", "KC", "QS", "JD"]],
    }


def bodies(context: dict[str, str], export: dict[str, Any]) -> dict[tuple[str, str], Any]:
    """A body each operation would accept (or refuse for another reason than its text): every string and
    key of it is given a NUL in turn."""
    return {
        ("post", "/v1/games"): {
            "game": "schnapsen",
            "players": ["Anna", "Ben"],
            "options": {"first_dealer": 1},
            "profile": "default",
            "event": "Winter league",
            "round": "3",
            "table": "2",
        },
        ("post", "/v1/profiles"): {"name": "tuesday", "games": {"casino": {"sweeps": True}}},
        ("post", "/v1/games/{game_id}/rescore"): {"options": {"first_dealer": 1}, "profile": "default"},
        ("post", "/v1/rescore"): {"profile": "default", "games": {"casino": {"sweeps": True}}, "against": "default"},
        ("post", "/v1/games/{game_id}/events"): {
            "events": [
                schnapsen_deal(),
                {"type": "note", "text": "a note", "ref": 1},
                {"type": "retract", "to_seq": 1, "reason": "a reason"},
            ]
        },
        ("post", "/v1/games/{game_id}/audit"): {"points": {"0": 1, "1": 0}},
        ("post", "/v1/players"): {"name": "Cleo", "aliases": ["Clee"]},
        ("patch", "/v1/players/{ref}"): {"name": "Cleo M."},
        ("post", "/v1/players/{ref}/merge"): {"into": context["other_player"]},
        ("post", "/v1/import"): export,
        ("post", "/v1/import/bulk"): export,
        ("post", "/v1/events"): {
            "name": "Tuesday",
            "kind": "evening",
            "game": "schnapsen",
            "players": ["Anna", "Ben"],
            "movement": "round-robin",
            "rounds": 1,
            "options": {"first_dealer": 1},
            "scoring": "wins",
        },
        ("post", "/v1/events/{event_id}/seeds"): {"seed": "a seed"},
        ("post", "/v1/events/{event_id}/tables"): {"game_id": context.get("game_id", "g1"), "round": 1, "table": 1},
        ("post", "/v1/import/event"): {"format": "tablebook-event-v1", "event": {"name": "Tuesday"}},
    }


Path = tuple[str | int, ...]


def jsonl(export: dict[str, Any]) -> bytes:
    """A json export as the jsonl of a bulk import: the header on line 1, then an envelope a line."""
    header = {key: value for key, value in export.items() if key != "events"}
    return b"\n".join(orjson.dumps(line) for line in [header, *export.get("events", [])]) + b"\n"


def texts(value: Any, path: Path = ()) -> Iterator[tuple[Path, str]]:
    """Every place of a string in a JSON value: ("key", path) for an object's key, ("value", path) for a string."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield ("key", *path, key), key
            yield from texts(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from texts(item, (*path, index))
    elif isinstance(value, str):
        yield ("value", *path), value


def with_nul(value: Any, place: Path) -> Any:
    """A copy of `value` with a NUL put into the string (or the key) at `place`."""
    kind, *path = place
    if not path:
        return f"x{NUL}" + value if kind == "value" else value
    head, *rest = path
    if isinstance(value, list):
        return [with_nul(item, (kind, *rest)) if i == head else item for i, item in enumerate(value)]
    out = {}
    for key, item in value.items():
        if key != head:
            out[key] = item
        elif rest:
            out[key] = with_nul(item, (kind, *rest))
        elif kind == "key":
            out[f"{key}{NUL}"] = item
        else:
            out[key] = f"{item}{NUL}" if isinstance(item, str) else item
    return out


def field_of(place: Path) -> str:
    """The `field` the answer names for a NUL at `place`: the JSON path, a key's with the NUL in it."""
    kind, *path = place
    parts = [str(p) for p in path]
    if kind == "key":
        parts[-1] += NUL
    return ".".join(parts)


def resolved(schema: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = document["components"]["schemas"][name]
    return schema


def declared_texts(schema: dict[str, Any], document: dict[str, Any], path: str = "") -> set[str]:
    """The text fields a body schema declares: `players.*` (an array's items), `options.{}` (a key)."""
    schema = resolved(schema, document)
    found: set[str] = set()
    for option in schema.get("anyOf", []) + schema.get("oneOf", []):
        found |= declared_texts(option, document, path)
    kind = schema.get("type")
    if kind == "string":
        found.add(path)
    if kind == "array" and "items" in schema:
        found |= declared_texts(schema["items"], document, f"{path}.*" if path else "*")
    if kind == "object":
        for name, item in schema.get("properties", {}).items():
            found |= declared_texts(item, document, f"{path}.{name}" if path else name)
        extra = schema.get("additionalProperties")
        if extra:
            key = f"{path}.{{}}" if path else "{}"
            found.add(key)
            if isinstance(extra, dict):
                found |= declared_texts(extra, document, key)
    return found


def covered(sample: Any, declared: set[str]) -> set[str]:
    """The declared text fields (`declared_texts`) the sample holds a string or a key at."""
    out = set()
    for place, _ in texts(sample):
        kind, *path = place
        for pattern in declared:
            parts = pattern.split(".")
            if len(parts) != len(path):
                continue
            matched = all(
                want == str(got) or (want == "*" and isinstance(got, int)) or want == "{}"
                for want, got in zip(parts, path, strict=True)
            )
            keyed = parts[-1] == "{}"
            if matched and (kind == "key") == keyed:
                out.add(pattern)
    return out


@pytest.fixture
def world(client: TestClient, club: Club) -> dict[str, str]:
    """A game with events and a share link, two players, a profile: something for every path to name."""
    game = new_game(client, club, players=["Anna", "Ben"], options={"first_dealer": 1})
    appended = client.post(
        f"/v1/games/{game['id']}/events",
        json={"events": [schnapsen_deal(), {"type": "note", "text": "fine"}]},
        headers=club.recorder,
    )
    assert appended.status_code == 201, appended.text
    share = client.post(f"/v1/games/{game['id']}/share", headers=club.recorder)
    assert share.status_code == 201, share.text
    other = client.post("/v1/players", json={"name": "Dora"}, headers=club.recorder).json()
    player = client.post("/v1/players", json={"name": "Cleo"}, headers=club.recorder).json()
    saved = client.post("/v1/profiles", json={"name": "house", "games": {}}, headers=club.recorder)
    assert saved.status_code in (200, 201), saved.text
    fresh = new_game(client, club, players=["Anna", "Ben"], options={"first_dealer": 1})
    evening = client.post(
        "/v1/events", json={"name": "Monday", "game": "schnapsen", "players": ["Anna", "Ben"]}, headers=club.recorder
    )
    assert evening.status_code == 201, evening.text
    return {
        "event_id": evening.json()["id"],
        "game_id": game["id"],
        "fresh_game": fresh["id"],
        "share_id": share.json()["id"],
        "ref": player["id"],
        "name": "house",
        "other_player": other["id"],
    }


def everything(client: TestClient, club: Club, game_id: str) -> Any:
    """What a refused request must leave as it was: the club's games and heads, players, profiles, links."""
    games = client.get("/v1/games", params={"limit": 200}, headers=club.recorder).json()["games"]
    return (
        sorted((g["id"], g["seq"], tuple(g["players"])) for g in games),
        client.get("/v1/players", headers=club.recorder).json(),
        client.get("/v1/profiles", headers=club.recorder).json(),
        client.get(f"/v1/games/{game_id}/share", headers=club.recorder).json(),
        client.get(f"/v1/games/{game_id}/events", headers=club.recorder).json(),
    )


def key_for(path: str, method: str, club: Club) -> dict[str, str]:
    return club.auditor if path.endswith("/audit") else club.recorder


def test_every_body_sample_covers_every_text_field_its_schema_declares(client: TestClient, club: Club) -> None:
    """The walk below reaches every text field: a body route without a sample, or a field a sample
    leaves out, fails here (events and imports excepted: their schemas are the games' events, and any
    object; the corpus of tests/reliability covers those)."""
    document = client.get("/openapi.json").json()
    with_body = {
        (method, path)
        for path, operations in document["paths"].items()
        for method, operation in operations.items()
        if "requestBody" in operation
    }
    samples = bodies({"other_player": "p1"}, {"format": "tablebook/1"})
    assert with_body == set(samples)
    missing = {}
    for method, path in STRICT:
        content = document["paths"][path][method]["requestBody"]["content"]["application/json"]
        declared = declared_texts(content["schema"], document)
        left = declared - covered(samples[(method, path)], declared)
        if left:
            missing[f"{method.upper()} {path}"] = sorted(left)
    assert not missing


def test_a_nul_in_any_parameter_of_any_route_is_a_422_naming_it(
    client: TestClient, club: Club, world: dict[str, str]
) -> None:
    """Path, query and header parameters of every operation of the OpenAPI document, and the pages' paths."""
    document = client.get("/openapi.json").json()
    before = everything(client, club, world["game_id"])
    wrong: list[str] = []
    tried = 0
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            parameters = operation.get("parameters", [])
            real = {p["name"]: world.get(p["name"], "x") for p in parameters if p["in"] == "path"}
            for parameter in parameters:
                name, where = parameter["name"], parameter["in"]
                values = dict(real)
                query: dict[str, str] = {}
                headers = dict(key_for(path, method, club))
                if where == "path":
                    values[name] = f"{values[name]}{NUL}"
                    expected = "path"
                elif where == "query":
                    query[name] = f"a{NUL}"
                    expected = name
                else:
                    headers[name] = f"1{NUL}"
                    expected = name.lower().replace("-", "_")
                target = path.format(**{k: quote(v, safe="") for k, v in values.items()})
                response = client.request(method, target, params=query, headers=headers)
                tried += 1
                json_answer = response.headers.get("content-type", "").startswith("application/json")
                body = response.json() if json_answer else {}
                error = body.get("error", {}) if isinstance(body, dict) else {}
                if response.status_code != 422 or error.get("code") != "invalid" or error.get("field") != expected:
                    shown = f"{response.status_code} {response.text[:200]}"
                    wrong.append(f"{method.upper()} {path} {where} {name}: {shown}")
    for page in PAGES:
        response = client.get(page.format(x=quote(f"g{NUL}", safe="")))
        tried += 1
        if response.status_code != 422 or error_of(response, 422, "invalid").get("field") != "path":
            wrong.append(f"GET {page}: {response.status_code} {response.text[:200]}")
    assert not wrong, wrong
    assert tried > 60  # every operation's parameters were walked
    assert everything(client, club, world["game_id"]) == before


def test_a_nul_in_any_string_or_key_of_any_body_is_a_422_and_writes_nothing(
    client: TestClient, club: Club, world: dict[str, str]
) -> None:
    """Every string and every key of each operation's body, one at a time; on the routes whose body model
    FastAPI reads, the answer names the JSON path of the NUL."""
    game_id = world["game_id"]
    exported = client.get(f"/v1/games/{game_id}/export", params={"format": "json"}, headers=club.recorder)
    assert exported.status_code == 200
    before = everything(client, club, game_id)
    wrong: list[str] = []
    tried = 0
    for (method, path), sample in bodies(world, exported.json()).items():
        # the events go to a game with none, where the sample's deal is the next event
        target = path.format(**{**world, "game_id": world["fresh_game"]} if path.endswith("/events") else world)
        headers = {**key_for(path, method, club), "Content-Type": "application/json"}
        if path == "/v1/import/bulk":
            headers["Content-Type"] = "application/x-ndjson"
        for place, _ in texts(sample):
            variant = with_nul(sample, place)
            content = jsonl(variant) if path == "/v1/import/bulk" else orjson.dumps(variant)
            response = client.request(method, target, content=content, headers=headers)
            tried += 1
            shown = f"{method.upper()} {path} {place}: {response.status_code} {response.text[:200]}"
            if response.status_code >= 500:
                wrong.append(shown)
                continue
            answer = response.json()
            if path.startswith("/v1/import") and response.status_code == 200:
                # a field the import does not keep (the export's own id, club, times): the club has the
                # game already, and says so (writing nothing); a bulk import skips a bad game with its reason
                if not (answer.get("duplicate_of") or (answer.get("imported") == [] and answer.get("skipped"))):
                    wrong.append(shown)
                continue
            error = answer.get("error", {})
            if response.status_code != 422 or error.get("code") != "invalid":
                wrong.append(shown)
            elif (method, path) in STRICT and error.get("field") != field_of(place):
                wrong.append(f"{shown} (field {error.get('field')!r}, not {field_of(place)!r})")
    assert not wrong, "\n".join(wrong)
    assert tried > 100
    assert everything(client, club, game_id) == before


@pytest.mark.parametrize(("method", "path"), sorted(STRICT))
def test_a_key_given_twice_is_checked_in_both_copies(
    client: TestClient, club: Club, world: dict[str, str], method: str, path: str
) -> None:
    """JSON keeps the last of a repeated key: `{"name": "a\\u0000", "name": "Cleo"}` and the other way
    round are refused alike, naming the field (PostgreSQL answered the second with a 500)."""
    sample = bodies(world, {})[(method, path)]
    place = next(p for p, _ in texts(sample) if len(p) > 2 or p[0] == "value")  # the first string inside a field
    first = place[1]
    bad = orjson.dumps({first: with_nul(sample, place)[first]})[1:-1]
    good = orjson.dumps(sample)
    before = everything(client, club, world["game_id"])
    for content in (good[:-1] + b"," + bad + b"}", b"{" + bad + b"," + good[1:]):
        response = client.request(
            method,
            path.format(**world),
            content=content,
            headers={**key_for(path, method, club), "Content-Type": "application/json"},
        )
        assert error_of(response, 422, "invalid")["field"] == field_of(place), content
    assert everything(client, club, world["game_id"]) == before


def test_the_reported_cases_are_refused_on_both_stores(client: TestClient, club: Club, world: dict[str, str]) -> None:
    """The cases as reported: each once answered 500 on PostgreSQL (psycopg.DataError) or was stored by SQLite."""
    ref, game_id = world["ref"], world["game_id"]
    cases = [
        ("post", "/v1/players", {"name": "a\x00"}, "name"),
        ("post", "/v1/players", {"name": "Cleo", "aliases": ["ok", "b\x00"]}, "aliases.1"),
        ("patch", f"/v1/players/{ref}", {"name": "a\x00"}, "name"),
        ("post", f"/v1/players/{ref}/merge", {"into": "a\x00"}, "into"),
        ("post", f"/v1/games/{game_id}/rescore", {"profile": "a\x00"}, "profile"),
        ("post", "/v1/rescore", {"profile": "a\x00"}, "profile"),
        ("post", "/v1/games", {"game": "schnapsen", "players": ["A", "B"], "profile": "a\x00"}, "profile"),
        ("post", "/v1/games", {"game": "schnapsen", "players": ["A\x00", "B"]}, "players.0"),
    ]
    before = everything(client, club, game_id)
    for method, target, body, field in cases:
        response = client.request(method, target, json=body, headers=club.recorder)
        error = error_of(response, 422, "invalid")
        assert error["field"] == field and "NUL" in error["message"], (target, error)
    assert everything(client, club, game_id) == before
    assert client.get("/v1/players", params={"name": "Cleo"}, headers=club.recorder).json()["players"][0]["id"] == ref


def test_a_nul_in_an_imported_record_is_a_422_even_in_a_field_the_importer_ignores(
    client: TestClient, club: Club
) -> None:
    game = new_game(client, club)
    client.post(
        f"/v1/games/{game['id']}/events", json={"events": [{"type": "note", "text": "a"}]}, headers=club.recorder
    )
    json_export = client.get(f"/v1/games/{game['id']}/export", params={"format": "json"}, headers=club.recorder)
    jsonl_export = client.get(f"/v1/games/{game['id']}/export", params={"format": "jsonl"}, headers=club.recorder)
    before = client.get("/v1/games", headers=club.recorder).json()["games"]
    doc = orjson.loads(json_export.content)
    doc["exported_at"] = f"now{NUL}"  # a field no game keeps
    lines = jsonl_export.content.splitlines()
    header = orjson.loads(lines[0])
    header["club"] = f"c{NUL}"
    bodies = {
        "json": (orjson.dumps(doc), "exported_at"),
        "jsonl": (b"\n".join([orjson.dumps(header), *lines[1:]]), "line 1: club"),
    }
    for fmt, (body, field) in bodies.items():
        for route in ("/v1/import", "/v1/import?copy=true", "/v1/import/bulk"):
            refused = client.post(route, content=body, headers={**club.recorder, "Content-Type": "application/json"})
            assert error_of(refused, 422, "invalid")["field"] == field, (fmt, route, refused.text)
    assert client.get("/v1/games", headers=club.recorder).json()["games"] == before
