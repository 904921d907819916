"""Hand histories: export a game (json, jsonl, text, csv), import one (or many), bulk NDJSON export.

Viewer keys get a live hand's hidden cards redacted here too (`projections/reading/visibility.py`):
such an export says `"redacted": true` (text: a `Redacted` tag) and cannot be
imported, since its hashes no longer match its events.

Each route is one call of the application service (`api/service/`), which renders the
export (the CLI prints the same one). Reading, folding and rendering a long game, or verifying an
import, is blocking work: the exports are plain `def` routes (FastAPI's threadpool; Starlette iterates
the bulk export's sync generator in its threadpool too); the imports await their body on the event
loop and run the service call in the same threadpool.
"""

from __future__ import annotations

import itertools
from functools import partial
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from api.deps import PrincipalDep, ServiceDep
from api.models import AUTH, BODY, GAME, BulkImported, ImportedGame, errors
from api.queries import SINCE, UNTIL, GameKind, Moment, stored_time
from api.requests import refuse_unstorable_export
from api.responses import ORJSONResponse
from projections.core.registry import KINDS
from projections.histories import export, sheet
from projections.histories.errors import BadImportError

router = APIRouter(tags=["exports"])

Format = Literal["json", "jsonl", "text", "csv", "csv-excel", "sheet"]

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


def _attachment(filename: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{filename}"'}


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
    service: ServiceDep,
    format: Annotated[
        Format,
        Query(
            description="json, jsonl, text, csv, csv-excel (the csv in UTF-8 with a byte-order mark), or sheet (the "
            "score sheet: hands down, players across, totals)"
        ),
    ] = "json",
) -> Response:
    """The whole game. json/jsonl: the header `{"format": "tablebook/1", id, game, club, players, options,
    created_at, ..., seq, head_hash, event?, round?, table?}` and every envelope with its hash; text: the
    hand history of `docs/hand-history.md`; csv: the score sheet, one row per score line, `hand, player`,
    the points and the player's running total in the game's unit (`points, running_total`; Seven and a
    Half `chips, running_chips`; Schnapsen `game_points, game_points_won, to_go`), `rule, reason, seqs`;
    csv-excel: the same csv for Excel, UTF-8 with a byte-order mark (so that `½` and `Inès` read right); sheet:
    the score sheet as a scorer keeps it, a row per hand and a column per player, then the totals
    (`projections/histories/sheet.py`)."""
    if format == "sheet":
        scored = service.score(principal, game_id)
        content = sheet.sheet_csv(scored.game.players, scored.sheet, scored.rules.units).encode()
        return Response(content, media_type=export.MEDIA_TYPES["csv"], headers=_attachment(f"{game_id}-sheet.csv"))
    exported = service.export(principal, game_id, format)
    headers = _attachment(exported.filename)
    if exported.document is not None:
        return ORJSONResponse(exported.document, headers=headers)
    return Response(exported.content, media_type=exported.media_type, headers=headers)


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
    service: ServiceDep,
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
    lines = service.bulk_export(  # a bad cursor is a 422 before the stream begins
        principal,
        kind=game.value if game is not None else None,
        since=stored_time(since),
        until=stored_time(until),
        cursor=cursor,
        limit=limit,
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
    refuse_unstorable_export(body)  # a NUL anywhere, in a field the importer keeps or not: nothing is written
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
    service: ServiceDep,
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
    imported = await run_in_threadpool(partial(service.import_file, principal, body, fmt=format, copy=copy))
    if imported.duplicate:
        response.status_code = 200
    return imported.to_public()


@router.post(
    "/v1/import/bulk",
    summary="Import many games (the NDJSON of GET /v1/export)",
    openapi_extra=IMPORT_BODY,
    responses={200: {"model": BulkImported}, **errors(*AUTH, *BODY)},
)
async def import_bulk(
    request: Request,
    principal: PrincipalDep,
    service: ServiceDep,
    skip_existing: Annotated[
        bool, Query(description="skip a game already in the club (same genesis and head hash)")
    ] = True,
) -> dict[str, Any]:
    """Each game of an NDJSON file (at most 64 MiB) is checked and imported on its own: a bad game is
    skipped with its reason (and the line where it went wrong), the rest are imported."""
    principal.require("recorder")
    body = await _body(request)
    return await run_in_threadpool(partial(service.import_bulk, principal, body, skip_existing=skip_existing))
