"""Schemas of the events every game has (`rules/README.md`, "Events every game has")."""

from __future__ import annotations

from typing import Literal, TypedDict

from events.errors import InvalidEventError
from events.schema import Shape, described, integer, number, one_of, seat, seat_map, text

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


def hex_digest(value: object, path: str, seats: int) -> str:
    """64 lowercase hexadecimal digits (a sha256, or 32 secret bytes)."""
    if not isinstance(value, str) or len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
        raise InvalidEventError(f"{path}: expected 64 lowercase hexadecimal digits", field=path)
    return value


described(
    hex_digest, {"type": "string", "pattern": "^[0-9a-f]{64}$", "description": "64 hexadecimal digits, lowercase"}
)

#: the shuffle every server-dealt game uses (`rules/server-deal.md`)
SHUFFLE_ALGORITHM = "tablebook-shuffle-v1"

#: The events of a server-dealt game (`rules/server-deal.md`, "Events"), every game alike: the server
#: appends `deck_committed` and `deck_revealed`; a client may append `seed`.
DEAL_EVENTS: dict[str, Shape] = {
    "deck_committed": Shape(
        {"hand": integer(0), "commitment": hex_digest, "algorithm": one_of(SHUFFLE_ALGORITHM)},
    ),
    "seed": Shape({"seed": text(1, 64)}, {"seat": seat}),
    "deck_revealed": Shape({"hand": integer(0), "server_seed": hex_digest}),
}
