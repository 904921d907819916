"""Bulk export in constant memory: the peak of `GET /v1/export`'s stream over 1,000 games, printed.

`python -m bench.bulk_export` records 1,000 simulated games (of every game
the registry finds, written through `Store.import_game`) in a fresh SQLite database
(and PostgreSQL when its server answers; BENCH_PG=0 skips it), then streams
them with `projections.histories.export.bulk_lines`, the generator behind
`GET /v1/export` and `tablebook export --all`, into a sink that only counts
bytes. It prints, for 100 and for 1,000 games: the Python heap's peak during
the stream (tracemalloc), the rate, and beside it the peak of the naive way
(the whole NDJSON built in memory), which grows with the club. Then it reads
the file back (`importer.read_games` + `import_game`, as `tablebook import`).
Numbers are printed, never asserted. BENCH_QUICK=1: 200 games.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

from bench.scratch import scratch_postgres
from events.codec import genesis_hash
from events.envelope import Envelope, seal
from events.store import Store
from events.store.migrate import upgrade
from projections.core import engine
from projections.core.recorder import head_of
from projections.core.registry import available, rules_for
from projections.core.simulate import play
from projections.histories import export, importer

QUICK = bool(os.environ.get("BENCH_QUICK"))
GAMES = 200 if QUICK else 1000
#: every game the registry finds, played by its declared demo players
KINDS = {kind: list(rules_for(kind).demo_players) for kind in available()}


def playouts(per_kind: int = 8) -> list[tuple[str, list[dict[str, Any]]]]:
    """A few distinct simulated games of each kind, to be recorded many times over."""
    rng = random.Random(8)
    out = []
    for kind, players in KINDS.items():
        rules = rules_for(kind)
        for _ in range(per_kind):
            out.append((kind, list(play(rules, players, {}, rng=rng, max_events=600).events)))
    return out


def sealed(kind: str, events: list[dict[str, Any]], created: str) -> tuple[list[Envelope], Any, dict[str, Any]]:
    rules = rules_for(kind)
    players = KINDS[kind]
    options = rules.options_for(players, {})
    state = engine.start(rules, players, options)
    prev = genesis_hash(kind, len(players), options, created)
    envelopes = []
    for seq, event in enumerate(events, 1):
        state = engine.apply(rules, state, event, seq)
        env = seal(
            seq=seq,
            hand=state.hand,
            event=event,
            result=state.facts,
            violation=None,
            recorded_at=created,
            actor="bench",
            prev_hash=prev,
        )
        prev = env["hash"]
        envelopes.append(env)
    return envelopes, head_of(rules, state, prev), options


def fill(store: Store, games: int) -> tuple[int, int]:
    """Record `games` games in a fresh club; returns (club id, events)."""
    club = store.ensure_club("bench club")
    source = playouts()
    events = 0
    for n in range(games):
        kind, played = source[n % len(source)]
        created = f"2026-01-01T00:{n // 3600 % 60:02d}:{n // 60 % 60:02d}.{n % 60:06d}Z"
        envelopes, head, options = sealed(kind, played, created)
        store.import_game(
            club_id=club,
            kind=kind,
            players=KINDS[kind],
            options=options,
            created_at=created,
            genesis_hash=genesis_hash(kind, len(KINDS[kind]), options, created),
            envelopes=envelopes,
            head=head,
        )
        events += len(envelopes)
    return club, events


def measure(run: Callable[[], int], traced: bool) -> tuple[float, int, int]:
    """(seconds, bytes, peak heap bytes or 0)."""
    if traced:
        tracemalloc.start()
        tracemalloc.reset_peak()
    start = time.perf_counter()
    size = run()
    seconds = time.perf_counter() - start
    peak = 0
    if traced:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return seconds, size, peak


def streamed(store: Store, club: int, limit: int) -> Callable[[], int]:
    def run() -> int:
        size = 0
        for chunk in export.bulk_lines(store, club_id=club, limit=limit):
            size += len(chunk)
        return size

    return run


def in_memory(store: Store, club: int, limit: int) -> Callable[[], int]:
    def run() -> int:
        body = b"".join(list(export.bulk_lines(store, club_id=club, limit=limit)))
        return len(body)

    return run


def file_lines(path: str) -> Iterator[tuple[int, bytes]]:
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                yield number, line.strip()


def bench(url: str, label: str) -> None:
    upgrade(url)
    store = Store(url)
    start = time.perf_counter()
    club, events = fill(store, GAMES)
    print(f"{label}: recorded {GAMES:,} games, {events:,} events in {time.perf_counter() - start:.1f} s", flush=True)
    for limit in sorted({min(100, GAMES), GAMES}):
        seconds, size, _ = measure(streamed(store, club, limit), traced=False)
        _, _, peak = measure(streamed(store, club, limit), traced=True)
        _, _, naive = measure(in_memory(store, club, limit), traced=True)
        print(
            f"  bulk export of {limit:>5,} games: {size / 2**20:7.1f} MiB in {seconds:5.2f} s "
            f"({limit / seconds:,.0f} games/s, {size / 2**20 / seconds:,.1f} MiB/s); "
            f"peak heap {peak / 2**20:5.2f} MiB streamed, {naive / 2**20:7.1f} MiB built in memory",
            flush=True,
        )
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "club.ndjson")
        with open(path, "wb") as out:
            for chunk in export.bulk_lines(store, club_id=club):
                out.write(chunk)
        other = store.ensure_club("bench club, imported")
        start = time.perf_counter()
        outcomes = list(importer.import_many(store, other, file_lines(path), skip_existing=False))
        seconds = time.perf_counter() - start
        done = importer.import_summary(outcomes)
        print(
            f"  import of the file: {done['imported']:,} games, {done['events']:,} events in {seconds:.1f} s "
            f"({done['events'] / seconds:,.0f} events/s, chain and rules checked)",
            flush=True,
        )
    store.dispose()


def main() -> None:
    print(f"bulk export, {GAMES:,} games (Python {sys.version.split()[0]})", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        bench(f"sqlite:///{folder}/bench.db", "SQLite")
    with scratch_postgres("tablebook_bench_export") as url:
        if url is not None:
            bench(url, "PostgreSQL")


if __name__ == "__main__":
    main()
