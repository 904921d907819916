"""`tablebook`: serve the API, manage keys, record demo games, read scores, verify chains.

Every command works on the database of `TABLEBOOK_DATABASE_URL` (default
`sqlite:///./data/tablebook.db`), or the one given with `--database`.

One module per group of commands, each adding its own to the app (`register`); the order here is the
order of `tablebook --help` (the commands, then the groups `keys`, `players`, `deals`, `profiles`):

- `server.py`: migrate, serve; `demo.py`: demo; `keys.py`: demo-keys, the keys group;
- `reading.py`: score, verify, replay, audit; `review.py`: review; `histories.py`: export, import;
- `search.py`: rebuild, list, search; `deals.py`: verify-deal, the deals group;
- `rescore.py`: rescore, rescore-season, the profiles group; `players.py`: the players group, standings;
- `tournaments.py`: the events group (club evenings and tournaments);
- `common.py`: what they share (consoles, options, the way to the service); `output.py`: how a
  reading command prints (rich on a terminal, plain lines when piped).

Startup: `tablebook --help` imports typer, rich and light modules only (`api/cli/common.py`).
"""

from __future__ import annotations

import sys

import typer
from rich.text import Text

from api.cli import deals, demo, histories, keys, players, reading, rescore, review, search, server, tournaments
from api.cli.common import err
from api.cli.demo import DEMO_CLUB
from events.errors import TablebookError
from projections.core import phrases

__all__ = ["DEMO_CLUB", "app", "main"]

app = typer.Typer(help="Tablebook: the record of every hand your club plays.", no_args_is_help=True)
server.register(app)
demo.register(app)
reading.register(app)
review.register(app)
keys.register(app)
histories.register(app)
search.register(app)
players.register_group(app)
tournaments.register_group(app)
deals.register(app)
rescore.register(app)
players.register(app)


def main() -> None:
    """Entry point of the `tablebook` script."""
    from projections.core.tuning import tune_gc

    tune_gc()  # the CLI folds too (projections/core/tuning.py)
    try:
        app()
    except TablebookError as exc:
        err.print(Text.assemble(("error:", "red"), " ", phrases.render(exc.message)), soft_wrap=not err.is_terminal)
        sys.exit(1)


if __name__ == "__main__":
    main()
