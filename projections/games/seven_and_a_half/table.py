"""The shape of Seven and a Half's `table` in a state document (`view`), for the API's schema
(`GameRules.table`).

A TypedDict, not a pydantic model: the game package knows no HTTP; `api/state_models.py` turns it into the
schema.
"""

from __future__ import annotations

from typing import Any, TypedDict


class SevenAndAHalfTable(TypedDict):
    """The table of a Seven and a Half state: the banker, the order of play, the turn, the stakes, the bets."""

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
