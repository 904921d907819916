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
  (`projections/reading/visibility.py`): a live hand is refused (403) on `/state` and
  `/replay`, and its events are withheld on `/events` and `/stream`.
- Tokens do not expire by themselves; revoke them. Revoking twice is not an
  error (the first `revoked_at` stays).

Where things are: the rows and the token's form are the store layer's (`events/store/shares.py`, where the
SQL is); making, listing and revoking a link are use cases of the application service
(`api/service/`); what is left here is the check of a token that comes with a request,
which turns it into a `Principal`.
"""

from __future__ import annotations

import hmac

from api.auth import SHARE_ROLE, Principal, hash_secret
from events.errors import NotFoundError, UnauthorizedError
from events.store import Store
from events.store.shares import PREFIX, ShareRecord, find_share, split_token

__all__ = ["PREFIX", "ShareRecord", "authenticate_share"]


def authenticate_share(store: Store, token: str) -> Principal:
    """The principal of a share token: role `share`, limited to its game.

    Raises:
        UnauthorizedError: a malformed, unknown or revoked token.
    """
    parts = split_token(token)
    if parts is None:
        raise UnauthorizedError("that is not a Tablebook share token (they look like ts_<id>_<secret>)")
    try:
        record: ShareRecord | None = find_share(store, parts[0])
    except NotFoundError:
        record = None
    if record is None or not hmac.compare_digest(record.token_hash, hash_secret(parts[1])):
        raise UnauthorizedError("unknown share link")
    if record.revoked_at is not None:
        raise UnauthorizedError(f"this share link was revoked at {record.revoked_at}")
    return Principal(record.id, record.club_id, record.club, SHARE_ROLE, game_id=record.game_id)
