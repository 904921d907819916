"""Schnapsen's fold step (`evolve`): a deal, a lead (a marriage too), a follow and its trick, a draw, a
trump exchange, a close, a voided hand; a hand's end is scored by `_outcome.end_hand`.

No rule checks and no randomness here (`_validate` checks, `_moves` deals).
"""

from __future__ import annotations

from typing import Any, assert_never

from events.games.schnapsen import Deal, Play, SchnapsenEvent
from projections.core.fastreplace import copy_with, replace
from projections.core.rules import EMPTY, Facts, HandScore, replace_at, seat_dict
from projections.games.schnapsen._outcome import end_hand
from projections.games.schnapsen._state import CARD_POINTS, STRENGTH, TARGET, Marriage, SchnapsenState

#: the draws due after a trick won by seat 0 or 1: the winner first, then the loser
DRAW_ORDER: tuple[tuple[int, ...], ...] = ((0, 1), (1, 0))


_new_object = object.__new__
_set_attr = object.__setattr__


def _emit(values: dict[str, Any]) -> SchnapsenState:
    """The new state whose fields are `values` (a copy of the old state's `__dict__`, changed)."""
    new: SchnapsenState = _new_object(SchnapsenState)
    _set_attr(new, "__dict__", values)
    return new


def evolve(state: SchnapsenState, event: SchnapsenEvent, seq: int) -> tuple[SchnapsenState, Facts]:
    """The fold step for the event whose seq is `seq`: no rule checks, no randomness."""
    # the hot path (issue 15): the commonest events first, each state copied once; a lead, a draw and a
    # follow set their fields in the copy of the state's `__dict__` (`fastreplace.copy_with`, without the
    # dict of changes in between: issue 34)
    if event["type"] == "play":
        if state.phase != "lead":
            return _evolve_follow(state, event, seq)
        if event.get("marriage"):
            return _evolve_marriage(state, event, seq)
        seat, card = event["seat"], event["card"]
        hands = state.hands
        held = hands[seat] - {card}
        values = state.__dict__.copy()
        values["phase"] = "follow"
        values["hands"] = (held, hands[1]) if seat == 0 else (hands[0], held)
        values["trick"] = ((seat, card),)
        return _emit(values), EMPTY
    elif event["type"] == "draw":
        seat, card = event["seat"], event["card"]
        hands = state.hands
        held = hands[seat] | {card}
        talon = state.talon - 1
        draws_due = state.draws_due[1:]
        values = state.__dict__.copy()
        values["hands"] = (held, hands[1]) if seat == 0 else (hands[0], held)
        values["talon"] = talon
        if card == state.trump_card:
            values["trump_card"] = None
        values["draws_due"] = draws_due
        values["phase"] = "draw" if draws_due else "lead"
        return _emit(values), {"talon": talon}
    elif event["type"] == "deal":
        return _evolve_deal(state, event)
    elif event["type"] == "exchange_trump":
        seat = event["seat"]
        unter = f"J{state.trump_suit}"
        assert state.trump_card is not None
        held = (state.hands[seat] - {unter}) | {state.trump_card}
        return (
            replace(state, hands=replace_at(state.hands, seat, held), trump_card=unter),
            {"took": state.trump_card, "gave": unter},
        )
    elif event["type"] == "close":
        seat = event["seat"]
        other = 1 - seat
        opponent_points, opponent_tricks = state.hand_points(other), state.tricks[other]
        return (
            replace(
                state,
                closed_by=seat,
                close_seq=seq,
                closed_opponent_points=opponent_points,
                closed_opponent_tricks=opponent_tricks,
            ),
            {"opponent_hand_points": opponent_points, "opponent_tricks": opponent_tricks},
        )
    elif event["type"] == "hand_voided":
        void = HandScore(state.hand, (0, 0), ())
        return (
            replace(
                state,
                phase="deal",
                draws_due=(),  # the cards stay where they lie (a led card on the table too) until the next deal
                results=state.results.append(void),
            ),
            {"hand_ended": True, "voided": True, "points": seat_dict((0, 0))},
        )
    else:
        assert_never(event)


#: what every deal resets: a fresh hand's talon, trick, draws, close, piles, points and marriages
NEW_HAND: dict[str, Any] = {
    "phase": "lead",
    "talon": 10,
    "trick": (),
    "draws_due": (),
    "closed_by": None,
    "close_seq": None,
    "closed_opponent_points": 0,
    "closed_opponent_tricks": 0,
    "won": ((), ()),
    "trick_points": (0, 0),
    "tricks": (0, 0),
    "marriages": (),
    "last_trick": None,
}


def _evolve_deal(state: SchnapsenState, event: Deal) -> tuple[SchnapsenState, Facts]:
    dealer = event["dealer"]
    dealt = event["hands"]
    trump_card = event["trump_card"]
    trump_suit = trump_card[1]
    after = copy_with(
        state,
        {
            **NEW_HAND,
            "hand": state.hand + 1,
            "dealer": dealer,
            "next_dealer": 1 - dealer,
            "hands": (frozenset(dealt[0]), frozenset(dealt[1])),
            "trump_suit": trump_suit,
            "trump_card": trump_card,
            "leader": 1 - dealer,
        },
    )
    return after, {"trump_suit": trump_suit}


def _evolve_marriage(state: SchnapsenState, event: Play, seq: int) -> tuple[SchnapsenState, Facts]:
    """A lead declaring a marriage: pending, or credited at once (and maybe ending the hand)."""
    seat, card = event["seat"], event["card"]
    hands = state.hands
    held = hands[seat] - {card}
    points = 40 if card[1] == state.trump_suit else 20
    credited = state.tricks[seat] > 0
    marriage = Marriage(seat, card[1], points, seq, credited)
    state = replace(
        state,
        phase="follow",
        hands=(held, hands[1]) if seat == 0 else (hands[0], held),
        trick=((seat, card),),
        marriages=(*state.marriages, marriage),
    )
    facts = {"marriage": {"suit": card[1], "points": points, "credited": credited}}
    if credited and state.hand_points(seat) >= TARGET:
        return end_hand(state, facts, reacher=seat, decisive=seq)
    return state, facts


def _evolve_follow(state: SchnapsenState, event: Play, seq: int) -> tuple[SchnapsenState, Facts]:
    seat, card = event["seat"], event["card"]
    lead_seat, lead_card = state.trick[0]
    # beats(card, lead_card, trump), inline: the hot path
    if card[1] == lead_card[1]:
        winner = seat if STRENGTH[card[0]] > STRENGTH[lead_card[0]] else lead_seat
    else:
        winner = seat if card[1] == state.trump_suit else lead_seat
    points = CARD_POINTS[card[0]] + CARD_POINTS[lead_card[0]]
    facts: dict[str, Any] = {"trick_winner": winner, "trick_points": points}
    marriages = state.marriages
    credited = 0  # the winner's marriages, credited now or before
    if marriages:
        pending = 0  # `state.pending(winner)`, in the same pass
        for m in marriages:
            if m.seat == winner:
                credited += m.points
                if not m.credited:
                    pending += m.points
        if pending:
            facts["marriages_credited"] = pending
            marriages = tuple(
                replace(m, credited=True) if m.seat == winner and not m.credited else m for m in marriages
            )
    old_hands, old_won, old_points, old_tricks = state.hands, state.won, state.trick_points, state.tricks
    held = old_hands[seat] - {card}
    hands = (held, old_hands[1]) if seat == 0 else (old_hands[0], held)
    won_cards = (*old_won[winner], lead_card, card)
    winner_points = old_points[winner] + points
    if winner == 0:
        won = (won_cards, old_won[1])
        trick_points = (winner_points, old_points[1])
        tricks = (old_tricks[0] + 1, old_tricks[1])
    else:
        won = (old_won[0], won_cards)
        trick_points = (old_points[0], winner_points)
        tricks = (old_tricks[0], old_tricks[1] + 1)
    reached = winner_points + credited >= TARGET
    if reached:
        phase, draws_due = state.phase, state.draws_due
    elif state.closed_by is None and state.talon > 0:
        phase, draws_due = "draw", DRAW_ORDER[winner]
    else:
        phase, draws_due = "lead", state.draws_due
    values = state.__dict__.copy()
    values["hands"] = hands
    values["trick"] = ()
    values["won"] = won
    values["trick_points"] = trick_points
    values["tricks"] = tricks
    values["marriages"] = marriages
    values["leader"] = winner
    values["last_trick"] = (winner, (lead_card, card), points, seq, lead_seat)
    values["phase"] = phase
    values["draws_due"] = draws_due
    state = _emit(values)
    if reached:
        return end_hand(state, facts, reacher=winner, decisive=seq)
    if phase == "lead" and not hands[0] and not hands[1]:
        return end_hand(state, facts, reacher=None, decisive=seq)
    return state, facts
