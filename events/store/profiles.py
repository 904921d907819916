"""Rule profiles in the registry: a club's named sets of option values, per game (`rule_profile` rows).

A small module of the store layer beside the store's own (as `events/store/shares.py` is), so that no SQL
is written above `events/`: `api/service/profiles.py` checks a profile against the games' rules and
calls these functions with the store (or any holder of its `Database`) whose database they use. It
knows no rules: the options are kept as canonical JSON text, `{kind: {option: value}}`, exactly as the
projection layer checked them.

Reads are on a plain connection; writes in the store's own write transactions (`Database.write`:
BEGIN IMMEDIATE and the process's writer lock on SQLite), each one short transaction. A profile is
keyed by (club, name): two clubs may both have a "tuesday" profile, and never see each other's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy import delete, insert, select, update

from events.codec import canonical, utc_now
from events.errors import NotFoundError
from events.store.base import HoldsDatabase
from events.store.tables import MAX_PROFILE_NAME, RuleProfile

#: the longest profile name
MAX_NAME = MAX_PROFILE_NAME
PROFILES = RuleProfile.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class ProfileRecord:
    """A stored profile."""

    club_id: int
    name: str
    games: dict[str, dict[str, Any]]
    created_at: str
    updated_at: str


def _record(row: Any) -> ProfileRecord:
    return ProfileRecord(row.club_id, row.name, orjson.loads(row.options), row.created_at, row.updated_at)


def get_profile(store: HoldsDatabase, club_id: int, name: str) -> ProfileRecord:
    """The club's profile called `name`.

    Raises:
        NotFoundError: the club has no such profile.
    """
    with store.db.engine.connect() as conn:
        row = conn.execute(select(PROFILES).where(PROFILES.c.club_id == club_id, PROFILES.c.name == name)).first()
    if row is None:
        raise NotFoundError(f"no rule profile {name!r} in this club")
    return _record(row)


def list_profiles(store: HoldsDatabase, club_id: int) -> list[ProfileRecord]:
    """Every profile of the club, by name."""
    with store.db.engine.connect() as conn:
        rows = conn.execute(select(PROFILES).where(PROFILES.c.club_id == club_id).order_by(PROFILES.c.name)).all()
    return [_record(row) for row in rows]


def put_profile(
    store: HoldsDatabase, club_id: int, name: str, games: dict[str, dict[str, Any]]
) -> tuple[ProfileRecord, bool]:
    """Store the profile (a new one, or the club's profile of that name replaced): (the row, whether it is new)."""
    now = utc_now()
    text = canonical(games).decode()
    with store.db.write() as conn, conn.begin():
        found = conn.execute(
            select(PROFILES.c.created_at).where(PROFILES.c.club_id == club_id, PROFILES.c.name == name)
        ).first()
        if found is None:
            conn.execute(
                insert(PROFILES).values(club_id=club_id, name=name, options=text, created_at=now, updated_at=now)
            )
            created = now
        else:
            conn.execute(
                update(PROFILES)
                .where(PROFILES.c.club_id == club_id, PROFILES.c.name == name)
                .values(options=text, updated_at=now)
            )
            created = found.created_at
    return ProfileRecord(club_id, name, orjson.loads(text), created, now), found is None


def delete_profile(store: HoldsDatabase, club_id: int, name: str) -> None:
    """Remove the club's profile `name` (games created with it keep their options: a profile is only copied).

    Raises:
        NotFoundError: the club has no such profile.
    """
    with store.db.write() as conn, conn.begin():
        gone = conn.execute(delete(PROFILES).where(PROFILES.c.club_id == club_id, PROFILES.c.name == name))
    if not gone.rowcount:
        raise NotFoundError(f"no rule profile {name!r} in this club")
