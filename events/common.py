"""Schemas of the events every game has (`rules/README.md`, "Events every game has")."""

from __future__ import annotations

from typing import Literal, TypedDict

from events.schema import Shape, integer, number, seat_map, text

COMMON_EVENTS: dict[str, Shape] = {
    "score_claimed": Shape({"hand": integer(0), "points": seat_map(number, every_seat=True)}),
    "note": Shape({"text": text(1, 2000)}, {"ref": integer(1)}),
    "hand_voided": Shape({"reason": text(0, 2000)}),
    "retract": Shape({"to_seq": integer(0), "reason": text(0, 2000)}),
}


class HandVoided(TypedDict):
    """`hand_voided`, typed: the one common event a game folds itself (its `event_types` include it)."""

    type: Literal["hand_voided"]
    reason: str
