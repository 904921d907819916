"""`tablebook players list|add|show|rename|merge|forget` and `tablebook standings GAME` (issue 20).

The same use cases as the `/v1/players` and `/v1/standings` routes (`api/service/`), on the
database of `--database`, for the operator who holds it. A player is named by id or by a name or
alias (case-insensitive) that only one player of the club has. `tablebook players erase NAME` (the
exact-name erasure of every game of every club) stays in `api/cli/`; `forget` erases one player
record of one club, with all its names.

Registered by `api/cli/`:

    from api import cli_players
    cli_players.register(app, players_app)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from api.cli.common import DatabaseOption, JsonOption, console, out
from api.cli.common import fail as _fail
from api.cli.common import operator_of as _operator
from api.cli.common import service as _service
from events.errors import TablebookError

if TYPE_CHECKING:
    from api.service import Operator, Tablebook

ClubOption = Annotated[str, typer.Option("--club", help="the club's name")]
PlayerArg = Annotated[str, typer.Argument(help="a player's id, or a name or alias only one player of the club has")]


def register(app: typer.Typer, players_app: typer.Typer) -> None:
    """Add the player commands to `tablebook players` and `standings` to `tablebook`."""
    players_app.command("list")(players_list)
    players_app.command("add")(players_add)
    players_app.command("show")(players_show)
    players_app.command("rename")(players_rename)
    players_app.command("merge")(players_merge)
    players_app.command("forget")(players_forget)
    app.command("standings")(standings)


def _club(club: str, database: str | None) -> tuple[Tablebook, Operator]:
    service = _service(database)
    return service, _operator(service, club)


def players_list(
    club: ClubOption,
    name: Annotated[str | None, typer.Option(help="only players with this name or alias (any case)")] = None,
    as_json: JsonOption = False,
    database: DatabaseOption = None,
) -> None:
    """The club's players: id, name, aliases."""
    service, reader = _club(club, database)
    found = service.players(reader, name=name)
    if as_json:
        out.json({"players": [p.to_public() for p in found]})
        return
    out.table(["id", "name", "aliases"], [[p.id, p.name, ", ".join(p.aliases)] for p in found])


def players_add(
    club: ClubOption,
    name: Annotated[str, typer.Argument(help="the name shown")],
    alias: Annotated[list[str] | None, typer.Option(help="another name the player is known by (repeat)")] = None,
    database: DatabaseOption = None,
) -> None:
    """Add a player to the club (a game that names them, or an alias, then finds them)."""
    service, reader = _club(club, database)
    try:
        made = service.create_player(reader, name, alias or [])
    except TablebookError as exc:
        _fail(exc.message)
    console.print(f"added {made.name} as {made.id}", highlight=False)


def players_show(
    club: ClubOption,
    player: PlayerArg,
    as_json: JsonOption = False,
    database: DatabaseOption = None,
) -> None:
    """A player: statistics per game, current ratings, and the rating history, each change explained."""
    service, reader = _club(club, database)
    try:
        page = service.player_profile(reader, player)
    except TablebookError as exc:
        _fail(exc.message)
    if as_json:
        out.json(page)
        return
    record = page["player"]
    aka = f" (also {', '.join(record['aliases'])})" if record["aliases"] else ""
    console.print(f"{record['name']}{aka}  {record['id']}", highlight=False)
    for kind, stats in page["statistics"].items():
        own = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in stats.items() if k not in ("games", "finished"))
        console.print(f"  {kind}: {stats['games']} games, {stats['finished']} finished, {own}", highlight=False)
    for pool, rating in page["ratings"].items():
        note = " (provisional)" if rating["provisional"] else ""
        console.print(
            f"  rating {pool}: {rating['text']} ±{rating['sigma']:.1f}{note}, {rating['results']} results",
            highlight=False,
        )
    for change in page["history"][-20:]:
        console.print(f"    {change['game_id']} {change['pool']}: {change['reason']}", highlight=False)


def players_rename(
    club: ClubOption,
    player: PlayerArg,
    name: Annotated[str, typer.Argument(help="the new name")],
    keep_alias: Annotated[bool, typer.Option(help="keep the old name as an alias")] = True,
    database: DatabaseOption = None,
) -> None:
    """Rename a player: every game shows the new name at once (a running server too)."""
    service, reader = _club(club, database)
    try:
        done = service.rename_player(reader, player, name, keep_alias=keep_alias)
    except TablebookError as exc:
        _fail(exc.message)
    console.print(f"{done.id} is now {done.name}", highlight=False)


def players_merge(
    club: ClubOption,
    player: PlayerArg,
    into: Annotated[str, typer.Argument(help="the player it is merged into (kept)")],
    database: DatabaseOption = None,
) -> None:
    """Merge a player into another ("Ben K." into "Ben"): games, names and ratings become one player's."""
    service, reader = _club(club, database)
    try:
        done = service.merge_players(reader, player, into)
    except TablebookError as exc:
        _fail(exc.message)
    console.print(f"merged into {done.name} ({done.id}); also known as {', '.join(done.aliases)}", highlight=False)


def players_forget(
    club: ClubOption,
    player: PlayerArg,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="list what would change, change nothing")] = False,
    database: DatabaseOption = None,
) -> None:
    """Erase a player of the club: their name and aliases gone from the record and every game at once.
    Events name seats, so every chain still verifies; notes that mention the names are listed."""
    service, reader = _club(club, database)
    try:
        record, report = service.erase_player_record(reader, player, dry_run=dry_run)
    except TablebookError as exc:
        _fail(exc.message)
    verb = "would erase" if dry_run else "erased"
    console.print(f"{verb} {record.id} in {len(report.games)} games", highlight=False)
    for mention in report.mentions:
        console.print(f"  mentioned: {mention['game']} seq {mention['seq']} {mention['type']}", highlight=False)


def standings(
    game: Annotated[str, typer.Argument(help="the game kind (e.g. schnapsen)")],
    club: ClubOption,
    since: Annotated[str | None, typer.Option(help="games created at or after (ISO 8601)")] = None,
    until: Annotated[str | None, typer.Option(help="games created before (ISO 8601)")] = None,
    event: Annotated[str | None, typer.Option(help="games with this event label")] = None,
    round: Annotated[str | None, typer.Option("--round", help="games with this round label")] = None,
    as_json: JsonOption = False,
    database: DatabaseOption = None,
) -> None:
    """The club's leaderboard of one game: place, player, rating (? while provisional), change, results."""
    service, reader = _club(club, database)
    try:
        table = service.standings(reader, game, since=since, until=until, event=event, round=round)
    except TablebookError as exc:
        _fail(exc.message)
    if as_json:
        out.json(table)
        return
    for pool in table["pools"].values():
        rows: list[list[Any]] = [
            [
                str(r["place"]),
                r["name"],
                r["rating"]["text"],
                f"{r['change']:+.1f}",
                str(r["results"]),
                f"{r['score']:g}",
                f"{r['expected']:.1f}",
            ]
            for r in pool["standings"]
        ]
        out.table(
            ["place", "player", "rating", "change", "results", "score", "expected"],
            rows,
            title=pool["title"],
            right=("place", "rating", "change", "results", "score", "expected"),
        )
