"""`tablebook migrate` and `tablebook serve`: the database's schema, and the API served by uvicorn."""

from __future__ import annotations

import os
import socket
from typing import TYPE_CHECKING, Annotated

import typer

from api.cli.common import DatabaseOption, address, console, lazy
from api.cli.common import database_url as _url
from api.cli.common import fail as _fail
from api.cli.common import settings as _settings

if TYPE_CHECKING:
    from events.store.migrate import upgrade
else:
    upgrade = lazy("events.store.migrate", "upgrade")


def register(app: typer.Typer) -> None:
    """Add `migrate` and `serve` to the `tablebook` app."""
    app.command()(migrate)
    app.command()(serve)


def migrate(database: DatabaseOption = None) -> None:
    """Create or upgrade the database schema (Alembic)."""
    url = _url(database)
    upgrade(url)
    console.print(f"database ready: {url}")


def cannot_listen(host: str, port: int) -> str | None:
    """Why uvicorn could not listen on `host:port` (bound the way uvicorn binds), or None."""
    import errno

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn: a TIME_WAIT port is free
        try:
            sock.bind((host, port))
        except OSError as exc:
            where = address(host, port)
            if exc.errno == errno.EADDRINUSE:
                return (
                    f"{where} is in use (another server listens there): stop it, or choose another port "
                    "with --port or TABLEBOOK_PORT"
                )
            if exc.errno == errno.EACCES:
                return f"{where}: permission denied (ports below 1024 need privileges): choose another port"
            return f"cannot listen on {where}: {exc.strerror or exc}"
    return None


def serve(
    host: Annotated[
        str | None, typer.Option(help="address to listen on (default: TABLEBOOK_HOST or 127.0.0.1)")
    ] = None,
    port: Annotated[int | None, typer.Option(help="port to listen on (default: TABLEBOOK_PORT or 8000)")] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help="uvicorn worker processes (default: TABLEBOOK_WORKERS or 1)")
    ] = None,
    access_log: Annotated[
        bool | None,
        typer.Option("--access-log/--no-access-log", help="log each request (default: TABLEBOOK_ACCESS_LOG or on)"),
    ] = None,
    database: DatabaseOption = None,
) -> None:
    """Serve the API (and its docs at /docs); the options default to the TABLEBOOK_* settings."""
    import copy

    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    from events.store import shown_url

    settings = _settings()
    host = settings.host if host is None else host
    port = settings.port if port is None else port
    workers = settings.workers if workers is None else workers
    access_log = settings.access_log if access_log is None else access_log
    problem = cannot_listen(host, port)
    if problem:
        _fail(problem)
    url = _url(database)
    upgrade(url)
    os.environ["TABLEBOOK_DATABASE_URL"] = url  # the app of each worker reads it (api/asgi.py)
    base = f"http://{address(host, port)}"
    console.print(
        f"Tablebook API:  {base}/v1/games   (send: Authorization: Bearer <key>)", highlight=False, soft_wrap=True
    )
    console.print(f"API docs:       {base}/docs", highlight=False, soft_wrap=True)
    console.print(
        f"Replay page:    {base}/replay   (the club's games; one game: /replay/<game id>)",
        highlight=False,
        soft_wrap=True,
    )
    console.print(
        f"Table pad:      {base}/record/   (record a game at the table, from a phone)", highlight=False, soft_wrap=True
    )
    console.print(
        f"Standings:      {base}/standings   (a player: /players/<id or name>)", highlight=False, soft_wrap=True
    )
    shown = shown_url(url)
    console.print(f"Health:         {base}/healthz   (database: {shown})", highlight=False, soft_wrap=True)
    # uvicorn's own messages from warnings up; the access log (stdout) on unless turned off
    log_config = copy.deepcopy(LOGGING_CONFIG)
    log_config["loggers"]["uvicorn.error"]["level"] = "WARNING"
    from api.tcp import NoDelayH11Protocol

    uvicorn.run(
        "api.asgi:app",
        host=host,
        port=port,
        workers=workers,
        access_log=access_log,
        log_config=log_config,
        http=NoDelayH11Protocol,  # TCP_NODELAY with any number of workers (api/tcp.py)
    )
