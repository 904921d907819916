"""Growth: the cost of a single-event append on an empty store and on one holding 10 million events.

`python -m bench.growth` (`BENCH_QUICK=1`: 500,000 events; `BENCH_GROWTH_EVENTS=N`: N; `BENCH_PG=0`: SQLite
only). Issue 34 asks that an append at 10 million stored events cost within 20% of one on an empty store,
on SQLite (a file with the service's own settings) and on PostgreSQL. For each store:

- two databases, both migrated to head: one stays empty, the other is filled in bulk to the size asked;
- the fill replays simulated games of every kind (`bench.folds.simulated` and `sealed`: the bots' games,
  with the real `data` and `result` JSON that the read models' partial indexes test) many times over under
  new game ids, each with its `game` row, its seats (`seat_players`) and its events. The rows are the
  store's own: `mapper.row_values` over `EVENT_FIELDS` (so a column added to the event table is filled as
  the store fills it, the read flags of `read_by` included), written by the dialect's own bulk insert
  (`Dialect.insert_rows`: one `executemany` on SQLite, `COPY` on PostgreSQL), 200,000 events a
  transaction. Every index, trigger and partial index of the schema is in place while it fills; nothing is
  dropped and rebuilt. Then the store is settled as a long-running one would be: SQLite's WAL checkpointed
  (else the first append after the fill would copy gigabytes back into the file); on PostgreSQL `VACUUM
  (ANALYZE)` (what autovacuum would have done meanwhile, not left to start in the middle of a measurement)
  and a `CHECKPOINT`, on both databases alike. The fill's time and rate are printed;
- then single-event appends (`Store.append`, one event a transaction, as `python -m bench` measures them),
  round-robin over new games (a server appends to many live games), in each durability mode, on the empty
  database and the filled one in turn, round after round (the machine is shared and the disk's sync rate
  swings: only figures measured side by side compare). The median of the rounds, in milliseconds an
  append, with the ratio of the filled store's to the empty one's. The row's figure is the CPU an append
  costs (issue 34 sets costs per event, per core): this process's, which on SQLite holds SQLite's own
  work, plus on PostgreSQL the CPU of the database's client backends, read from /proc (autovacuum, the
  WAL writer and the checkpointer are not counted). The wall clock is under it, with the best rounds:
  the `full` modes' is mostly the disk's sync, and on a shared machine it swings with the load, where
  the CPU does not.

Numbers are printed, never asserted. The SQLite files live in a temporary directory, the PostgreSQL
databases on `TABLEBOOK_TEST_PG` under random names; both go at the end, also on failure.
"""

from __future__ import annotations

import os
import random
import secrets
import signal
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

import projections.readmodels  # noqa: F401  (the event rows get their read flags, as in a server)
from bench.folds import players_for, sealed, simulated
from bench.scratch import new_games
from events.envelope import Envelope
from events.store import DURABILITY_MODES, Head, Store, make_engine, new_id
from events.store.mapper import EVENT_FIELDS, row_values
from events.store.migrate import upgrade
from events.store.players import seat_players
from events.store.registry import game_row
from projections.core.registry import available, rules_for
from projections.core.tuning import tune_gc

QUICK = bool(os.environ.get("BENCH_QUICK"))
EVENTS = int(os.environ.get("BENCH_GROWTH_EVENTS") or (500_000 if QUICK else 10_000_000))
PG_SERVER = os.environ.get("TABLEBOOK_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
#: simulated events of each kind, replayed under new ids until the store holds `EVENTS`
TEMPLATE_EVENTS = 3_000 if QUICK else 20_000
#: events a fill transaction (whole games)
CHUNK = 200_000
#: the names seated in the filled games (a club's regulars)
NAMES = 60
#: single-event appends a round, spread round-robin over `GAMES` new games
APPENDS = 400 if QUICK else 1000
GAMES = 8
ROUNDS = 9 if QUICK else 11
#: issue 34: the append at 10 million events within 20% of an empty store's
TARGET = 1.2
#: what each durability mode sets (as in `python -m bench`)
SETTING = {
    ("SQLite", "full"): "synchronous=FULL",
    ("SQLite", "fast"): "synchronous=NORMAL",
    ("PostgreSQL", "full"): "synchronous_commit=on",
    ("PostgreSQL", "fast"): "synchronous_commit=off",
}
#: where the game id stands in a row of `row_values`
GAME_COLUMN = EVENT_FIELDS.index("game_id")
PLACEHOLDER = "g-template"


def note(text: str) -> None:
    """Progress, on stderr (the results file keeps stdout only)."""
    print(f"  [{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Template:
    """One simulated game, its event rows made once by the store's mapper with a placeholder game id."""

    kind: str
    seats: int
    rows: list[tuple[Any, ...]]
    first_at: str
    head: Head


def template(kind: str, envs: Sequence[Envelope]) -> Template:
    """A finished game's envelopes as a template: its rows made by the store's mapper, once.

    A copy's rows are the template's with its own id, so `row_values` must depend on nothing else of the
    game (checked here on the last row: if it ever does, the fill must call it for every row).
    """
    rows = [row_values(PLACEHOLDER, env) for env in envs]
    last = envs[-1]
    assert row_values("g-probe", last) == with_id(rows[-1], "g-probe"), "row_values depends on more than the id"
    head = Head(seq=last["seq"], hand=last["hand"], status="finished", totals={}, winner=None, head_hash=last["hash"])
    return Template(kind, len(players_for(rules_for(kind))), rows, envs[0]["recorded_at"], head)


def templates() -> list[Template]:
    """Simulated games of every kind, about `TEMPLATE_EVENTS` events of each, in a fixed shuffled order."""
    out = [
        template(kind, sealed(kind, events)) for kind in available() for events in simulated(kind, TEMPLATE_EVENTS, 34)
    ]
    random.Random(34).shuffle(out)
    return out


def with_id(row: tuple[Any, ...], game_id: str) -> tuple[Any, ...]:
    """A template's row for the game `game_id`."""
    return (*row[:GAME_COLUMN], game_id, *row[GAME_COLUMN + 1 :])


@dataclass
class Filled:
    """What a fill made and how long it took (the settling after it, WAL checkpoint or VACUUM, apart)."""

    events: int = 0
    games: int = 0
    seconds: float = 0.0
    settle: float = 0.0


def fill(url: str, pool: Sequence[Template], target: int, label: str) -> Filled:
    """Fill the store at `url` to `target` events (whole games) with copies of `pool`, in bulk."""
    store = Store(url, engine=make_engine(url, "fast"))  # a filler's engine: no fsync at each commit
    try:
        club = store.ensure_club("growth")
        names = [f"Player {i:02d}" for i in range(NAMES)]
        rng = random.Random(10)
        dialect = store.db.dialect
        done = Filled()
        game_columns: list[str] | None = None
        start = time.perf_counter()
        shown = start
        while done.events < target:
            games: list[tuple[str, list[str]]] = []
            game_rows: list[tuple[Any, ...]] = []
            event_rows: list[tuple[Any, ...]] = []
            while len(event_rows) < CHUNK and done.events + len(event_rows) < target:
                model = pool[(done.games + len(games)) % len(pool)]
                gid, players = new_id("g"), rng.sample(names, model.seats)
                row = game_row(
                    game_id=gid,
                    club_id=club,
                    kind=model.kind,
                    players=players,
                    options={},
                    created_at=model.first_at,
                    updated_at=model.rows[-1][EVENT_FIELDS.index("recorded_at")],
                    genesis_hash="0" * 64,  # `sealed` chains from zeros
                    seq=model.head.seq,
                    hand=model.head.hand,
                    status=model.head.status,
                    totals=model.head.totals,
                    head_hash=model.head.head_hash,
                )
                game_columns = game_columns or list(row)
                game_rows.append(tuple(row[c] for c in game_columns))
                games.append((gid, players))
                event_rows.extend(with_id(r, gid) for r in model.rows)
            assert game_columns is not None
            with store.db.write() as conn, conn.begin():
                if dialect.name == "sqlite":
                    conn.exec_driver_sql("PRAGMA cache_size=-1000000")  # the filler's own page cache: 1 GB
                dialect.insert_rows(conn, "game", game_columns, game_rows)
                for gid, players in games:
                    seat_players(conn, club, gid, players)
                dialect.insert_rows(conn, "event", EVENT_FIELDS, event_rows)
            done.events += len(event_rows)
            done.games += len(games)
            if time.perf_counter() - shown > 30 or done.events >= target:
                shown = time.perf_counter()
                rate = done.events / (shown - start)
                note(f"{label}: {done.events:,} events, {done.games:,} games, {rate:,.0f} ev/s")
        done.seconds = time.perf_counter() - start
    finally:
        store.dispose()
    return done


# --------------------------------------------------------------------------- appends


def append_envelopes() -> list[dict[str, Any]]:
    """The envelopes appended, one a transaction: Schnapsen events sealed as the recorder hands them over
    (their payloads encoded once, by `seal`), as `python -m bench` appends them."""
    per_game = APPENDS // GAMES
    return sealed("schnapsen", [e for m in simulated("schnapsen", per_game, 1) for e in m][:per_game], texts=True)


#: CPU seconds used so far, by process id, of what serves a store besides this process (none for SQLite)
ServerClock = Callable[[], dict[int, float]]


def no_server() -> dict[int, float]:
    """SQLite: no server (its work is this process's CPU)."""
    return {}


def backends(url: str) -> ServerClock:
    """The CPU so far of the PostgreSQL client backends connected to `url`'s database, read from /proc (the
    server runs on this machine; a backend out of sight counts nothing). Not counted: autovacuum, the WAL
    writer, the checkpointer (`QUERY_BACKENDS`)."""
    dsn = url.replace("postgresql+psycopg://", "postgresql://")
    name = dsn.rsplit("/", 1)[1]
    tick = os.sysconf("SC_CLK_TCK")

    def clock() -> dict[int, float]:
        with psycopg.connect(dsn, autocommit=True) as conn:
            pids = [row[0] for row in conn.execute(QUERY_BACKENDS, (name,)).fetchall()]
        used: dict[int, float] = {}
        for pid in pids:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            used[pid] = (int(fields[11]) + int(fields[12])) / tick  # utime, stime
        return used

    return clock


#: the client backends only: an autovacuum worker of the database (which `pg_stat_activity` lists with its
#: `datname` too) works when the server decides, mostly on the small store whose few rows double in a
#: round, and would be counted only when it happened to run during a round
QUERY_BACKENDS = (
    "SELECT pid FROM pg_stat_activity WHERE datname = %s AND backend_type = 'client backend' "
    "AND pid <> pg_backend_pid()"
)


@dataclass
class Round:
    """One round's seconds an append: wall clock, and CPU (this process's plus its server's)."""

    wall: float
    cpu: float


def append_round(store: Store, club: int, envs: Sequence[dict[str, Any]], server: ServerClock) -> Round:
    """`envs` appended one a transaction to each of `GAMES` new games in turn; the time an append took."""
    games = new_games(store, club, GAMES, {"0": 7, "1": 7})
    served = server()
    wall, cpu = time.perf_counter(), time.process_time()
    for i, env in enumerate(envs):
        head = Head(
            seq=env["seq"], hand=env["hand"], status="live", totals={"0": 7, "1": 7}, winner=None, head_hash=env["hash"]
        )
        for gid in games:
            store.append(gid, [env], base_seq=i, head=head)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    cpu += sum(used - served.get(pid, 0.0) for pid, used in server().items())
    n = len(envs) * len(games)
    return Round(wall / n, cpu / n)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def compare(label: str, urls: dict[str, str], events: int, server: Callable[[str], ServerClock]) -> None:
    """In each durability mode: rounds of appends on the empty and the filled store (`urls`, by those names) in
    turn; a row of medians, with the best rounds and the CPU."""
    envs = append_envelopes()
    for durability in DURABILITY_MODES:
        stores = {name: Store(url, engine=make_engine(url, durability)) for name, url in urls.items()}
        clocks = {name: server(url) for name, url in urls.items()}
        rounds: dict[str, list[Round]] = {name: [] for name in urls}
        try:
            clubs = {name: store.ensure_club("growth-appends") for name, store in stores.items()}
            for round_no in range(ROUNDS):
                for name in list(urls)[:: 1 if round_no % 2 == 0 else -1]:
                    rounds[name].append(append_round(stores[name], clubs[name], envs, clocks[name]))
                note(
                    f"{label} {durability} round {round_no + 1}: empty {ms(rounds['empty'][-1].wall)} "
                    f"(CPU {ms(rounds['empty'][-1].cpu)}), {events:,} events {ms(rounds['big'][-1].wall)} "
                    f"(CPU {ms(rounds['big'][-1].cpu)})"
                )
        finally:
            for store in stores.values():
                store.dispose()
        wall = {name: statistics.median(r.wall for r in runs) for name, runs in rounds.items()}
        best = {name: min(r.wall for r in runs) for name, runs in rounds.items()}
        cpu = {name: statistics.median(r.cpu for r in runs) for name, runs in rounds.items()}
        whose = "this process" if label == "SQLite" else "this process and its server backends"
        print(
            f"  append {durability} ({SETTING[label, durability]}): {ms(cpu['big'])} CPU at {events:,} events, "
            f"{ms(cpu['empty'])} empty: {cpu['big'] / cpu['empty']:.2f}x (target {TARGET:.2f}x)",
            flush=True,
        )
        print(
            f"    (CPU of {whose}; wall clock {ms(wall['big'])} and {ms(wall['empty'])}: "
            f"{wall['big'] / wall['empty']:.2f}x, best rounds {ms(best['big'])} and {ms(best['empty'])}: "
            f"{best['big'] / best['empty']:.2f}x)",
            flush=True,
        )


# --------------------------------------------------------------------------- the stores


def gib(size: float) -> str:
    return f"{size / 2**30:.2f} GiB"


def filled_line(label: str, done: Filled, size: float, settled: str) -> None:
    print(
        f"{label}: filled to {done.events:,} events ({done.games:,} games) in {done.seconds:.0f} s "
        f"({done.events / done.seconds:,.0f} ev/s), then {settled} in {done.settle:.0f} s; {gib(size)} on disk",
        flush=True,
    )


def bench_sqlite(pool: Sequence[Template], root: Path) -> None:
    empty, big = f"sqlite:///{root}/empty.db", f"sqlite:///{root}/big.db"
    for url in (empty, big):
        upgrade(url)
    done = fill(big, pool, EVENTS, "SQLite")
    started = time.perf_counter()
    with sqlite3.connect(root / "big.db") as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    done.settle = time.perf_counter() - started
    size = sum(p.stat().st_size for p in root.glob("big.db*"))
    filled_line("SQLite", done, size, "the WAL checkpointed")
    compare("SQLite", {"empty": empty, "big": big}, done.events, lambda _url: no_server)


@contextmanager
def pg_databases(count: int) -> Iterator[list[str]]:
    """`count` new databases on `PG_SERVER` (random names), dropped at the end whatever happens."""
    admin = PG_SERVER.replace("postgresql+psycopg://", "postgresql://")
    names = [f"tablebook_growth_{secrets.token_hex(4)}" for _ in range(count)]
    made: list[str] = []
    try:
        with psycopg.connect(admin, autocommit=True) as conn:
            for name in names:
                conn.execute(f'CREATE DATABASE "{name}"')
                made.append(name)
        yield [PG_SERVER.rsplit("/", 1)[0] + "/" + name for name in names]
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            for name in made:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def pg_run(url: str, *statements: str) -> None:
    """Statements in autocommit (`VACUUM` runs in no transaction)."""
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


def pg_value(url: str, query: str) -> Any:
    """The first column of a query's first row."""
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as conn:
        row = conn.execute(query).fetchone()
        return row[0] if row else None


def bench_pg(pool: Sequence[Template]) -> None:
    with pg_databases(2) as (empty, big):
        for url in (empty, big):
            upgrade(url)
        done = fill(big, pool, EVENTS, "PostgreSQL")
        started = time.perf_counter()
        for url in (empty, big):
            pg_run(url, "VACUUM (ANALYZE)", "CHECKPOINT")
        done.settle = time.perf_counter() - started
        size = pg_value(big, "SELECT pg_database_size(current_database())")
        filled_line("PostgreSQL", done, float(size), "VACUUM (ANALYZE) and a CHECKPOINT")
        compare("PostgreSQL", {"empty": empty, "big": big}, done.events, backends)


def pg_answers() -> bool:
    try:
        with psycopg.connect(PG_SERVER.replace("postgresql+psycopg://", "postgresql://"), connect_timeout=3):
            return True
    except psycopg.OperationalError:
        return False


def stop(signum: int, _frame: object) -> None:
    """SIGTERM (and SIGINT, which a background job ignores) ends the run through its `finally` blocks, so
    the SQLite files and the PostgreSQL databases go with it."""
    raise SystemExit(f"stopped by signal {signum}")


def main() -> None:
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    tune_gc()  # as a server process does (projections/core/tuning.py)
    started = time.perf_counter()
    pool = templates()
    made = time.perf_counter() - started
    kinds = sorted({t.kind for t in pool})
    template_events = sum(len(t.rows) for t in pool)
    print(
        f"# growth: single-event appends (`Store.append`, one a transaction, {APPENDS // GAMES * GAMES:,} a round "
        f"round-robin over {GAMES} new games, the median of {ROUNDS} rounds taken in turn on each store) on an "
        f"empty store and on one filled in bulk to {EVENTS:,} events; milliseconds an append"
    )
    print(
        f"# the fill: {len(pool):,} simulated games ({', '.join(kinds)}; {template_events:,} events, made in "
        f"{made:.0f} s) replayed under new ids"
    )
    bench_sqlite_in_tmp(pool)
    if os.environ.get("BENCH_PG", "1") != "0" and pg_answers():
        bench_pg(pool)


def bench_sqlite_in_tmp(pool: Sequence[Template]) -> None:
    with tempfile.TemporaryDirectory(prefix="tablebook-growth-") as tmp:
        bench_sqlite(pool, Path(tmp))


if __name__ == "__main__":
    main()
