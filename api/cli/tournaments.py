"""`tablebook events create|list|show|start|pair|close|results|export|import`: a club's evenings and
tournaments (issue 33, docs/tournaments.md).

The same use cases as the `/v1/events` routes (`api/service/tournaments.py`), for the operator who holds
the database: an event is created with its movement planned (and its duplicate board set committed), each
round started (its table games created), and its results printed as the API gives them.

Registered by `api/cli/__init__.py` (`register_group`), among the groups.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from api.cli.common import DatabaseOption, JsonOption, console, out
from api.cli.common import fail as _fail
from api.cli.common import operator_of as _operator
from api.cli.common import service as _service
from events.errors import TablebookError

if TYPE_CHECKING:
    from api.service import Operator, Tablebook

ClubOption = Annotated[str, typer.Option("--club", help="the club's name")]
EventArg = Annotated[str, typer.Argument(help="the event's id")]

events_app = typer.Typer(
    help="A club's events: create one, start its rounds, print its results, export and import it.",
    no_args_is_help=True,
)


def register_group(app: typer.Typer) -> None:
    """Add the `events` group to the `tablebook` app."""
    for name, command in (
        ("create", events_create),
        ("list", events_list),
        ("show", events_show),
        ("start", events_start),
        ("pair", events_pair),
        ("close", events_close),
        ("results", events_results),
        ("export", events_export),
        ("import", events_import),
    ):
        events_app.command(name)(command)
    app.add_typer(events_app, name="events")


def _club(club: str, database: str | None) -> tuple[Tablebook, Operator]:
    service = _service(database)
    return service, _operator(service, club)


def events_create(
    club: ClubOption,
    name: Annotated[str, typer.Argument(help="the event's name")],
    game: Annotated[str, typer.Option(help="the game every table plays")],
    player: Annotated[list[str], typer.Option(help="a player, in seeding order (repeat)")],
    seats: Annotated[int | None, typer.Option(help="players at a table (default: the game's)")] = None,
    movement: Annotated[str, typer.Option(help="round-robin, swiss, groups or free")] = "round-robin",
    rounds: Annotated[int, typer.Option(help="rounds to play")] = 1,
    boards: Annotated[int, typer.Option(help="duplicate boards a round (0: each table deals its own)")] = 0,
    scoring: Annotated[str | None, typer.Option(help="matchpoints or imps (with boards), wins")] = None,
    tournament: Annotated[bool, typer.Option("--tournament", help="a tournament, not a club evening")] = False,
    as_json: JsonOption = False,
    database: DatabaseOption = None,
) -> None:
    """Create an event: its movement is planned, and with --boards its board set is dealt and committed."""
    service, reader = _club(club, database)
    try:
        made = service.create_event(
            reader,
            name=name,
            kind="tournament" if tournament else "evening",
            game=game,
            players=player,
            seats=seats,
            movement=movement,
            rounds=rounds,
            options={},
            boards=boards,
            scoring=scoring or ("matchpoints" if boards else "wins"),
        )
    except TablebookError as exc:
        _fail(exc.message)
    if as_json:
        out.json(made)
        return
    console.print(f"created {made['name']} as {made['id']}: {made['movement_rule']}", highlight=False)
    if made["board_set"]:
        console.print(f"board set commitment {made['board_set']['commitment']}", highlight=False)


def events_list(club: ClubOption, as_json: JsonOption = False, database: DatabaseOption = None) -> None:
    """The club's events, newest first."""
    service, reader = _club(club, database)
    found = service.list_events(reader)
    if as_json:
        out.json({"events": found})
        return
    out.table(
        ["id", "name", "game", "players", "movement", "boards"],
        [[e["id"], e["name"], e["game"], str(len(e["players"])), e["movement"], str(e["boards"])] for e in found],
    )


def _show(service: Tablebook, reader: Operator, event_id: str, as_json: bool) -> None:
    try:
        event = service.event(reader, event_id)
    except TablebookError as exc:
        _fail(exc.message)
    if as_json:
        out.json(event)
        return
    console.print(f"{event['name']} ({event['game']}): {event['movement_rule']}", highlight=False)
    for rnd in event["rounds"]:
        tables = "; ".join(f"table {t['table']}: {' v '.join(t['players'])} ({t['status']})" for t in rnd["tables"])
        out_of = f", sitting out {', '.join(rnd['sit_out'])}" if rnd["sit_out"] else ""
        console.print(f"round {rnd['round']}: {tables}{out_of}", highlight=False)


def _then_show(service: Tablebook, reader: Operator, event_id: str, act: Callable[[], object]) -> None:
    """Do what a round command asks (a refusal is printed, exit 1), then show the event as it is now."""
    try:
        act()
    except TablebookError as exc:
        _fail(exc.message)
    _show(service, reader, event_id, False)


def events_show(
    club: ClubOption, event_id: EventArg, as_json: JsonOption = False, database: DatabaseOption = None
) -> None:
    """An event: its movement, its rounds and tables."""
    service, reader = _club(club, database)
    _show(service, reader, event_id, as_json)


def events_start(
    club: ClubOption,
    event_id: EventArg,
    number: Annotated[int, typer.Argument(help="the round")],
    database: DatabaseOption = None,
) -> None:
    """Start a round: its table games are created (each table's first deck is its first board)."""
    service, reader = _club(club, database)
    _then_show(service, reader, event_id, lambda: service.start_round(reader, event_id, number))


def events_pair(club: ClubOption, event_id: EventArg, database: DatabaseOption = None) -> None:
    """Pair the next Swiss round from the standings."""
    service, reader = _club(club, database)
    _then_show(service, reader, event_id, lambda: service.pair_round(reader, event_id))


def events_close(
    club: ClubOption,
    event_id: EventArg,
    number: Annotated[int, typer.Argument(help="the round")],
    database: DatabaseOption = None,
) -> None:
    """Close a round: its tables have played what they will; its boards are revealed."""
    service, reader = _club(club, database)
    _then_show(service, reader, event_id, lambda: service.close_round(reader, event_id, number))


def events_results(
    club: ClubOption,
    event_id: EventArg,
    csv: Annotated[bool, typer.Option("--csv", help="the standings and travellers as CSV")] = False,
    as_json: JsonOption = False,
    database: DatabaseOption = None,
) -> None:
    """The standings (with their tie-breaks) and every board revealed, compared."""
    service, reader = _club(club, database)
    try:
        if csv:
            typer.echo(service.results_csv(reader, event_id), nl=False)
            return
        results = service.results(reader, event_id)
    except TablebookError as exc:
        _fail(exc.message)
    if as_json:
        out.json(results)
        return
    standings = results["standings"]
    console.print(f"ordered by {', then '.join(standings['tie_breaks'])}", highlight=False)
    out.table(
        ["place", "player", "matchpoints", "%", "imps", "wins"],
        [
            [
                str(r["place"]),
                r["name"],
                f"{r['matchpoints']}/{r['top']}",
                str(r["percentage"]),
                str(r["imps"]),
                str(r["wins"]),
            ]
            for r in standings["rows"]
        ],
    )


def events_export(
    club: ClubOption,
    event_id: EventArg,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write here (default: stdout)")] = None,
    database: DatabaseOption = None,
) -> None:
    """The event's whole record in one JSON document (`python3 fairdeal.py FILE` checks its deals)."""
    service, reader = _club(club, database)
    try:
        body = service.export_event(reader, event_id)
    except TablebookError as exc:
        _fail(exc.message)
    if output is None:
        typer.echo(body.decode())
    else:
        output.write_bytes(body)
        console.print(f"wrote {output}", highlight=False)


def events_import(
    club: ClubOption,
    path: Annotated[Path, typer.Argument(help="an event export")],
    database: DatabaseOption = None,
) -> None:
    """Import an event's whole record: every table's chain, rules and deals checked, then written."""
    service, reader = _club(club, database)
    try:
        made = service.import_event(reader, path.read_bytes())
    except TablebookError as exc:
        _fail(exc.message)
    console.print(f"imported {made['name']} as {made['id']} ({len(made['rounds'])} rounds)", highlight=False)
