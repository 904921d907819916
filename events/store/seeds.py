"""The server seeds of server-dealt decks (`rules/server-deal.md`): the `server_seed` table.

A seed is written by the append that commits its deck (`EventRecorder.append(..., secrets=...)`, the
same transaction as the `deck_committed` event) and read back by the write side only: to deal a card
of its deck, and to reveal it once the hand is over. No route, export or log line reads it; the
reveal is the `deck_revealed` event, which is what publishes it.
"""

from __future__ import annotations

from dataclasses import dataclass

from events.store.base import Database


@dataclass(frozen=True, slots=True)
class SeedRow:
    """A deck's secret as the append writes it."""

    commitment: str
    hand: int
    #: the 32 secret bytes
    seed: bytes


INSERT = "INSERT INTO server_seed (game_id, commitment, hand, seed, created_at) VALUES (?, ?, ?, ?, ?)"
SELECT = "SELECT seed FROM server_seed WHERE game_id = ? AND commitment = ?"


class SeedVault:
    """Reads the `server_seed` table (the append writes it)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._select = db.sql(SELECT)

    def server_seed(self, game_id: str, commitment: str) -> bytes | None:
        """The secret of the deck with this commitment in this game (None: not held here, an imported game)."""
        rows = self.db.rows(self._select, (game_id, commitment))
        return bytes.fromhex(rows[0][0]) if rows else None
