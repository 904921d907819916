"""`tablebook score|verify|replay|audit`: a game's record read, as the API's routes read it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from api.cli.common import DatabaseOption, DocumentOption, console, err, out
from api.cli.common import fail as _fail
from api.cli.common import service as _service
from api.cli.output import Part, frame_lines
from events.errors import TablebookError
from projections.core import phrases

if TYPE_CHECKING:
    from api.service import Tablebook
    from projections.core.rules import GameRules


def register(app: typer.Typer) -> None:
    """Add `score`, `verify`, `replay` and `audit` to the `tablebook` app."""
    app.command()(score)
    app.command()(verify)
    app.command()(replay)
    app.command()(audit)


def _game(service: Tablebook, game_id: str) -> dict[str, Any]:
    """The game (as `GET /v1/games/{id}` shows it), or exit with status 1 and the reason."""
    from api.service import OPERATOR

    try:
        return service.game(OPERATOR, game_id)
    except TablebookError as exc:
        _fail(exc.message)


def _seats(players: Sequence[str]) -> str:
    return ", ".join(f"{i} {n}" for i, n in enumerate(players))


def _points(value: Any, rules: GameRules[Any] | None = None) -> str:
    """A line's or a hand's points, signed (`+3`, `+3 chips`, `+1½`), in the game's unit."""
    if rules is not None:
        return rules.value_text("points", value, signed=True)
    return phrases.value_text("", value, signed=True)


def _who(seat: str | int, names: Sequence[str]) -> str:
    return phrases.who(int(seat), names) if str(seat).isdigit() else str(seat)


def _seat_points(
    points: Mapping[str, Any], names: Sequence[str], rules: GameRules[Any], *, key: str = "totals", signed: bool = False
) -> str:
    """`Anna +3, Ben 0` from a seat-keyed object, each value in the game's unit of `key`."""
    return ", ".join(f"{_who(s, names)} {rules.value_text(key, p, signed=signed)}" for s, p in points.items())


def _totals_text(
    rules: GameRules[Any], totals: Mapping[str, Any], hands: Sequence[Mapping[str, Any]], names: Sequence[str]
) -> str:
    """The totals: `Anna 12, Ben 9`; for a game whose totals are points still to go (Schnapsen),
    `Anna 4 to go, Ben 0 to go (game points won: Anna 3, Ben 7)`: the game points each seat's hands won
    beside what is left, never a bare number read as a score."""
    shown = _seat_points(totals, names, rules)
    if rules.unit("totals") != phrases.TO_GO:
        return shown
    won = {seat: sum(h["points"].get(seat, 0) for h in hands) for seat in totals}
    return f"{shown} (game points won: {_seat_points(won, names, rules, key='points')})"


def _totals_label(rules: GameRules[Any]) -> str:
    """`totals`, or `match` for a game whose totals are what is still to go (each says `to go`)."""
    return "match" if rules.unit("totals") == phrases.TO_GO else "totals"


def score(
    game: Annotated[str, typer.Argument(help="the game's id")],
    as_json: DocumentOption = False,
    database: DatabaseOption = None,
) -> None:
    """Print a game's score: each hand's points and the lines that explain them.

    `--json`: the document of GET /v1/games/{id}/score."""
    from api.service import OPERATOR

    try:
        scored = _service(database).score(OPERATOR, game)
    except TablebookError as exc:
        _fail(exc.message)
    document = scored.to_dict()
    if as_json:
        out.json(document)
        return
    rules = scored.rules
    names = scored.game.players
    out.line((rules.title, "bold"), f" {game}: {_seats(names)}")
    for hand in document["hands"]:
        rows = [
            [
                _who(line["seat"], names),
                _points(line["points"], rules),
                line["rule"],
                line["reason"],
                ", ".join(map(str, line["events"])),
            ]
            for line in hand["lines"]
        ]
        title = f"hand {hand['hand']}: " + _seat_points(hand["points"], names, rules, key="points", signed=True)
        out.table(["seat", "points", "rule", "reason", "seqs"], rows, title=title, right=("points",))
    state = "finished" if document["finished"] else "live"
    winner = f"; winner: {_who(document['winner'], names)}" if document["winner"] is not None else ""
    totals = _totals_text(rules, document["totals"], document["hands"], names)
    out.line((_totals_label(rules), "bold"), f" ({state}): {totals}{winner}")


def verify(
    game: Annotated[str | None, typer.Argument(help="a game's id (default: every game)")] = None,
    as_json: DocumentOption = False,
    database: DatabaseOption = None,
) -> None:
    """Re-walk hash chains and re-run the rules; exit status 1 if any game fails.

    Verifying every game shows a progress bar on stderr when it is a terminal. `--json`: a game's
    GET /v1/games/{id}/verify document; for every game, one list of them, each with its `game` id."""
    from api.service import OPERATOR

    service = _service(database)
    ids = [game] if game else service.game_ids()
    reports: list[dict[str, Any]] = []
    bad = 0
    bar = len(ids) > 1 and err.is_terminal
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not bar,
        # lines printed while the bar runs go above it when both are the same terminal; else straight out
        redirect_stdout=bar and console.is_terminal and not as_json,
        redirect_stderr=False,
    ) as progress:
        task = progress.add_task("verifying games", total=len(ids))
        for game_id in ids:
            try:
                report = service.verify(OPERATOR, game_id)
            except TablebookError as exc:
                _fail(exc.message)
            progress.advance(task)
            bad += not report["ok"]
            if as_json:
                reports.append(report if game else {"game": game_id, **report})
            elif report["ok"]:
                out.line(("ok", "green"), f"   {game_id}  {report['events']} events  head {report['head_hash'][:16]}")
            else:
                out.line(("FAIL", "red"), f" {game_id}  first bad seq {report['first_bad_seq']}")
                for problem in report["problems"]:
                    out.line(f"       seq {problem['seq']}: {problem['message']}")
    if as_json:
        out.json(reports[0] if game else reports)
    else:
        out.line(f"{len(ids) - bad} of {len(ids)} games verified")
    if bad:
        raise typer.Exit(1)


def replay(
    game: Annotated[str, typer.Argument(help="the game's id")],
    hand: Annotated[int, typer.Option(min=0, help="the hand to replay (0: the events before the first deal)")] = 1,
    seat: Annotated[int | None, typer.Option(help="look from this seat (default: everything)")] = None,
    follow: Annotated[bool, typer.Option("--follow", help="wait for new events of a live hand")] = False,
    as_json: DocumentOption = False,
    database: DatabaseOption = None,
) -> None:
    """Print a hand frame by frame: each event in card notation, then the seats and the table after it.

    Each frame: the event (`Anna play K♥ marriage  → trick winner Ben`), whose turn it is, a line a
    seat (its cards, or how many when hidden, and its counts) and the table. `--json`: the document of
    GET /v1/games/{id}/replay."""
    import time

    from api.service import OPERATOR

    if follow and as_json:
        _fail("--json prints one document: give --follow or --json, not both", 2)
    service = _service(database)
    players = _game(service, game)["players"]
    if seat is not None and not 0 <= seat < len(players):
        _fail(f"--seat must be 0 to {len(players) - 1}", 2)
    shown = 0
    while True:
        try:
            document = service.replay(OPERATOR, game, hand=hand, seat=seat)  # seat None: everything
            frames: list[dict[str, Any]] = document["frames"]
        except TablebookError as exc:
            if not follow:
                _fail(exc.message)
            frames = []
        if as_json:
            out.json(document)
            return
        units = document.get("units", {}) if frames else {}
        for frame in frames[shown:]:
            for parts in frame_lines(frame, players, units):
                out.line(*parts)
        shown = max(shown, len(frames))
        progress = service.hand_progress(OPERATOR, game, hand) if follow else "past"
        if progress == "past" or (progress == "over" and shown):
            return
        time.sleep(1.0)


def audit(
    game: Annotated[str, typer.Argument(help="the game's id")],
    as_json: DocumentOption = False,
    database: DatabaseOption = None,
) -> None:
    """Print the audit of a game: chain, flagged plays, retractions, claims, notes, and the score.

    Claims are set against the computed score. `--json`: the document of GET /v1/games/{id}/audit."""
    from api.service import OPERATOR
    from projections.core.registry import rules_for

    service = _service(database)
    record = _game(service, game)
    report = service.audit(OPERATOR, game)  # its messages and reasons rendered with the players' names
    if as_json:
        out.json(report)
        return
    chain = report["chain"]
    names = record["players"]
    out.line((f"Audit of {game}", "bold"), f" ({record['game']}: {_seats(names)})")
    if chain["ok"]:
        out.line("chain: ", ("ok", "green"), f", {chain['events']} events, head {chain['head_hash'][:16]}")
    else:
        out.line("chain: ", ("BROKEN", "red"), f" at seq {chain['problems'][0]['seq']}")
        for problem in chain["problems"]:
            out.line(f"  seq {problem['seq']}: {problem['message']}")
    sections: list[tuple[str, list[dict[str, Any]], Callable[[dict[str, Any]], list[Part]]]] = [
        (
            "illegal plays stored under record enforcement",
            report["violations"],
            lambda v: [f"seq {v['seq']}: {v['rule']}: {v['message']}"],
        ),
        (
            "retractions",
            report["retractions"],
            lambda r: [
                f"seq {r['seq']} by {r['actor']} at {r['recorded_at']}: back to seq {r['to_seq']} "
                f"({r['reason']!r}); retracted seqs {r['retracted']}"
            ],
        ),
        (
            "claims",
            report["claims"],
            lambda c: [
                f"seq {c['seq']}: ",
                ("agrees", "green") if c["agrees"] else ("differs", "red"),
                f": {c['summary']}",
            ],
        ),
        (
            "notes",
            report["notes"],
            lambda n: [f"seq {n['seq']}: {n['text']!r}" + (f" (on seq {n['ref']})" if n["ref"] else "")],
        ),
        ("game notes", report["game_notes"], lambda n: [f"seq {n['seq']}: {n['text']}"]),
    ]
    for title, items, render in sections:
        out.line((title, "bold"), f": {len(items) or 'none'}")
        for item in items:
            out.line("  ", *render(item))
    sheet = report["score"]
    if sheet is None:
        out.line(("score", "bold"), ": none (the events cannot be folded)")
        return
    rules = rules_for(record["game"])
    winner = f"; winner: {_who(sheet['winner'], names)}" if sheet["winner"] is not None else ""
    state = "finished" if sheet["finished"] else "live"
    totals = _totals_text(rules, sheet["totals"], sheet["hands"], names)
    out.line(("score", "bold"), f" ({state}): {totals}{winner}")
    for scored in sheet["hands"]:
        out.line(f"  hand {scored['hand']}: {_seat_points(scored['points'], names, rules, key='points', signed=True)}")
        for line in scored["lines"]:
            seqs = ", ".join(map(str, line["events"]))
            out.line(
                f"    {_who(line['seat'], names)} {_points(line['points'], rules)} {line['rule']}: {line['reason']}"
                + (f" (seqs {seqs})" if seqs else "")
            )
