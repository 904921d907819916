"""Schnapsen's moves: who acts (`to_act`), what the follower may play (`allowed_follows`), every legal
decision (`legal_events`), the chance events (a deal, a draw) and where each card lies (`held`, `census`).

Apart from the package's declaration (`__init__.py`) so that the checks (`_validate`) read them without
the rest of the rules.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from events.cards import deck, rank, suit
from projections.core.rules import Census
from projections.games.schnapsen._state import SchnapsenState, beats

CARDS: tuple[str, ...] = deck("JQKTA")
CARD_SET = frozenset(CARDS)


def to_act(state: SchnapsenState) -> tuple[int, ...]:
    """The seats whose event is due."""
    if state.phase == "lead":
        return (state.leader,)
    if state.phase == "follow":
        return (1 - state.leader,)
    if state.phase == "draw":
        return state.draws_due[:1]
    if state.phase == "deal":
        return (state.next_dealer,)
    return ()


def allowed_follows(state: SchnapsenState, seat: int) -> frozenset[str]:
    """The cards the follower may play: all of them unless the strict rules apply."""
    held = state.hands[seat]
    if not state.strict:
        return held
    led = state.trick[0][1]
    same_suit = frozenset(c for c in held if suit(c) == suit(led))
    if same_suit:
        higher = frozenset(c for c in same_suit if beats(c, led, state.trump_suit))
        return higher or same_suit
    trumps = frozenset(c for c in held if suit(c) == state.trump_suit)
    return trumps or held


def legal_events(state: SchnapsenState) -> list[dict[str, Any]]:
    """Every legal decision now (deals and draws are chance events), sorted."""
    if state.phase == "lead":
        seat = state.leader
        out: list[dict[str, Any]] = []
        if state.closed_by is None and state.talon >= 2:
            out.append({"type": "close", "seat": seat})
            if f"J{state.trump_suit}" in state.hands[seat] and state.trump_card != f"J{state.trump_suit}":
                out.append({"type": "exchange_trump", "seat": seat})
        declared = {m.suit for m in state.marriages if m.seat == seat}
        for card in sorted(state.hands[seat]):
            out.append({"type": "play", "seat": seat, "card": card})
            partner = ("Q" if rank(card) == "K" else "K") + suit(card)
            if rank(card) in "KQ" and partner in state.hands[seat] and suit(card) not in declared:
                out.append({"type": "play", "seat": seat, "card": card, "marriage": True})
        return out
    if state.phase == "follow":
        seat = 1 - state.leader
        return [{"type": "play", "seat": seat, "card": c} for c in sorted(allowed_follows(state, seat))]
    return []


def chance_events(state: SchnapsenState, rng: random.Random) -> list[dict[str, Any]]:
    """A deal from a shuffled deck, or the due draw of an unseen card."""
    if state.phase == "deal":
        cards = list(CARDS)
        rng.shuffle(cards)
        return [
            {"type": "deal", "dealer": state.next_dealer, "hands": [cards[0:5], cards[5:10]], "trump_card": cards[10]}
        ]
    if state.phase == "draw":
        seat = state.draws_due[0]
        if state.talon == 1:
            assert state.trump_card is not None
            card = state.trump_card
        else:
            unseen = sorted(CARD_SET.difference(*census(state).places.values()))
            card = rng.choice(unseen)
        return [{"type": "draw", "seat": seat, "card": card}]
    return []


def held(state: SchnapsenState) -> Mapping[int, frozenset[str]]:
    """Each seat's hand: the only cards one seat sees and the other does not."""
    return {0: state.hands[0], 1: state.hands[1]}


def census(state: SchnapsenState) -> Census:
    """The hands, the trick, the won piles and the face-up trump card; the talon unseen."""
    places: dict[str, tuple[str, ...]] = {
        "hand 0": tuple(state.hands[0]),
        "hand 1": tuple(state.hands[1]),
        "trick": tuple(c for _, c in state.trick),
        "won 0": state.won[0],
        "won 1": state.won[1],
        "trump card": (state.trump_card,) if state.trump_card else (),
    }
    unseen = state.talon - (1 if state.trump_card else 0)
    return Census(places, unseen, CARD_SET, held(state))
