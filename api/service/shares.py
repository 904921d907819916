"""Share links: make, list and revoke the read-only tokens of one game (`/v1/games/{id}/shares`).

The rows and the token's form are the store's (`events/store/shares.py`); the check of a token that
comes with a request is `api/auth.py`'s.
"""

from __future__ import annotations

import secrets

from api.service.base import Service, own_club
from events.codec import sha256_hex
from events.store import shares
from projections.reading.visibility import Reader


class Shares(Service):
    """A game's share links."""

    def create_share(self, reader: Reader, game_id: str) -> tuple[shares.ShareRecord, str]:
        """A new share token for a game of the reader's club: its record and the token, shown only this once.

        The secret is 192 random bits; only its sha256 is stored (`events/store/shares.py`).

        Raises:
            ForbiddenError: not a recorder or auditor key.
            NotFoundError: no such game in that club.
        """
        reader.require("recorder", "auditor")
        club_id = own_club(reader)
        self.store.get_game(game_id, club_id)
        share_id, secret = secrets.token_hex(6), secrets.token_urlsafe(24)
        shares.add_share(
            self.store,
            share_id=share_id,
            club_id=club_id,
            game_id=game_id,
            token_hash=sha256_hex(secret.encode()),
            created_by=reader.actor,
        )
        record = shares.find_share(self.store, share_id, club_id=club_id, game_id=game_id)
        return record, shares.token_of(share_id, secret)

    def list_shares(self, reader: Reader, game_id: str) -> list[shares.ShareRecord]:
        """Every share token of a game of the reader's club, oldest first, revoked ones included."""
        reader.require("recorder", "auditor")
        club_id = own_club(reader)
        self.store.get_game(game_id, club_id)
        return shares.list_shares(self.store, club_id=club_id, game_id=game_id)

    def revoke_share(self, reader: Reader, game_id: str, share_id: str) -> shares.ShareRecord:
        """Revoke a share token of a game of the reader's club; revoking it again changes nothing."""
        reader.require("recorder", "auditor")
        club_id = own_club(reader)
        self.store.get_game(game_id, club_id)
        return shares.revoke_share(self.store, share_id, club_id=club_id, game_id=game_id)
