"""`tablebook`: serve the API, manage keys, record demo games, read scores, verify chains.

Every command works on the database of `TABLEBOOK_DATABASE_URL` (default
`sqlite:///./data/tablebook.db`), or the one given with `--database`.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from api.auth import ROLES, create_key
from api.settings import Settings
from events.errors import TablebookError
from events.migrate import upgrade
from events.store import Store
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


def _fail(message: str, code: int = 1) -> None:
    err.print(f"[red]error:[/red] {message}")
    raise typer.Exit(code)


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
        try:
            record = store.get_game(game_id)
        except TablebookError as exc:
            _fail(exc.message)
            return
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
    try:
        record = store.get_game(game)
    except TablebookError as exc:
        _fail(exc.message)
        return
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
    try:
        record = store.get_game(game)
    except TablebookError as exc:
        _fail(exc.message)
        return
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


def main() -> None:
    """Entry point of the `tablebook` script."""
    try:
        app()
    except TablebookError as exc:
        err.print(f"[red]error:[/red] {exc.message}")
        sys.exit(1)


if __name__ == "__main__":
    main()
