"""Ratings and statistics rebuilt from the events: `python -m bench.ratings [GAMES]`.

Records GAMES finished games (default 10,000; BENCH_QUICK=1: 1,000) in a fresh SQLite database, an
equal share of each kind, played by the bots (`projections.core.simulate.demo_playout`: 5 distinct games
per kind, recorded many times over through `Store.import_game`), seated from a club of 300 players
at random; then the same in a fresh PostgreSQL database (BENCH_PG_GAMES of them, default the smaller
of GAMES and 2,000, as its fill is slower; BENCH_PG=0 skips it). Then it times, from zero, the two
read models a player's page and the standings read: the hand facts (the game's own statistics) and
the ratings (`projections/readmodels/ratings.py`), and prints the rate in games and events a second, and what
100,000 games would take at that rate (events per game stay the same; a rebuild reads, in pages,
only the events its filter admits, over its partial index, so its time grows with the games).

Beside each figure, its ceiling measured in the same run: the same rows read bare (`read_filtered`
page after page, nothing decoded or written), and for the ratings the library's own `rate` for as
many matches of the same shapes. Last, one more game appended, and both read models caught up
incrementally from their checkpoints (fresh instances, as the API makes them: nothing kept in
memory), with the events each read. Numbers are printed, never asserted.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench.bulk_export import sealed
from bench.scratch import scratch_postgres
from events.codec import genesis_hash
from events.store import Store
from events.store.log import LogFilter
from events.store.migrate import upgrade
from events.store.ratings import CHANGE_COLUMNS
from events.store.tracking import FACT_COLUMNS, insert_rows
from projections.core.registry import available, rules_for
from projections.core.simulate import demo_playout
from projections.readmodels import hand_facts as readmodel
from projections.readmodels import ratings as rating_model
from projections.readmodels.hand_facts import HandFacts
from projections.readmodels.ratings import MODEL, RatingsModel
from projections.readmodels.rebuild import rebuild_read_models

QUICK = bool(os.environ.get("BENCH_QUICK"))
PLAYERS = [f"Player {n:03d}" for n in range(300)]
TARGET = 100_000


def playouts(per_kind: int = 5) -> list[tuple[str, list[dict[str, Any]]]]:
    """A few finished games of each kind, played by the bots."""
    rng = random.Random(20)
    out = []
    for kind in available():
        rules = rules_for(kind)
        for _ in range(per_kind):
            played = demo_playout(rules, list(rules.demo_players), {}, rng=rng, max_events=1500)
            out.append((kind, list(played.events)))
    return out


def fill(store: Store, games: int) -> int:
    """Record `games` games in one club, seated at random from `PLAYERS`; returns the events written."""
    club = store.ensure_club("bench ratings")
    source = playouts()
    cache = {i: sealed(kind, events, "2026-01-01T00:00:00.000000Z") for i, (kind, events) in enumerate(source)}
    rng = random.Random(5)
    written = 0
    for n in range(games):
        index = n % len(source)
        kind = source[index][0]
        envelopes, head, options = cache[index]
        seats = len(rules_for(kind).demo_players)
        created = f"2026-01-01T{n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}.{n:06d}Z"
        store.import_game(
            club_id=club,
            kind=kind,
            players=rng.sample(PLAYERS, seats),
            options=options,
            created_at=created,
            genesis_hash=genesis_hash(kind, seats, options, "2026-01-01T00:00:00.000000Z"),
            envelopes=envelopes,
            head=head,
        )
        written += len(envelopes)
    return written


def bare_read(store: Store, only: LogFilter | None, batch: int = 5000) -> tuple[float, int]:
    """The ceiling of a rebuild's reading: the pages of `read_filtered`, nothing decoded; (seconds, rows)."""
    start, after, rows = time.perf_counter(), 0, 0
    while True:
        after, page = store.log.read_filtered(after, batch, only)
        rows += len(page)
        if len(page) < batch:
            return time.perf_counter() - start, rows


def bare_rate(store: Store) -> tuple[float, float, int]:
    """The library's own cost for as many matches of each shape as the ratings hold: the update the
    projection makes (`rating_model.update`, openskill's `_compute` on its own objects) with the expected
    results it shows (`rating_model.expected_results`), and openskill's public `MODEL.rate` for reference.

    Returns (update and predictions seconds, `rate` seconds, matches).
    """
    with store.engine.connect() as conn:
        counts = dict(conn.exec_driver_sql("SELECT kind, count(*) FROM rating_change GROUP BY kind").all())
    shapes: list[tuple[list[int], int]] = []  # (side sizes, matches)
    for kind, rows in counts.items():
        seats = len(rules_for(kind).demo_players)
        if kind == "seven-and-a-half":  # a punter against the banker
            shapes.append(([1, 1], int(rows) // 2))
        elif kind == "gin-rummy-3":  # the box against captain and sitter
            shapes.append(([1, 2], int(rows) // 3))
        elif kind == "schnapsen":
            shapes.append(([1, 1], int(rows) // 2))
        else:
            shapes.append(([1] * seats, int(rows) // seats))
    matches = sum(count for _, count in shapes)
    start = time.perf_counter()
    for sizes, count in shapes:
        ranks = list(range(len(sizes)))
        sides = [[MODEL.rating() for _ in range(size)] for size in sizes]
        for _ in range(count):
            rating_model.expected_results(sides)
            rating_model.update(sides, ranks)
    updates = time.perf_counter() - start
    start = time.perf_counter()
    for sizes, count in shapes:
        ranks = list(range(len(sizes)))
        for _ in range(count):
            MODEL.rate([[MODEL.rating() for _ in range(size)] for size in sizes], ranks=ranks)
    return updates, time.perf_counter() - start, matches


def bare_write(store: Store, table: str, columns: Sequence[str], batch: int = 40_000) -> float:
    """The ceiling of a rebuild's writing: the table's own rows read out, the table emptied, and the same
    rows written back in pages, each in one transaction (`tracking.insert_rows`, as the read models write
    them, with the same indexes); seconds for the writing. The table ends with the same rows."""
    names = ", ".join(columns)
    with store.engine.connect() as conn:
        rows = [tuple(row) for row in conn.exec_driver_sql(f"SELECT {names} FROM {table} ORDER BY id")]
    with store.db.write() as conn, conn.begin():
        conn.exec_driver_sql(f"DELETE FROM {table}")
    start = time.perf_counter()
    for first in range(0, len(rows), batch):
        with store.db.write() as conn, conn.begin():
            insert_rows(conn, store.dialect, table, columns, rows[first : first + batch])
    return time.perf_counter() - start


def timed(action: Callable[[], Any]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def measure(url: str, games: int) -> dict[str, float]:
    """Fill a database and time both rebuilds (apart, then at once as `tablebook rebuild` runs them), their
    ceilings and one incremental game; the figures."""
    upgrade(url)
    store = Store(url)
    try:
        start = time.perf_counter()
        events = fill(store, games)
        filled = time.perf_counter() - start
        facts_read = HandFacts(store).rebuild()  # once to warm the caches, then timed
        facts = timed(lambda: HandFacts(store).rebuild())
        ratings_read = RatingsModel(store).rebuild()
        ratings = timed(lambda: RatingsModel(store).rebuild())
        both = timed(lambda: rebuild_read_models(store, parallel=True))
        facts_bare, _ = bare_read(store, readmodel.READS)
        ratings_bare, _ = bare_read(store, rating_model.READS)
        library, public_rate, matches = bare_rate(store)
        everything, _ = bare_read(store, None)
        with store.engine.connect() as conn:
            changes = conn.exec_driver_sql("SELECT count(*) FROM rating_change").scalar_one()
            fact_rows = conn.exec_driver_sql("SELECT count(*) FROM hand_fact").scalar_one()
        added = fill(store, 1)  # one more game: both read models catch up from their checkpoints
        start = time.perf_counter()
        one_facts_read = HandFacts(store).catch_up()
        one_facts = time.perf_counter() - start
        start = time.perf_counter()
        one_ratings_read = RatingsModel(store).catch_up()
        one_ratings = time.perf_counter() - start
        facts_write = bare_write(store, "hand_fact", FACT_COLUMNS)
        ratings_write = bare_write(store, "rating_change", CHANGE_COLUMNS)
    finally:
        store.dispose()
    return {
        "games": games,
        "events": events,
        "filled": filled,
        "facts": facts,
        "facts_read": facts_read,
        "fact_rows": fact_rows,
        "ratings": ratings,
        "ratings_read": ratings_read,
        "both": both,
        "changes": changes,
        "facts_bare": facts_bare,
        "ratings_bare": ratings_bare,
        "facts_write": facts_write,
        "ratings_write": ratings_write,
        "everything": everything,
        "library": library,
        "public_rate": public_rate,
        "matches": matches,
        "added": added,
        "one_facts": one_facts,
        "one_facts_read": one_facts_read,
        "one_ratings": one_ratings,
        "one_ratings_read": one_ratings_read,
    }


def ceiling(f: dict[str, float]) -> float:
    """The least a rebuild of both could take here: each read model's bare reading and writing (and the
    ratings' library maths), the two at once on two cores, so the longer of the two."""
    facts = f["facts_bare"] + f["facts_write"]
    ratings = f["ratings_bare"] + f["ratings_write"] + f["library"]
    return max(facts, ratings, (facts + ratings) / min(2, os.cpu_count() or 1))


def lines(name: str, f: dict[str, float]) -> list[str]:
    games, events = f["games"], f["events"]
    scale = TARGET / games
    return [
        f"{name}: {games:,.0f} games, {events:,.0f} events (filled in {f['filled']:.0f} s), "
        f"{f['fact_rows']:,.0f} hand facts, {f['changes']:,.0f} rating changes; load {os.getloadavg()[0]:.1f}",
        f"  hand facts rebuilt alone: {f['facts']:.1f} s ({games / f['facts']:,.0f} games/s, {f['facts_read']:,.0f} "
        f"events read); ceiling: the same rows read bare {f['facts_bare']:.1f} s + the facts written bare "
        f"{f['facts_write']:.1f} s",
        f"  ratings rebuilt alone: {f['ratings']:.1f} s ({games / f['ratings']:,.0f} games/s, {f['ratings_read']:,.0f} "
        f"events read); ceiling: the same rows read bare {f['ratings_bare']:.1f} s + the changes written bare "
        f"{f['ratings_write']:.1f} s + openskill's update and predictions for {f['matches']:,.0f} matches "
        f"{f['library']:.1f} s (its public rate, with its checks and copies: {f['public_rate']:.1f} s)",
        f"  (every event of the log read bare, no filter: {f['everything']:.1f} s)",
        f"  both at once (`tablebook rebuild`: the hand facts in a second process): {f['both']:.1f} s, "
        f"{games / f['both']:,.0f} games/s; {TARGET:,} games at this rate: {f['both'] * scale:.0f} s "
        f"(target: under 60 s; the ceiling at this rate, both at once on {min(2, os.cpu_count() or 1)} cores: "
        f"{ceiling(f) * scale:.0f} s)",
        f"  one more game ({f['added']:,.0f} events) appended, caught up incrementally: hand facts "
        f"{f['one_facts'] * 1000:.1f} ms ({f['one_facts_read']:,.0f} events read), ratings "
        f"{f['one_ratings'] * 1000:.1f} ms ({f['one_ratings_read']:,.0f} events read)",
    ]


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else (1000 if QUICK else 10_000)
    with tempfile.TemporaryDirectory() as tmp:
        figures = measure(f"sqlite:///{tmp}/ratings.db", games)
    for line in lines("SQLite", figures):
        print(line, flush=True)
    pg_games = int(os.environ.get("BENCH_PG_GAMES", min(games, 2000)))
    with scratch_postgres("tablebook_bench_ratings") as url:
        if url is None:
            return
        figures = measure(url, pg_games)
    for line in lines("PostgreSQL", figures):
        print(line, flush=True)


if __name__ == "__main__":
    main()
