"""Who sees which cards, and which hashes: the role and the hands' progress pick the viewpoint.

Here, not in `api/`, so that the application service
(`api/service/`) decides visibility for the API and the CLI alike; nothing here knows
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

Retracted events. A `retract` puts the cards of the plays it takes back into the hands again, so a
retracted `play` or `discard` of a hidden hand would tell a viewer a card that is still held. Such an
event (a game event a retract took back, `engine.takes_back`) is redacted further than a live one:
every card it names is `??` (not only its secret ones), its derived facts (`result`: a trick's winner
and points say what was played) are dropped, and a stored violation keeps only its rule. The table
after any event inside a retracted range (a kept note or claim too) showed the retracted plays, so a
viewer's replay frame or state at such a seq is the table at the retract's `to_seq`, where the
correction put it back (`Sight.table_seq`, `shown_frames`). The retracts that matter are the ones
after the first hidden event (`Sight.corrections`), read with where the hidden hands begin in one query
(`projections/reading/retracts.py`, which reads and marks a game's retracts for every reader).

Boards still in play. A table of an event's duplicate round deals the event's boards
(`projections/core/boards.py`): every table of the round plays the same cards. So a viewer or a share
link is shown nothing of a hand whose board is not revealed yet (some table of the round is still
playing it), not even the cards the table has played face up, nor a hand after it: its events are
withheld as a share token's are, its states and frames refused (403), and an export, a re-score or a
score sheet stops before it (`held_back`). The board is revealed when every table has finished it, and
then the hand reads like any finished hand.

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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from events.envelope import Envelope, event_of
from events.errors import ForbiddenError, InvalidEventError
from events.store import GameRecord, Store, tournaments
from projections.core.dealing import is_server_dealt
from projections.core.engine import Position, takes_back
from projections.core.phrases import seat as seat_marker
from projections.core.recorder import Live
from projections.core.rules import HIDDEN, OMNISCIENT, SPECTATOR, GameRules, Viewpoint
from projections.reading.retracts import NO_MARKS, Marks, covering, of_envelopes, read_marks


class Reader(Protocol):
    """Whoever reads a game: `api.auth.Principal` (a key or a share link) for the API, the CLI's operator
    (`api.service.Operator`), who sees everything in one club or (no club) in every club.

    Visibility asks only whether it sees every card and whether it is a share link; the use cases of
    `api/service/` also ask its club (the games it may read), its role and actor (what it may write, and
    as whom), and `require` refuses a role that may not do something.
    """

    @property
    def club_id(self) -> int | None: ...

    @property
    def club(self) -> str | None: ...

    @property
    def role(self) -> str: ...

    @property
    def actor(self) -> str: ...

    @property
    def is_share(self) -> bool: ...

    @property
    def sees_everything(self) -> bool: ...

    def require(self, *roles: str) -> None:
        """Raises ForbiddenError unless the reader has one of `roles`."""


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
    #: `(seq, to_seq)` of each retract that may take back an event of a hidden hand (after `hashes_from`)
    corrections: tuple[tuple[int, int], ...] = ()
    #: what the read turned on: every retract, a replayed hand's seqs (`projections/reading/retracts.py`)
    marks: Marks = NO_MARKS
    #: the lowest hand withheld whole from a principal who is not shown every card: a board still being played
    #: at another table of an event (`held_back`); None when there is none
    withheld_from: int | None = None

    def hides(self, hand: int) -> bool:
        """Whether the cards of hand `hand` are hidden from this principal."""
        return self.hidden_from is not None and hand >= self.hidden_from

    def withholds(self, hand: int) -> bool:
        """Whether hand `hand` is shown not at all to this principal: a share link's hidden hands, and anyone's
        hands from a board still being played at another table on."""
        if self.principal.is_share:
            return self.hides(hand)
        return self.withheld_from is not None and hand >= self.withheld_from

    def corrected(self, seq: int, hand: int) -> int | None:
        """The `to_seq` of the retract whose range holds `seq`, when that event is of a hidden hand: the
        seq whose table this principal is shown instead (None: the event's own table may be shown)."""
        if not self.corrections or not self.hides(hand):
            return None
        by = covering(seq, self.corrections)
        return None if by is None else dict(self.corrections)[by]

    def table_seq(self, seq: int, hand: int) -> int:
        """The seq whose table this principal may see for the state after event `seq` of hand `hand`: `seq`
        itself, or the retract's `to_seq` for an event inside a retracted range of a hidden hand."""
        to_seq = self.corrected(seq, hand)
        return seq if to_seq is None else to_seq

    def taken_back(self, seq: int, hand: int, kind: str) -> bool:
        """Whether the event is a game event of a hidden hand that a retract took back (redacted further)."""
        return takes_back(kind) and self.corrected(seq, hand) is not None

    def head_hash(self, head_hash: str) -> str | None:
        """The head hash as this principal may read it (None while a hand is hidden from it)."""
        return None if self.hashes_from is not None else head_hash


def held_back(store: Store, game: GameRecord) -> int | None:
    """The lowest hand of `game` whose board is still being played at a table of its event (every hand from it
    on is withheld from a reader not shown every card), or None: no board of the game is in play elsewhere.
    One query, for a server-dealt game only (a table of a duplicate round is one)."""
    if not is_server_dealt(game.options):
        return None
    return tournaments.held_hand(store.db, game.id)


def _lowest(first: int | None, second: int | None) -> int | None:
    return first if second is None else second if first is None else min(first, second)


def sight_of(principal: Reader, store: Store, live: Live, *, hand: int | None = None) -> Sight:
    """The principal's sight of `live.game` at the head `live` holds, with the marks of that head (where the
    hidden hands begin, the retracts, and with `hand` that hand's first and last seq): one query, none for
    a principal who sees everything and asks for no hand (and one more for a server-dealt game, whose boards
    may be in play at other tables: `held_back`)."""
    if principal.sees_everything:
        hidden_from = withheld_from = None
    else:
        withheld_from = held_back(store, live.game)
        hidden_from = _lowest(first_hidden_hand(live.rules, live.state), withheld_from)
    if hidden_from is None and hand is None:
        return Sight(principal, live.rules, None, None)
    marks = read_marks(store, live.game.id, live.state.seq, hand=hand, hidden_from=hidden_from)
    return _sight(principal, live.rules, hidden_from, marks, withheld_from)


def sight_over(
    principal: Reader, rules: GameRules[Any], head: Any, envelopes: Sequence[Envelope], *, held: int | None = None
) -> Sight:
    """The principal's sight of a game whose every envelope up to `head` is at hand (an export); `held` is the
    game's `held_back`, which the caller read."""
    if principal.sees_everything:
        return Sight(principal, rules, None, None)
    hidden_from = _lowest(first_hidden_hand(rules, head), held)
    if hidden_from is None:
        return Sight(principal, rules, None, None)
    hidden_seq = min((env["seq"] for env in envelopes if env["hand"] >= hidden_from), default=None)
    return _sight(principal, rules, hidden_from, Marks(of_envelopes(envelopes).retracts, None, hidden_seq), held)


def _sight(
    principal: Reader, rules: GameRules[Any], hidden_from: int | None, marks: Marks, withheld_from: int | None = None
) -> Sight:
    hashes_from = None if hidden_from is None else marks.hidden_seq
    corrections = () if hashes_from is None else marks.after(hashes_from)
    return Sight(principal, rules, hidden_from, hashes_from, corrections, marks, withheld_from)


def viewpoint_for(sight: Sight, seat: int | None, seats: int, hand: int) -> Viewpoint:
    """The viewpoint a state of hand `hand` is shown from.

    Raises:
        InvalidEventError: a seat the game does not have.
        ForbiddenError: a share token asking for a hidden hand.
    """
    if seat is not None and not 0 <= seat < seats:
        raise InvalidEventError(
            f"{seat_marker(seat)} is out of range: the seats are 0 ({seat_marker(0)}) to {seats - 1} "
            f"({seat_marker(seats - 1)})",
            field="seat",
        )
    if not sight.hides(hand):
        return OMNISCIENT if seat is None else seat
    if sight.withholds(hand) and not sight.principal.is_share:
        raise ForbiddenError(
            f"hand {hand} plays a board that another table of the event is still playing; it is shown once every "
            "table has finished it",
            hand=hand,
            live=True,
        )
    if sight.principal.is_share:
        raise ForbiddenError(
            f"hand {hand} is still being played; a share link shows finished hands only", hand=hand, live=True
        )
    return SPECTATOR


def withheld(env: Envelope) -> Envelope:
    """A hidden-hand envelope as a share token gets it: its place in the stream, nothing more."""
    return {"seq": env["seq"], "hand": env["hand"], "type": "withheld", "data": {}, "result": {}, "withheld": True}


def hide_cards(rules: GameRules[Any], event: Mapping[str, Any]) -> dict[str, Any]:
    """`event` with every card it names as `HIDDEN`, its shape kept (a list of cards stays as long, a
    per-seat object keeps its keys): a retracted event of a hidden hand (see the module docstring)."""
    fields = rules.card_fields(event["type"])
    return {k: _hidden(v) if k in fields else v for k, v in event.items()}


def _hidden(value: Any) -> Any:
    if isinstance(value, str):
        return HIDDEN
    if isinstance(value, Mapping):
        return {k: _hidden(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_hidden(v) for v in value]
    return value


def _taken_back(sight: Sight, env: Envelope) -> Envelope:
    """A viewer's envelope of a retracted event of a hidden hand: every card hidden, no derived facts."""
    data = hide_cards(sight.rules, {"type": env["type"], **env["data"]})
    out: Envelope = {**env, "data": {k: v for k, v in data.items() if k != "type"}, "result": {}, "redacted": True}
    if "violation" in env:
        out["violation"] = {"rule": env["violation"]["rule"]}
    return out


def shown_envelopes(sight: Sight, envelopes: Sequence[Envelope]) -> list[Envelope]:
    """Envelopes as this principal may read them: hidden hands redacted (viewer) or withheld (share
    token), retracted events of a hidden hand with every card hidden, and no hash computed over a
    hidden card."""
    if sight.hidden_from is None:
        return list(envelopes)
    out = []
    for env in envelopes:
        if sight.hides(env["hand"]):
            if sight.withholds(env["hand"]):
                env = withheld(env)
            elif sight.taken_back(env["seq"], env["hand"], env["type"]):
                env = _taken_back(sight, env)
            else:
                redacted = sight.rules.redact_event(event_of(env), SPECTATOR)
                env = {**env, "data": {k: v for k, v in redacted.items() if k != "type"}, "redacted": True}
        if sight.hashes_from is not None and env["seq"] >= sight.hashes_from and "hash" in env:
            keep_prev = env["seq"] == sight.hashes_from
            env = {**env, "hash": None, "prev_hash": env["prev_hash"] if keep_prev else None}
        out.append(env)
    return out


def shown_frames(
    sight: Sight, hand: int, frames: Sequence[dict[str, Any]], table_at: Callable[[int], dict[str, Any]]
) -> list[dict[str, Any]]:
    """A replay's frames of hand `hand` as this principal may see them (the frames already drawn from
    its viewpoint, `viewpoint_for`): in a hidden hand, each frame inside a retracted range shows the
    table at the retract's `to_seq` (`table_at(seq)`: the state document there, from the same
    viewpoint), and a retracted event's frame hides every card of its event, its derived facts and its
    violation's message. Every other frame as it is."""
    if not sight.corrections or not sight.hides(hand):
        return list(frames)
    tables: dict[int, dict[str, Any]] = {}
    out = []
    for frame in frames:
        to_seq = sight.corrected(frame["seq"], hand)
        if to_seq is None:
            out.append(frame)
            continue
        if to_seq not in tables:
            tables[to_seq] = table_at(to_seq)
        shown = {**frame, "state": tables[to_seq]}
        if takes_back(frame["event"]["type"]):
            shown.update(event=hide_cards(sight.rules, frame["event"]), result={}, redacted=True)
            if "violation" in frame:
                shown["violation"] = {"rule": frame["violation"]["rule"]}
        out.append(shown)
    return out
