"""Alembic environment: runs the revisions against TABLEBOOK_DATABASE_URL."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import events.store.tables  # noqa: F401  (registers the tables on SQLModel.metadata)
from events.store import make_engine
from events.store.tables import include_object

target_metadata = SQLModel.metadata


def run_migrations_online() -> None:
    url = context.config.get_main_option("sqlalchemy.url")
    connectable = context.config.attributes.get("connection")
    if connectable is not None:
        context.configure(
            connection=connectable, target_metadata=target_metadata, render_as_batch=True, include_object=include_object
        )
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = make_engine(url)
    with engine.connect() as connection:
        context.configure(
            connection=connection, target_metadata=target_metadata, render_as_batch=True, include_object=include_object
        )
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


run_migrations_online()
