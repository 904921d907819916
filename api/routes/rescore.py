"""Re-scoring: a recorded game, or a season of a club's games, scored under other rules; nothing written.

`POST /v1/games/{id}/rescore` with `options` (on top of the game's own) or a rule `profile` of the
club: options that only change scoring re-score every hand, with the lines that changed; options
that change play replay the events until the first one refused ("diverges at seq N: rule R"), with
the score up to there. `POST /v1/rescore` does it for every game of the club matching the filters of
`GET /v1/games`, streamed as NDJSON (one line per game, then the season's standings under both sets
of rules). The work is `api/service/rescore.py`'s, on the service's store; the record is only read.
"""

from __future__ import annotations

import itertools
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, Query
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from api.deps import PrincipalDep, ServiceDep
from api.models import AUTH, BODY, GAME, Doc, ScoreSheet, errors
from api.queries import GameFiltersDep
from api.requests import StrictJSONRoute
from api.service import rescore

router = APIRouter(tags=["rescore"], route_class=StrictJSONRoute)

NDJSON = "application/x-ndjson"


class RescoreRequest(BaseModel):
    """The rules to score the game under: `options` (on top of its own), or a `profile` of the club (then
    `options` on top of the profile's). A seating option (who dealt first) is the record's."""

    model_config = ConfigDict(extra="forbid")

    options: dict[str, Any] = Field(default_factory=dict, examples=[{"gin_scoring": "flat"}])
    profile: str | None = Field(default=None, max_length=80, examples=["tuesday"])


class Divergence(Doc):
    seq: int = Field(description="the first recorded event the new rules refuse")
    hand: int
    rule: str
    code: str = Field(description="illegal, impossible or invalid")
    options: list[str] = Field(description="the changed options it is put down to")
    text: str = Field(description="`diverges at seq N: rule R`")
    message: str = Field(description="the refusal, for people (names, card glyphs)")


class LineChange(Doc):
    hand: int
    seat: int
    rule: str
    change: int = Field(description="the seat's points on this line after minus before")
    before: dict[str, Any] | None = Field(description="the recorded line (null: the re-score added it)")
    after: dict[str, Any] | None = Field(description="the re-scored line (null: the re-score has none)")


class RescoreDoc(Doc):
    game: str
    kind: str
    players: list[str]
    profile: str | None
    mode: Literal["scoring", "play"]
    options: dict[str, Any] = Field(description="`{recorded, rescored, changed: {option: {from, to, kind}}}`")
    head: dict[str, Any] = Field(
        description="`{seq, hash}` of the record read, unchanged by the re-score (a viewer: the hands before the "
        "live one, and no hash)"
    )
    upto: int = Field(description="the last seq replayed: the head, or the seq before the divergence")
    divergence: Divergence | None
    violations: list[dict[str, Any]]
    totals: dict[str, Any] = Field(description="`{recorded, rescored, difference}`, by seat, at `upto`")
    winner: dict[str, Any]
    finished: dict[str, Any]
    hands: list[dict[str, Any]]
    lines: list[LineChange]
    summary: str
    recorded: ScoreSheet
    rescored: ScoreSheet


class SeasonRequest(BaseModel):
    """The rules of a season's re-score: side `b` is the `profile` (with `games`, options per game, on top);
    side `a` is the record as it stands, or the profile `against`."""

    model_config = ConfigDict(extra="forbid")

    profile: str | None = Field(default=None, max_length=80, examples=["tuesday"])
    games: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="options per game, on top of the profile",
        examples=[{"casino": {"sweeps": True}}],
    )
    against: str | None = Field(default=None, max_length=80, description="a profile for side a (default: the record)")


@router.post(
    "/v1/games/{game_id}/rescore",
    response_model=RescoreDoc,
    summary="The game's score under other options or a rule profile (nothing written)",
    responses=errors(*GAME, *BODY),
)
def rescore_game(
    game_id: str, principal: PrincipalDep, service: ServiceDep, body: RescoreRequest | None = None
) -> dict[str, Any]:
    """Scoring-only options: every hand scored again, with the lines that changed (by how much, why).
    Play options: the events replayed until the first the new rules refuse, `divergence` saying
    "diverges at seq N: rule R", and the score up to there beside the record's at the same seq. A viewer
    gets the hands finished before the live one."""
    asked = body or RescoreRequest()
    done = service.rescore(principal, game_id, options=asked.options, profile=asked.profile)
    return done.to_dict()


@router.post(
    "/v1/rescore",
    summary="A season: the club's games re-scored under a profile, streamed (nothing written)",
    response_class=StreamingResponse,
    responses={
        200: {"content": {NDJSON: {"schema": {"type": "string"}}}, "description": "NDJSON lines"},
        **errors(*AUTH, 404, *BODY),
    },
)
def rescore_season(
    principal: PrincipalDep,
    service: ServiceDep,
    filters: GameFiltersDep,
    body: SeasonRequest | None = None,
    limit: Annotated[int, Query(ge=1, le=rescore.MAX_SEASON)] = rescore.MAX_SEASON,
) -> StreamingResponse:
    """The games matching the filters of `GET /v1/games`, newest first, one line each as it is done:
    `{game, kind, players, created_at, a: {totals, winner, winner_name, finished}, b: {..., changed,
    divergence}}` (or `error`); the last line `{"season": {games, labels, players: [{player, games, wins_a,
    wins_b}]}}`: the standings (wins) under both sets of rules, side by side."""
    asked = body or SeasonRequest()
    lines = service.rescore_season(
        principal,
        profile=asked.profile,
        games=asked.games,
        against=asked.against,
        limit=limit,
        **filters,
    )
    encoded = (orjson.dumps(line) + b"\n" for line in lines)
    first = next(encoded, b"")  # the first game is read before the answer starts: an error is a status, not a cut
    return StreamingResponse(itertools.chain((first,), encoded), media_type=NDJSON)
