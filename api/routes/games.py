"""Games: create one, list and search a club's games, read one's metadata.

Search by situation (`has=sweep`) is served by the hand-facts read model
(`projections/readmodel.py`): the route first lets it catch up with the
event log (one indexed read when nothing is new), so a search sees every
committed event, then answers from the `hand_fact` table.
"""

from __future__ import annotations

import base64
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

from api.deps import PrincipalDep, RecorderDep
from api.models import AUTH, BODY, errors
from api.queries import SINCE, UNTIL, GameKind, Moment, stored_time
from api.requests import StrictJSONRoute
from events.errors import InvalidEventError
from events.schema import unstorable
from events.store import GameRecord
from projections.readmodel import KNOWN, HandFacts, check_situations
from projections.registry import KINDS

router = APIRouter(prefix="/v1/games", tags=["games"], route_class=StrictJSONRoute)


def _storable(name: str) -> str:
    """A player's name, refused (422, naming its place) when the store cannot hold it: a NUL."""
    problem = unstorable(name)
    if problem:
        raise PydanticCustomError("unstorable", "the name {problem}", {"problem": problem})
    return name


#: a player's name: 1 to 100 characters that any store can hold
PlayerName = Annotated[str, Field(min_length=1, max_length=100), AfterValidator(_storable)]


class GameCreate(BaseModel):
    """A new game: its kind, its players in seat order (clockwise), its options."""

    model_config = ConfigDict(extra="forbid")

    game: str = Field(description="one of: " + ", ".join(KINDS), examples=["schnapsen"])
    players: list[PlayerName] = Field(
        min_length=1, max_length=8, description="names in seat order: seat 0, 1, ...", examples=[["Anna", "Ben"]]
    )
    options: dict[str, Any] = Field(default_factory=dict, description="game options (see the rules); enforcement")


class GamePublic(BaseModel):
    id: str
    game: str
    players: list[str]
    options: dict[str, Any]
    status: Literal["live", "finished"]
    seq: int
    hand: int
    created_at: str
    updated_at: str
    totals: dict[str, Any]
    winner: int | None


class Hit(BaseModel):
    """A situation found in a game: the hand and the event (seq) where it happened, and the seat."""

    hand: int
    seq: int
    situation: str
    seat: int | None


class GameFound(GamePublic):
    hits: list[Hit] | None = Field(default=None, description="with `has=`: where the situations happened")


class GamePage(BaseModel):
    games: list[GameFound]
    next_cursor: str | None


def game_public(game: GameRecord) -> dict[str, Any]:
    return {
        "id": game.id,
        "game": game.kind,
        "players": list(game.players),
        "options": game.options,
        "status": game.status,
        "seq": game.seq,
        "hand": game.hand,
        "created_at": game.created_at,
        "updated_at": game.updated_at,
        "totals": game.totals,
        "winner": game.winner,
    }


def _encode_cursor(game: GameRecord) -> str:
    return base64.urlsafe_b64encode(f"{game.created_at}|{game.id}".encode()).decode()


def _decode_cursor(cursor: str) -> tuple[str, str]:
    """The (created_at, id) a cursor names; one that decodes to text no store holds (a NUL) is refused too."""
    try:
        created, _, gid = base64.urlsafe_b64decode(cursor.encode()).decode().partition("|")
    except (ValueError, UnicodeDecodeError):
        raise InvalidEventError("cursor: not a cursor this server gave out", field="cursor") from None
    if not created or not gid or unstorable(created) or unstorable(gid):
        raise InvalidEventError("cursor: not a cursor this server gave out", field="cursor")
    return created, gid


@router.post("", status_code=201, response_model=GamePublic, summary="Create a game", responses=errors(*AUTH, *BODY))
async def create_game(body: GameCreate, principal: PrincipalDep, recorder: RecorderDep) -> dict[str, Any]:
    """Register a new game stream; its options are echoed with defaults filled in."""
    principal.require("recorder")
    game = recorder.create_game(club_id=principal.club_id, kind=body.game, players=body.players, options=body.options)
    return game_public(game)


@router.get(
    "",
    response_model=GamePage,
    response_model_exclude_unset=True,
    summary="List and search games",
    responses=errors(*AUTH),
)
def list_games(
    principal: PrincipalDep,
    recorder: RecorderDep,
    game: Annotated[GameKind | None, Query(description="game kind: " + ", ".join(KINDS))] = None,
    player: Annotated[str | None, Query(description="a player's name, exactly")] = None,
    status: Annotated[Literal["live", "finished"] | None, Query()] = None,
    winner: Annotated[int | None, Query(ge=0, le=7, description="the winning seat")] = None,
    since: Annotated[Moment | None, Query(description=SINCE)] = None,
    until: Annotated[Moment | None, Query(description=UNTIL)] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(description="next_cursor of the previous page")] = None,
    has: Annotated[
        list[str] | None,
        Query(
            description="situations that happened in a hand (repeat or comma-separate: games with all of them); "
            "each game then lists its `hits` {hand, seq, situation, seat}. Known: " + ", ".join(sorted(KNOWN))
        ),
    ] = None,
) -> dict[str, Any]:
    """A page of the club's games, newest first; with `has=`, only games where those situations happened."""
    situations = check_situations(has or [])
    filters: dict[str, Any] = {
        "kind": game.value if game is not None else None,
        "status": status,
        "player": player,
        "winner": winner,
        "since": stored_time(since),
        "until": stored_time(until),
        "limit": limit,
        "before": _decode_cursor(cursor) if cursor else None,
    }
    if situations:
        HandFacts(recorder.store).catch_up()
        found = recorder.store.search_games(principal.club_id, situations=situations, **filters)
        hits = recorder.store.hits([g.id for g in found], situations)
        next_cursor = _encode_cursor(found[-1]) if len(found) == limit else None
        return {"games": [{**game_public(g), "hits": hits[g.id]} for g in found], "next_cursor": next_cursor}
    games = recorder.store.list_games(principal.club_id, **filters)
    next_cursor = _encode_cursor(games[-1]) if len(games) == limit else None
    return {"games": [game_public(g) for g in games], "next_cursor": next_cursor}


@router.get("/{game_id}", response_model=GamePublic, summary="A game's metadata", responses=errors(401, 404, 422))
async def get_game(game_id: str, principal: PrincipalDep, recorder: RecorderDep) -> dict[str, Any]:
    """Metadata, status, head seq and totals of one game."""
    return game_public(recorder.store.get_game(game_id, principal.club_id))
