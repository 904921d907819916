"""`tablebook`: serve the API, manage keys, record demo games, read scores, verify chains.

Every command works on the database of `TABLEBOOK_DATABASE_URL` (default
`sqlite:///./data/tablebook.db`), or the one given with `--database`.
"""

from __future__ import annotations

import importlib
import os
import random
import socket
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import orjson
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from api.cli.common import DatabaseOption, console, err, out
from api.cli.common import database_url as _url
from api.cli.common import fail as _fail
from api.cli.common import operator_of as _operator_of
from api.cli.common import service as _service
from api.cli.common import settings as _settings
from api.cli.common import store as _store
from api.cli.output import GAME_COLUMNS, Part, frame_lines, game_row, hit_text
from events.errors import TablebookError
from projections.core import phrases
from projections.readmodels import rebuild as rebuild_models

# Startup (issue 14): `tablebook --help` imports typer, rich and the light modules above only. Everything
# that pulls in SQLAlchemy, Alembic, pydantic or FastAPI is imported inside the command that needs it, or,
# for the names below, at its first call.


def _lazy(module: str, name: str) -> Any:
    """`module.name` (a function or class), imported at its first call."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


if TYPE_CHECKING:
    from api.auth import authenticate, create_key
    from api.service import Operator, Tablebook
    from events.store import Store
    from events.store.migrate import upgrade
    from projections.core.registry import available
    from projections.core.rules import GameRules
else:
    authenticate = _lazy("api.auth", "authenticate")
    create_key = _lazy("api.auth", "create_key")
    upgrade = _lazy("events.store.migrate", "upgrade")
    available = _lazy("projections.core.registry", "available")
    Operator = _lazy("api.service", "Operator")

app = typer.Typer(help="Tablebook: the record of every hand your club plays.", no_args_is_help=True)
keys_app = typer.Typer(help="API keys: create, list, revoke.", no_args_is_help=True)
app.add_typer(keys_app, name="keys")


def _game(service: Tablebook, game_id: str) -> dict[str, Any]:
    """The game (as `GET /v1/games/{id}` shows it), or exit with status 1 and the reason."""
    from api.service import OPERATOR

    try:
        return service.game(OPERATOR, game_id)
    except TablebookError as exc:
        _fail(exc.message)


@app.command()
def migrate(database: DatabaseOption = None) -> None:
    """Create or upgrade the database schema (Alembic)."""
    url = _url(database)
    upgrade(url)
    console.print(f"database ready: {url}")


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _cannot_listen(host: str, port: int) -> str | None:
    """Why uvicorn could not listen on `host:port` (bound the way uvicorn binds), or None."""
    import errno

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn: a TIME_WAIT port is free
        try:
            sock.bind((host, port))
        except OSError as exc:
            where = _address(host, port)
            if exc.errno == errno.EADDRINUSE:
                return (
                    f"{where} is in use (another server listens there): stop it, or choose another port "
                    "with --port or TABLEBOOK_PORT"
                )
            if exc.errno == errno.EACCES:
                return f"{where}: permission denied (ports below 1024 need privileges): choose another port"
            return f"cannot listen on {where}: {exc.strerror or exc}"
    return None


@app.command()
def serve(
    host: Annotated[
        str | None, typer.Option(help="address to listen on (default: TABLEBOOK_HOST or 127.0.0.1)")
    ] = None,
    port: Annotated[int | None, typer.Option(help="port to listen on (default: TABLEBOOK_PORT or 8000)")] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help="uvicorn worker processes (default: TABLEBOOK_WORKERS or 1)")
    ] = None,
    access_log: Annotated[
        bool | None,
        typer.Option("--access-log/--no-access-log", help="log each request (default: TABLEBOOK_ACCESS_LOG or on)"),
    ] = None,
    database: DatabaseOption = None,
) -> None:
    """Serve the API (and its docs at /docs); the options default to the TABLEBOOK_* settings."""
    import copy

    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    from events.store import shown_url

    settings = _settings()
    host = settings.host if host is None else host
    port = settings.port if port is None else port
    workers = settings.workers if workers is None else workers
    access_log = settings.access_log if access_log is None else access_log
    problem = _cannot_listen(host, port)
    if problem:
        _fail(problem)
    url = _url(database)
    upgrade(url)
    os.environ["TABLEBOOK_DATABASE_URL"] = url  # the app of each worker reads it (api/asgi.py)
    base = f"http://{_address(host, port)}"
    console.print(
        f"Tablebook API:  {base}/v1/games   (send: Authorization: Bearer <key>)", highlight=False, soft_wrap=True
    )
    console.print(f"API docs:       {base}/docs", highlight=False, soft_wrap=True)
    console.print(
        f"Replay page:    {base}/replay   (the club's games; one game: /replay/<game id>)",
        highlight=False,
        soft_wrap=True,
    )
    console.print(
        f"Table pad:      {base}/record/   (record a game at the table, from a phone)", highlight=False, soft_wrap=True
    )
    console.print(
        f"Standings:      {base}/standings   (a player: /players/<id or name>)", highlight=False, soft_wrap=True
    )
    shown = shown_url(url)
    console.print(f"Health:         {base}/healthz   (database: {shown})", highlight=False, soft_wrap=True)
    # uvicorn's own messages from warnings up; the access log (stdout) on unless turned off
    log_config = copy.deepcopy(LOGGING_CONFIG)
    log_config["loggers"]["uvicorn.error"]["level"] = "WARNING"
    from api.tcp import NoDelayH11Protocol

    uvicorn.run(
        "api.asgi:app",
        host=host,
        port=port,
        workers=workers,
        access_log=access_log,
        log_config=log_config,
        http=NoDelayH11Protocol,  # TCP_NODELAY with any number of workers (api/tcp.py)
    )


@keys_app.command("create")
def keys_create(
    club: Annotated[str, typer.Option(help="the club the key belongs to (created if new)")],
    role: Annotated[str, typer.Option(help="recorder, viewer or auditor")] = "recorder",
    label: Annotated[str, typer.Option(help="a note to recognise the key by")] = "",
    database: DatabaseOption = None,
) -> None:
    """Create a key; the key itself is printed on the last line, once (only its hash is kept)."""
    from api.auth import ROLES

    if role not in ROLES:
        _fail(f"--role must be one of {', '.join(ROLES)}", 2)
    key = create_key(_store(database), club, role, label)
    out.line(f"created a {role} key for club {club!r}; keep it, it is not shown again:")
    print(key)


@keys_app.command("list")
def keys_list(
    club: Annotated[str | None, typer.Option(help="only this club's keys")] = None, database: DatabaseOption = None
) -> None:
    """List keys (ids, clubs, roles; never the secrets)."""
    rows = [
        [key.id, key.club, key.role, key.label, key.created_at, key.revoked_at or ""]
        for key in _store(database).list_keys(club)
    ]
    out.table(["id", "club", "role", "label", "created", "revoked"], rows)


@keys_app.command("revoke")
def keys_revoke(
    key_id: Annotated[str, typer.Argument(help="the key's id (tb_<id>_...)")], database: DatabaseOption = None
) -> None:
    """Revoke a key at once."""
    key_id = key_id.split("_")[1] if key_id.startswith("tb_") else key_id
    if not _store(database).revoke_key(key_id):
        _fail(f"no active key {key_id!r}")
    console.print(f"revoked {key_id}")


#: the club of `tablebook demo` and `tablebook demo-keys` (make run)
DEMO_CLUB = "Demo club"


@app.command()
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


JsonOption = Annotated[
    bool, typer.Option("--json", help="print the JSON document the API answers, and nothing else on stdout")
]


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


@app.command()
def score(
    game: Annotated[str, typer.Argument(help="the game's id")],
    as_json: JsonOption = False,
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


@app.command()
def verify(
    game: Annotated[str | None, typer.Argument(help="a game's id (default: every game)")] = None,
    as_json: JsonOption = False,
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


@app.command()
def replay(
    game: Annotated[str, typer.Argument(help="the game's id")],
    hand: Annotated[int, typer.Option(min=0, help="the hand to replay (0: the events before the first deal)")] = 1,
    seat: Annotated[int | None, typer.Option(help="look from this seat (default: everything)")] = None,
    follow: Annotated[bool, typer.Option("--follow", help="wait for new events of a live hand")] = False,
    as_json: JsonOption = False,
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


@app.command()
def audit(
    game: Annotated[str, typer.Argument(help="the game's id")],
    as_json: JsonOption = False,
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


#: the roles of the demo keys, in the order they are printed
DEMO_ROLES = ("recorder", "auditor", "viewer")
#: the label of the demo keys (and of those older versions minted at every `make run`)
DEMO_LABELS = ("demo-keys", "make run")


def demo_keys_path(url: str) -> Path:
    """Where the demo keys are kept: beside a SQLite database's file, else ./data/demo-keys.json."""
    if url.startswith("sqlite") and "///" in url:
        path = url.split("///", 1)[1].split("?", 1)[0]
        if path and path != ":memory:":
            return Path(path).parent / "demo-keys.json"
    return Path("data") / "demo-keys.json"


def _saved_demo_keys(store: Store, path: Path, club: str) -> dict[str, str] | None:
    """The keys of the file, if each still opens the club with its role; else None."""
    try:
        keys = orjson.loads(path.read_bytes())["keys"]
        for role in DEMO_ROLES:
            principal = authenticate(store, f"Bearer {keys[role]}")
            if principal.club != club or principal.role != role:
                return None
    except (OSError, ValueError, KeyError, TypeError, TablebookError):
        return None
    return {role: str(keys[role]) for role in DEMO_ROLES}


def _write_private(path: Path, body: bytes) -> None:
    """Write `body` to `path` readable by its owner only (mode 0600), whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".tmp")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(body)
    os.chmod(partial, 0o600)
    os.replace(partial, path)


@app.command("demo-keys")
def demo_keys(
    club: Annotated[str, typer.Option(help="the demo club")] = DEMO_CLUB,
    keys_file: Annotated[
        Path | None,
        typer.Option(help="the file of the keys (default: demo-keys.json beside the database, or in ./data)"),
    ] = None,
    database: DatabaseOption = None,
) -> None:
    """Print the demo club's recorder, auditor and viewer keys, made once and kept in a file (mode 0600;
    the database keeps only their hashes). Keys of the file that no longer work (revoked, another
    database) are replaced: every older demo key of the club is revoked and three new ones are made."""
    url = _url(database)
    store = _store(url, migrate=True)
    path = keys_file or demo_keys_path(url)
    keys = _saved_demo_keys(store, path, club)
    if keys is None:
        for old in store.list_keys(club):
            if old.label in DEMO_LABELS and old.revoked_at is None:
                store.revoke_key(old.id)
        keys = {role: create_key(store, club, role, DEMO_LABELS[0]) for role in DEMO_ROLES}
        _write_private(path, orjson.dumps({"club": club, "keys": keys}, option=orjson.OPT_INDENT_2))
        said = f"new keys for club {club!r}, kept in {path}"
    else:
        said = f"the keys of club {club!r}, kept in {path}"
    console.print(f"{said} (the demo games are this club's):", markup=False, highlight=False, soft_wrap=True)
    for role in DEMO_ROLES:
        console.print(f"  {role + ' key:':<14}{keys[role]}", markup=False, highlight=False, soft_wrap=True)
    settings = _settings()
    console.print(
        "Send one as 'Authorization: Bearer <key>': a recorder records and reads, an auditor also audits and "
        "corrects, a viewer reads with a live hand's hidden cards redacted. For example:",
        highlight=False,
        soft_wrap=True,
    )
    console.print(
        f"  curl -s {_address(settings.host, settings.port)}/v1/games -H 'Authorization: Bearer {keys['viewer']}'",
        highlight=False,
        soft_wrap=True,
    )


# --------------------------------------------------------------------------- hand histories (issue 8)

players_app = typer.Typer(
    help="A club's players: list, add, show, rename, merge, forget; erase a name from every game.", no_args_is_help=True
)
app.add_typer(players_app, name="players")

FormatOption = Annotated[
    str, typer.Option("--format", "-f", help="json, jsonl, text, csv, or csv-excel (csv with a byte-order mark)")
]


def _moment(value: str | None) -> str | None:
    """`--since`/`--until`: an ISO 8601 date (midnight UTC) or date and time with a time zone, written as
    the store writes its UTC times (`2026-11-29T13:00:00.000000Z`), so that they compare as times.

    Raises:
        typer.BadParameter: anything else (`yesterday`, `2026-13-45`, a time without a zone): exit status 2.
    """
    if value is None:
        return None
    from datetime import UTC, date, datetime

    text = value.strip()
    try:
        day = date.fromisoformat(text)
        moment = datetime(day.year, day.month, day.day, tzinfo=UTC)
    except ValueError:
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise typer.BadParameter(
                f"{value!r} is not an ISO 8601 date or time: give e.g. 2026-11-29 (midnight UTC), "
                "2026-11-29T14:00:00Z or 2026-11-29T14:00:00+01:00"
            ) from None
        if moment.tzinfo is None:
            raise typer.BadParameter(
                f"{value!r} has no time zone: add Z (UTC) or an offset, e.g. {text}Z or {text}+01:00"
            ) from None
    try:
        return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    except (OverflowError, ValueError):
        raise typer.BadParameter(f"{value!r} is out of range") from None


def _kind(value: str | None) -> str | None:
    """`--game`: one of the known kinds, exactly as the API names them."""
    from projections.core.registry import KINDS

    if value is not None and value not in KINDS:
        raise typer.BadParameter(f"unknown game {value!r}; known games: {', '.join(KINDS)}")
    return value


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


_WHEN = "an ISO 8601 date (midnight UTC) or date and time with a time zone"
SinceOption = Annotated[
    str | None, typer.Option(callback=_moment, metavar="WHEN", help=f"created at or after: {_WHEN}")
]
UntilOption = Annotated[str | None, typer.Option(callback=_moment, metavar="WHEN", help=f"created before: {_WHEN}")]
KindOption = Annotated[
    str | None, typer.Option("--game", callback=_kind, metavar="KIND", help="only this game kind (e.g. casino)")
]


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
    kind: Annotated[
        str | None, typer.Option("--game", callback=_kind, metavar="KIND", help="with --all: only this game kind")
    ] = None,
    since: Annotated[
        str | None, typer.Option(callback=_moment, metavar="WHEN", help=f"with --all: created at or after: {_WHEN}")
    ] = None,
    until: Annotated[
        str | None, typer.Option(callback=_moment, metavar="WHEN", help=f"with --all: created before: {_WHEN}")
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
            with _progress(err) as progress:
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


@app.command("import")
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
    with _progress(err) as progress:
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


@app.command()
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
    with _progress(err) as progress:
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
    A running server shows the new name at its next request (names are read from the database)."""
    service = _service(database)
    if not name.strip() or not replacement.strip():
        _fail("the name and its replacement must not be empty", 2)
    club_id = _operator_of(service, club).club_id
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


# --------------------------------------------------------------------------- listing and search (issue 14)

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


@app.command("list")
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
    as_json: JsonOption = False,
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


@app.command()
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
    as_json: JsonOption = False,
    database: DatabaseOption = None,
) -> None:
    """Find games where a situation happened (a sweep, a marriage...), newest first.

    As GET /v1/games?has=...: each game, then its hits (hand, seq, situation, seat). The read model
    catches up with the event log first. `--json`: the page the API answers."""
    service = _service(database)
    facts = service.hand_facts()
    if err.is_terminal and facts.behind() > 1000:
        with _progress(err) as progress:
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


deals_app = typer.Typer(help="Server deals: the club's fairness report.", no_args_is_help=True)
app.add_typer(deals_app, name="deals")


@app.command("verify-deal")
def verify_deal(
    file: Annotated[str, typer.Argument(help="an exported record: json or jsonl (tablebook export --format json)")],
    as_json: JsonOption = False,
) -> None:
    """Check a server-dealt record's deals: each revealed hand's commitment, its recomputed deck and every
    dealt, drawn and hit card in order (`projections/fairness/fairdeal.py`, which runs without Tablebook too:
    docs/server-deal.md). Exit status 1 names the first hand and card that does not match."""
    from projections.fairness import fairdeal

    try:
        with open(file, "rb") as handle:
            report = fairdeal.verify_file(handle.read())
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        _fail(f"cannot read {file}: {exc}", 2)
    if as_json:
        out.json(report.to_dict())
    else:
        for text in fairdeal.render(report).splitlines():
            out.line(text)
    if not report.ok:
        raise typer.Exit(1)


@deals_app.command("report")
def deals_report(
    club: Annotated[str | None, typer.Option(help="one club (default: every club)")] = None,
    kind: Annotated[
        str | None, typer.Option("--game", callback=_kind, metavar="KIND", help="one game kind (default: every kind)")
    ] = None,
    as_json: JsonOption = False,
    database: DatabaseOption = None,
) -> None:
    """The fairness report of server deals (GET /v1/deals/report): suit patterns of the seats' hands and
    each card's position in the deck, against the exact probabilities, with chi-square p-values."""
    service = _service(database)
    report = service.deals_report(_operator_of(service, club), kind=kind)
    if as_json:
        out.json(report)
        return
    if not report["kinds"]:
        out.line("no revealed server-dealt hand")
    for doc in report["kinds"]:
        out.line((doc["game"], "bold"), f"  {doc['hands']} hands of {doc['games']} games")
        patterns = doc["patterns"]
        if patterns:
            rows = [
                [r["pattern"], str(r["observed"]), f"{r['expected']:.1f}", f"{r['probability']:.4f}"]
                for r in patterns["rows"]
                if r["observed"] or r["expected"] >= 0.5
            ]
            out.table(["pattern", "observed", "expected", "probability"], rows, title="suit patterns of a seat's hand")
            out.line(
                f"  patterns: chi-square {patterns['chi_square']:.2f}, df {patterns['df']}, p {_p(patterns['p_value'])}"
            )
        positions = doc["positions"]
        if positions:
            rough = " (rough: fewer than 5 expected per cell)" if positions["rough"] else ""
            out.line(
                f"  card positions: chi-square {positions['chi_square']:.1f}, df {positions['df']}, "
                f"p {_p(positions['p_value'])}{rough}"
            )
        if doc["recorders"]:
            out.table(
                ["recorder", "hands dealt", "voided", "dealt cards taken back", "dealt again"],
                [
                    [
                        r["actor"],
                        str(r["hands_dealt"]),
                        str(r["hands_voided"]),
                        str(r["retracts_of_dealt_cards"]),
                        str(r["hands_dealt_again"]),
                    ]
                    for r in doc["recorders"]
                ],
                title="re-deals by recorder (voids deal a new deck; a correction deals the same cards again)",
            )


def _p(value: float | None) -> str:
    return "n/a (too few hands)" if value is None else f"{value:.4f}"


def _register_commands() -> None:
    """The house-rule commands (`rescore`, `rescore-season`, `profiles`) live in their own module."""
    from api.cli import players as cli_players
    from api.cli import rescore as cli_rescore

    cli_rescore.register(app)
    cli_players.register(app, players_app)


_register_commands()


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
