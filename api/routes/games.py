"""Games: create one, list and search a club's games, read one's metadata.

Search by situation (`has=sweep`) is served by the hand-facts read model
(`projections/readmodels/hand_facts.py`): the route first lets it catch up with the
event log (one indexed read when nothing is new), so a search sees every
committed event, then answers from the `hand_fact` table. Each route is one call of the application
service (`api/service/`), and a plain `def`: FastAPI runs it in its threadpool, so its
database work never blocks the event loop.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

from api.deps import PrincipalDep, ServiceDep
from api.models import AUTH, BODY, errors
from api.queries import GameFiltersDep
from api.requests import PlayerName, StrictJSONRoute
from events.schema import unstorable
from projections.core.registry import KINDS
from projections.readmodels.hand_facts import KNOWN, check_situations

router = APIRouter(prefix="/v1/games", tags=["games"], route_class=StrictJSONRoute)


def _storable(text: str) -> str:
    """A label, refused (422, naming its place) when the store cannot hold it: a NUL."""
    problem = unstorable(text)
    if problem:
        raise PydanticCustomError("unstorable", "the text {problem}", {"problem": problem})
    return text


#: the longest event, round or table label: a line of a score sheet's heading, not a description
MAX_LABEL = 80


def _label(text: str | None) -> str | None:
    """An event, round or table label: one line, its surrounding spaces clipped; blank is not given.

    A newline or another control character is refused (422): the label is a tag of the text hand
    history (`[Event "..."]`) and a heading of the replay page, one line each.
    """
    if text is None:
        return None
    clipped = text.strip()
    if not clipped:
        return None
    if any(ord(c) < 32 or ord(c) == 127 or c in "\u2028\u2029\x85" for c in clipped):
        raise PydanticCustomError("one_line", "a label is one line of text, without control characters", {})
    if len(clipped) > MAX_LABEL:
        raise PydanticCustomError(
            "too_long", "at most {max} characters, got {length}", {"max": MAX_LABEL, "length": len(clipped)}
        )
    return _storable(clipped)


#: an optional label of a game (its event, round or table), checked by `_label`
Label = Annotated[str | None, AfterValidator(_label)]


class GameCreate(BaseModel):
    """A new game: its kind, its players in seat order (clockwise), its options."""

    model_config = ConfigDict(extra="forbid")

    game: str = Field(description="one of: " + ", ".join(KINDS), examples=["schnapsen"])
    players: list[PlayerName] = Field(
        min_length=1,
        max_length=8,
        description="names in seat order: seat 0, 1, ...; each kept without spaces around it, whitespace inside "
        "one space (`' Anna \\n Lee'` is `'Anna Lee'`), 1 to 100 characters",
        examples=[["Anna", "Ben"]],
    )
    options: dict[str, Any] = Field(default_factory=dict, description="game options (see the rules); enforcement")
    profile: str | None = Field(
        default=None,
        max_length=80,
        description="a rule profile of the club (`GET /v1/profiles`; `default`: every option at its default): "
        "its options for this game, then `options` on top (H9, issue 21)",
        examples=["tuesday"],
    )
    event: Label = Field(
        default=None,
        description=f"the event the game is part of (up to {MAX_LABEL} characters)",
        examples=["Winter league"],
    )
    round: Label = Field(default=None, description=f"its round (up to {MAX_LABEL} characters)", examples=["3"])
    table: Label = Field(default=None, description=f"its table (up to {MAX_LABEL} characters)", examples=["2"])

    def labels(self) -> dict[str, str]:
        """The labels given (event, round, table), blank ones left out."""
        found = {"event": self.event, "round": self.round, "table": self.table}
        return {name: value for name, value in found.items() if value is not None}


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
    event: str | None = Field(default=None, description="given at creation, else null")
    round: str | None = Field(default=None, description="given at creation, else null")
    table: str | None = Field(default=None, description="given at creation, else null")
    copy_of: str | None = Field(
        default=None,
        description="a copy (a record the club had, imported again with `copy=true`): the original's id; "
        "a copy is a record, not a second result (ratings, statistics and standings skip it); null for an original",
    )


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


@router.post(
    "", status_code=201, response_model=GamePublic, summary="Create a game", responses=errors(*AUTH, 404, *BODY)
)
def create_game(body: GameCreate, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    """Register a new game stream; its options are echoed with defaults filled in, and its labels
    (`event`, `round`, `table`: optional, one line of up to 80 characters each, spaces around clipped).
    With `profile`, the club's rule profile gives the options, `options` on top (a 404 for no such profile)."""
    return service.create_game(
        principal,
        kind=body.game,
        players=body.players,
        options=body.options,
        labels=body.labels(),
        profile=body.profile,
    )


@router.get(
    "",
    response_model=GamePage,
    response_model_exclude_unset=True,
    summary="List and search games",
    responses=errors(*AUTH),
)
def list_games(
    principal: PrincipalDep,
    service: ServiceDep,
    filters: GameFiltersDep,
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
    return service.games(
        principal,
        situations=check_situations(has or []),
        limit=limit,
        cursor=cursor,
        **filters,
    )


@router.get("/{game_id}", response_model=GamePublic, summary="A game's metadata", responses=errors(401, 404, 422))
def get_game(game_id: str, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    """Metadata, status, head seq and totals of one game."""
    return service.game(principal, game_id)
