"""The folded game: the table at a seq from a seat, the score, the chain check."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from api.deps import PrincipalDep, RecorderDep
from api.models import GAME, ScoreSheet, StateDocument, VerifyReport, errors
from api.visibility import sight_of, viewpoint_for
from projections.engine import render_state
from projections.verify import verify_game

router = APIRouter(prefix="/v1/games/{game_id}", tags=["tables"])


@router.get(
    "/state", summary="The table at a seq, from a seat", responses={200: {"model": StateDocument}, **errors(*GAME)}
)
async def get_state(
    game_id: str,
    principal: PrincipalDep,
    recorder: RecorderDep,
    at: Annotated[int | None, Query(ge=0, description="the seq to show (default: the head)")] = None,
    seat: Annotated[int | None, Query(ge=0, le=7, description="the seat to look from (default: everything)")] = None,
) -> dict[str, Any]:
    """`{game, seq, hand, phase, to_act, seats, table, hand_points, totals}`."""
    live, state = recorder.state_at(game_id, at, principal.club_id)
    viewpoint = viewpoint_for(sight_of(principal, recorder.store, live), seat, state.seats, state.hand)
    return render_state(live.rules, state, viewpoint, live.game.players)


@router.get(
    "/score",
    summary="The score, every point explained",
    responses={200: {"model": ScoreSheet}, **errors(401, 404, 422)},
)
async def get_score(game_id: str, principal: PrincipalDep, recorder: RecorderDep) -> dict[str, Any]:
    """`{totals, finished, winner, hands: [{hand, points, lines: [{seat, points, rule, reason, events}]}]}`."""
    live = recorder.live(game_id, principal.club_id)
    return live.rules.score(live.state.game).to_dict()


@router.get(
    "/verify",
    summary="Re-walk the hash chain and re-run the rules",
    responses={200: {"model": VerifyReport}, **errors(*GAME)},
)
def verify(game_id: str, principal: PrincipalDep, recorder: RecorderDep) -> dict[str, Any]:
    """`{ok, events, head_hash, problems}`; the first problem names the first bad seq.

    A reader not shown every card (a viewer while a hand is hidden) gets `head_hash: null` and each
    problem without its hashes: they are hashes over hidden cards (see `api/visibility.py`).
    """
    live = recorder.live(game_id, principal.club_id)
    # every stored row, also any past the head the game's row names: a forged row appended there is found
    report = verify_game(live.game, recorder.store.iter_events(game_id)).to_dict()
    sight = sight_of(principal, recorder.store, live)
    if sight.hashes_from is not None:
        report["head_hash"] = None
        report["problems"] = [{k: v for k, v in p.items() if "hash" not in k} for p in report["problems"]]
    return report
