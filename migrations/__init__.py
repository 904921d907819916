"""Alembic migrations: the schema, for SQLite and PostgreSQL alike."""
