"""Demo games: played by the bots and recorded through the write path (`tablebook demo`, `make run`)."""

from __future__ import annotations

import random
from typing import Any

from api.service.base import Service
from projections.core import engine
from projections.core.registry import rules_for
from projections.core.simulate import demo_playout, next_options

#: events a demo game has at most before its session is closed, and the events of one append
DEMO_EVENTS = 1500
DEMO_BATCH = 200


class Demo(Service):
    """Demo games."""

    def record_demo_game(self, club_id: int, kind: str, rng: random.Random) -> str:
        """Play one game with the bots (`projections.core.simulate.demo_playout`) and record it through the write
        path of the API.

        The bots play with table sense, and the game shown is one with its `GameRules.demo_situations` (a
        sweep, a marriage, a gin and an undercut...), so the demo data shows every feature. A game that
        does not end within `DEMO_EVENTS` events and can close its session (Seven and a Half) plays on
        to the end of the hand in progress and is closed.
        """
        rules = rules_for(kind)
        players = list(rules.demo_players)
        options: dict[str, Any] = {}
        playout = demo_playout(rules, players, options, rng=rng, max_events=DEMO_EVENTS)
        events = list(playout.events)
        if not playout.finished and "session_closed" in rules.events:
            events.extend(_close_session(rules, players, options, events, rng))
        game = self.recorder.create_game(club_id=club_id, kind=kind, players=players, options=options)
        for start in range(0, len(events), DEMO_BATCH):
            self.recorder.append(game.id, events[start : start + DEMO_BATCH], club_id=club_id, actor="demo")
        return game.id


def _close_session(
    rules: Any, players: list[str], options: dict[str, Any], events: list[Any], rng: random.Random
) -> list[Any]:
    """Play on to the end of the hand in progress (the simulator's offers), then close the session."""
    start = engine.fold_events(rules, engine.start(rules, players, rules.options_for(players, options)), events)
    replay = engine.Replay(rules, start, keep=())
    tail: list[Any] = []
    while rules.hand_in_progress(replay.position.game):
        tail.append(replay.push(dict(rng.choice(next_options(rules, replay.position.game, rng)))).event)
    return [*tail, {"type": "session_closed"}]
