"""Checking one event against the state: impossible first, then illegal.

Every impossibility (wrong phase, out of turn, a hand that does not exist or
is finished, a variant the game does not use) is checked before the three
illegal plays of the rule file: `half.stake_limits`, `half.split_stake` and
`half.two_face_down`. The cards a `deal` or a `hit` names (of the 40-card
deck, each once, none already seen in the hand) are the engine's to check,
before this (`RULES.reveals`). Messages name seats, cards, totals and amounts
with the markers of `projections.core.phrases`.
"""

from __future__ import annotations

from events.errors import IllegalEventError, ImpossibleEventError, OutOfTurnError
from projections.core.phrases import cards, chips, half
from projections.core.phrases import seat as player
from projections.core.rules import Event
from projections.games.seven_and_a_half._cards import (
    BUST,
    PAIR_OF_SEVENS,
    SEVEN_AND_A_HALF,
    STOOD,
    is_face,
)
from projections.games.seven_and_a_half._settle import who
from projections.games.seven_and_a_half._state import BANKER, BETWEEN, DEAL, PLAY, STAKES, Hand, SevenAndAHalfState


def validate(state: SevenAndAHalfState, event: Event) -> None:
    """Raises `ImpossibleEventError` / `OutOfTurnError` / `IllegalEventError`."""
    kind = event["type"]
    if kind == "hand_voided":
        return
    if kind in ("bank_passed", "session_closed"):
        _validate_between(state, event)
    elif kind == "bet":
        _validate_bet(state, event["seat"], event["amount"])
    elif kind == "deal":
        _validate_deal(state, event)
    elif kind in ("hit", "stand", "split", "flip"):
        _validate_turn(state, event)
    else:  # pragma: no cover - the schema admits no other type
        raise ImpossibleEventError(f"unknown event {kind}")


def _validate_between(state: SevenAndAHalfState, event: Event) -> None:
    kind = event["type"]
    if state.in_progress:
        raise ImpossibleEventError(f"{kind} is accepted only between hands; hand {state.hand} is in progress")
    if kind == "bank_passed" and event["to"] == state.next_banker:
        raise ImpossibleEventError(f"{player(event['to'])} already holds the bank for the next hand")


def _validate_bet(state: SevenAndAHalfState, seat: int, amount: int) -> None:
    if state.phase not in (BETWEEN, STAKES):
        raise OutOfTurnError(f"stakes come before the deal; hand {state.hand} has been dealt")
    banker = state.next_banker
    if seat == banker:
        raise ImpossibleEventError(f"{player(seat)} holds the bank and places no stake")
    placed = state.stakes[seat] if state.phase == STAKES else None
    if placed is not None:
        raise ImpossibleEventError(
            f"{player(seat)} has already staked {chips(placed[0])} at event {placed[1]} in this hand"
        )
    low, high = state.limits
    if not low <= amount <= high:
        raise IllegalEventError(
            "half.stake_limits",
            f"{player(seat)}'s stake of {chips(amount)} is outside the table limits, {low} to {chips(high)}",
        )


def _validate_deal(state: SevenAndAHalfState, event: Event) -> None:
    if state.phase == BETWEEN:
        raise OutOfTurnError("no stake has been placed: a hand begins with its stakes, then comes the deal")
    if state.phase == STAKES:
        due = [player(s) for s in state.order() if state.stakes[s] is None]
        verb = "has" if len(due) == 1 else "have"
        raise OutOfTurnError(f"the deal comes after every stake; {', '.join(due)} {verb} not staked")
    if state.phase != DEAL:
        raise OutOfTurnError(f"hand {state.hand} has been dealt already")


def _validate_turn(state: SevenAndAHalfState, event: Event) -> None:
    kind, seat = event["type"], event["seat"]
    if state.phase not in (PLAY, BANKER):
        raise OutOfTurnError(f"no hand is being played: a {kind} comes after the deal, in turn")
    assert state.turn is not None
    if seat != state.turn:
        role = " (the banker)" if state.turn == state.banker else ""
        raise OutOfTurnError(f"it is {player(state.turn)}'s turn{role}, not {player(seat)}'s")
    is_banker = seat == state.banker
    if kind in ("split", "flip") or (kind == "hit" and event.get("face_down")):
        option = "splitting" if kind == "split" else "face_down_request"
        what = {"split": "a split", "flip": "a flip"}.get(kind, "a face-down hit")
        if not state.options[option]:
            raise ImpossibleEventError(f"{what} needs the {option} option, which this game does not use")
        if is_banker:
            raise ImpossibleEventError(f"the banker, {player(seat)}, never asks for {what}")
    if kind == "flip":
        _validate_flip(state, seat, event.get("hand"))
        return
    index = event.get("hand", 0)
    hand = _hand_of(state, seat, index)
    if hand.finished:
        raise ImpossibleEventError(
            f"{who(state, seat, index)} finished at event {hand.end_seq} ({_status_text(state, hand)}); "
            f"no {kind} is accepted for it"
        )
    if kind == "hit":
        if event.get("face_down") and state.holds_face_down(seat):
            down = sorted(c for h in state.hands[seat] for c in h.cards if c in state.face_down)
            raise IllegalEventError(
                "half.two_face_down",
                f"{player(seat)} asked for a face-down card while holding one ({cards(down)}): flip it first",
            )
    elif kind == "split":
        _validate_split(state, seat, index, hand, event["amount"])


def _hand_of(state: SevenAndAHalfState, seat: int, index: int) -> Hand:
    hands = state.hands[seat]
    if index >= len(hands):
        raise ImpossibleEventError(f"{player(seat)} has no hand {index}; its hands are 0 to {len(hands) - 1}")
    return hands[index]


def _status_text(state: SevenAndAHalfState, hand: Hand) -> str:
    points = half(state.total(hand))
    return {
        STOOD: f"stood on {points}",
        BUST: f"bust with {points}",
        SEVEN_AND_A_HALF: "7½",
        PAIR_OF_SEVENS: "a pair of sevens",
    }.get(hand.status, hand.status)


def _validate_split(state: SevenAndAHalfState, seat: int, index: int, hand: Hand, amount: int) -> None:
    if len(hand.cards) != 2 or not all(is_face(c) for c in hand.cards):
        raise ImpossibleEventError(
            f"only a hand of two face cards may be split; {who(state, seat, index)} holds {cards(hand.cards)}"
        )
    if amount < hand.stake:
        raise IllegalEventError(
            "half.split_stake",
            f"the new stake {chips(amount)} is below the stake {chips(hand.stake)} of {who(state, seat, index)} "
            "being split",
        )
    low, high = state.limits
    if not low <= amount <= high:
        raise IllegalEventError(
            "half.stake_limits",
            f"{player(seat)}'s split stake of {chips(amount)} is outside the table limits, {low} to {chips(high)}",
        )


def _validate_flip(state: SevenAndAHalfState, seat: int, index: int | None) -> None:
    if index is not None:
        hand = _hand_of(state, seat, index)
        if hand.finished:
            raise ImpossibleEventError(f"a flip belongs to an unfinished hand; {who(state, seat, index)} is finished")
        if not any(c in state.face_down for c in hand.cards):
            raise ImpossibleEventError(f"{who(state, seat, index)} holds no face-down card")
        return
    if not state.flippable(seat, None):
        raise ImpossibleEventError(f"{player(seat)} holds no face-down card in an unfinished hand")
