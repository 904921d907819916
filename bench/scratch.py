"""A scratch PostgreSQL database for a benchmark's PostgreSQL part, dropped afterwards.

`bench.bulk_export` and `bench.ratings` both measure on SQLite first and then, unless `BENCH_PG=0`, on a
fresh database of their own on the test server (`TABLEBOOK_TEST_PG`); when the server does not answer,
the PostgreSQL part is skipped with one line saying why, not failed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg

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
