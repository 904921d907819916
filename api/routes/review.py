"""Hand review: `GET /v1/games/{id}/review?hand=N[&seat=K]`, every decision of a finished hand with what
it cost against the best choice, with hindsight and from what the seat could see (docs/review.md).

The answer's models live here, beside the one route that answers them (the other documents are in
`api/models.py` and `api/state_models.py`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from pydantic import Field

from api.deps import PrincipalDep, ServiceDep
from api.models import GAME, Doc, errors

router = APIRouter(prefix="/v1/games/{game_id}", tags=["replays"])


class ReviewChoice(Doc):
    event: dict[str, Any] = Field(description="the event the choice is (a hit or a draw without its card)")
    words: str = Field(description="the choice in a player's words, with the players' names and card glyphs")
    value: float | None = Field(description="what it is worth to the seat, in the figure's unit (null: not valued)")
    at_most: bool = Field(description="true: `value` is only the most it is worth (enough to rank it below the best)")
    outcome: str = Field(description="what follows it, in words (may be empty)")


class ReviewFigure(Doc):
    """One valuation of a decision: every choice valued, best first."""

    view: Literal["hindsight", "seen"] = Field(
        description="`hindsight`: every card of the hand known; `seen`: from what the seat could see"
    )
    unit: str = Field(description="the key of the answer's `units` the values are in (`\"\"`: the game's own)")
    cost: float | None = Field(
        description="what the choice played cost against the best, in that unit (0: as good; null: the play was "
        "against the rules, stored under `record` enforcement, and is not valued)"
    )
    exact: bool = Field(description="every consistent layout searched to the end of what the figure values")
    bounded: bool = Field(description="the search stopped at a stated bound (the deal's end, a budget): see `note`")
    layouts: int = Field(description="the layouts of the unseen cards averaged")
    of_layouts: int = Field(description="how many consistent layouts there are")
    margin: float | None = Field(description="the 95% confidence half-width of the cost when the layouts were sampled")
    searched: int = Field(description="positions searched for this figure")
    scale: float = Field(description="the marks' thresholds are per this much (Seven and a Half: the chips at stake)")
    note: str = Field(description="what the figure assumes, in words")
    sentence: str = Field(description="the figure in a sentence a player reads")
    best: ReviewChoice
    played: ReviewChoice
    choices: list[ReviewChoice]


class ReviewDecision(Doc):
    seq: int = Field(description="the event that made the decision")
    seat: int
    player: str
    event: dict[str, Any] = Field(description="the event as recorded")
    text: str = Field(description="the event in words, as the replay says it")
    mark: Literal["?!", "?", "??"] | None = Field(description="?! an inaccuracy, ? a mistake, ?? a blunder, or null")
    mark_name: Literal["inaccuracy", "mistake", "blunder"] | None
    mark_from: Literal["hindsight", "seen"] | None = Field(
        description="the figure the mark is judged on: what the seat could see where there is such a figure"
    )
    cost: float | None = Field(description="that figure's cost")
    unit: str
    sentence: str = Field(description="that figure's sentence, after the player's name")
    note: str = Field(description="why a figure is missing, if one is")
    hindsight: ReviewFigure | None
    seen: ReviewFigure | None


class ReviewUnit(Doc):
    one: str
    many: str
    places: int


class ReviewSeat(Doc):
    seat: int
    player: str
    decisions: int
    inaccuracies: int = Field(description="decisions marked ?!")
    mistakes: int = Field(description="decisions marked ?")
    blunders: int = Field(description="decisions marked ??")
    cost: dict[str, float] = Field(description="what its marked figures cost in all, by unit key")


class Review(Doc):
    """A finished hand reviewed: derived from the events alone on every request; nothing is written."""

    game: str
    kind: str
    hand: int
    seat: int | None = Field(description="the seat whose decisions are reviewed (null: every seat's)")
    units: dict[str, ReviewUnit] = Field(description='the units of the figures, by key (`""`: the game\'s own)')
    thresholds: dict[str, dict[str, float]] = Field(
        description="per unit key, the cost from which a decision is marked `?!`, `?` and `??`"
    )
    about: dict[str, str] = Field(description="what the game's figures mean: `unit`, `hindsight`, `seen`")
    decisions: list[ReviewDecision]
    seats: list[ReviewSeat]
    searched: int = Field(description="positions searched in all")


@router.get(
    "/review",
    summary="A finished hand reviewed: what every decision cost",
    responses={200: {"model": Review}, **errors(*GAME, 429)},
)
def review(
    game_id: str,
    principal: PrincipalDep,
    service: ServiceDep,
    hand: Annotated[int, Query(ge=1, description="the hand to review (it must be over)")],
    seat: Annotated[int | None, Query(ge=0, le=7, description="review this seat's decisions only")] = None,
) -> dict[str, Any]:
    """For every decision of the hand: the best choice and what the one made cost, in the game's own unit,
    with hindsight (every card known) and, where the game can compute it, from what the seat could see
    (the unseen cards averaged over every consistent layout, or over a stated sample with a confidence
    margin); a mark (?!, ?, ??) by the game's thresholds and a sentence in the players' words.

    A hand still being played is never reviewed (403 `forbidden`, `live: true`); a viewer or a share link
    reviews only hands it may see whole. Derived from the events alone: nothing is stored (a process
    remembers its last reviews, keyed by the events in force). A review is a search of seconds at worst,
    so a process runs only a few at once: a request that waits too long for one gets 429 `busy` with
    Retry-After.
    """
    return service.review(principal, game_id, hand=hand, seat=seat)
