"""Simulated legal games: random playouts for property tests and benchmarks, bot games for the demo.

At every step the simulator takes the decisions `legal_events` offers plus
the chance events `chance_events` completes from the unseen cards (a
shuffled deck, in effect), and picks one. There is no RNG in any rule.

Two ways to pick:

- `play` without `bot` is the random playout the property tests and benchmarks rely on: uniformly at
  random (or the game's own `GameRules.bot` chooser where it has one, or a given `choose`), so every
  legal line comes up sooner or later.
- `play(..., bot=...)` lets a bot with table sense (`projections.bots`) choose; `demo_playout` plays
  such games for `tablebook demo` until one shows the situations a demo game of its kind should
  show (`DEMO_SITUATIONS`: a sweep, a marriage, a gin and an undercut, a set bid, a 7½ and a bust).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from projections.core import engine
from projections.core.rules import Event, Facts, GameRules, S

if TYPE_CHECKING:  # the bots import the games, and a game imports `Chooser` from here
    from projections.bots import Bot

#: Picks one of the offered events; the default is uniform at random.
Chooser = Callable[[Sequence[Event]], Event]


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


def play(
    rules: GameRules[S],
    players: Sequence[str],
    options: Mapping[str, Any] | None = None,
    *,
    rng: random.Random,
    max_events: int = 5000,
    choose: Chooser | None = None,
    keep_states: bool = False,
    bot: Bot | None = None,
) -> Playout:
    """Play one game from creation until it ends (or `max_events`).

    The chooser is `bot` when given (it also sees the events so far), else `choose`, else the game's
    `GameRules.bot`, else uniformly at random. Every chosen event goes through `engine.decide` first,
    so a `legal_events` result that `validate` refuses fails loudly here, and so does a bot that
    answers with an event it was not offered.
    """
    replay = engine.Replay(rules, engine.start(rules, players, rules.options_for(players, options)), keep=())
    position = replay.position
    pick: Chooser = choose or rng.choice
    events: list[dict[str, Any]] = []
    states: list[Any] = []
    facts: list[Facts] = []
    while not rules.is_terminal(position.game) and len(events) < max_events:
        offered = next_options(rules, position.game, rng)
        if not offered:
            raise AssertionError(f"{rules.kind}: no event possible at seq {position.seq} but the game is not over")
        if bot is not None:
            chosen = bot(position.game, offered, rng, events)
            if chosen not in offered:
                raise AssertionError(f"{rules.kind}: the bot chose {chosen}, which was not offered")
        elif choose is None and rules.bot is not None:
            chosen = rules.bot(position.game, offered, rng)
        else:
            chosen = pick(offered)
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

#: the situations every demo game of a kind should show, so that the demo data shows every feature
DEMO_SITUATIONS: Mapping[str, frozenset[str]] = {
    "casino": frozenset({"sweep", "build"}),
    "cutthroat-smear": frozenset({"made_bid", "failed_bid"}),
    "gin-rummy-3": frozenset({"gin", "undercut"}),
    "schnapsen": frozenset({"marriage"}),
    "seven-and-a-half": frozenset({"seven_and_a_half", "bust"}),
}
#: bot games played at most for one demo game, looking for one with its `DEMO_SITUATIONS`
DEMO_TRIES = 20


def demo_playout(
    rules: GameRules[S],
    players: Sequence[str],
    options: Mapping[str, Any] | None = None,
    *,
    rng: random.Random,
    max_events: int = 5000,
) -> Playout:
    """A game played by the bots (`projections.bots`) that shows its kind's `DEMO_SITUATIONS`.

    Plays up to `DEMO_TRIES` games with `rng` and returns the first finished one with every wanted
    situation; when none has them all, the one with the most (finished games first). Repeatable:
    the same `rng` state gives the same game. A game kind with no bot in `projections.bots` is
    played as `play` plays it without one.
    """
    from projections.bots import BOTS  # here, not at the top: the bots import the games

    wanted = DEMO_SITUATIONS.get(rules.kind, frozenset())
    bot = BOTS.get(rules.kind)  # a game without a bot yet is played as the random playout plays it
    best: tuple[tuple[bool, int], Playout] | None = None
    for _ in range(DEMO_TRIES):
        playout = play(rules, players, options, rng=rng, max_events=max_events, bot=bot)
        score = (playout.finished, len(wanted & situations_of(rules, playout)))
        if score == (True, len(wanted)):
            return playout
        if best is None or score > best[0]:
            best = (score, playout)
    assert best is not None
    return best[1]
