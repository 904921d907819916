"""The Casino bot (`RULES.bot`): capture when possible (sweeps first, then the cards that score), build
toward a card held, trail the least valuable card.

Each offered move gets a worth and the bot plays the best:

- a capture is worth the cards it takes and the card played (the aces, big and little casino and
  spades weigh more: they score), with a large bonus when it clears the table (a sweep, which also
  leaves the next player nothing to take);
- a build is worth most of what it will capture (the rules offer one only to a player holding the
  card that captures it), so it wins over a capture of less;
- a trail costs the card trailed, so the bot trails its least valuable card, and only when it can do
  nothing better.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from projections.core.bots import best
from projections.core.rules import Event
from projections.games.casino._state import CasinoState

#: what a captured card brings beyond being one more card: the items that score (`casino/_score.py`)
SCORING = {"TD": 8.0, "2S": 4.0, "AC": 4.0, "AD": 4.0, "AH": 4.0, "AS": 4.0}
#: a capture that clears the table
SWEEP_BONUS = 20.0
#: a build's worth, as a share of what it will capture (an opponent may take it first)
BUILD_SHARE = 0.8


def bot(state: CasinoState, offered: Sequence[Event], rng: random.Random, history: Sequence[Event]) -> Event:
    """One of `offered`: the most valuable play (deals as offered)."""
    moves = [e for e in offered if e["type"] in ("capture", "build", "trail")]
    if not moves:
        return rng.choice(list(offered))
    return best(moves, lambda e: -worth(state, e), rng)


def card_worth(card: str) -> float:
    """One card in a capture pile: one for most cards, a half more for a spade, more for a scoring card."""
    return 1.0 + (0.5 if card[1] == "S" else 0.0) + SCORING.get(card, 0.0)


def taken_cards(state: CasinoState, items: Iterable[str]) -> list[str]:
    """The cards that `take` (or `onto`) items name: loose cards as they are, builds as their cards."""
    out: list[str] = []
    for item in items:
        build = state.build(item)
        out.extend(build.cards if build is not None else (item,))
    return out


def clears_table(state: CasinoState, capture: Event) -> bool:
    """Does the capture take every loose card and every build (a sweep, unless the round's last)?"""
    table = set(state.loose) | {b.id for b in state.builds}
    return capture["type"] == "capture" and set(capture["take"]) == table


def worth(state: CasinoState, move: Event) -> float:
    """What the move is worth to its player (higher is better)."""
    if move["type"] == "capture":
        cards = [move["card"], *taken_cards(state, move["take"])]
        return sum(card_worth(c) for c in cards) + (SWEEP_BONUS if clears_table(state, move) else 0.0)
    if move["type"] == "build":
        cards = [move["card"], *taken_cards(state, move["onto"])]
        return BUILD_SHARE * sum(card_worth(c) for c in cards)
    return -card_worth(move["card"])
