"""The FastAPI application: routers, the error shape, body limits, CORS, HEAD and `/healthz`.

Every failure answers `{"error": {"code", "message", ...}}` (DESIGN.md): the
domain's errors are mapped to statuses here, once; FastAPI's own validation
and routing errors are reshaped; anything else is a bug and a 500.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, MutableMapping
from importlib.metadata import PackageNotFoundError, version
from typing import Any
from urllib.parse import parse_qsl, unquote_plus

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import Response

from api.models import errors
from api.queries import known_query
from api.responses import ORJSONResponse, error_body
from api.service import Tablebook
from api.settings import Settings
from events.errors import TablebookError, clip
from events.schema import unstorable
from events.store import Store, make_engine
from events.store.base import DATABASE_ERRORS, unavailable
from events.store.follow import sync_standby_log
from events.store.replicas import ReadRoutes
from projections.core import phrases
from projections.core.recorder import Recorder, ReplicaRecorder, StateCache

log = logging.getLogger("tablebook")

STATUS = {
    "invalid": 422,
    "impossible": 422,
    "illegal": 422,
    "seq_conflict": 409,
    "idempotency_mismatch": 409,
    "not_found": 404,
    "unauthorized": 401,
    "forbidden": 403,
    "too_large": 413,
    "tampered": 409,
    "busy": 429,
}
HTTP_CODES = {
    400: "invalid",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    408: "timeout",
    413: "too_large",
    415: "invalid",
    422: "invalid",
}

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class BodyLimit:
    """Refuse request bodies over a limit with 413, without reading them whole; and slow ones with 408.

    The import route has its own, larger limit; every other route gets 1 MiB.
    A body must arrive whole within a deadline (`settings.body_timeout`, ten times
    that for imports): a client that sends a little and then waits (slowloris)
    would otherwise hold up to 1 MiB of the server's memory for as long as it
    likes, and many such clients could hold any amount (tests/reliability).
    """

    def __init__(
        self,
        app: Callable[[Scope, Receive, Send], Awaitable[None]],
        settings: Settings,
        seconds: float | None = None,
    ) -> None:
        self.app = app
        self.settings = settings
        self.seconds = settings.body_timeout if seconds is None else seconds

    def limit_for(self, path: str) -> int:
        return self.settings.max_import_body if path.startswith("/v1/import") else self.settings.max_body

    def seconds_for(self, path: str) -> float:
        return self.seconds * 10 if path.startswith("/v1/import") else self.seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope["path"])
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > limit:
                    await self._refuse(send, limit)
                    return
        seen = 0
        complete = False
        seconds = self.seconds_for(scope["path"])
        deadline = asyncio.get_running_loop().time() + seconds

        async def limited_receive() -> Message:
            nonlocal seen, complete
            if complete:  # after the body: a disconnect, which a streaming response may wait for at length
                return await receive()
            try:
                # asyncio.timeout_at, not wait_for: wait_for (3.11) runs receive() in a task of its own, a loop
                # turn and ~0.03 ms of every request's CPU (bench/append_profile.py)
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                raise _TooSlow(seconds) from None
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _TooLarge(limit)
                complete = not message.get("more_body", False)
            return message

        try:
            await self.app(scope, limited_receive, send)
        except _TooLarge:
            await self._refuse(send, limit)

    @staticmethod
    async def _refuse(send: Send, limit: int) -> None:
        response = ORJSONResponse(
            error_body("too_large", f"the request body is over the limit of {limit} bytes", limit=limit),
            status_code=413,
        )
        await response({"type": "http"}, _no_receive, send)


class _TooLarge(StarletteHTTPException):
    """Raised while the body is read; an HTTPException so that FastAPI passes it on unwrapped."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is over the limit of {limit} bytes")


class _TooSlow(StarletteHTTPException):
    """Raised when the body has not arrived whole by its deadline."""

    def __init__(self, seconds: float) -> None:
        super().__init__(408, f"the request body did not arrive within {seconds:g} seconds")


async def _no_receive() -> Message:  # pragma: no cover - never called for a plain response
    return {"type": "http.disconnect"}


class StorableText:
    """Refuse, with 422 `invalid`, a request whose path, query or headers hold text no store can keep.

    PostgreSQL refuses a NUL in text: a game or share id in the path, a list filter (`?player=%00`),
    an `access_token`, an Authorization or Idempotency-Key header carrying one reached a query and
    answered 500 (SQLite kept it). Checked here, once, on the decoded path, every query parameter (as
    Starlette decodes them) and every header, before any route, dependency or query runs: every
    route is covered, unauthenticated ones too, and both stores answer alike. JSON bodies are checked
    where their strings are kept (`events.schema.text`, player names, imports).
    """

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = _unstorable_part(scope) if scope["type"] == "http" else None
        if found is None:
            await self.app(scope, receive, send)
            return
        where, problem = found
        response = ORJSONResponse(error_body("invalid", clip(f"{where}: {problem}"), field=where), status_code=422)
        await response(scope, receive, send)


def _unstorable_part(scope: Scope) -> tuple[str, str] | None:
    """(where, what is wrong) for the first part of the request no store can keep, or None."""
    problem = unstorable(scope["path"])
    if problem:
        return "path", problem
    query = scope.get("query_string", b"")
    if query:
        for name, value in parse_qsl(query.decode("latin-1"), keep_blank_values=True):
            problem = unstorable(name)
            if problem:
                return "query", f"a parameter name {problem}"
            problem = unstorable(value)
            if problem:
                return clip(name, 100), problem
    for header, raw in scope.get("headers", ()):
        if b"\x00" in raw:  # headers are latin-1: a NUL is the only character no store can keep
            return header.decode("latin-1").lower().replace("-", "_"), "holds a NUL character (U+0000)"
    return None


class NoSniff:
    """Send `X-Content-Type-Options: nosniff` with every answer: JSON, text and CSV exports, NDJSON, the
    event stream, pages, their files, errors (a 413 or 422 of the middlewares above too), HEAD and CORS.

    A browser that sniffs could read a text export or an error quoting a player's note as HTML; with the
    header it keeps to the `Content-Type` sent. Outermost, so no answer is without it; an answer that
    names its own (the pages do) keeps it.
    """

    HEADER = (b"x-content-type-options", b"nosniff")

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_nosniff(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                if all(bytes(name).lower() != self.HEADER[0] for name, _ in headers):
                    headers.append(self.HEADER)
                    message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_nosniff)


#: query parameters whose values are secrets: `access_token` (a key or a share token, on /stream), and the
#: names a client might give one by mistake (refused with 422, but logged before that)
SECRET_PARAMETERS = frozenset(
    {"access_token", "token", "key", "api_key", "apikey", "share", "secret", "password", "authorization", "bearer"}
)
#: a key (`tb_<id>_<secret>`) or a share token (`ts_<id>_<secret>`): its id, then its secret
_CREDENTIAL = re.compile(r"(?P<head>\bt[bs]_[0-9A-Za-z]+_)[0-9A-Za-z_\-%.~]+")
#: what a secret is written as in the log
REDACTED = "[redacted]"


def _redacted_parameter(part: str) -> str:
    """One `name=value` of a query string, its value redacted if it is a secret: a secret-bearing name, or
    a value holding a key or a share token (percent-encoded or not). A credential's id is kept."""
    name, equals, value = part.partition("=")
    if not equals or not value:
        return part
    shown = unquote_plus(value)
    if unquote_plus(name).strip().lower() not in SECRET_PARAMETERS and not _CREDENTIAL.search(shown):
        return part
    credential = _CREDENTIAL.match(shown)
    return f"{name}={credential['head'] if credential else ''}{REDACTED}"


def redact_target(target: str) -> str:
    """A request target (path and query, as uvicorn logs it) with no secret left: the value of each
    secret-bearing query parameter and the secret part of any key or share token replaced by `[redacted]`
    (`access_token=tb_1a2b3c4d5e6f_[redacted]`: the key's id, which names it without opening anything,
    stays)."""
    path, mark, query = target.partition("?")
    if mark:
        query = "&".join(_redacted_parameter(part) for part in query.split("&"))
    return _CREDENTIAL.sub(rf"\g<head>{REDACTED}", path) + mark + query


class RedactedAccessLog(logging.Filter):
    """uvicorn's access log (`uvicorn.access`), each request's target with its secrets redacted.

    uvicorn writes the target as the client sent it: `GET /v1/games/g1/stream?access_token=tb_..._<secret>`
    put a working key into every log that keeps stdout, even where the route refuses the parameter. Each
    text argument of the record goes through `redact_target`; the line is otherwise uvicorn's own.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(redact_target(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.msg, str):
            record.msg = redact_target(record.msg)
        return True


def redact_access_log() -> None:
    """Install `RedactedAccessLog` on uvicorn's access logger, once per process (uvicorn's logging set-up
    keeps a logger's filters)."""
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, RedactedAccessLog) for f in access.filters):
        access.addFilter(RedactedAccessLog())


class HeadAsGet:
    """Answer HEAD wherever GET is answered: the GET answer's status and headers, without its body.

    FastAPI's routes answer only the methods they name, so `HEAD /`, `/replay/...` or
    `/v1/games` were 405. A HEAD is run as a GET here and its body is dropped (the first
    body message ends the response: a streaming route stops at its first chunk).
    """

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        ended = False

        async def send_head(message: Message) -> None:
            nonlocal ended
            if message["type"] != "http.response.body":
                await send(message)
            elif not ended:
                ended = True
                await send({"type": "http.response.body", "body": b"", "more_body": False})

        await self.app({**scope, "method": "GET"}, receive, send_head)


class Health(BaseModel):
    """`GET /healthz`: the database answered a trivial query."""

    ok: bool
    database: str
    version: str


#: seconds `/healthz` waits for the database before it answers 503
HEALTH_TIMEOUT = 5.0


def _tablebook_version() -> str:
    try:
        return version("tablebook")
    except PackageNotFoundError:  # pragma: no cover - run from a tree that was never installed
        return "unknown"


def _ping(store: Store) -> None:
    with store.engine.connect() as conn:
        conn.exec_driver_sql("SELECT 1").scalar()


def _validation_message(exc: RequestValidationError) -> tuple[str, str]:
    errors = exc.errors()
    if not errors:
        return "the request is malformed", ""
    first = errors[0]
    if first.get("type") == "json_invalid":  # the body's position is no field: say what is wrong with it
        return f"the body is not valid JSON: {first.get('ctx', {}).get('error', 'it cannot be read')}", "body"
    where = ".".join(str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path"))
    return (f"{where}: {first.get('msg', 'invalid')}" if where else str(first.get("msg", "invalid"))), where


def shown_error(exc: TablebookError) -> dict[str, Any]:
    """The error body, with no marker left in it (`projections/core/phrases.py`).

    The service renders the rules' messages with the game's players before they get here; a message
    that still holds markers (raised where no game was known) is rendered as a last resort without
    names (`seat 1`), so that a client never reads `{seat:1}`.
    """
    body = exc.to_dict()
    for key, value in body.items():
        if isinstance(value, str) and phrases.has_marker(value):
            body[key] = phrases.render(value)
    return body


#: seconds a client is told to wait before it sends a request again that met an unavailable database
RETRY_AFTER_SECONDS = 1


def _unavailable(request: Request, exc: BaseException) -> ORJSONResponse:
    """503 `unavailable` with Retry-After: the database (a replica, or the primary during a failover) failed
    under the request. A replica that did is left out of the next reads (events/store/replicas.py)."""
    routes: ReadRoutes | None = getattr(request.app.state, "read_routes", None)
    chosen = getattr(request.state, "read_store", None)
    where = "the primary database"
    if routes is not None and chosen is not None and chosen is not routes.primary:
        routes.failed(chosen, exc)
        where = "the replica serving this read"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    log.warning("%s %s: %s did not answer: %s", request.method, request.url.path, where, text)
    message = clip(f"{where} did not answer ({text}); send the request again", 300)
    return ORJSONResponse(
        error_body("unavailable", message), status_code=503, headers={"Retry-After": str(RETRY_AFTER_SECONDS)}
    )


def create_app(settings: Settings | None = None, store: Store | None = None) -> FastAPI:
    """The application, on the store of `settings.database_url` (or the given one)."""
    from api.docs import install_docs
    from api.routes import audits, deals, events, exports, games, pages, replays, review, site, tables
    from api.routes import next as next_events
    from api.routes import players as players_routes
    from api.routes import rescore as rescore_routes
    from api.routes import rules as rules_routes
    from api.routes import tournaments as tournament_routes

    redact_access_log()  # the process that serves this app logs no secret of a request's target
    settings = settings or Settings()
    store = store or Store(settings.database_url, make_engine(settings.database_url, settings.durability))
    app = FastAPI(
        title="Tablebook",
        version="1.0",
        description="Event-sourced game records for card clubs: record, replay, score, audit, export.",
        default_response_class=ORJSONResponse,
        dependencies=[Depends(known_query)],  # an unknown query parameter is a 422 on every API route
        docs_url=None,  # api.docs serves /docs and /redoc, with no CDN
        redoc_url=None,
    )
    app.state.settings = settings
    # the one service of this app, handed to every route by `api.deps.get_service` (its recorder's state cache
    # is the process's); replicas, if any, each have one of their own
    app.state.service = Tablebook(Recorder(store, StateCache(settings.cache_size)))
    if settings.follow_patroni:  # the read models read the log on the synchronous standby (docs/replication.md)
        store.follow_from(
            sync_standby_log(store, settings.follow_patroni, settings.read_urls, durability=settings.durability)
        )
    if settings.read_urls:  # reads on replicas (docs/replication.md); none: every read on `store`, as before
        replicas = [Store(url, make_engine(url, settings.durability)) for url in settings.read_urls]
        app.state.read_routes = ReadRoutes(store, replicas, wait=settings.read_wait)
        app.state.replica_services = {
            id(replica): Tablebook(ReplicaRecorder(replica, StateCache(settings.cache_size))) for replica in replicas
        }

    @app.exception_handler(TablebookError)
    async def domain_error(request: Request, exc: TablebookError) -> Response:
        if exc.code == "not_found" and (page := site.error_page(request, 404)) is not None:
            return page  # a browser on a page that is not there: plain words and a way back
        headers = {"Retry-After": str(exc.details.get("retry_after", 1))} if exc.code == "busy" else None
        return ORJSONResponse({"error": shown_error(exc)}, status_code=STATUS.get(exc.code, 400), headers=headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> ORJSONResponse:
        message, where = _validation_message(exc)
        return ORJSONResponse(error_body("invalid", message, field=where), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code in (404, 405) and (page := site.error_page(request, exc.status_code)) is not None:
            return page
        code = HTTP_CODES.get(exc.status_code, "error")
        message = exc.detail if isinstance(exc.detail, str) else code
        if exc.status_code == 404 and message == "Not Found":
            message = f"no route {request.method} {request.url.path}"
        if exc.status_code == 400:  # FastAPI's "error parsing the body": malformed input is 422 `invalid` here
            return ORJSONResponse(error_body("invalid", f"the body cannot be read as JSON: {message}"), status_code=422)
        return ORJSONResponse(error_body(code, message), status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def bug(request: Request, exc: Exception) -> ORJSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return ORJSONResponse(error_body("internal", "an internal error; this is a bug"), status_code=500)

    async def database_error(request: Request, exc: Exception) -> ORJSONResponse:
        if unavailable(exc):  # the database went away mid-request (a failover, a replica restarting): retry
            return _unavailable(request, exc)
        return await bug(request, exc)

    for database_errors in DATABASE_ERRORS:
        app.add_exception_handler(database_errors, database_error)

    app.include_router(rules_routes.router)  # before games, whose /v1/games/{game_id} would take "rules"
    app.include_router(rescore_routes.router)
    app.include_router(games.router)
    app.include_router(events.router)
    app.include_router(tables.router)
    app.include_router(replays.router)
    app.include_router(review.router)
    app.include_router(audits.router)
    app.include_router(exports.router)
    app.include_router(tournament_routes.router)
    app.include_router(pages.router)
    app.include_router(next_events.router)
    app.include_router(deals.router)
    app.include_router(players_routes.router)
    app.include_router(site.router)
    install_docs(app)

    app.mount("/static", pages.static_files(), name="static")

    @app.get("/", include_in_schema=False)
    async def root(request: Request) -> Response:
        return site.home(request)  # the club's home page; JSON for Accept: application/json

    release = _tablebook_version()

    @app.get(
        "/healthz",
        response_model=Health,
        tags=["service"],
        summary="Is the service up: the database answers",
        responses=errors(422, 503),
    )
    async def healthz() -> Any:
        """`{"ok": true, "database": "sqlite" | "postgresql", "version"}` once the database has answered a
        trivial query (within 5 s), else 503 `unavailable`. No key needed; HEAD gives the status only."""
        headers = {"Cache-Control": "no-store"}
        try:
            await asyncio.wait_for(asyncio.to_thread(_ping, store), HEALTH_TIMEOUT)
        except Exception as exc:
            text = str(exc).strip()
            reason = f"no answer within {HEALTH_TIMEOUT:g} s" if isinstance(exc, TimeoutError) else text.splitlines()[0]
            reason = reason or type(exc).__name__
            log.warning("healthz: the database does not answer: %s", exc)
            message = clip(f"the database ({store.dialect}) does not answer: {reason}", 300)
            return ORJSONResponse(error_body("unavailable", message), status_code=503, headers=headers)
        return ORJSONResponse({"ok": True, "database": store.dialect, "version": release}, headers=headers)

    # the innermost: appends answered without the router and the dependency solver, inside every middleware
    # below and with the exception handlers above (api/routes/events.py)
    app.add_middleware(events.DirectAppend, handlers=app.exception_handlers)
    app.add_middleware(BodyLimit, settings=settings)
    app.add_middleware(StorableText)  # it refuses before anything is read
    app.add_middleware(HeadAsGet)
    if settings.cors_origins:  # the outermost: every answer, errors and 413s included, carries the CORS headers
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["GET", "HEAD", "POST", "DELETE"],
            allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "Last-Event-ID"],
            max_age=600,
        )
    app.add_middleware(NoSniff)  # outermost of all: every answer carries it
    return app
