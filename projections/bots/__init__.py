"""Bots with table sense, one module per game, for the demo games (`tablebook demo`, `make run`).

Uniformly random legal play makes nonsense records (a Gin card passed back and forth for a dozen
turns, every Schnapsen hand closed, no Casino sweep), and the demo is what a club judging the product
reads first. A bot here plays like a sensible club player instead.

Every bot is a pure function `bot(state, offered, rng, history) -> event` that picks one of the
`offered` events: the game's `legal_events` together with its completed `chance_events`, exactly what
`projections.core.simulate` offers. A bot never builds an event of its own, so it can only play what the
rules allow; a chance event (a deal, a draw, a hit) is taken as offered, so its card stays the
simulator's random one (and a bot deciding whether to draw never looks at the card it would get).
`history` is the game's events so far (a bot remembers what it just drew or threw, as a player does);
`rng` adds variety among equally good choices, so two seeds give two different games.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from projections.bots import casino, cutthroat_smear, gin_rummy_3, schnapsen, seven_and_a_half
from projections.core.rules import Event

#: `bot(state, offered, rng, history)`: one of `offered`, chosen with table sense
Bot = Callable[[Any, Sequence[Event], random.Random, Sequence[Event]], Event]

#: the bot of each game kind (`GameRules.kind`)
BOTS: Mapping[str, Bot] = {
    "casino": casino.bot,
    "cutthroat-smear": cutthroat_smear.bot,
    "gin-rummy-3": gin_rummy_3.bot,
    "schnapsen": schnapsen.bot,
    "seven-and-a-half": seven_and_a_half.bot,
}

__all__ = ["BOTS", "Bot", "bot_for"]


def bot_for(kind: str) -> Bot:
    """The bot of a game kind.

    Raises:
        KeyError: no bot plays that game (every registered game has one; `tests/projections/test_bots.py`).
    """
    return BOTS[kind]
