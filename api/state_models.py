"""The table documents of API v1 for the OpenAPI schema: a state (`GET /v1/games/{id}/state`, and each frame
of a replay), with one schema of `table` per game, and the replay made of those frames.

Here, beside `api/models.py` (which holds every other document and the models' base, `Doc`), because
the per-game table schemas are most of it. A game with no schema here is documented with
`GenericTable` (whatever its `view` gives); a state model is made for every registered game.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import ConfigDict, Field, RootModel, create_model

from api.models import Doc, SeatPoints, Violation
from projections.core.registry import KINDS

# --------------------------------------------------------------------------- the state document


class SeatView(Doc):
    """One seat: its cards if the viewpoint sees them, else `card_count`; its name."""

    seat: int
    name: str | None = None
    cards: list[str] | None = Field(default=None, description="the cards held, if seen (`??`: a hidden card)")
    card_count: int | None = None


class TableBase(Doc):
    pass


class SchnapsenTable(TableBase):
    dealer: int | None
    leader: int | None
    trump_suit: str | None
    trump_card: str | None
    trump_face_up: bool
    talon: int
    closed_by: int | None
    trick: list[dict[str, Any]] = Field(description="`[{seat, card}]`")
    draws_due: list[int]
    marriages: list[dict[str, Any]] = Field(description="`[{seat, suit, points, credited, seq}]`")
    last_trick: dict[str, Any] | None = Field(
        description="`{winner, cards, plays: [{seat, card}] (lead first), points, seq}`"
    )
    strict: bool


class CasinoTable(TableBase):
    dealer: int | None
    deal: int
    deals: int
    last_deal: bool
    stock: int
    loose: list[str]
    builds: list[dict[str, Any]] = Field(
        description="`[{id, value, cards, multiple, owner, seq, groups}]`; `groups`: the card lists the build was "
        "made of, each adding up to `value` (one group for a single build)"
    )
    last_capture: dict[str, Any] | None = Field(
        description="`{seat, seq, card, took}`: the card played and the cards it took (builds' cards included)"
    )
    rest: dict[str, Any] | None = Field(description="the cards left when the round ended: `{seat, cards}`")
    target: int
    sweeps_score: bool


class GinTable(TableBase):
    box: int | None
    captain: int | None
    sitter: int | None
    cut: dict[str, str] | None
    pile: list[str]
    pile_top: str | None
    stock: int
    passes: int
    stock_only: bool
    knock: dict[str, Any] | None
    layout: Any
    last_hand: dict[str, Any] | None = Field(description="`{hand, points}`")


class SevenAndAHalfTable(TableBase):
    banker: int | None
    next_banker: int | None
    order: list[int]
    turn: Any
    stakes: dict[str, int]
    banker_card_shown: bool
    bank_taken_by: int | None
    min_bet: int
    max_bet: int
    variants: dict[str, Any]


class SmearTable(TableBase):
    dealer: int | None
    bids: list[dict[str, Any]] = Field(description="`[{seat, amount (null: a pass), seq}]`")
    high_bid: int | None
    bidder: int | None
    trump: str | None
    leader: int | None
    trick: list[dict[str, Any]]
    tricks_played: int
    last_trick: dict[str, Any] | None = Field(description="`{number, winner, cards, seq}`")


class StateBase(Doc):
    """`{game, seq, hand, viewpoint, phase, to_act, seats, table, hand_points, totals, finished, winner, units}`."""

    seq: int
    hand: int
    viewpoint: int | Literal["all", "public"] = Field(description="a seat, `all` (everything) or `public`")
    phase: str
    to_act: Any = Field(description="the seats whose turn it is")
    seats: list[SeatView]
    hand_points: SeatPoints = Field(description="the points of the hand in progress, if it ended now")
    totals: SeatPoints
    finished: bool
    winner: int | None
    units: dict[str, str] = Field(
        default_factory=dict,
        description="the unit of each value that is not a plain count, by field, fact or table entry name, "
        "`points` and `totals`: `half` (half points: 7 is 3½), `chips`, `to_go` (game points still to go), "
        "`seat` (a seat number)",
    )


class GenericTable(TableBase):
    """The table of a game this module has no schema for: whatever its `view` gives (a new game's)."""

    model_config = ConfigDict(extra="allow")


#: the schema of each game's `table`; a registered game missing here is documented with `GenericTable`
TABLES: dict[str, type[TableBase]] = {
    "schnapsen": SchnapsenTable,
    "casino": CasinoTable,
    "gin-rummy-3": GinTable,
    "seven-and-a-half": SevenAndAHalfTable,
    "cutthroat-smear": SmearTable,
}


def _state_model(kind: str) -> type[StateBase]:
    """The state document of one game: `game` is its kind, `table` its table's schema."""
    table = TABLES.get(kind)
    if table is not None:
        name = table.__name__.removesuffix("Table") + "State"
    else:
        name = "".join(part.capitalize() for part in kind.replace("-", " ").split()) + "State"
    model: type[StateBase] = create_model(
        name,
        __base__=StateBase,
        game=(Literal[kind], ...),  # type: ignore[arg-type]
        table=(table or GenericTable, ...),
    )
    return model


#: one state model per registered game, from the registry (a sixth game is documented without an edit here)
STATE_MODELS: tuple[type[StateBase], ...] = tuple(_state_model(kind) for kind in KINDS)


class StateDocument(
    RootModel[Annotated[Union[STATE_MODELS], Field(discriminator="game")]]  # type: ignore[valid-type]  # noqa: UP007
):
    """The table at a seq from a viewpoint; `table` is the game's own (one schema per game)."""


# --------------------------------------------------------------------------- a replay


class Frame(Doc):
    seq: int
    event: dict[str, Any] = Field(description="`{type, ...fields}`, redacted for the viewpoint")
    result: dict[str, Any]
    text: str = Field(
        description="the event and its derived facts in words, as the CLI prints it: players by name, cards with "
        "suit symbols, values in the game's units (`Juan hit 3♠  → total 3½`)"
    )
    actor: str | None = None
    recorded_at: str | None = None
    state: StateDocument
    violation: Violation | None = None
    retracted_by: int | None = None


class Replay(Doc):
    game: str
    hand: int
    viewpoint: int | Literal["all", "public"]
    units: dict[str, str] = Field(
        description="the unit of each value that is not a plain count (`GameRules.units`): an event field or fact "
        "by name, `points` (score lines), `totals`; `half` (half points: 7 is 3½), `chips`, `to_go` (game points "
        "still to go)"
    )
    frames: list[Frame]
