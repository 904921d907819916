"""Hand histories: export a game (json, jsonl, text, csv), import one (or many), bulk NDJSON export.

Viewer keys get a live hand's hidden cards redacted here too (`api/visibility.py`):
such an export says `"redacted": true` (text: a `Redacted` tag) and cannot be
imported, since its hashes no longer match its events.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from api.auth import Principal
from api.deps import PrincipalDep, RecorderDep
from api.models import AUTH, BODY, GAME, BulkImported, ImportedGame, errors
from api.queries import SINCE, UNTIL, GameKind, Moment, stored_time
from api.responses import ORJSONResponse
from api.routes.games import game_public
from api.visibility import shown_envelopes, sight_over
from events.envelope import Envelope
from events.store import GameRecord
from projections.histories import export, importer
from projections.histories.errors import BadImportError
from projections.registry import KINDS
from projections.rules import GameRules

router = APIRouter(tags=["exports"])

Format = Literal["json", "jsonl", "text", "csv"]

IMPORT_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "description": "a json, jsonl or text export (at most 64 MiB); the format is recognised unless `format` "
        "is given",
        "content": {
            "application/json": {"schema": {"type": "object"}},
            "application/x-ndjson": {"schema": {"type": "string"}},
            "text/plain": {"schema": {"type": "string"}},
        },
    }
}


def _viewer_redactor(principal: Principal) -> export.Redactor | None:
    """For a viewer key: the envelopes with the live hand's hidden cards replaced by `??`."""
    if principal.sees_everything:
        return None

    def redact(rules: GameRules[Any], state: Any, envelopes: list[Envelope]) -> list[Envelope]:
        return shown_envelopes(sight_over(principal, rules, state, envelopes), envelopes)

    return redact


def _attachment(game_id: str, fmt: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{game_id}.{export.SUFFIXES[fmt]}"'}


@router.get(
    "/v1/games/{game_id}/export",
    summary="Export a game: json, jsonl (re-importable), text hand history, csv score sheet",
    response_class=Response,
    responses={
        200: {
            "content": {
                "application/json": {"schema": {"type": "object", "description": "`{header, events}`"}},
                "application/x-ndjson": {"schema": {"type": "string"}},
                "text/plain": {"schema": {"type": "string"}},
                "text/csv": {"schema": {"type": "string"}},
            },
            "description": "the export",
        },
        **errors(*GAME),
    },
)
def export_game(
    game_id: str,
    principal: PrincipalDep,
    recorder: RecorderDep,
    format: Annotated[Format, Query(description="json, jsonl, text or csv")] = "json",
) -> Response:
    """The whole game. json/jsonl: the header `{"format": "tablebook/1", id, game, club, players, options,
    created_at, ..., seq, head_hash}` and every envelope with its hash; text: the hand history of
    `docs/hand-history.md`; csv: `hand, seat, player, points, running_total, rule, reason, seqs`."""
    live, envelopes = recorder.read(game_id, principal.club_id)  # the head state: folded from a snapshot
    game, rules, state = live.game, live.rules, live.state
    shown = shown_envelopes(sight_over(principal, rules, state, envelopes), envelopes)
    head_hash = envelopes[-1]["hash"] if envelopes else game.genesis_hash
    head = export.header(game, principal.club, seq=len(envelopes), head_hash=head_hash, state=state, rules=rules)
    export.mark_redacted(head, shown)
    headers = _attachment(game_id, format)
    if format == "json":
        return ORJSONResponse(export.json_document(head, shown), headers=headers)
    if format == "jsonl":
        body = b"".join(export.jsonl_lines(head, shown))
        return Response(body, media_type=export.MEDIA_TYPES["jsonl"], headers=headers)
    if format == "text":
        text = "".join(export.text_lines(head, rules, envelopes, shown))
        return Response(text, media_type=export.MEDIA_TYPES["text"], headers=headers)
    sheet = export.score_csv(game.players, rules.score(state.game))
    return Response(sheet, media_type=export.MEDIA_TYPES["csv"], headers=headers)


@router.get(
    "/v1/export",
    summary="Bulk export: the club's games as NDJSON, streamed",
    response_class=StreamingResponse,
    responses={
        200: {"content": {"application/x-ndjson": {"schema": {"type": "string"}}}, "description": "NDJSON lines"},
        **errors(*AUTH),
    },
)
def bulk_export(
    principal: PrincipalDep,
    recorder: RecorderDep,
    game: Annotated[GameKind | None, Query(description="only this game kind: " + ", ".join(KINDS))] = None,
    since: Annotated[Moment | None, Query(description=SINCE)] = None,
    until: Annotated[Moment | None, Query(description=UNTIL)] = None,
    cursor: Annotated[str | None, Query(description="resume after the game of this cursor")] = None,
    limit: Annotated[int | None, Query(ge=1, le=100_000, description="at most this many games")] = None,
) -> StreamingResponse:
    """Every matching game of the club, oldest first, in constant memory: for each game its jsonl export
    (a header line, then one envelope a line), then `{"cursor", "after"}`; the last line is
    `{"next_cursor", "games"}` (`next_cursor` is null when nothing more matched). Resume an interrupted
    download with the last `cursor` seen. `tablebook import` reads this file back."""
    if cursor is not None:
        export.decode_cursor(cursor)  # a bad cursor is a 422 before the stream begins
    lines: Iterator[bytes] = export.bulk_lines(
        recorder.store,
        club_id=principal.club_id,
        kind=game.value if game is not None else None,
        since=stored_time(since),
        until=stored_time(until),
        cursor=cursor,
        limit=limit,
        redact=_viewer_redactor(principal),
    )
    # the first query runs before the answer starts: if it fails, the client gets an error status and
    # body (parameters no store can hold are refused even earlier, by api.main.StorableText), not a 200
    # cut short; a failure later ends the stream with an `{"error"}` line
    first = next(lines, b"")
    return StreamingResponse(itertools.chain((first,), lines), media_type=export.MEDIA_TYPES["jsonl"])


async def _body(request: Request) -> bytes:
    body = await request.body()
    if not body.strip():
        raise BadImportError("the request body is empty: send a json, jsonl or text export")
    return body


@router.post(
    "/v1/import",
    status_code=201,
    summary="Import one game (json, jsonl or text)",
    openapi_extra=IMPORT_BODY,
    responses={
        200: {
            "model": ImportedGame,
            "description": "the game is already in the club: the existing game, and `duplicate_of` its id",
        },
        201: {"model": ImportedGame, "description": "a new game"},
        **errors(*AUTH, *BODY),
    },
)
async def import_game(
    request: Request,
    response: Response,
    principal: PrincipalDep,
    recorder: RecorderDep,
    format: Annotated[Literal["json", "jsonl", "text"] | None, Query(description="default: recognised")] = None,
    copy: Annotated[
        bool, Query(description="import it as a new game even if the club has it already (same record)")
    ] = False,
) -> dict[str, Any]:
    """A new game in the caller's club (201), after checking the chain and re-running the rules on every
    event. json/jsonl keep every envelope as exported (same times, actors, hashes: the same head hash);
    text events are decided again and get this import's time and key. A bad file gets 422 naming the
    line (jsonl, text) or event index (json) and the reason, and nothing is written.

    A game the club has already (the same genesis and head hash, or the same genesis and the same
    events: a text history imported again) is not imported again: the answer is 200 with the existing
    game and `duplicate_of` its id. `copy=true` imports it anyway, as a new game (201)."""
    principal.require("recorder")
    body = await _body(request)
    fmt = format or importer.sniff(body)

    def work() -> tuple[importer.Imported, GameRecord, bool]:  # parse, verify and write off the event loop
        checked = importer.read_file(body, actor=principal.actor, fmt=fmt)
        return checked, *importer.import_or_find(recorder.store, principal.club_id, checked, copy=copy)

    checked, record, duplicate = await run_in_threadpool(work)
    if duplicate:
        response.status_code = 200
    head_hash = record.head_hash if duplicate else checked.head.head_hash
    return {
        "game": game_public(record),
        "duplicate_of": record.id if duplicate else None,
        "format": fmt,
        "events": len(checked.envelopes),
        "head_hash": head_hash,
        "same_head_hash": checked.source.get("head_hash") == head_hash if duplicate else checked.same_chain,
        "source": dict(importer.describe_source(checked)),
    }


@router.post(
    "/v1/import/bulk",
    summary="Import many games (the NDJSON of GET /v1/export)",
    openapi_extra=IMPORT_BODY,
    responses={200: {"model": BulkImported}, **errors(*AUTH, *BODY)},
)
async def import_bulk(
    request: Request,
    principal: PrincipalDep,
    recorder: RecorderDep,
    skip_existing: Annotated[
        bool, Query(description="skip a game already in the club (same genesis and head hash)")
    ] = True,
) -> dict[str, Any]:
    """Each game of an NDJSON file (at most 64 MiB) is checked and imported on its own: a bad game is
    skipped with its reason (and the line where it went wrong), the rest are imported."""
    principal.require("recorder")
    body = await _body(request)

    def work() -> list[importer.Outcome]:
        lines = importer.split_lines(body)
        return list(importer.import_many(recorder.store, principal.club_id, lines, skip_existing=skip_existing))

    outcomes = await run_in_threadpool(work)
    return {
        "imported": [
            {"id": o.game.id, "source_id": o.source_id, "events": o.events} for o in outcomes if o.game is not None
        ],
        "skipped": [
            {"source_id": o.source_id, "line": o.line or None, "reason": o.reason, "duplicate_of": o.duplicate_of}
            for o in outcomes
            if o.game is None
        ],
        "summary": importer.import_summary(outcomes),
    }
