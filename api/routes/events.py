"""A game's events: append a batch (all or nothing), read them back.

Deciding a batch and writing it, or reading and redacting a page, is blocking work that must not hold
the event loop: the read is a plain `def` (FastAPI's threadpool); the append awaits its body on the loop
(on SQLite after the key's role is checked, as before) and then runs the service call in the same
threadpool (a small SQLite batch on the loop, when the writer is free). On PostgreSQL the key, its role,
the body's checks and the append are done in that order in one worker thread, one hop a request.
"""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Header, Query, Request
from starlette.concurrency import run_in_threadpool

from api.deps import AppenderDep, PrincipalDep, ServiceDep, appender
from api.models import APPEND_EXAMPLES, BODY, GAME, Appended, EventPage, errors
from api.service import Tablebook
from events.errors import InvalidEventError

router = APIRouter(prefix="/v1/games/{game_id}/events", tags=["events"])

APPEND_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                # `{expected_seq?, events: [Event]}`, each game's events generated from events/<game>.py
                "schema": {"$ref": "#/components/schemas/AppendBody"},
                "examples": APPEND_EXAMPLES,
            }
        },
    }
}


def _parse_append(body: bytes) -> tuple[list[Any], int | None, Any]:
    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise InvalidEventError(f"the body is not valid JSON: {exc}") from None
    if not isinstance(document, dict):
        raise InvalidEventError("the body must be an object {expected_seq?, events: [...]}")
    extra = sorted(set(document) - {"events", "expected_seq"})
    if extra:
        raise InvalidEventError(f"unknown field {extra[0]!r} in the body", field=extra[0])
    events = document.get("events")
    if not isinstance(events, list):
        raise InvalidEventError("events: expected a list of events", field="events")
    expected = document.get("expected_seq")
    if expected is not None and (not isinstance(expected, int) or isinstance(expected, bool) or expected < 0):
        raise InvalidEventError("expected_seq: expected a seq number (0 or more)", field="expected_seq")
    return events, expected, document


@router.post(
    "",
    status_code=201,
    summary="Append events",
    openapi_extra=APPEND_BODY,
    responses={201: {"model": Appended, "description": "the batch, stored"}, **errors(*GAME, 409, *BODY)},
)
async def append_events(
    game_id: str,
    request: Request,
    principal: AppenderDep,
    service: ServiceDep,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> dict[str, Any]:
    """Append a batch: every event is checked in order; one refusal and nothing is written.

    With `expected_seq`, the batch lands only on that head (409 `seq_conflict`
    otherwise). With an `Idempotency-Key`, a retry returns the first result.
    """
    if principal is None:  # PostgreSQL: the key, the body and the append in one worker thread (api.deps.get_appender)
        body = await request.body()
        return await run_in_threadpool(partial(_checked_append, request, service, game_id, body, idempotency_key))
    principal.require("recorder", "auditor")  # before the body is read, as every check of the key
    events, expected_seq, document = _parse_append(await request.body())
    game = request.state.game  # read with the key (api.deps.get_appender): the write starts from it
    done = service.append_if_free(
        principal,
        game_id,
        events,
        expected_seq=expected_seq,
        idempotency_key=idempotency_key,
        document=document,
        game=game,
    )
    if done is not None:  # a small SQLite batch, done on the loop (measured: see Tablebook.append_if_free)
        return done
    return await run_in_threadpool(
        partial(
            service.append,
            principal,
            game_id,
            events,
            expected_seq=expected_seq,
            idempotency_key=idempotency_key,
            document=document,
            game=game,
        )
    )


def _checked_append(
    request: Request, service: Tablebook, game_id: str, body: bytes, idempotency_key: str | None
) -> dict[str, Any]:
    """The key checked, then its role, then the body, then the append, in that order, on one (worker) thread."""
    principal = appender(request)
    principal.require("recorder", "auditor")
    events, expected_seq, document = _parse_append(body)
    return service.append(
        principal,
        game_id,
        events,
        expected_seq=expected_seq,
        idempotency_key=idempotency_key,
        document=document,
        game=request.state.game,
    )


@router.get("", summary="Read events", responses={200: {"model": EventPage}, **errors(401, 404, 422)})
def read_events(
    game_id: str,
    principal: PrincipalDep,
    service: ServiceDep,
    after: Annotated[int, Query(ge=0, description="only events with a seq above this")] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 1000,
) -> dict[str, Any]:
    """Envelopes in seq order (a viewer's live-hand cards are redacted)."""
    return service.events(principal, game_id, after=after, limit=limit)
