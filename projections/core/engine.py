"""The game-agnostic driver: decide, apply and fold any game's events, and keep the bookkeeping.

Writes go through `decide` (shape, common events, the rules every game shares, the game's
`validate`, enforcement) and then `apply`; replays only `apply` (via `fold`). The common events of
`rules/README.md` live here: `score_claimed` and `note` change no table state, `retract` restores the
state at `to_seq`.

A server-dealt game (`rules/server-deal.md`, `projections/core/dealing.py`) has three more events the
engine handles itself: the server's `deck_committed` and `deck_revealed` and a client's `seed`; its
`Position` carries the deck of the hand being dealt (`DealState`: the commitment, the seeds, how many
cards have left it), folded with the game so that a `retract` rewinds it, and its dealing events are
filled in from the deck by the write side's `Dealer` before they are decided.

The engine owns the bookkeeping (issue 15): a `Position` is the game's own state together with the
seq of the last event folded, that event's derived facts (its envelope's `result`) and the retract
floor. A game's `evolve` sees none of it; it gets the event's seq and returns its new state and the
event's facts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, Generic

from events.common import DEAL_EVENTS as DEAL_SCHEMAS
from events.envelope import Envelope, seal
from events.errors import IllegalEventError, ImpossibleEventError, InvalidEventError, TablebookError
from events.schema import parse_event
from events.upcast import data_reshaped, upcast
from projections.core import dealing, phrases
from projections.core.dealing import Dealer, DealState
from projections.core.rules import EMPTY, OMNISCIENT, SPECTATOR, Event, Facts, GameRules, S, Viewpoint, seat_dict


@dataclass(frozen=True)
class Position(Generic[S]):
    """Where a game stands: the game's state and the engine's bookkeeping. Immutable.

    Not slotted: `_position` builds one with a single `__dict__` assignment, the cheap way to make a
    frozen dataclass on a fold's hot path (`fastreplace`).
    """

    #: the game's own state (what `validate`, `evolve`, `view` and `score` take)
    game: S
    #: the seq of the last event folded (0 before the first)
    seq: int = 0
    #: the derived facts of that event
    facts: Facts = field(default_factory=lambda: EMPTY)
    #: the seq of the last `retract`: no later retract may reach back past it
    retract_floor: int = 0
    #: a server-dealt game's deck of the hand being dealt (`projections/core/dealing.py`); None otherwise
    deal: DealState | None = None

    @property
    def hand(self) -> int:
        return self.game.hand

    @property
    def seats(self) -> int:
        return self.game.seats

    @property
    def options(self) -> Mapping[str, Any]:
        return self.game.options


_new_object = object.__new__
_set_attr = object.__setattr__


def _position(game: S, seq: int, facts: Facts, floor: int, deal: DealState | None = None) -> Position[S]:
    """`Position(game, seq, facts, floor, deal)`, without the `object.__setattr__` of a frozen `__init__`."""
    position: Position[S] = _new_object(Position)
    _set_attr(position, "__dict__", {"game": game, "seq": seq, "facts": facts, "retract_floor": floor, "deal": deal})
    return position


def start(rules: GameRules[S], players: Sequence[str], options: Mapping[str, Any]) -> Position[S]:
    """The position before the first event of a game with these players and (normalised) options.

    An option the game gained after the record was made (a house rule added later) is absent from the
    record's options, which are in its genesis hash as they were: it plays at its default.
    """
    missing = [name for name in rules.options if name not in options]
    if missing:
        options = {**options, **{name: rules.options[name].default for name in missing}}
    return Position(rules.initial_state(players, options))


#: Events the engine handles itself; the game handles everything else.
ENGINE_EVENTS = frozenset({"score_claimed", "note", "retract"})
#: Accepted after the game has ended.
AFTER_END = ENGINE_EVENTS
#: The events of a server-dealt game the engine handles itself (`rules/server-deal.md`): the server's
#: `deck_committed` and `deck_revealed`, a client's `seed`. Not corrections: an auditor appends none.
DEAL_EVENTS = frozenset(DEAL_SCHEMAS)


@dataclass(frozen=True, slots=True)
class Decision:
    """An event that may be appended: normalised, with its violation if any."""

    event: dict[str, Any]
    violation: dict[str, str] | None
    #: the version of its type's shape, which its envelope records (`events/upcast.py`)
    version: int = 1


def decide(
    rules: GameRules[S], position: Position[S], raw: Any, *, dealer: Dealer | None = None, stored: bool = False
) -> Decision:
    """Check one incoming event against the position.

    In a server-dealt game (`rules/server-deal.md`) a dealing event comes without its cards and is
    filled in from the deck by `dealer` (the write side's access to the server seed), and the server's
    own events are refused from a client. `stored`: the event is one of a record being checked again
    (verify, import), complete as stored: its cards are there, the server's events are accepted.

    Raises:
        InvalidEventError: the event is not well-formed (in a server-dealt game: a card field sent).
        ImpossibleEventError: it cannot happen (always, whatever the enforcement).
        IllegalEventError: against a rule, under `strict` enforcement.
    """
    state = position.game
    if state.options.get("dealing") == "server" and isinstance(raw, dict) and isinstance(raw.get("type"), str):
        kind = raw["type"]
        if kind in DEAL_EVENTS:
            event = dealing.decide_deal_event(position.deal, raw, state.seats, stored=stored)
            return Decision(event, None, DEAL_SCHEMAS[kind].version)
        if kind == "retract" and not stored:
            _check_reach(position, raw)
        fields = () if stored else dealing.takes(rules.kind, raw)
        if fields:
            if dealer is None:
                raise ImpossibleEventError(f"a {kind} of a server-dealt game is dealt by the server, on an append")
            return _deal(rules, position, raw, dealer)
    return _decide(rules, position, raw)


def _deal(rules: GameRules[S], position: Position[S], raw: dict[str, Any], dealer: Dealer) -> Decision:
    """A dealing event of a server-dealt game, filled from the deck and decided.

    It is decided first on the stand-in deck (`dealing.stand_in`: the cards left, in canonical order),
    so that a refusal, its code and its words are the same whatever order the real deck holds; only an
    event the stand-in accepts is filled from the real deck. Whether a dealing event is legal never
    depends on which cards it gets (a property test over every game checks it), so the real one is
    accepted too; were it not, the answer is one sentence that names nothing of the deck.
    """
    decks: list[list[str]] = []

    def real(deal: DealState) -> list[str]:
        if not decks:
            decks.append(list(dealer(deal)))
        return decks[0]

    dealable(rules, position, raw, real)
    filled = dealing.fill(rules, position.game, position.deal, raw, real)
    try:
        return _decide(rules, position, filled)
    except TablebookError:
        raise ImpossibleEventError(f"this {raw['type']} cannot be dealt now") from None


def dealable(rules: GameRules[S], position: Position[S], raw: dict[str, Any], dealer: Dealer) -> None:
    """Refuse a dealing event of a server-dealt game the way `decide` would, on the stand-in deck alone
    (`dealing.stand_in`): the answer depends on no card the server has not shown.

    Raises:
        InvalidEventError / ImpossibleEventError / IllegalEventError: as `decide`, with no card of the deck.
    """
    fields = dealing.takes(rules.kind, raw)
    stand_in = dealing.fill(
        rules, position.game, position.deal, raw, lambda d: dealing.stand_in(rules.kind, dealer(d), d.taken)
    )
    try:
        _decide(rules, position, stand_in)
    except TablebookError as refused:
        raise dealing.scrubbed(refused, stand_in, fields) from None


def _check_reach(position: Position[Any], raw: Mapping[str, Any]) -> None:
    """A new `retract` of a server-dealt game reaches back no further than `dealing.retract_reach`.

    Raises:
        ImpossibleEventError: it would abandon a committed deck, change the seeds of a deck that has
            dealt, or deal a revealed deck again.
    """
    to_seq = raw.get("to_seq")
    reach = dealing.retract_reach(position.deal)
    if not isinstance(to_seq, int) or isinstance(to_seq, bool) or to_seq >= reach:
        return
    deal = position.deal
    assert deal is not None
    if deal.revealed:
        why = f"the deck of hand {deal.hand} is public since its deck_revealed at seq {reach}"
    elif deal.opened and reach > deal.committed_at:
        why = f"the deck of hand {deal.hand} has dealt cards, and its seeds (the last at seq {reach}) are final"
    else:
        why = f"the deck of hand {deal.hand}, committed at seq {reach}, would be abandoned unrevealed"
    raise ImpossibleEventError(
        f"retract to seq {to_seq} reaches back too far in a server-dealt game: {why}; a retract here reaches "
        f"back to seq {reach} at most (to deal a hand anew, void it: hand_voided reveals its deck)",
        field="to_seq",
    )


def _decide(rules: GameRules[S], position: Position[S], raw: Any) -> Decision:
    """`decide`, for every game alike, with the version of the event's type."""
    decision = _decided(rules, position, raw)
    version = rules.events[decision.event["type"]].version
    return decision if version == 1 else Decision(decision.event, decision.violation, version)


def _decided(rules: GameRules[S], position: Position[S], raw: Any) -> Decision:
    """`_decide` without the version."""
    state = position.game
    event = parse_event(raw, rules.events, state.seats)
    kind = event["type"]
    if kind == "score_claimed":
        if not 1 <= event["hand"] <= state.hand:
            raise ImpossibleEventError(
                f"score_claimed names hand {event['hand']}, but hands 1 to {state.hand} have begun"
                if state.hand
                else "score_claimed before any hand has begun",
                field="hand",
            )
        return Decision(event, None)
    if kind == "note":
        ref = event.get("ref")
        if ref is not None and ref > position.seq:
            raise ImpossibleEventError(f"note refers to seq {ref}, but the game is at seq {position.seq}", field="ref")
        return Decision(event, None)
    if kind == "retract":
        to_seq = event["to_seq"]
        if to_seq >= position.seq:
            raise ImpossibleEventError(
                f"retract to seq {to_seq} retracts nothing: the game is at seq {position.seq}", field="to_seq"
            )
        if to_seq < position.retract_floor:
            raise ImpossibleEventError(
                f"retract to seq {to_seq} would reach back past the retract at seq {position.retract_floor}",
                field="to_seq",
            )
        return Decision(event, None)
    if rules.is_terminal(state):
        raise ImpossibleEventError(f"the game has ended; only score_claimed, note and retract are accepted, not {kind}")
    if kind == "hand_voided" and not rules.hand_in_progress(state):
        raise ImpossibleEventError("hand_voided is accepted only while a hand is in progress")
    revealed = rules.reveals.get(kind)
    if revealed:
        check_revealed(rules, state, event, revealed)
    try:
        rules.validate(state, event)
    except IllegalEventError as breach:
        if state.options.get("enforcement") != "record":
            raise
        return Decision(event, {"rule": breach.rule, "message": breach.reason})
    return Decision(event, None)


def check_revealed(rules: GameRules[S], state: S, event: Event, fields: Sequence[str]) -> None:
    """The rules of `rules/README.md` every game shares for the cards an event brings out of the deck:
    each is a card of the game's deck, named once in the event, and not already seen in the hand.

    "Seen" is the game's `census`: every card in a known place (a hand, the table, a trick, a won
    pile...). At the start of a hand (no hand in progress) nothing of the hand is seen yet.

    Raises:
        ImpossibleEventError: an unknown card, a card named twice, or a card already seen.
    """
    census = rules.census(state)
    named: set[str] = set()
    for name in fields:
        for card in _cards_in(event.get(name)):
            if card not in census.deck:
                raise ImpossibleEventError(f"{phrases.card(card)} is not a card of this game's deck", field=name)
            if card in named:
                raise ImpossibleEventError(f"{phrases.card(card)} is named twice in this {event['type']}", field=name)
            named.add(card)
    if not rules.hand_in_progress(state):
        return
    for cards in census.places.values():
        seen = named.intersection(cards)
        if seen:
            raise ImpossibleEventError(
                f"{phrases.card(min(seen))} has already been seen in this hand",
                field=next(f for f in fields if f in event),
            )


def _cards_in(value: Any) -> Iterator[str]:
    """Every card code in a field's value: a card, a list of them, or per-seat lists/objects of them."""
    if value is None:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _cards_in(item)
    else:
        for item in value:
            yield from _cards_in(item)


def is_legal(rules: GameRules[S], position: Position[S], event: Any) -> bool:
    """Would `event` be accepted now with no violation, whatever the enforcement?

    The write path's own check (`decide`), answered as a bool: no enumeration of `legal_events`, so
    it also holds for the amounts `legal_events` only samples, and for chance events (a deal is legal
    when its cards are). An event out of shape, impossible, or against a rule is not legal.
    """
    try:
        return decide(rules, position, event).violation is None
    except (InvalidEventError, ImpossibleEventError, IllegalEventError):
        return False


def sealed(position: Position[Any], decision: Decision, *, recorded_at: str, actor: str, prev_hash: str) -> Envelope:
    """The envelope of a decided event, given the position after it (its seq, hand and derived facts)."""
    return seal(
        seq=position.seq,
        hand=position.game.hand,
        event=decision.event,
        result=position.facts,
        violation=decision.violation,
        recorded_at=recorded_at,
        actor=actor,
        prev_hash=prev_hash,
        version=decision.version,
    )


def apply(rules: GameRules[S], position: Position[S], event: Event, seq: int) -> Position[S]:
    """Fold one (already decided) event that is not a `retract`; `seq` is its seq."""
    kind = event["type"]
    deal = position.deal
    if kind in ENGINE_EVENTS:
        assert kind != "retract", "a retract is folded by fold() or restore()"
        return _position(position.game, seq, EMPTY, position.retract_floor, deal)
    if kind in DEAL_EVENTS:
        return _position(position.game, seq, EMPTY, position.retract_floor, dealing.on_deal_event(deal, event, seq))
    before = position.game
    if deal is not None and not deal.revealed:
        deal = _took(rules, before, event, deal)
    after, facts = rules.evolve(before, event, seq)
    if rules.is_terminal(after) and not rules.is_terminal(before):
        facts = _ended(rules, after, facts)
    return _position(after, seq, facts, position.retract_floor, deal)


def _took(rules: GameRules[Any], before: Any, event: Event, deal: DealState) -> DealState:
    """The deal state after `event`, folded on `before`: the cards it took have left the deck."""
    count = dealing.taken_by(rules, before, event)
    return dealing.took(deal, count) if count else deal


def _ended(rules: GameRules[S], after: S, facts: Facts) -> Facts:
    """`facts` of the event that ended the game in `after`, with the end's: winner and totals."""
    sheet = rules.score(after)
    ended = dict(facts)
    ended["game_ended"] = True
    ended["winner"] = sheet.winner
    ended["totals"] = seat_dict(sheet.totals)
    return ended


def _restore(at_target: Position[S], retract_seq: int, before: Position[S]) -> Position[S]:
    """The position after a `retract` at `retract_seq` on `before`: the game (and its deck) as it stood at
    its `to_seq`, the deck still marked opened if it had dealt a card (`dealing.after_retract`)."""
    deal = dealing.after_retract(at_target.deal, before.deal)
    return _position(at_target.game, retract_seq, EMPTY, retract_seq, deal)


class Replay(Generic[S]):
    """The one checked replay: every event decided, then applied, a `retract` restoring the position at
    its `to_seq` (python-chess's `push`, scalachess's `Replay.gameWhileValid`).

    Every writer and every re-checker of a record goes through it: the recorder's appends, verify, the
    importer, re-scoring, the simulator, the OpenAPI examples. Reads that only fold use `walk`/`fold`.

    Positions a retract may return to are kept: those of `keep` (the `to_seq` of every retract in a
    record, `retract_targets`), or every one when `keep` is None; one that is not kept is asked of
    `earlier(to_seq)` (the recorder folds it from the store's snapshots).
    """

    def __init__(
        self,
        rules: GameRules[S],
        start: Position[S],
        *,
        stored: bool = False,
        keep: Iterable[int] | None = None,
        earlier: Callable[[int], Position[S]] | None = None,
    ) -> None:
        self.rules = rules
        self.position = start
        #: re-checking a record as stored (verify, import): its cards are there, the server's events accepted
        self.stored = stored
        self._keep = None if keep is None else frozenset(keep)
        self._earlier = earlier
        self._kept: dict[int, Position[S]] = {start.seq: start}

    def decide(self, raw: Any, *, dealer: Dealer | None = None) -> Decision:
        """`decide` on the current position (nothing applied)."""
        return decide(self.rules, self.position, raw, dealer=dealer, stored=self.stored)

    def push(self, raw: Any, *, dealer: Dealer | None = None) -> Decision:
        """Decide `raw` and apply it; the decision.

        Raises:
            InvalidEventError / ImpossibleEventError / IllegalEventError: as `decide` (nothing applied).
        """
        decision = self.decide(raw, dealer=dealer)
        self.apply(decision.event)
        return decision

    def apply(self, event: Event) -> Position[S]:
        """Apply a decided event (a `retract` too) as the next seq; the new position."""
        seq = self.position.seq + 1
        if event["type"] == "retract":
            self.position = _restore(self._at(event["to_seq"]), seq, self.position)
        else:
            self.position = apply(self.rules, self.position, event, seq)
        if self._keep is None or seq in self._keep:
            self._kept[seq] = self.position
        return self.position

    def _at(self, seq: int) -> Position[S]:
        kept = self._kept.get(seq)
        if kept is not None:
            return kept
        if self._earlier is None:
            raise ImpossibleEventError(f"no position kept at seq {seq} to retract to", field="to_seq")
        return self._earlier(seq)


def retract_targets(envelopes: Iterable[Mapping[str, Any]]) -> set[int]:
    """The `to_seq` of every retract in the stream: the positions a fold must keep."""
    return {env["data"]["to_seq"] for env in envelopes if env["type"] == "retract"}


def walk(
    rules: GameRules[S], initial: Position[S], envelopes: Sequence[Mapping[str, Any]]
) -> Iterator[tuple[Mapping[str, Any], Position[S]]]:
    """Each stored envelope with the position after it, in order, honouring retractions.

    The same steps as `apply` for each envelope, with the per-event work trimmed: the game is asked
    `is_terminal` once per event (whether it had ended before the event is the answer kept from the
    event before), and the event is built from the envelope inline, in today's shape (an envelope of
    an older version of a type whose data changed is upcast first, `events.upcast`).
    """
    targets = retract_targets(envelopes)
    kept: dict[int, Position[S]] = {initial.seq: initial} if initial.seq in targets else {}
    evolve, is_terminal = rules.evolve, rules.is_terminal
    reshaped = data_reshaped(rules.events)  # the types whose older envelopes' data is upcast (none: no cost)
    game, floor, deal = initial.game, initial.retract_floor, initial.deal
    position = initial
    #: is_terminal(game), or None when not known yet
    over: bool | None = None
    for env in envelopes:
        seq = env["seq"]
        kind = env["type"]
        if kind == "retract":
            position = _restore(kept[env["data"]["to_seq"]], seq, position)
            game, floor, over, deal = position.game, seq, None, position.deal
        elif kind in ENGINE_EVENTS:
            position = _position(game, seq, EMPTY, floor, deal)
        elif kind in DEAL_EVENTS:
            deal = dealing.on_deal_event(deal, {"type": kind, **env["data"]}, seq)
            position = _position(game, seq, EMPTY, floor, deal)
        else:
            if over is None:
                over = is_terminal(game)
            event = {"type": kind, **env["data"]} if kind not in reshaped else upcast(env, rules.events).event
            if deal is not None and not deal.revealed:
                deal = _took(rules, game, event, deal)
            after, facts = evolve(game, event, seq)
            ended = is_terminal(after)
            if ended and not over:
                facts = _ended(rules, after, facts)
            game, over = after, ended
            position = _position(game, seq, facts, floor, deal)
        if seq in targets:
            kept[seq] = position
        yield env, position


#: The envelope types after which `fold` walks (`walk`): a `retract` returns to a position the walk keeps,
#: and a server-dealt game's deck is folded beside the game.
_WALKED = frozenset({"retract", *DEAL_EVENTS})


def fold(
    rules: GameRules[S],
    initial: Position[S],
    envelopes: Sequence[Mapping[str, Any]],
    boundaries: list[tuple[int, Position[S]]] | None = None,
    every: int = 0,
) -> Position[S]:
    """The position after the stored envelopes, in order, honouring retractions.

    `boundaries`, if given, receives `(seq, position)` of every position passed that ends a hand
    (`hand_in_progress` true before the event, false after it) or whose seq is a multiple of `every`
    (when not 0): where snapshots are taken (`projections/core/snapshots.py`).

    A record with no `retract` and no deck of its own (nearly all of them) is folded without the walk's
    per-event bookkeeping: only the game's state is carried from event to event, and a `Position` (with
    the event's derived facts, the end of the game's) is made only where one is returned or kept. The
    positions are those `walk` gives, which the records with a retract or a deck go through.
    """
    n = len(envelopes)
    if not n:
        return initial
    reshaped = data_reshaped(rules.events)  # the types whose older envelopes' data is upcast (none: no cost)
    if boundaries is None and not reshaped and initial.deal is None:
        return _plain_fold(rules, initial, envelopes, boundaries, every)
    if initial.deal is not None or not _WALKED.isdisjoint([env["type"] for env in envelopes]):
        return _walked_fold(rules, initial, envelopes, boundaries, every)
    evolve = rules.evolve
    floor = initial.retract_floor
    game = initial.game
    marking = boundaries is not None
    marks: list[tuple[int, Position[S]]] = boundaries if boundaries is not None else []
    in_hand = rules.hand_in_progress(game) if marking else False
    last = n - 1
    for i in range(last):  # the folds that mark snapshots' places, or upcast
        env = envelopes[i]
        kind = env["type"]
        if kind in ENGINE_EVENTS:
            if marking and every and env["seq"] % every == 0:
                marks.append((env["seq"], _position(game, env["seq"], EMPTY, floor)))
            continue
        event = {"type": kind, **env["data"]} if kind not in reshaped else upcast(env, rules.events).event
        seq = env["seq"]
        if not marking:
            game = evolve(game, event, seq)[0]
            continue
        after, facts = evolve(game, event, seq)
        now_in_hand = rules.hand_in_progress(after)
        if (in_hand and not now_in_hand) or (every and seq % every == 0):
            marks.append((seq, _position(after, seq, _facts(rules, game, after, facts), floor)))
        game, in_hand = after, now_in_hand
    env = envelopes[last]
    before = _position(game, envelopes[last - 1]["seq"] if last else initial.seq, EMPTY, floor)
    kind = env["type"]
    event = {"type": kind, **env["data"]} if kind not in reshaped else upcast(env, rules.events).event
    position = apply(rules, before, event, env["seq"])
    if marking and (
        (every and position.seq % every == 0)
        or (kind not in ENGINE_EVENTS and in_hand and not rules.hand_in_progress(position.game))
    ):
        marks.append((position.seq, position))
    return position


#: The envelope types a fold hands to no game's `evolve`: the engine's own, and a server-dealt game's deck's.
_NOT_THE_GAMES = ENGINE_EVENTS | DEAL_EVENTS


def _plain_fold(
    rules: GameRules[S],
    initial: Position[S],
    envelopes: Sequence[Mapping[str, Any]],
    boundaries: list[tuple[int, Position[S]]] | None,
    every: int,
) -> Position[S]:
    """`fold` of the commonest kind (a rebuild, a read): no places to mark, nothing to upcast, no deck of its own.

    Only the game's state is carried from event to event, and a `Position` is made for the last. The
    envelopes are not looked over first for a `retract` or a deck's event (a pass over every envelope):
    the loop meets one, if any, and the record is folded again through `walk`, the rare case.
    """
    evolve = rules.evolve
    game = initial.game
    last = len(envelopes) - 1
    for env in islice(envelopes, last):
        kind = env["type"]
        if kind in _NOT_THE_GAMES:
            if kind in _WALKED:
                return _walked_fold(rules, initial, envelopes, boundaries, every)
            continue
        event = dict(env["data"])  # the event: its data and its type; a dict's copy, then one key, costs half
        event["type"] = kind  # what `{"type": kind, **data}` does (the event evolve reads, its state alike)
        game = evolve(game, event, env["seq"])[0]
    env = envelopes[last]
    kind = env["type"]
    if kind in _WALKED:
        return _walked_fold(rules, initial, envelopes, boundaries, every)
    before = _position(game, envelopes[last - 1]["seq"] if last else initial.seq, EMPTY, initial.retract_floor)
    return apply(rules, before, {"type": kind, **env["data"]}, env["seq"])


def _facts(rules: GameRules[S], before: S, after: S, facts: Facts) -> Facts:
    """The derived facts of the event that took `before` to `after`: the game's, and the end's if it ended there."""
    if rules.is_terminal(after) and not rules.is_terminal(before):
        return _ended(rules, after, facts)
    return facts


def _walked_fold(
    rules: GameRules[S],
    initial: Position[S],
    envelopes: Sequence[Mapping[str, Any]],
    boundaries: list[tuple[int, Position[S]]] | None,
    every: int,
) -> Position[S]:
    """`fold` through `walk`: a position for every event (a record with a retract or a deck of its own)."""
    last = initial
    if boundaries is None:
        for _, last in walk(rules, initial, envelopes):  # noqa: B007 - the loop runs for its last value
            pass
        return last
    hand_in_progress = rules.hand_in_progress
    for _, after in walk(rules, initial, envelopes):
        if (every and after.seq % every == 0) or (hand_in_progress(last.game) and not hand_in_progress(after.game)):
            boundaries.append((after.seq, after))
        last = after
    return last


#: The events a `retract` leaves in force (issue 17): a correction takes back game events only. A
#: `score_claimed` or a `note` appended in a retracted range is what someone at the table said, not
#: a move of the game, so it keeps counting (the score sheet's claims, the replay, the audit, which
#: says it was made before the correction).
KEPT_BY_RETRACT = frozenset({"score_claimed", "note"})


def takes_back(kind: str) -> bool:
    """Whether a `retract` whose range holds an event of type `kind` takes that event back."""
    return kind not in KEPT_BY_RETRACT


def corrected_by(seq: int, retracts: Iterable[tuple[int, int]]) -> int | None:
    """The seq of the retract whose range (`to_seq`, seq) holds `seq`, given `(seq, to_seq)` of each
    retract (ranges never overlap: no retract reaches back past another), or None.

    Every event in the range, whatever its type; whether it is taken back is `takes_back`.
    """
    return next((by for by, to_seq in retracts if to_seq < seq < by), None)


def corrected_seqs(envelopes: Iterable[Mapping[str, Any]]) -> dict[int, int]:
    """Every seq inside a retract's range, whatever its type, mapped to the seq of that retract.

    The events a viewer must see as the table saw them after the correction (their states show the
    retracted plays); `retracted_seqs` is the subset the retract took back.
    """
    out: dict[int, int] = {}
    for env in envelopes:
        if env["type"] == "retract":
            for seq in range(env["data"]["to_seq"] + 1, env["seq"]):
                out.setdefault(seq, env["seq"])
    return out


def retracted_seqs(envelopes: Iterable[Mapping[str, Any]]) -> dict[int, int]:
    """Every retracted seq (a game event in a retract's range), mapped to the seq of the retract that
    took it back. A `score_claimed` or `note` in the range is not retracted (`KEPT_BY_RETRACT`)."""
    listed = list(envelopes)
    covered = corrected_seqs(listed)
    if not covered:
        return covered
    return {env["seq"]: covered[env["seq"]] for env in listed if env["seq"] in covered and takes_back(env["type"])}


def made_before(envelopes: Iterable[Mapping[str, Any]]) -> dict[int, int]:
    """Each `score_claimed` and `note` appended in a retracted range, mapped to the seq of that retract:
    still in force, made before the correction (what the audit says of it)."""
    listed = list(envelopes)
    covered = corrected_seqs(listed)
    return {env["seq"]: covered[env["seq"]] for env in listed if env["seq"] in covered and not takes_back(env["type"])}


def fold_events(rules: GameRules[S], initial: Position[S], events: Iterable[Event]) -> Position[S]:
    """Fold plain events (no envelopes), numbering them on from `initial.seq`. Retracts are refused."""
    position = initial
    for seq, event in enumerate(events, start=initial.seq + 1):
        if event["type"] == "retract":
            raise InvalidEventError("fold_events cannot fold a retract; use fold() on envelopes")
        position = apply(rules, position, event, seq)
    return position


def render_state(
    rules: GameRules[S], position: Position[S], viewpoint: Viewpoint, names: Sequence[str]
) -> dict[str, Any]:
    """The state document of DESIGN.md: `{game, seq, hand, phase, to_act, seats, table, hand_points, totals}`,
    with the game's `units` (`GameRules.units`), so that a reader writes every value in its unit."""
    state = position.game
    seen = rules.view(state, viewpoint)
    for seat_doc in seen.get("seats", []):
        seat_doc["name"] = names[seat_doc["seat"]] if seat_doc["seat"] < len(names) else None
    sheet = rules.score(state)
    return {
        "game": rules.kind,
        "seq": position.seq,
        "hand": state.hand,
        "viewpoint": "all" if viewpoint is OMNISCIENT else ("public" if viewpoint == SPECTATOR else viewpoint),
        **seen,
        "totals": seat_dict(sheet.totals),
        "finished": sheet.finished,
        "winner": sheet.winner,
        "units": dict(rules.units),
    }
