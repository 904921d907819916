"""Helpers the review tests share: a hand of recorded events as a reviewer is given it (`HandRecord`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from projections.core import engine
from projections.core.review import HandRecord, Turn
from projections.core.rules import GameRules


def record(
    rules: GameRules[Any],
    players: Sequence[str],
    events: Sequence[Mapping[str, Any]],
    hand: int,
    options: Mapping[str, Any] | None = None,
) -> HandRecord[Any]:
    """Hand `hand` of `events` (a game from its creation), each event decided by the rules then applied, as
    `projections/reading/review.py` walks a stored one: every game event whose position is in the hand."""
    position = engine.start(rules, players, rules.options_for(players, options or {}))
    turns = []
    for seq, event in enumerate(events, 1):
        before = position.game
        decision = engine.decide(rules, position, dict(event))
        position = engine.apply(rules, position, decision.event, seq)
        if position.game.hand == hand and event["type"] not in engine.ENGINE_EVENTS:
            turns.append(Turn(seq, before, decision.event, position.facts, position.game))
    return HandRecord(hand, tuple(turns), rules)
