"""Gin Rummy for three's bots: `bot`, a player with table sense (`RULES.bot`, the demo games), and
`beginner`, the random playouts' player (`RULES.playout_bot`).

`bot`: keep what melds, throw the highest loose card, knock low, go gin.

- The upcard or the pile's top card is taken only when it joins a meld and lowers the hand's best
  deadwood; never a card this seat threw itself (no taking back the discard just thrown). Otherwise
  the bot draws from the stock, without looking at the card it will get.
- The card just taken from the pile is never thrown again in the same turn, so a card cannot pass
  back and forth between the two players.
- The discard keeps the cards that make or nearly make melds (a pair, two suited cards a rank or two
  apart) and throws the highest of the others.
- Gin is declared whenever the hand allows it. Over the first few draws of a hand the bot plays for
  gin and knocks only with 3 or less (and one time in three plays on even then); after that it
  knocks as soon as the rules let it, with 10 or less. A late knock with a high count is how a
  defender's improved hand undercuts it, as at a real table.
- The defender lays out the arrangement that leaves the least deadwood.

`beginner(greed)`: uniformly random play almost never knocks (a random 11-card hand can knock about
4 times in 1,000), so a random game to 100 takes some 12,000 events (median; 30,000 at the 90th
percentile). The beginner knocks when it can (with the lowest declared deadwood), discards the card
that leaves the best melding, and lays out as much as it can; with probability `1 - greed` it picks
uniformly at random, so odd lines are still explored. It reads only the offered events: in the
discard phase the offered discards are exactly the 11 cards held.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from projections.core.bots import best, of_type
from projections.core.rules import Bot, Event
from projections.games.gin_rummy_3._melds import (
    RANK_INDEX,
    best_melding,
    best_melding_without,
    card_value,
    deadwood_value,
)
from projections.games.gin_rummy_3._state import GinState


def bot(state: GinState, offered: Sequence[Event], rng: random.Random, history: Sequence[Event]) -> Event:
    """One of `offered` for the seat to act (chance events, the cut and the deal, as offered)."""
    seat = state.turn
    if state.phase in ("offer", "draw") and seat is not None:
        return _draw(state, seat, offered, rng, history)
    if state.phase == "discard" and seat is not None:
        return _discard_or_knock(state, seat, offered, rng, history)
    layouts = of_type(offered, "lay_off")
    if layouts:
        return best(layouts, lambda e: _layout_deadwood(state, e), rng)
    return rng.choice(list(offered))


# --------------------------------------------------------------------------- drawing


def _draw(state: GinState, seat: int, offered: Sequence[Event], rng: random.Random, history: Sequence[Event]) -> Event:
    """Take the face-up card if it melds and helps, else pass the upcard or draw from the stock."""
    face_up = [e for e in offered if e["type"] == "draw" and e["source"] == "discard"]
    if face_up and worth_taking(state.hands[seat], face_up[0]["card"], own_discard(history, seat)):
        return face_up[0]
    other = [e for e in offered if e not in face_up]
    return rng.choice(other)


def own_discard(history: Sequence[Event], seat: int) -> str | None:
    """The card this seat threw last (a discard or a knock's discard)."""
    for event in reversed(history):
        if event.get("seat") == seat and event["type"] in ("discard", "knock"):
            return str(event.get("card") or event.get("discard"))
        if event["type"] == "deal":
            return None
    return None


def worth_taking(held: frozenset[str], card: str, thrown: str | None) -> bool:
    """Does `card` join a meld of the hand and lower its best deadwood (keeping `card`)?"""
    if card == thrown:
        return False
    before = best_melding(held).count
    grown = held | {card}
    for discard in held:
        melding = best_melding_without(grown, discard)
        if melding.count < before and any(card in m for m in melding.melds):
            return True
    return False


# --------------------------------------------------------------------------- discarding and knocking


def _discard_or_knock(
    state: GinState, seat: int, offered: Sequence[Event], rng: random.Random, history: Sequence[Event]
) -> Event:
    taken = just_taken(history, seat)
    knocks = [e for e in of_type(offered, "knock") if e["discard"] != taken]
    held = state.hands[seat]
    if knocks:
        knock = best(knocks, lambda e: (knock_deadwood(held, e), -len(e["melds"])), rng)
        if should_knock(knock_deadwood(held, knock), state.stock, rng):
            return knock
    discards = [e for e in of_type(offered, "discard") if e["card"] != taken] or of_type(offered, "discard")
    return best(discards, lambda e: discard_cost(held, e["card"]), rng)


def just_taken(history: Sequence[Event], seat: int) -> str | None:
    """The card `seat` has just taken from the discard pile (the upcard too), if its last event did."""
    if history:
        last = history[-1]
        if last["type"] == "draw" and last.get("seat") == seat and last.get("source") == "discard":
            return str(last["card"])
    return None


def knock_deadwood(held: frozenset[str], knock: Event) -> int:
    """The deadwood the knock declares: the held cards in none of its melds, but its discard."""
    melded = {c for m in knock["melds"] for c in m}
    return deadwood_value(held - melded - {knock["discard"]})


#: (stock cards left at least, the highest deadwood to knock with): the opening plays for gin
KNOCK_AT = ((24, 3), (0, 10))


def should_knock(deadwood: int, stock: int, rng: random.Random) -> bool:
    """Gin always; else a knock when the deadwood is low enough for the stage of the hand.

    With 1 to 3 deadwood and a long stock, one time in three the bot plays on for gin.
    """
    if deadwood == 0:
        return True
    limit = next(most for least, most in KNOCK_AT if stock >= least)
    if deadwood > limit:
        return False
    return not (deadwood <= 3 and stock >= 14 and rng.random() < 1 / 3)


def discard_cost(held: frozenset[str], card: str) -> float:
    """How much throwing `card` costs: the deadwood left, less what nearly melds (lower is better)."""
    melding = best_melding_without(held, card)
    loose = melding.deadwood
    return melding.count - 0.5 * sum(card_value(c) for c in loose if near_meld(c, loose))


def near_meld(card: str, cards: Iterable[str]) -> bool:
    """Is `card` one card short of a meld with another of `cards`: a pair, or suited and close in rank?"""
    for other in cards:
        if other == card:
            continue
        if other[0] == card[0]:
            return True
        if other[1] == card[1] and abs(RANK_INDEX[other[0]] - RANK_INDEX[card[0]]) <= 2:
            return True
    return False


# --------------------------------------------------------------------------- laying out


def _layout_deadwood(state: GinState, layout: Event) -> int:
    """The defender's deadwood after the lay-out: its cards in neither its melds nor its lay-offs."""
    held = state.hands[layout["seat"]]
    out = {c for m in layout["melds"] for c in m} | {lo["card"] for lo in layout["layoffs"]}
    return deadwood_value(held - out)


# --------------------------------------------------------------------------- the beginner


def beginner(greed: float = 0.9) -> Bot[GinState]:
    """A bot that plays sensibly with probability `greed`, at random otherwise (module docstring)."""

    def choose(state: GinState, offered: Sequence[Event], rng: random.Random, history: Sequence[Event]) -> Event:
        if rng.random() >= greed:
            return rng.choice(list(offered))
        knocks = [e for e in offered if e["type"] == "knock"]
        discards = [e for e in offered if e["type"] == "discard"]
        held = frozenset(e["card"] for e in discards)
        if knocks:
            return min(knocks, key=lambda e: knock_deadwood(held, e))
        if discards:
            return min(discards, key=lambda e: (best_melding_without(held, e["card"]).count, rng.random()))
        layouts = [e for e in offered if e["type"] == "lay_off"]
        if layouts:
            return max(layouts, key=_laid_out_value)
        return rng.choice(list(offered))

    return choose


#: `RULES.playout_bot`: the beginner at greed 0.75 (a random playout to 100 in ~800 events)
playout_bot = beginner(0.75)


def _laid_out_value(layout: Event) -> int:
    cards = [c for m in layout["melds"] for c in m] + [lo["card"] for lo in layout["layoffs"]]
    return deadwood_value(cards)
