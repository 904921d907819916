"""The Seven and a Half bot (`RULES.bot`): modest stakes, punters and banker standing on sound totals, a
session of a dozen hands.

- Stakes: each punter stakes a small amount within the table's limits (`STAKE_AMOUNTS`, the minimum most
  often), as a friendly table does.
- A punter hits below 5, stands at 5½ or more, and at exactly 5 hits or stands as a coin falls; it
  splits two face cards when the table allows it, and now and then asks for a face-down card where
  that is allowed. It never turns its face-down card early (the `flip` is the player's to choose).
- The banker, who wins ties, hits below 5½ and stands from 5½.
- Between hands the bank stays where the rules put it, and the session is closed after
  `SESSION_HANDS` hands (a session never ends by itself).
Totals are in half points, as the state keeps them (7½ = 15).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from projections.core.bots import of_type
from projections.core.rules import Event
from projections.games.seven_and_a_half._state import BANKER, BETWEEN, PLAY, STAKES, SevenAndAHalfState

#: hands in a demo session before the bot closes it
SESSION_HANDS = 12
#: the stakes a punter places (those within the limits), the first ones more often
STAKE_AMOUNTS = (1, 1, 1, 2, 2, 5, 10)
#: in half points: a punter hits below 5, may hit at 5; the banker hits below 5½
PUNTER_HITS_BELOW = 10
BANKER_HITS_BELOW = 11


def bot(state: SevenAndAHalfState, offered: Sequence[Event], rng: random.Random, history: Sequence[Event]) -> Event:
    """One of `offered` (deals as offered; a hit's card is the simulator's)."""
    if state.phase in (BETWEEN, STAKES):
        return _between(state, offered, rng)
    if state.phase == PLAY and state.turn is not None:
        return _punter(state, state.turn, offered, rng)
    if state.phase == BANKER:
        return _banker(state, offered, rng)
    return rng.choice(list(offered))


def _between(state: SevenAndAHalfState, offered: Sequence[Event], rng: random.Random) -> Event:
    closes = of_type(offered, "session_closed")
    if closes and state.hand >= SESSION_HANDS:
        return closes[0]
    bets = of_type(offered, "bet")
    if not bets:
        return rng.choice(list(offered))
    seat = bets[0]["seat"]
    mine = [e for e in bets if e["seat"] == seat]
    amounts = {e["amount"]: e for e in mine}
    wanted = [a for a in STAKE_AMOUNTS if a in amounts]
    return amounts[rng.choice(wanted)] if wanted else min(mine, key=lambda e: e["amount"])


def _hand_events(offered: Sequence[Event], index: int) -> list[Event]:
    """The offered events about one hand of the seat (a seat with one hand names none)."""
    return [e for e in offered if e.get("hand", 0) == index]


def _punter(state: SevenAndAHalfState, seat: int, offered: Sequence[Event], rng: random.Random) -> Event:
    hands = state.hands[seat]
    index = next(i for i, h in enumerate(hands) if not h.finished)
    mine = _hand_events(offered, index)
    splits = of_type(mine, "split")
    if splits:
        return min(splits, key=lambda e: e["amount"])
    total = state.total(hands[index])
    hits = of_type(mine, "hit")
    hit = total < PUNTER_HITS_BELOW or (total == PUNTER_HITS_BELOW and rng.random() < 0.5)
    if hit and hits:
        face_up = [e for e in hits if not e.get("face_down")]
        face_down = [e for e in hits if e.get("face_down")]
        return face_down[0] if face_down and rng.random() < 0.2 else (face_up or hits)[0]
    return of_type(mine, "stand")[0]


def _banker(state: SevenAndAHalfState, offered: Sequence[Event], rng: random.Random) -> Event:
    total = state.total(state.hands[state.banker][0])
    hits = of_type(offered, "hit")
    if total < BANKER_HITS_BELOW and hits:
        return hits[0]
    return of_type(offered, "stand")[0]
