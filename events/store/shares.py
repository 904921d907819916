"""Share tokens in the registry: the `share_token` rows, and the form of a token.

A small module of the store layer (the registry's share tokens), beside the
store's own modules, so that no SQL is written above `events/`: the API
(`api/auth.py` checks a token, `api/routes/pages.py` lists and revokes
them) and the application service (`api/service/` makes them)
call these functions with the store (or any holder of its `Database`) whose database they use. It follows the
store's patterns: reads on a plain connection, writes in the store's own
write transactions (`Database.write`: BEGIN IMMEDIATE and the process's
writer lock on SQLite), each a single short transaction.

A token looks like `ts_<id>_<secret>`: `<id>` names the row, and only
sha256(`<secret>`) is kept there, so a copy of the database gives no working
link. The row binds the token to its game and club, records who made it and
when, and `revoked_at` ends it (the first `revoked_at` stays).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, select, update

from events.codec import utc_now
from events.errors import NotFoundError
from events.store.base import HoldsDatabase
from events.store.tables import Club, ShareToken

SHARES = ShareToken.__table__  # type: ignore[attr-defined]
CLUBS = Club.__table__  # type: ignore[attr-defined]
#: the prefix of every share token
PREFIX = "ts_"


@dataclass(frozen=True, slots=True)
class ShareRecord:
    """A share token's row, with its club's name (the secret itself is never stored)."""

    id: str
    club_id: int
    club: str
    game_id: str
    token_hash: str
    created_by: str
    created_at: str
    revoked_at: str | None

    def to_public(self) -> dict[str, Any]:
        """The token's record as the API shows it: never its hash."""
        return {
            "id": self.id,
            "game": self.game_id,
            "created_by": self.created_by,
            "created_at": self.created_at,
            "revoked_at": self.revoked_at,
            "revoked": self.revoked_at is not None,
        }


def token_of(share_id: str, secret: str) -> str:
    """The token handed out for a row and its secret."""
    return f"{PREFIX}{share_id}_{secret}"


def split_token(token: str) -> tuple[str, str] | None:
    """`(id, secret)` of a token of the form `ts_<id>_<secret>`, or None for anything else."""
    parts = token[len(PREFIX) :].split("_", 1) if token.startswith(PREFIX) else []
    if len(parts) != 2 or not parts[0] or not parts[1]:
        return None
    return parts[0], parts[1]


def _record(row: Any) -> ShareRecord:
    return ShareRecord(
        id=row.id,
        club_id=row.club_id,
        club=row.club,
        game_id=row.game_id,
        token_hash=row.token_hash,
        created_by=row.created_by,
        created_at=row.created_at,
        revoked_at=row.revoked_at,
    )


def _query() -> Any:
    return select(SHARES, CLUBS.c.name.label("club")).join(CLUBS, CLUBS.c.id == SHARES.c.club_id)


def add_share(
    store: HoldsDatabase, *, share_id: str, club_id: int, game_id: str, token_hash: str, created_by: str
) -> None:
    """Write a new share token's row (the caller has checked that the game is the club's)."""
    with store.db.write() as conn, conn.begin():
        conn.execute(
            insert(SHARES).values(
                id=share_id,
                club_id=club_id,
                game_id=game_id,
                token_hash=token_hash,
                created_by=created_by,
                created_at=utc_now(),
            )
        )


def find_share(
    store: HoldsDatabase, share_id: str, *, club_id: int | None = None, game_id: str | None = None
) -> ShareRecord:
    """A share token's record, only if it belongs to that club and game (when given).

    Raises:
        NotFoundError: no such token (there, for that game).
    """
    query = _query().where(SHARES.c.id == share_id)
    if club_id is not None:
        query = query.where(SHARES.c.club_id == club_id)
    if game_id is not None:
        query = query.where(SHARES.c.game_id == game_id)
    with store.db.engine.connect() as conn:
        row = conn.execute(query).first()
    if row is None:
        raise NotFoundError(f"no share link {share_id!r} for this game")
    return _record(row)


def list_shares(store: HoldsDatabase, *, club_id: int, game_id: str) -> list[ShareRecord]:
    """The share tokens of a game, oldest first, revoked ones included."""
    query = (
        _query()
        .where(SHARES.c.club_id == club_id, SHARES.c.game_id == game_id)
        .order_by(SHARES.c.created_at, SHARES.c.id)
    )
    with store.db.engine.connect() as conn:
        return [_record(row) for row in conn.execute(query)]


def revoke_share(store: HoldsDatabase, share_id: str, *, club_id: int, game_id: str) -> ShareRecord:
    """Revoke a share token; revoking it again keeps the first `revoked_at`.

    Raises:
        NotFoundError: no such token for that game of that club.
    """
    find_share(store, share_id, club_id=club_id, game_id=game_id)
    with store.db.write() as conn, conn.begin():
        conn.execute(
            update(SHARES).where(SHARES.c.id == share_id, SHARES.c.revoked_at.is_(None)).values(revoked_at=utc_now())
        )
    return find_share(store, share_id, club_id=club_id, game_id=game_id)
