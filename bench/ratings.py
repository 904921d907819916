"""Ratings and statistics rebuilt from the events: `python -m bench.ratings [GAMES]`.

Records GAMES finished games (default 10,000; BENCH_QUICK=1: 1,000) in a fresh SQLite database, an
equal share of each kind, played by the bots (`projections.core.simulate.demo_playout`: 5 distinct games
per kind, recorded many times over through `Store.import_game`), seated from a club of 300 players
at random; then the same in a fresh PostgreSQL database (BENCH_PG_GAMES of them, default the smaller
of GAMES and 2,000, as its fill is slower; BENCH_PG=0 skips it). Then it times, from zero, the two
read models a player's page and the standings read: the hand facts (the game's own statistics) and
the ratings (`projections/readmodels/ratings/`), and prints the rate in games and events a second, and what
100,000 games would take at that rate (events per game stay the same; a rebuild reads, in pages,
only the events its filter admits, over its partial index, so its time grows with the games).

Beside each figure, its ceiling measured in the same run: the same rows read bare (`read_filtered`
page after page, nothing decoded or written), and for the ratings the library's own `rate` for as
many matches of the same shapes; each rebuild's ratio to its ceiling in CPU seconds of this process
(the machine is shared: wall time counts the neighbours; each rebuild alone and each part of its
ceiling is timed `REPEATS` times, 3 unless `BENCH_REPEATS` says, and the least of each kept). Then one
more game appended, and both read models caught up incrementally from their checkpoints (fresh
instances, as the API makes them: nothing kept in memory), with the events each read and the cost per
event; one event appended and caught up (each model alone, medians); and a correction: a retract of the
first rated result of the game 10,000 games back (the first game, with fewer), caught up, beside the
ratings' rebuild from zero (issue 34).
Numbers are printed, never asserted.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

from api.service import Operator, Tablebook
from bench.bulk_export import sealed
from bench.scratch import scratch_postgres
from events.codec import genesis_hash
from events.store import Store
from events.store.log import LogFilter
from events.store.migrate import upgrade
from events.store.ratings import CHANGE_COLUMNS
from events.store.tracking import FACT_COLUMNS, advance, insert_rows, unsynced_write
from projections.core.registry import available, rules_for
from projections.core.simulate import demo_playout
from projections.readmodels import hand_facts as readmodel
from projections.readmodels import ratings as rating_model
from projections.readmodels.hand_facts import HandFacts
from projections.readmodels.ratings import MODEL, RatingsModel
from projections.readmodels.rebuild import rebuild_read_models

QUICK = bool(os.environ.get("BENCH_QUICK"))
#: how many times each rebuild alone and each part of its ceiling is timed, the least of each kept (`BENCH_REPEATS`):
#: on a machine shared with other work one run's CPU seconds swing by half (2026-12-07, load 4-6, one code: a
#: 2,000-game ratings rebuild 0.73 s in one run, 1.37 s in the next), and the least is the run disturbed least
REPEATS = max(1, int(os.environ.get("BENCH_REPEATS", "3")))
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


def fill(store: Store, games: int, players: Sequence[str] = PLAYERS) -> int:
    """Record `games` games in one club, seated at random from `players`; returns the events written."""
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
            players=rng.sample(players, seats),
            options=options,
            created_at=created,
            genesis_hash=genesis_hash(kind, seats, options, "2026-01-01T00:00:00.000000Z"),
            envelopes=envelopes,
            head=head,
        )
        written += len(envelopes)
    return written


def bare_read(store: Store, only: LogFilter | None, batch: int = 5000) -> tuple[float, float, int]:
    """The ceiling of a rebuild's reading: the pages of `read_filtered`, nothing decoded; (seconds, CPU
    seconds, rows)."""
    start, cpu, after, rows = time.perf_counter(), time.process_time(), 0, 0
    while True:
        after, page = store.log.read_filtered(after, batch, only)
        rows += len(page)
        if len(page) < batch:
            return time.perf_counter() - start, time.process_time() - cpu, rows


def bare_rate(store: Store, *, public: bool = True) -> tuple[float, float, float, int]:
    """The library's own cost for as many matches of each shape as the ratings hold: openskill's update
    (`rating_model.update`, its `_compute` on its own objects, without `rate`'s checks and copies) with the
    expected results the rows show (`rating_model.expected_results`, its `predict_win`), and (`public`)
    openskill's public `MODEL.rate` for reference. The projection computes the same numbers without the
    library's objects (`projections/readmodels/ratings/maths.py`, held to `MODEL.rate` bit for bit); the
    ceiling stays the library's own.

    Returns (update and predictions seconds, the same in CPU seconds, `rate` seconds (0 without `public`),
    matches).
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
    start, cpu = time.perf_counter(), time.process_time()
    for sizes, count in shapes:
        ranks = list(range(len(sizes)))
        sides = [[MODEL.rating() for _ in range(size)] for size in sizes]
        for _ in range(count):
            rating_model.expected_results(sides)
            rating_model.update(sides, ranks)
    updates, cpu = time.perf_counter() - start, time.process_time() - cpu
    if not public:
        return updates, cpu, 0.0, matches
    start = time.perf_counter()
    for sizes, count in shapes:
        ranks = list(range(len(sizes)))
        for _ in range(count):
            MODEL.rate([[MODEL.rating() for _ in range(size)] for size in sizes], ranks=ranks)
    return updates, cpu, time.perf_counter() - start, matches


def bare_write(store: Store, table: str, columns: Sequence[str], batch: int = 40_000) -> tuple[float, float]:
    """The ceiling of a rebuild's writing: the table's own rows read out, the table emptied, and the same
    rows written back in pages, each in one transaction (`tracking.insert_rows` in `tracking.unsynced_write`,
    as the read models write them, with the same indexes); seconds and CPU seconds for the writing. The
    table ends with the same rows."""
    names = ", ".join(columns)
    with store.engine.connect() as conn:
        rows = [tuple(row) for row in conn.exec_driver_sql(f"SELECT {names} FROM {table} ORDER BY id")]
    with store.db.write() as conn, conn.begin():
        conn.exec_driver_sql(f"DELETE FROM {table}")
    start, cpu = time.perf_counter(), time.process_time()
    for first in range(0, len(rows), batch):
        with unsynced_write(store.db) as conn:
            insert_rows(conn, store.dialect, table, columns, rows[first : first + batch])
    return time.perf_counter() - start, time.process_time() - cpu


def one_event(store: Store, rounds: int = 40) -> dict[str, float]:
    """The cost per model of one event appended and caught up (a note: like most events, one that neither
    read model needs, but whose position each checkpoint must pass), each model caught up by a fresh instance
    right after its own append; and beside it the bare floor of any catch-up, the read models' own statements
    without their bookkeeping: the checkpoint and the filtered page in one read (`LogReader.read_checkpointed`:
    on PostgreSQL one statement, which also moves the checkpoint over a page with nothing in it), and on SQLite
    the checkpoint moved after (`tracking.advance`). Medians of `rounds`, in ms of this process's CPU (the
    SQLite work is this process's; PostgreSQL's own is not counted) and of wall time."""
    service = Tablebook.open(store)
    club = store.ensure_club("bench ratings")
    reader = Operator(club_id=club, club="bench ratings")
    with store.engine.connect() as conn:
        game = conn.exec_driver_sql("SELECT game_id FROM rating_change ORDER BY id DESC LIMIT 1").scalar_one()
    samples: dict[str, list[tuple[float, float]]] = {"facts": [], "ratings": [], "bare": []}

    def bare() -> None:  # the ratings' statements, none of their bookkeeping
        page = store.log.read_checkpointed(rating_model.NAME, 20_000, rating_model.READS)
        if not page.moved and page.upto != page.old:
            advance(store.db, rating_model.NAME, page.old, page.upto)

    actions: dict[str, Callable[[], object]] = {
        "facts": lambda: HandFacts(store).catch_up(),
        "ratings": lambda: RatingsModel(store).catch_up(),
        "bare": bare,
    }
    for n in range(rounds + 5):
        for name, action in actions.items():
            service.append(reader, game, [{"type": "note", "text": f"bench {n} {name}"}])
            wall, cpu = time.perf_counter(), time.process_time()
            action()
            if n >= 5:  # the first few warm the caches
                samples[name].append((time.perf_counter() - wall, time.process_time() - cpu))
    HandFacts(store).catch_up()
    RatingsModel(store).catch_up()
    out = {}
    for name, found in samples.items():
        out[f"event_{name}_wall"] = statistics.median(w for w, _ in found)
        out[f"event_{name}_cpu"] = statistics.median(c for _, c in found)
    return out


#: how long the correction waits for its retract to come below the log's horizon, and how often it looks (seconds)
HORIZON_WAIT, HORIZON_POLL = 30.0, 0.05


def correction(store: Store, back: int = 10_000) -> dict[str, float]:
    """A retract of the first rated result of the game played `back` games ago (the first game when there are
    fewer), appended and caught up by the ratings (a fresh instance): the correction re-derives every later
    change. Wall and CPU seconds, the later games, the results rated again, the players reported.

    On PostgreSQL a catch-up reads only events whose transactions are below the horizon (`events/store/log.py`):
    a transaction open anywhere on the server (ids are cluster-wide) holds the retract back, and that catch-up
    corrects nothing. So the ratings catch up again (a fresh instance each time, every `HORIZON_POLL` s) until
    one makes the correction; its figures are that catch-up's alone, the wait before it (`fix_wait`) printed
    apart. Past `HORIZON_WAIT` s the correction is reported skipped (`fix_skipped`), not measured."""
    with store.engine.connect() as conn:
        by_first = "SELECT game_id FROM rating_change GROUP BY game_id ORDER BY min(id)"
        games = [g for (g,) in conn.exec_driver_sql(by_first)]
        game = games[max(0, len(games) - 1 - back)]
        seq = conn.exec_driver_sql(f"SELECT min(seq) FROM rating_change WHERE game_id = '{game}'").scalar_one()
    club = store.ensure_club("bench ratings")
    service = Tablebook.open(store)
    retract = {"type": "retract", "to_seq": int(seq) - 1, "reason": "bench: a misrecorded result"}
    service.append(Operator(club_id=club, club="bench ratings"), game, [retract])
    appended = time.perf_counter()
    while True:
        model = RatingsModel(store)
        wall, cpu = time.perf_counter(), time.process_time()
        model.catch_up()
        waited, wall, cpu = wall - appended, time.perf_counter() - wall, time.process_time() - cpu
        if model.corrections or time.perf_counter() - appended >= HORIZON_WAIT:
            break
        time.sleep(HORIZON_POLL)
    HandFacts(store).catch_up()
    if not model.corrections:
        print(
            f"the correction skipped: its retract was not below the log's horizon after {HORIZON_WAIT:.0f} s "
            "(a transaction held open elsewhere on the server)",
            file=sys.stderr,
            flush=True,
        )
        return {"fix_skipped": 1, "fix_wait": time.perf_counter() - appended}
    (done,) = model.corrections
    return {
        "fix_wall": wall,
        "fix_cpu": cpu,
        "fix_wait": waited,
        "fix_later": len(games) - 1 - games.index(game),
        "fix_results": done.results,
        "fix_players": len(done.players),
    }


def correction_line(f: dict[str, float]) -> str:
    """The correction's line of `lines`: its figures (the wait for the horizon, if any, told apart and not in
    them), or why it was skipped."""
    if f.get("fix_skipped"):
        return (
            f"  a correction: skipped, its retract not below the log's horizon after {f['fix_wait']:.0f} s "
            "(a transaction held open elsewhere on the server)"
        )
    waited = f["fix_wait"]
    wait = f" (after {waited:.2f} s waiting for the log's horizon, not counted)" if waited >= HORIZON_POLL else ""
    return (
        f"  a correction: a retract of the first result of a game {f['fix_later']:,.0f} games back, caught up: "
        f"{f['fix_wall']:.2f} s ({f['fix_cpu']:.2f} s CPU){wait}, {f['fix_results']:,.0f} results rated again, "
        f"{f['fix_players']:,.0f} player ratings reported; 10,000 later games at this rate: "
        f"{f['fix_wall'] * 10_000 / max(1, f['fix_later']):.1f} s (target: 5 s); ceiling: the ratings rebuilt "
        f"from zero {f['ratings']:.2f} s, openskill's update and predictions for as many results "
        f"{f['library'] * f['fix_results'] / max(1, f['matches']):.2f} s"
    )


def best(action: Callable[[], tuple[float, ...]]) -> tuple[float, float]:
    """The least seconds and the least CPU seconds of `REPEATS` runs of `action` (which returns them first)."""
    runs = [action() for _ in range(REPEATS)]
    return min(run[0] for run in runs), min(run[1] for run in runs)


def timed(action: Callable[[], Any]) -> tuple[float, float]:
    """(seconds, CPU seconds of this process) of `action`."""
    start, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - start, time.process_time() - cpu


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
        facts, facts_cpu = best(lambda: timed(lambda: HandFacts(store).rebuild()))
        ratings_read = RatingsModel(store).rebuild()
        ratings, ratings_cpu = best(lambda: timed(lambda: RatingsModel(store).rebuild()))
        both, _ = timed(lambda: rebuild_read_models(store, parallel=True))
        facts_bare, facts_bare_cpu = best(lambda: bare_read(store, readmodel.READS))
        ratings_bare, ratings_bare_cpu = best(lambda: bare_read(store, rating_model.READS))
        library, library_cpu = best(lambda: bare_rate(store, public=False))
        _, _, public_rate, matches = bare_rate(store)
        everything, _, _ = bare_read(store, None)
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
        single = one_event(store)
        fixed = correction(store)
        facts_write, facts_write_cpu = best(lambda: bare_write(store, "hand_fact", FACT_COLUMNS))
        ratings_write, ratings_write_cpu = best(lambda: bare_write(store, "rating_change", CHANGE_COLUMNS))
    finally:
        store.dispose()
    return {
        "games": games,
        "events": events,
        "filled": filled,
        "facts": facts,
        "facts_cpu": facts_cpu,
        "ratings_cpu": ratings_cpu,
        "facts_bare_cpu": facts_bare_cpu,
        "ratings_bare_cpu": ratings_bare_cpu,
        "library_cpu": library_cpu,
        "facts_write_cpu": facts_write_cpu,
        "ratings_write_cpu": ratings_write_cpu,
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
        **single,
        **fixed,
    }


def ceiling(f: dict[str, float]) -> float:
    """The least a rebuild of both could take here: each read model's bare reading and writing (and the
    ratings' library maths), the two at once on two cores, so the longer of the two."""
    facts = f["facts_bare"] + f["facts_write"]
    ratings = f["ratings_bare"] + f["ratings_write"] + f["library"]
    return max(facts, ratings, (facts + ratings) / min(2, os.cpu_count() or 1))


def lines(name: str, f: dict[str, float]) -> list[str]:
    games, events = f["games"], f["events"]
    facts_ceiling = f["facts_bare_cpu"] + f["facts_write_cpu"]
    ratings_ceiling = f["ratings_bare_cpu"] + f["ratings_write_cpu"] + f["library_cpu"]
    cpu_note = " (PostgreSQL's own CPU not counted, in the figures as in the ceilings)" if name == "PostgreSQL" else ""
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
        f"  each rebuild against its ceiling, CPU seconds of this process: hand facts "
        f"{f['facts_cpu']:.2f} s / {facts_ceiling:.2f} s = {f['facts_cpu'] / facts_ceiling:.2f}x, ratings "
        f"{f['ratings_cpu']:.2f} s / {ratings_ceiling:.2f} s = {f['ratings_cpu'] / ratings_ceiling:.2f}x "
        f"(target: 1.5x; each the least of {REPEATS} runs){cpu_note}",
        f"  both at once (`tablebook rebuild`: the hand facts in a second process): {f['both']:.1f} s, "
        f"{games / f['both']:,.0f} games/s; {TARGET:,} games at this rate: {f['both'] * scale:.0f} s "
        f"(target: under 60 s; the ceiling at this rate, both at once on {min(2, os.cpu_count() or 1)} cores: "
        f"{ceiling(f) * scale:.0f} s)",
        f"  one more game ({f['added']:,.0f} events) appended, caught up incrementally: hand facts "
        f"{f['one_facts'] * 1000:.1f} ms ({f['one_facts_read']:,.0f} events read), ratings "
        f"{f['one_ratings'] * 1000:.1f} ms ({f['one_ratings_read']:,.0f} events read); per appended event: hand "
        f"facts {f['one_facts'] * 1000 / f['added']:.3f} ms, ratings {f['one_ratings'] * 1000 / f['added']:.3f} ms",
        f"  one event appended (a note), caught up by each model alone, median CPU (wall): hand facts "
        f"{f['event_facts_cpu'] * 1000:.3f} ms ({f['event_facts_wall'] * 1000:.3f}), ratings "
        f"{f['event_ratings_cpu'] * 1000:.3f} ms ({f['event_ratings_wall'] * 1000:.3f}) (target: 0.2 ms per model); "
        f"ceiling: the same statements bare (the checkpoint and the page in one read, "
        f"{'which moves the checkpoint' if name == 'PostgreSQL' else 'the checkpoint moved after'}) "
        f"{f['event_bare_cpu'] * 1000:.3f} ms ({f['event_bare_wall'] * 1000:.3f})",
        correction_line(f),
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
