"""The web replay page, its static files, share links, and the hand index the page steps through.

- `GET /replay/{id}` serves the page (`api/static/replay.html`); it reads the
  same API as everyone else, with the key the viewer types in (kept in the
  tab's sessionStorage) or a share token from the link (`#share=ts_...`), so
  the API's visibility rules decide every card it may show. `GET /replay`
  is the same page listing the club's games: `GET /v1/games` with its filters
  (`?game=`, `player=`, `status=`, `since=`/`until=` from the date fields, `limit=`),
  paged by `next_cursor`, with the winner and each total in the game's unit.
- The page's download menu fetches `GET /v1/games/{id}/export?format=json|jsonl|text|csv|csv-excel`
  with the key in the Authorization header and saves the answer from a blob (a share link may
  not export: it has no menu); its print stylesheet prints the table and the whole score sheet.
- `GET /static/{name}`: the page's JavaScript, CSS and icon (`StaticFiles`,
  mounted by `api.main.create_app`: ETag, Last-Modified, 304 on
  If-None-Match, HEAD); nothing is fetched from anywhere else (the
  Content-Security-Policy says so too).
- `POST /v1/games/{id}/share` makes a read-only share link (recorder and
  auditor keys); `GET` lists a game's links; `DELETE .../share/{share_id}`
  revokes one. See `api/auth.py` (the token check) and `events/store/shares.py` (the rows).
- `GET /record/{id}` serves the table pad (`api/static/record.html`, `record.js`): the table as the
  scorer sees it and what may be appended next (`GET /v1/games/{id}/next`), sent one tap at a time with
  `expected_seq` and an `Idempotency-Key`, queued in the browser while offline. `GET /record` is the
  new-game form (the games and their options from `GET /v1/games/rules`, the club's rule profiles from
  `GET /v1/profiles`); `GET /record/sw.js` the pad's service worker (its files, for a reload without the
  network).
- `GET /v1/games/{id}/hands`: each hand's seq range and whether it is live,
  so a page can list the hands, find the hand of a seq, and know which
  hands a share link may show without asking for a refused one.

The routes with data are one call of the application service (`api/service/`) each, and
plain `def`s (FastAPI's threadpool): they read the database.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.staticfiles import NotModifiedResponse, StaticFiles
from starlette.types import Scope

from api.deps import PrincipalDep, ServiceDep
from api.models import BODY, GAME, errors
from events.errors import NotFoundError

router = APIRouter(tags=["pages"])

STATIC = Path(__file__).resolve().parent.parent / "static"
_STATIC_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*\.(js|css|svg|html)$")
_GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_MEDIA = {
    "js": "text/javascript; charset=utf-8",
    "css": "text/css; charset=utf-8",
    "svg": "image/svg+xml",
    "html": "text/html; charset=utf-8",
}
#: the page loads nothing from outside this server, and may not be framed
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}


@lru_cache(maxsize=32)
def _static_bytes(name: str, mtime: float) -> bytes:
    return (STATIC / name).read_bytes()


def _static(name: str) -> Response:
    path = STATIC / name
    if not _STATIC_NAME.match(name) or not path.is_file():
        raise NotFoundError(f"no static file {name!r}")
    body = _static_bytes(name, path.stat().st_mtime)
    return Response(body, media_type=_MEDIA[name.rsplit(".", 1)[1]], headers=PAGE_HEADERS)


class StaticPageFiles(StaticFiles):
    """The files of api/static/ under /static/: Starlette's ETag, Last-Modified, 304 and HEAD,
    with the page's headers and media types, and only names of `_STATIC_NAME` (404 otherwise)."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        if not _STATIC_NAME.match(path):
            raise NotFoundError(f"no static file {path!r}")
        try:
            return await super().get_response(path, scope)
        except HTTPException as exc:
            if exc.status_code == 404:
                raise NotFoundError(f"no static file {path!r}") from None
            raise

    def file_response(
        self, full_path: str | os.PathLike[str], stat_result: os.stat_result, scope: Scope, status_code: int = 200
    ) -> Response:
        media_type = _MEDIA.get(str(full_path).rsplit(".", 1)[-1])
        response = FileResponse(
            full_path, status_code=status_code, stat_result=stat_result, media_type=media_type, headers=PAGE_HEADERS
        )
        if self.is_not_modified(response.headers, Headers(scope=scope)):
            return NotModifiedResponse(response.headers)
        return response


def static_files() -> StaticPageFiles:
    """The ASGI app `create_app` mounts at /static."""
    return StaticPageFiles(directory=STATIC)


# --------------------------------------------------------------------------- the page


@router.get("/replay", include_in_schema=False)
@router.get("/replay/", include_in_schema=False)
async def games_page() -> Response:
    """The page without a game: it asks for a key and lists the club's games."""
    return _static("replay.html")


@router.get("/replay/{game_id}", include_in_schema=False)
async def replay_page(game_id: str) -> Response:
    """The replay page of one game (the page itself holds no data: it reads the API)."""
    if not _GAME_ID.match(game_id):
        raise NotFoundError(f"no game {game_id!r}")
    return _static("replay.html")


@router.get("/players/{ref}", include_in_schema=False)
async def player_page(ref: str) -> Response:
    """A player's page (`api/static/player.html`): ratings drawn as an SVG chart, statistics, games.
    Like the replay page it holds no data: it reads `GET /v1/players/{ref}` with the viewer's key."""
    if not 0 < len(ref) <= 100:
        raise NotFoundError(f"no player {ref!r}")
    return _static("player.html")


@router.get("/events", include_in_schema=False)
@router.get("/events/{event_id}", include_in_schema=False)
async def event_page(event_id: str = "") -> Response:
    """The events page (`api/static/event.html`): the club's events and a form for a new one, or one event's
    rounds, tables, travellers and standings. It holds no data: it reads `/v1/events` with the viewer's key."""
    if len(event_id) > 32:
        raise NotFoundError(f"no event {event_id!r}")
    return _static("event.html")


@router.get("/events/{event_id}/print", include_in_schema=False)
async def event_print_page(event_id: str) -> Response:
    """The printable results (`api/static/event-print.html`): one A4 page a round, then the standings."""
    if len(event_id) > 32:
        raise NotFoundError(f"no event {event_id!r}")
    return _static("event-print.html")


@router.get("/standings", include_in_schema=False)
async def standings_page() -> Response:
    """The standings page (`api/static/standings.html`): reads `GET /v1/standings`."""
    return _static("standings.html")


# --------------------------------------------------------------------------- share links


class SharePublic(BaseModel):
    id: str
    game: str
    created_by: str
    created_at: str
    revoked_at: str | None
    revoked: bool


class ShareCreated(SharePublic):
    token: str
    path: str
    url: str


class ShareList(BaseModel):
    shares: list[SharePublic]


def _share_path(game_id: str, token: str) -> str:
    return f"/replay/{game_id}#share={token}"


@router.post(
    "/v1/games/{game_id}/share",
    status_code=201,
    response_model=ShareCreated,
    tags=["shares"],
    summary="Create a read-only share link (finished hands only)",
    responses=errors(*GAME, *BODY),
)
def create_share_link(game_id: str, request: Request, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    """A new share token for this game, shown only in this answer, with the page's link.

    The token opens the game's finished hands on the replay page and on the
    read routes (`state`, `replay`, `score`, `events`, `stream`, `hands`) as
    `Authorization: Bearer ts_...`; a live hand stays hidden. Recorder and
    auditor keys may create links.
    """
    record, token = service.create_share(principal, game_id)
    path = _share_path(game_id, token)
    return {**record.to_public(), "token": token, "path": path, "url": str(request.base_url).rstrip("/") + path}


@router.get(
    "/v1/games/{game_id}/share",
    response_model=ShareList,
    tags=["shares"],
    summary="A game's share links",
    responses=errors(*GAME),
)
def get_share_links(game_id: str, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    """Every share link of the game, revoked ones included (never the tokens themselves)."""
    return {"shares": [s.to_public() for s in service.list_shares(principal, game_id)]}


@router.delete(
    "/v1/games/{game_id}/share/{share_id}",
    response_model=SharePublic,
    tags=["shares"],
    summary="Revoke a share link",
    responses=errors(*GAME),
)
def revoke_share_link(game_id: str, share_id: str, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    """The link stops working at once; revoking it again changes nothing."""
    return service.revoke_share(principal, game_id, share_id).to_public()


# --------------------------------------------------------------------------- the hand index


class HandSpan(BaseModel):
    hand: int
    first_seq: int
    last_seq: int
    events: int
    live: bool


class HandIndex(BaseModel):
    game: str
    head: int
    live_hand: int | None
    hands: list[HandSpan]


@router.get(
    "/v1/games/{game_id}/hands",
    response_model=HandIndex,
    tags=["replays"],
    summary="The hands and their seqs",
    responses=errors(401, 404, 422),
)
def get_hands(game_id: str, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    """`{game, head, live_hand, hands: [{hand, first_seq, last_seq, events, live}]}`.

    Hand 0 holds what comes before the first hand (a Gin cut, an early note).
    `live` marks the hand being played (a share link may not open it; a
    viewer key sees only its public table).
    """
    return service.hands(principal, game_id)


# --------------------------------------------------------------------------- the table pad (issue 18)


@router.get("/record/sw.js", include_in_schema=False)
async def record_worker() -> Response:
    """The pad's service worker, served under /record/ so that its scope is the pad's pages: it keeps
    the pad's files so that a reload without the network still opens the pad (its queued taps are in
    localStorage); it never touches an API request."""
    return _static("record-sw.js")


@router.get("/record", include_in_schema=False)
@router.get("/record/", include_in_schema=False)
async def new_game_page() -> Response:
    """The table pad without a game: the new-game form (and the club's live games to go on with)."""
    return _static("record.html")


@router.get("/record/{game_id}", include_in_schema=False)
async def record_page(game_id: str) -> Response:
    """The table pad of one game: the table, whose turn it is, and the events it may take next."""
    if not _GAME_ID.match(game_id):
        raise NotFoundError(f"no game {game_id!r}")
    return _static("record.html")
