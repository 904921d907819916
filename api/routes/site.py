"""The club's site around the replay page and the pad: the home page, the players, the embeddable view,
and the error pages a browser is shown instead of a JSON error (docs/site.md).

- `GET /` is the club's home page (`api/static/home.html`): live and recent games, a button to record a
  new game and one to go on with each live game, links to the players, the standings and the API docs.
  A client asking for `Accept: application/json` gets the service's JSON signpost instead.
- `GET /players` lists the club's players (`api/static/players.html`, reading `GET /v1/players`).
- `GET /embed/{id}` is one game's table to put in another site's page (`api/static/embed.html`): it may be
  framed by any site (`frame-ancestors *`: it shows what the key or share token in its link may see, and
  records nothing), steps with the same keys as the replay page, keeps its position in `#seq`, and tells
  the page around it its height (a `tablebook:height` message) so that the frame can size itself.
- A browser that navigates to a page that is not there (a mistyped game id, an unknown path) gets an HTML
  page saying so in plain words, with the site's header and a way back (`error_page`); API clients keep
  the JSON error shape of DESIGN.md.

Like the other pages these hold no data: they read the API with the key kept in the tab.
"""

from __future__ import annotations

import html
import re

from fastapi import APIRouter, Request
from fastapi.responses import Response

from api.responses import ORJSONResponse
from api.routes.pages import PAGE_HEADERS, _static
from events.errors import NotFoundError

router = APIRouter(tags=["pages"])

_GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")

#: the embeddable view may be framed by any site: it shows only what its key or share token may see,
#: and it records nothing (no form, no button that writes)
EMBED_HEADERS = {
    **PAGE_HEADERS,
    "Content-Security-Policy": PAGE_HEADERS["Content-Security-Policy"].replace(
        "frame-ancestors 'none'", "frame-ancestors *"
    ),
}

#: the answer of `GET /` to a client that asks for JSON
SIGNPOST = {"service": "tablebook", "docs": "/docs", "api": "/v1/games"}


def wants_json(request: Request) -> bool:
    """The client asked for JSON and not for a page (`Accept: application/json`, without text/html)."""
    accept = request.headers.get("accept", "").lower()
    return "application/json" in accept and "text/html" not in accept


def home(request: Request) -> Response:
    """`GET /`: the home page, or the JSON signpost for `Accept: application/json`."""
    if wants_json(request):
        return ORJSONResponse(SIGNPOST)
    return _static("home.html")


@router.get("/players", include_in_schema=False)
@router.get("/players/", include_in_schema=False)
async def players_page() -> Response:
    """The club's players (`api/static/players.html`): reads `GET /v1/players` with the tab's key."""
    return _static("players.html")


@router.get("/embed/{game_id}", include_in_schema=False)
async def embed_page(game_id: str) -> Response:
    """One game's table for another site's page (`api/static/embed.html`), which may frame it."""
    if not _GAME_ID.match(game_id):
        raise NotFoundError(f"no game {game_id!r}")
    response = _static("embed.html")
    response.headers.update(EMBED_HEADERS)
    return response


# --------------------------------------------------------------------------- error pages for browsers

#: paths whose errors stay JSON whatever the client accepts (the API, its files, its documents)
_API_PREFIXES = ("/v1/", "/v1", "/static/", "/healthz", "/openapi.json", "/docs", "/redoc", "/record/sw.js")

_NAV = (
    ("/", "Home"),
    ("/replay", "Games"),
    ("/record/", "Record"),
    ("/events", "Events"),
    ("/players", "Players"),
    ("/standings", "Standings"),
    ("/docs", "API"),
)


def _wants_page(request: Request) -> bool:
    path = request.url.path
    if request.method not in ("GET", "HEAD") or any(path == p or path.startswith(p) for p in _API_PREFIXES):
        return False
    return "text/html" in request.headers.get("accept", "").lower()


def _what_is_missing(path: str) -> tuple[str, str]:
    """The title and the sentence of a page that is not there, in plain words."""
    parts = [p for p in path.split("/") if p]
    if len(parts) >= 2 and parts[0] in ("replay", "record", "embed"):
        ref = parts[1]
        return (
            f"No game “{ref}” here",
            "The link may be mistyped: a game's id is a g followed by letters and digits (g3f9c2a1b7d04). "
            "Find the game in the club's list.",
        )
    if len(parts) >= 2 and parts[0] == "players":
        return (f"No player “{parts[1]}” here", "The name may be spelt another way: find them in the club's list.")
    return ("There is no such page", f"Nothing is at {path}. The links below lead to the club's pages.")


def error_page(request: Request, status: int) -> Response | None:
    """The HTML page a browser navigating to `request`'s path is shown for `status` (404, 405...), or None
    when the client is not a browser asking for a page (it gets the JSON error)."""
    if not _wants_page(request):
        return None
    if status == 404:
        title, text = _what_is_missing(request.url.path)
    else:
        title, text = "This page cannot be shown", f"The server answered {status} to {request.url.path}."
    nav = "".join(f'<a href="{href}">{label}</a>' for href, label in _NAV)
    body = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{html.escape(title)} · Tablebook</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/site.css">
</head>
<body class="site" data-page="error" data-status="{status}">
<header class="site-head">
  <a class="brand" href="/"><span class="mark" aria-hidden="true">♣</span> Tablebook</a>
  <nav class="site-nav" aria-label="Tablebook">{nav}</nav>
</header>
<main class="page">
  <div class="problem" role="alert">
    <h2 id="problem-title">{html.escape(title)}</h2>
    <p>{html.escape(text)}</p>
    <div class="actions"><a class="button" href="/replay">The club's games</a> <a class="button" href="/">Home</a></div>
  </div>
</main>
</body>
</html>
"""
    return Response(body, status_code=status, media_type="text/html; charset=utf-8", headers=PAGE_HEADERS)
