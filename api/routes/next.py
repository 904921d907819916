"""What may be appended next: the table pad's offer (`GET /v1/games/{id}/next`, issue 18).

The route is its dependencies and one service call (`Tablebook.next`, `api/service/reading.py`);
the document is described here for the OpenAPI schema.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from pydantic import Field

from api.deps import PrincipalDep, ServiceDep
from api.models import GAME, Doc, errors

router = APIRouter(prefix="/v1/games/{game_id}", tags=["tables"])


class AmountRange(Doc):
    """An event whose `field` takes any integer from `min` to `max`; `event` carries one example value."""

    event: dict[str, Any] = Field(description="a ready event, with an example value of `field`")
    field: str = Field(description="the field the range is over (`amount`, or `to_seq` of a retract)")
    min: int
    max: int


class Reveal(Doc):
    """The chance event that may come: a deal, a draw from the stock, a hit, the cut."""

    type: str = Field(description="the event's type (`deal`, `draw`, `hit`, `cut`...)")
    fields: dict[str, dict[str, Any]] = Field(
        description="per card field, what to enter: `{shape: card|cards|seat_cards|seat_map, count, seats?}` "
        "(`seat_cards`: a list of card lists by seat; `seat_map`: an object keyed by seat)"
    )
    unseen: list[str] = Field(
        description="the cards the viewpoint has not seen (the only ones to pick from); empty for a reader who "
        "may not see some cards of the hand (a viewer, another seat): no answer to it names a hidden card"
    )
    unseen_count: int = Field(description="how many cards the viewpoint has not seen")
    event: dict[str, Any] = Field(description="an example, cards drawn at random (`??` unless everything is seen)")
    events: list[dict[str, Any]] = Field(description="every variant: `[{event, fields}]` (a hit face down...)")


class Flagged(Doc):
    """A play `record` enforcement would store with a violation (a range of amounts when `field` is set)."""

    event: dict[str, Any]
    rule: str = Field(description="the rule it breaks (`schnapsen.follow_suit`)")
    reason: str = Field(description="why, in words, with the players' names")
    template: str | None = None
    fields: dict[str, Any] | None = None
    field: str | None = None
    min: int | None = None
    max: int | None = None
    reveal: bool | None = Field(default=None, description="a chance event: its cards are to enter")
    entry: dict[str, dict[str, Any]] | None = Field(
        default=None, description="a chance event's card fields, what to enter (as the reveal's `fields`)"
    )


class CommonEvent(Doc):
    """An event every game takes, ready to send (its free text a placeholder), with its bounds."""

    event: dict[str, Any]
    field: str | None = None
    min: int | None = None
    max: int | None = None


class NextDocument(Doc):
    """`{game, seq, hand, phase, viewpoint, to_act, chance, finished, enforcement, decisions, ranges, reveal,
    flagged, withheld, common, sends}`."""

    game: str
    seq: int = Field(description="the head seq: send it as `expected_seq`")
    hand: int
    phase: str | None
    viewpoint: int | Literal["all", "public"]
    to_act: list[int] = Field(description="the seats whose decision is due (empty when only a chance event is)")
    chance: bool = Field(description="only a chance event (a deal, a draw) may come next")
    finished: bool = Field(description="the game has ended: only the common events are offered")
    enforcement: str
    decisions: list[dict[str, Any]] = Field(description="events ready to send, as `POST .../events` takes them")
    ranges: list[AmountRange]
    reveal: Reveal | None
    flagged: list[Flagged] = Field(description="under `record` enforcement: the plays stored with a violation")
    withheld: list[int] = Field(description="seats whose decisions this viewpoint may not see (their hands)")
    common: list[CommonEvent] = Field(description="`retract`, `score_claimed`, `note`, `hand_voided`")
    sends: Literal["events", "corrections", "nothing"] = Field(description="what this key may append")


@router.get(
    "/next",
    summary="What may be appended next",
    responses={200: {"model": NextDocument}, **errors(*GAME)},
)
def get_next(
    game_id: str,
    principal: PrincipalDep,
    service: ServiceDep,
    seat: Annotated[int | None, Query(ge=0, le=7, description="the seat to look from (default: everything)")] = None,
) -> dict[str, Any]:
    """Whose turn it is and every event the rules accept next: decisions ready to send, amount ranges,
    the cards a deal or a draw needs, and under `record` enforcement the plays that would be flagged.

    A viewer (or a seat) is shown nothing of a hand it may not see: no other seat's decisions while it
    holds hidden cards, no hidden card, and an unseen list that does not tell a hand from the stock.
    """
    return service.next(principal, game_id, seat=seat)
