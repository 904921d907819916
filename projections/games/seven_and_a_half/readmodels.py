"""What the read models read of Seven and a Half (`GameRules.statistics`, `GameRules.rating`): a player's
counts, and every settled hand rated: each punter who staked against the banker, one pair after another
by seat, the bankers and the punters in pools apart. A punter's points decide the pair: won, lost, or a
tie."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from projections.core.rating import HandContext, Match, Rating

BANKER_POOL = "seven-and-a-half.banker"
PUNTER_POOL = "seven-and-a-half.punter"

#: a player's page: label -> situation tag, counted at the player's own seat
STATISTICS = {"sevens_and_a_half": "seven_and_a_half", "busts": "bust"}


@dataclass(slots=True)
class BankContext(HandContext):
    """The banker of the hand in progress and who has staked: from its bets (the first names the banker)."""

    #: the banker's seat, and the seq of the event that named it
    banker: tuple[int, int] | None = None
    #: seat -> the seq of its first stake
    stakes: dict[int, int] = field(default_factory=dict)

    def observe(self, envelope: Mapping[str, Any]) -> None:
        # called by the ratings for every bet and every settling event they read (a rebuild: about four a
        # hand), so each key is looked up once, and a `data` only where it is read (a retract's, a bet's)
        if envelope["hand"] != self.hand:
            self.hand, self.banker, self.stakes = envelope["hand"], None, {}
        kind = envelope["type"]
        if kind == "retract":
            floor = (envelope.get("data") or {})["to_seq"]
            self.stakes = {s: q for s, q in self.stakes.items() if q <= floor}
            if self.banker is not None and self.banker[1] > floor:
                self.banker = None
            return
        seq, result = envelope["seq"], envelope.get("result")
        if result:
            banker = result.get("banker")
            if isinstance(banker, int):
                self.banker = (banker, seq)
        if kind == "bet":
            seat = (envelope.get("data") or {}).get("seat")
            if isinstance(seat, int):
                self.stakes.setdefault(seat, seq)


#: the pools of a pair, the punter's first
PAIR_POOLS = (PUNTER_POOL, BANKER_POOL)


def _matches(seats: int, envelope: Mapping[str, Any], context: BankContext) -> list[Match]:
    result = envelope.get("result") or {}
    if not result.get("hand_ended") or result.get("voided") or context.banker is None:
        return []
    banker = context.banker[0]
    points = result.get("points") or {}
    hand, seq, against = envelope["hand"], envelope["seq"], (banker,)  # the same for every pair of the hand
    found = []
    for punter in sorted(context.stakes):
        if punter == banker:
            continue
        won = int(points.get(str(punter), 0))
        ranks = (0, 0) if won == 0 else ((0, 1) if won > 0 else (1, 0))
        found.append(Match(hand, seq, ((punter,), against), PAIR_POOLS, ranks))
    return found


RATING = Rating(
    pools={BANKER_POOL: "Seven and a Half, as banker", PUNTER_POOL: "Seven and a Half, as punter"},
    matches=_matches,
    context=BankContext,
    per_hand=True,
    roles={BANKER_POOL: "banker", PUNTER_POOL: "punter"},
    context_types=frozenset({"bet"}),
    context_data=frozenset({"bet"}),
    # the bets: each seat's stake, and the first names the banker
    read_types=("bet",),
)
