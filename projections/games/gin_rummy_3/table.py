"""The shape of Gin Rummy's `table` in a state document (`view`), for the API's schema (`GameRules.table`).

A TypedDict, not a pydantic model: the game package knows no HTTP; `api/state_models.py` turns it into the
schema, taking each `Annotated[..., "..."]` string as the field's description.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict


class GinTable(TypedDict):
    """The table of a Gin state: the box, captain and sitter, the cut, the pile, the stock and the knock."""

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
    last_hand: Annotated[dict[str, Any] | None, "`{hand, points}`"]
