"""Dependencies shared by the routes: the application service, the recorder and the calling principal.

Every route but the live stream calls the service (`projections/service.py`), built once per app
over the app's recorder; the stream still reads through the recorder.

The principal comes from `Authorization: Bearer <key or share token>`. Two
exceptions to the header, both for reading:

- `GET /v1/games/{id}/stream` also takes `?access_token=<key or share
  token>`, because a browser's `EventSource` cannot send headers. The replay
  page itself streams with `fetch()` and the header, so no secret lands in a
  URL; prefer share tokens in URLs (server logs and proxies may keep them).
- A share token reads only its own game (another game is not found, 404) and
  only the routes of a replay (`SHARE_ROUTES`, GET): anything else is 403.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from starlette.concurrency import run_in_threadpool

from api.auth import Principal, authenticate
from events.errors import ForbiddenError, NotFoundError
from events.store import Store
from projections.recorder import Recorder
from projections.service import Tablebook

#: the routes (templates) a share token may read
SHARE_ROUTES = frozenset(
    {
        "/v1/games/{game_id}",
        "/v1/games/{game_id}/state",
        "/v1/games/{game_id}/replay",
        "/v1/games/{game_id}/score",
        "/v1/games/{game_id}/events",
        "/v1/games/{game_id}/stream",
        "/v1/games/{game_id}/hands",
        "/v1/games/{game_id}/deals",
    }
)
#: the only route that accepts its credential as the `access_token` query parameter
QUERY_TOKEN_ROUTES = frozenset({"/v1/games/{game_id}/stream"})


async def get_recorder(request: Request) -> Recorder:
    recorder: Recorder = request.app.state.recorder
    return recorder


async def get_service(request: Request) -> Tablebook:
    """The app's service, over `app.state.recorder` (made at the first request; an `async` dependency runs on
    the event loop's one thread, so it is made once)."""
    state = request.app.state
    recorder: Recorder = state.recorder
    service: Tablebook | None = getattr(state, "service", None)
    if service is None or service.recorder is not recorder:
        service = Tablebook(recorder)
        state.service = service
    return service


def _route_path(request: Request) -> str:
    route = request.scope.get("route")
    return str(getattr(route, "path", request.url.path))


def _store(request: Request) -> Store:
    """The store the key checks read (the recorder's), for `api.auth.authenticate`."""
    store: Store = request.app.state.recorder.store
    return store


async def get_principal(request: Request) -> Principal:
    """Who calls, checked against the database on every request (a revoked key is refused at once, in
    every process).

    Where the lookup runs was measured (16 clients appending one event a request, wrk): on SQLite it is
    a read of a local file, about 0.05 ms, and it stays on the event loop, because a hop to the
    threadpool waits for the GIL behind the loop (739 req/s at p99 34 ms in the threadpool, 897 at p99
    25 ms on the loop); on PostgreSQL it is a network round trip, which would stall every request of
    the process meanwhile, so it goes to the threadpool (one worker: about 450 req/s there, 330 on the
    loop).
    """
    route = _route_path(request)
    authorization = request.headers.get("authorization")
    if not authorization and route in QUERY_TOKEN_ROUTES:
        token = request.query_params.get("access_token")
        if token:
            authorization = f"Bearer {token}"
    store = _store(request)
    if store.dialect == "sqlite":
        principal = authenticate(store, authorization)
    else:
        principal = await run_in_threadpool(authenticate, store, authorization)
    if principal.is_share:
        game_id = request.path_params.get("game_id")
        if game_id is not None and game_id != principal.game_id:
            raise NotFoundError(f"no game {game_id!r}")
        if request.method not in ("GET", "HEAD") or route not in SHARE_ROUTES:
            raise ForbiddenError("a share link only reads its game's replay (finished hands)", role=principal.role)
    return principal


RecorderDep = Annotated[Recorder, Depends(get_recorder)]
ServiceDep = Annotated[Tablebook, Depends(get_service)]
PrincipalDep = Annotated[Principal, Depends(get_principal)]
