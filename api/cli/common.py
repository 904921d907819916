"""What every `tablebook` command module shares: the consoles, the common options, the way to the
database, the application service and the operator of a club, and the options of time, kind and
output that several commands take.

`api/cli/__init__.py` builds the app from the command modules (`server`, `demo`, `reading`, `keys`,
`histories`, `search`, `deals`, `rescore`, `players`), which open the database and report errors in the
same words through this module, so a `--database` or a bad `TABLEBOOK_*` variable reads the same
whichever command is run.

Startup: `tablebook --help` must not import SQLAlchemy, Alembic, pydantic or FastAPI, so everything
that pulls them in is imported inside the function that needs it, or, for a name a module uses as it
is, at its first call (`lazy`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from api.cli.output import Output
from projections.core import phrases

if TYPE_CHECKING:
    from api.service import Operator, Tablebook
    from api.settings import Settings
    from events.store import Store

console = Console()
err = Console(stderr=True)
#: what the reading commands print: rich on a terminal, plain unwrapped lines when piped (api/cli/output.py)
out = Output(console)

DatabaseOption = Annotated[
    str | None, typer.Option("--database", "-d", help="database URL (default: TABLEBOOK_DATABASE_URL or ./data)")
]
JsonOption = Annotated[bool, typer.Option("--json", help="print the API's JSON document")]


def lazy(module: str, name: str) -> Any:
    """`module.name` (a function or class), imported at its first call."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


def address(host: str, port: int) -> str:
    """`host:port`, an IPv6 host in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


#: the reading commands' `--json` (score, verify, replay, audit, list, search, deals)
DocumentOption = Annotated[
    bool, typer.Option("--json", help="print the JSON document the API answers, and nothing else on stdout")
]


def moment(value: str | None) -> str | None:
    """`--since`/`--until`: an ISO 8601 date (midnight UTC) or date and time with a time zone, written as
    the store writes its UTC times (`2026-11-29T13:00:00.000000Z`), so that they compare as times.

    Raises:
        typer.BadParameter: anything else (`yesterday`, `2026-13-45`, a time without a zone): exit status 2.
    """
    if value is None:
        return None
    from datetime import UTC, date, datetime

    text = value.strip()
    try:
        day = date.fromisoformat(text)
        moment = datetime(day.year, day.month, day.day, tzinfo=UTC)
    except ValueError:
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise typer.BadParameter(
                f"{value!r} is not an ISO 8601 date or time: give e.g. 2026-11-29 (midnight UTC), "
                "2026-11-29T14:00:00Z or 2026-11-29T14:00:00+01:00"
            ) from None
        if moment.tzinfo is None:
            raise typer.BadParameter(
                f"{value!r} has no time zone: add Z (UTC) or an offset, e.g. {text}Z or {text}+01:00"
            ) from None
    try:
        return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    except (OverflowError, ValueError):
        raise typer.BadParameter(f"{value!r} is out of range") from None


def known_kind(value: str | None) -> str | None:
    """`--game`: one of the known kinds, exactly as the API names them."""
    from projections.core.registry import KINDS

    if value is not None and value not in KINDS:
        raise typer.BadParameter(f"unknown game {value!r}; known games: {', '.join(KINDS)}")
    return value


#: what `--since` and `--until` take
WHEN = "an ISO 8601 date (midnight UTC) or date and time with a time zone"
SinceOption = Annotated[str | None, typer.Option(callback=moment, metavar="WHEN", help=f"created at or after: {WHEN}")]
UntilOption = Annotated[str | None, typer.Option(callback=moment, metavar="WHEN", help=f"created before: {WHEN}")]
KindOption = Annotated[
    str | None, typer.Option("--game", callback=known_kind, metavar="KIND", help="only this game kind (e.g. casino)")
]


def progress_bar(console_: Console) -> Progress:
    """A progress bar on `console_`: what it does, the bar, done of all, the time it has taken."""
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console_
    )


def fail(message: str, code: int = 1) -> NoReturn:
    """Print the error and exit; a message still marked (raised where no game was known) is rendered
    without names as a last resort, so that no marker reaches a person (`projections/core/phrases.py`)."""
    err.print(Text.assemble(("error:", "red"), " ", phrases.render(message)), soft_wrap=not err.is_terminal)
    raise typer.Exit(code)


def settings() -> Settings:
    """The settings of the environment (`TABLEBOOK_*`), or exit with status 2 naming each bad variable."""
    from pydantic import ValidationError

    from api.settings import Settings, env_name

    try:
        return Settings()
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            name = env_name(str(error["loc"][0])) if error["loc"] else "TABLEBOOK_*"
            message = str(error["msg"]).removeprefix("Value error, ")
            problems.append(message if message.startswith(name) else f"{name}={error.get('input')!r}: {message}")
        fail("; ".join(problems), 2)


def database_url(database: str | None) -> str:
    """`--database` when given, else `TABLEBOOK_DATABASE_URL` (or its default)."""
    return database or settings().database_url


def store(database: str | None, *, migrate: bool = False) -> Store:
    """The store on the database, migrated to the newest schema first when `migrate`."""
    from events.store import Store
    from events.store.migrate import upgrade

    url = database_url(database)
    if migrate:
        upgrade(url)
    return Store(url)


def service(database: str | None, *, migrate: bool = False) -> Tablebook:
    """The application service (`api/service/`) on the database: the same use cases as the API."""
    from api.service import Tablebook

    return Tablebook.open(store(database, migrate=migrate))


def operator_of(service: Tablebook, club: str | None) -> Operator:
    """The operator of one existing club, by name (a reading command never creates one), or of every club."""
    from api.service import OPERATOR, Operator

    if club is None:
        return OPERATOR
    club_id = service.club_id(club)
    if club_id is None:
        fail(f"no club {club!r}")
    return Operator(club_id=club_id, club=club)
