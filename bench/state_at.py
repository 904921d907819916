"""`make bench`, states at a seq: `GET /state?at=<random seq>` on a 10,000-event game, cold cache.

A Seven and a Half session of `N_EVENTS` events is recorded in a SQLite store; then each request
gets a new Recorder (an empty state cache, as after a restart or in another process) and asks for
the table at a random seq, through the app (FastAPI `TestClient`). Two runs: with snapshots off
(every fold starts at event 1) and on (`projections/core/snapshots.py`; the first pass over the game
writes them, the timed requests read them). Beside them, in the same run: the ceiling, the same
client's `GET /healthz` (what the HTTP stack and the in-process client cost with no work at all),
and the server's own share, the same cold reads made on the recorder directly (`live` for the
head, `fold_to` the seq, `render_state`). Lines a script can read (milliseconds):

    state_at snapshots=off: p50 N ms p99 N ms
    state_at snapshots=on: p50 N ms p99 N ms
    state_at ceiling GET /healthz: p50 N ms p99 N ms
    state_at snapshots=on, recorder only: p50 N ms p99 N ms

Numbers are printed, never asserted. Set BENCH_QUICK=1 for a short run.
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("TABLEBOOK_DURABILITY", "fast")

from fastapi.testclient import TestClient

from api.auth import create_key
from api.main import create_app
from api.service import Tablebook
from api.settings import Settings
from bench.folds import endless_session
from events.store import Store
from events.store.migrate import upgrade
from projections.core.engine import render_state
from projections.core.recorder import Recorder, StateCache
from projections.core.tuning import tune_gc

QUICK = bool(os.environ.get("BENCH_QUICK"))
N_EVENTS = 10_000
REQUESTS = 200 if QUICK else 1000
KIND = "seven-and-a-half"


def timed(
    client: TestClient, store: Store, game_id: str, headers: dict[str, str], on: bool, seqs: list[int]
) -> list[float]:
    out = []
    for seq in seqs:
        client.app.state.service = Tablebook(Recorder(store, StateCache(), snapshots=on))  # type: ignore[attr-defined]
        began = time.perf_counter()
        response = client.get(f"/v1/games/{game_id}/state", params={"at": seq}, headers=headers)
        out.append((time.perf_counter() - began) * 1000)
        assert response.status_code == 200, response.text
    return out


def bare(client: TestClient, n: int) -> list[float]:
    """The ceiling: `GET /healthz` through the same client, `n` times."""
    out = []
    for _ in range(n):
        began = time.perf_counter()
        response = client.get("/healthz")
        out.append((time.perf_counter() - began) * 1000)
        assert response.status_code == 200, response.text
    return out


def direct(store: Store, game_id: str, names: list[str], seqs: list[int]) -> list[float]:
    """The same cold reads on the recorder itself: the server's share of a request."""
    out = []
    for seq in seqs:
        recorder = Recorder(store, StateCache())
        began = time.perf_counter()
        live = recorder.live(game_id)
        render_state(live.rules, recorder.fold_to(live.game, live.rules, seq), 0, names)
        out.append((time.perf_counter() - began) * 1000)
    return out


def line(label: str, ms: list[float]) -> None:
    ms = sorted(ms)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    print(f"state_at {label}: p50 {statistics.median(ms):.2f} ms p99 {p99:.2f} ms ({len(ms)} requests)", flush=True)


def main() -> None:
    tune_gc()  # as a server process does (projections/core/tuning.py)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        upgrade(url)
        store = Store(url)
        names, events = endless_session(KIND, N_EVENTS)
        key = create_key(store, "bench", "viewer")
        club = store.ensure_club("bench")
        recorder = Recorder(store, snapshots=False)
        game = recorder.create_game(club_id=club, kind=KIND, players=names, options={})
        for i in range(0, len(events), 1000):
            recorder.append(game.id, events[i : i + 1000], club_id=club, actor="bench")
        headers = {"Authorization": f"Bearer {key}"}
        rng = random.Random(1)
        seqs = [rng.randint(1, N_EVENTS) for _ in range(REQUESTS)]
        app = create_app(Settings(database_url=url), store)
        with TestClient(app) as client:
            line("snapshots=off", timed(client, store, game.id, headers, False, seqs[: max(50, REQUESTS // 10)]))
            began = time.perf_counter()
            Recorder(store).live(game.id)  # the first fold over the game writes its snapshots
            written = len(store.snapshot_seqs(game.id))
            print(f"state_at first fold writing {written} snapshots: {(time.perf_counter() - began) * 1000:.0f} ms")
            line("snapshots=on", timed(client, store, game.id, headers, True, seqs))
            line("ceiling GET /healthz", bare(client, len(seqs)))
        line("snapshots=on, recorder only", direct(store, game.id, names, seqs))
        store.dispose()


if __name__ == "__main__":
    main()
