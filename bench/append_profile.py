"""`make bench` (in `bench.http_appends`): where the CPU of one HTTP append goes, stage by stage.

The app (`api.main.create_app`) is called in this process as an ASGI application, one request at a time,
with the bodies of `bench.http_appends` (the next event of a simulated Schnapsen match, one event a
request), and beside it the bare endpoint of `bench.bare` with the same bodies, called the same way: the
ratio of the two is the ratio the wrk runs measure, without the socket and uvicorn's HTTP parsing (the
same for both). Each stage is timed by the CPU time of the thread that runs it (`time.thread_time`,
around the function that does it, wrapped here and nowhere else):

- auth: the key checked and the game's row read with it (`api.deps.authenticate_for_game`), or, for a key this
  process has read before, the key's row of an earlier request matched (`api.auth.known_key`: the append's
  statement checks it, or on SQLite its transaction; the game's cached state is then used without `Recorder.live`);
- body: the body parsed and checked (`api.routes.events._parse_append`);
- game: the game at its head (`Recorder.live`: the cached state checked against that row);
- rules: each event decided and folded, and the head's score (`engine.Replay.decide`, `Replay.apply`,
  `recorder.head_of`);
- hash: each envelope sealed into the chain (`engine.sealed`);
- transaction: the store's append, its commit and the wake-up of the game's streams (`EventRecorder.append`,
  `EventRecorder.append_checked`, on SQLite `EventRecorder.append_checked_in_turn` and its transaction's
  commit, `TurnCommit.commit`, a callback of the loop; `notify.publish`; on PostgreSQL the append's statement
  sends the NOTIFY of the other processes' streams);
- response: the answer serialised (`ORJSONResponse.render`; and `fastapi.routing.serialize_response`, which
  an append no longer goes through: `api.routes.events.DirectAppend` answers it without FastAPI's router);
- the rest: the process's CPU time over the run less the stages: the middleware, `DirectAppend`'s
  dispatch, the body's read, the threadpool's hop on PostgreSQL, this driver.

Rows (stdout; printed, never asserted):

    append profile sqlite: N ms CPU an append (...; the bare endpoint N ms: Nx)
        (auth N, body N, game N, rules N, hash N, transaction N, response N, the rest N ms)
    append profile pg: ...

`python -m bench.append_profile [N]`: N appends a database (2,000; 500 with BENCH_QUICK=1).
"""

from __future__ import annotations

import asyncio
import functools
import os
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

import orjson
import psycopg

STAGES = ("auth", "body", "game", "rules", "hash", "transaction", "response")
#: CPU seconds by stage, summed over every thread
spent: defaultdict[str, float] = defaultdict(float)
PG_SERVER = os.environ.get("TABLEBOOK_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
QUICK = bool(os.environ.get("BENCH_QUICK"))


def timed(stage: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """`function`, its calls' CPU time (of the calling thread) added to `spent[stage]`."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        began = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[stage] += time.thread_time() - began

    return wrapper


def timed_async(stage: str, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        began = time.thread_time()  # serialize_response awaits nothing in these answers: one thread throughout
        try:
            return await function(*args, **kwargs)
        finally:
            spent[stage] += time.thread_time() - began

    return wrapper


def install() -> None:
    """Wrap the stages' functions (before the app and its store are made: the store binds its parts' methods)."""
    import fastapi.routing

    import api.deps
    import api.responses
    import api.routes.events
    import events.store.recorder
    import events.store.turn_commit
    import projections.core.engine
    import projections.core.recorder
    from events.store import notify

    api.deps.authenticate_for_game = timed("auth", api.deps.authenticate_for_game)  # type: ignore[assignment]
    api.deps.known_key = timed("auth", api.deps.known_key)  # type: ignore[assignment]
    api.routes.events._parse_append = timed("body", api.routes.events._parse_append)  # type: ignore[assignment]
    recorder = projections.core.recorder
    recorder.Recorder.live = timed("game", recorder.Recorder.live)  # type: ignore[method-assign]
    recorder.head_of = timed("rules", recorder.head_of)  # type: ignore[assignment]
    engine = projections.core.engine
    engine.Replay.decide = timed("rules", engine.Replay.decide)  # type: ignore[method-assign]
    engine.Replay.apply = timed("rules", engine.Replay.apply)  # type: ignore[method-assign]
    engine.sealed = timed("hash", engine.sealed)  # type: ignore[assignment]
    store = events.store.recorder.EventRecorder
    store.append = timed("transaction", store.append)  # type: ignore[method-assign]
    store.append_checked = timed("transaction", store.append_checked)  # type: ignore[method-assign]
    store.append_checked_in_turn = timed("transaction", store.append_checked_in_turn)  # type: ignore[method-assign]
    turns = events.store.turn_commit.TurnCommit
    turns.commit = timed("transaction", turns.commit)  # type: ignore[method-assign]
    notify.publish = timed("transaction", notify.publish)  # type: ignore[assignment]
    fastapi.routing.serialize_response = timed_async("response", fastapi.routing.serialize_response)  # type: ignore[assignment]
    response = api.responses.ORJSONResponse
    response.render = timed("response", response.render)  # type: ignore[method-assign]


class Driver:
    """Calls an ASGI app the way uvicorn would, one request at a time, in this process."""

    def __init__(self, app: Any, key: str | None) -> None:
        self.app = app
        self.headers = [(b"host", b"bench"), (b"content-type", b"application/json")]
        if key is not None:
            self.headers.append((b"authorization", f"Bearer {key}".encode()))

    async def call(self, method: str, path: str, body: bytes) -> tuple[int, bytes]:
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [*self.headers, (b"content-length", str(len(body)).encode())],
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 80),
            "state": {},
        }
        await self.app(scope, receive, send)
        return int(sent[0]["status"]), b"".join(m.get("body", b"") for m in sent[1:])


def matches() -> Iterator[list[dict[str, Any]]]:
    from bench.http_appends import matches as http_matches

    return http_matches()


async def run_appends(database_url: str, count: int) -> tuple[float, dict[str, float]]:
    """`count` appends (after as many again to warm up): CPU ms an append, and by stage."""
    from api.auth import create_key
    from api.main import create_app
    from api.settings import Settings
    from events.store import Store
    from events.store.migrate import upgrade

    upgrade(database_url)
    store = Store(database_url)
    key = create_key(store, "bench-profile", "recorder")
    app = create_app(Settings(database_url=database_url), store)
    driver = Driver(app, key)
    games = matches()
    requests: list[tuple[str, bytes]] = []
    while len(requests) < 2 * count:
        game = orjson.dumps({"game": "schnapsen", "players": ["A", "B"]})
        status, body = await driver.call("POST", "/v1/games", game)
        assert status == 201, body
        path = f"/v1/games/{orjson.loads(body)['id']}/events"
        requests += [(path, orjson.dumps({"events": [event]})) for event in next(games)]
    for path, body in requests[:count]:
        status, answer = await driver.call("POST", path, body)
        assert status == 201, answer
    spent.clear()
    began = time.process_time()
    for path, body in requests[count : 2 * count]:
        status, answer = await driver.call("POST", path, body)
        assert status == 201, answer
    total = (time.process_time() - began) * 1000 / count
    stages = {stage: spent[stage] * 1000 / count for stage in STAGES}
    stages["the rest"] = total - sum(stages.values())
    store.dispose()
    return total, stages


async def run_bare(count: int) -> float:
    """The bare endpoint, the same bodies, called the same way: CPU ms a request."""
    from bench.bare import app

    driver = Driver(app, None)
    events = (event for match in matches() for event in match)  # an endless cycle of matches
    bodies = [orjson.dumps({"events": [event]}) for event in islice(events, 2 * count)]
    for body in bodies[:count]:
        await driver.call("POST", "/bare", body)
    began = time.process_time()
    for body in bodies[count : 2 * count]:
        status, answer = await driver.call("POST", "/bare", body)
        assert status == 201, answer
    return (time.process_time() - began) * 1000 / count


def fresh_pg() -> tuple[str, str] | None:
    """A new database on the PostgreSQL server (its URL and the admin DSN), or None if it does not answer."""
    name = f"tablebook_profile_{os.getpid()}"
    admin = PG_SERVER.replace("postgresql+psycopg://", "postgresql://")
    try:
        with psycopg.connect(admin, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
    except psycopg.OperationalError:
        return None
    return PG_SERVER.rsplit("/", 1)[0] + "/" + name, admin


def line(name: str, total: float, stages: dict[str, float], bare: float, count: int) -> str:
    parts = ", ".join(f"{stage} {ms:.3f}" for stage, ms in stages.items())
    return (
        f"append profile {name}: {total:.3f} ms CPU an append (in process, {count:,} appends one at a time; "
        f"the bare endpoint {bare:.3f} ms: {total / bare:.1f}x)\n    ({parts} ms)"
    )


def profile(count: int) -> list[str]:
    """The rows for SQLite, then PostgreSQL if its server answers (`BENCH_PG=0`: not)."""
    install()
    lines = []
    bare = asyncio.run(run_bare(count))
    with tempfile.TemporaryDirectory(prefix="tablebook-profile-") as tmp:
        total, stages = asyncio.run(run_appends(f"sqlite:///{Path(tmp) / 'profile.db'}", count))
    lines.append(line("sqlite", total, stages, bare, count))
    pg = fresh_pg() if os.environ.get("BENCH_PG", "1") != "0" else None
    if pg is not None:
        url, admin = pg
        try:
            total, stages = asyncio.run(run_appends(url, count))
        finally:
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)')
        lines.append(line("pg", total, stages, bare, count))
    return lines


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 500 if QUICK else 2000
    print(f"append profile, load average {os.getloadavg()[0]:.2f} at the start", flush=True)
    for row in profile(count):
        print(row, flush=True)


if __name__ == "__main__":
    main()
