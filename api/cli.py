"""`tablebook`: serve the API, manage keys, record demo games, read scores, verify chains.

Every command works on the database of `TABLEBOOK_DATABASE_URL` (default
`sqlite:///./data/tablebook.db`), or the one given with `--database`.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import Annotated, Any, NoReturn

import orjson
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from api.auth import ROLES, create_key
from api.settings import Settings
from events.errors import TablebookError
from events.migrate import upgrade
from events.store import GameRecord, Store
from projections import engine
from projections.recorder import Recorder
from projections.registry import available, rules_for
from projections.simulate import play
from projections.verify import verify_game

app = typer.Typer(help="Tablebook: the record of every hand your club plays.", no_args_is_help=True)
keys_app = typer.Typer(help="API keys: create, list, revoke.", no_args_is_help=True)
app.add_typer(keys_app, name="keys")

console = Console()
err = Console(stderr=True)

DatabaseOption = Annotated[
    str | None, typer.Option("--database", "-d", help="database URL (default: TABLEBOOK_DATABASE_URL or ./data)")
]


def _url(database: str | None) -> str:
    return database or Settings().database_url


def _store(database: str | None, *, migrate: bool = False) -> Store:
    url = _url(database)
    if migrate:
        upgrade(url)
    return Store(url)


def _fail(message: str, code: int = 1) -> NoReturn:
    err.print(f"[red]error:[/red] {message}")
    raise typer.Exit(code)


def _game(store: Store, game_id: str) -> GameRecord:
    """The game's registry row, or exit with status 1 and the reason."""
    try:
        return store.get_game(game_id)
    except TablebookError as exc:
        _fail(exc.message)


@app.command()
def migrate(database: DatabaseOption = None) -> None:
    """Create or upgrade the database schema (Alembic)."""
    url = _url(database)
    upgrade(url)
    console.print(f"database ready: {url}")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port to listen on")] = 8000,
    workers: Annotated[int, typer.Option(help="uvicorn worker processes")] = 1,
    database: DatabaseOption = None,
) -> None:
    """Serve the API (and its docs at /docs)."""
    import os

    import uvicorn

    url = _url(database)
    upgrade(url)
    os.environ["TABLEBOOK_DATABASE_URL"] = url
    console.print(f"Tablebook on http://{host}:{port}  (API docs: http://{host}:{port}/docs; database: {url})")
    uvicorn.run("api.asgi:app", host=host, port=port, workers=workers, log_level="warning")


@keys_app.command("create")
def keys_create(
    club: Annotated[str, typer.Option(help="the club the key belongs to (created if new)")],
    role: Annotated[str, typer.Option(help="recorder, viewer or auditor")] = "recorder",
    label: Annotated[str, typer.Option(help="a note to recognise the key by")] = "",
    database: DatabaseOption = None,
) -> None:
    """Create a key; the key itself is printed on the last line, once (only its hash is kept)."""
    if role not in ROLES:
        _fail(f"--role must be one of {', '.join(ROLES)}", 2)
    key = create_key(_store(database), club, role, label)
    console.print(f"created a {role} key for club {club!r}; keep it, it is not shown again:")
    print(key)


@keys_app.command("list")
def keys_list(
    club: Annotated[str | None, typer.Option(help="only this club's keys")] = None, database: DatabaseOption = None
) -> None:
    """List keys (ids, clubs, roles; never the secrets)."""
    table = Table("id", "club", "role", "label", "created", "revoked")
    for key in _store(database).list_keys(club):
        table.add_row(key.id, key.club, key.role, key.label, key.created_at, key.revoked_at or "")
    console.print(table)


@keys_app.command("revoke")
def keys_revoke(
    key_id: Annotated[str, typer.Argument(help="the key's id (tb_<id>_...)")], database: DatabaseOption = None
) -> None:
    """Revoke a key at once."""
    key_id = key_id.split("_")[1] if key_id.startswith("tb_") else key_id
    if not _store(database).revoke_key(key_id):
        _fail(f"no active key {key_id!r}")
    console.print(f"revoked {key_id}")


DEMO_PLAYERS = {
    "schnapsen": ["Anna", "Ben"],
    "casino": ["Ann", "Ben", "Cho"],
    "gin-rummy-3": ["Ben", "Jo", "Ida"],
    "seven-and-a-half": ["Juan", "Ines", "Carlo", "Sara"],
    "cutthroat-smear": ["Ruby", "Ava", "Liam"],
}


@app.command()
def demo(
    games: Annotated[int, typer.Option(help="games of each kind to record")] = 2,
    seed: Annotated[int, typer.Option(help="random seed, for repeatable demos")] = 7,
    club: Annotated[str, typer.Option(help="the club that owns the demo games")] = "Demo club",
    if_empty: Annotated[bool, typer.Option("--if-empty", help="do nothing if the database has games")] = False,
    database: DatabaseOption = None,
) -> None:
    """Record simulated games of every kind (random legal play), with a progress bar."""
    store = _store(database, migrate=True)
    if if_empty and store.game_ids():
        console.print("the database already holds games; no demo games recorded")
        return
    recorder = Recorder(store)
    club_id = store.ensure_club(club)
    rng = random.Random(seed)
    kinds = available()
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as progress:
        task = progress.add_task("recording demo games", total=games * len(kinds))
        for kind in kinds:
            for _ in range(games):
                progress.update(task, description=f"recording {kind}")
                record_simulated_game(recorder, club_id, kind, rng)
                progress.advance(task)
    console.print(f"recorded {games * len(kinds)} demo games for club {club!r}")


def record_simulated_game(recorder: Recorder, club_id: int, kind: str, rng: random.Random) -> str:
    """Simulate one game and record it through the same write path as the API."""
    rules = rules_for(kind)
    players = DEMO_PLAYERS[kind]
    options: dict[str, Any] = {}
    playout = play(rules, players, options, rng=rng, max_events=1500)
    events = list(playout.events)
    if not playout.finished and "session_closed" in rules.events:
        events.extend(_close_session(rules, players, options, events, rng))
    game = recorder.create_game(club_id=club_id, kind=kind, players=players, options=options)
    for start in range(0, len(events), 200):
        recorder.append(game.id, events[start : start + 200], club_id=club_id, actor="demo")
    return game.id


def _close_session(
    rules: Any, players: list[str], options: dict[str, Any], events: list[Any], rng: random.Random
) -> list[Any]:
    """Play on to the end of the hand in progress, then close the session."""
    from projections import engine

    state = engine.fold_events(rules, rules.initial_state(players, rules.options_for(players, options)), events)
    tail: list[Any] = []
    while rules.hand_in_progress(state):
        offered = [*rules.legal_events(state), *rules.chance_events(state, rng)]
        event = engine.decide(rules, state, dict(rng.choice(offered))).event
        state = engine.apply(rules, state, event, state.seq + 1)
        tail.append(event)
    return [*tail, {"type": "session_closed"}]


@app.command()
def score(game: Annotated[str, typer.Argument(help="the game's id")], database: DatabaseOption = None) -> None:
    """Print a game's score: each hand's points and the lines that explain them."""
    store = _store(database)
    recorder = Recorder(store)
    try:
        live = recorder.live(game)
    except TablebookError as exc:
        _fail(exc.message)
        return
    sheet = live.rules.score(live.state)
    names = live.game.players
    console.print(f"[bold]{live.rules.title}[/bold] {game}: " + ", ".join(f"{i} {n}" for i, n in enumerate(names)))
    for hand in sheet.hands:
        table = Table(
            title=f"hand {hand.hand}: " + ", ".join(f"{names[s]} {p:+d}" for s, p in enumerate(hand.points)),
            show_lines=False,
        )
        table.add_column("seat")
        table.add_column("points", justify="right")
        table.add_column("rule")
        table.add_column("reason")
        table.add_column("seqs")
        for line in hand.lines:
            table.add_row(
                names[line.seat], f"{line.points:+d}", line.rule, line.reason, ", ".join(map(str, line.events))
            )
        console.print(table)
    totals = ", ".join(f"{names[s]} {t}" for s, t in enumerate(sheet.totals))
    state = "finished" if sheet.finished else "live"
    winner = f"; winner: {names[sheet.winner]}" if sheet.winner is not None else ""
    console.print(f"[bold]totals[/bold] ({state}): {totals}{winner}")


@app.command()
def verify(
    game: Annotated[str | None, typer.Argument(help="a game's id (default: every game)")] = None,
    database: DatabaseOption = None,
) -> None:
    """Re-walk hash chains and re-run the rules; exit status 1 if any game fails."""
    store = _store(database)
    ids = [game] if game else store.game_ids()
    bad = 0
    for game_id in ids:
        record = _game(store, game_id)
        report = verify_game(record, store.iter_events(game_id))
        if report.ok:
            console.print(f"[green]ok[/green]   {game_id}  {report.events} events  head {report.head_hash[:16]}")
        else:
            bad += 1
            console.print(f"[red]FAIL[/red] {game_id}  first bad seq {report.first_bad_seq}")
            for problem in report.problems:
                console.print(f"       seq {problem['seq']}: {problem['message']}")
    console.print(f"{len(ids) - bad} of {len(ids)} games verified")
    if bad:
        raise typer.Exit(1)


@app.command()
def replay(
    game: Annotated[str, typer.Argument(help="the game's id")],
    hand: Annotated[int, typer.Option(help="the hand to replay")] = 1,
    seat: Annotated[int | None, typer.Option(help="look from this seat (default: everything)")] = None,
    follow: Annotated[bool, typer.Option("--follow", help="wait for new events of a live hand")] = False,
    database: DatabaseOption = None,
) -> None:
    """Print a hand frame by frame: each event in card notation, then the table after it."""
    import time

    from projections.recorder import initial_state_of
    from projections.replay import hand_frames

    store = _store(database)
    record = _game(store, game)
    rules, initial = initial_state_of(record)
    if seat is not None and not 0 <= seat < len(record.players):
        _fail(f"--seat must be 0 to {len(record.players) - 1}", 2)
    shown = 0
    while True:
        envelopes = store.read_events(game)
        try:
            frames = hand_frames(rules, initial, envelopes, hand, seat, record.players)
        except TablebookError as exc:
            if not follow:
                _fail(exc.message)
            frames = []
        for frame in frames[shown:]:
            _print_frame(frame, record.players)
        shown = max(shown, len(frames))
        state = engine.fold(rules, initial, envelopes)
        hand_over = state.hand > hand or (state.hand == hand and not rules.hand_in_progress(state) and shown)
        if not follow or hand_over:
            return
        time.sleep(1.0)


def _print_frame(frame: dict[str, Any], names: tuple[str, ...]) -> None:
    from projections.notation import describe

    flags = ""
    if "violation" in frame:
        flags += f"  [illegal: {frame['violation']['rule']}]"
    if "retracted_by" in frame:
        flags += f"  [retracted by seq {frame['retracted_by']}]"
    console.print(
        f"[bold]{frame['seq']:>4}[/bold]  {describe(frame['event'], frame['result'], names)}{flags}", highlight=False
    )
    state = frame["state"]
    acting = ", ".join(names[s] for s in state.get("to_act", []))
    console.print(f"      phase {state['phase']}" + (f"; to act: {acting}" if acting else ""), highlight=False)
    from projections.notation import _cards

    for seat_doc in state.get("seats", []):
        cards = _cards(seat_doc["cards"]) if "cards" in seat_doc else f"{seat_doc.get('card_count', 0)} cards"
        console.print(f"      {seat_doc['name']}: {cards}", highlight=False)
    table = ", ".join(f"{k} {_cards(v)}" for k, v in state.get("table", {}).items() if v not in (None, [], {}))
    if table:
        console.print(f"      table: {table}", highlight=False)


@app.command()
def audit(game: Annotated[str, typer.Argument(help="the game's id")], database: DatabaseOption = None) -> None:
    """Print the audit of a game: the chain, flagged plays, retractions, claims against the computed score."""
    from projections.audit import audit_game

    store = _store(database)
    record = _game(store, game)
    report = audit_game(record, store.read_events(game))
    chain = report["chain"]
    names = ", ".join(f"{i} {n}" for i, n in enumerate(record.players))
    console.print(f"[bold]Audit of {game}[/bold] ({record.kind}: {names})", highlight=False)
    if chain["ok"]:
        console.print(f"chain: [green]ok[/green], {chain['events']} events, head {chain['head_hash'][:16]}")
    else:
        console.print(f"chain: [red]BROKEN[/red] at seq {chain['problems'][0]['seq']}")
        for problem in chain["problems"]:
            console.print(f"  seq {problem['seq']}: {problem['message']}", highlight=False)
    sections: list[tuple[str, list[dict[str, Any]], Callable[[dict[str, Any]], str]]] = [
        (
            "illegal plays stored under record enforcement",
            report["violations"],
            lambda v: f"seq {v['seq']}: {v['rule']}: {v['message']}",
        ),
        (
            "retractions",
            report["retractions"],
            lambda r: (
                f"seq {r['seq']} by {r['actor']} at {r['recorded_at']}: back to seq {r['to_seq']} "
                f"({r['reason']!r}); retracted seqs {r['retracted']}"
            ),
        ),
        (
            "claims",
            report["claims"],
            lambda c: (
                f"seq {c['seq']}: {'[green]agrees[/green]' if c['agrees'] else '[red]differs[/red]'}: {c['summary']}"
            ),
        ),
        (
            "notes",
            report["notes"],
            lambda n: f"seq {n['seq']}: {n['text']!r}" + (f" (on seq {n['ref']})" if n["ref"] else ""),
        ),
        ("game notes", report["game_notes"], lambda n: f"seq {n['seq']}: {n['text']}"),
    ]
    for title, items, render in sections:
        console.print(f"[bold]{title}[/bold]: {len(items) or 'none'}")
        for item in items:
            console.print("  " + render(item), highlight=False)


@app.command("demo-keys")
def demo_keys(
    club: Annotated[str, typer.Option(help="the demo club")] = "Demo club", database: DatabaseOption = None
) -> None:
    """Create a recorder and an auditor key for the demo club and print how to use them."""
    store = _store(database, migrate=True)
    recorder_key = create_key(store, club, "recorder", "make run")
    auditor_key = create_key(store, club, "auditor", "make run")
    console.print(f"club {club!r}:")
    console.print(f"  recorder key: {recorder_key}")
    console.print(f"  auditor key:  {auditor_key}")


# --------------------------------------------------------------------------- hand histories (issue 8)

players_app = typer.Typer(help="Players' personal data: erase a name from every game.", no_args_is_help=True)
app.add_typer(players_app, name="players")

FormatOption = Annotated[str, typer.Option("--format", "-f", help="json, jsonl, text or csv")]


def _progress(console_: Console) -> Progress:
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console_
    )


def _open_output(output: str | None) -> Any:
    if output is None or output == "-":
        return sys.stdout.buffer
    return open(output, "wb")


@app.command("export")
def export_command(
    game: Annotated[str | None, typer.Argument(help="the game's id (or --all)")] = None,
    fmt: FormatOption = "text",
    all_games: Annotated[bool, typer.Option("--all", help="every game, as NDJSON (for `tablebook import`)")] = False,
    club: Annotated[str | None, typer.Option(help="with --all: only this club's games")] = None,
    kind: Annotated[str | None, typer.Option("--game", help="with --all: only this game kind")] = None,
    since: Annotated[str | None, typer.Option(help="with --all: created at or after (ISO 8601)")] = None,
    until: Annotated[str | None, typer.Option(help="with --all: created before (ISO 8601)")] = None,
    output: Annotated[str | None, typer.Option("--output", "-o", help="write to this file (default: stdout)")] = None,
    database: DatabaseOption = None,
) -> None:
    """Export a game (text hand history, json, jsonl or csv score sheet), or every game as NDJSON.

    `tablebook export --all > club.ndjson` streams every game in constant memory, with a
    progress bar on stderr; `tablebook import club.ndjson` reads it back.
    """
    from projections.histories import export

    store = _store(database)
    if all_games == (game is not None):
        _fail("give a game's id, or --all", 2)
    if all_games:
        club_id = _club_id(store, club) if club is not None else None
        total = store.count_games(club_id=club_id)
        out = _open_output(output)
        try:
            with _progress(err) as progress:
                task = progress.add_task("exporting games", total=total)
                for chunk in export.bulk_lines(
                    store,
                    club_id=club_id,
                    kind=kind,
                    since=since,
                    until=until,
                    on_game=lambda _: progress.advance(task),
                ):
                    out.write(chunk)
            out.flush()
        finally:
            if out is not sys.stdout.buffer:
                out.close()
        return
    if fmt not in export.FORMATS:
        _fail(f"--format must be one of {', '.join(export.FORMATS)}", 2)
    assert game is not None
    record = _game(store, game)
    envelopes = store.read_events(game)
    rules, state = export.snapshot(record, envelopes)
    head_hash = envelopes[-1]["hash"] if envelopes else record.genesis_hash
    head = export.header(
        record, store.club_name(record.club_id), seq=len(envelopes), head_hash=head_hash, state=state, rules=rules
    )
    if fmt == "json":
        body = orjson.dumps(export.json_document(head, envelopes), option=orjson.OPT_INDENT_2) + b"\n"
    elif fmt == "jsonl":
        body = b"".join(export.jsonl_lines(head, envelopes))
    elif fmt == "text":
        body = "".join(export.text_lines(head, rules, envelopes, envelopes)).encode()
    else:
        body = export.score_csv(record.players, rules.score(state)).encode()
    out = _open_output(output)
    try:
        out.write(body)
        out.flush()
    finally:
        if out is not sys.stdout.buffer:
            out.close()


def _club_id(store: Store, name: str) -> int:
    """The id of an existing club (an export never creates one)."""
    from sqlalchemy import select

    from events.store import CLUBS

    with store.engine.connect() as conn:
        found = conn.execute(select(CLUBS.c.id).where(CLUBS.c.name == name)).scalar()
    if found is None:
        _fail(f"no club {name!r}")
        raise typer.Exit(1)
    return int(found)


def _file_lines(handle: Any, advance: Callable[[int], None]) -> Any:
    """`(number, line)` of a binary file, advancing the progress bar by the bytes read."""
    for number, raw in enumerate(handle, start=1):
        advance(len(raw))
        line = raw.strip()
        if number == 1:
            line = line.lstrip(b"\xef\xbb\xbf")
        if line:
            yield number, line


@app.command("import")
def import_command(
    file: Annotated[str, typer.Argument(help="a json, jsonl or text export, or an NDJSON file of many games")],
    club: Annotated[
        str | None, typer.Option(help="import into this club (created if new); default: the club each game names")
    ] = None,
    fmt: Annotated[str | None, typer.Option("--format", "-f", help="json, jsonl or text (default: recognised)")] = None,
    skip_existing: Annotated[
        bool, typer.Option(help="skip a game already in the club (same genesis and head hash)")
    ] = True,
    database: DatabaseOption = None,
) -> None:
    """Import games: each is checked (chain, rules) and written as a new game; a bad game is skipped
    with its reason, the others are imported; a summary at the end. Exit status 1 if a game was bad."""
    import os

    from projections.histories import importer
    from projections.histories.errors import BadImportError

    store = _store(database, migrate=True)
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
        return store.ensure_club(str(name))

    outcomes: list[importer.Outcome] = []
    size = os.path.getsize(file)
    with _progress(err) as progress:
        task = progress.add_task(f"importing {os.path.basename(file)}", total=size)
        if kind == "jsonl":
            with open(file, "rb") as handle:
                lines = _file_lines(handle, lambda n: progress.advance(task, n))
                for outcome in importer.import_many(store, club_of, lines, skip_existing=skip_existing):
                    outcomes.append(outcome)
                    _print_outcome(outcome)
        else:
            with open(file, "rb") as handle:
                body = handle.read()
            progress.advance(task, size)
            try:
                checked = importer.read_file(body, actor="cli:import", fmt=kind)
                club_id = club_of(checked)
                same = store.find_same_chain(club_id, checked.genesis, checked.head.head_hash)
                if same and skip_existing:
                    outcome = importer.Outcome(
                        checked.source.get("id"), 0, reason=f"already in the club as {same[0]}", duplicate_of=same[0]
                    )
                else:
                    record = importer.import_game(store, club_id, checked)
                    outcome = importer.Outcome(checked.source.get("id"), 0, game=record, events=len(checked.envelopes))
            except TablebookError as exc:
                outcome = importer.Outcome(None, 0, reason=exc.message)
            outcomes.append(outcome)
            _print_outcome(outcome)
    summary = importer.import_summary(outcomes)
    bad = sum(1 for o in outcomes if o.game is None and o.duplicate_of is None)
    duplicates = sum(1 for o in outcomes if o.duplicate_of is not None)
    console.print(
        f"[bold]imported {summary['imported']} of {len(outcomes)} games[/bold] ({summary['events']} events); "
        f"skipped {bad} bad, {duplicates} already there"
    )
    if bad:
        raise typer.Exit(1)


def _print_outcome(outcome: Any) -> None:
    source = f" ({outcome.source_id})" if outcome.source_id else ""
    at = f" at line {outcome.line}" if outcome.line else ""
    if outcome.game is not None:
        console.print(f"[green]imported[/green] {outcome.game.id}{source}: {outcome.events} events", highlight=False)
    elif outcome.duplicate_of is not None:
        console.print(f"[yellow]skipped[/yellow]  game{at}{source}: {outcome.reason}", highlight=False)
    else:
        console.print(f"[red]bad[/red]      game{at}{source}: {outcome.reason}", highlight=False)


@app.command()
def rebuild(database: DatabaseOption = None) -> None:
    """Rebuild every read model from zero (the hand facts behind `GET /v1/games?has=`), with a progress bar."""
    from projections.readmodel import HandFacts

    store = _store(database, migrate=True)
    facts = HandFacts(store)
    total = store.head_position()
    with _progress(err) as progress:
        task = progress.add_task("hand facts (event positions)", total=total)
        read = facts.rebuild(lambda n: progress.advance(task, n))
    rows = len(store.hand_fact_rows())
    console.print(f"rebuilt the hand facts: {read} events read, {rows} facts, checkpoint at {facts.position()}")


@players_app.command("erase")
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
    A running server caches game names: restart it after an erasure."""
    from projections.histories.erasure import erase_player

    store = _store(database)
    if not name.strip() or not replacement.strip():
        _fail("the name and its replacement must not be empty", 2)
    club_id = _club_id(store, club) if club is not None else None
    report = erase_player(store, name, replacement, club_id=club_id, dry_run=dry_run)
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


def main() -> None:
    """Entry point of the `tablebook` script."""
    try:
        app()
    except TablebookError as exc:
        err.print(f"[red]error:[/red] {exc.message}")
        sys.exit(1)


if __name__ == "__main__":
    main()
