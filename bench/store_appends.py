"""Store appends on PostgreSQL from four writer processes on four games, beside raw psycopg (same run).

`python -m bench.store_appends`. Each writer is its own process (spawned, so no connection is shared)
with its own game; every append is one event in one transaction (`Store.append`: idempotency not
asked, head moved with `WHERE seq = :old`, the event inserted). The ceiling, measured in the same run
and interleaved with the store's rounds (the disk's sync rate swings), is four processes of raw
psycopg committing one `INSERT` of the same row each into a plain table with the same unique key.
Both use `synchronous_commit=on` (the store's default durability). Prints the median of the rounds:

    store appends pg 4 writers: N ev/s
    ceiling raw psycopg 4 writers: N ev/s

Without the global append lock the store's writers run in parallel; with it (before issue 16) they
took turns. The server is `TABLEBOOK_TEST_PG` (a fresh database is made there and dropped).
"""

from __future__ import annotations

import multiprocessing
import os
import secrets
import statistics
import sys
import time
from typing import Any

import psycopg

from bench.scratch import new_games, sealed_note
from events.codec import dumps
from events.store import Head, Store
from events.store.migrate import upgrade

PG_SERVER = os.environ.get("TABLEBOOK_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
WRITERS = 4
EVENTS = 400 if os.environ.get("BENCH_QUICK") else 1500
ROUNDS = 3
RAW_TABLE = (
    "CREATE TABLE IF NOT EXISTS raw_event (position BIGSERIAL PRIMARY KEY, game_id TEXT NOT NULL, "
    "seq INTEGER NOT NULL, hand INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, result TEXT NOT NULL, "
    "violation TEXT, recorded_at TEXT NOT NULL, actor TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL, "
    "UNIQUE (game_id, seq))"
)
RAW_INSERT = (
    "INSERT INTO raw_event (game_id, seq, hand, type, data, result, violation, recorded_at, actor, prev_hash, hash) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)


def envelopes(count: int) -> list[dict[str, Any]]:
    """`count` chained note envelopes (the store validates nothing: the rules are elsewhere)."""
    out: list[dict[str, Any]] = []
    prev = "0" * 64
    for seq in range(1, count + 1):
        env = sealed_note(seq, prev, f"bench note {seq}")
        out.append(env)
        prev = env["hash"]
    return out


def store_writer(url: str, game_id: str, start: Any, done: Any) -> None:
    store = Store(url)
    envs = envelopes(EVENTS)
    store.read_events(game_id, 0, 1)  # the pool's connection is made before the clock starts
    start.wait()
    for env in envs:
        head = Head(seq=env["seq"], hand=1, status="live", totals={}, winner=None, head_hash=env["hash"])
        store.append(game_id, [env], base_seq=env["seq"] - 1, head=head)
    done.put(time.perf_counter())
    store.dispose()


def _tail(env: dict[str, Any]) -> tuple[Any, ...]:
    return env["recorded_at"], env["actor"], env["prev_hash"], env["hash"]


def raw_writer(url: str, game_id: str, start: Any, done: Any) -> None:
    rows = [
        (game_id, e["seq"], 1, e["type"], dumps(e["data"]), dumps(e["result"]), None, *_tail(e))
        for e in envelopes(EVENTS)
    ]
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://")) as conn:
        start.wait()
        for row in rows:
            conn.execute(RAW_INSERT, row)
            conn.commit()
    done.put(time.perf_counter())


def run(target: Any, url: str, game_ids: list[str]) -> float:
    """Events a second of `WRITERS` processes running `target`, from the common start to the last one done."""
    ctx = multiprocessing.get_context("spawn")
    start, done = ctx.Barrier(WRITERS + 1), ctx.Queue()
    processes = [ctx.Process(target=target, args=(url, gid, start, done)) for gid in game_ids]
    for process in processes:
        process.start()
    start.wait()
    began = time.perf_counter()
    ended = max(done.get(timeout=600) for _ in processes)
    for process in processes:
        process.join()
        if process.exitcode != 0:
            raise SystemExit(f"a writer failed (exit {process.exitcode})")
    return WRITERS * EVENTS / (ended - began)


def main() -> None:
    name = f"tablebook_bench_appends_{secrets.token_hex(3)}"
    admin_dsn = PG_SERVER.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = PG_SERVER.rsplit("/", 1)[0] + "/" + name
    try:
        upgrade(url)
        with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://")) as conn:
            conn.execute(RAW_TABLE)
        store = Store(url)
        club = store.ensure_club("bench")
        store_rates, raw_rates = [], []
        for round_no in range(ROUNDS):
            games = new_games(store, club, WRITERS)
            store_rates.append(run(store_writer, url, games))
            raw_rates.append(run(raw_writer, url, [f"raw{round_no}-{w}" for w in range(WRITERS)]))
            print(
                f"  round {round_no + 1}: store {store_rates[-1]:,.0f} ev/s, raw {raw_rates[-1]:,.0f} ev/s",
                file=sys.stderr,
                flush=True,
            )
        store.dispose()
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    store_rate, raw_rate = statistics.median(store_rates), statistics.median(raw_rates)
    print(f"store appends pg {WRITERS} writers: {store_rate:,.0f} ev/s")
    print(f"ceiling raw psycopg {WRITERS} writers: {raw_rate:,.0f} ev/s")
    print(f"({store_rate / raw_rate:.0%} of the ceiling; {EVENTS} one-event appends a writer, median of {ROUNDS})")


if __name__ == "__main__":
    main()
