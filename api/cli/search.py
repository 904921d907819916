"""`tablebook rebuild`, `tablebook list` and `tablebook search`: the read models rebuilt, a club's games
listed and searched by what happened in their hands (as `GET /v1/games`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

import typer

from api.cli.common import (
    DatabaseOption,
    DocumentOption,
    KindOption,
    SinceOption,
    UntilOption,
    console,
    err,
    out,
    progress_bar,
)
from api.cli.common import operator_of as _operator_of
from api.cli.common import service as _service
from api.cli.output import GAME_COLUMNS, game_row, hit_text
from events.errors import TablebookError
from projections.readmodels import rebuild as rebuild_models


def register(app: typer.Typer) -> None:
    """Add `rebuild`, `list` and `search` to the `tablebook` app."""
    app.command()(rebuild)
    app.command("list")(list_command)
    app.command()(search)


def rebuild(
    database: DatabaseOption = None,
    serial: Annotated[
        bool | None,
        typer.Option(
            "--serial/--parallel",
            help="one read model after the other in this process, or both at once (the hand facts in a second "
            "process); default: both at once for a log of more than 400,000 events",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Rebuild every read model from zero (the hand facts behind `GET /v1/games?has=`, the ratings).

    A long log is rebuilt with both at once: the hand facts in a second process, the ratings in this one.
    """
    service = _service(database, migrate=True)
    store = service.store
    total = store.head_position()
    with progress_bar(err) as progress:
        tasks = {
            name: progress.add_task(f"{name} (event positions)", total=total)
            for name in (rebuild_models.FACTS, rebuild_models.RATINGS)
        }
        rebuilt = rebuild_models.rebuild_read_models(
            store, lambda name, n: progress.advance(tasks[name], n), parallel=None if serial is None else not serial
        )
    facts = service.hand_facts()
    rows = len(store.hand_fact_rows())
    console.print(
        f"rebuilt the hand facts: {rebuilt.facts_read} events read, {rows} facts, checkpoint at {facts.position()}"
    )
    ratings = service.ratings()
    changes = len(store.ratings.rows())
    console.print(
        f"rebuilt the ratings: {rebuilt.ratings_read} events read, {changes} rating changes, "
        f"checkpoint at {ratings.position()}"
    )


def _status(value: str | None) -> str | None:
    if value is not None and value not in ("live", "finished"):
        raise typer.BadParameter(f"{value!r}: expected live or finished")
    return value


def _cursor(value: str | None) -> str | None:
    from api.service import decode_cursor

    if value is not None:
        try:
            decode_cursor(value)
        except TablebookError as exc:
            raise typer.BadParameter(exc.message) from None
    return value


ClubOption = Annotated[str | None, typer.Option(help="only this club's games (default: every club)")]


PlayerOption = Annotated[str | None, typer.Option(help="games with this player (a name or alias, any case)")]


PlayerIdOption = Annotated[str | None, typer.Option("--player-id", help="games with this player (by id)")]


StatusOption = Annotated[str | None, typer.Option(callback=_status, metavar="STATUS", help="live or finished")]


WinnerOption = Annotated[int | None, typer.Option(min=0, max=7, help="games won by this seat")]


LimitOption = Annotated[int, typer.Option(min=1, max=200, help="at most this many games (1 to 200)")]


CursorOption = Annotated[
    str | None, typer.Option(callback=_cursor, help="the next page: the next_cursor of the previous one")
]


def _more(page: Mapping[str, Any]) -> None:
    if page["next_cursor"] and not out.plain:
        err.print(f"more: add --cursor {page['next_cursor']}", highlight=False, soft_wrap=True)


def list_command(
    club: ClubOption = None,
    kind: KindOption = None,
    player: PlayerOption = None,
    player_id: PlayerIdOption = None,
    status: StatusOption = None,
    winner: WinnerOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    limit: LimitOption = 50,
    cursor: CursorOption = None,
    as_json: DocumentOption = False,
    database: DatabaseOption = None,
) -> None:
    """List games, newest first, with the filters of GET /v1/games.

    One row a game: id, game, players, status, seq, totals (seat by seat), winner, created. Piped,
    a header line and tab-separated rows. `--json`: the page GET /v1/games answers."""
    filters: dict[str, Any] = {
        "kind": kind,
        "player": player,
        "player_id": player_id,
        "status": status,
        "winner": winner,
        "since": since,
        "until": until,
    }
    service = _service(database)
    page = service.games(_operator_of(service, club), limit=limit, cursor=cursor, **filters)
    if as_json:
        out.json(page)
        return
    if not page["games"] and not out.plain:
        out.line("no games")
        return
    rows = [game_row(g, short=not out.plain, units=_units(g["game"])) for g in page["games"]]
    out.table(GAME_COLUMNS, rows, right=("seq",), whole=("id", "status", "seq", "created"))
    _more(page)


def _units(kind: str) -> Mapping[str, str]:
    """The units of a game kind's values (`GameRules.units`); none for a kind this version does not know."""
    from projections.core.registry import rules_for

    try:
        return rules_for(kind).units
    except TablebookError:
        return {}


def _situations(values: list[str]) -> list[str]:
    from projections.readmodels.hand_facts import check_situations

    try:
        situations = check_situations(values)
    except TablebookError as exc:
        raise typer.BadParameter(exc.message.removeprefix("has: ")) from None
    if not situations:
        raise typer.BadParameter("name at least one situation (e.g. sweep)")
    return situations


def search(
    situations: Annotated[
        list[str],
        typer.Argument(
            callback=_situations,
            metavar="SITUATION",
            help="what happened in a hand: sweep, marriage, gin... (several: games with all of them)",
        ),
    ],
    club: ClubOption = None,
    kind: KindOption = None,
    player: PlayerOption = None,
    player_id: PlayerIdOption = None,
    status: StatusOption = None,
    winner: WinnerOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    limit: LimitOption = 50,
    cursor: CursorOption = None,
    as_json: DocumentOption = False,
    database: DatabaseOption = None,
) -> None:
    """Find games where a situation happened (a sweep, a marriage...), newest first.

    As GET /v1/games?has=...: each game, then its hits (hand, seq, situation, seat). The read model
    catches up with the event log first. `--json`: the page the API answers."""
    service = _service(database)
    facts = service.hand_facts()
    if err.is_terminal and facts.behind() > 1000:
        with progress_bar(err) as progress:
            task = progress.add_task("hand facts: reading new events", total=facts.behind())
            facts.catch_up(lambda n: progress.advance(task, n))
    else:
        facts.catch_up()
    filters: dict[str, Any] = {
        "kind": kind,
        "player": player,
        "player_id": player_id,
        "status": status,
        "winner": winner,
        "since": since,
        "until": until,
    }
    page = service.games(_operator_of(service, club), situations=situations, limit=limit, cursor=cursor, **filters)
    if as_json:
        out.json(page)
        return
    if not page["games"] and not out.plain:
        out.line(f"no game with {' and '.join(situations)}")
        return
    for game in page["games"]:
        row = dict(zip(GAME_COLUMNS, game_row(game, units=_units(game["game"])), strict=True))
        out.line(
            (row["id"], "bold"),
            f"  {row['game']}  {row['players']}  {row['status']}  seq {row['seq']}  totals {row['totals']}"
            + (f"  winner {row['winner']}" if row["winner"] else "")
            + f"  {row['created']}",
        )
        for hit in game["hits"]:
            out.line("  ", hit_text(hit, game["players"]))
    _more(page)
