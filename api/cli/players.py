"""`tablebook players erase|list|add|show|rename|merge|forget` and `tablebook standings GAME`.

The same use cases as the `/v1/players` and `/v1/standings` routes (`api/service/players.py`), on the
database of `--database`, for the operator who holds it. A player is named by id or by a name or
alias (case-insensitive) that only one player of the club has. `tablebook players erase NAME` is the
exact-name erasure of every game of every club; `forget` erases one player record of one club, with
all its names.

Registered by `api/cli/__init__.py`: the `players` group (`register_group`) among the groups,
`standings` (`register`) after the other commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from api.cli.common import DatabaseOption, JsonOption, console, err, out
from api.cli.common import fail as _fail
from api.cli.common import operator_of as _operator
from api.cli.common import service as _service
from events.errors import TablebookError

if TYPE_CHECKING:
    from api.service import Operator, Tablebook

ClubOption = Annotated[str, typer.Option("--club", help="the club's name")]
PlayerArg = Annotated[str, typer.Argument(help="a player's id, or a name or alias only one player of the club has")]


players_app = typer.Typer(
    help="A club's players: list, add, show, rename, merge, forget; erase a name from every game.", no_args_is_help=True
)


def register_group(app: typer.Typer) -> None:
    """Add the `players` group to the `tablebook` app."""
    players_app.command("erase")(players_erase)
    players_app.command("list")(players_list)
    players_app.command("add")(players_add)
    players_app.command("show")(players_show)
    players_app.command("rename")(players_rename)
    players_app.command("merge")(players_merge)
    players_app.command("forget")(players_forget)
    app.add_typer(players_app, name="players")


def register(app: typer.Typer) -> None:
    """Add `standings` to the `tablebook` app."""
    app.command("standings")(standings)


def players_erase(
    name: Annotated[str, typer.Argument(help="the player's name, exactly as recorded")],
    replacement: Annotated[str, typer.Option(help="the name written instead")] = "(erased)",
    club: Annotated[str | None, typer.Option(help="only this club's games (default: every club)")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="list what would change, change nothing")] = False,
    database: DatabaseOption = None,
) -> None:
    """Replace a player's name in every game's registry row. Events name seats, never names, and no name
    is hashed, so every chain stays valid (`tablebook verify`). Free text (notes, reasons) is hashed as
    written and is not edited: the notes that mention the name are listed, for you to judge.
    A running server shows the new name at its next request (names are read from the database)."""
    service = _service(database)
    if not name.strip() or not replacement.strip():
        _fail("the name and its replacement must not be empty", 2)
    club_id = _operator(service, club).club_id
    report = service.erase_player(name, replacement, club_id=club_id, dry_run=dry_run)
    verb = "would replace" if dry_run else "replaced"
    if not report.games:
        console.print(f"no game names a player {name!r} (names are matched exactly)", highlight=False)
    else:
        games = f"{len(report.games)} game" + ("s" if len(report.games) > 1 else "")
        console.print(f"{verb} {name!r} with {replacement!r} in {games}", highlight=False)
    for game_id in report.games:
        console.print(f"  {game_id}", highlight=False)
    if report.mentions:
        console.print(
            f"[yellow]{len(report.mentions)} free-text entries mention {name!r}[/yellow] (hashed: not edited; "
            "a correction can be appended as a note):",
            highlight=False,
        )
        for mention in report.mentions:
            console.print(
                f"  {mention['game']} seq {mention['seq']} {mention['type']}: {mention['text']!r}", highlight=False
            )
    else:
        console.print("no note or reason mentions the name")


def _club(club: str, database: str | None) -> tuple[Tablebook, Operator]:
    service = _service(database)
    return service, _operator(service, club)


def _ratings_caught_up(service: Tablebook) -> None:
    """The ratings caught up before a command that shows them; a correction that made (a retract of a result
    already rated) is told on stderr: each player whose rating it changed, before and after."""
    model = service.ratings()
    model.catch_up()
    for correction in model.corrections:
        for line in correction.lines():
            err.print(line, highlight=False)


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
    _ratings_caught_up(service)
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
    _ratings_caught_up(service)
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
