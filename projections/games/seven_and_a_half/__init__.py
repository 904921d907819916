"""Seven and a Half (Sette e mezzo, Siete y media) for 4 to 6 players: a banking game for stakes.

Rule source: `rules/seven-and-a-half.md` (from seed `003_113f008a8bb00635.txt`).
Options: `first_banker` (seat, default 0), `min_bet` and `max_bet` (integers
from 1 to 10**9, default 1 and 100, `min_bet` not above `max_bet`), the variants
`two_card_bonus`, `pair_of_sevens`, `face_down_request`, `splitting` (booleans,
default false) and `wild_card` (a J, Q or K card code, default null),
`enforcement`, and the house rule `bank_needs_win` (bool, default false; true:
only a player's 7½ that wins its stake takes the bank; a play option, since
the banker of the next hand decides who stakes and in which order). A record
made before it existed reads as its default.

Totals are kept in half points everywhere (½ = 1, 7½ = 15): `total` fields
and `banker_total` in results are half points; `total_text` shows them as
people write them ("6½"). `RULES.units` says so for every reader (`total`,
`banker_total`: `half`; amounts, stakes, points and totals: `chips`), and
every reason and message writes seats, cards, totals and amounts with the
markers of `projections.core.phrases` (`{half:13}` reads 6½, `{chips:5}` 5 chips).

Readings of the rule text:

- A hand begins with its first `bet` (the hand number increments there);
  every player but the banker stakes once, in any order, before the `deal`.
  A `deal` before every stake is in, a second stake, a stake by the banker,
  are impossible. Any integer amount from -10**9 to 10**9 is well formed
  (beyond: `invalid`); one outside `min_bet`..`max_bet` (zero or negative
  included) is `half.stake_limits` and, under `record`, is settled as placed.
- `legal_events` offers every stake amount when the limits allow at most
  `ALL_STAKES_UP_TO` of them (the default 1 to 100 does), else the limits
  themselves and the round amounts between (1, 2, 5, 10, 20, 50...): a
  bounded list, so that a table of 1 to 10**9 costs no more than the
  default one. `validate` still accepts every amount within the limits.
- Playing order with banker b: b-1, b-2, ..., then the banker. A seat acts
  only on its turn, which ends when all of its hands are finished; the
  banker's turn begins when every player's turn has ended, unless every
  player hand has bust: then the hand is settled at once.
- A hand finishes by itself on a bust, on exactly 7½, or (with
  `pair_of_sevens`) on exactly two 7s; a `stand` finishes it otherwise.
  Without `pair_of_sevens` two 7s make 14: a bust.
- Settlement, for each unbust player hand: the banker bust pays everyone
  (pair triple, two-card double); else a banker's pair of sevens wins every
  stake single; else a player's pair is paid triple; else a banker's
  two-card 7½ wins single; else a player's two-card 7½ is paid double; else
  the higher total wins single and the banker wins ties. A two-card 7½ (a 7
  and a J/Q/K, the wild card included) counts only with `two_card_bonus`.
- The bank passes, after settlement, to the first player in playing order
  with a hand finished at 7½ (any kind) or a pair of sevens, whatever the
  banker made (the file's Decision); with `bank_needs_win`, a 7½ only when
  it won its stake (a `half.bank_needs_win` line at 0 says why a 7½ that
  lost did not take it). A pair of sevens takes the bank either way: the
  house rule names only a 7½, and is read literally. A later `bank_passed` (only between
  hands, never to the banker due) overrides it. A voided hand scores zero
  and the same banker banks the next hand.
- Cards face down: every dealt card, the banker's included, and every
  `face_down` hit. The banker's card is turned when the banker's turn
  begins; a hand that busts, makes 7½ or a pair of sevens is shown; at
  settlement every card is shown. Without the option a player's dealt card
  stays down until then. With `face_down_request` a seat may hold one
  face-down card at a time across its hands (the dealt card is the first);
  a second is `half.two_face_down`. A `flip` needs the option, the seat's
  turn and an unfinished hand of that seat holding a face-down card
  (without `hand`: every face-down card of the seat in its unfinished
  hands). The banker never flips nor asks for a face-down card.
- Splitting: a player's unfinished hand of exactly two face cards (the wild
  card is one) splits in two; the split hand keeps its first card and its
  stake, the new hand (index = the seat's number of hands before) gets the
  second card and the new stake. A new stake below the split hand's is
  `half.split_stake` (checked first), outside the limits `half.stake_limits`.
  A face-down card stays face down in whichever hand it goes to.
- The wild card counts at the best of ½, 1..7 not above 7½, recomputed
  after every card; it busts only if bust at ½. It is a face card for the
  two-card rule and for splitting, never a 7.
- Score: `totals` are net chips per seat over the finished hands; a hand's
  points are its net chips. Each settled stake is two lines with opposite
  points, the player's and the banker's, with one sentence naming the
  hands, the seqs, who paid whom and how much. A bust's lines are written
  at the bust. Rule ids: `half.bust`, `half.banker_bust`, `half.higher`,
  `half.banker_wins`, `half.pair_of_sevens`, `half.two_card_bonus`,
  `half.banker_pair_of_sevens`, `half.banker_two_card`, and `half.bank_needs_win`
  (0 points: the house rule kept a losing 7½ from the bank).
- `session_closed` (only between hands) ends the game; there is no winner.

`phase` values: `between` (no hand in progress: the first stake,
`bank_passed` or `session_closed` may come), `stakes` (a hand has begun and
stakes are still due), `deal` (every stake is in: the banker deals),
`play` (a player's turn), `banker` (the banker's turn), `over` (the session
is closed).

`table` fields: `banker` (of the hand in progress or the last one),
`next_banker` (who banks the next hand), `order` (the players in playing
order), `turn` (the seat to act, or null), `stakes` (seat -> the stake it
placed for the hand in progress or the last one), `banker_card_shown`, `bank_taken_by` (the
seat that took the bank with 7½ at the last settlement, or null),
`min_bet`, `max_bet`, `variants` (the boolean variant options; the wild
card is read from the game's options, as a card code in the view would
read as a card on the table). Each seat shows
`banker`, `cards` (its cards in hand order, "??" for a card the viewer may
not see), `card_count`, and `hands` (`[{hand, cards, stake, stake_seq,
status, total, total_text}]`, status `open`, `stood`, `bust`,
`seven_and_a_half` or `pair_of_sevens`; `total` is null while a card of
the hand is hidden from the viewer). `hand_points`: the chips won and lost
so far in the hand in progress (busts), or by the last hand once settled.

Results (the envelope's `result`): a `bet` gives `stakes_due` (and `banker`
on a hand's first stake); the `deal` gives `turn`; a `hit` or `stand` gives
`hand`, `turn` and `total` (only when no card of that hand lies face down),
and on a hand it finishes `shown` with `bust`, `seven_and_a_half`,
`pair_of_sevens` or `two_card`; `banker_shows` when the banker's turn
begins; `split` gives `hand` and `new_hand`; `flip` gives `flipped`. The
event that settles a hand adds `hand_ended`, `points`, `next_banker`,
`bank_taken_by` (if a player took the bank), and `banker_total` (with
`banker_bust`) or `all_bust`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, assert_never

from events.cards import parse_card, rank
from events.errors import InvalidEventError, UnknownGameError
from events.games.seven_and_a_half import EVENTS, Bet, Deal, Hit, SevenAndAHalfEvent, Split, Stand
from events.schema import MAX_AMOUNT
from projections.core.dealing import DEALING
from projections.core.fastreplace import replace
from projections.core.phrases import CHIPS, HALF, halves
from projections.core.phrases import card as card_text
from projections.core.rules import (
    CHANCE,
    ENFORCEMENT,
    HIDDEN,
    Census,
    Event,
    Facts,
    FieldKind,
    GameRules,
    HandScore,
    OptionSpec,
    ScoreLine,
    ScoreSheet,
    Secret,
    SituationReads,
    ToAct,
    Viewpoint,
    Visibility,
    hand_score,
    opt_bool,
    opt_int,
    opt_seat,
    replace_at,
    seat_dict,
)
from projections.games.seven_and_a_half import _offers
from projections.games.seven_and_a_half import bot as bots
from projections.games.seven_and_a_half._cards import (
    BUST,
    CARD_SET,
    CARDS,
    FACES,
    OPEN,
    PAIR_OF_SEVENS,
    SEVEN_AND_A_HALF,
    STOOD,
    TOP,
    is_face,
    is_pair_of_sevens,
    is_two_card,
    total,
)
from projections.games.seven_and_a_half._settle import bust_lines, settle
from projections.games.seven_and_a_half._state import (
    BANKER,
    BETWEEN,
    DEAL,
    ORDERS,
    OVER,
    PLAY,
    STAKES,
    Hand,
    SevenAndAHalfState,
    make_hand,
    make_hand_score,
)
from projections.games.seven_and_a_half._validate import validate
from projections.games.seven_and_a_half.dealing import DEALING_ORDER
from projections.games.seven_and_a_half.duplicate import DUPLICATE
from projections.games.seven_and_a_half.readmodels import RATING, STATISTICS
from projections.games.seven_and_a_half.review import REVIEWER
from projections.games.seven_and_a_half.table import SevenAndAHalfTable
from projections.games.seven_and_a_half.words import WORDS

__all__ = ["RULES", "Hand", "SevenAndAHalfState"]


def _opt_wild(value: Any, seats: int) -> str | None:
    if value is None:
        return None
    try:
        code = parse_card(value, "wild_card")
    except InvalidEventError:
        raise ValueError("must be a J, Q or K card code such as 'KD', or null") from None
    if rank(code) not in FACES:
        raise ValueError(f"must name a J, Q or K, not {card_text(code)}")
    return code


OPTIONS: dict[str, OptionSpec] = {
    "first_banker": OptionSpec(0, opt_seat, "the banker of the first hand", seating=True),
    "min_bet": OptionSpec(1, opt_int(1, MAX_AMOUNT), "the smallest stake (table limit), 1 to 10**9 (default 1)"),
    "max_bet": OptionSpec(100, opt_int(1, MAX_AMOUNT), "the largest stake (table limit), 1 to 10**9 (default 100)"),
    "two_card_bonus": OptionSpec(
        False,
        opt_bool,
        "a 7 and a face card as the first two cards are paid double",
        scoring_only=True,
        rule="half.two_card_bonus",
    ),
    "wild_card": OptionSpec(None, _opt_wild, "a J, Q or K that counts as any of ½, 1-7"),
    "pair_of_sevens": OptionSpec(False, opt_bool, "two 7s beat every hand, paid triple"),
    "face_down_request": OptionSpec(False, opt_bool, "a player may ask for one card face down at a time"),
    "splitting": OptionSpec(False, opt_bool, "a hand of two face cards may be split"),
    "enforcement": ENFORCEMENT,
    # house rule (rules "House rules"; a record made before it reads as its default)
    "bank_needs_win": OptionSpec(
        False,
        opt_bool,
        "house rule: false (default): a player's 7½ takes the bank even when the banker's 7½ won the tie; true: "
        "only a 7½ that wins takes the bank",
        rule="half.bank_needs_win",
    ),
    "dealing": DEALING,
}

#: The boolean variants the view shows. The wild card is left to the game's options: a card code in
#: the view would read as a card on the table.
VARIANTS = ("two_card_bonus", "pair_of_sevens", "face_down_request", "splitting")


# --------------------------------------------------------------------------- interface


def initial_state(players: Sequence[str], options: Mapping[str, Any]) -> SevenAndAHalfState:
    """A session before its first hand.

    Raises:
        UnknownGameError: `min_bet` above `max_bet`.
    """
    if options["min_bet"] > options["max_bet"]:
        raise UnknownGameError(
            f"option 'min_bet' ({options['min_bet']}) must not be above 'max_bet' ({options['max_bet']})",
            field="options.min_bet",
        )
    seats = len(players)
    first = options["first_banker"]
    return SevenAndAHalfState(
        seats=seats,
        options=dict(options),
        banker=first,
        next_banker=first,
        stakes=(None,) * seats,
        hands=((),) * seats,
    )


# --------------------------------------------------------------------------- evolve
#
# The fold's hot path (issue 15): each step makes exactly one copy of the state, as a copy of its
# `__dict__` set on a new object (`_emit`), with no intermediate changes dict; the playing order is
# read from `ORDERS`; a hand is rebuilt with `make_hand`, a seat's hands and the table's with one
# list each.

_new_object = object.__new__
_set_attr = object.__setattr__
#: the seat keys of the wire's per-seat objects ("0", "1"...), for `seat_dict` without a `str()` per seat
_KEYS = tuple(str(s) for s in range(64))


def _emit(values: dict[str, Any]) -> SevenAndAHalfState:
    """The new state whose fields are `values` (a copy of the old state's `__dict__`, changed)."""
    new: SevenAndAHalfState = _new_object(SevenAndAHalfState)
    _set_attr(new, "__dict__", values)
    return new


def _with_hand(hands: tuple[tuple[Hand, ...], ...], seat: int, index: int, hand: Hand) -> tuple[tuple[Hand, ...], ...]:
    """The table's hands with the seat's hand `index` replaced."""
    seat_hands = hands[seat]
    if len(seat_hands) == 1:
        mine: tuple[Hand, ...] = (hand,)
    else:
        changed = list(seat_hands)
        changed[index] = hand
        mine = tuple(changed)
    table = list(hands)
    table[seat] = mine
    return tuple(table)


def evolve(state: SevenAndAHalfState, event: SevenAndAHalfEvent, seq: int) -> tuple[SevenAndAHalfState, Facts]:
    """The fold step for the event whose seq is `seq`: the new state and the event's facts. No rule
    checks, no randomness."""
    if event["type"] == "hit":
        return _evolve_hit(state, event, seq)
    elif event["type"] == "stand":
        return _evolve_stand(state, event, seq)
    elif event["type"] == "bet":
        return _evolve_bet(state, event, seq)
    elif event["type"] == "deal":
        return _evolve_deal(state, event)
    elif event["type"] == "split":
        return _evolve_split(state, event, seq)
    elif event["type"] == "flip":
        flipped = state.flippable(event["seat"], event.get("hand"))
        return replace(state, face_down=state.face_down - set(flipped)), {"flipped": flipped}
    elif event["type"] == "bank_passed":
        return replace(state, next_banker=event["to"]), {"next_banker": event["to"]}
    elif event["type"] == "session_closed":
        return replace(state, phase=OVER, turn=None), {"session_closed": True}
    elif event["type"] == "hand_voided":
        zeros = (0,) * state.seats
        voided = replace(
            state,
            phase=BETWEEN,
            next_banker=state.banker,
            stakes=(None,) * state.seats,
            hands=((),) * state.seats,
            turn=None,
            face_down=frozenset(),
            lines=(),
            results=state.results.append(HandScore(state.hand, zeros, ())),
            bank_taken_by=None,
        )
        return voided, {"hand_ended": True, "voided": True, "points": seat_dict(zeros), "next_banker": state.banker}
    else:
        assert_never(event)


def _evolve_bet(state: SevenAndAHalfState, event: Bet, seq: int) -> tuple[SevenAndAHalfState, Facts]:
    seat = event["seat"]
    values = state.__dict__.copy()
    if state.phase == BETWEEN:
        # a hand's first stake: the hand begins, in the same one copy of the state
        banker = state.next_banker
        begun: list[tuple[int, int] | None] = [None] * state.seats
        begun[seat] = (event["amount"], seq)
        due = [s for s in ORDERS[state.seats][banker] if begun[s] is None]
        values["hand"] = state.hand + 1
        values["banker"] = banker
        values["phase"] = STAKES if due else DEAL
        values["stakes"] = tuple(begun)
        values["hands"] = ((),) * state.seats
        values["turn"] = None
        values["face_down"] = frozenset()
        values["lines"] = ()
        values["bank_taken_by"] = None
        return _emit(values), {"banker": banker, "stakes_due": due}
    stakes = list(state.stakes)
    stakes[seat] = (event["amount"], seq)
    due = [s for s in ORDERS[state.seats][state.banker] if stakes[s] is None]
    values["phase"] = STAKES if due else DEAL
    values["stakes"] = tuple(stakes)
    return _emit(values), {"stakes_due": due}


def _evolve_deal(state: SevenAndAHalfState, event: Deal) -> tuple[SevenAndAHalfState, Facts]:
    dealt = event["cards"]
    banker, stakes = state.banker, state.stakes
    hands = []
    for s in range(state.seats):
        card = dealt[_KEYS[s]]
        stake = stakes[s]
        if s == banker or stake is None:
            hands.append((make_hand((card,), 0, 0, OPEN, 0),))
        else:
            hands.append((make_hand((card,), stake[0], stake[1], OPEN, 0),))
    turn = ORDERS[state.seats][banker][0]
    values = state.__dict__.copy()
    values["phase"] = PLAY
    values["hands"] = tuple(hands)
    values["turn"] = turn
    values["face_down"] = frozenset(dealt.values())
    return _emit(values), {"turn": turn}


def _evolve_hit(state: SevenAndAHalfState, event: Hit, seq: int) -> tuple[SevenAndAHalfState, Facts]:
    seat, card, index = event["seat"], event["card"], event.get("hand", 0)
    was = state.hands[seat][index]
    cards = (*was.cards, card)
    options = state.options
    wild = options.get("wild_card")
    points: int | None = None
    if options["pair_of_sevens"] and is_pair_of_sevens(cards):
        status = PAIR_OF_SEVENS
    else:  # as `status_of`, keeping the total for the facts
        points = total(cards, wild)
        status = BUST if points > TOP else SEVEN_AND_A_HALF if points == TOP else OPEN
    hand = make_hand(cards, was.stake, was.stake_seq, status, seq if status != OPEN else 0)
    face_down = state.face_down | {card} if event.get("face_down") else state.face_down
    facts: dict[str, Any] = {"hand": index}
    if status != OPEN:
        face_down = face_down.difference(cards)  # a bust, a 7½ or a pair of sevens is shown
        facts["shown"] = list(cards)
        facts[status] = True
        if status == SEVEN_AND_A_HALF and options.get("two_card_bonus") and is_two_card(cards):  # `state.kind`
            facts["two_card"] = True
    if face_down.isdisjoint(cards):
        facts["total"] = total(cards, wild) if points is None else points
    hands = _with_hand(state.hands, seat, index, hand)
    values = state.__dict__.copy()
    values["hands"] = hands
    values["face_down"] = face_down
    if status == OPEN and state.phase == PLAY:
        # the seat's hand is still open: its turn goes on (every seat before it in the playing order
        # has finished, or the turn would not be its)
        facts["turn"] = seat
        return _emit(values), facts
    if status == BUST and seat != state.banker:
        # the bust changes neither the hand number, the banker nor the seat's number of hands:
        # the lines are written from the state before it, with no copy
        values["lines"] = (*state.lines, *bust_lines(state, seat, index, hand))
    return _advance(state, values, hands, facts)


def _evolve_stand(state: SevenAndAHalfState, event: Stand, seq: int) -> tuple[SevenAndAHalfState, Facts]:
    seat, index = event["seat"], event.get("hand", 0)
    was = state.hands[seat][index]
    cards = was.cards
    hand = make_hand(cards, was.stake, was.stake_seq, STOOD, seq)
    facts: dict[str, Any] = {"hand": index}
    if state.face_down.isdisjoint(cards):
        facts["total"] = total(cards, state.options.get("wild_card"))
    hands = _with_hand(state.hands, seat, index, hand)
    values = state.__dict__.copy()
    values["hands"] = hands
    return _advance(state, values, hands, facts)


def _evolve_split(state: SevenAndAHalfState, event: Split, seq: int) -> tuple[SevenAndAHalfState, Facts]:
    seat, index = event["seat"], event["hand"]
    hands = state.hands[seat]
    kept, moved = hands[index].cards
    new = Hand((moved,), stake=event["amount"], stake_seq=seq)
    seat_hands = (*replace_at(hands, index, replace(hands[index], cards=(kept,))), new)
    split_state = replace(state, hands=replace_at(state.hands, seat, seat_hands))
    return split_state, {"hand": index, "new_hand": len(hands)}


def _advance(
    state: SevenAndAHalfState, values: dict[str, Any], hands: tuple[tuple[Hand, ...], ...], facts: dict[str, Any]
) -> tuple[SevenAndAHalfState, Facts]:
    """After a hand finished or the banker acted (`values`: the new state's fields so far, with the
    table's `hands`; `facts`, the event's own, made for it by the caller): pass the turn on, start the
    banker's turn, or settle."""
    banker = state.banker
    if state.phase == BANKER:
        if hands[banker][0].status != OPEN:
            return _settle(state, values, hands, facts)
        return _emit(values), facts
    all_bust = True
    for s in ORDERS[state.seats][banker]:
        for h in hands[s]:
            status = h.status
            if status == OPEN:
                facts["turn"] = s
                values["turn"] = s
                return _emit(values), facts
            if status != BUST:
                all_bust = False
    if all_bust:
        return _settle(state, values, hands, facts)
    shown = hands[banker][0].cards
    values["face_down"] = values["face_down"].difference(shown)
    facts["turn"] = banker
    facts["banker_shows"] = list(shown)
    values["phase"] = BANKER
    values["turn"] = banker
    return _emit(values), facts


def _settle(
    state: SevenAndAHalfState, values: dict[str, Any], hands: tuple[tuple[Hand, ...], ...], facts: dict[str, Any]
) -> tuple[SevenAndAHalfState, Facts]:
    """Settle every unbust player hand against the banker's; the bank may pass.

    `values`, `hands` and `facts` are the event's own (as `_advance` takes them; `state` is the state
    before the event); the settlement's are added to them."""
    banker = state.banker
    #: the bust lines written so far, then the settled stakes'
    lines: list[ScoreLine] = list(values["lines"])
    points = [0] * state.seats
    for line in lines:
        points[line.seat] += line.points
    taker, bank, bank_total = settle(state, hands, lines, points)
    next_banker = banker if taker is None else taker
    result = make_hand_score(state.hand, tuple(points), tuple(lines))
    facts["hand_ended"] = True
    facts["points"] = dict(zip(_KEYS, points, strict=False))
    facts["next_banker"] = next_banker
    if bank is None:
        facts["all_bust"] = True
    else:
        facts["banker_total"] = bank_total
        if bank.status == BUST:
            facts["banker_bust"] = True
    if taker is not None:
        facts["bank_taken_by"] = taker
    values["phase"] = BETWEEN
    values["turn"] = None
    values["next_banker"] = next_banker
    values["face_down"] = frozenset()
    values["lines"] = result.lines
    values["results"] = state.results.append(result)
    values["bank_taken_by"] = taker
    return _emit(values), facts


# --------------------------------------------------------------------------- reading the state


def score(state: SevenAndAHalfState) -> ScoreSheet:
    """Totals are net chips over the finished hands; a session has no winner."""
    totals = state.results.totals(state.seats)
    return ScoreSheet(totals, state.results, state.phase == OVER, None)


def is_terminal(state: SevenAndAHalfState) -> bool:
    return state.phase == OVER


def hand_in_progress(state: SevenAndAHalfState) -> bool:
    return state.in_progress


def to_act(state: SevenAndAHalfState) -> list[int]:
    """The seats whose event is due (any of them, while stakes are placed)."""
    if state.phase == BETWEEN:
        return list(state.order(state.next_banker))
    if state.phase == STAKES:
        return [s for s in state.order() if state.stakes[s] is None]
    if state.phase == DEAL:
        return [state.banker]
    if state.phase in (PLAY, BANKER):
        assert state.turn is not None
        return [state.turn]
    return []


def _sort_key(event: Mapping[str, Any]) -> tuple[Any, ...]:
    return (
        event["type"],
        event.get("seat", -1),
        event.get("hand", -1),
        event.get("amount", 0),
        event.get("to", -1),
    )


#: limits that allow at most this many stake amounts have every one offered; wider ones a sample
ALL_STAKES_UP_TO = 100


def offered_stakes(low: int, high: int) -> list[int]:
    """The stake amounts offered from `low` to `high`: every one, or the limits and the round amounts between.

    At most `ALL_STAKES_UP_TO` amounts, or 2 + 3 per power of ten (32 for 1 to 10**9), so that
    `legal_events` stays cheap whatever the table's limits (enumerating 1 to 10**6 took 19 s).
    """
    if high - low < ALL_STAKES_UP_TO:
        return list(range(low, high + 1))
    round_amounts = (m * 10**k for k in range(len(str(high))) for m in (1, 2, 5))
    return sorted({low, high, *(a for a in round_amounts if low < a < high)})


def legal_events(state: SevenAndAHalfState) -> list[dict[str, Any]]:
    """Every legal decision now (deals and hits are chance events), sorted; stakes as `offered_stakes`."""
    low, high = state.limits
    out: list[dict[str, Any]] = []
    if state.phase in (BETWEEN, STAKES):
        stakes = offered_stakes(low, high)
        for s in to_act(state):
            out.extend({"type": "bet", "seat": s, "amount": a} for a in stakes)
        if state.phase == BETWEEN:
            out.extend({"type": "bank_passed", "to": s} for s in range(state.seats) if s != state.next_banker)
            out.append({"type": "session_closed"})
    elif state.phase == PLAY:
        assert state.turn is not None
        seat = state.turn
        hands = state.hands[seat]
        for i, h in enumerate(hands):
            if h.finished:
                continue
            tag = {"hand": i} if len(hands) > 1 else {}
            out.append({"type": "stand", "seat": seat, **tag})
            if state.options["splitting"] and len(h.cards) == 2 and all(is_face(c) for c in h.cards):
                out.extend(
                    {"type": "split", "seat": seat, "hand": i, "amount": a}
                    for a in offered_stakes(max(h.stake, low), high)
                )
            if state.options["face_down_request"] and state.flippable(seat, i):
                out.append({"type": "flip", "seat": seat, **tag})
    elif state.phase == BANKER:
        out.append({"type": "stand", "seat": state.banker})
    return sorted(out, key=_sort_key)


def chance_events(state: SevenAndAHalfState, rng: random.Random) -> list[dict[str, Any]]:
    """A deal from a shuffled deck, or a hit of an unseen card (face down too, where allowed)."""
    if state.phase == DEAL:
        cards = list(CARDS)
        rng.shuffle(cards)
        return [{"type": "deal", "cards": {str(s): cards[s] for s in range(state.seats)}}]
    if state.phase not in (PLAY, BANKER):
        return []
    assert state.turn is not None
    seat = state.turn
    unseen = sorted(CARD_SET - state.seen)
    if not unseen:
        return []
    hands = state.hands[seat]
    may_hide = state.options["face_down_request"] and seat != state.banker and not state.holds_face_down(seat)
    out: list[dict[str, Any]] = []
    for i, h in enumerate(hands):
        if h.finished:
            continue
        tag = {"hand": i} if len(hands) > 1 else {}
        out.append({"type": "hit", "seat": seat, "card": rng.choice(unseen), **tag})
        if may_hide:
            out.append({"type": "hit", "seat": seat, "card": rng.choice(unseen), "face_down": True, **tag})
    return out


def view(state: SevenAndAHalfState, viewpoint: Viewpoint) -> dict[str, Any]:
    """The table as `viewpoint` saw it: the cards `VISIBILITY.hidden_from` names (other seats'
    face-down cards) as "??"."""
    hidden = VISIBILITY.hidden_from(state, viewpoint)
    seats = []
    for s in range(state.seats):
        docs: list[dict[str, Any]] = []
        shown: list[str] = []
        for i, h in enumerate(state.hands[s]):
            cards = [HIDDEN if c in hidden else c for c in h.cards]
            shown.extend(cards)
            known = HIDDEN not in cards
            docs.append(
                {
                    "hand": i,
                    "cards": cards,
                    "stake": None if s == state.banker else h.stake,
                    "stake_seq": None if s == state.banker else h.stake_seq,
                    "status": h.status,
                    "total": state.total(h) if known else None,
                    "total_text": halves(state.total(h)) if known else None,
                }
            )
        seats.append({"seat": s, "banker": s == state.banker, "cards": shown, "card_count": len(shown), "hands": docs})
    stakes = {str(s): st[0] for s, st in enumerate(state.stakes) if st is not None}
    dealt = state.phase in (PLAY, BANKER) or (state.phase == BETWEEN and any(state.hands))
    return {
        "phase": state.phase,
        "to_act": to_act(state),
        "seats": seats,
        "table": {
            "banker": state.banker,
            "next_banker": state.next_banker,
            "order": list(state.order()),
            "turn": state.turn,
            "stakes": stakes,
            "banker_card_shown": dealt and not any(c in state.face_down for c in state.hands[state.banker][0].cards),
            "bank_taken_by": state.bank_taken_by,
            "min_bet": state.options["min_bet"],
            "max_bet": state.options["max_bet"],
            "variants": {name: state.options[name] for name in VARIANTS},
        },
        "hand_points": seat_dict(hand_score(state.hand, state.seats, state.lines).points),
    }


#: the events `situations` can tag (a split, a bank passed, the session's close, a face-down hit, and the
#: results that name a bust, a 7½, a bonus or the bank taken)
SITUATION_READS = SituationReads(
    types=("split", "bank_passed", "session_closed"),
    result_marks=(
        '"bust"',
        '"banker_bust"',
        '"seven_and_a_half"',
        '"two_card"',
        '"pair_of_sevens"',
        '"all_bust"',
        '"bank_taken_by"',
    ),
    data_marks=('"face_down"',),
)


def situations(event: Event, result: Mapping[str, Any]) -> list[str]:
    """Search tags: bust, seven_and_a_half, two_card_bonus, pair_of_sevens, split, bank_passed..."""
    tags = []
    kind = event["type"]
    if result.get("bust"):
        tags.append("bust")
    if result.get("banker_bust"):
        tags.append("banker_bust")
    if result.get("seven_and_a_half"):
        tags.append("seven_and_a_half")
    if result.get("two_card"):
        tags.append("two_card_bonus")
    if result.get("pair_of_sevens"):
        tags.append("pair_of_sevens")
    if result.get("all_bust"):
        tags.append("all_bust")
    if kind == "split":
        tags.append("split")
    if kind == "hit" and event.get("face_down"):
        tags.append("face_down")
    if kind == "bank_passed" or result.get("bank_taken_by") is not None:
        tags.append("bank_passed")
    if kind == "session_closed":
        tags.append("session_closed")
    return tags


def census(state: SevenAndAHalfState) -> Census:
    """Every hand's cards on the table; the rest of the 40 cards unseen."""
    places = {f"seat {s} hand {i}": h.cards for s in range(state.seats) for i, h in enumerate(state.hands[s])}
    placed = sum(len(cards) for cards in places.values())
    return Census(places, len(CARDS) - placed, CARD_SET, held(state))


def held(state: SevenAndAHalfState) -> dict[int, frozenset[str]]:
    """Per seat, its cards lying face down: its dealt card (the banker's until its turn begins), its
    face-down hits; every card is shown at settlement."""
    face_down = state.face_down
    return {s: frozenset(c for h in state.hands[s] for c in h.cards if c in face_down) for s in range(state.seats)}


def _face_down_hit(event: Event) -> bool:
    return bool(event.get("face_down"))


#: What each seat may see: its own dealt card, and the card of its own face-down hit (every other hit
#: is dealt face up); `held` are the cards lying face down.
VISIBILITY: Visibility[SevenAndAHalfState] = Visibility(
    secrets={
        "deal": (Secret("cards", to="each_seat"),),
        "hit": (Secret("card", to="actor", when=_face_down_hit),),
    },
    held=held,
)

#: The cards that come out of the unseen deck: the engine checks each is a card of the 40-card deck
#: (no 8, 9, 10), named once, and not already in a hand (`census`). Every card of a hand is in some
#: seat's hands until the next hand's first stake, so that is exactly "already seen in this hand".
REVEALS: dict[str, tuple[str, ...]] = {"deal": ("cards",), "hit": ("card",)}


# --------------------------------------------------------------------------- the declaration


class Phase(StrEnum):
    """The state's `phase` values (the strings the state and the state document hold)."""

    BETWEEN = BETWEEN
    STAKES = STAKES
    DEAL = DEAL
    PLAY = PLAY
    BANKER = BANKER
    OVER = OVER


def next_to_act(state: SevenAndAHalfState) -> ToAct:
    """The seats to stake (any of them), the seat to play, CHANCE when the deal is due, () once closed.

    A player's or the banker's turn is a decision (stand, or ask for a card: the `hit` that follows
    is the chance event), so it names the seat.
    """
    return CHANCE if state.phase == Phase.DEAL else tuple(to_act(state))


SITUATION_TAGS: dict[str, str] = {
    "bust": "a hand went over 7½",
    "banker_bust": "the banker went over 7½",
    "all_bust": "every player hand bust, so the banker did not play",
    "seven_and_a_half": "a hand reached exactly 7½",
    "two_card_bonus": "a 7 and a face card as the first two cards (with `two_card_bonus`)",
    "pair_of_sevens": "a hand of two 7s (with `pair_of_sevens`)",
    "split": "a hand of two face cards was split",
    "face_down": "a card was asked for face down",
    "bank_passed": "the bank changed hands",
    "session_closed": "the session was closed",
}

FIELDS: dict[str, dict[str, FieldKind]] = {
    "bet": {"seat": "seat"},
    "deal": {"cards": "cards"},
    "hit": {"seat": "seat", "card": "card"},
    "stand": {"seat": "seat"},
    "split": {"seat": "seat"},
    "flip": {"seat": "seat"},
    "bank_passed": {"to": "seat"},
}


#: The unit of every value a person reads (`GameRules.units`, `phrases.value_text`): totals in half
#: points (`total` of a hit, a stand and a hand in the view, the settlement's `banker_total`), stakes and
#: payments in chips (a `bet`'s and a `split`'s `amount`, the view's `stake`, `stakes` and limits, the
#: points of score lines, hands and facts, the totals and the view's `hand_points`).
UNITS: dict[str, str] = {
    "total": HALF,
    "banker_total": HALF,
    "amount": CHIPS,
    "stake": CHIPS,
    "stakes": CHIPS,
    "min_bet": CHIPS,
    "max_bet": CHIPS,
    "points": CHIPS,
    "totals": CHIPS,
    "hand_points": CHIPS,
}


RULES: GameRules[SevenAndAHalfState] = GameRules(
    kind="seven-and-a-half",
    title="Seven and a Half",
    player_counts=(4, 5, 6),
    events=EVENTS,
    event_types=SevenAndAHalfEvent,
    options=OPTIONS,
    initial_state=initial_state,
    validate=validate,
    evolve=evolve,
    score=score,
    legal_events=legal_events,
    chance_events=chance_events,
    view=view,
    table=SevenAndAHalfTable,
    visibility=VISIBILITY,
    reveals=REVEALS,
    is_terminal=is_terminal,
    hand_in_progress=hand_in_progress,
    census=census,
    situations=situations,
    situation_reads=SITUATION_READS,
    demo_players=("Juan", "Ines", "Carlo", "Sara"),
    phases=Phase,
    situation_tags=SITUATION_TAGS,
    fields=FIELDS,
    to_act=next_to_act,
    units=UNITS,
    bot=bots.bot,
    demo_situations=frozenset({"seven_and_a_half", "bust"}),
    complete_offers=_offers.complete_offers,
    disputed=_offers.disputed,
    disputed_chances=_offers.disputed_chances,
    dealing_order=DEALING_ORDER,
    statistics=STATISTICS,
    rating=RATING,
    words=WORDS,
    duplicate=DUPLICATE,
    review=REVIEWER,
)
