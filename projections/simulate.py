"""Random legal games: bots for `tablebook demo`, property tests and benchmarks.

At every step the simulator takes the decisions `legal_events` offers plus
the chance events `chance_events` completes from the unseen cards (a
shuffled deck, in effect), and picks one. There is no RNG in any rule.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from projections import engine
from projections.rules import Event, GameRules, S

#: Picks one of the offered events; the default is uniform at random.
Chooser = Callable[[Sequence[Event]], Event]


@dataclass(frozen=True, slots=True)
class Playout:
    """A simulated game: its events in order and the position after each (`engine.Position`)."""

    events: tuple[dict[str, Any], ...]
    states: tuple[Any, ...]
    finished: bool


def next_options(rules: GameRules[S], state: S, rng: random.Random) -> list[Event]:
    """Every decision and every completed chance event available now."""
    return [*rules.legal_events(state), *rules.chance_events(state, rng)]


def play(
    rules: GameRules[S],
    players: Sequence[str],
    options: Mapping[str, Any] | None = None,
    *,
    rng: random.Random,
    max_events: int = 5000,
    choose: Chooser | None = None,
    keep_states: bool = False,
) -> Playout:
    """Play one game from creation until it ends (or `max_events`).

    Every chosen event goes through `engine.decide` first, so a `legal_events`
    result that `validate` refuses fails loudly here.
    """
    position = engine.start(rules, players, rules.options_for(players, options))
    pick: Chooser = choose or rng.choice
    events: list[dict[str, Any]] = []
    states: list[Any] = []
    while not rules.is_terminal(position.game) and len(events) < max_events:
        offered = next_options(rules, position.game, rng)
        if not offered:
            raise AssertionError(f"{rules.kind}: no event possible at seq {position.seq} but the game is not over")
        if choose is None and rules.bot is not None:
            chosen = rules.bot(position.game, offered, rng)
        else:
            chosen = pick(offered)
        decision = engine.decide(rules, position, dict(chosen))
        assert decision.violation is None, f"legal_events offered an illegal event: {decision}"
        position = engine.apply(rules, position, decision.event, position.seq + 1)
        events.append(decision.event)
        if keep_states:
            states.append(position)
    return Playout(tuple(events), tuple(states), rules.is_terminal(position.game))
