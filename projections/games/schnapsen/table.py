"""The shape of Schnapsen's `table` in a state document (`view`), for the API's schema (`GameRules.table`).

A TypedDict, not a pydantic model: the game package knows no HTTP; `api/state_models.py` turns it into the
schema, taking each `Annotated[..., "..."]` string as the field's description.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict


class SchnapsenTable(TypedDict):
    """The table of a Schnapsen state: the trump, the talon, the trick, the marriages and the last trick."""

    dealer: int | None
    leader: int | None
    trump_suit: str | None
    trump_card: str | None
    trump_face_up: bool
    talon: int
    closed_by: int | None
    trick: Annotated[list[dict[str, Any]], "`[{seat, card}]`"]
    draws_due: list[int]
    marriages: Annotated[list[dict[str, Any]], "`[{seat, suit, points, credited, seq}]`"]
    last_trick: Annotated[dict[str, Any] | None, "`{winner, cards, plays: [{seat, card}] (lead first), points, seq}`"]
    strict: bool
