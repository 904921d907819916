"""A game's events: append a batch (all or nothing), read them back."""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Header, Query, Request

from api.auth import CORRECTIONS
from api.deps import PrincipalDep, RecorderDep
from api.models import APPEND_EXAMPLES, BODY, GAME, Appended, EventPage, errors
from api.visibility import shown_envelopes, sight_of
from events.codec import canonical, sha256_hex
from events.errors import ForbiddenError, InvalidEventError

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


def _body_hash(document: Any) -> str:
    """The hash an Idempotency-Key is bound to: of the canonical body, so key order and spacing do not matter."""
    try:
        return sha256_hex(canonical(document))
    except orjson.JSONEncodeError:  # orjson encodes at most 254 levels; no event is nested a tenth as deep
        raise InvalidEventError("the body is nested too deeply to be an append", field="events") from None


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
    principal: PrincipalDep,
    recorder: RecorderDep,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> dict[str, Any]:
    """Append a batch: every event is checked in order; one refusal and nothing is written.

    With `expected_seq`, the batch lands only on that head (409 `seq_conflict`
    otherwise). With an `Idempotency-Key`, a retry returns the first result.
    """
    principal.require("recorder", "auditor")
    events, expected_seq, document = _parse_append(await request.body())
    if principal.role == "auditor":
        for index, event in enumerate(events):
            kind = event.get("type") if isinstance(event, dict) else None
            if kind not in CORRECTIONS:
                raise ForbiddenError(
                    f"an auditor key appends only corrections ({', '.join(sorted(CORRECTIONS))}), not {kind!r}",
                    index=index,
                )
    idempotency = (idempotency_key, _body_hash(document)) if idempotency_key else None
    stored = recorder.append(
        game_id,
        events,
        club_id=principal.club_id,
        actor=principal.actor,
        expected_seq=expected_seq,
        idempotency=idempotency,
    )
    return {"events": stored}


@router.get("", summary="Read events", responses={200: {"model": EventPage}, **errors(401, 404, 422)})
async def read_events(
    game_id: str,
    principal: PrincipalDep,
    recorder: RecorderDep,
    after: Annotated[int, Query(ge=0, description="only events with a seq above this")] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 1000,
) -> dict[str, Any]:
    """Envelopes in seq order (a viewer's live-hand cards are redacted)."""
    live, envelopes = recorder.read(game_id, principal.club_id, after, limit)
    shown = shown_envelopes(sight_of(principal, recorder.store, live), envelopes)
    return {"events": shown, "head": live.state.seq}
