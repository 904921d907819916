"""Server deals (`rules/server-deal.md`): a game's commitments and their checks, and the club's fairness report.

Plain `def` routes, one service call each (`api/service/`): both re-read and re-shuffle. Neither
is a route of a share link (`GET /v1/games/{id}/deals` refuses one with 403, as every route outside the
replay's seven does).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from api.deps import PrincipalDep, ServiceDep
from api.models import AUTH, GAME, errors
from events.errors import ForbiddenError

router = APIRouter(tags=["deals"])


@router.get(
    "/v1/games/{game_id}/deals",
    summary="Each hand's deck commitment and, once revealed, whether its deal checks",
    responses=errors(*GAME),
)
def get_deals(game_id: str, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    """`{game, server_dealt, algorithm, genesis, ok, hands: [{hand, commitment, seeds, revealed, server_seed,
    verified, cards_checked}], first_problem}`: what `fairdeal.py` (docs/server-deal.md) finds in the record.
    A hand's server seed is shown only once the record reveals it. Keys only: a share link reads the seven
    routes of a replay the README names, and this is none of them (403)."""
    if principal.is_share:
        raise ForbiddenError("a share link only reads its game's replay (finished hands)", role=principal.role)
    return service.deals(principal, game_id)


@router.get(
    "/v1/deals/report",
    summary="The fairness report of the club's server deals",
    responses=errors(*AUTH),
)
def get_report(
    principal: PrincipalDep,
    service: ServiceDep,
    game: Annotated[str | None, Query(description="one game kind (default: every kind)", max_length=32)] = None,
) -> dict[str, Any]:
    """`{club, algorithm, kinds: [{game, games, hands, deck_size, patterns, positions}]}`: over every revealed
    server-dealt hand, the suit patterns of the seats' hands and each card's position in the deck against
    the exact probabilities, each with a chi-square and its p-value."""
    return service.deals_report(principal, kind=game)
