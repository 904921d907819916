"""Scratch PostgreSQL for benchmarks and tests: a database dropped afterwards, or a server of one's own.

`bench.bulk_export` and `bench.ratings` both measure on SQLite first and then, unless `BENCH_PG=0`, on a
fresh database of their own on the test server (`TABLEBOOK_TEST_PG`); when the server does not answer,
the PostgreSQL part is skipped with one line saying why, not failed.

`start_private_postgres` starts a whole server from the machine's binaries, for what a shared server would
disturb: `bench.group_commit` counts its fsyncs (`pg_stat_wal`), and the tests' `own_postgres_server`
(tests/conftest.py) reads the log below a transaction-id horizon that any other database's open
transaction would hold back.

`new_games` makes the empty Schnapsen games the append benchmarks write into.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import psycopg

from events.codec import utc_now
from events.envelope import seal
from events.store import Store

PG_SERVER = os.environ.get("TABLEBOOK_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


@contextmanager
def scratch_postgres(prefix: str) -> Iterator[str | None]:
    """The URL of a new database `<prefix>_<pid>` (dropped on exit), or None when PostgreSQL is off or down."""
    if os.environ.get("BENCH_PG", "1") == "0":
        yield None
        return
    name = f"{prefix}_{os.getpid()}"
    dsn = PG_SERVER.replace("postgresql+psycopg://", "postgresql://")
    try:
        with psycopg.connect(dsn, autocommit=True, connect_timeout=3) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
    except psycopg.OperationalError as exc:
        print(f"PostgreSQL skipped: {exc}".splitlines()[0])
        yield None
        return
    try:
        yield PG_SERVER.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(dsn, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass(frozen=True, slots=True)
class PrivateServer:
    """A PostgreSQL server started by `start_private_postgres`."""

    #: its URL without a database (`postgresql+psycopg://postgres@127.0.0.1:PORT`)
    url: str
    #: the postmaster's pid (its children are the server's processes)
    postmaster: int
    #: stops it and removes its data
    stop: Callable[[], None]


def postgres_binaries() -> Path | None:
    """The folder of the newest PostgreSQL's `initdb` and `pg_ctl` on this machine (Debian's
    /usr/lib/postgresql/N/bin, else the PATH's), or None."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: [int(x) for x in p.parent.name.split(".")])
    if found:
        return found[-1]
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def start_private_postgres(base: Path, *, max_connections: int, stop_mode: str = "fast") -> PrivateServer:
    """A PostgreSQL server of the caller's own: its data in `base` (a folder `postgres` may enter), listening on
    127.0.0.1 at a free port, trust auth, `max_connections` as given; `stop` shuts it down in `stop_mode`
    (`fast`, or `immediate` where nothing it holds is needed after). As root, it runs as `postgres`
    (PostgreSQL refuses root). `initdb --no-sync` skips only initdb's own syncing of the new cluster: the
    server itself syncs as configured.

    Raises:
        OSError: no PostgreSQL binaries on this machine.
        subprocess.SubprocessError: initdb or pg_ctl failed.
    """
    binaries = postgres_binaries()
    if binaries is None:
        raise FileNotFoundError("no PostgreSQL binaries (initdb) on this machine")
    as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    base.chmod(0o755)
    if as_postgres:
        shutil.chown(base, "postgres", "postgres")
    data = base / "data"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    run = partial(subprocess.run, check=True, capture_output=True, cwd=base, timeout=120)
    run([*as_postgres, str(binaries / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"])
    options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c max_connections={max_connections}"
    pg_ctl = [*as_postgres, str(binaries / "pg_ctl"), "-D", str(data)]
    run([*pg_ctl, "-o", options, "-l", str(base / "log"), "-w", "start"])

    def stop() -> None:
        subprocess.run([*pg_ctl, "-m", stop_mode, "-w", "stop"], capture_output=True, cwd=base, timeout=60, check=False)
        shutil.rmtree(base, ignore_errors=True)

    postmaster = int((data / "postmaster.pid").read_text().split()[0])
    return PrivateServer(f"postgresql+psycopg://postgres@127.0.0.1:{port}", postmaster, stop)


def new_games(store: Store, club: int, count: int, totals: dict[str, int] | None = None) -> list[str]:
    """The ids of `count` new Schnapsen games of `club` with no events, for a benchmark's appends to go into (the
    store checks no rules: what matters is a game row whose head moves). `totals`: the head's, `{}` if None."""
    return [
        store.create_game(
            club_id=club,
            kind="schnapsen",
            players=["A", "B"],
            options={},
            created_at=utc_now(),
            genesis_hash="0" * 64,
            totals=totals or {},
        ).id
        for _ in range(count)
    ]


def sealed_note(seq: int, prev: str, text: str) -> dict[str, Any]:
    """A sealed `note` envelope at `seq`, chained to the hash `prev`: what the append benchmarks write (the store
    validates nothing: the rules are elsewhere)."""
    return seal(
        seq=seq,
        hand=1,
        event={"type": "note", "text": text},
        result={},
        violation=None,
        recorded_at=utc_now(),
        actor="bench",
        prev_hash=prev,
    )
