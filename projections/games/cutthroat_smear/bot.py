"""Cutthroat Smear's bots: `bot`, a player with table sense (`RULES.bot`, the demo games), and
`playout_bot`, the random playouts' player (`RULES.playout_bot`).

`bot`: bid what the trumps held are worth, lead trump, win the tricks with points in them.

- Bidding: for each suit the bot counts the points its cards of that suit would take as trump
  (`suit_worth`: the ace or a high trump for High, the two or a low trump for Low, the jack, and
  length and tens for Game) and bids its best suit's worth when that is above the high bid. Some
  players at a table bid boldly: one time in four the bot stretches a near bid by one, which is how
  bids get set.
- The bidder's first lead is its best suit (which makes it trump), from the top.
- Later it leads a high trump while it holds the ace or king of trump, else its cheapest card.
- Following, it wins a trick that holds points (a ten, the jack of trump, court cards) or that it
  plays last to, with its cheapest winning card, and otherwise throws its cheapest card, keeping its
  trumps, tens and the jack. Following suit is the rules' business (`legal_events`).

`playout_bot`: uniformly random choices never end a Smear game (random bids of 3 and 4 mostly fail and
every total drifts below zero for ever), so a random playout bids only what its best suit may take
and leads that suit to make it trump; every other play is random, and one choice in ten uniformly
random, so that every legal event still comes up. Games then end in a few hundred events.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from events.cards import rank, suit
from projections.core.bots import best, of_type
from projections.core.rules import Event
from projections.games.cutthroat_smear._scoring import GAME_VALUE, STRENGTH, trick_winner
from projections.games.cutthroat_smear._state import SmearState, to_act

#: one time in this many the bot stretches a bid by one (a bold bidder)
BOLD = 0.25
#: what a bidder counts on beyond its cards' worth: the tricks the others' cards give it
HOPE = 0.3


def bot(state: SmearState, offered: Sequence[Event], rng: random.Random, history: Sequence[Event]) -> Event:
    """One of `offered` (deals as offered)."""
    if state.phase == "bid":
        return _bid(state, offered, rng)
    if state.phase == "play":
        return _play(state, offered, rng)
    return rng.choice(list(offered))


# --------------------------------------------------------------------------- bidding


def suit_worth(held: frozenset[str], trump: str) -> float:
    """The points `held` may take with `trump` as trump: High, Low, Jack and Game, roughly."""
    ranks = {rank(c) for c in held if suit(c) == trump}
    if not ranks:
        return 0.0
    high = 1.0 if "A" in ranks else 0.7 if "K" in ranks else 0.5 if "Q" in ranks else 0.0
    low = 1.0 if "2" in ranks else 0.75 if "3" in ranks else 0.55 if "4" in ranks else 0.4 if "5" in ranks else 0.0
    jack = min(1.0, 0.5 + 0.15 * (len(ranks) - 1)) if "J" in ranks else 0.0
    game = 0.25 * (len(ranks) - 1) + (0.3 if "T" in ranks else 0.0)
    return high + low + jack + game


def best_suit(held: frozenset[str]) -> tuple[float, str]:
    """The suit the hand is best at as trump, with its worth."""
    return max((suit_worth(held, s), s) for s in "CDHS")


def bid_for(worth: float, rng: random.Random) -> int:
    """The bid a hand of this worth is good for (0: pass); a bold player stretches a near bid."""
    amount = int(worth + HOPE)
    if worth + HOPE - amount >= 0.5 and rng.random() < BOLD:
        amount += 1
    return amount


def _bid(state: SmearState, offered: Sequence[Event], rng: random.Random) -> Event:
    seat = to_act(state)[0]
    worth, _ = best_suit(state.hands[seat])
    want = bid_for(worth, rng)
    bids = [e for e in of_type(offered, "bid") if e["amount"] <= want]
    if bids:
        return max(bids, key=lambda e: e["amount"])
    return of_type(offered, "pass")[0]


# --------------------------------------------------------------------------- playing


def _cost(card: str, trump: str | None) -> tuple[int, int]:
    """What throwing `card` gives away: trumps and the cards that count for Game first, then rank."""
    is_trump = suit(card) == trump
    keep = GAME_VALUE.get(rank(card), 0) + (8 if is_trump else 0) + (10 if is_trump and rank(card) == "J" else 0)
    return keep, STRENGTH[rank(card)]


def _play(state: SmearState, offered: Sequence[Event], rng: random.Random) -> Event:
    seat = to_act(state)[0]
    plays = of_type(offered, "play")
    if state.trump is None:  # the bidder's first lead names trump: its best suit, from the top
        _, trump = best_suit(state.hands[seat])
        return best(plays, lambda e: (suit(e["card"]) != trump, -STRENGTH[rank(e["card"])]), rng)
    trump = state.trump
    if not state.trick:
        held = {rank(c) for c in state.hands[seat] if suit(c) == trump}
        if held & {"A", "K"}:
            return best(plays, lambda e: (suit(e["card"]) != trump, -STRENGTH[rank(e["card"])]), rng)
        return best(plays, lambda e: _cost(e["card"], trump), rng)
    winners = [e for e in plays if trick_winner((*state.trick, (seat, e["card"], 0)), trump) == seat]
    last = len(state.trick) == state.seats - 1
    if winners and (last or _trick_points(state) >= 2):
        return best(winners, lambda e: (suit(e["card"]) == trump, STRENGTH[rank(e["card"])]), rng)
    return best(plays, lambda e: _cost(e["card"], trump), rng)


def _trick_points(state: SmearState) -> int:
    """What the trick on the table holds: its Game value, and the jack of trump as much as a ten."""
    cards = [c for _, c, _ in state.trick]
    jack = 10 if f"J{state.trump}" in cards else 0
    return sum(GAME_VALUE.get(rank(c), 0) for c in cards) + jack


# --------------------------------------------------------------------------- the random playouts' player


def _rough_worth(held: frozenset[str], trump: str) -> float:
    """A rough count of the points `held` could take with `trump` as trump."""
    ranks = {rank(c) for c in held if suit(c) == trump}
    if not ranks:
        return 0.0
    high = 1.0 if "A" in ranks else 0.6 if "K" in ranks else 0.3 if "Q" in ranks else 0.0
    jack = 0.7 if "J" in ranks else 0.0
    low = 0.6 if ranks & set("23") else 0.3 if ranks & set("45") else 0.0
    return high + jack + low + 0.35 * (len(ranks) - 1)


def _roughly_best_suit(held: frozenset[str]) -> tuple[float, str]:
    return max((_rough_worth(held, s), s) for s in "CDHS")


def playout_bot(state: SmearState, offered: Sequence[Event], rng: random.Random, history: Sequence[Event]) -> Event:
    """One of `offered`: a bid of what the best suit is worth and its lead, else at random (module docstring)."""
    decisions = [e for e in offered if e["type"] != "deal"]
    if not decisions or rng.random() < 0.1:
        return rng.choice(list(offered))
    seat = to_act(state)[0]
    if state.phase == "bid":
        worth, _ = _roughly_best_suit(state.hands[seat])
        bids = [e for e in decisions if e["type"] == "bid" and e["amount"] <= worth + 0.5]
        return bids[-1] if bids else next(e for e in decisions if e["type"] == "pass")
    if state.phase == "play" and state.trump is None:
        _, strongest = _roughly_best_suit(state.hands[seat])
        leads = [e for e in decisions if suit(e["card"]) == strongest]
        return leads[0] if leads else rng.choice(decisions)
    return rng.choice(decisions)
