"""A hand recorded under `record` enforcement with a play against the rules is reviewed without failing: the
play is listed, not valued (no cost, no mark, a sentence that says so), and the seat's tally leaves it out."""

from __future__ import annotations

import random
from typing import Any

import pytest

from projections.core import engine
from projections.core.registry import rules_for
from projections.reading.review import review_document
from tests.projections.helpers import PLAYERS
from tests.projections.review_helpers import record


def with_a_breach(kind: str, seed: int) -> tuple[list[dict[str, Any]], int]:
    """Hand 1 of a random game of `kind` under record enforcement with one disputed play in it: its events
    (up to the hand's end) and the seq of the play against the rules."""
    rules = rules_for(kind)
    players = PLAYERS[kind]
    options = {"enforcement": "record"}
    rng = random.Random(seed)
    for _ in range(40):
        position = engine.start(rules, players, rules.options_for(players, options))
        events: list[dict[str, Any]] = []
        breach = None
        while not rules.is_terminal(position.game) and len(events) < 400:
            state = position.game
            if position.game.hand == 1 and events and not rules.hand_in_progress(state):
                break
            disputed = rules.disputed(state) if breach is None and state.hand == 1 else []
            offered = [*rules.legal_events(state), *rules.chance_events(state, rng)]
            choice = dict(rng.choice(disputed)) if disputed and rng.random() < 0.5 else dict(rng.choice(offered))
            decision = engine.decide(rules, position, choice)
            position = engine.apply(rules, position, decision.event, len(events) + 1)
            events.append(decision.event)
            if decision.violation is not None:
                breach = len(events)
        if breach is not None and not rules.hand_in_progress(position.game):
            return events, breach
    raise AssertionError(f"no {kind} hand with a play against the rules")


@pytest.mark.parametrize(("kind", "unvalued"), [("cutthroat-smear", True), ("gin-rummy-3", False)])
def test_a_play_against_the_rules_is_reviewed(kind: str, unvalued: bool) -> None:
    """Smear's revoke is not among the cards the search plays: listed, not valued. Gin's breaches (a knock over
    the limit, say) still let a card go: valued as the deadwood that discard kept."""
    rules = rules_for(kind)
    events, breach = with_a_breach(kind, 3)
    hand = record(rules, PLAYERS[kind], events, 1, {"enforcement": "record"})
    assert rules.review is not None
    document = review_document(rules, hand, rules.review.review(hand, None), PLAYERS[kind], None)
    entry = next(d for d in document["decisions"] if d["seq"] == breach)
    figure = entry["seen"] or entry["hindsight"]
    if unvalued:
        assert entry["mark"] is None and entry["cost"] is None and figure["cost"] is None
        assert "against the rules" in entry["sentence"] and figure["played"]["value"] is None
        assert figure["best"]["value"] is not None  # the legal choices are still valued
    else:
        assert entry["cost"] is not None and figure["played"]["value"] is not None
    for tally in document["seats"]:
        assert all(v is not None for v in tally["cost"].values())
