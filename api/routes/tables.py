"""The folded game: the table at a seq from a seat, the score, the chain check."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from api.deps import PrincipalDep, ServiceDep
from api.models import GAME, ScoreSheet, VerifyReport, errors
from api.state_models import StateDocument

router = APIRouter(prefix="/v1/games/{game_id}", tags=["tables"])


@router.get(
    "/state", summary="The table at a seq, from a seat", responses={200: {"model": StateDocument}, **errors(*GAME)}
)
def get_state(
    game_id: str,
    principal: PrincipalDep,
    service: ServiceDep,
    at: Annotated[int | None, Query(ge=0, description="the seq to show (default: the head)")] = None,
    seat: Annotated[int | None, Query(ge=0, le=7, description="the seat to look from (default: everything)")] = None,
) -> dict[str, Any]:
    """`{game, seq, hand, phase, to_act, seats, table, hand_points, totals}`."""
    return service.state(principal, game_id, at=at, seat=seat)


@router.get(
    "/score",
    summary="The score, every point explained",
    responses={200: {"model": ScoreSheet}, **errors(401, 404, 422)},
)
def get_score(game_id: str, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    """`{totals, finished, winner, hands: [{hand, points, lines: [{seat, points, rule, reason, events}]}]}`."""
    return service.score(principal, game_id).sheet.to_dict()


@router.get(
    "/verify",
    summary="Re-walk the hash chain and re-run the rules",
    responses={200: {"model": VerifyReport}, **errors(*GAME)},
)
def verify(game_id: str, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    """`{ok, events, head_hash, problems}`; the first problem names the first bad seq.

    A reader not shown every card (a viewer while a hand is hidden) gets `head_hash: null` and each
    problem without its hashes: they are hashes over hidden cards (see `projections/reading/visibility.py`).
    """
    return service.verify(principal, game_id)
