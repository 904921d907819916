"""Replays: a hand frame by frame, and the live stream of a game's events."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Header, Query, Request
from sse_starlette import EventSourceResponse, ServerSentEvent

from api.deps import PrincipalDep, RecorderDep, get_principal
from api.models import GAME, STREAM_RESPONSE, Replay, errors
from api.visibility import shown_envelopes, sight_of, viewpoint_for
from events.errors import NotFoundError, TablebookError
from events.schema import ascii_integer
from projections.replay import hand_frames

router = APIRouter(prefix="/v1/games/{game_id}", tags=["replays"])

#: how often the stream looks for new events
POLL_SECONDS = 0.25
#: how often it sends a keep-alive comment (sse-starlette's ping), whatever else it sends
KEEPALIVE_SECONDS = 15.0
#: how often an idle stream checks its key again (it also checks before sending new events): a revoked key
#: or share link stops streaming at once
RECHECK_SECONDS = 1.0
#: how long a client waits before it reconnects (the stream's first field)
RETRY_MILLISECONDS = 1000
#: the line end of the stream's fields: `\n`, as before sse-starlette (whose default is `\r\n`)
SEP = "\n"


@router.get("/replay", summary="A hand, frame by frame", responses={200: {"model": Replay}, **errors(*GAME)})
async def replay(
    game_id: str,
    principal: PrincipalDep,
    recorder: RecorderDep,
    hand: Annotated[int, Query(ge=0, description="the hand to replay (0: the events before the first deal)")],
    seat: Annotated[int | None, Query(ge=0, le=7, description="the seat to look from (default: everything)")] = None,
) -> dict[str, Any]:
    """`{game, hand, viewpoint, frames: [{seq, event, result, state}]}`, one frame per event of the hand."""
    live = recorder.live(game_id, principal.club_id)
    viewpoint = viewpoint_for(sight_of(principal, recorder.store, live), seat, live.state.seats, hand)
    span = recorder.hand_span(live, hand)
    if span is None:
        last = live.state.hand if live.state.seq else 0
        raise NotFoundError(
            f"hand {hand} is not in this game (its hands are 1 to {last})" if last else "this game has no hand yet"
        )
    start, envelopes, last_seq = span  # from the state before the hand (a snapshot): not from event 1
    frames = hand_frames(live.rules, start, envelopes, hand, viewpoint, live.game.players)
    later = recorder.store.retracts(game_id, last_seq, live.state.seq)
    for frame in frames:  # a retract after the hand's last event may take some of it back
        if "retracted_by" not in frame:
            by = next((r for r, to in later if to < frame["seq"] < r), None)
            if by is not None:
                frame["retracted_by"] = by
    return {"game": game_id, "hand": hand, "viewpoint": frames[0]["state"]["viewpoint"], "frames": frames}


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
    recorder: RecorderDep,
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
    recorder.live(game_id, principal.club_id)
    start = after
    resume = (last_event_id or "").strip()  # ASCII digits only, bounded: anything else is 422, not a 500
    if resume:
        start = max(start, ascii_integer(resume, "last_event_id"))

    async def events() -> AsyncIterator[ServerSentEvent]:
        sent, cursor = 0, start
        checked = time.monotonic()
        yield ServerSentEvent(retry=RETRY_MILLISECONDS, sep=SEP)
        while True:
            fresh = recorder.store.read_events(game_id, cursor, 500)
            if fresh or time.monotonic() - checked >= RECHECK_SECONDS:
                # a key (or share link) revoked meanwhile ends its streams: checked before anything new is
                # sent, and every RECHECK_SECONDS while idle
                checked = time.monotonic()
                try:
                    await get_principal(request)
                except TablebookError as refused:
                    yield ServerSentEvent(_json({"error": refused.to_dict()}), event="error", sep=SEP)
                    return
            if fresh:
                # what may be seen is decided at the head read now (after the events: a head commits with
                # its events), and only events up to it are sent
                live = recorder.live(game_id, principal.club_id)
                visible = [env for env in fresh if env["seq"] <= live.state.seq]
                for env in shown_envelopes(sight_of(principal, recorder.store, live), visible):
                    yield ServerSentEvent(_json(env), id=str(env["seq"]), event="envelope", sep=SEP)
                    cursor, sent = env["seq"], sent + 1
                    if limit is not None and sent >= limit:
                        return
                if visible:
                    continue  # rows past the head (a forged one) are never sent: wait as when idle
            if not follow:
                return
            await asyncio.sleep(POLL_SECONDS)  # a client that leaves cancels this (sse-starlette listens)

    return EventSourceResponse(
        events(),
        headers={"Cache-Control": "no-cache"},
        ping=KEEPALIVE_SECONDS,
        ping_message_factory=_keep_alive,
        sep=SEP,
    )


def _json(value: Any) -> str:
    """One line of JSON (orjson escapes every line break inside strings)."""
    return orjson.dumps(value).decode()


def _keep_alive() -> ServerSentEvent:
    return ServerSentEvent(comment="keep-alive", sep=SEP)
