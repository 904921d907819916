"""Helpers the migration tests share: not a test module, so test modules import from here."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect
from sqlmodel import SQLModel

from events.store.tables import include_object


def schema_diff(url: str) -> list[object]:
    """What differs between the database at `url` and the models' schema (empty: they agree)."""
    engine = create_engine(url)
    with engine.connect() as conn:
        diff = compare_metadata(
            MigrationContext.configure(conn, opts={"include_object": include_object}), SQLModel.metadata
        )
    engine.dispose()
    return list(diff)


def game_columns(url: str) -> set[str]:
    """The names of the columns of the database's `game` table."""
    engine = create_engine(url)
    columns = {c["name"] for c in inspect(engine).get_columns("game")}
    engine.dispose()
    return columns
