"""`make bench`, HTTP appends driven by wrk: real `tablebook serve` processes, each figure beside its ceiling.

The load generator is Debian's `wrk` (`scripts/ensure-wrk` installs it), in its own process and in C, so
that it does not cap the server: a Python client tops out near the server's own rate on a small machine.
Each of the 16 connections is its own wrk thread (`-t16 -c16`) with its own games, and posts one event a
request: the next event of a simulated Schnapsen match, precomputed (`bench/http_appends.lua`). Legal
events rather than `note`s, because a note skips the game's rules: the server here validates and folds
each event as it would in play, and a refused event (anything but 201) is counted and printed.

Rows (stdout; numbers are printed, never asserted):

    http appends sqlite 16 clients: N req/s p99 N ms
    ceiling bare endpoint sqlite 16 clients: N req/s
    http appends pg 1 worker 16 clients 16 games: N req/s p99 N ms
    http appends pg 4 workers 16 clients 16 games: N req/s p99 N ms
    ceiling raw psycopg 4 writers: N ev/s
    append profile sqlite: N ms CPU an append (...; the bare endpoint N ms: Nx)
        (auth N, body N, game N, rules N, hash N, transaction N, response N, the rest N ms)
    append profile pg: ...

The profile (`bench/append_profile.py`) calls the app in this process, one request at a time, with each
stage of an append timed by the CPU time of the thread that runs it; last, in a process of its own.

- The server is `python -m api.cli serve --workers N --no-access-log` (what `make run` starts), on a free
  port, in TABLEBOOK_DURABILITY (`full`, the default, unless set: SQLite synchronous=FULL, PostgreSQL
  synchronous_commit=on). `full` because it is what a deployment runs; the PostgreSQL ceiling commits with
  the same synchronous_commit, and the bare endpoint writes nothing whatever the mode.
- The SQLite ceiling is `bench.bare:app` (a FastAPI endpoint that parses and checks the same body and
  writes nothing) under the same uvicorn settings (one process, no access log), with the same bodies.
- The PostgreSQL ceiling is four processes, each inserting the same event rows into a table of the
  event table's columns, one row a transaction (one event a request), each on its own game, with psycopg
  directly: no head update, no hash check, no HTTP.
- Each run is preceded by a 2-second warm-up on other games (connection pools, caches, workers booted).

Run it against other code (a checkout at /work/base, say) with that code's interpreter and PYTHONPATH: the
servers are started from the checkout that `api` is imported from. BENCH_QUICK=1: 4-second runs. BENCH_PG=0:
the SQLite rows only.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import cycle
from pathlib import Path
from typing import Any

import httpx
import orjson
import psycopg

import api
from api.auth import create_key
from bench.folds import sealed, simulated
from events.codec import dumps
from events.store import Store, durability_from
from events.store.migrate import upgrade

QUICK = bool(os.environ.get("BENCH_QUICK"))
#: BENCH_PG=0: the SQLite rows only (and the profile's SQLite row), as `bench.append_profile` takes it
WITH_PG = os.environ.get("BENCH_PG", "1") != "0"
#: the checkout under test: the servers run its code (`api` is imported from it)
ROOT = Path(api.__file__).resolve().parents[1]
LUA = Path(__file__).resolve().with_suffix(".lua")
WRK = os.environ.get("WRK", "wrk")
PG_SERVER = os.environ.get("TABLEBOOK_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
CLIENTS = 16
SECONDS = 4 if QUICK else 10
WARM_SECONDS = 2
#: events per client in the warm-up (more than 2 s can use on this machine)
WARM_EVENTS = 800
#: at most this many events per client in a timed run (sized from the warm-up's rate)
MAX_EVENTS = 20000
RAW_WRITERS = 4
#: appends a database in the profile (bench/append_profile.py)
PROFILE_APPENDS = 500 if QUICK else 2000
PG_SYNCHRONOUS_COMMIT = {"full": "on", "fast": "off"}


@dataclass
class Load:
    """What one wrk run measured."""

    rate: float
    p50_ms: float
    p99_ms: float
    refused: int
    exhausted: int
    socket_errors: int
    first: str
    #: CPU seconds a request cost, by whom (`server`, `postgres`, `wrk`, `other`), over the timed run
    cpu_ms: dict[str, float] = field(default_factory=dict)
    #: the cores' busy share over the run (1.0: every core busy all the time)
    busy: float = 0.0

    def machine_bound(self) -> float:
        """The rate at which this machine's cores would be saturated at this run's CPU cost per request: the
        server's, its database backends' and wrk's (`other` is the rest of the machine, maybe shared)."""
        per_request = sum(ms for who, ms in self.cpu_ms.items() if who != "other") / 1000
        return (os.cpu_count() or 1) / per_request if per_request else float("inf")


_TICK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class CpuSnapshot:
    """The CPU seconds used so far by each live process we count (its owner and seconds, by pid), and the
    whole machine's busy seconds."""

    processes: dict[int, tuple[str, float]]
    busy: float


def cpu_snapshot(server_group: int, database: str | None = None) -> CpuSnapshot:
    """Where the CPU has gone so far, read from /proc (utime + stime of every live process we count, and the
    whole machine's busy time): the server's process group (`server`), and the PostgreSQL backends serving
    `database` (`postgres`; none without it). Other processes, other databases' backends and PostgreSQL's
    shared background processes are left to `other`: the machine may be shared, and another cluster's or
    another database's backends are no cost of these requests.
    """
    processes: dict[int, tuple[str, float]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
            comm = stat[stat.index("(") + 1 : stat.rindex(")")]
            fields = stat[stat.rindex(")") + 2 :].split()
            if int(fields[2]) == server_group:
                owner = "server"
            elif database is not None and comm.startswith("postgres"):
                # a backend's title: `postgres: [cluster: ]user database host(port) state`
                title = Path(entry.path, "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                if f" {database} " not in title:
                    continue
                owner = "postgres"
            else:
                continue
        except (OSError, ValueError, IndexError):
            continue  # it ended while we read it
        processes[int(entry.name)] = (owner, (int(fields[11]) + int(fields[12])) / _TICK)
    cpu = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    idle = int(cpu[3]) + int(cpu[4])
    return CpuSnapshot(processes, (sum(int(x) for x in cpu[:8]) - idle) / _TICK)


def cpu_spent(before: CpuSnapshot, after: CpuSnapshot, wrk_seconds: float) -> dict[str, float]:
    """CPU seconds between two snapshots by owner (`server`, `postgres`, `wrk`, `other`), and `busy`.

    Process by process: each live process's time since the first snapshot (all of it for one started since),
    so that a process that ended meanwhile (a backend that disconnected) subtracts nothing from its owner's
    sum; what such a process used is left in `other`, with the rest of the machine. wrk's is given
    (`wrk_seconds`: it has exited by the second snapshot, its time is in our children's).
    """
    owners = {"server": 0.0, "postgres": 0.0, "wrk": wrk_seconds}
    for pid, (owner, seconds) in after.processes.items():
        earlier = before.processes.get(pid)
        owners[owner] += seconds - (earlier[1] if earlier is not None and earlier[0] == owner else 0.0)
    busy = after.busy - before.busy
    owners["other"] = busy - owners["server"] - owners["postgres"] - owners["wrk"]
    owners["busy"] = busy
    return owners


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def server_env(database_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLEBOOK_")}
    env["TABLEBOOK_DATABASE_URL"] = database_url
    env["TABLEBOOK_DURABILITY"] = durability_from()
    env["PYTHONUNBUFFERED"] = "1"
    return env


@dataclass
class Server:
    """One server (uvicorn's supervisor and its workers: one process group, ours)."""

    proc: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text(errors='replace')[-2000:]}")
            try:
                if httpx.get(self.url + "/", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the server on port {self.port} did not answer within 60 s")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)  # the group we started: the supervisor and its workers
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def start(command: list[str], env: dict[str, str], port: int, log: Path) -> Server:
    with log.open("wb") as out:
        proc = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    server = Server(proc, port, log)
    server.wait_ready()
    return server


def serve(database_url: str, workers: int, tmp: Path) -> Server:
    """`tablebook serve` as `make run` starts it, on a free port."""
    port = free_port()
    command = [sys.executable, "-m", "api.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--workers", str(workers), "--no-access-log"]
    return start(command, server_env(database_url), port, tmp / f"serve-{port}.log")


def serve_bare(tmp: Path) -> Server:
    """The ceiling: `bench.bare:app` under the same uvicorn settings as `tablebook serve` (one process)."""
    port = free_port()
    command = [sys.executable, "-m", "uvicorn", "bench.bare:app", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--workers", "1", "--no-access-log", "--log-level", "warning"]
    return start(command, server_env("sqlite:///unused.db"), port, tmp / f"bare-{port}.log")


def wrk(
    url: str,
    requests: Path,
    key: str,
    seconds: float,
    repeat: bool = False,
    server: Server | None = None,
    database: str | None = None,
) -> Load:
    """One wrk run: CLIENTS threads of one connection each, the bodies of `requests/requests-<n>.txt`.

    With `server`, the CPU each request cost is measured too, by owner (`cpu_snapshot`, `cpu_spent`; `database`:
    the PostgreSQL database whose backends are counted as `postgres`).
    """
    command = [WRK, f"-t{CLIENTS}", f"-c{CLIENTS}", f"-d{seconds:g}s", "--timeout", "10s", "-s", str(LUA), url]
    command += ["--", str(requests), key] + (["cycle"] if repeat else [])
    group = os.getpgid(server.proc.pid) if server is not None else -1
    before, began, ours = cpu_snapshot(group, database), time.monotonic(), os.times()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    after, wall, done_times = cpu_snapshot(group, database), time.monotonic() - began, os.times()
    # wrk has exited by now: its CPU is in our children's times, not in /proc
    wrk_seconds = done_times.children_user + done_times.children_system - ours.children_user - ours.children_system
    spent = cpu_spent(before, after, wrk_seconds)
    lines = {line.split(" ", 1)[0]: line for line in done.stdout.splitlines() if line[:6] in ("RESULT", "FIRST ")}
    if "RESULT" not in lines:
        raise RuntimeError(f"wrk printed no result: {done.stdout[-1500:]} {done.stderr[-1500:]}")
    count, duration, p50, p99, refused, exhausted, errors = (int(x) for x in lines["RESULT"].split()[1:])
    first = lines.get("FIRST", "FIRST ")[6:]
    busy = spent.pop("busy") / wall / (os.cpu_count() or 1)
    per_request = {who: seconds * 1000 / max(count, 1) for who, seconds in spent.items()}
    load = Load(count / (duration / 1e6), p50 / 1000, p99 / 1000, refused, exhausted, errors, first)
    if server is not None:
        load.cpu_ms, load.busy = per_request, busy
    return load


def matches() -> Iterator[list[dict[str, Any]]]:
    """Simulated Schnapsen matches, again and again (the events do not depend on the game's id)."""
    return cycle(simulated("schnapsen", 20_000, seed=16))


def write_requests(folder: Path, http: httpx.Client, games: Iterator[list[dict[str, Any]]], per_client: int) -> Path:
    """New games for each client, and that client's next `per_client` events over them, one a request."""
    folder.mkdir(parents=True)
    for client in range(1, CLIENTS + 1):
        lines: list[bytes] = []
        while len(lines) < per_client:
            answer = http.post("/v1/games", json={"game": "schnapsen", "players": ["A", "B"], "options": {}})
            answer.raise_for_status()
            path = f"/v1/games/{answer.json()['id']}/events".encode()
            lines += [path + b"\t" + orjson.dumps({"events": [event]}) for event in next(games)]
        (folder / f"requests-{client}.txt").write_bytes(b"\n".join(lines[:per_client]) + b"\n")
    return folder


def make_key(database_url: str) -> str:
    upgrade(database_url)
    store = Store(database_url)
    try:
        return create_key(store, "bench-wrk", "recorder")
    finally:
        store.dispose()


def database_name(database_url: str) -> str | None:
    """The PostgreSQL database a URL names (whose backends the CPU figures count), or None (SQLite)."""
    return database_url.rsplit("/", 1)[1].split("?", 1)[0] if database_url.startswith("postgresql") else None


def drive_appends(database_url: str, workers: int, tmp: Path, name: str) -> Load:
    """Warm up, then one timed wrk run of appends against `tablebook serve --workers N`."""
    server = serve(database_url, workers, tmp)
    try:
        key = make_key(database_url)
        games = matches()
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {key}"}, timeout=30) as http:
            warm = write_requests(tmp / f"{name}-warm", http, games, WARM_EVENTS)
            guess = wrk(server.url, warm, key, WARM_SECONDS).rate
            per_client = min(MAX_EVENTS, int(max(guess, 100) * SECONDS / CLIENTS * 2.5) + 100)
            for attempt in range(3):
                run = write_requests(tmp / f"{name}-run{attempt}", http, games, per_client)
                load = wrk(server.url, run, key, SECONDS, server=server, database=database_name(database_url))
                if not load.exhausted or per_client == MAX_EVENTS:
                    return load
                per_client = min(MAX_EVENTS, per_client * 3)  # the warm-up underestimated the rate
            return load
    finally:
        server.stop()


def drive_bare(tmp: Path) -> Load:
    """The same bodies against the bare endpoint, cycled (it keeps no state)."""
    server = serve_bare(tmp)
    try:
        folder = tmp / "bare"
        folder.mkdir()
        games = matches()
        for client in range(1, CLIENTS + 1):
            lines = [b"/bare\t" + orjson.dumps({"events": [event]}) for event in next(games)]
            (folder / f"requests-{client}.txt").write_bytes(b"\n".join(lines) + b"\n")
        wrk(server.url, folder, "-", WARM_SECONDS, repeat=True)
        return wrk(server.url, folder, "-", SECONDS, repeat=True, server=server)
    finally:
        server.stop()


# --------------------------------------------------------------------------- raw psycopg, 4 writers

RAW_TABLE = (
    "CREATE TABLE IF NOT EXISTS raw_event (position BIGSERIAL PRIMARY KEY, game_id TEXT NOT NULL, "
    "seq INTEGER NOT NULL, hand INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, result TEXT NOT NULL, "
    "violation TEXT, recorded_at TEXT NOT NULL, actor TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL, "
    "UNIQUE (game_id, seq))"
)
RAW_INSERT = (
    "INSERT INTO raw_event (game_id, seq, hand, type, data, result, violation, recorded_at, actor, prev_hash, "
    "hash) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)


def raw_writer(dsn: str, writer: int, start_at: float, seconds: float, synchronous_commit: str) -> tuple[int, float]:
    """One writer process: one row a transaction on its own game until the time is up; (rows, seconds)."""
    envelopes = [env for match in simulated("schnapsen", 2_000, seed=writer) for env in sealed("schnapsen", match)]
    rows = [
        (
            env["hand"],
            env["type"],
            dumps(env["data"]),
            dumps(env["result"]),
            None,
            env["recorded_at"],
            "key:raw",
            env["prev_hash"],
            env["hash"],
        )
        for env in envelopes
    ]
    game = f"raw-{writer}-{os.getpid()}"
    count = 0
    with psycopg.connect(dsn, options=f"-c synchronous_commit={synchronous_commit}") as conn:
        conn.execute("SELECT 1")
        conn.commit()
        while time.time() < start_at:
            time.sleep(0.005)
        began = time.perf_counter()
        end = began + seconds
        for row in cycle(rows):
            count += 1
            conn.execute(RAW_INSERT, (game, count, *row), prepare=True)
            conn.commit()
            if time.perf_counter() >= end:
                break
        return count, time.perf_counter() - began


def raw_psycopg(database_url: str) -> float:
    """RAW_WRITERS processes inserting at once, each on its own game: their rows a second, together."""
    dsn = database_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(RAW_TABLE)
    synchronous_commit = PG_SYNCHRONOUS_COMMIT[durability_from()]
    start_at = time.time() + 3.0  # every writer connected and its rows built
    with ProcessPoolExecutor(RAW_WRITERS) as pool:
        futures = [pool.submit(raw_writer, dsn, w, start_at, SECONDS, synchronous_commit) for w in range(RAW_WRITERS)]
        results = [f.result() for f in futures]
    return sum(count for count, _ in results) / max(seconds for _, seconds in results)


def fresh_pg() -> tuple[str, str]:
    """A new database on the PostgreSQL server: (its URL, the admin DSN to drop it with)."""
    name = f"tablebook_wrk_{os.getpid()}"
    admin = PG_SERVER.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return PG_SERVER.rsplit("/", 1)[0] + "/" + name, admin


def detail(load: Load, ceiling: float | None = None) -> str:
    share = f"{load.rate / ceiling:.0%} of the ceiling; " if ceiling else ""
    line = f"    ({share}p50 {load.p50_ms:.1f} ms, not 201: {load.refused}, socket errors: {load.socket_errors}"
    if load.exhausted:
        line += f", {load.exhausted} clients ran out of events"
    if load.first:
        line += f"; first refusal: {load.first[:200]}"
    line += ")"
    if load.cpu_ms:
        spent = ", ".join(f"{who} {ms:.2f}" for who, ms in load.cpu_ms.items() if ms >= 0.005)
        line += (
            f"\n    (CPU ms a request: {spent}; cores {load.busy:.0%} busy; at this cost the machine's "
            f"{os.cpu_count()} cores bound the rate at {load.machine_bound():,.0f} req/s)"
        )
    return line


def main() -> None:
    if shutil.which(WRK) is None:
        sys.exit(f"{WRK} is missing: run scripts/ensure-wrk (as root it installs Debian's wrk)")
    mode = durability_from()
    print(
        f"HTTP appends with wrk ({'quick' if QUICK else 'full'} run, {SECONDS} s each), code at {ROOT}, "
        f"durability {mode}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="tablebook-wrk-") as name:
        tmp = Path(name)
        sqlite = drive_appends(f"sqlite:///{tmp}/http.db", 1, tmp, "sqlite")
        bare = drive_bare(tmp)
        print(f"http appends sqlite {CLIENTS} clients: {sqlite.rate:,.0f} req/s p99 {sqlite.p99_ms:.1f} ms")
        print(detail(sqlite, bare.rate))
        print(f"ceiling bare endpoint sqlite {CLIENTS} clients: {bare.rate:,.0f} req/s")
        print(detail(bare), flush=True)
        if not WITH_PG:
            print("(PostgreSQL rows left out: BENCH_PG=0)")
        else:
            drive_pg(tmp)
    # the stages' functions are wrapped there: in a process of its own, so nothing here is
    profiled = subprocess.run(
        [sys.executable, "-m", "bench.append_profile", str(PROFILE_APPENDS)], capture_output=True, text=True, check=True
    )
    print("\n".join(line for line in profiled.stdout.splitlines() if not line.startswith("append profile,")))


def drive_pg(tmp: Path) -> None:
    """The PostgreSQL rows: one worker, four workers, and the raw psycopg ceiling, on a fresh database."""
    pg, admin = fresh_pg()
    try:
        one = drive_appends(pg, 1, tmp, "pg1")
        four = drive_appends(pg, 4, tmp, "pg4")
        raw = raw_psycopg(pg)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{pg.rsplit("/", 1)[1]}" WITH (FORCE)')
    games = f"{CLIENTS} clients {CLIENTS} games"
    print(f"http appends pg 1 worker {games}: {one.rate:,.0f} req/s p99 {one.p99_ms:.1f} ms")
    print(detail(one, raw))
    print(f"http appends pg 4 workers {games}: {four.rate:,.0f} req/s p99 {four.p99_ms:.1f} ms")
    print(f"    (4 workers / 1 worker: {four.rate / one.rate:.2f})")
    print(detail(four, raw))
    print(f"ceiling raw psycopg {RAW_WRITERS} writers: {raw:,.0f} ev/s", flush=True)


if __name__ == "__main__":
    main()
