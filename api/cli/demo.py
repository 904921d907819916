"""`tablebook demo`: games of every kind played by the bots and recorded, for a club to look at."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from api.cli.common import DatabaseOption, console, lazy
from api.cli.common import service as _service

if TYPE_CHECKING:
    from projections.core.registry import available
else:
    available = lazy("projections.core.registry", "available")


def register(app: typer.Typer) -> None:
    """Add `demo` to the `tablebook` app."""
    app.command()(demo)


#: the club of `tablebook demo` and `tablebook demo-keys` (make run)
DEMO_CLUB = "Demo club"


def demo(
    games: Annotated[int, typer.Option(help="games of each kind to record")] = 2,
    seed: Annotated[int, typer.Option(help="random seed, for repeatable demos")] = 7,
    club: Annotated[str, typer.Option(help="the club that owns the demo games")] = DEMO_CLUB,
    if_empty: Annotated[bool, typer.Option("--if-empty", help="do nothing if the database has games")] = False,
    database: DatabaseOption = None,
) -> None:
    """Record games of every kind played by bots with table sense, with a progress bar.

    Each game is one that shows its kind's situations (`GameRules.demo_situations`: a sweep,
    a marriage, a gin and an undercut, a set bid, a 7½ and a bust), so the search examples find them.
    """
    service = _service(database, migrate=True)
    if if_empty and service.game_ids():
        console.print("the database already holds games; no demo games recorded")
        return
    club_id = service.ensure_club(club)
    rng = random.Random(seed)
    kinds = available()
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as progress:
        task = progress.add_task("recording demo games", total=games * len(kinds))
        for kind in kinds:
            for _ in range(games):
                progress.update(task, description=f"recording {kind}")
                service.record_demo_game(club_id, kind, rng)
                progress.advance(task)
    console.print(f"recorded {games * len(kinds)} demo games for club {club!r}")
