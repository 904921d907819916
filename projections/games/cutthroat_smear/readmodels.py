"""What the read models read of Cutthroat Smear (`GameRules.statistics`, `fact_owners`, `rating`): a
player's counts, whose a bid's fact is, and every player rated against every other by final rank when
the game ends."""

from __future__ import annotations

from projections.core.rating import HandContext, Rating, by_final_totals

POOL = "cutthroat-smear"

#: a player's page: label -> situation tag, counted at the player's own seat
STATISTICS = {"bids_made": "made_bid", "bids_set": "failed_bid"}
#: a bid made or set is the bidder's fact, though it comes with the hand's last play (another seat's)
FACT_OWNERS = {"made_bid": "bidder", "failed_bid": "bidder"}

RATING = Rating(pools={POOL: "Cutthroat Smear"}, matches=by_final_totals(POOL), context=HandContext)
