"""What the read models read of Schnapsen (`GameRules.statistics`, `GameRules.rating`): a player's counts,
and the winner rated against the loser when the game ends."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from projections.core.rating import HandContext, Match, Rating

POOL = "schnapsen"

#: a player's page: label -> situation tag, counted at the player's own seat
STATISTICS = {"marriages": "marriage", "closes": "close", "failed_closes": "failed_close"}


def _matches(seats: int, envelope: Mapping[str, Any], context: HandContext) -> list[Match]:
    result = envelope.get("result") or {}
    if not result.get("game_ended"):
        return []
    winner = result.get("winner")
    if not isinstance(winner, int):
        return []
    ranks = (0, 1) if winner == 0 else (1, 0)
    return [Match(envelope["hand"], envelope["seq"], ((0,), (1,)), (POOL, POOL), ranks)]


RATING = Rating(pools={POOL: "Schnapsen"}, matches=_matches, context=HandContext)
