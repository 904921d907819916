"""A club's players and standings (issue 20): one service call each.

- `GET /v1/players` (`name=`: by name or alias, any case), `POST /v1/players` (recorder).
- `GET /v1/players/{ref}`: the player's page as data: statistics, current ratings (provisional
  marked), the rating history with each change explained, their games. `ref` is an id, or a name
  or alias only one player of the club has.
- `PATCH /v1/players/{ref}` renames; `POST /v1/players/{ref}/merge` merges into `into`;
  `DELETE /v1/players/{ref}` erases the player's names everywhere they are shown (recorder).
- `GET /v1/standings?game=...`: the leaderboard over `since`/`until` or `event`/`round`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field

from api.deps import PrincipalDep, ServiceDep
from api.models import AUTH, BODY, errors
from api.queries import GameKind, Moment, stored_time
from api.requests import StrictJSONRoute

router = APIRouter(tags=["players"], route_class=StrictJSONRoute)

Name = Annotated[str, Field(min_length=1, max_length=100)]


class PlayerCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Name
    aliases: list[Name] = Field(default_factory=list, max_length=20)


class PlayerRename(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Name
    keep_alias: bool = Field(default=True, description="keep the old name as an alias")


class PlayerMerge(BaseModel):
    model_config = ConfigDict(extra="forbid")
    into: str = Field(min_length=1, max_length=100, description="the player kept (id, or a name only one has)")


@router.get("/v1/players", summary="The club's players", responses=errors(*AUTH))
def list_players(
    principal: PrincipalDep,
    service: ServiceDep,
    name: Annotated[str | None, Query(max_length=100, description="a name or alias, case-insensitive")] = None,
) -> dict[str, Any]:
    return {"players": [p.to_public() for p in service.players(principal, name=name)]}


@router.post("/v1/players", status_code=201, summary="Add a player", responses=errors(*AUTH, *BODY))
def create_player(body: PlayerCreate, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    return service.create_player(principal, body.name, body.aliases).to_public()


@router.get("/v1/players/{ref}", summary="A player's statistics, ratings and games", responses=errors(*AUTH, 404))
def get_player(
    ref: str,
    principal: PrincipalDep,
    service: ServiceDep,
    games: Annotated[int, Query(ge=0, le=1000, description="at most this many of their games, newest first")] = 100,
) -> dict[str, Any]:
    return service.player_profile(principal, ref, games=games)


@router.patch("/v1/players/{ref}", summary="Rename a player", responses=errors(*AUTH, *BODY, 404))
def rename_player(ref: str, body: PlayerRename, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    return service.rename_player(principal, ref, body.name, keep_alias=body.keep_alias).to_public()


@router.post("/v1/players/{ref}/merge", summary="Merge a player into another", responses=errors(*AUTH, *BODY, 404))
def merge_player(ref: str, body: PlayerMerge, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    return service.merge_players(principal, ref, body.into).to_public()


@router.delete("/v1/players/{ref}", summary="Erase a player's names", responses=errors(*AUTH, 404))
def erase_player(ref: str, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    record, report = service.erase_player_record(principal, ref)
    return {"player": record.to_public(), "games": report.games, "mentions": report.mentions}


@router.get("/v1/standings", summary="A club's leaderboard of one game", responses=errors(*AUTH))
def get_standings(
    principal: PrincipalDep,
    service: ServiceDep,
    game: Annotated[GameKind, Query(description="the game kind")],
    since: Annotated[Moment | None, Query(description="games created at or after")] = None,
    until: Annotated[Moment | None, Query(description="games created before")] = None,
    event: Annotated[str | None, Query(max_length=200, description="the event label, exactly")] = None,
    round: Annotated[str | None, Query(max_length=200, description="the round label, exactly")] = None,
) -> dict[str, Any]:
    return service.standings(
        principal, game.value, since=stored_time(since), until=stored_time(until), event=event, round=round
    )
