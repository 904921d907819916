"""Who sees which cards, and which hashes: the role and the hands' progress pick the viewpoint.

Here, not in `api/`, so that the application service
(`projections/service.py`) decides visibility for the API and the CLI alike; nothing here knows
HTTP: a reader is anything with `sees_everything` and `is_share` (`Reader`).

Recorders and auditors see everything and may ask for any seat's view. Every
other reader (a viewer key, a share token) is decided against the game's head
as it is in the database at the moment of the read (`Recorder.live` and
`Recorder.read` check the row; no process trusts its cache for this), and the
envelopes it gets stop at that head, so an event appended meanwhile is never
shown by a stale decision.

Hidden hands. At a head in hand `h`, the hands from `h` on are hidden when `h`
is in progress, and the hands after `h` when it is over. A hand after the
head's hand is one that was begun and then retracted (a `retract` back to an
earlier hand): its events stay in the log, but what it dealt has not been
shown at the table, so it is redacted like the live hand. Once the table
plays past a hidden hand, all of it is visible to everyone.

- A viewer sees a hidden hand's public table only, whatever seat it asks for:
  its events are redacted (`??` for each hidden card, `"redacted": true`).
- A share token sees nothing of a hidden hand: its states are refused (403)
  and its events are withheld, each replaced by a stub `{seq, hand, type:
  "withheld", withheld: true}` that keeps a stream reader's place.

Withheld hashes. A redacted event's hash is a hash of its hidden cards: with
a few cards unknown, a reader could hash every candidate and compare. And
every later hash chains over it. So a reader who is not shown every card gets
no hash computed over a hidden card: from the first event of the first hidden
hand on, each envelope's `hash` is `null`, and so is the `prev_hash` of each
envelope after it, and the head hash of `verify` and of an export. Nothing is
salted or changed in the record, so every stored chain verifies as before;
once the hidden hands are over, the same routes give every hash again, and a
reader can check the chain end to end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from events.envelope import Envelope, event_of
from events.errors import ForbiddenError, InvalidEventError
from events.store import Store
from projections.engine import Position
from projections.recorder import Live
from projections.rules import OMNISCIENT, SPECTATOR, GameRules, Viewpoint


class Reader(Protocol):
    """Whoever reads a game, as far as visibility goes (`api.auth.Principal` is one; so is the CLI's
    operator, `projections.service.Operator`): does it see every card, is it a share link."""

    @property
    def sees_everything(self) -> bool: ...

    @property
    def is_share(self) -> bool: ...


def first_hidden_hand(rules: GameRules[Any], head: Position[Any]) -> int | None:
    """The lowest hand number whose cards are hidden at this head (every later hand is hidden too).

    None once the game has ended: nothing is left to play, so nothing is hidden.
    """
    if rules.is_terminal(head.game):
        return None
    return int(head.hand) if rules.hand_in_progress(head.game) else int(head.hand) + 1


def live_hand(rules: GameRules[Any], head: Position[Any]) -> int | None:
    """The number of the hand being played at the head, or None between hands."""
    return head.hand if rules.hand_in_progress(head.game) else None


@dataclass(frozen=True, slots=True)
class Sight:
    """What one principal may see of one game at one head."""

    principal: Reader
    rules: GameRules[Any]
    #: the lowest hidden hand; None for a principal that sees everything
    hidden_from: int | None
    #: the first seq whose hash is withheld; None when every hash may be shown
    hashes_from: int | None

    def hides(self, hand: int) -> bool:
        """Whether the cards of hand `hand` are hidden from this principal."""
        return self.hidden_from is not None and hand >= self.hidden_from

    def head_hash(self, head_hash: str) -> str | None:
        """The head hash as this principal may read it (None while a hand is hidden from it)."""
        return None if self.hashes_from is not None else head_hash


def sight_of(principal: Reader, store: Store, live: Live) -> Sight:
    """The principal's sight of `live.game` at the head `live` holds (where hidden hands begin: one query)."""
    hidden_from = None if principal.sees_everything else first_hidden_hand(live.rules, live.state)
    if hidden_from is None:
        return Sight(principal, live.rules, None, None)
    hashes_from = store.first_seq_from_hand(live.game.id, hidden_from, live.state.seq)
    return Sight(principal, live.rules, hidden_from, hashes_from)


def sight_over(principal: Reader, rules: GameRules[Any], head: Any, envelopes: Sequence[Envelope]) -> Sight:
    """The principal's sight of a game whose every envelope up to `head` is at hand (an export, a replay)."""
    hidden_from = None if principal.sees_everything else first_hidden_hand(rules, head)
    if hidden_from is None:
        return Sight(principal, rules, None, None)
    hashes_from = min((env["seq"] for env in envelopes if env["hand"] >= hidden_from), default=None)
    return Sight(principal, rules, hidden_from, hashes_from)


def viewpoint_for(sight: Sight, seat: int | None, seats: int, hand: int) -> Viewpoint:
    """The viewpoint a state of hand `hand` is shown from.

    Raises:
        InvalidEventError: a seat the game does not have.
        ForbiddenError: a share token asking for a hidden hand.
    """
    if seat is not None and not 0 <= seat < seats:
        raise InvalidEventError(f"seat {seat} is out of range (seats 0 to {seats - 1})", field="seat")
    if not sight.hides(hand):
        return OMNISCIENT if seat is None else seat
    if sight.principal.is_share:
        raise ForbiddenError(
            f"hand {hand} is still being played; a share link shows finished hands only", hand=hand, live=True
        )
    return SPECTATOR


def withheld(env: Envelope) -> Envelope:
    """A hidden-hand envelope as a share token gets it: its place in the stream, nothing more."""
    return {"seq": env["seq"], "hand": env["hand"], "type": "withheld", "data": {}, "result": {}, "withheld": True}


def shown_envelopes(sight: Sight, envelopes: Sequence[Envelope]) -> list[Envelope]:
    """Envelopes as this principal may read them: hidden hands redacted (viewer) or withheld (share
    token), and no hash computed over a hidden card."""
    if sight.hidden_from is None:
        return list(envelopes)
    out = []
    for env in envelopes:
        if sight.hides(env["hand"]):
            if sight.principal.is_share:
                env = withheld(env)
            else:
                redacted = sight.rules.redact_event(event_of(env), SPECTATOR)
                env = {**env, "data": {k: v for k, v in redacted.items() if k != "type"}, "redacted": True}
        if sight.hashes_from is not None and env["seq"] >= sight.hashes_from and "hash" in env:
            keep_prev = env["seq"] == sight.hashes_from
            env = {**env, "hash": None, "prev_hash": env["prev_hash"] if keep_prev else None}
        out.append(env)
    return out
