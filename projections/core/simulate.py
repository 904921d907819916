"""Simulated legal games: random playouts for property tests and benchmarks, bot games for the demo.

At every step the simulator takes the decisions `legal_events` offers plus
the chance events `chance_events` completes from the unseen cards (a
shuffled deck, in effect), and lets a bot (`rules.Bot`) pick one. There is
no RNG in any rule.

Two ways to pick:

- `play` without `bot` is the random playout the property tests and benchmarks rely on: uniformly at
  random, or by the game's `GameRules.playout_bot` where uniform play would never end, so every legal
  line comes up sooner or later.
- `play(..., bot=...)` lets a given bot choose (the game's `GameRules.bot` has table sense);
  `demo_playout` plays such games for `tablebook demo` until one shows the situations the game
  declares for its demo games (`GameRules.demo_situations`: a sweep, a marriage, a gin and an
  undercut, a set bid, a 7½ and a bust).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from projections.core import engine
from projections.core.rules import Bot, Event, Facts, GameRules, S


@dataclass(frozen=True, slots=True)
class Playout:
    """A simulated game: its events in order and the position after each (`engine.Position`).

    `facts` are the derived facts (the envelope's `result`) of each event, in order: what the search
    tags are read from (`situations_of`).
    """

    events: tuple[dict[str, Any], ...]
    states: tuple[Any, ...]
    finished: bool
    facts: tuple[Facts, ...] = ()


def next_options(rules: GameRules[S], state: S, rng: random.Random) -> list[Event]:
    """Every decision and every completed chance event available now."""
    return [*rules.legal_events(state), *rules.chance_events(state, rng)]


def uniform(state: Any, offered: Sequence[Event], rng: random.Random, history: Sequence[Event]) -> Event:
    """The bot of a plain random playout: one of `offered`, drawn uniformly."""
    return rng.choice(offered)


def playout_bot(rules: GameRules[S]) -> Bot[S]:
    """The bot a random playout of the game plays with: its `GameRules.playout_bot`, else `uniform`."""
    return rules.playout_bot or uniform


def playout_choice(
    rules: GameRules[S], state: S, offered: Sequence[Event], rng: random.Random, history: Sequence[Event] = ()
) -> Event:
    """What a random playout of the game plays from `offered` (`playout_bot`), for a caller that walks a
    game itself (the tests' walks, the OpenAPI examples); `history`, the events so far, where it has them."""
    return playout_bot(rules)(state, offered, rng, history)


def play(
    rules: GameRules[S],
    players: Sequence[str],
    options: Mapping[str, Any] | None = None,
    *,
    rng: random.Random,
    max_events: int = 5000,
    keep_states: bool = False,
    bot: Bot[S] | None = None,
) -> Playout:
    """Play one game from creation until it ends (or `max_events`).

    `bot` chooses every event (it also sees the events so far); without one, the game's random playout
    chooses (`playout_bot`). Every chosen event goes through `engine.decide` first, so a `legal_events`
    result that `validate` refuses fails loudly here, and so does a bot that answers with an event it
    was not offered.
    """
    replay = engine.Replay(rules, engine.start(rules, players, rules.options_for(players, options)), keep=())
    position = replay.position
    choose = bot or playout_bot(rules)
    events: list[dict[str, Any]] = []
    states: list[Any] = []
    facts: list[Facts] = []
    while not rules.is_terminal(position.game) and len(events) < max_events:
        offered = next_options(rules, position.game, rng)
        if not offered:
            raise AssertionError(f"{rules.kind}: no event possible at seq {position.seq} but the game is not over")
        chosen = choose(position.game, offered, rng, events)
        if chosen not in offered:
            raise AssertionError(f"{rules.kind}: the bot chose {chosen}, which was not offered")
        decision = replay.push(dict(chosen))
        assert decision.violation is None, f"legal_events offered an illegal event: {decision}"
        position = replay.position
        events.append(decision.event)
        facts.append(position.facts)
        if keep_states:
            states.append(position)
    return Playout(tuple(events), tuple(states), rules.is_terminal(position.game), tuple(facts))


def situations_of(rules: GameRules[Any], playout: Playout) -> frozenset[str]:
    """Every search tag the playout's events give (`GameRules.situations`, as the read model reads them)."""
    return frozenset(tag for e, f in zip(playout.events, playout.facts, strict=True) for tag in rules.situations(e, f))


# --------------------------------------------------------------------------- demo games

#: bot games played at most for one demo game, looking for one with the game's `demo_situations`
DEMO_TRIES = 20


def demo_playout(
    rules: GameRules[S],
    players: Sequence[str],
    options: Mapping[str, Any] | None = None,
    *,
    rng: random.Random,
    max_events: int = 5000,
) -> Playout:
    """A game played by the game's bot (`GameRules.bot`) that shows its `GameRules.demo_situations`.

    Plays up to `DEMO_TRIES` games with `rng` and returns the first finished one with every wanted
    situation; when none has them all, the one with the most (finished games first). Repeatable:
    the same `rng` state gives the same game. A game with no bot yet is played as `play` plays it
    without one.
    """
    wanted = rules.demo_situations
    best: tuple[tuple[bool, int], Playout] | None = None
    for _ in range(DEMO_TRIES):
        playout = play(rules, players, options, rng=rng, max_events=max_events, bot=rules.bot)
        score = (playout.finished, len(wanted & situations_of(rules, playout)))
        if score == (True, len(wanted)):
            return playout
        if best is None or score > best[0]:
            best = (score, playout)
    assert best is not None
    return best[1]
