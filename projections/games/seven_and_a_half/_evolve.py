"""Seven and a Half's fold steps of a stake (a hand's first begins the hand), the deal, a hit, a stand and
a split, which the package's `evolve` calls by the event's type; the turn passed on (`_advance`) and the
hand settled (`_settle`, with `_settle.settle`'s lines).

The fold's hot path (issue 15): each step makes exactly one copy of the state, as a copy of its
`__dict__` set on a new object (`_emit`), with no intermediate changes dict; the playing order is
read from `ORDERS`; a hand is rebuilt with `make_hand`, a seat's hands and the table's with one
list each. No rule checks (`_validate`), no randomness (`_moves`).
"""

from __future__ import annotations

from typing import Any

from events.games.seven_and_a_half import Bet, Deal, Hit, Split, Stand
from projections.core.fastreplace import replace
from projections.core.rules import Facts, ScoreLine, replace_at
from projections.games.seven_and_a_half._cards import (
    BUST,
    OPEN,
    PAIR_OF_SEVENS,
    SEVEN_AND_A_HALF,
    STOOD,
    TOP,
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
    PLAY,
    STAKES,
    Hand,
    SevenAndAHalfState,
    make_hand,
    make_hand_score,
)

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


def evolve_bet(state: SevenAndAHalfState, event: Bet, seq: int) -> tuple[SevenAndAHalfState, Facts]:
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


def evolve_deal(state: SevenAndAHalfState, event: Deal) -> tuple[SevenAndAHalfState, Facts]:
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


def evolve_hit(state: SevenAndAHalfState, event: Hit, seq: int) -> tuple[SevenAndAHalfState, Facts]:
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


def evolve_stand(state: SevenAndAHalfState, event: Stand, seq: int) -> tuple[SevenAndAHalfState, Facts]:
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


def evolve_split(state: SevenAndAHalfState, event: Split, seq: int) -> tuple[SevenAndAHalfState, Facts]:
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
