"""What the read models read of Casino (`GameRules.statistics`, `GameRules.rating`): a player's counts, and
every player rated against every other by final rank when the game ends."""

from __future__ import annotations

from projections.core.rating import HandContext, Rating, by_final_totals

POOL = "casino"

#: a player's page: label -> situation tag, counted at the player's own seat
STATISTICS = {"sweeps": "sweep", "builds": "build"}

RATING = Rating(pools={POOL: "Casino"}, matches=by_final_totals(POOL), context=HandContext)
