"""The fairness report reads each seat's dealt hand from the game's declaration (`report.seat_hands`): the
cards a deal gives each seat are exactly what each seat holds privately once it is dealt."""

from __future__ import annotations

import random

import pytest

from events.cards import sorted_cards
from projections.core.registry import available, rules_for
from projections.core.simulate import play
from projections.fairness import report


@pytest.mark.parametrize("kind", available())
def test_the_seats_dealt_hands_are_what_the_seats_hold_after_the_deal(kind: str) -> None:
    rules = rules_for(kind)
    players = list(rules.demo_players)
    for seed in range(3):
        playout = play(rules, players, rng=random.Random(seed), max_events=40, keep_states=True)
        index = next(i for i, e in enumerate(playout.events) if e["type"] == "deal")
        dealt = report.seat_hands(kind, playout.events[index])
        held = rules.visibility.held(playout.states[index].game)
        assert dealt, kind
        assert sorted(sorted_cards(cards) for cards in dealt) == sorted(
            sorted_cards(cards) for cards in held.values() if cards
        ), kind
