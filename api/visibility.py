"""Who sees which cards: the role and the hand's progress pick the viewpoint.

Recorders and auditors see everything and may ask for any seat's view. A
viewer sees a live hand's public table only, whatever seat it asks for; once
a hand is over (a later hand has begun, or the hand has ended), all of it is
visible.

A share token (`api/share.py`) sees the hands that are over as a viewer does
(from any seat, or everything), and nothing of a live hand: its states are
refused (403) and its events are withheld, each replaced by a stub `{seq,
hand, type: "withheld", withheld: true}` that keeps a stream reader's place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from api.auth import Principal
from events.envelope import Envelope, event_of
from events.errors import ForbiddenError, InvalidEventError
from projections.rules import OMNISCIENT, SPECTATOR, GameRules, Viewpoint


def live_hand(rules: GameRules[Any], head: Any) -> int | None:
    """The number of the hand being played at the head, or None between hands."""
    return head.hand if rules.hand_in_progress(head) else None


def viewpoint_for(
    principal: Principal, seat: int | None, seats: int, hand: int, rules: GameRules[Any], head: Any
) -> Viewpoint:
    """The viewpoint a state of hand `hand` is shown from, for this principal.

    Raises:
        InvalidEventError: a seat the game does not have.
        ForbiddenError: a share token asking for the live hand.
    """
    if seat is not None and not 0 <= seat < seats:
        raise InvalidEventError(f"seat {seat} is out of range (seats 0 to {seats - 1})", field="seat")
    if principal.sees_everything or hand != live_hand(rules, head):
        return OMNISCIENT if seat is None else seat
    if principal.is_share:
        raise ForbiddenError(
            f"hand {hand} is still being played; a share link shows finished hands only", hand=hand, live=True
        )
    return SPECTATOR


def withheld(env: Envelope) -> Envelope:
    """A live-hand envelope as a share token gets it: its place in the stream, nothing more."""
    return {"seq": env["seq"], "hand": env["hand"], "type": "withheld", "data": {}, "result": {}, "withheld": True}


def redact_envelopes(
    principal: Principal, rules: GameRules[Any], head: Any, envelopes: Sequence[Envelope]
) -> list[Envelope]:
    """Envelopes as this principal may read them: a viewer's live-hand events redacted, a share token's withheld."""
    hidden_hand = None if principal.sees_everything else live_hand(rules, head)
    if hidden_hand is None:
        return list(envelopes)
    out = []
    for env in envelopes:
        if env["hand"] == hidden_hand and principal.is_share:
            env = withheld(env)
        elif env["hand"] == hidden_hand:
            redacted = rules.redact_event(event_of(env), SPECTATOR)
            env = {**env, "data": {k: v for k, v in redacted.items() if k != "type"}, "redacted": True}
        out.append(env)
    return out
