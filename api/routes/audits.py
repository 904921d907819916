"""Audits: the chain, flagged plays, retractions, and claims against the computed score.

Plain `def` routes, one service call each (`api/service/`): an audit re-folds the whole game.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from api.deps import PrincipalDep, ServiceDep
from api.models import BODY, GAME, AuditReport, ClaimComparison, errors
from api.requests import StrictJSONRoute
from events.schema import MAX_INT, MAX_POINTS

router = APIRouter(prefix="/v1/games/{game_id}/audit", tags=["audits"], route_class=StrictJSONRoute)

#: a seat's claimed points: a JSON number (not true, not "1"), finite, within the bounds of a
#: `score_claimed` event's points (`events.schema.number`)
Points = Annotated[float, Field(strict=True, allow_inf_nan=False, ge=-MAX_POINTS, le=MAX_POINTS)]


class ClaimCheck(BaseModel):
    """A claim not recorded: a hand's points, or the totals when `hand` is left out; every seat named."""

    model_config = ConfigDict(extra="forbid")

    hand: Annotated[int | None, Field(ge=1, le=MAX_INT)] = None
    points: dict[str, Points]


@router.get("", summary="The audit of a game (auditor keys)", responses={200: {"model": AuditReport}, **errors(*GAME)})
def get_audit(game_id: str, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    """`{chain, violations, retractions, claims, notes, game_notes, score}`."""
    return service.audit(principal, game_id)


@router.post(
    "",
    summary="Compare a claim with the computed score (auditor keys)",
    responses={200: {"model": ClaimComparison}, **errors(*GAME, *BODY)},
)
def post_audit(game_id: str, body: ClaimCheck, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    """The same comparison as for a recorded `score_claimed`, for a claim that is not recorded."""
    return service.compare_claim(principal, game_id, points=body.points, hand=body.hand)
