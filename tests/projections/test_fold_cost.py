"""The work per event does not grow with the number of hands played (STYLE.md point 5).

Counted, not timed. A long game of each kind is folded as an append does it
(`engine.apply`, then `score` for the head); over its first and its last
`WINDOW` events two things are counted:

- past hands copied: every reference to a `HandScore` held by a container
  (tuple, list, dict, state...) created while folding that event or scoring
  after it. `results=(*state.results, hand)` copies every past hand at each
  hand's end; an append-only log copies none.
- hands visited: every read of a `HandScore`'s points. A `score()` that sums
  the totals over every past hand reads them all on each call; running
  totals read each hand once, when it ends.

The last window, hundreds of hands into the game, must cost about what the
first one does.
"""

from __future__ import annotations

import gc
import random
from collections.abc import Iterator
from typing import Any

import pytest

from projections.core import engine
from projections.core.registry import KINDS, rules_for
from projections.core.rules import GameRules, HandScore
from projections.core.simulate import playout_choice

#: every game of the registry
GAMES = tuple(KINDS)
WINDOW = 500
EVENTS = 5000
#: containers whose referents are walked; other objects (types, functions, str, int) are leaves
WALKED = (tuple, list, dict, frozenset, set)


def long_game(rules: GameRules[Any], seed: int = 7) -> tuple[Any, list[dict[str, Any]]]:
    """A game of EVENTS events that never ends: a hand that would end it is voided instead."""
    players = [f"P{i}" for i in range(rules.player_counts[0])]
    initial = engine.start(rules, players, rules.options_for(players, {}))
    rng = random.Random(seed)
    state, events = initial, []
    while len(events) < EVENTS:
        offered = [e for e in rules.legal_events(state.game) if e["type"] != "session_closed"]
        offered += rules.chance_events(state.game, rng)
        event = dict(playout_choice(rules, state.game, offered, rng, events))
        after = engine.apply(rules, state, event, state.seq + 1)
        if rules.is_terminal(after.game):
            assert rules.hand_in_progress(state.game), f"{rules.kind}: the game ended outside a hand"
            event = {"type": "hand_voided", "reason": "kept going"}
            after = engine.apply(rules, state, event, state.seq + 1)
        state = after
        events.append(event)
    assert not rules.is_terminal(state.game)
    return initial, events


def _is_walked(obj: object) -> bool:
    return isinstance(obj, WALKED) or type(obj).__module__.startswith("projections")


class Copies:
    """Counts HandScore references in objects not reachable from any state seen before."""

    def __init__(self) -> None:
        self.known: set[int] = set()
        self.alive: list[object] = []  # keeps every walked object alive, so no id is reused
        self.count = 0

    def walk(self, root: object) -> None:
        stack = [root]
        while stack:
            obj = stack.pop()
            if id(obj) in self.known or not _is_walked(obj):
                continue
            self.known.add(id(obj))
            self.alive.append(obj)
            for ref in gc.get_referents(obj):
                if isinstance(ref, type):
                    continue
                if isinstance(ref, HandScore) and id(ref) in self.known:
                    self.count += 1  # an old hand, referred to again by a new container: a copy
                stack.append(ref)


class PointReads:
    """Counts reads of `HandScore.points` while installed."""

    def __init__(self) -> None:
        self.count = 0

    def __enter__(self) -> PointReads:
        member = HandScore.__dict__["points"]
        self.member = member

        def get(hand: HandScore) -> Any:
            self.count += 1
            return member.__get__(hand, HandScore)

        def put(hand: HandScore, value: Any) -> None:
            member.__set__(hand, value)

        type.__setattr__(HandScore, "points", property(get, put))
        return self

    def __exit__(self, *exc: object) -> None:
        type.__setattr__(HandScore, "points", self.member)


def window_cost(rules: GameRules[Any], start: Any, events: list[dict[str, Any]], first_seq: int) -> tuple[int, int]:
    """(past hands copied, hands visited) over `events`, folded from `start` and scored after each."""
    copies = Copies()
    copies.walk(start)
    state = start
    with PointReads() as reads:
        for seq, event in enumerate(events, first_seq):
            state = engine.apply(rules, state, event, seq)
            sheet = rules.score(state.game)
            copies.walk(state)
            copies.walk(sheet)
    return copies.count, reads.count


def states_at(rules: GameRules[Any], initial: Any, events: list[dict[str, Any]]) -> Iterator[Any]:
    state = initial
    for seq, event in enumerate(events, 1):
        state = engine.apply(rules, state, event, seq)
        yield state


@pytest.mark.parametrize("kind", list(GAMES))
def test_work_per_event_does_not_grow_with_the_hands_played(kind: str) -> None:
    rules = rules_for(kind)
    initial, events = long_game(rules)
    *_, before_last = states_at(rules, initial, events[: EVENTS - WINDOW])
    assert before_last.hand >= 40, f"{kind}: only {before_last.hand} hands in {EVENTS} events"
    first = window_cost(rules, initial, events[:WINDOW], 1)
    last = window_cost(rules, before_last, events[EVENTS - WINDOW :], EVENTS - WINDOW + 1)
    hands = before_last.hand
    assert last[0] <= 2 * first[0] + 100, (
        f"{kind}: {last[0]} past hands copied in the last {WINDOW} events ({hands} hands in), "
        f"{first[0]} in the first {WINDOW}"
    )
    assert last[1] <= 2 * first[1] + 100, (
        f"{kind}: {last[1]} hands visited in the last {WINDOW} events ({hands} hands in), "
        f"{first[1]} in the first {WINDOW}"
    )
