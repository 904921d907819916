"""The shape of Smear's `table` in a state document (`view`), for the API's schema (`GameRules.table`).

A TypedDict, not a pydantic model: the game package knows no HTTP; `api/state_models.py` turns it into the
schema, taking each `Annotated[..., "..."]` string as the field's description.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict


class SmearTable(TypedDict):
    """The table of a Smear state: the bids, the bidder and trump, the trick and the last trick."""

    dealer: int | None
    bids: Annotated[list[dict[str, Any]], "`[{seat, amount (null: a pass), seq}]`"]
    high_bid: int | None
    bidder: int | None
    trump: str | None
    leader: int | None
    trick: list[dict[str, Any]]
    tricks_played: int
    last_trick: Annotated[dict[str, Any] | None, "`{number, winner, cards, seq}`"]
