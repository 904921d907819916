"""API keys: `tb_<id>_<secret>`; only sha256(secret) is stored, with the key's club and role.

Roles: `recorder` (create games, append, read), `viewer` (read; live hands
redacted), `auditor` (read everything, audit, and append the corrections
`retract`, `note`, `score_claimed`).

A share token (`ts_<id>_<secret>`) is a fourth kind of principal, with the role
`share`: it reads one game, and of that game only the hands that are over.
`authenticate` tells the two apart by the prefix.

Share links are read-only tokens that a club hands a player or a director
instead of a key. `<id>` names the `share_token` row, and only sha256(`<secret>`)
is kept there, as for API keys, so a copy of the database gives no working
link. The row binds the token to its game and club, records who made it and
when, and `revoked_at` ends it. Readings:

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

The rows and the token's form are the store's (`events/store/shares.py`, where the SQL is);
making, listing and revoking a link are use cases of the application service
(`api/service/shares.py`); what is here is the check of a credential that comes with a request,
which turns it into a `Principal`.

No process trusts a cached key or share token: every request looks its credential up in the database (one
row by primary key), so a key revoked by any API process or by `tablebook keys revoke` is refused by
the next request to every process. A TTL cache, however short, would let a revoked key read hidden
cards or append until it expired (tests/reliability/test_processes.py). The one use of a key's row read
on an earlier request (`SeenKeys`, `known_key`): an append on PostgreSQL sends it as what its own statement
checks in the database before it writes (`events.store.recorder.EventRecorder.append_checked`); a key that
changed writes nothing there, and the append then reads the key as every request does.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import weakref
from dataclasses import dataclass

from cachetools import LRUCache

from events.errors import ForbiddenError, NotFoundError, UnauthorizedError
from events.store import GameRecord, KeyRecord, Store
from events.store.shares import ShareRecord, find_share, split_token

ROLES = ("recorder", "viewer", "auditor")
#: the role of a share token's principal (never the role of a key)
SHARE_ROLE = "share"


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is asking: the key's id (not its secret), club and role.

    A share token's principal has the role `share`, its token id as `key_id`,
    and `game_id`, the one game it may read.
    """

    key_id: str
    club_id: int
    club: str
    role: str
    game_id: str | None = None

    @property
    def actor(self) -> str:
        return f"share:{self.key_id}" if self.is_share else f"key:{self.key_id}"

    @property
    def is_share(self) -> bool:
        """A share link: one game, its finished hands only, read-only."""
        return self.role == SHARE_ROLE

    @property
    def sees_everything(self) -> bool:
        return self.role in ("recorder", "auditor")

    def require(self, *roles: str) -> None:
        if self.role not in roles:
            raise ForbiddenError(
                f"{_a(self.role)} {self.role} key may not do this; it needs {_a(roles[0])} {' or '.join(roles)} key",
                role=self.role,
            )


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def create_key(store: Store, club: str, role: str, label: str = "") -> str:
    """Create a key for `club` (created if needed) and return it; it is shown only once."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}")
    club_id = store.ensure_club(club)
    key_id = secrets.token_hex(6)
    secret = secrets.token_urlsafe(24)
    store.add_key(key_id=key_id, club_id=club_id, role=role, key_hash=hash_secret(secret), label=label)
    return f"tb_{key_id}_{secret}"


def bearer_token(authorization: str | None) -> str:
    """The token of an `Authorization: Bearer <token>` header.

    Raises:
        UnauthorizedError: no header, or not the Bearer scheme.
    """
    if not authorization:
        raise UnauthorizedError("send your API key as 'Authorization: Bearer <key>'")
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise UnauthorizedError("the Authorization header must be 'Bearer <key>'")
    return token.strip()


def authenticate(store: Store, authorization: str | None) -> Principal:
    """The principal of an `Authorization: Bearer <key>` header (a key, or a share token).

    Raises:
        UnauthorizedError: no header, a malformed key, an unknown or revoked key or share token.
    """
    token = bearer_token(authorization)
    if token.startswith("ts_"):
        return authenticate_share(store, token)
    key_id, secret = _key_parts(token)
    return _principal(store.find_key(key_id), secret)


def authenticate_for_game(store: Store, authorization: str | None, game_id: str) -> tuple[Principal, GameRecord | None]:
    """`authenticate`, and the game a request names read in the same round trip: the game's row as it is in the
    database now if it is of the key's club, else None (not found, or another club's; a share token: None).

    Raises:
        UnauthorizedError: as `authenticate`.
    """
    token = bearer_token(authorization)
    if token.startswith("ts_"):
        return authenticate_share(store, token), None
    key_id, secret = _key_parts(token)
    record, game = store.find_key_and_game(key_id, game_id)
    seen = seen_keys(store)
    try:
        principal = _principal(record, secret)
    except UnauthorizedError:
        seen.drop(key_id)
        raise
    if record is not None:
        seen.put(record)
    return principal, game


class SeenKeys:
    """The rows of the keys this process found valid on a request that read them (`authenticate_for_game`), by
    id, the most recent `capacity`: what a later append by the same key expects the key's row to be still,
    which the append's statement checks (`known_key`). A key refused by a read is dropped."""

    def __init__(self, capacity: int = 1024) -> None:
        self._rows: LRUCache[str, KeyRecord] = LRUCache(maxsize=capacity)
        self._lock = threading.Lock()

    def get(self, key_id: str) -> KeyRecord | None:
        with self._lock:
            return self._rows.get(key_id)

    def put(self, record: KeyRecord) -> None:
        with self._lock:
            self._rows[record.id] = record

    def drop(self, key_id: str) -> None:
        with self._lock:
            self._rows.pop(key_id, None)


#: each store's `SeenKeys` (an app's, a test's: a key id means a row of one database)
_SEEN: weakref.WeakKeyDictionary[Store, SeenKeys] = weakref.WeakKeyDictionary()
_SEEN_LOCK = threading.Lock()


def seen_keys(store: Store) -> SeenKeys:
    """The keys `store`'s requests have read in this process (`SeenKeys`)."""
    seen = _SEEN.get(store)
    if seen is None:
        with _SEEN_LOCK:
            seen = _SEEN.setdefault(store, SeenKeys())
    return seen


def known_key(store: Store, authorization: str | None) -> tuple[Principal, KeyRecord] | None:
    """The principal of an `Authorization: Bearer <key>` header and the key's row as this process last read it
    (`SeenKeys`), if it read it and the secret matches its hash; else None (no header, a share token, a key
    not seen, another secret). Nothing here is checked against the database: the caller's statement checks the
    row (`Tablebook.append_checked`), and without it nothing is decided by this answer."""
    try:
        token = bearer_token(authorization)
    except UnauthorizedError:
        return None
    parts = token.split("_", 2)
    if len(parts) != 3 or parts[0] != "tb":
        return None
    record = seen_keys(store).get(parts[1])
    if record is None or record.revoked_at is not None:
        return None
    if not hmac.compare_digest(record.key_hash, hash_secret(parts[2])):
        return None
    return Principal(record.id, record.club_id, record.club, record.role), record


def _key_parts(token: str) -> tuple[str, str]:
    parts = token.split("_", 2)
    if len(parts) != 3 or parts[0] != "tb":
        raise UnauthorizedError("that is not a Tablebook key (they look like tb_<id>_<secret>)")
    return parts[1], parts[2]


def _principal(record: KeyRecord | None, secret: str) -> Principal:
    if record is None or not hmac.compare_digest(record.key_hash, hash_secret(secret)):
        raise UnauthorizedError("unknown API key")
    if record.revoked_at is not None:
        raise UnauthorizedError(f"this API key was revoked at {record.revoked_at}")
    return Principal(record.id, record.club_id, record.club, record.role)


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


def _a(word: str) -> str:
    """The article before a role's name: "an auditor", "a viewer"."""
    return "an" if word[:1] in "aeiou" else "a"
