"""The Schnapsen bot (`RULES.bot`): exchange the trump jack, declare marriages, win the tricks worth
winning, close only when ahead.

- On lead the bot exchanges the trump jack when it may, and declares a marriage whenever it holds
  one (the trump marriage first), leading its queen.
- It closes the talon only when it is ahead and its points in hand make 66 likely: the points it
  has, its pending marriages, the marriages it could still declare and the cards that surely take a
  trick (the trump ace and ten, the other aces) together reach `CLOSE_AT`.
- Otherwise it leads low while the talon is open (no trump, no card of a marriage, no ace or ten), and
  its strongest card once the strict rules apply.
- Following, it takes an ace or a ten led, or any trick that brings it to 66, with its cheapest
  winning card, takes a low lead with a higher card of the suit, and otherwise throws its cheapest
  card. Following suit is the rules' business: `legal_events` offers only the allowed cards.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from events.cards import rank, suit
from projections.core.bots import best, of_type
from projections.core.rules import Event
from projections.games.schnapsen._state import CARD_POINTS, STRENGTH, TARGET, SchnapsenState, beats

#: the points in hand (won, pending, to declare, sure tricks) to close the talon with
CLOSE_AT = 66


def bot(state: SchnapsenState, offered: Sequence[Event], rng: random.Random, history: Sequence[Event]) -> Event:
    """One of `offered` (deals and draws as offered)."""
    if state.phase == "lead":
        return _lead(state, offered, rng)
    if state.phase == "follow":
        return _follow(state, offered, rng)
    return rng.choice(list(offered))


# --------------------------------------------------------------------------- leading


def _lead(state: SchnapsenState, offered: Sequence[Event], rng: random.Random) -> Event:
    seat = state.leader
    exchange = of_type(offered, "exchange_trump")
    if exchange:
        return exchange[0]
    marriages = [e for e in offered if e.get("marriage")]
    if marriages:
        return best(marriages, lambda e: (suit(e["card"]) != state.trump_suit, rank(e["card"]) != "Q"), rng)
    closes = of_type(offered, "close")
    if closes and should_close(state, seat):
        return closes[0]
    plays = of_type(offered, "play")
    if state.strict:
        return best(plays, lambda e: (suit(e["card"]) != state.trump_suit, -STRENGTH[rank(e["card"])]), rng)
    return best(plays, lambda e: _lead_cost(state, seat, e["card"]), rng)


def _lead_cost(state: SchnapsenState, seat: int, card: str) -> tuple[bool, bool, int]:
    """Lead low: a card of no marriage, no trump, the fewest points (so no ace or ten)."""
    return (in_marriage(state, seat, card), suit(card) == state.trump_suit, CARD_POINTS[rank(card)])


def in_marriage(state: SchnapsenState, seat: int, card: str) -> bool:
    """Is `card` a king or queen whose partner the seat also holds?"""
    if rank(card) not in "KQ":
        return False
    partner = ("Q" if rank(card) == "K" else "K") + suit(card)
    return partner in state.hands[seat]


def ahead(state: SchnapsenState, seat: int) -> bool:
    """Has the seat more points than its opponent, its pending marriages counted?"""
    mine = state.hand_points(seat) + state.pending(seat)
    theirs = state.hand_points(1 - seat) + state.pending(1 - seat)
    return mine > theirs


def points_in_hand(state: SchnapsenState, seat: int) -> int:
    """Points won, pending marriages, marriages still to declare and the cards that surely take a trick."""
    held = state.hands[seat]
    declared = {m.suit for m in state.marriages if m.seat == seat}
    to_declare = sum(
        40 if s == state.trump_suit else 20 for s in "CDHS" if {f"K{s}", f"Q{s}"} <= held and s not in declared
    )
    sure = sum(CARD_POINTS[rank(c)] for c in held if rank(c) == "A" or (suit(c) == state.trump_suit and rank(c) == "T"))
    return state.hand_points(seat) + state.pending(seat) + to_declare + sure


def should_close(state: SchnapsenState, seat: int) -> bool:
    """Close only when ahead and the points in hand reach `CLOSE_AT`."""
    return ahead(state, seat) and points_in_hand(state, seat) >= CLOSE_AT


# --------------------------------------------------------------------------- following


def _follow(state: SchnapsenState, offered: Sequence[Event], rng: random.Random) -> Event:
    seat = 1 - state.leader
    led = state.trick[0][1]
    plays = of_type(offered, "play")
    winners = [e for e in plays if beats(e["card"], led, state.trump_suit)]
    worth = CARD_POINTS[rank(led)]
    have = state.hand_points(seat) + state.pending(seat)  # a trick won credits the pending marriages
    reaches = [e for e in winners if have + worth + CARD_POINTS[rank(e["card"])] >= TARGET]
    same_suit = [e for e in winners if suit(e["card"]) == suit(led)]
    take = reaches or (winners if worth >= 10 or state.strict else same_suit)
    if take:
        return best(take, lambda e: (suit(e["card"]) == state.trump_suit, CARD_POINTS[rank(e["card"])]), rng)
    return best(plays, lambda e: _lead_cost(state, seat, e["card"]), rng)
