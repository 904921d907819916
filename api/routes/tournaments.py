"""Events: club evenings and tournaments (issue 33; docs/tournaments.md). Thin: each route is one call of
`api/service/tournaments.py`.

- `POST /v1/events` (recorder): a new event, its movement planned and, with `boards`, its board set
  committed; `GET /v1/events`, `GET /v1/events/{id}`.
- `POST /v1/events/{id}/rounds/{n}/start`: the round's table games; `POST /v1/events/{id}/rounds`: the
  next Swiss round; `POST /v1/events/{id}/rounds/{n}/close`; `POST /v1/events/{id}/seeds`;
  `POST /v1/events/{id}/tables` (a `free` event takes a game recorded already).
- `GET /v1/events/{id}/results` (`format=json|csv`): travellers, matchpoints, IMPs and the standings.
- `GET /v1/events/{id}/export`: the whole record in one document; `POST /v1/import/event` takes it.
"""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from api.deps import PrincipalDep, ServiceDep
from api.models import AUTH, BODY, errors
from api.requests import PlayerName, StrictJSONRoute
from api.service.tournaments import MAX_BOARDS, MAX_PLAYERS, MAX_ROUNDS
from events.errors import InvalidEventError
from projections.core.registry import KINDS
from projections.tournaments.compare import SCORINGS
from projections.tournaments.movements import METHODS

router = APIRouter(tags=["events"], route_class=StrictJSONRoute)

#: an event's answers are documents of many shapes (rounds, tables, the board set): an object
EventDoc = dict[str, Any]
ONE = (401, 403, 404, 422)


class EventCreate(BaseModel):
    """A new event: its players in the event's order (its seeding), the game, the movement and the boards."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=80, examples=["Tuesday club evening"])
    kind: Literal["evening", "tournament"] = Field(default="evening")
    game: str = Field(description="one of: " + ", ".join(KINDS), examples=["schnapsen"])
    players: list[PlayerName] = Field(min_length=2, max_length=MAX_PLAYERS, examples=[["Anna", "Ben", "Cleo", "Dan"]])
    seats: int | None = Field(default=None, ge=2, le=8, description="players at a table (default: the game's)")
    movement: Literal[METHODS] = Field(  # type: ignore[valid-type]
        default="round-robin", description="who sits where: " + ", ".join(METHODS)
    )
    rounds: int = Field(default=1, ge=0, le=MAX_ROUNDS)
    options: dict[str, Any] = Field(default_factory=dict, description="every table's game options")
    boards: int = Field(
        default=0, ge=0, le=MAX_BOARDS, description="duplicate boards a round (0: each table deals its own)"
    )
    scoring: Literal[SCORINGS] | None = Field(  # type: ignore[valid-type]
        default=None, description="matchpoints or imps (duplicate), wins (default without boards)"
    )


class SeedAdd(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seed: str = Field(min_length=1, max_length=64)


class TableAttach(BaseModel):
    model_config = ConfigDict(extra="forbid")
    game_id: str = Field(min_length=1, max_length=32)
    round: int = Field(ge=1, le=MAX_ROUNDS)
    table: int = Field(ge=1, le=MAX_PLAYERS)


@router.post(
    "/v1/events", status_code=201, response_model=EventDoc, summary="Create an event", responses=errors(*AUTH, *BODY)
)
def create_event(body: EventCreate, principal: PrincipalDep, service: ServiceDep) -> EventDoc:
    """A club evening or a tournament: its movement planned (Swiss: round 1, the rest paired from the
    standings), and with `boards` its duplicate board set dealt once and committed (`board_set.commitment`)."""
    return service.create_event(
        principal,
        name=body.name,
        kind=body.kind,
        game=body.game,
        players=body.players,
        seats=body.seats,
        movement=body.movement,
        rounds=body.rounds,
        options=body.options,
        boards=body.boards,
        scoring=body.scoring or ("matchpoints" if body.boards else "wins"),
    )


@router.get("/v1/events", response_model=EventDoc, summary="List the club's events", responses=errors(*AUTH))
def list_events(principal: PrincipalDep, service: ServiceDep) -> EventDoc:
    return {"events": service.list_events(principal)}


@router.get("/v1/events/{event_id}", response_model=EventDoc, summary="An event", responses=errors(*ONE))
def get_event(event_id: str, principal: PrincipalDep, service: ServiceDep) -> EventDoc:
    return service.event(principal, event_id)


@router.post(
    "/v1/events/{event_id}/rounds/{number}/start",
    response_model=EventDoc,
    summary="Start a round: create its table games",
    responses=errors(*ONE, *BODY),
)
def start_round(event_id: str, number: int, principal: PrincipalDep, service: ServiceDep) -> EventDoc:
    return service.start_round(principal, event_id, number)


@router.post(
    "/v1/events/{event_id}/rounds",
    status_code=201,
    response_model=EventDoc,
    summary="Pair the next Swiss round",
    responses=errors(*ONE, *BODY),
)
def pair_round(event_id: str, principal: PrincipalDep, service: ServiceDep) -> EventDoc:
    return service.pair_round(principal, event_id)


@router.post(
    "/v1/events/{event_id}/rounds/{number}/close",
    response_model=EventDoc,
    summary="Close a round (its boards are revealed)",
    responses=errors(*ONE, *BODY),
)
def close_round(event_id: str, number: int, principal: PrincipalDep, service: ServiceDep) -> EventDoc:
    return service.close_round(principal, event_id, number)


@router.post(
    "/v1/events/{event_id}/seeds",
    response_model=EventDoc,
    summary="Add randomness to the board set",
    responses=errors(*ONE, *BODY),
)
def add_seed(event_id: str, body: SeedAdd, principal: PrincipalDep, service: ServiceDep) -> EventDoc:
    return service.add_seed(principal, event_id, body.seed)


@router.post(
    "/v1/events/{event_id}/tables",
    response_model=EventDoc,
    summary="Attach a recorded game as a table",
    responses=errors(*ONE, *BODY),
)
def attach_table(event_id: str, body: TableAttach, principal: PrincipalDep, service: ServiceDep) -> EventDoc:
    return service.attach(principal, event_id, body.game_id, body.round, body.table)


@router.get(
    "/v1/events/{event_id}/results",
    response_model=EventDoc,
    summary="Travellers, matchpoints and standings",
    responses={200: {"content": {"text/csv": {"schema": {"type": "string"}}}}, **errors(*ONE)},
)
def results(
    event_id: str,
    principal: PrincipalDep,
    service: ServiceDep,
    format: Annotated[Literal["json", "csv"], Query()] = "json",
) -> Any:
    """Every board revealed (every table of its round has finished it) side by side, with each seat's
    matchpoints and difference score, and the standings with their tie-breaks, each cell naming its game,
    hand and events."""
    if format == "csv":
        return Response(
            service.results_csv(principal, event_id),
            media_type="text/csv",
            headers={"Content-Disposition": f'attachment; filename="{event_id}-results.csv"'},
        )
    return service.results(principal, event_id)


@router.get(
    "/v1/events/{event_id}/export",
    response_class=Response,
    summary="The event's whole record, one document",
    responses={200: {"content": {"application/json": {"schema": {"type": "object"}}}}, **errors(*ONE)},
)
def export_event(event_id: str, principal: PrincipalDep, service: ServiceDep) -> Response:
    """`tablebook-event-v1`: the event, its board set and every table's json export;
    `python3 fairdeal.py event.json` checks every table's deals against the set."""
    return Response(
        service.export_event(principal, event_id),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{event_id}-event.json"'},
    )


@router.post(
    "/v1/import/event",
    status_code=201,
    response_model=EventDoc,
    summary="Import an event's whole record",
    responses=errors(*AUTH, *BODY),
    openapi_extra={"requestBody": {"content": {"application/json": {"schema": {"type": "object"}}}}},
)
async def import_event(request: Request, principal: PrincipalDep, service: ServiceDep) -> EventDoc:
    """A new event from `GET /v1/events/{id}/export`: its board set and every table's deals checked, every
    table game imported (its chain and rules checked) and linked. 422 and nothing of the event written when
    something does not check out."""
    principal.require("recorder")
    body = await request.body()
    if not body.strip():
        raise InvalidEventError("the request body is empty: send an event export", field="body")
    return await run_in_threadpool(partial(service.import_event, principal, body))
