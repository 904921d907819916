"""Group commit on PostgreSQL: single-event appends of 1, 4 and 16 client threads to as many games, with group
commit on and off, beside raw psycopg single-row inserts from as many threads (same run, interleaved).

`python -m bench.group_commit`. Each client thread appends one event at a time to its own game through the
store (`Store.append`, each append inside `Database.one_connection` as the HTTP layer does it), for
`SECONDS`; group commit off is the same store with `recorder.group_commit = None` (`TABLEBOOK_GROUP_COMMIT=off`).
The ceiling is as many threads, each on its own psycopg connection in autocommit, inserting one row a
statement into a plain table with the same unique key (no head to move, no queue). Printed per run:

- events/s (wall clock) and the ceiling's;
- events per fsync: the events over the delta of `pg_stat_wal.wal_sync` (every WAL fsync of the server,
  the WAL writer's too), read after the run's connections closed (a backend reports its WAL statistics
  when it ends) and the figure stopped moving;
- events per transaction: the events over their distinct `xact_id` (the ceiling: one row is one transaction);
- CPU per event: this process's (`time.process_time`, every thread) and the server's (utime + stime of its
  processes, from /proc), so that a figure can be read beside the ceiling's at the machine's load of the moment;
- the sizes of the batches group commit wrote.

The server is one of the benchmark's own (initdb in a temporary folder, `fsync` and `synchronous_commit` on,
the defaults), so that `wal_sync` counts this benchmark's work only; without the PostgreSQL binaries it
falls back to `TABLEBOOK_TEST_PG` (then other databases' work on that server is in the counts: it says so).
Each figure is over `ROUNDS` rounds of `SECONDS`, the three kinds of run in turn and in another order each round
(the disk's flush rate swings), with the range of the rounds' events/s. BENCH_QUICK=1 runs one round of 2 s.
"""

from __future__ import annotations

import functools
import os
import secrets
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from bench.scratch import new_games, postgres_binaries, sealed_note, start_private_postgres
from events.codec import dumps
from events.store import Head, Store
from events.store.migrate import upgrade

QUICK = bool(os.environ.get("BENCH_QUICK"))
SECONDS = 2.0 if QUICK else 5.0
#: measurements of each kind in turn, their figures summed
ROUNDS = 1 if QUICK else 3
CLIENTS = (1, 4, 16)
SHARED_PG = os.environ.get("TABLEBOOK_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
RAW_TABLE = (
    "CREATE TABLE raw_event (position BIGSERIAL PRIMARY KEY, game_id TEXT NOT NULL, seq INTEGER NOT NULL, "
    "hand INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, result TEXT NOT NULL, violation TEXT, "
    "recorded_at TEXT NOT NULL, actor TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL, "
    "UNIQUE (game_id, seq))"
)
RAW_INSERT = (
    "INSERT INTO raw_event (game_id, seq, hand, type, data, result, violation, recorded_at, actor, prev_hash, hash) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)


@contextmanager
def own_server() -> Iterator[tuple[str, int | None]]:
    """A PostgreSQL server of this benchmark's own (URL without a database, postmaster pid); else the shared one."""
    if postgres_binaries() is None:
        print(f"# no PostgreSQL binaries: the shared server {SHARED_PG} (its other work is in the fsync counts)")
        yield SHARED_PG.rsplit("/", 1)[0], None
        return
    server = start_private_postgres(Path(tempfile.mkdtemp(prefix="tablebook-bench-pg-")), max_connections=100)
    try:
        yield server.url, server.postmaster
    finally:
        server.stop()


def server_cpu(postmaster: int | None) -> float:
    """CPU seconds (user + system) of the server's processes now: the postmaster and its children."""
    if postmaster is None:
        return 0.0
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry.name) == postmaster or int(fields[1]) == postmaster:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def wal_syncs(dsn: str, settle: bool = False) -> int:
    """The server's `pg_stat_wal.wal_sync`; `settle`: once it has stopped moving (the backends that ended report
    theirs as they exit, the WAL writer at most a second late)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        last = -1
        for _ in range(15):
            conn.execute("SELECT pg_stat_clear_snapshot()")
            row = conn.execute("SELECT wal_sync FROM pg_stat_wal").fetchone()
            now = int(row[0]) if row else 0
            if not settle or now == last:
                return now
            last = now
            time.sleep(1.2)
        return last


def envelope(game_id: str, seq: int, prev: str) -> dict[str, Any]:
    return sealed_note(seq, prev, f"{game_id} {seq}")


@dataclass
class Measured:
    events: int
    seconds: float
    fsyncs: int
    transactions: int
    client_cpu: float
    server_cpu: float
    sizes: Counter[int]
    #: each round's events/s
    rates: tuple[float, ...] = ()

    def __add__(self, other: Measured) -> Measured:
        """Two rounds' measurements summed (their figures are then over both)."""
        return Measured(
            self.events + other.events,
            self.seconds + other.seconds,
            self.fsyncs + other.fsyncs,
            self.transactions + other.transactions,
            self.client_cpu + other.client_cpu,
            self.server_cpu + other.server_cpu,
            self.sizes + other.sizes,
            (*(self.rates or (self.events / self.seconds,)), other.events / other.seconds),
        )

    def row(self, clients: int, mode: str, ceiling: Measured | None) -> str:
        rate = self.events / self.seconds
        share = f" ({rate / (ceiling.events / ceiling.seconds):.0%})" if ceiling is not None else ""
        if len(self.rates) > 1:
            share += f", rounds {min(self.rates):,.0f}-{max(self.rates):,.0f}"
        per_fsync = self.events / self.fsyncs if self.fsyncs else float("nan")
        per_xact = self.events / self.transactions if self.transactions else float("nan")
        cpu = f"{self.client_cpu / self.events * 1e6:,.0f} + {self.server_cpu / self.events * 1e6:,.0f}"
        return (
            f"{clients} | {mode} | {rate:,.0f}{share} | {per_fsync:.2f} | {per_xact:.2f} | {cpu} | "
            f"{distribution(self.sizes)}"
        )


def distribution(sizes: Counter[int]) -> str:
    """The batches' sizes as shares of the appends: `1: 40%, 2-3: 35%, ...`; "-" for none."""
    appends = sum(size * count for size, count in sizes.items())
    if not appends:
        return "-"
    buckets = ((1, 1), (2, 3), (4, 7), (8, 15), (16, 10**9))
    parts = []
    for low, high in buckets:
        share = sum(size * count for size, count in sizes.items() if low <= size <= high) / appends
        if share:
            parts.append(f"{low if low == high else f'{low}-{high}' if high < 10**9 else f'{low}+'}: {share:.0%}")
    batches = sum(sizes.values())
    return f"{', '.join(parts)} of the appends (mean {appends / batches:.1f} a batch)"


def timed(clients: int, work: Callable[[int, threading.Event], int]) -> tuple[int, float, float]:
    """Run `work(client, stop)` on `clients` threads for SECONDS: (events, wall seconds, this process's CPU)."""
    stop = threading.Event()
    counts = [0] * clients
    ready = threading.Barrier(clients + 1)

    def run(client: int) -> None:
        ready.wait()
        counts[client] = work(client, stop)

    threads = [threading.Thread(target=run, args=(c,)) for c in range(clients)]
    for thread in threads:
        thread.start()
    ready.wait()
    cpu, began = time.process_time(), time.perf_counter()
    time.sleep(SECONDS)
    stop.set()
    for thread in threads:
        thread.join()
    return sum(counts), time.perf_counter() - began, time.process_time() - cpu


def store_run(url: str, dsn: str, postmaster: int | None, clients: int, group: bool) -> Measured:
    store = Store(url)
    queue = store.recorder.group_commit
    if not group:
        store.recorder.group_commit = None
    club = store.ensure_club("bench")
    games = new_games(store, club, clients)
    for game_id in games:
        store.read_events(game_id, 0, 1)

    def work(client: int, stop: threading.Event) -> int:
        game_id, prev, seq = games[client], "0" * 64, 0
        while not stop.is_set():
            env = envelope(game_id, seq + 1, prev)
            head = Head(seq=seq + 1, hand=1, status="live", totals={}, winner=None, head_hash=env["hash"])
            with store.db.one_connection():
                store.append(game_id, [env], base_seq=seq, head=head)
            seq, prev = seq + 1, env["hash"]
        return seq

    syncs, server = wal_syncs(dsn, settle=True), server_cpu(postmaster)
    sizes_before = Counter(queue.sizes) if queue is not None else Counter()
    events, seconds, cpu = timed(clients, work)
    server = server_cpu(postmaster) - server
    sizes = Counter(queue.sizes) - sizes_before if queue is not None and group else Counter()
    store.dispose()
    fsyncs = wal_syncs(dsn, settle=True) - syncs
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT count(DISTINCT xact_id) FROM event WHERE game_id = ANY(%s)", (games,)).fetchone()
    return Measured(events, seconds, fsyncs, int(row[0]) if row else 0, cpu, server, sizes)


def raw_run(dsn: str, postmaster: int | None, clients: int) -> Measured:
    prefix = secrets.token_hex(3)
    connections = [psycopg.connect(dsn, autocommit=True) for _ in range(clients)]

    def work(client: int, stop: threading.Event) -> int:
        conn, game_id, prev, seq = connections[client], f"raw-{prefix}-{client}", "0" * 64, 0
        while not stop.is_set():
            e = envelope(game_id, seq + 1, prev)
            texts = (dumps(e["data"]), dumps(e["result"]), None, e["recorded_at"], e["actor"], e["prev_hash"])
            conn.execute(RAW_INSERT, (game_id, e["seq"], 1, e["type"], *texts, e["hash"]))
            seq, prev = seq + 1, e["hash"]
        return seq

    syncs, server = wal_syncs(dsn, settle=True), server_cpu(postmaster)
    events, seconds, cpu = timed(clients, work)
    server = server_cpu(postmaster) - server
    for conn in connections:
        conn.close()
    fsyncs = wal_syncs(dsn, settle=True) - syncs
    return Measured(events, seconds, fsyncs, events, cpu, server, Counter())


def main() -> None:
    with own_server() as (server, postmaster):
        name = f"tablebook_bench_group_{secrets.token_hex(3)}"
        admin = server.replace("postgresql+psycopg://", "postgresql://") + "/postgres"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        url = f"{server}/{name}"
        dsn = url.replace("postgresql+psycopg://", "postgresql://")
        try:
            upgrade(url)
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(RAW_TABLE)
                settings = conn.execute(
                    "SELECT current_setting('server_version'), current_setting('synchronous_commit'), "
                    "current_setting('wal_sync_method'), current_setting('commit_delay')"
                ).fetchone()
            assert settings is not None
            where = "a server of its own" if postmaster is not None else "the shared server"
            print(
                f"# PostgreSQL {settings[0]} ({where}), synchronous_commit={settings[1]}, "
                f"wal_sync_method={settings[2]}, commit_delay={settings[3]}; {ROUNDS} rounds of {SECONDS:.0f} s "
                f"a measurement, in turn, summed; "
                f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at the start"
            )
            print(
                "# each client appends one event at a time to its own game; CPU is this process's + the server's, "
                "per event; batch sizes are group commit's, weighted by appends"
            )
            print(
                "clients | mode | events/s (of the ceiling) | events per fsync | events per transaction "
                "| CPU µs/event (client + server) | batch sizes"
            )
            print("---|---|---|---|---|---|---")
            for clients in CLIENTS:
                runs: dict[str, Callable[[], Measured]] = {
                    "ceiling": functools.partial(raw_run, dsn, postmaster, clients),
                    "on": functools.partial(store_run, url, dsn, postmaster, clients, group=True),
                    "off": functools.partial(store_run, url, dsn, postmaster, clients, group=False),
                }
                totals: dict[str, Measured] = {}
                for round_no in range(ROUNDS):  # in turn, each round in another order (the disk's rate swings)
                    order = list(runs)[round_no % 3 :] + list(runs)[: round_no % 3]
                    for what in order if round_no % 2 == 0 else order[::-1]:
                        measured = runs[what]()
                        totals[what] = totals[what] + measured if what in totals else measured
                on, off, ceiling = totals["on"], totals["off"], totals["ceiling"]
                print(on.row(clients, "group commit on", ceiling), flush=True)
                print(off.row(clients, "group commit off", ceiling), flush=True)
                print(ceiling.row(clients, "ceiling: raw psycopg inserts", None), flush=True)
        finally:
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
