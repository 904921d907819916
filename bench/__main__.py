"""`make bench`: Tablebook's throughput beside raw ceilings measured in the same run.

Rows:
- store appends (SQLite, PostgreSQL; one event a transaction, batches of 50),
  in each durability mode (`TABLEBOOK_DURABILITY`: `full`, the default, and
  `fast`), beside raw `sqlite3` / `psycopg` inserts of the same rows with the
  same settings (SQLite: WAL, `synchronous=FULL` / `NORMAL`; PostgreSQL:
  `synchronous_commit=on` / `off`);
- `POST /v1/games/{id}/events`, one event a request, 16 concurrent clients on
  loopback against a real uvicorn process (p50/p99), beside a bare FastAPI
  endpoint that parses the same body and writes nothing (the server runs in
  the durability mode of TABLEBOOK_DURABILITY, `full` unless set);
- Schnapsen folds: events replayed per second (in memory, and read from
  SQLite), beside reading + decoding alone;
- ratings and statistics rebuilt from the events (the hand facts and the
  ratings read models, `bench/ratings.py`; `python -m bench.ratings` for
  10,000 games), in games a second, with what 100,000 games would take.

Numbers are printed, never asserted. Set BENCH_QUICK=1 for a short run.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import orjson
import psycopg

import projections.readmodels  # noqa: F401  (the event rows get their read flags, as in a server)
from bench.folds import best_rates, dict_fold, sealed, simulated
from bench.growth import ServerClock, backends, no_server
from bench.scratch import new_games
from events.codec import dumps
from events.store import DURABILITY_MODES, Head, Store, durability_from, make_engine
from events.store.append_sql import SQL as STORE_SQL
from events.store.mapper import row_values
from events.store.migrate import upgrade
from projections.core import engine
from projections.core.recorder import Recorder
from projections.core.registry import rules_for
from projections.core.tuning import tune_gc

QUICK = bool(os.environ.get("BENCH_QUICK"))
PG_SERVER = os.environ.get("TABLEBOOK_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
ROOT = Path(__file__).resolve().parent.parent
N_APPEND = 1000 if QUICK else 4000
#: turns the store's appends and their raw ceiling take, each figure the median of its rounds
STORE_ROUNDS = 3
N_HTTP = 1500 if QUICK else 6000
CLIENTS = 16
#: processes that share the CLIENTS connections of the HTTP load
LOAD_PROCESSES = 4
#: what each durability mode sets: SQLite `PRAGMA synchronous`, PostgreSQL `synchronous_commit`
SQLITE_SYNCHRONOUS = {"full": "FULL", "fast": "NORMAL"}
PG_SYNCHRONOUS_COMMIT = {"full": "on", "fast": "off"}

rows: list[tuple[str, str, str, str]] = []


def report(name: str, rate: float, unit: str, ceiling: str = "", note: str = "") -> None:
    rows.append((name, f"{rate:,.0f} {unit}", ceiling, note))
    print(f"  {name}: {rate:,.0f} {unit} {ceiling} {note}", file=sys.stderr, flush=True)


def fresh_pg_url() -> tuple[str, Callable[[], None]]:
    name = f"tablebook_bench_{os.getpid()}"
    dsn = PG_SERVER.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with psycopg.connect(dsn, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return PG_SERVER.rsplit("/", 1)[0] + "/" + name, drop


# --------------------------------------------------------------------------- store


def bench_store(url: str, label: str, durability: str) -> None:
    """Store appends in one durability mode, each figure beside the raw driver with the same settings.

    The store and its ceiling take turns, `STORE_ROUNDS` rounds of each (a fresh game, the raw table's own
    game id), so that both meet the same load on a shared machine; each figure is the median of its
    rounds, and the share of raw the median of the rounds' own shares. Beside the wall clock, the CPU an
    event of each (this process's, plus on PostgreSQL its backends', from /proc: `bench.growth.backends`),
    which a loaded machine changes less: the note says it, and the share of raw it comes to."""
    upgrade(url)
    store = Store(url, engine=make_engine(url, durability))
    club = store.ensure_club("bench")
    # sealed as the recorder hands them over (their payloads encoded once, by `seal`), numbered from 1
    envs = sealed("schnapsen", [e for m in simulated("schnapsen", N_APPEND, 1) for e in m][:N_APPEND], texts=True)
    if label == "SQLite":
        setting = f"synchronous={SQLITE_SYNCHRONOUS[durability]}"
    else:
        setting = f"synchronous_commit={PG_SYNCHRONOUS_COMMIT[durability]}"
    server: ServerClock = no_server if label == "SQLite" else backends(url)
    for batch in (1, 50):
        rates, ceilings = [], []
        cpu: dict[str, list[float]] = {"store": [], "raw": [], "statements": []}
        for round_no in range(STORE_ROUNDS):
            game_id = new_games(store, club, 1, {"0": 7, "1": 7})[0]
            clock = _cpu(server)
            start = time.perf_counter()
            for i in range(0, len(envs), batch):
                chunk = envs[i : i + batch]
                head = Head(
                    seq=chunk[-1]["seq"],
                    hand=chunk[-1]["hand"],
                    status="live",
                    totals={"0": 7, "1": 7},
                    winner=None,
                    head_hash=chunk[-1]["hash"],
                )
                store.append(game_id, chunk, base_seq=i, head=head)
            rates.append(len(envs) / (time.perf_counter() - start))
            cpu["store"].append(clock() / len(envs))
            raw_game = f"raw{batch}-{durability}-{round_no}"
            if label == "SQLite":
                rate, spent = raw_sqlite(url, envs, batch, SQLITE_SYNCHRONOUS[durability], raw_game)
            else:
                rate, spent = raw_psycopg(url, envs, batch, PG_SYNCHRONOUS_COMMIT[durability], raw_game, server)
            ceilings.append(rate)
            cpu["raw"].append(spent / len(envs))
            if label == "SQLite":
                cpu["statements"].append(store_statements_sqlite(url, store, club, envs, batch, durability))
        share = statistics.median(rate / ceiling for rate, ceiling in zip(rates, ceilings, strict=True))
        cpu_share = statistics.median(raw / ours for ours, raw in zip(cpu["store"], cpu["raw"], strict=True))
        store_us, raw_us = (statistics.median(cpu[who]) * 1e6 for who in ("store", "raw"))
        floor = ""
        if cpu["statements"]:
            floor_us = statistics.median(cpu["statements"]) * 1e6
            floor = f"; the store's own statements on bare sqlite3 {floor_us:.1f} us: {raw_us / floor_us:.0%} of raw"
        report(
            f"store append, {label} {durability}, batch {batch}",
            statistics.median(rates),
            "ev/s",
            f"raw, {setting}: {statistics.median(ceilings):,.0f} ev/s",
            f"({share:.0%} of raw, median of {STORE_ROUNDS} rounds in turn; CPU an event {store_us:.1f} us, "
            f"raw {raw_us:.1f} us: {cpu_share:.0%}{floor})",
        )
    store.dispose()


def store_statements_sqlite(
    url: str, store: Store, club: int, envs: list[dict[str, Any]], batch: int, durability: str
) -> float:
    """The CPU seconds an event of the store's own SQL takes on bare sqlite3, with the pragmas of the store's
    append connection and no Python layer: `BEGIN IMMEDIATE`, the head's `UPDATE ... WHERE id = ? AND seq = ?
    AND status = ?`, the event rows with their read flags (`row_values`), `COMMIT`, on a fresh game (foreign
    keys off, as on `Database.writer_connection`: the head's UPDATE has found the game). The floor under the
    store's figure: what the store writes beyond raw's one row in one index (the game's head, the event's hand and
    read-model indexes) costs this much whatever the Python above it does.

    Where it goes (issue 34, measured on the WAL's frames): a commit of one event writes 4 to 5 pages where raw
    writes 2 (the event table's last leaf and its `(game_id, seq)` key's, as raw's; the hand index's, the
    `game` row's, and a read-model index's for an event it reads: 0.1-0.5 a commit), each page a frame of
    the WAL, two `pwrite`s and its share of the fsync: about 6 us of CPU a page in `fast`, most of the
    difference at batch 1. In a batch of 50 the pages are shared and the rows' own work is left: the hand
    index's entry (about 0.8 us an event of 6-7), the partial indexes' WHEREs. Every one of these indexes is
    read by a query (`EXPLAIN QUERY PLAN`: `read_events` the key, the reading marks the hand index, the read
    models' log reads their partial indexes, `retracts` its own), and the head is what appends race on."""
    game_id = new_games(store, club, 1, {"0": 7, "1": 7})[0]
    conn = sqlite3.connect(url.split("///", 1)[1], isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={SQLITE_SYNCHRONOUS[durability]}")
    conn.execute(f"PRAGMA fullfsync={'ON' if durability == 'full' else 'OFF'}")
    conn.execute("PRAGMA foreign_keys=OFF")
    values = [row_values(game_id, env) for env in envs]
    totals = dumps({"0": 7, "1": 7})
    clock = _cpu(no_server)
    for i in range(0, len(values), batch):
        chunk = values[i : i + batch]
        last = envs[i + len(chunk) - 1]
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(
            STORE_SQL["move_head_same_status"],
            (last["seq"], last["hand"], totals, None, last["hash"], last["recorded_at"], game_id, i, "live"),
        )
        conn.executemany(STORE_SQL["insert_event"], chunk)
        conn.execute("COMMIT")
    spent = clock()
    conn.close()
    return spent / len(envs)


def _cpu(server: ServerClock) -> Callable[[], float]:
    """A stopwatch of CPU seconds: this process's, plus what `server` says its backends used meanwhile."""
    before = server()
    began = time.process_time()

    def spent() -> float:
        ours = time.process_time() - began
        after = server()
        return ours + sum(used - before.get(pid, 0.0) for pid, used in after.items())

    return spent


def _raw_rows(envs: list[dict[str, Any]], game_id: str) -> list[tuple[Any, ...]]:
    return [
        (
            game_id,
            e["seq"],
            e["hand"],
            e["type"],
            dumps(e["data"]),
            dumps(e["result"]),
            None,
            e["recorded_at"],
            e["actor"],
            e["prev_hash"],
            e["hash"],
        )
        for e in envs
    ]


INSERT = (
    "INSERT INTO raw_event (game_id, seq, hand, type, data, result, violation, recorded_at, actor, prev_hash, "
    "hash) VALUES ({p})"
)
RAW_TABLE = (
    "CREATE TABLE IF NOT EXISTS raw_event (position {pk}, game_id TEXT NOT NULL, seq INTEGER NOT NULL, "
    "hand INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, result TEXT NOT NULL, violation TEXT, "
    "recorded_at TEXT NOT NULL, actor TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL, "
    "UNIQUE (game_id, seq))"
)


def raw_sqlite(url: str, envs: list[dict[str, Any]], batch: int, synchronous: str, game_id: str) -> tuple[float, float]:
    """Raw sqlite3: the same rows, WAL, `synchronous` (FULL or NORMAL), one transaction per batch: the
    events a second, and the CPU seconds they took."""
    conn = sqlite3.connect(url.split("///", 1)[1], isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    conn.execute(f"PRAGMA fullfsync={'ON' if synchronous == 'FULL' else 'OFF'}")  # as make_engine does
    conn.execute(RAW_TABLE.format(pk="INTEGER PRIMARY KEY"))
    data = _raw_rows(envs, game_id)
    sql = INSERT.format(p=", ".join("?" * 11))
    clock = _cpu(no_server)
    start = time.perf_counter()
    for i in range(0, len(data), batch):
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(sql, data[i : i + batch])
        conn.execute("COMMIT")
    rate = len(data) / (time.perf_counter() - start)
    spent = clock()
    conn.close()
    return rate, spent


def raw_psycopg(
    url: str, envs: list[dict[str, Any]], batch: int, synchronous_commit: str, game_id: str, server: ServerClock
) -> tuple[float, float]:
    """Raw psycopg: the same rows, `synchronous_commit` (on or off), one commit per batch: the events a
    second, and the CPU seconds they took (with the backend's, `server`)."""
    dsn = url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn, options=f"-c synchronous_commit={synchronous_commit}") as conn:
        conn.execute(RAW_TABLE.format(pk="BIGSERIAL PRIMARY KEY"))
        conn.commit()
        data = _raw_rows(envs, game_id)
        sql = INSERT.format(p=", ".join(["%s"] * 11))
        clock = _cpu(server)
        start = time.perf_counter()
        for i in range(0, len(data), batch):
            with conn.cursor() as cur:
                cur.executemany(sql, data[i : i + batch])
            conn.commit()
        rate = len(data) / (time.perf_counter() - start)
        return rate, clock()


# --------------------------------------------------------------------------- HTTP


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(app: str, port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            app,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--no-access-log",
        ],
        env={**os.environ, **env},
        cwd=ROOT,
    )
    for _ in range(100):
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=0.5)
            return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{app} did not start")


def _drive_clients(
    port: int, streams: list[list[tuple[str, bytes]]], headers: dict[str, str]
) -> tuple[float, float, list[float], int]:
    """One load process: a thread per client stream, each on its own keep-alive connection."""
    import http.client
    import threading

    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()

    def client(requests: list[tuple[str, bytes]]) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        mine: list[float] = []
        bad = 0
        for path, body in requests:
            t0 = time.perf_counter()
            conn.request("POST", path, body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            mine.append(time.perf_counter() - t0)
            bad += response.status != 201
        conn.close()
        with lock:
            latencies.extend(mine)
            errors[0] += bad

    threads = [threading.Thread(target=client, args=(stream,)) for stream in streams]
    start = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return start, time.time(), latencies, errors[0]


def drive(
    port: int, per_client: list[list[tuple[str, bytes]]], headers: dict[str, str]
) -> tuple[float, list[float], int]:
    """Send every client's requests in order, CLIENTS connections over LOAD_PROCESSES processes.

    A Python asyncio client tops out near 400 requests a second on this
    machine, below what the server does; plain sockets in a few processes
    keep the client out of the measurement's way.
    """
    from concurrent.futures import ProcessPoolExecutor

    groups = [per_client[k::LOAD_PROCESSES] for k in range(LOAD_PROCESSES)]
    with ProcessPoolExecutor(LOAD_PROCESSES) as pool:
        results = list(pool.map(_drive_clients, [port] * LOAD_PROCESSES, groups, [headers] * LOAD_PROCESSES))
    started = min(r[0] for r in results)
    ended = max(r[1] for r in results)
    latencies = [x for r in results for x in r[2]]
    return len(latencies) / (ended - started), latencies, sum(r[3] for r in results)


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] * 1000


def bench_http(url: str, label: str) -> None:
    upgrade(url)
    store = Store(url)
    from api.auth import create_key

    key = create_key(store, "bench-http", "recorder")
    recorder = Recorder(store)
    club = store.ensure_club("bench-http")
    matches = simulated("schnapsen", N_HTTP, seed=5)
    # one game per client at a time: client k walks its own matches, one event a request
    streams: list[list[tuple[str, bytes]]] = [[] for _ in range(CLIENTS)]
    for index, events in enumerate(matches):
        game = recorder.create_game(club_id=club, kind="schnapsen", players=["A", "B"], options={})
        streams[index % CLIENTS].extend((f"/v1/games/{game.id}/events", orjson.dumps({"events": [e]})) for e in events)
    store.dispose()
    quota = N_HTTP // CLIENTS
    per_client = [stream[:quota] for stream in streams]
    port = free_port()
    proc = start_server("api.asgi:app", port, {"TABLEBOOK_DATABASE_URL": url})
    try:
        rate, lat, errors = drive(
            port, per_client, {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        )
    finally:
        proc.terminate()
        proc.wait()
    port = free_port()
    bare = start_server("bench.bare:app", port, {})
    try:
        body = per_client[0][0][1]
        ceiling, clat, _ = drive(
            port, [[("/bare", body)] * quota for _ in range(CLIENTS)], {"Content-Type": "application/json"}
        )
    finally:
        bare.terminate()
        bare.wait()
    report(
        f"POST events, {label} {durability_from()}, {CLIENTS} clients",
        rate,
        "req/s",
        f"bare FastAPI: {ceiling:,.0f} req/s (p50 {pct(clat, 50):.1f} ms, p99 {pct(clat, 99):.1f} ms)",
        f"p50 {pct(lat, 50):.1f} ms, p99 {pct(lat, 99):.1f} ms, errors {errors}",
    )


# --------------------------------------------------------------------------- folds


def bench_fold(url: str) -> None:
    """Schnapsen folded in memory and loaded from SQLite, each beside its ceiling on the same rows, same run.

    In memory: `engine.fold` over sealed envelopes, beside the ceiling of `bench.folds` (the stored rows
    read, decoded and merged into one dict). From SQLite: `Recorder.live(fresh=True)` with snapshots off
    (the game's row, its events read and decoded, the fold), beside reading and decoding alone (whole envelopes,
    the issue's ceiling; and the lean read the load makes, `read_for_fold`, like against like). A game's
    first load also writes a snapshot at every hand's end (a write transaction a game), which reading
    alone does not: it is its own row, its snapshots deleted before each pass. Best of `REPEAT` passes,
    taken in turn, in CPU time (`bench.folds.best_rates`); the first load by the wall clock too.
    """
    rules = rules_for("schnapsen")
    matches = simulated("schnapsen", 20000 if not QUICK else 5000, seed=9)
    sealed_matches = [sealed("schnapsen", m) for m in matches]
    n = sum(len(m) for m in matches)
    initial = engine.start(rules, ["A", "B"], rules.options_for(["A", "B"], {}))

    upgrade(url)
    store = Store(url)
    recorder = Recorder(store)
    club = store.ensure_club("bench-fold")
    ids = []
    for events in matches:
        game = recorder.create_game(club_id=club, kind="schnapsen", players=["A", "B"], options={})
        recorder.append(game.id, events, club_id=club, actor="bench")
        ids.append(game.id)
    lengths = [len(events) for events in matches]
    plain = Recorder(store, snapshots=False)

    def in_memory() -> None:
        for envs in sealed_matches:
            engine.fold(rules, initial, envs)

    def read() -> None:
        for gid in ids:
            store.read_events(gid)

    def ceiling() -> None:
        for gid in ids:
            dict_fold(store.read_events(gid))

    def lean_read() -> None:
        for gid, length in zip(ids, lengths, strict=True):
            store.read_for_fold(gid, 0, length)

    def load() -> None:
        for gid in ids:
            plain.live(gid, fresh=True)

    def first_load() -> None:
        for gid in ids:
            recorder.live(gid, fresh=True)

    def snapshots_deleted() -> None:
        store.delete_snapshots()

    rates = best_rates(
        n,
        {"fold": in_memory, "ceiling": ceiling, "read": read, "lean": lean_read, "load": load, "first": first_load},
        {"first": snapshots_deleted},
    )
    folded, bare, read_rate, loaded, first = (rates[k] for k in ("fold", "ceiling", "read", "load", "first"))
    # its commits wait for the disk, which CPU time leaves out: the wall clock too
    first_wall = best_rates(n, {"first": first_load}, {"first": snapshots_deleted}, clock=time.perf_counter)["first"]
    report(
        "fold Schnapsen, in memory",
        folded,
        "ev/s",
        f"read + decode + dict fold: {bare:,.0f} ev/s",
        f"{folded / bare:.0%} of the ceiling",
    )
    report(
        "load + fold Schnapsen from SQLite",
        loaded,
        "ev/s",
        f"read + decode only: {read_rate:,.0f} ev/s",
        f"{loaded / read_rate:.0%}; snapshots off; the load reads only seq, type, version and data"
        f" (`read_for_fold`), which alone goes at {rates['lean']:,.0f} ev/s: {loaded / rates['lean']:.0%} of that",
    )
    report(
        "first load + fold Schnapsen, writing snapshots",
        first,
        "ev/s",
        f"read + decode only: {read_rate:,.0f} ev/s",
        f"{first / read_rate:.0%}; a snapshot at every hand's end, one write transaction a game; "
        f"{first_wall:,.0f} ev/s by the wall clock",
    )
    store.dispose()


def bench_ratings(url: str) -> None:
    from bench import ratings

    games = 500 if QUICK else 2000
    figures = ratings.measure(url, games)
    both = figures["both"]
    report(
        f"ratings + statistics rebuilt, {games:,} games",
        games / both,
        "games/s",
        f"ceiling {games / ratings.ceiling(figures):,.0f} games/s (bare reads, writes and openskill, both at once)",
        f"100,000 games: ~{ratings.TARGET * both / games:.0f} s; one more game: "
        f"{(figures['one_facts'] + figures['one_ratings']) * 1000:.1f} ms",
    )


def main() -> None:
    tune_gc()  # as a server process does (projections/core/tuning.py)
    print(
        f"Tablebook benchmarks ({'quick' if QUICK else 'full'} run), {time.strftime('%Y-%m-%d %H:%M')}", file=sys.stderr
    )
    with tempfile.TemporaryDirectory() as tmp:
        for durability in DURABILITY_MODES:
            bench_store(f"sqlite:///{tmp}/store-{durability}.db", "SQLite", durability)
        pg, drop = fresh_pg_url()
        try:
            for durability in DURABILITY_MODES:
                bench_store(pg, "PostgreSQL", durability)
            bench_http(f"sqlite:///{tmp}/http.db", "SQLite")
            bench_http(pg, "PostgreSQL")
        finally:
            drop()
        bench_fold(f"sqlite:///{tmp}/fold.db")
        bench_ratings(f"sqlite:///{tmp}/ratings.db")
    width = [max(len(r[i]) for r in rows) for i in range(4)]
    header = ("benchmark", "measured", "ceiling (same run)", "notes")
    width = [max(w, len(h)) for w, h in zip(width, header, strict=True)]
    print()
    print(" | ".join(h.ljust(w) for h, w in zip(header, width, strict=True)))
    print("-|-".join("-" * w for w in width))
    for row in rows:
        print(" | ".join(c.ljust(w) for c, w in zip(row, width, strict=True)))


if __name__ == "__main__":
    main()
