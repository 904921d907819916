"""Fixtures of the migration tests."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.conftest import PG_SERVER, STORES, _pg_admin_dsn


@pytest.fixture(params=STORES)
def fresh_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of each dialect, not migrated: a test walks it through the revisions."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/fresh.db"
        return
    name = f"tablebook_mig_{secrets.token_hex(4)}"
    with psycopg.connect(_pg_admin_dsn(), autocommit=True, connect_timeout=5) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    yield f"{PG_SERVER.rsplit('/', 1)[0]}/{name}"
    with psycopg.connect(_pg_admin_dsn(), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
