"""Dependencies shared by the routes: the application service and the calling principal.

Every route calls the service (`api/service/`), built once by `api.main.create_app` (`app.state.service`)
and handed to the routes here: the primary's, or a replica's for the reads a replica may serve.

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

from functools import partial
from typing import Annotated

from fastapi import Depends, Request, Response
from starlette.concurrency import run_in_threadpool

from api.auth import Principal, authenticate, authenticate_for_game, known_key
from api.service import Tablebook
from events.errors import ForbiddenError, InvalidEventError, NotFoundError
from events.store import GameRecord, KeyRecord, Store
from events.store.replicas import PRIMARY, ReadRoutes

#: the routes (templates) a share token may read
SHARE_ROUTES = frozenset(
    {
        "/v1/games/{game_id}",
        "/v1/games/{game_id}/state",
        "/v1/games/{game_id}/replay",
        "/v1/games/{game_id}/review",
        "/v1/games/{game_id}/score",
        "/v1/games/{game_id}/events",
        "/v1/games/{game_id}/stream",
        "/v1/games/{game_id}/hands",
    }
)
#: the only route that accepts its credential as the `access_token` query parameter
QUERY_TOKEN_ROUTES = frozenset({"/v1/games/{game_id}/stream"})


#: the reads a replica may serve when TABLEBOOK_READ_URLS names some (docs/replication.md); every write and
#: every read that writes (search catches the read model up, keys, next) stay on the primary. The stream
#: reads its pages on a replica too, page by page (`stream_reads`), its wake-up coming from the primary
REPLICA_ROUTES = frozenset(
    {
        "/v1/games/{game_id}",
        "/v1/games/{game_id}/state",
        "/v1/games/{game_id}/replay",
        "/v1/games/{game_id}/score",
        "/v1/games/{game_id}/verify",
        "/v1/games/{game_id}/events",
        "/v1/games/{game_id}/audit",
        "/v1/games/{game_id}/export",
        "/v1/export",
    }
)
#: read-your-writes: the seq a read must reflect at least (the one an append answered)
MIN_SEQ_HEADER = "Tablebook-Min-Seq"
#: on every answer routed by ReadRoutes: `replica` or `primary`
READ_FROM_HEADER = "Tablebook-Read-From"


def min_seq_of(request: Request) -> int | None:
    """The `Tablebook-Min-Seq` header: None if absent.

    Raises:
        InvalidEventError: it is not a whole number.
    """
    raw = request.headers.get(MIN_SEQ_HEADER)
    if raw is None or not raw.strip():
        return None
    try:
        return int(raw.strip())
    except ValueError:
        raise InvalidEventError(f"{MIN_SEQ_HEADER} must be a whole number (a seq), not {raw[:40]!r}") from None


async def get_service(request: Request, response: Response) -> Tablebook:
    """The app's service (`app.state.service`, made by `create_app`).

    With replicas (TABLEBOOK_READ_URLS), a GET of `REPLICA_ROUTES` gets the service of the replica
    `ReadRoutes` chooses (with `Tablebook-Min-Seq`: one that has reached it, else the primary's), and the
    answer says which in `Tablebook-Read-From`.
    """
    state = request.app.state
    routes: ReadRoutes | None = getattr(state, "read_routes", None)
    if routes is not None and request.method in ("GET", "HEAD") and _route_path(request) in REPLICA_ROUTES:
        game_id = request.path_params.get("game_id")
        chosen, where = await run_in_threadpool(routes.store_for, game_id, min_seq_of(request))
        response.headers[READ_FROM_HEADER] = where
        request.state.read_store = chosen  # a failure under the read leaves that replica out (api.main)
        return service_of(request, chosen)
    return service_of(request, None)


def service_of(request: Request, store: Store | None) -> Tablebook:
    """The app's service over `store` (one of the replicas of `read_routes`), or over the primary (None)."""
    state = request.app.state
    routes: ReadRoutes | None = getattr(state, "read_routes", None)
    if routes is not None and store is not None and store is not routes.primary:
        replica: Tablebook = state.replica_services[id(store)]
        return replica
    service: Tablebook = state.service
    return service


def stream_reads(request: Request, game_id: str, min_seq: int | None = None) -> tuple[Tablebook, str]:
    """Where a live stream reads its next page (in a worker thread): the service and `replica` or `primary`.

    NOTIFY is not replicated, so the stream's wake-up comes from the primary (events/store/notify.py, on the
    primary's store); its pages may come from a replica. After each wake-up the game's head is read on the
    primary (one indexed row) and the page goes to a replica only once that replica has reached it
    (`ReadRoutes.store_for` with that min seq: waiting up to TABLEBOOK_READ_WAIT), else to the primary: a
    stream never shows less than the primary had when it woke, so no event waits for the next append.
    Without replicas: the primary's service.
    """
    routes: ReadRoutes | None = getattr(request.app.state, "read_routes", None)
    if routes is None:
        return service_of(request, None), PRIMARY
    head = routes.head_on(routes.primary, game_id)
    wanted = max(head or 0, min_seq or 0)
    chosen, where = routes.store_for(game_id, wanted if wanted > 0 else None)
    request.state.read_store = chosen
    return service_of(request, chosen), where


def _route_path(request: Request) -> str:
    route = request.scope.get("route")
    return str(getattr(route, "path", request.url.path))


def _store(request: Request) -> Store:
    """The store the key checks read (the primary's), for `api.auth.authenticate`."""
    store: Store = request.app.state.service.store
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
    principal, _ = await _authenticated(request, with_game=False)
    return principal


def appends_on_loop(request: Request) -> bool:
    """Whether this app's appends are decided and written on the event loop (SQLite; PostgreSQL: in a worker
    thread, `get_appender`)."""
    return _store(request).dialect == "sqlite"


async def get_appender(request: Request) -> Principal | None:
    """`get_principal` for a request that writes to the game of its path (an append): the key and the game's row
    read in one round trip (`api.auth.authenticate_for_game`), the row kept in `request.state.game` for the
    write to start from (None: no such game in the key's club, which the write then says).

    PostgreSQL: None, and nothing read yet: the route checks the key (`appender`) in the same worker thread
    as its append, one hop to the threadpool a request rather than two (each costs the loop a wake-up and
    the GIL's hand-over: measured with bench/append_profile.py).
    """
    if not appends_on_loop(request):
        return None
    return appender(request)


def appender(request: Request) -> Principal:
    """What `get_appender` does, on the calling thread: the principal, its game's row in `request.state.game`.

    Raises:
        UnauthorizedError, ForbiddenError, NotFoundError: as `get_principal`.
    """
    game_id = request.path_params.get("game_id")
    authorization = request.headers.get("authorization")
    if isinstance(game_id, str):
        principal, game = authenticate_for_game(_store(request), authorization, game_id)
    else:
        principal, game = authenticate(_store(request), authorization), None
    _admit(request, principal)
    request.state.game = game
    return principal


def known_appender(request: Request) -> tuple[Principal, KeyRecord] | None:
    """PostgreSQL, an append: the principal of the request's key and the key's row as this process read it on an
    earlier request (`api.auth.known_key`), for the append's statement to check in the database
    (`api.routes.events._append_known`); None if this process has not read that key valid. Nothing is read."""
    return known_key(_store(request), request.headers.get("authorization"))


async def _authenticated(request: Request, *, with_game: bool) -> tuple[Principal, GameRecord | None]:
    route = _route_path(request)
    authorization = request.headers.get("authorization")
    if not authorization and route in QUERY_TOKEN_ROUTES:
        token = request.query_params.get("access_token")
        if token:
            authorization = f"Bearer {token}"
    store = _store(request)
    game_id = request.path_params.get("game_id")
    game: GameRecord | None = None
    if with_game and isinstance(game_id, str):
        check = partial(authenticate_for_game, store, authorization, game_id)
    else:
        check = partial(_alone, store, authorization)
    if store.dialect == "sqlite":
        principal, game = check()
    else:
        principal, game = await run_in_threadpool(check)
    _admit(request, principal)
    return principal, game


def _admit(request: Request, principal: Principal) -> None:
    """A share token reads its own game's replay only: another game is not found, anything else forbidden."""
    if principal.is_share:
        game_id = request.path_params.get("game_id")
        if game_id is not None and game_id != principal.game_id:
            raise NotFoundError(f"no game {game_id!r}")
        if request.method not in ("GET", "HEAD") or _route_path(request) not in SHARE_ROUTES:
            raise ForbiddenError("a share link only reads its game's replay (finished hands)", role=principal.role)


def _alone(store: Store, authorization: str | None) -> tuple[Principal, GameRecord | None]:
    return authenticate(store, authorization), None


ServiceDep = Annotated[Tablebook, Depends(get_service)]
PrincipalDep = Annotated[Principal, Depends(get_principal)]
#: the principal of an append, its game's row read with its key (`get_appender`; PostgreSQL: None, see there)
AppenderDep = Annotated[Principal | None, Depends(get_appender)]
