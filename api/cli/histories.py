"""`tablebook export` and `tablebook import`: hand histories out (a game, or every game as NDJSON) and in."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer

from api.cli.common import WHEN, DatabaseOption, err, known_kind, moment, out, progress_bar
from api.cli.common import fail as _fail
from api.cli.common import operator_of as _operator_of
from api.cli.common import service as _service
from events.errors import TablebookError
from projections.core import phrases


def register(app: typer.Typer) -> None:
    """Add `export` and `import` to the `tablebook` app."""
    app.command("export")(export_command)
    app.command("import")(import_command)


FormatOption = Annotated[
    str, typer.Option("--format", "-f", help="json, jsonl, text, csv, or csv-excel (csv with a byte-order mark)")
]


def _open_output(output: str | None) -> Any:
    if output is None or output == "-":
        return sys.stdout.buffer
    return open(output, "wb")


def export_command(
    game: Annotated[str | None, typer.Argument(help="the game's id (or --all)")] = None,
    fmt: FormatOption = "text",
    all_games: Annotated[bool, typer.Option("--all", help="every game, as NDJSON (for `tablebook import`)")] = False,
    club: Annotated[str | None, typer.Option(help="with --all: only this club's games")] = None,
    kind: Annotated[
        str | None, typer.Option("--game", callback=known_kind, metavar="KIND", help="with --all: only this game kind")
    ] = None,
    since: Annotated[
        str | None, typer.Option(callback=moment, metavar="WHEN", help=f"with --all: created at or after: {WHEN}")
    ] = None,
    until: Annotated[
        str | None, typer.Option(callback=moment, metavar="WHEN", help=f"with --all: created before: {WHEN}")
    ] = None,
    output: Annotated[str | None, typer.Option("--output", "-o", help="write to this file (default: stdout)")] = None,
    database: DatabaseOption = None,
) -> None:
    """Export a game (text hand history, json, jsonl, or csv score sheet: csv-excel for Excel), or every game as NDJSON.

    `tablebook export --all > club.ndjson` streams every game in constant memory, with a
    progress bar on stderr; `tablebook import club.ndjson` reads it back.
    """
    from api.service import OPERATOR
    from projections.histories import export

    service = _service(database)
    if all_games == (game is not None):
        _fail("give a game's id, or --all", 2)
    if all_games:
        reader = _operator_of(service, club)
        total = service.count_games(reader)
        sink = _open_output(output)
        try:
            with progress_bar(err) as progress:
                task = progress.add_task("exporting games", total=total)
                lines = service.bulk_export(
                    reader, kind=kind, since=since, until=until, on_game=lambda _: progress.advance(task)
                )
                for chunk in lines:
                    sink.write(chunk)
            sink.flush()
        finally:
            if sink is not sys.stdout.buffer:
                sink.close()
        return
    if fmt not in export.FORMATS:
        _fail(f"--format must be one of {', '.join(export.FORMATS)}", 2)
    assert game is not None
    try:
        body = service.export(OPERATOR, game, fmt).body(indent=True)
    except TablebookError as exc:
        _fail(exc.message)
    sink = _open_output(output)
    try:
        sink.write(body)
        sink.flush()
    finally:
        if sink is not sys.stdout.buffer:
            sink.close()


def _file_lines(handle: Any, advance: Callable[[int], None]) -> Any:
    """`(number, line)` of a binary file, advancing the progress bar by the bytes read."""
    for number, raw in enumerate(handle, start=1):
        advance(len(raw))
        line = raw.strip()
        if number == 1:
            line = line.lstrip(b"\xef\xbb\xbf")
        if line:
            yield number, line


def import_command(
    file: Annotated[str, typer.Argument(help="a json, jsonl or text export, or an NDJSON file of many games")],
    club: Annotated[
        str | None, typer.Option(help="import into this club (created if new); default: the club each game names")
    ] = None,
    fmt: Annotated[str | None, typer.Option("--format", "-f", help="json, jsonl or text (default: recognised)")] = None,
    copy: Annotated[
        bool, typer.Option("--copy", help="import a game the club has already as a copy: a record, never rated")
    ] = False,
    skip_existing: Annotated[bool, typer.Option(hidden=True, help="the opposite of --copy (older name)")] = True,
    database: DatabaseOption = None,
) -> None:
    """Import games: each is checked (chain, rules) and written as a new game of the club.

    A bad game is skipped with its reason, the others are imported; a summary at the end. Exit
    status 1 if a game was bad. A game the club has already (the same genesis and head hash, or the
    same genesis and the same events: a text history imported again) is not imported again: it is
    named as already there, unless --copy: then it is stored as a copy of the club's game, a record and
    not a second result (ratings, statistics and standings skip it)."""
    import os

    from api.service import Operator
    from projections.histories import importer
    from projections.histories.errors import BadImportError

    skip_existing = skip_existing and not copy
    service = _service(database, migrate=True)
    operator = Operator(actor="cli:import")
    if not os.path.exists(file):
        _fail(f"no file {file!r}", 2)
    with open(file, "rb") as handle:
        head = handle.read(65536)
    kind = fmt or importer.sniff(head)
    if kind not in ("json", "jsonl", "text"):
        _fail("--format must be json, jsonl or text", 2)

    def club_of(game: importer.Imported) -> int:
        name = club or game.source.get("club")
        if not name:
            raise BadImportError("the file names no club: give --club")
        return service.ensure_club(str(name))

    outcomes: list[importer.Outcome] = []
    size = os.path.getsize(file)
    with progress_bar(err) as progress:
        task = progress.add_task(f"importing {os.path.basename(file)}", total=size)
        if kind == "jsonl":
            with open(file, "rb") as handle:
                lines = _file_lines(handle, lambda n: progress.advance(task, n))
                for outcome in service.import_lines(operator, lines, skip_existing=skip_existing, club=club_of):
                    outcomes.append(outcome)
                    _print_outcome(outcome)
        else:
            with open(file, "rb") as handle:
                body = handle.read()
            progress.advance(task, size)
            try:
                outcome = service.import_file(operator, body, fmt=kind, copy=not skip_existing, club=club_of).outcome()
            except TablebookError as exc:
                outcome = importer.Outcome(None, 0, reason=exc.message)
            outcomes.append(outcome)
            _print_outcome(outcome)
    summary = importer.import_summary(outcomes)
    bad = sum(1 for o in outcomes if o.game is None and o.duplicate_of is None)
    duplicates = sum(1 for o in outcomes if o.duplicate_of is not None)
    out.line(
        (f"imported {summary['imported']} of {len(outcomes)} games", "bold"),
        f" ({summary['events']} events); skipped {bad} bad, {duplicates} already there"
        + (" (--copy imports those again)" if duplicates else ""),
    )
    if bad:
        raise typer.Exit(1)


def _print_outcome(outcome: Any) -> None:
    source = f" ({outcome.source_id})" if outcome.source_id else ""
    at = f" at line {outcome.line}" if outcome.line else ""
    if outcome.game is not None:
        copy = f", a copy of {outcome.game.copy_of} (not rated)" if outcome.game.copy_of else ""
        out.line(("imported", "green"), f" {outcome.game.id}{source}: {outcome.events} events{copy}")
    elif outcome.duplicate_of is not None:
        out.line(("already there", "yellow"), f"  game{at}{source}: {phrases.render(outcome.reason or '')}")
    else:
        out.line(("bad", "red"), f"      game{at}{source}: {phrases.render(outcome.reason or '')}")
