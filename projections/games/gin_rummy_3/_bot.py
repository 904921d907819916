"""A simple Gin Rummy bot, as a chooser for `projections.core.simulate.play`.

Uniformly random play almost never knocks (a random 11-card hand can knock
about 4 times in 1,000), so a random game to 100 takes some 12,000 events
(median; 30,000 at the 90th percentile). This chooser plays like a beginner
instead: it knocks when it can (with the lowest declared deadwood), discards
the card that leaves the best melding, and lays out as much as it can; with
probability `1 - greed` it picks uniformly at random, so odd lines are still
explored. It sees only the offered events (as the simulator's chooser does):
in the discard phase the offered discards are exactly the 11 cards held.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from projections.core.rules import Event
from projections.core.simulate import Chooser
from projections.games.gin_rummy_3._melds import best_melding, deadwood_value


def bot(rng: random.Random, greed: float = 0.9) -> Chooser:
    """A chooser that plays sensibly with probability `greed`, at random otherwise."""

    def choose(offered: Sequence[Event]) -> Event:
        if rng.random() >= greed:
            return rng.choice(list(offered))
        knocks = [e for e in offered if e["type"] == "knock"]
        discards = [e for e in offered if e["type"] == "discard"]
        held = frozenset(e["card"] for e in discards)
        if knocks:
            return min(knocks, key=lambda e: _knock_deadwood(held, e))
        if discards:
            return min(discards, key=lambda e: (best_melding(held - {e["card"]}).count, rng.random()))
        layouts = [e for e in offered if e["type"] == "lay_off"]
        if layouts:
            return max(layouts, key=_laid_out_value)
        return rng.choice(list(offered))

    return choose


def table_bot(state: object, offered: Sequence[Event], rng: random.Random) -> Event:
    """The `GameRules.bot` hook: the beginner's chooser at greed 0.75 (a game to 100 in ~800 events)."""
    return bot(rng, 0.75)(offered)


def _knock_deadwood(held: frozenset[str], knock: Event) -> int:
    melded = {c for m in knock["melds"] for c in m}
    return deadwood_value(held - melded - {knock["discard"]})


def _laid_out_value(layout: Event) -> int:
    cards = [c for m in layout["melds"] for c in m] + [lo["card"] for lo in layout["layoffs"]]
    return deadwood_value(cards)
