"""`make bench`, appends beside readers: does replay and export work stall the appends of other games?

The measured failure behind this bench: `async` routes did blocking database and fold work on the
event loop, so one replay of a long game held up every other request of its process for its whole
duration. Here one real server (`python -m api.cli serve --workers 1 --no-access-log`, SQLite in a
temporary directory) takes the appends of bench/http_appends.py (wrk, one event a request, 16
connections over their own Schnapsen games, `bench/http_appends.lua`) twice: on the idle server, then
while four reader processes loop `GET /v1/games/{id}/replay?hand=N` and `GET .../export?format=json`
over two long Seven and a Half sessions (1,500 events each, recorded over HTTP before the runs) as fast
as the server answers them. Lines a script can read (numbers are printed, never asserted):

    appends idle: N req/s p50 N ms p99 N ms
    appends under load (4 replay/export clients): N req/s p50 N ms p99 N ms
    readers under load: N replays+exports/s

One worker process on purpose: the readers and the appends share its event loop and its GIL, so a
route that blocks the loop shows as an append p99 near a replay's duration, while work moved to the
threadpool costs the appends only their share of the CPU. The readers are separate processes (Python,
httpx), the appends are wrk (C), so neither generator is the server's bottleneck; on a small machine
they still take CPU from it, so read the loaded rate beside the readers' rate, not alone.

Run it against other code with `python -m bench.appends_under_load /work/base`: the server, `migrate`
and `keys create` then run from that checkout, with its `.venv/bin/python` (the checkout need not have
this bench; everything it is asked goes through the CLI and the HTTP API). BENCH_QUICK=1: 4-second runs.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from multiprocessing.sharedctypes import Synchronized
from multiprocessing.synchronize import Event as EventType
from pathlib import Path

import httpx

from bench.folds import endless_session
from bench.http_appends import (
    CLIENTS,
    MAX_EVENTS,
    QUICK,
    ROOT,
    SECONDS,
    WARM_EVENTS,
    WARM_SECONDS,
    WRK,
    Load,
    Server,
    free_port,
    matches,
    server_env,
    write_requests,
    wrk,
)
from events.store import durability_from
from projections.core import engine
from projections.core.registry import rules_for

READERS = 4
LONG_GAMES = 2
LONG_EVENTS = 1500
LONG_KIND = "seven-and-a-half"
#: events a request while the long games are recorded (setup, not measured)
RECORD_BATCH = 200
#: the readers' warm-up before the loaded run: every process booted and looping
READERS_SETTLE = 1.5


def interpreter(code: Path) -> str:
    """The checkout's own venv if it has one (/work/base does), else this interpreter."""
    own = code / ".venv" / "bin" / "python"
    return str(own) if code != ROOT and own.exists() else sys.executable


def cli(code: Path, database_url: str, *args: str) -> str:
    """One `python -m api.cli <args> -d <database_url>` command run from `code`: its stdout."""
    command = [interpreter(code), "-m", "api.cli", *args, "-d", database_url]
    env = server_env(database_url)
    done = subprocess.run(command, cwd=code, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"{' '.join(args[:2])} failed: {done.stdout[-1500:]} {done.stderr[-1500:]}")
    return done.stdout


def serve_from(code: Path, database_url: str, tmp: Path) -> Server:
    """`tablebook serve --workers 1` as bench/http_appends.py starts it, but from `code` (cwd and interpreter)."""
    port = free_port()
    command = [interpreter(code), "-m", "api.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--workers", "1", "--no-access-log"]
    log = tmp / f"serve-{port}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            command,
            cwd=code,
            env=server_env(database_url),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: Server.stop ends the supervisor and its worker
        )
    server = Server(proc, port, log)
    server.wait_ready()
    return server


def record_long_games(http: httpx.Client) -> list[tuple[str, int]]:
    """LONG_GAMES Seven and a Half sessions of LONG_EVENTS events each: (game id, its last hand)."""
    rules = rules_for(LONG_KIND)
    games = []
    for seed in range(LONG_GAMES):
        names, events = endless_session(LONG_KIND, LONG_EVENTS, seed=40 + seed)
        state = engine.start(rules, names, rules.options_for(names, {}))
        for seq, event in enumerate(events, 1):
            state = engine.apply(rules, state, event, seq)
        answer = http.post("/v1/games", json={"game": LONG_KIND, "players": names, "options": {}})
        answer.raise_for_status()
        game_id: str = answer.json()["id"]
        for start in range(0, len(events), RECORD_BATCH):
            batch = {"events": events[start : start + RECORD_BATCH]}
            http.post(f"/v1/games/{game_id}/events", json=batch).raise_for_status()
        games.append((game_id, state.hand))
    return games


def reader(
    url: str,
    key: str,
    games: list[tuple[str, int]],
    seed: int,
    done: Synchronized[int],
    failed: Synchronized[int],
    stop: EventType,
) -> None:
    """One reader process: a replay of a random hand of a long game, then that game's json export, again
    and again until `stop`; each answer counted in `done` (200) or `failed` (anything else)."""
    rng = random.Random(seed)
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as http:
        while not stop.is_set():
            game_id, hands = rng.choice(games)
            for path, params in (("replay", {"hand": rng.randint(1, hands)}), ("export", {"format": "json"})):
                status = http.get(f"/v1/games/{game_id}/{path}", params=params).status_code
                counter = done if status == 200 else failed
                with counter.get_lock():
                    counter.value += 1


def appends(server: Server, http: httpx.Client, key: str, tmp: Path, name: str, per_client: int) -> Load:
    """One timed wrk run of appends on fresh games (bench/http_appends.py's bodies and script)."""
    folder = write_requests(tmp / name, http, matches(), per_client)
    return wrk(server.url, folder, key, SECONDS)


def detail(load: Load) -> str:
    line = f"    (not 201: {load.refused}, socket errors: {load.socket_errors}"
    if load.exhausted:
        line += f", {load.exhausted} clients ran out of events: the rate is low by their idle time"
    if load.first:
        line += f"; first refusal: {load.first[:200]}"
    return line + ")"


def run(code: Path) -> None:
    print(
        f"appends beside {READERS} replay/export clients ({'quick' if QUICK else 'full'} run, {SECONDS} s each), "
        f"code at {code}, SQLite, 1 worker, {CLIENTS} append clients, durability {durability_from()}, "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="tablebook-under-load-") as name:
        tmp = Path(name)
        database_url = f"sqlite:///{tmp}/under-load.db"
        cli(code, database_url, "migrate")
        key = cli(code, database_url, "keys", "create", "--club", "bench", "--role", "recorder").split()[-1]
        server = serve_from(code, database_url, tmp)
        context = multiprocessing.get_context("spawn")  # no fork of a process that has sockets open
        stop = context.Event()
        done = context.Value("q", 0)
        failed = context.Value("q", 0)
        readers: list[multiprocessing.process.BaseProcess] = []
        try:
            with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as http:
                long_games = record_long_games(http)
                warm = write_requests(tmp / "warm", http, matches(), WARM_EVENTS)
                guess = wrk(server.url, warm, key, WARM_SECONDS).rate
                per_client = min(MAX_EVENTS, int(max(guess, 100) * SECONDS / CLIENTS * 2) + 100)
                idle = appends(server, http, key, tmp, "idle", per_client)
                print(f"appends idle: {idle.rate:.0f} req/s p50 {idle.p50_ms:.1f} ms p99 {idle.p99_ms:.1f} ms")
                print(detail(idle), flush=True)
                folder = write_requests(tmp / "loaded", http, matches(), per_client)  # before the readers start
                for number in range(READERS):
                    args = (server.url, key, long_games, number, done, failed, stop)
                    readers.append(context.Process(target=reader, args=args, daemon=True))
                    readers[-1].start()
                time.sleep(READERS_SETTLE)
                before, began = done.value, time.perf_counter()
                loaded = wrk(server.url, folder, key, SECONDS)
                read_rate = (done.value - before) / (time.perf_counter() - began)
            label = f"appends under load ({READERS} replay/export clients)"
            print(f"{label}: {loaded.rate:.0f} req/s p50 {loaded.p50_ms:.1f} ms p99 {loaded.p99_ms:.1f} ms")
            print(detail(loaded))
            print(f"readers under load: {read_rate:.1f} replays+exports/s")
            print(f"    (not 200: {failed.value}; the long games: {LONG_GAMES} x {LONG_EVENTS} events)", flush=True)
        finally:
            stop.set()
            for process in readers:
                process.join(timeout=70)  # a reader ends after its request in flight
                if process.is_alive():
                    process.terminate()
            server.stop()


def main() -> None:
    if shutil.which(WRK) is None:
        sys.exit(f"{WRK} is missing: run scripts/ensure-wrk (as root it installs Debian's wrk)")
    run(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else ROOT)


if __name__ == "__main__":
    main()
