"""Audits: the chain, flagged plays, retractions, and claims against the computed score."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from api.deps import PrincipalDep, RecorderDep
from api.models import BODY, GAME, AuditReport, ClaimComparison, errors
from api.requests import StrictJSONRoute
from events.errors import ImpossibleEventError, InvalidEventError
from events.schema import MAX_INT, MAX_POINTS
from projections.audit import audit_game, compare_claim

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
def get_audit(game_id: str, principal: PrincipalDep, recorder: RecorderDep) -> dict[str, Any]:
    """`{chain, violations, retractions, claims, notes, game_notes, score}`."""
    principal.require("auditor")
    game = recorder.store.get_game(game_id, principal.club_id)
    return audit_game(game, recorder.store.read_events(game_id))


@router.post(
    "",
    summary="Compare a claim with the computed score (auditor keys)",
    responses={200: {"model": ClaimComparison}, **errors(*GAME, *BODY)},
)
async def post_audit(game_id: str, body: ClaimCheck, principal: PrincipalDep, recorder: RecorderDep) -> dict[str, Any]:
    """The same comparison as for a recorded `score_claimed`, for a claim that is not recorded."""
    principal.require("auditor")
    live = recorder.live(game_id, principal.club_id)
    seats = [str(s) for s in range(live.state.seats)]
    if sorted(body.points) != sorted(seats):
        raise InvalidEventError(f"points must name every seat: {', '.join(seats)}", field="points")
    if body.hand is not None and body.hand > live.state.hand:
        raise ImpossibleEventError(f"hand {body.hand} has not begun (hands 1 to {live.state.hand})", field="hand")
    claimed = {k: (int(v) if float(v).is_integer() else v) for k, v in body.points.items()}
    return compare_claim(live.rules.score(live.state.game), list(live.game.players), claimed, body.hand)
