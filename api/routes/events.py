"""A game's events: append a batch (all or nothing), read them back.

Deciding a batch and writing it, or reading and redacting a page, is blocking work that must not hold
the event loop: the read is a plain `def` (FastAPI's threadpool); the append awaits its body on the loop
(on SQLite after the key's role is checked, as before) and then runs the service call in the same
threadpool (a small SQLite batch on the loop, when the writer is free). On PostgreSQL the key, its role,
the body's checks and the append are done in that order in one worker thread, one hop a request; an event by
a key this process has read before is first tried in one statement that checks the key and the game's head
as it writes (`_append_known`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import partial
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Header, Query, Request
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from api.auth import Principal
from api.deps import (
    AppenderDep,
    PrincipalDep,
    ServiceDep,
    appender,
    appends_on_loop,
    get_appender,
    known_appender,
    service_of,
)
from api.models import APPEND_EXAMPLES, BODY, GAME, Appended, EventPage, errors
from api.responses import ORJSONResponse
from api.service import Tablebook
from events.errors import InvalidEventError
from events.store import KeyRecord

router = APIRouter(prefix="/v1/games/{game_id}/events", tags=["events"])

#: the longest Idempotency-Key an append takes
IDEMPOTENCY_KEY_LENGTH = 200

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
    idempotency_key: Annotated[str | None, Header(max_length=IDEMPOTENCY_KEY_LENGTH)] = None,
) -> dict[str, Any]:
    """Append a batch: every event is checked in order; one refusal and nothing is written.

    With `expected_seq`, the batch lands only on that head (409 `seq_conflict`
    otherwise). With an `Idempotency-Key`, a retry returns the first result.
    """
    return await _append(request, service, game_id, principal, idempotency_key)


async def _append(
    request: Request, service: Tablebook, game_id: str, principal: Principal | None, idempotency_key: str | None
) -> dict[str, Any]:
    """The append of `append_events` (and of `DirectAppend`, which calls it without FastAPI's router).

    `principal`: `api.deps.get_appender`'s (SQLite: the key checked, the game's row in `request.state.game`);
    None on PostgreSQL, where the key, the body and the append are done in one worker thread.
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
    """The key checked, then its role, then the body, then the append, in that order, on one (worker) thread, on
    one pooled connection (`Tablebook.one_connection`). First, for one event without an Idempotency-Key by a key
    this process has read before, in one statement that checks the key and the game's head as it writes
    (`_append_known`); if that wrote nothing, as before."""
    with service.one_connection():
        if idempotency_key is None:
            done = _append_known(request, service, game_id, body)
            if done is not None:
                return done
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


async def _append_known_on_loop(request: Request, service: Tablebook, game_id: str) -> dict[str, Any] | None:
    """SQLite, an append without an Idempotency-Key by a key this process has read before: `_append_known` on the
    event loop, when the writer is free (`Tablebook.append_checked_if_free`), the key and the game's head checked in
    the append's transaction where `get_appender` read them in a statement of its own first. None: nothing
    written (not such an append, not this store, anything refused or changed): `DirectAppend` goes on as before
    (the body read here is kept by the request for it).

    The body is read before the key's row: if that read fails (too large, too slow), the key and its role are
    checked first, as `_append` checks them, so that the answer is the one it would have been."""
    if not appends_on_loop(request) or known_appender(request) is None:
        return None
    try:
        body = await request.body()
    except Exception:
        appender(request).require("recorder", "auditor")  # the key's refusals first, as `_append` gives them
        raise
    parsed = _known_append(request, body)
    if parsed is None:
        return None
    (principal, key), events, expected_seq = parsed
    return await service.append_checked_on_loop(principal, key, game_id, events, expected_seq=expected_seq)


def _append_known(request: Request, service: Tablebook, game_id: str, body: bytes) -> dict[str, Any] | None:
    """PostgreSQL: an append by a key whose row this process read on an earlier request (`api.deps.known_appender`),
    decided on the game's cached state and written by a statement that checks in the database that the key and
    the game's head are still those (`Tablebook.append_checked`): one round trip where the key's read took one
    of its own. None: nothing written (not such an append, a body or an event refused, a key or a head that
    changed); `_checked_append` then answers as before, its refusals in their order."""
    parsed = _known_append(request, body)
    if parsed is None:
        return None
    (principal, key), events, expected_seq = parsed
    return service.append_checked(principal, key, game_id, events, expected_seq=expected_seq)


def _known_append(request: Request, body: bytes) -> tuple[tuple[Principal, KeyRecord], list[Any], int | None] | None:
    """What an append checked as it is written needs: the key as this process read it before (`known_appender`) and
    the body's events and `expected_seq`; None when either is not there (the append goes on as before)."""
    known = known_appender(request)
    if known is None:
        return None
    try:
        events, expected_seq, _ = _parse_append(body)
    except InvalidEventError:
        return None
    return known, events, expected_seq


#: the path `DirectAppend` answers (Starlette's `{game_id}`: one or more characters, no slash)
_APPEND_PATH = re.compile(r"/v1/games/([^/]+)/events")
_IDEMPOTENCY_HEADER = b"idempotency-key"


class DirectAppend:
    """ASGI: `POST /v1/games/{game_id}/events` answered by `_append` without FastAPI's router and dependency
    solver, which cost an append more CPU than its rules, hash and transaction together (FastAPI 0.165:
    matching the path against the app's routes, then solving `known_query`, `get_appender`, `get_service`
    and the header; measured with bench/append_profile.py).

    The same request, the same answer: the same dependencies' code (`get_appender`, `service_of`), the same
    status and body (201 and the service's dict, as `ORJSONResponse`), and the same error answers (the
    exception handlers the app registered, found as Starlette's `ExceptionMiddleware` finds them; an
    exception none maps is raised on, to the app's 500 as before). A request it does not take exactly as
    the route would is passed on to the app unchanged, for FastAPI to answer as before: a query string
    (`known_query` refuses every parameter of this route), a `root_path`, an Idempotency-Key over its
    limit, a header sent twice (the route's validation speaks for those). The route stays declared (the
    OpenAPI schema, and every request passed on).

    Installed by `api.main.create_app` just outside the exception handlers, inside the middlewares (body
    limit, stored text, HEAD, CORS, nosniff), which see these requests as they see every other.
    """

    def __init__(self, app: ASGIApp, handlers: Mapping[Any, Callable[..., Any]]) -> None:
        self.app = app
        #: what `ExceptionMiddleware` handles (the handlers of `Exception` and 500 are the outer
        #: `ServerErrorMiddleware`'s, which answers an exception raised on from here as from a route)
        self.handlers = {cls: h for cls, h in handlers.items() if isinstance(cls, type) and cls is not Exception}
        #: the route this stands in for (`scope["route"]`, which `api.deps` reads), found on the first request
        self.route: APIRoute | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        game_id = _direct_append(scope)
        if game_id is None:
            await self.app(scope, receive, send)
            return
        idempotency_key: str | None = None
        for name, value in scope["headers"]:
            if name == _IDEMPOTENCY_HEADER:
                if idempotency_key is not None or len(value) > IDEMPOTENCY_KEY_LENGTH:
                    await self.app(scope, receive, send)  # the route's header validation answers it
                    return
                idempotency_key = value.decode("latin-1")
        scope["route"] = self.route or self._route()
        scope["path_params"] = {"game_id": game_id}
        request = Request(scope, receive)
        try:
            service = service_of(request, None)
            answer = await _append_known_on_loop(request, service, game_id) if idempotency_key is None else None
            if answer is None:
                principal = await get_appender(request)
                answer = await _append(request, service, game_id, principal, idempotency_key)
            response: Response = ORJSONResponse(answer, status_code=201)
        except Exception as exc:
            handler = _handler(self.handlers, exc)
            if handler is None:
                raise
            response = await handler(request, exc)
        await response(scope, receive, send)

    def _route(self) -> APIRoute:
        for route in router.routes:
            if isinstance(route, APIRoute) and route.endpoint is append_events:
                self.route = route
                return route
        raise LookupError("append_events is not a route of this router")  # pragma: no cover - it is, above


def _direct_append(scope: Scope) -> str | None:
    """The game id of a request `DirectAppend` answers itself, or None (passed on to the app)."""
    if scope["type"] != "http" or scope["method"] != "POST" or scope.get("query_string") or scope.get("root_path"):
        return None
    found = _APPEND_PATH.fullmatch(scope["path"])
    return None if found is None else found[1]


def _handler(handlers: Mapping[type, Callable[..., Any]], exc: Exception) -> Callable[..., Any] | None:
    """The handler of `exc` (its class's or its nearest base's), as Starlette looks it up."""
    for cls in type(exc).__mro__:
        if cls in handlers:
            return handlers[cls]
    return None


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
