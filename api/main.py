"""The FastAPI application: routers, the error shape, and body limits.

Every failure answers `{"error": {"code", "message", ...}}` (DESIGN.md): the
domain's errors are mapped to statuses here, once; FastAPI's own validation
and routing errors are reshaped; anything else is a bug and a 500.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from api.responses import ORJSONResponse, error_body
from api.settings import Settings
from events.errors import TablebookError
from events.store import Store
from projections.recorder import Recorder, StateCache

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
                message = await asyncio.wait_for(receive(), max(0.0, deadline - asyncio.get_running_loop().time()))
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


def _validation_message(exc: RequestValidationError) -> tuple[str, str]:
    errors = exc.errors()
    if not errors:
        return "the request is malformed", ""
    first = errors[0]
    where = ".".join(str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path"))
    return (f"{where}: {first.get('msg', 'invalid')}" if where else str(first.get("msg", "invalid"))), where


def create_app(settings: Settings | None = None, store: Store | None = None) -> FastAPI:
    """The application, on the store of `settings.database_url` (or the given one)."""
    from api.routes import audits, events, exports, games, pages, replays, tables

    settings = settings or Settings()
    store = store or Store(settings.database_url)
    app = FastAPI(
        title="Tablebook",
        version="1.0",
        description="Event-sourced game records for card clubs: record, replay, score, audit, export.",
        default_response_class=ORJSONResponse,
    )
    app.state.settings = settings
    app.state.recorder = Recorder(store, StateCache(settings.cache_size))

    @app.exception_handler(TablebookError)
    async def domain_error(request: Request, exc: TablebookError) -> ORJSONResponse:
        return ORJSONResponse({"error": exc.to_dict()}, status_code=STATUS.get(exc.code, 400))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> ORJSONResponse:
        message, where = _validation_message(exc)
        return ORJSONResponse(error_body("invalid", message, field=where), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> ORJSONResponse:
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

    app.include_router(games.router)
    app.include_router(events.router)
    app.include_router(tables.router)
    app.include_router(replays.router)
    app.include_router(audits.router)
    app.include_router(exports.router)
    app.include_router(pages.router)

    @app.get("/", include_in_schema=False)
    async def root() -> dict[str, Any]:
        return {"service": "tablebook", "docs": "/docs", "api": "/v1/games"}

    app.add_middleware(BodyLimit, settings=settings)
    return app
