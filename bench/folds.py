"""`make bench`, folds: every game's fold rate, in memory and rebuilt from SQLite, beside a ceiling.

For each game kind, simulated games of about `N_EVENTS` events in all are
sealed and folded in memory (`engine.fold` over the envelopes), then recorded
in a SQLite store and rebuilt as a load of a game's state rebuilds it
(`Store.read_for_fold` + `engine.fold`: read each event's seq, type, version
and data, decode, fold). The ceiling, measured in the same run on the same
rows, is the whole envelopes read and decoded (`read_events`) with a bare dict
fold (each event's data merged into one dict): the rebuild reads less of each
row than the ceiling does (no hashes, times, actors nor stored results), the
saving a load makes since issue 34, and its note says how fast that read alone
goes. So the rebuild is also shown against a lean ceiling, the same lean read
with the bare dict fold: like against like (issue 34's goal is read against
it).
The three are timed in turn, the best of `REPEAT` passes each, in CPU time (a
rate is one core's), so that a figure and its ceiling meet the same load on a
shared machine.

The ceiling does less than a fold must: it builds no event from an envelope,
upcasts nothing (no event type's data is reshaped today, so a fold's upcast
costs nothing either), and derives no facts, where the fold runs each game's
`evolve`, which derives every event's facts (its envelope's stored `result`)
though a fold keeps only the last event's.

Lines a script can read (N plain digits, events a second):

    fold <kind>: N ev/s
    rebuild <kind>: N ev/s
    ceiling <kind>: N ev/s
    lean ceiling <kind>: N ev/s

and, for a 40,000-event Seven and a Half session folded in memory, whether
the fold slows down as the session grows:

    long seven-and-a-half first 5000: N ev/s
    long seven-and-a-half last 5000: N ev/s

Numbers are printed, never asserted. Set BENCH_QUICK=1 for a short run.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from events.codec import utc_now
from events.envelope import seal
from events.store import Store
from events.store.migrate import upgrade
from projections.core import engine
from projections.core.recorder import Recorder
from projections.core.registry import available, rules_for
from projections.core.rules import Event, GameRules
from projections.core.simulate import play
from projections.core.tuning import tune_gc

QUICK = bool(os.environ.get("BENCH_QUICK"))
N_EVENTS = 5000 if QUICK else 20000
LONG_SESSION = 10000 if QUICK else 40000
WINDOW = 1000 if QUICK else 5000
#: the best of this many timed passes is reported (the machine is shared)
REPEAT = 5


def players_for(rules: GameRules[Any]) -> list[str]:
    return [f"P{i}" for i in range(rules.player_counts[0])]


def simulated(kind: str, n: int, seed: int) -> list[list[dict[str, Any]]]:
    """Whole simulated games of one kind, at least `n` events in all."""
    rules = rules_for(kind)
    rng = random.Random(seed)
    games, total = [], 0
    while total < n:
        events = list(play(rules, players_for(rules), {}, rng=rng).events)
        games.append(events)
        total += len(events)
    return games


def sealed(kind: str, events: Sequence[Event], *, texts: bool = False) -> list[dict[str, Any]]:
    """The envelopes the recorder would store for these events: plain dicts, or with `texts` as `seal`
    makes them (`SealedEnvelope`, carrying the encoded payloads the store writes as they are), the form
    the recorder hands the store."""
    rules = rules_for(kind)
    names = players_for(rules)
    state = engine.start(rules, names, rules.options_for(names, {}))
    prev, out = "0" * 64, []
    for seq, event in enumerate(events, 1):
        state = engine.apply(rules, state, event, seq)
        env = seal(
            seq=seq,
            hand=state.hand,
            event=dict(event),
            result=state.facts,
            violation=None,
            recorded_at=utc_now(),
            actor="bench",
            prev_hash=prev,
        )
        prev = env["hash"]
        out.append(env if texts else dict(env))
    return out


def dict_fold(envelopes: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The ceiling's fold: each event's data merged into one dict."""
    table: dict[str, Any] = {}
    for env in envelopes:
        table[env["type"]] = env["seq"]
        table.update(env["data"])
    return table


def best_rate(n: int, run: Callable[[], object], before: Callable[[], object] | None = None) -> float:
    """`n` over the shortest of `REPEAT` timed runs of `run` (`before`, untimed, ahead of each)."""
    return best_rates(n, {"run": run}, {"run": before} if before is not None else {})["run"]


def best_rates(
    n: int,
    runs: Mapping[str, Callable[[], object]],
    before: Mapping[str, Callable[[], object]] | None = None,
    clock: Callable[[], float] = time.process_time,
) -> dict[str, float]:
    """`n` over the shortest of `REPEAT` timed runs of each of `runs`, taken in turn (`before[name]`, untimed,
    ahead of each of its runs).

    In turn, so that a figure and its ceiling meet the same load: other people's suites run on this
    machine, and a burst of theirs that falls on all the passes of one figure made it seem up to twice
    as slow as its ceiling measured a second later. Timed in this process's CPU time: every run is one
    thread reading SQLite in-process and folding, so on a quiet machine that is its wall time, and on a
    loaded one (a load of 11 on 2 cores swung a wall-clock ratio between 45% and 270%) it leaves out the
    time spent waiting for a core. A rate here is one core's. (A run that waits for the disk, a commit,
    is timed with `clock=time.perf_counter`.)
    """
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(REPEAT):
        for name, run in runs.items():
            if before is not None and name in before:
                before[name]()
            start = clock()
            run()
            best[name] = min(best[name], clock() - start)
    return {name: n / seconds for name, seconds in best.items()}


def line(label: str, rate: float, note: str = "") -> None:
    print(f"{label}: {rate:.0f} ev/s{note}", flush=True)


def bench_kind(kind: str, url: str) -> None:
    rules = rules_for(kind)
    names = players_for(rules)
    games = simulated(kind, N_EVENTS, seed=9)
    n = sum(len(g) for g in games)
    envelopes = [sealed(kind, g) for g in games]
    initial = engine.start(rules, names, rules.options_for(names, {}))

    upgrade(url)
    store = Store(url)
    recorder = Recorder(store)
    club = store.ensure_club(f"bench-fold-{kind}")
    ids = []
    for events in games:
        game = recorder.create_game(club_id=club, kind=kind, players=names, options={})
        for i in range(0, len(events), 500):
            recorder.append(game.id, events[i : i + 500], club_id=club, actor="bench")
        ids.append(game.id)
    lengths = [len(events) for events in games]

    def in_memory() -> None:
        for envs in envelopes:
            engine.fold(rules, initial, envs)

    def rebuild() -> None:
        for gid, length in zip(ids, lengths, strict=True):
            engine.fold(rules, initial, store.read_for_fold(gid, 0, length)[0])

    def fold_read() -> None:
        for gid, length in zip(ids, lengths, strict=True):
            store.read_for_fold(gid, 0, length)

    def ceiling() -> None:
        for gid in ids:
            dict_fold(store.read_events(gid))

    def lean_ceiling() -> None:
        for gid, length in zip(ids, lengths, strict=True):
            dict_fold(store.read_for_fold(gid, 0, length)[0])

    rates = best_rates(
        n,
        {"fold": in_memory, "rebuild": rebuild, "ceiling": ceiling, "read": fold_read, "lean": lean_ceiling},
    )
    bare, lean = rates["ceiling"], rates["lean"]
    line(
        f"fold {kind}", rates["fold"], f"  ({n} events, {len(games)} games; {rates['fold'] / bare:.0%} of the ceiling)"
    )
    line(
        f"rebuild {kind}",
        rates["rebuild"],
        f"  ({rates['rebuild'] / bare:.0%} of the ceiling, {rates['rebuild'] / lean:.0%} of the lean ceiling;"
        f" its read and decode alone {rates['read']:.0f} ev/s)",
    )
    line(f"ceiling {kind}", bare, "  (read + decode + dict fold)")
    line(f"lean ceiling {kind}", lean, "  (the rebuild's own read + decode + dict fold)")
    store.dispose()


def endless_session(kind: str, n: int, seed: int = 40) -> tuple[list[str], list[dict[str, Any]]]:
    """The players and `n` uniformly random events of a session that is never closed (Seven and a Half)."""
    rules = rules_for(kind)
    names = players_for(rules)
    rng = random.Random(seed)
    state = engine.start(rules, names, rules.options_for(names, {}))
    events: list[dict[str, Any]] = []
    while len(events) < n:
        offered = [e for e in rules.legal_events(state.game) if e["type"] != "session_closed"]
        offered += rules.chance_events(state.game, rng)
        event = dict(rng.choice(offered))
        state = engine.apply(rules, state, event, state.seq + 1)
        events.append(event)
    return names, events


def long_session() -> None:
    """A Seven and a Half session of LONG_SESSION events, folded: the first and last WINDOW events' rates."""
    kind = "seven-and-a-half"
    rules = rules_for(kind)
    names, events = endless_session(kind, LONG_SESSION)
    initial = engine.start(rules, names, rules.options_for(names, {}))
    state, seq, marks = initial, 0, [0.0] * (len(events) + 1)
    marks[0] = time.perf_counter()
    for seq, event in enumerate(events, 1):
        state = engine.apply(rules, state, event, seq)
        marks[seq] = time.perf_counter()
    first = WINDOW / (marks[WINDOW] - marks[0])
    last = WINDOW / (marks[seq] - marks[seq - WINDOW])
    print(f"long {kind} first {WINDOW}: {first:.0f} ev/s  ({len(events)} events, {state.hand} hands)", flush=True)
    print(f"long {kind} last {WINDOW}: {last:.0f} ev/s", flush=True)


def main() -> None:
    thresholds = tune_gc()  # as a server process does (projections/core/tuning.py)
    print(
        f"Tablebook folds ({'quick' if QUICK else 'full'} run), {time.strftime('%Y-%m-%d %H:%M')}, "
        f"gc thresholds {thresholds}",
        file=sys.stderr,
    )
    kinds = sys.argv[1:] or available()
    with tempfile.TemporaryDirectory() as tmp:
        for kind in kinds:
            if kind == "long":
                continue
            bench_kind(kind, f"sqlite:///{tmp}/fold-{kind}.db")
    if not sys.argv[1:] or "long" in kinds:
        long_session()


if __name__ == "__main__":
    main()
