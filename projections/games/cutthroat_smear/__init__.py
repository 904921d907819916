"""Cutthroat Canadian Smear for 2 or 3 players, every player for themselves, to 11.

Rule source: `rules/cutthroat-smear.md` (from seed `004_015e2881acb5cf5c.txt`).
Options: `first_dealer` (seat, default 0), `enforcement`, and the house rules
(rules "House rules"; a record made before them reads as their defaults):
`high_point` (`"highest_trump"`, default, or `"ace_only"`: only a played ace
of trump scores High; scoring only) and `dealer_bids_after_passes` (bool,
default true; false: when every other player has passed, the hand is thrown
in at once, the dealer does not speak; a play option).

Readings of the rule text:

- Six cards each from a 52-card deck; the rest is never named, never seen,
  and counts as unseen in the census.
- Bidding: each seat speaks once, from the dealer's left; a bid is 2, 3 or 4
  and strictly above the high bid. It ends when the dealer has spoken or at
  a bid of 4 (the seats after it do not speak). A bid out of 2-4 or not above
  the high bid, and any event out of turn, is impossible (not illegal).
- `high_point: "ace_only"`: with no ace of trump played nobody takes High
  (a `smear.high` line at 0, to the seat of the highest trump, says so);
  Low, Jack and Game are unchanged, and a lone trump that is not the ace
  is Low only.
- `dealer_bids_after_passes: false`: the bidding ends with the last
  non-dealer's pass when nobody bid; a `bid` or `pass` by the dealer then
  is out of turn (impossible). With 2 players that is the first pass.
- When every seat passes, the hand is thrown in: it is a hand (numbered,
  listed, zero points, with one explaining line) and the same dealer deals
  again. A `hand_voided` hand scores zero and the same dealer deals again too.
- The bidder leads first with any card; its suit is trump. Holding the suit
  led, a player must play that suit or a trump; void in it, any card. When
  trump is led that means trump. Breaking this is `smear.follow_suit`.
- High and Low go to whoever *played* the highest and the lowest trump
  played in the hand (the dealt-out rest is out of play); Jack to the winner
  of the trick that holds the jack of trump; Game to the single seat with
  the most game value in its won tricks (any tie, including all at 0, gives
  it to nobody).
- Score lines: one per point taken (a failed bidder's own points appear at
  0 with "not counted"), one `smear.game` line at 0 per seat in a Game tie,
  and the bidder's `smear.bid_made` (0 points, it only explains) or
  `smear.bid_failed` (minus the bid) line.
- End: after a scored hand whose bidder made the bid, the game ends if the
  bidder's new total is 11 or more, or if the bid was 4 and the bidder's
  total before the hand was at least 1; the bidder wins, whatever the other
  totals. Nothing else ends it.

`phase` values: `deal` (a deal is due), `bid` (a seat is to bid or pass),
`play` (a seat is to lead or follow), `over` (the game has ended).

`table` fields: `dealer`, `bids` (`[{seat, amount, seq}]`, amount null for a
pass), `high_bid`, `bidder` (null until bidding is over, or after a throw-in),
`trump` (suit, null before the first lead), `leader`, `trick` (`[{seat,
card}]`), `tricks_played`, `last_trick` (`{number, winner, cards: [{seat,
card}], seq}` or null). Each seat shows `cards` (or `card_count`), `won`
(cards of the tricks it won, seen by all), `tricks`, `game` (game value of
those cards), `bid` (its amount, "pass", or null if it has not spoken) and
`dealer`. `hand_points`: during play, the points each seat holds as the
cards stand (before the bid is settled); between hands, what the last hand
scored.

Facts (`result`): a deal gives `dealer`, `first_to_speak`; a bid or pass
`high_bid`, `bidding_over`, then `bidder`, or `thrown_in`, `hand_ended` and
`points` when all passed; a play `trump` (first lead), and at a trick's end
`trick_winner`, `trick`, `trick_game_value`, `jack_won_by` (if it holds the
jack of trump); the last play adds `hand_ended`, `points`, `won` (points
taken, before the bid is settled), `bidder`, `bid`, `made`, `high`, `low`,
`jack`, `game` (seats, or null: `RULES.units` says so) and `game_counts`.
Score reasons and messages name seats and cards with the markers of
`projections/core/phrases.py`, rendered with the players' names.

Simulation: uniformly random bids never end a game (they mostly fail and
every total sinks below zero), so random playouts play with
`RULES.playout_bot`, a chooser with some table sense; the demo games with
`RULES.bot` (both in `bot.py`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, assert_never

from events.cards import FULL_DECK, rank, suit
from events.common import HandVoided
from events.errors import IllegalEventError, ImpossibleEventError, OutOfTurnError
from events.games.cutthroat_smear import EVENTS, HAND_SIZE, BidEvent, DealEvent, PassEvent, SmearEvent
from projections.core.dealing import DEALING
from projections.core.fastreplace import copy_with
from projections.core.phrases import card as card_marker
from projections.core.phrases import seat as seat_marker
from projections.core.rules import (
    CHANCE,
    EMPTY,
    ENFORCEMENT,
    Census,
    Event,
    Facts,
    FieldKind,
    GameRules,
    HandScore,
    OptionSpec,
    ScoreSheet,
    Secret,
    SituationReads,
    ToAct,
    Viewpoint,
    Visibility,
    hand_score,
    opt_bool,
    opt_choice,
    opt_seat,
    seat_dict,
)
from projections.core.scores import deferred_line
from projections.games.cutthroat_smear import _offers
from projections.games.cutthroat_smear import bot as bots
from projections.games.cutthroat_smear._scoring import (
    GAME_VALUE,
    STRENGTH,
    SUIT_NAMES,
    Play,
    Trick,
    count_points,
    game_value,
    score_hand,
    trick_winner,
)
from projections.games.cutthroat_smear._state import SmearState, to_act
from projections.games.cutthroat_smear.dealing import DEALING_ORDER
from projections.games.cutthroat_smear.duplicate import DUPLICATE
from projections.games.cutthroat_smear.readmodels import FACT_OWNERS, RATING, STATISTICS
from projections.games.cutthroat_smear.review import REVIEWER
from projections.games.cutthroat_smear.table import SmearTable
from projections.games.cutthroat_smear.words import WORDS

CARD_SET = frozenset(FULL_DECK)
BIDS = (2, 3, 4)

OPTIONS: dict[str, OptionSpec] = {
    "first_dealer": OptionSpec(0, opt_seat, "the dealer of the first hand", seating=True),
    "enforcement": ENFORCEMENT,
    # house rules (rules "House rules"): the two readings of the seed a club picks between
    "high_point": OptionSpec(
        "highest_trump",
        opt_choice("highest_trump", "ace_only"),
        'house rule: "highest_trump" (default): High goes to the highest trump played; "ace_only": only a played '
        "ace of trump scores High (no ace played, no High point)",
        scoring_only=True,
        rule="smear.high",
    ),
    "dealer_bids_after_passes": OptionSpec(
        True,
        opt_bool,
        "house rule: true (default): when every other player has passed, the dealer may still bid; false: the "
        "hand is thrown in at once and the dealer does not speak",
        rule="smear.throw_in",
    ),
    "dealing": DEALING,
}


def _ace_only(state: SmearState) -> bool:
    """The house rule `high_point: "ace_only"` (a record made before the option reads as its default)."""
    return state.options.get("high_point") == "ace_only"


# --------------------------------------------------------------------------- helpers


def allowed_plays(state: SmearState, seat: int) -> frozenset[str]:
    """The cards `seat` may play now: any to lead; else the suit led or a trump, or anything when void."""
    held = state.hands[seat]
    if not state.trick:
        return held
    led = suit(state.trick[0][1])
    if not any(suit(c) == led for c in held):
        return held
    return frozenset(c for c in held if suit(c) in (led, state.trump))


def _where_played(state: SmearState, card: str) -> Play | None:
    for play in (*(p for t in state.tricks for p in t.plays), *state.trick):
        if play[1] == card:
            return play
    return None


# --------------------------------------------------------------------------- interface


def initial_state(players: Sequence[str], options: Mapping[str, Any]) -> SmearState:
    n = len(players)
    return SmearState(
        seats=n,
        options=dict(options),
        next_dealer=options["first_dealer"],
        dealt=tuple(frozenset() for _ in range(n)),
        totals=(0,) * n,
    )


def validate(state: SmearState, event: Event) -> None:
    """Raises `ImpossibleEventError` / `OutOfTurnError` / `IllegalEventError` (`smear.follow_suit`)."""
    kind = event["type"]
    if kind == "hand_voided":
        return
    if kind == "deal":
        _validate_deal(state, event)
        return
    if state.phase == "deal":
        raise OutOfTurnError(f"no hand is in progress: a deal by {seat_marker(state.next_dealer)} is due")
    seat = event["seat"]
    expected = to_act(state)[0]
    if kind in ("bid", "pass"):
        if state.phase != "bid":
            bid = state.high_bid
            assert bid is not None
            raise OutOfTurnError(
                f"the bidding is over: {seat_marker(bid[0])} bid {bid[1]}; it is {seat_marker(expected)}'s turn to play"
            )
        if seat != expected:
            raise OutOfTurnError(f"it is {seat_marker(expected)}'s turn to bid or pass, not {seat_marker(seat)}'s")
        if kind == "bid":
            _validate_bid(state, seat, event["amount"])
        return
    if kind == "play":
        if state.phase != "play":
            raise OutOfTurnError(f"the bidding is not over: it is {seat_marker(expected)}'s turn to bid or pass")
        if seat != expected:
            raise OutOfTurnError(f"it is {seat_marker(expected)}'s turn to play, not {seat_marker(seat)}'s")
        _validate_play(state, seat, event["card"])
        return
    raise ImpossibleEventError(f"unknown event {kind}")  # pragma: no cover - the schema admits no other type


def _validate_deal(state: SmearState, event: Event) -> None:
    if state.phase != "deal":
        raise OutOfTurnError("a hand is in progress; a new deal comes after it ends (or after hand_voided)")
    if event["dealer"] != state.next_dealer:
        raise ImpossibleEventError(
            f"{seat_marker(state.next_dealer)} deals this hand, not {seat_marker(event['dealer'])}", field="dealer"
        )
    # a card named twice in the deal (or not of the deck): the engine's, from RULES.reveals


def _validate_bid(state: SmearState, seat: int, amount: int) -> None:
    if amount not in BIDS:
        raise ImpossibleEventError(f"a bid is 2, 3 or 4, not {amount}", field="amount")
    high = state.high_bid
    if high is not None and amount <= high[1]:
        raise ImpossibleEventError(
            f"{seat_marker(seat)} bids {amount}, but a bid must be higher than "
            f"{seat_marker(high[0])}'s bid of {high[1]}",
            field="amount",
        )


def _validate_play(state: SmearState, seat: int, card: str) -> None:
    if card not in state.hands[seat]:
        played = _where_played(state, card)
        if played is not None:
            raise ImpossibleEventError(
                f"{seat_marker(seat)} does not hold {card_marker(card)}: it has already been played in this hand, "
                f"by {seat_marker(played[0])} at event {played[2]}"
            )
        raise ImpossibleEventError(f"{seat_marker(seat)} does not hold {card_marker(card)}")
    if card not in allowed_plays(state, seat):
        led = state.trick[0][1]
        assert state.trump is not None
        if suit(led) == state.trump:
            why = f"holds trump ({SUIT_NAMES[state.trump]}) and must play trump to {card_marker(led)}"
        else:
            why = (
                f"holds {SUIT_NAMES[suit(led)]} and must follow {card_marker(led)} "
                f"or play a trump ({SUIT_NAMES[state.trump]})"
            )
        raise IllegalEventError("smear.follow_suit", f"{seat_marker(seat)} {why}, not {card_marker(card)}")


_new = object.__new__
_set = object.__setattr__
#: `seat_dict`'s keys, for the fold's facts (at most 3 seats)
_SEAT_KEYS = ("0", "1", "2")


def _seat_dict(values: Sequence[Any]) -> dict[str, Any]:
    """`seat_dict(values)`, without formatting a key per seat (the fold's facts)."""
    return dict(zip(_SEAT_KEYS, values, strict=False))


def evolve(state: SmearState, event: SmearEvent, seq: int) -> tuple[SmearState, Facts]:
    """The fold step for the event whose seq is `seq`: no rule checks, no randomness.

    A play is most of a game's events: its step is written out here, copying the state's `__dict__`
    once (`fastreplace.copy_with`, inline); a trick's last play goes on in `_end_trick`.
    """
    if event["type"] == "play":
        seat = event["seat"]
        card = event["card"]
        changes = state.__dict__.copy()
        trick = changes["trick"] = (*state.trick, (seat, card, seq))
        trump = state.trump
        facts: Facts = EMPTY
        if trump is None:
            trump = changes["trump"] = card[1]
            facts = {"trump": trump}
        if len(trick) == state.seats:
            facts = _end_trick(state, trick, trump, changes, dict(facts))
        after = _new(SmearState)
        _set(after, "__dict__", changes)
        return after, facts
    elif event["type"] == "bid":
        return _evolve_speak(state, event, event["amount"], seq)
    elif event["type"] == "pass":
        return _evolve_speak(state, event, None, seq)
    elif event["type"] == "deal":
        return _evolve_deal(state, event)
    elif event["type"] == "hand_voided":
        return _evolve_voided(state, event)
    else:
        assert_never(event)


def _evolve_deal(state: SmearState, event: DealEvent) -> tuple[SmearState, Facts]:
    dealer = event["dealer"]
    first = (dealer + 1) % state.seats
    after = copy_with(
        state,
        {
            "hand": state.hand + 1,
            "phase": "bid",
            "dealer": dealer,
            "next_dealer": dealer,
            "dealt": tuple([frozenset(h) for h in event["hands"]]),
            "bids": (),
            "high_bid": None,
            "bidder": None,
            "trump": None,
            "leader": first,
            "trick": (),
            "tricks": (),
        },
    )
    return after, {"dealer": dealer, "first_to_speak": first}


def _evolve_voided(state: SmearState, event: HandVoided) -> tuple[SmearState, Facts]:
    void = HandScore(state.hand, (0,) * state.seats, ())
    after = copy_with(state, {"phase": "deal", "results": state.results.append(void)})
    return after, {"hand_ended": True, "voided": True, "points": _seat_dict(void.points)}


def _evolve_speak(
    state: SmearState, event: BidEvent | PassEvent, amount: int | None, seq: int
) -> tuple[SmearState, Facts]:
    """A `bid` of `amount` or a `pass` (`amount` None)."""
    seat = event["seat"]
    spoken = (seat, amount, seq)
    bids = (*state.bids, spoken)
    high = state.high_bid
    # the highest bid, the first of equal ones (as `max` picks it)
    if amount is not None and (high is None or amount > high[1]):
        high = (seat, amount, seq)
    # with `dealer_bids_after_passes` false, the last pass before the dealer's turn ends the bidding
    at_once = (
        high is None and len(bids) == state.seats - 1 and state.options.get("dealer_bids_after_passes", True) is False
    )
    over = seat == state.dealer or amount == 4 or at_once
    facts: dict[str, Any] = {"high_bid": None if high is None else high[1], "bidding_over": over}
    if not over:
        return copy_with(state, {"bids": bids, "high_bid": high}), facts
    if high is None:
        assert state.dealer is not None
        events = tuple(q for _, _, q in bids)
        line = deferred_line(
            state.hand, seat, 0, "smear.throw_in", _throw_in_reason, events, state.dealer, state.seats, at_once,
            events=events,
        )  # fmt: skip
        thrown = hand_score(state.hand, state.seats, [line])
        facts.update(thrown_in=True, hand_ended=True, points=_seat_dict(thrown.points))
        return copy_with(state, {"bids": bids, "phase": "deal", "results": state.results.append(thrown)}), facts
    facts["bidder"] = high[0]
    changes = {"bids": bids, "high_bid": high, "phase": "play", "bidder": high[0], "leader": high[0]}
    return copy_with(state, changes), facts


def _throw_in_reason(events: tuple[int, ...], dealer: int, seats: int, at_once: bool) -> str:
    """A thrown-in hand's reason (written when read: `deferred_line`): who passed, and who deals again."""
    seqs = ", ".join(str(q) for q in events)
    who = (
        f"every player but the dealer, {seat_marker(dealer)}, passed (seqs {seqs}): by the house rule "
        "the dealer does not speak, and"
        if at_once
        else f"all {seats} players passed (seqs {seqs}):"
    )
    return f"{who} the hand is thrown in, no score; {seat_marker(dealer)} deals again"


def _end_trick(
    state: SmearState, trick: tuple[Play, ...], trump: str, changes: dict[str, Any], facts: dict[str, Any]
) -> dict[str, Any]:
    """The last play of a trick: who won it, and at the sixth, the hand's score. Into `changes`; the facts."""
    winner = trick_winner(trick, trump)
    number = len(state.tricks) + 1
    tricks = (*state.tricks, Trick(number, trick, winner))
    facts["trick_winner"] = winner
    facts["trick"] = number
    # `game_value` of the trick's cards and whether the jack of trump is one of them, in one pass over
    # the plays (no list of the cards, no comprehension): a fold ends a trick every few events
    jack = "J" + trump
    value, holds_jack = 0, False
    for _, card, _ in trick:
        value += GAME_VALUE.get(card[0], 0)
        if card == jack:
            holds_jack = True
    facts["trick_game_value"] = value
    if holds_jack:
        facts["jack_won_by"] = winner
    changes["trick"] = ()
    changes["tricks"] = tricks
    changes["leader"] = winner
    if number >= HAND_SIZE:
        _end_hand(state, tricks, trump, changes, facts)
    return facts


def _end_hand(
    state: SmearState, tricks: tuple[Trick, ...], trump: str, changes: dict[str, Any], facts: dict[str, Any]
) -> None:
    """Score the played-out hand, settle the bid, and see whether the game is over: into `changes`, `facts`."""
    high = state.high_bid
    assert high is not None and state.dealer is not None
    bidder = high[0]
    result = score_hand(state.hand, state.seats, tricks, trump, high, state.totals[bidder], ace_only=_ace_only(state))
    totals = tuple([t + p for t, p in zip(state.totals, result.score.points, strict=True)])
    pts = result.points
    changes["phase"] = "over" if result.wins else "deal"
    changes["next_dealer"] = (state.dealer + 1) % state.seats
    changes["results"] = state.results.append(result.score)
    changes["totals"] = totals
    changes["winner"] = bidder if result.wins else None
    facts["hand_ended"] = True
    facts["points"] = _seat_dict(result.score.points)
    facts["won"] = _seat_dict(result.won)
    facts["bidder"] = bidder
    facts["bid"] = high[1]
    facts["made"] = result.made
    facts["high"] = None if pts.high is None else pts.high[0]
    facts["low"] = None if pts.low is None else pts.low[0]
    facts["jack"] = None if pts.jack is None else pts.jack[1].winner
    facts["game"] = pts.game
    facts["game_counts"] = _seat_dict(pts.game_counts)


def score(state: SmearState) -> ScoreSheet:
    """Totals are cumulative points (negative allowed); the bidder who ends the game wins."""
    return ScoreSheet(state.results.totals(state.seats), state.results, state.phase == "over", state.winner)


def is_terminal(state: SmearState) -> bool:
    return state.phase == "over"


def hand_in_progress(state: SmearState) -> bool:
    return state.phase in ("bid", "play")


def legal_events(state: SmearState) -> list[dict[str, Any]]:
    """Every legal decision now (deals are chance events): bids above the high one and a pass, or plays."""
    if state.phase == "bid":
        seat = to_act(state)[0]
        high = state.high_bid
        floor = 0 if high is None else high[1]
        out: list[dict[str, Any]] = [{"type": "bid", "seat": seat, "amount": a} for a in BIDS if a > floor]
        out.append({"type": "pass", "seat": seat})
        return out
    if state.phase == "play":
        seat = to_act(state)[0]
        return [{"type": "play", "seat": seat, "card": c} for c in _sorted(allowed_plays(state, seat))]
    return []


def chance_events(state: SmearState, rng: random.Random) -> list[dict[str, Any]]:
    """A deal of 6 cards each from a shuffled deck."""
    if state.phase != "deal":
        return []
    cards = list(FULL_DECK)
    rng.shuffle(cards)
    hands = [cards[i * HAND_SIZE : (i + 1) * HAND_SIZE] for i in range(state.seats)]
    return [{"type": "deal", "dealer": state.next_dealer, "hands": hands}]


def _sorted(cards: frozenset[str] | Sequence[str]) -> list[str]:
    return sorted(cards, key=lambda c: (c[1], -STRENGTH[rank(c)]))


def _hand_points(state: SmearState) -> tuple[int, ...]:
    if state.phase == "play":
        return count_points(state.seats, state.tricks, state.trump, state.trick, ace_only=_ace_only(state)).won(
            state.seats
        )
    if state.phase in ("deal", "over") and state.results and state.results[-1].hand == state.hand:
        return state.results[-1].points
    return (0,) * state.seats


def view(state: SmearState, seat: Viewpoint) -> dict[str, Any]:
    """The table as `seat` saw it: what `VISIBILITY` hides (the other hands) as counts only; tricks and
    bids are public."""
    spoken = {s: ("pass" if a is None else a) for s, a, _ in state.bids}
    hands = state.hands
    seats = []
    for s in range(state.seats):
        doc: dict[str, Any] = {"seat": s, **VISIBILITY.seat_cards(state, seat, s, _sorted(hands[s]))}
        won = state.won(s)
        doc.update(
            won=list(won),
            tricks=sum(1 for t in state.tricks if t.winner == s),
            game=game_value(won),
            bid=spoken.get(s),
            dealer=s == state.dealer,
        )
        seats.append(doc)
    high = state.high_bid
    last = state.tricks[-1] if state.tricks else None
    return {
        "phase": state.phase,
        "to_act": list(to_act(state)),
        "seats": seats,
        "table": {
            "dealer": state.dealer,
            "bids": [{"seat": s, "amount": a, "seq": q} for s, a, q in state.bids],
            "high_bid": None if high is None else high[1],
            "bidder": state.bidder,
            "trump": state.trump,
            "leader": state.leader if state.phase == "play" else None,
            "trick": [{"seat": s, "card": c} for s, c, _ in state.trick],
            "tricks_played": len(state.tricks),
            "last_trick": None
            if last is None
            else {
                "number": last.number,
                "winner": last.winner,
                "cards": [{"seat": s, "card": c} for s, c, _ in last.plays],
                "seq": last.seq,
            },
        },
        "hand_points": seat_dict(_hand_points(state)),
    }


def held(state: SmearState) -> dict[int, frozenset[str]]:
    """The cards each seat holds, which no other seat sees (tricks, bids and plays are public)."""
    return dict(enumerate(state.hands))


#: What each seat may see: its own dealt cards (every other seat's are hidden), and its own hand.
VISIBILITY: Visibility[SmearState] = Visibility(secrets={"deal": (Secret("hands", to="each_seat"),)}, held=held)


#: the events `situations` can tag (a bid; a throw-in, the jack's trick, a hand's end with the bid made or
#: set, a voided hand)
SITUATION_READS = SituationReads(types=("bid",), result_marks=('"thrown_in"', '"jack_won_by"', '"made"', '"voided"'))


def situations(event: Event, result: Mapping[str, Any]) -> list[str]:
    """Search tags: bid_4, throw_in, jack (the trick that took the jack of trump), made_bid / failed_bid."""
    tags = []
    if event["type"] == "bid" and event.get("amount") == 4:
        tags.append("bid_4")
    if result.get("thrown_in"):
        tags.append("throw_in")
    if "jack_won_by" in result:
        tags.append("jack")
    if result.get("hand_ended") and "made" in result:
        tags.append("made_bid" if result["made"] else "failed_bid")
        if result.get("game") is None:
            tags.append("game_tied")
    if result.get("voided"):
        tags.append("voided")
    return tags


def census(state: SmearState) -> Census:
    """The hands, the trick on the table and each seat's won tricks; the undealt rest unseen."""
    hands = state.hands
    places: dict[str, tuple[str, ...]] = {f"hand {s}": tuple(hands[s]) for s in range(state.seats)}
    places["trick"] = tuple(c for _, c, _ in state.trick)
    for s in range(state.seats):
        places[f"won {s}"] = state.won(s)
    unseen = len(FULL_DECK) - HAND_SIZE * state.seats if state.hand else len(FULL_DECK)
    return Census(places, unseen, CARD_SET, VISIBILITY.held(state))


# --------------------------------------------------------------------------- the declaration


class Phase(StrEnum):
    """The state's `phase` values (the strings the state and the state document hold)."""

    DEAL = "deal"
    BID = "bid"
    PLAY = "play"
    OVER = "over"


def next_to_act(state: SmearState) -> ToAct:
    """The seat to bid or play, CHANCE when a deal is due, () once the game is over."""
    return CHANCE if state.phase == Phase.DEAL else to_act(state)


SITUATION_TAGS: dict[str, str] = {
    "bid_4": "a bid of 4, the highest",
    "throw_in": "every seat passed and the hand was thrown in",
    "jack": "the trick that took the jack of trump",
    "made_bid": "the bidder made the bid",
    "failed_bid": "the bidder failed the bid (set back)",
    "game_tied": "the point for game was tied, so nobody scored it",
    "voided": "a hand was voided",
}

FIELDS: dict[str, dict[str, FieldKind]] = {
    "deal": {"dealer": "seat", "hands": "cards"},
    "bid": {"seat": "seat"},
    "pass": {"seat": "seat"},
    "play": {"seat": "seat", "card": "card"},
}


RULES: GameRules[SmearState] = GameRules(
    kind="cutthroat-smear",
    title="Cutthroat Canadian Smear",
    player_counts=(2, 3),
    events=EVENTS,
    event_types=SmearEvent,
    options=OPTIONS,
    initial_state=initial_state,
    validate=validate,
    evolve=evolve,
    score=score,
    legal_events=legal_events,
    chance_events=chance_events,
    view=view,
    table=SmearTable,
    visibility=VISIBILITY,
    is_terminal=is_terminal,
    hand_in_progress=hand_in_progress,
    census=census,
    situations=situations,
    situation_reads=SITUATION_READS,
    demo_players=("Ruby", "Ava", "Liam"),
    phases=Phase,
    situation_tags=SITUATION_TAGS,
    fields=FIELDS,
    to_act=next_to_act,
    #: the deal brings every card it names out of the deck: each named once (the engine's check, which
    #: replaces the game's own); no other event reveals a card (a play's card comes from a hand)
    reveals={"deal": ("hands",)},
    # the end-of-hand facts naming who took each point: seats, though their names do not say so
    units={"high": "seat", "low": "seat", "jack": "seat", "game": "seat"},
    bot=bots.bot,
    playout_bot=bots.playout_bot,
    demo_situations=frozenset({"made_bid", "failed_bid"}),
    disputed=_offers.disputed,
    dealing_order=DEALING_ORDER,
    statistics=STATISTICS,
    fact_owners=FACT_OWNERS,
    rating=RATING,
    words=WORDS,
    duplicate=DUPLICATE,
    review=REVIEWER,
)
