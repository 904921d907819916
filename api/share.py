"""Share links: read-only tokens that open one game's finished hands, and can be revoked.

A club hands a player or a director a link instead of a key. The token in it
looks like `ts_<id>_<secret>`: `<id>` names the `share_token` row, and only
sha256(`<secret>`) is kept there, as for API keys, so a copy of the database
gives no working link. The row binds the token to its game and club, records
who made it and when, and `revoked_at` ends it.

Readings:

- "Signed" is read as *unforgeable and checked by the server*: the secret
  is 192 random bits and is checked against its stored hash in constant
  time. A self-contained HMAC signature would add nothing here, since a
  revocable token must be looked up anyway, and it would need a server
  secret that every API process shares.
- A share token is a principal of the role `share` limited to its game
  (`api/deps.py` refuses any other game with 404 and any route that is not a
  read of the replay with 403) and to the hands that are over
  (`api/visibility.py`): a live hand is refused (403) on `/state` and
  `/replay`, and its events are withheld on `/events` and `/stream`.
- Tokens do not expire by themselves; revoke them. Revoking twice is not an
  error (the first `revoked_at` stays).
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, select, update

from api.auth import SHARE_ROLE, Principal, hash_secret
from events.codec import utc_now
from events.errors import NotFoundError, UnauthorizedError
from events.store import CLUBS, Store
from events.tables import ShareToken

SHARES = ShareToken.__table__  # type: ignore[attr-defined]
#: the prefix of every share token
PREFIX = "ts_"


@dataclass(frozen=True, slots=True)
class ShareRecord:
    """A share token's row (the secret itself is never stored)."""

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


def _write(store: Store) -> Any:
    """A write transaction (BEGIN IMMEDIATE on SQLite), as the store's own writes."""
    return store.engine.connect().execution_options(write=True)


def create_share(store: Store, *, club_id: int, game_id: str, created_by: str) -> tuple[ShareRecord, str]:
    """A new share token for `game_id`: its record and the token, which is shown only this once.

    Raises:
        NotFoundError: no such game in that club.
    """
    store.get_game(game_id, club_id)
    share_id = secrets.token_hex(6)
    secret = secrets.token_urlsafe(24)
    with _write(store) as conn, conn.begin():
        conn.execute(
            insert(SHARES).values(
                id=share_id,
                club_id=club_id,
                game_id=game_id,
                token_hash=hash_secret(secret),
                created_by=created_by,
                created_at=utc_now(),
            )
        )
    return find_share(store, share_id, club_id=club_id, game_id=game_id), f"{PREFIX}{share_id}_{secret}"


def find_share(store: Store, share_id: str, *, club_id: int | None = None, game_id: str | None = None) -> ShareRecord:
    """A share token's record, only if it belongs to that club and game (when given).

    Raises:
        NotFoundError: no such token (there, for that game).
    """
    query = _query().where(SHARES.c.id == share_id)
    if club_id is not None:
        query = query.where(SHARES.c.club_id == club_id)
    if game_id is not None:
        query = query.where(SHARES.c.game_id == game_id)
    with store.engine.connect() as conn:
        row = conn.execute(query).first()
    if row is None:
        raise NotFoundError(f"no share link {share_id!r} for this game")
    return _record(row)


def list_shares(store: Store, *, club_id: int, game_id: str) -> list[ShareRecord]:
    """The share tokens of a game, oldest first, revoked ones included."""
    query = (
        _query()
        .where(SHARES.c.club_id == club_id, SHARES.c.game_id == game_id)
        .order_by(SHARES.c.created_at, SHARES.c.id)
    )
    with store.engine.connect() as conn:
        return [_record(row) for row in conn.execute(query)]


def revoke_share(store: Store, share_id: str, *, club_id: int, game_id: str) -> ShareRecord:
    """Revoke a share token; revoking it again keeps the first `revoked_at`.

    Raises:
        NotFoundError: no such token for that game of that club.
    """
    find_share(store, share_id, club_id=club_id, game_id=game_id)
    with _write(store) as conn, conn.begin():
        conn.execute(
            update(SHARES).where(SHARES.c.id == share_id, SHARES.c.revoked_at.is_(None)).values(revoked_at=utc_now())
        )
    return find_share(store, share_id, club_id=club_id, game_id=game_id)


def authenticate_share(store: Store, token: str) -> Principal:
    """The principal of a share token: role `share`, limited to its game.

    Raises:
        UnauthorizedError: a malformed, unknown or revoked token.
    """
    parts = token[len(PREFIX) :].split("_", 1) if token.startswith(PREFIX) else []
    if len(parts) != 2 or not parts[0] or not parts[1]:
        raise UnauthorizedError("that is not a Tablebook share token (they look like ts_<id>_<secret>)")
    try:
        record = find_share(store, parts[0])
    except NotFoundError:
        record = None
    if record is None or not hmac.compare_digest(record.token_hash, hash_secret(parts[1])):
        raise UnauthorizedError("unknown share link")
    if record.revoked_at is not None:
        raise UnauthorizedError(f"this share link was revoked at {record.revoked_at}")
    return Principal(record.id, record.club_id, record.club, SHARE_ROLE, game_id=record.game_id)
