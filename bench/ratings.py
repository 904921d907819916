"""Ratings and statistics rebuilt from the events: `python -m bench.ratings [GAMES]`.

Records GAMES finished games (default 10,000; BENCH_QUICK=1: 1,000) in a fresh SQLite database, an
equal share of each kind, played by the bots (`projections.simulate.demo_playout`: 5 distinct games
per kind, recorded many times over through `Store.import_game`), seated from a club of 300 players
at random. Then it times, from zero, the two read models a player's page and the standings read:
the hand facts (the game's own statistics) and the ratings (`projections/ratings.py`), and prints
the rate in games and events a second, and what 100,000 games would take at that rate (events per
game stay the same; the rebuild reads the log once, in pages, so its time grows with the events).
It also times one more game appended and rated incrementally. Numbers are printed, never asserted.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from typing import Any

from bench.bulk_export import sealed
from events.codec import genesis_hash
from events.migrate import upgrade
from events.store import Store
from projections.ratings import RatingsModel
from projections.readmodel import HandFacts
from projections.registry import available, rules_for
from projections.simulate import demo_playout

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


def measure(url: str, games: int) -> dict[str, float]:
    """Fill a database and time both rebuilds and one incremental game; the figures."""
    upgrade(url)
    store = Store(url)
    try:
        events = fill(store, games)
        start = time.perf_counter()
        HandFacts(store).rebuild()
        facts = time.perf_counter() - start
        start = time.perf_counter()
        RatingsModel(store).rebuild()
        ratings = time.perf_counter() - start
        changes = len(store.ratings.rows())
        fill(store, 1)  # one more game, rated incrementally: only its events are read
        model = RatingsModel(store)
        start = time.perf_counter()
        model.catch_up()
        one = time.perf_counter() - start
    finally:
        store.dispose()
    return {"games": games, "events": events, "facts": facts, "ratings": ratings, "changes": changes, "one": one}


def lines(figures: dict[str, float]) -> list[str]:
    games, events = figures["games"], figures["events"]
    total = figures["facts"] + figures["ratings"]
    per_game = total / games
    return [
        f"{games:,.0f} games, {events:,.0f} events, {figures['changes']:,.0f} rating changes",
        f"hand facts rebuilt: {figures['facts']:.1f} s ({events / figures['facts']:,.0f} ev/s)",
        f"ratings rebuilt: {figures['ratings']:.1f} s ({events / figures['ratings']:,.0f} ev/s, "
        f"{games / figures['ratings']:,.0f} games/s)",
        f"both: {games / total:,.0f} games/s; {TARGET:,} games at this rate: {per_game * TARGET:.0f} s "
        f"(target: under 60 s)",
        f"one more game appended, rated incrementally: {figures['one'] * 1000:.1f} ms",
    ]


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else (1000 if QUICK else 10_000)
    with tempfile.TemporaryDirectory() as tmp:
        figures = measure(f"sqlite:///{tmp}/ratings.db", games)
    for line in lines(figures):
        print(line)


if __name__ == "__main__":
    main()
