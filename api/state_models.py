"""The table documents of API v1 for the OpenAPI schema: a state (`GET /v1/games/{id}/state`, and each frame
of a replay), with one schema of `table` per game, and the replay made of those frames.

Here, beside `api/models.py` (which holds every other document and the models' base, `Doc`): each
game declares its table's shape in its own package (`GameRules.table`, a TypedDict), and the schema is
made from it here; a game that declares none is documented with `GenericTable` (whatever its `view`
gives). A state model is made for every registered game, so no game is named in this module.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

from pydantic import ConfigDict, Field, RootModel, create_model

from api.models import Doc, SeatPoints, Violation
from projections.core.registry import KINDS, rules_for

# --------------------------------------------------------------------------- the state document


class SeatView(Doc):
    """One seat: its cards if the viewpoint sees them, else `card_count`; its name."""

    seat: int
    name: str | None = None
    cards: list[str] | None = Field(default=None, description="the cards held, if seen (`??`: a hidden card)")
    card_count: int | None = None


class TableBase(Doc):
    pass


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


def _table_model(shape: type) -> type[TableBase]:
    """The schema of a game's `table` from its TypedDict (`GameRules.table`): one field per key, a string in
    `Annotated[type, "..."]` as its description (the game package knows no pydantic)."""
    fields: dict[str, Any] = {}
    for name, hint in get_type_hints(shape, include_extras=True).items():
        if get_origin(hint) is Annotated:
            kind, *extras = get_args(hint)
            described = [extra for extra in extras if isinstance(extra, str)]
            fields[name] = (kind, Field(description=" ".join(described)) if described else ...)
        else:
            fields[name] = (hint, ...)
    model: type[TableBase] = create_model(shape.__name__, __base__=TableBase, __doc__=shape.__doc__, **fields)
    return model


def _state_model(kind: str) -> type[StateBase]:
    """The state document of one game: `game` is its kind, `table` its table's schema (`GameRules.table`)."""
    shape = rules_for(kind).table
    table = _table_model(shape) if shape is not None else GenericTable
    if shape is not None:
        name = shape.__name__.removesuffix("Table") + "State"
    else:
        name = "".join(part.capitalize() for part in kind.replace("-", " ").split()) + "State"
    model: type[StateBase] = create_model(
        name,
        __base__=StateBase,
        game=(Literal[kind], ...),  # type: ignore[arg-type]
        table=(table, ...),
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
