"""`POST /v1/games/{id}/events` answered by `api.routes.events.DirectAppend` (without FastAPI's router and
dependency solver) gives every request the answer the routed endpoint gives it: the same status and body for
appends, retries and every refusal, on both stores; and it is the path the appends take."""

from __future__ import annotations

import random
import re
from typing import Any

import orjson
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

import api.deps
import api.routes.events
from api.main import create_app
from api.routes.events import DirectAppend
from api.settings import Settings
from events.store import Store
from projections.core.registry import rules_for
from projections.core.simulate import play
from tests.api.helpers import bearer, share
from tests.conftest import BOTH, Club, make_club, new_game

STORES = BOTH

#: what differs between two games given the same events: their ids, times and hashes
_VOLATILE = re.compile(r'"(recorded_at|hash|prev_hash)":"[^"]*"')


def _app(store: Store, *, direct: bool) -> FastAPI:
    app = create_app(Settings(database_url=store.url), store)
    if not direct:  # the routed endpoint only (the middleware stack is built at the first request)
        app.user_middleware = [m for m in app.user_middleware if m.cls is not DirectAppend]  # type: ignore[comparison-overlap]
    return app


def _requests(club: Club, other: Club, share_token: str) -> list[tuple[str, dict[str, str], bytes]]:
    """(path suffix, headers, body) of a game's appends and refusals, in order; `{game}` is the game's id."""
    events = list(play(rules_for("schnapsen"), ["Anna", "Ben"], {}, rng=random.Random(3), max_events=8).events)
    key = club.recorder
    body = [f'{{"events": [{_json(e)}]}}'.encode() for e in events]
    return [
        ("", key, body[0]),
        ("", key, f'{{"expected_seq": 1, "events": [{_json(events[1])}]}}'.encode()),
        ("", {**key, "Idempotency-Key": "k1"}, body[2]),
        ("", {**key, "Idempotency-Key": "k1"}, body[2]),  # a retry: the first answer
        ("", {**key, "Idempotency-Key": "k1"}, body[3]),  # another body: idempotency_mismatch
        ("", {**key, "Idempotency-Key": ""}, body[3]),
        ("", key, body[3]),  # played already: refused by the rules
        ("", {**key, "Idempotency-Key": "k" * 201}, body[4]),  # over the header's limit
        ("?after=1", key, body[4]),  # an unknown query parameter
        ("", key, f'{{"expected_seq": 0, "events": [{_json(events[4])}]}}'.encode()),  # seq_conflict
        ("", key, b"{not json"),
        ("", key, b"[]"),
        ("", key, b'{"events": [], "extra": 1}'),
        ("", key, b'{"events": {}}'),
        ("", key, b'{"events": [], "expected_seq": -1}'),
        ("", key, b'{"events": [{"type": "no_such_event"}]}'),
        ("", {}, body[4]),
        ("", {"Authorization": "Basic abc"}, body[4]),
        ("", {"Authorization": "Bearer tb_nokey_secret"}, body[4]),
        ("", club.viewer, body[4]),
        ("", club.auditor, body[4]),  # an auditor appends corrections only
        ("", other.recorder, body[4]),  # another club's game: not found
        ("", bearer(share_token), body[4]),
        ("", key, b'{"events": [' + b" " * (1 << 20) + b"]}"),  # over the body limit
        ("", key, body[4]),
        ("", key, f'{{"events": [{_json(events[5])}, {_json(events[6])}]}}'.encode()),
    ]


def _json(event: dict[str, Any]) -> str:
    return orjson.dumps(event).decode()


def _answers(client: TestClient, game_id: str, requests: list[tuple[str, dict[str, str], bytes]]) -> list[Any]:
    answers = []
    for suffix, headers, body in requests:
        response = client.post(f"/v1/games/{game_id}/events{suffix}", headers=headers, content=body)
        text = _VOLATILE.sub(r'"\1":"-"', response.text.replace(game_id, "{game}"))
        answers.append((response.status_code, text, response.headers.get("content-type")))
    return answers


def test_every_append_and_refusal_is_answered_as_the_routed_endpoint_answers_it(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    club, other = make_club(store), make_club(store)
    taken: list[str] = []
    service_of = api.deps.service_of

    def counted(request: Any, store: Any) -> Any:  # once a request `DirectAppend` answers
        taken.append(request.url.path)
        return service_of(request, store)

    monkeypatch.setattr(api.routes.events, "service_of", counted)
    answers = []
    for direct in (True, False):
        with TestClient(_app(store, direct=direct)) as client:
            game_id = new_game(client, club)["id"]
            requests = _requests(club, other, share(client, club, game_id)["token"])
            answers.append(_answers(client, game_id, requests))
        if direct:
            assert len(taken) == len(requests) - 3  # all but the long key, the query string and the 413
    assert len(taken) == len(requests) - 3  # the routed endpoint does not come here
    direct_answers, routed_answers = answers
    statuses = [201, 201, 201, 201, 409, 201, 422, 422, 422, 409, 422, 422, 422, 422, 422, 422]
    assert [status for status, _, _ in direct_answers] == [*statuses, 401, 401, 401, 403, 403, 404, 403, 413, 201, 201]
    assert direct_answers == routed_answers
