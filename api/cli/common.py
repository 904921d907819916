"""What every `tablebook` command module shares: the consoles, the common options, and the way to the
database, the application service and the operator of a club.

`api/cli/` holds the commands of the record; `api/cli/players.py` and `api/cli/rescore.py` add theirs
to the same app. All three open the database and report errors in the same words through this module,
so a `--database` or a bad `TABLEBOOK_*` variable reads the same whichever command is run.

Startup (issue 14): `tablebook --help` must not import SQLAlchemy, Alembic, pydantic or FastAPI, so
everything that pulls them in is imported inside the function that needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.console import Console
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
