"""Idle live streams: what 1,000 open SSE streams cost a server process, and how fast an append reaches one.

A real uvicorn process (SQLite, a fresh database) serves the streams; the clients run in another process
(asyncio, raw sockets for the idle streams, so that the client caps nothing). Printed, one line each:

- `streams idle N: X% of a core` - the server's CPU (utime + stime from /proc/<pid>/stat) over
  `IDLE_SECONDS` with N streams open and nothing appended, after they settled;
- `streams append to event: p50 X ms, p99 Y ms` - from sending an append (HTTP, to the same server) to
  its event arriving on a stream of that game, with the 1,000 idle streams open;
- with `BENCH_STREAMS_BASE=<tree>` (a checkout with its own .venv, e.g. the tree before streams were
  pushed), the same idle figures for `BASE_STREAMS` and `STREAMS` streams served from that tree.

The streams are spread over `GAMES` games and `KEYS` viewer keys (an idle stream's key is checked again
once a second per key and process, api/routes/replays.py). Numbers are printed, never asserted;
BENCH_QUICK=1 shortens the idle window.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
QUICK = bool(os.environ.get("BENCH_QUICK"))
STREAMS = 1000
BASE_STREAMS = 20
GAMES = 50
KEYS = 20
IDLE_SECONDS = 8.0 if QUICK else 20.0
SETTLE_SECONDS = 3.0
PROBES = 50 if QUICK else 200

#: run in the served tree (its own code and schema): a migrated database, a recorder key, viewer keys
SETUP = """
import json, sys
from events.store.migrate import upgrade
from events.store import Store
from api.auth import create_key
url, count = sys.argv[1], int(sys.argv[2])
upgrade(url)
store = Store(url)
keys = {"recorder": create_key(store, "bench", "recorder"),
        "viewers": [create_key(store, "bench", "viewer") for _ in range(count)]}
print("KEYS " + json.dumps(keys))
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, in seconds (fields 14 and 15 of /proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_env(tree: Path, url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLEBOOK_")}
    env.update({"TABLEBOOK_DATABASE_URL": url, "PYTHONPATH": str(tree), "PYTHONUNBUFFERED": "1"})
    return env


def serve(tree: Path, python: str, streams: int, probe: bool) -> dict[str, Any]:
    """Start a server from `tree`, open `streams` idle streams from a client process, measure."""
    with tempfile.TemporaryDirectory(prefix="tablebook-bench-streams-") as tmp:
        url = f"sqlite:///{tmp}/streams.db"
        env = tree_env(tree, url)
        setup = subprocess.run(
            [python, "-c", SETUP, url, str(KEYS)], cwd=tree, env=env, capture_output=True, text=True, check=True
        )
        keys = json.loads(next(line[5:] for line in setup.stdout.splitlines() if line.startswith("KEYS ")))
        port = free_port()
        command = [python, "-m", "uvicorn", "api.asgi:app", "--host", "127.0.0.1", "--port", str(port)]
        server = subprocess.Popen(
            [*command, "--log-level", "warning", "--no-access-log", "--backlog", "4096"],
            cwd=tree,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 30
            while True:
                try:
                    if httpx.get(base + "/", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError(f"the server from {tree} did not start")
                time.sleep(0.1)
            recorder = {"Authorization": f"Bearer {keys['recorder']}"}
            games = []
            for _ in range(GAMES + 1):
                created = httpx.post(
                    base + "/v1/games", json={"game": "schnapsen", "players": ["Anna", "Ben"]}, headers=recorder
                )
                created.raise_for_status()
                games.append(created.json()["id"])
            plan = {
                "port": port,
                "streams": [[games[i % GAMES], keys["viewers"][i % KEYS]] for i in range(streams)],
                "probe": {"game": games[GAMES], "viewer": keys["viewers"][0], "recorder": keys["recorder"]}
                if probe
                else None,
            }
            client = subprocess.Popen(
                [sys.executable, "-m", "bench.streams", "--client"],
                cwd=ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert client.stdin is not None and client.stdout is not None
            client.stdin.write(json.dumps(plan) + "\n")
            client.stdin.flush()
            opened = client.stdout.readline().split()
            if opened[:1] != ["open"]:
                raise RuntimeError(f"the client did not open its streams: {opened}")
            time.sleep(SETTLE_SECONDS)
            before, began = cpu_seconds(server.pid), time.monotonic()
            time.sleep(IDLE_SECONDS)
            used, spent = cpu_seconds(server.pid) - before, time.monotonic() - began
            client.stdin.write("probe\n")
            client.stdin.flush()
            result: dict[str, Any] = json.loads(client.stdout.readline())
            client.stdin.close()
            client.wait(timeout=60)
            result.update(open=int(opened[1]), cpu=100 * used / spent)
            return result
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()


# --------------------------------------------------------------------------- the client process


async def idle_stream(port: int, game: str, key: str, ready: asyncio.Queue[bool]) -> None:
    """One stream on a raw socket: request, headers, the first field; then read and drop until closed."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        request = f"GET /v1/games/{game}/stream HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {key}\r\n\r\n"
        writer.write(request.encode())
        await writer.drain()
        seen = b""
        while b"retry:" not in seen:
            chunk = await reader.read(65536)
            if not chunk:
                raise ConnectionError("closed before the stream began")
            seen += chunk
        ok = seen.startswith(b"HTTP/1.1 200")
    except (OSError, ConnectionError):
        await ready.put(False)
        return
    await ready.put(ok)
    try:
        while await reader.read(65536):
            pass
    finally:
        writer.close()


async def probe(port: int, plan: dict[str, Any]) -> dict[str, Any]:
    """Append notes one by one to the probe game; time each from sending it to its event on a stream."""
    base = f"http://127.0.0.1:{port}"
    arrived: dict[int, float] = {}
    got = asyncio.Condition()

    async def follow(http: httpx.AsyncClient) -> None:
        headers = {"Authorization": f"Bearer {plan['viewer']}"}
        async with http.stream("GET", f"{base}/v1/games/{plan['game']}/stream", headers=headers) as response:
            async for line in response.aiter_lines():
                found = re.fullmatch(r"id: (\d+)", line)
                if found:
                    async with got:
                        arrived[int(found.group(1))] = time.perf_counter()
                        got.notify_all()

    latencies, acks = [], []
    async with httpx.AsyncClient(timeout=30) as streams, httpx.AsyncClient(timeout=30) as writer:
        follower = asyncio.create_task(follow(streams))
        await asyncio.sleep(1.0)
        headers = {"Authorization": f"Bearer {plan['recorder']}"}
        for seq in range(1, PROBES + 1):
            sent = time.perf_counter()
            response = await writer.post(
                f"{base}/v1/games/{plan['game']}/events",
                json={"events": [{"type": "note", "text": "x"}]},
                headers=headers,
            )
            acks.append(time.perf_counter() - sent)
            response.raise_for_status()
            async with got:
                await asyncio.wait_for(got.wait_for(functools.partial(dict.__contains__, arrived, seq)), 10)
            latencies.append(arrived[seq] - sent)
            await asyncio.sleep(0.01)
        follower.cancel()
    return {"latency": latencies, "ack": acks}


async def client_main() -> None:
    plan = json.loads(sys.stdin.readline())
    port = plan["port"]
    ready: asyncio.Queue[bool] = asyncio.Queue()
    tasks = []
    for start in range(0, len(plan["streams"]), 100):  # a hundred at a time: no accept queue overflows
        batch = plan["streams"][start : start + 100]
        tasks += [asyncio.create_task(idle_stream(port, game, key, ready)) for game, key in batch]
        for _ in batch:
            if not await ready.get():
                print("failed", flush=True)
                return
    print(f"open {len(tasks)}", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    result = await probe(port, plan["probe"]) if plan["probe"] else {}
    print(json.dumps(result), flush=True)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 8192)), hard))  # the children inherit it
    if "--client" in sys.argv:
        asyncio.run(client_main())
        return
    print(
        f"# idle streams over {IDLE_SECONDS:g} s on SQLite, {GAMES} games, {KEYS} viewer keys "
        "(timings on a shared machine are noisy)"
    )
    measured = serve(ROOT, sys.executable, STREAMS, probe=True)
    print(f"streams idle {measured['open']}: {measured['cpu']:.1f}% of a core")
    latency = [s * 1000 for s in measured["latency"]]
    ack = [s * 1000 for s in measured["ack"]]
    print(
        f"streams append to event: p50 {statistics.median(latency):.1f} ms, p99 {pct(latency, 0.99):.1f} ms "
        f"({len(latency)} appends; the append's own answer: p50 {statistics.median(ack):.1f} ms, "
        f"p99 {pct(ack, 0.99):.1f} ms)"
    )
    few = serve(ROOT, sys.executable, BASE_STREAMS, probe=False)
    print(f"streams idle {few['open']}: {few['cpu']:.1f}% of a core")
    base = os.environ.get("BENCH_STREAMS_BASE")
    if base:
        tree = Path(base).resolve()
        for count in (BASE_STREAMS, STREAMS):
            before = serve(tree, str(tree / ".venv" / "bin" / "python"), count, probe=False)
            print(f"streams idle {before['open']} (before, {tree}): {before['cpu']:.1f}% of a core")


if __name__ == "__main__":
    main()
