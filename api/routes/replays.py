"""Replays: a hand frame by frame, and the live stream of a game's events."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import AsyncIterator, Iterator
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Header, Query, Request
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.concurrency import run_in_threadpool

from api.deps import READ_FROM_HEADER, PrincipalDep, ServiceDep, get_principal, min_seq_of, stream_reads
from api.models import GAME, STREAM_RESPONSE, errors
from api.service import Tablebook
from api.state_models import Replay
from events.errors import TablebookError
from events.schema import ascii_integer
from events.store.notify import Subscription

log = logging.getLogger(__name__)

router = APIRouter(prefix="/v1/games/{game_id}", tags=["replays"])

#: how often it sends a keep-alive comment (sse-starlette's ping), whatever else it sends
KEEPALIVE_SECONDS = 15.0
#: how often the keys of idle streams are checked again, once per key in a process (each stream
#: also checks before it sends new events): a revoked key or share link stops streaming at once
RECHECK_SECONDS = 1.0
#: how long a client waits before it reconnects (the stream's first field)
RETRY_MILLISECONDS = 1000
#: the line end of the stream's fields: `\n`, as before sse-starlette (whose default is `\r\n`)
SEP = "\n"


@router.get("/replay", summary="A hand, frame by frame", responses={200: {"model": Replay}, **errors(*GAME)})
def replay(
    game_id: str,
    principal: PrincipalDep,
    service: ServiceDep,
    hand: Annotated[int, Query(ge=0, description="the hand to replay (0: the events before the first deal)")],
    seat: Annotated[int | None, Query(ge=0, le=7, description="the seat to look from (default: everything)")] = None,
) -> dict[str, Any]:
    """`{game, hand, viewpoint, frames: [{seq, event, result, state}]}`, one frame per event of the hand."""
    return service.replay(principal, game_id, hand=hand, seat=seat)


@router.get(
    "/stream",
    summary="Server-sent events, live",
    response_class=EventSourceResponse,
    responses={200: STREAM_RESPONSE, **errors(401, 404, 422)},
)
async def stream(
    game_id: str,
    request: Request,
    principal: PrincipalDep,
    service: ServiceDep,
    after: Annotated[int, Query(ge=0, description="start after this seq (or send Last-Event-ID)")] = 0,
    limit: Annotated[int | None, Query(ge=1, description="close after this many events")] = None,
    follow: Annotated[bool, Query(description="false: send what is there, then close")] = True,
    last_event_id: Annotated[str | None, Header()] = None,
    access_token: Annotated[  # read by api.deps.get_principal; declared here for the OpenAPI schema
        str | None, Query(description="a key or share token, for EventSource clients that cannot send headers")
    ] = None,
) -> EventSourceResponse:
    """Each new envelope as an SSE `envelope` event whose id is its seq (redacted for viewers).

    The stream begins with `retry: 1000`, sends a `: keep-alive` comment every 15 s, and ends with an
    `error` event (`{"error": {...}}`) when its key or share link is revoked. Lines end with LF.
    """
    await run_in_threadpool(service.game, principal, game_id)  # 404 before the stream opens
    start = after
    resume = (last_event_id or "").strip()  # ASCII digits only, bounded: anything else is 422, not a 500
    if resume:
        start = max(start, ascii_integer(resume, "last_event_id"))
    # the pages on a replica that has reached the primary's head (api.deps.stream_reads), the wake-ups from
    # the primary's NOTIFY (`service` is the primary's): the first page's source is the answer's header
    first: tuple[Tablebook, str] | None = await run_in_threadpool(stream_reads, request, game_id, min_seq_of(request))

    async def events() -> AsyncIterator[ServerSentEvent]:
        nonlocal first
        sent, cursor = 0, start
        yield ServerSentEvent(retry=RETRY_MILLISECONDS, sep=SEP)
        with contextlib.ExitStack() as open_:
            # subscribed before the first read: an append after any read wakes the wait after it
            woken = open_.enter_context(service.subscribe(game_id)) if follow else None
            watched = open_.enter_context(_watched(request, woken)) if woken is not None else None
            while True:
                if woken is not None:
                    woken.clear()
                if watched is not None and watched.refused is not None:
                    # the key (or share link) was revoked while the stream was idle (_Rechecks)
                    yield ServerSentEvent(_json({"error": watched.refused.to_dict()}), event="error", sep=SEP)
                    return
                pages, _ = first if first is not None else await run_in_threadpool(stream_reads, request, game_id)
                first = None
                fresh = await run_in_threadpool(pages.rows_after, game_id, cursor, 500)
                if fresh:
                    # a key (or share link) revoked meanwhile ends its streams: checked against the
                    # database before anything new is sent (and every RECHECK_SECONDS while idle)
                    try:
                        await get_principal(request)
                    except TablebookError as refused:
                        yield ServerSentEvent(_json({"error": refused.to_dict()}), event="error", sep=SEP)
                        return
                    any_visible, envelopes = await run_in_threadpool(pages.shown_at_head, principal, game_id, fresh)
                    for env in envelopes:
                        yield ServerSentEvent(_json(env), id=str(env["seq"]), event="envelope", sep=SEP)
                        cursor, sent = env["seq"], sent + 1
                        if limit is not None and sent >= limit:
                            return
                    if any_visible:
                        continue  # rows past the head (a forged one) are never sent: wait as when idle
                if woken is None:
                    return
                await woken.wait()  # an append of this game (events/store/notify.py); a client that leaves cancels it

    headers = {"Cache-Control": "no-cache"}
    if getattr(request.app.state, "read_routes", None) is not None:
        headers[READ_FROM_HEADER] = first[1] if first is not None else "primary"
    return EventSourceResponse(
        events(),
        headers=headers,
        ping=KEEPALIVE_SECONDS,
        ping_message_factory=_keep_alive,
        sep=SEP,
    )


def _json(value: Any) -> str:
    """One line of JSON (orjson escapes every line break inside strings)."""
    return orjson.dumps(value).decode()


def _keep_alive() -> ServerSentEvent:
    return ServerSentEvent(comment="keep-alive", sep=SEP)


class _Watched:
    """An idle stream's credential, checked again by its event loop's `_Rechecks`."""

    __slots__ = ("refused", "request", "woken")

    def __init__(self, request: Request, woken: Subscription) -> None:
        self.request = request
        self.woken = woken
        #: set (and the stream woken) when a recheck refused the credential
        self.refused: TablebookError | None = None


class _Rechecks:
    """Every RECHECK_SECONDS, each credential of the idle streams of one event loop is checked once.

    A check per stream and second was 1,000 key lookups a second for 1,000 open streams (and a timer
    each); streams that send the same credential are one group here, checked with the request of one of
    them (a share token's streams are all of its own game: another game is refused when it opens). A
    refusal ends every stream of the group. This only ends idle streams sooner: a stream about to send
    events checks its own credential against the database first, whatever this says.
    """

    def __init__(self) -> None:
        self.groups: dict[tuple[str, str], set[_Watched]] = {}
        self.task: asyncio.Task[None] | None = None

    @staticmethod
    def key_of(request: Request) -> tuple[str, str]:
        """The credential the request sends (a share token's streams are all of its own game)."""
        return request.headers.get("authorization") or "", request.query_params.get("access_token") or ""

    def add(self, watched: _Watched) -> None:
        self.groups.setdefault(self.key_of(watched.request), set()).add(watched)
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self.run())

    def discard(self, watched: _Watched) -> None:
        key = self.key_of(watched.request)
        group = self.groups.get(key)
        if group is not None:
            group.discard(watched)
            if not group:
                del self.groups[key]

    async def run(self) -> None:
        try:
            while self.groups:
                await asyncio.sleep(RECHECK_SECONDS)
                for group in list(self.groups.values()):
                    member = next(iter(group), None)
                    if member is None:
                        continue
                    try:
                        await get_principal(member.request)
                    except TablebookError as refused:
                        for watched in list(group):
                            watched.refused = refused
                            watched.woken.wake()
                    except Exception:  # the database is down, say: the next round tries again
                        log.exception("rechecking the key of %d stream(s) failed", len(group))
        finally:
            self.task = None


_rechecks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Rechecks] = weakref.WeakKeyDictionary()


@contextlib.contextmanager
def _watched(request: Request, woken: Subscription) -> Iterator[_Watched]:
    """The stream's credential in its event loop's rechecks, for as long as the stream is open."""
    loop = asyncio.get_running_loop()
    rechecks = _rechecks.get(loop)
    if rechecks is None:
        rechecks = _rechecks[loop] = _Rechecks()
    watched = _Watched(request, woken)
    rechecks.add(watched)
    try:
        yield watched
    finally:
        rechecks.discard(watched)
