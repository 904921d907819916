"""What the read models read of Gin Rummy for three (`GameRules.statistics`, `GameRules.rating`): a
player's counts, and every scored hand rated: the box against the team of captain and sitter (the roles
of that hand, which its deal or cut names); a drawn or voided hand is not rated."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from projections.core.rating import HandContext, Match, Rating

POOL = "gin-rummy-3"
ROLES = ("box", "captain", "sitter")

#: a player's page: label -> situation tag, counted at the player's own seat
STATISTICS = {"knocks": "knock", "gins": "gin", "undercuts": "undercut"}


@dataclass(slots=True)
class RolesContext(HandContext):
    """The roles of the hand in progress, from the result of its deal (or the cut) that names them."""

    roles: dict[str, int] | None = None

    def observe(self, envelope: Mapping[str, Any]) -> None:
        if envelope["hand"] != self.hand:
            self.hand, self.roles = envelope["hand"], None
        if envelope["type"] == "retract":
            return
        result = envelope.get("result")
        if not result:
            return
        # the three of `ROLES` by name, without a loop: the ratings call this for every deal, cut and
        # scored hand they read
        box, captain, sitter = result.get("box"), result.get("captain"), result.get("sitter")
        if isinstance(box, int) and isinstance(captain, int) and isinstance(sitter, int):
            self.roles = {"box": box, "captain": captain, "sitter": sitter}


def _matches(seats: int, envelope: Mapping[str, Any], context: RolesContext) -> list[Match]:
    result = envelope.get("result") or {}
    if not result.get("hand_ended") or "box_won" not in result or context.roles is None:
        return []
    roles = context.roles
    ranks = (0, 1) if result["box_won"] else (1, 0)
    sides = ((roles["box"],), (roles["captain"], roles["sitter"]))
    return [Match(envelope["hand"], envelope["seq"], sides, (POOL, POOL), ranks)]


RATING = Rating(
    pools={POOL: "Gin Rummy for three"},
    matches=_matches,
    context=RolesContext,
    per_hand=True,
    context_types=frozenset({"cut", "deal"}),
    # the deal and the cut name the roles in their result (most of a deal's bytes is its data, left unread)
    read_marks=('"captain"',),
)
