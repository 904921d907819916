"""What every game's bot needs (each game's `bot.py`; `rules.Bot` says what a bot is): the offered events
of some types, and the best of them with a random tie-break."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from projections.core.rules import Event


def of_type(offered: Sequence[Event], *kinds: str) -> list[Event]:
    """The offered events of these types, in the order offered."""
    return [e for e in offered if e["type"] in kinds]


def best(events: Sequence[Event], key: Callable[[Event], Any], rng: random.Random) -> Event:
    """The event with the lowest `key`; equally good ones are drawn at random, so seeds give variety."""
    scored = [(key(e), rng.random(), i) for i, e in enumerate(events)]
    return events[min(scored)[2]]
