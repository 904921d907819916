"""Every game in the registry, played at random through `legal_events`:

- every offered event passes `validate` (the simulator decides each one);
- every card is in exactly one place at every step;
- replaying the stored envelopes gives the live state;
- each hand's score lines sum to its points;
- no view shows a seat's private cards to another seat or a spectator;
- the game ends by its rule.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.envelope import seal
from projections import engine
from projections.registry import available, rules_for
from projections.rules import SPECTATOR
from projections.simulate import play
from tests.projections.helpers import cards_in, check_census

PLAYERS = {
    "schnapsen": 2,
    "casino": 3,
    "gin-rummy-3": 3,
    "seven-and-a-half": 4,
    "cutthroat-smear": 3,
}
#: games with no end but `session_closed` are played for this many events
MAX_EVENTS = 3000


def _envelopes(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        seal(seq=i, hand=0, event=e, result={}, violation=None, recorded_at="t", actor="test", prev_hash="")
        for i, e in enumerate(events, 1)
    ]


@pytest.mark.parametrize("kind", available())
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_random_game_keeps_every_invariant(kind: str, seed: int) -> None:
    rules = rules_for(kind)
    players = [f"P{i}" for i in range(PLAYERS[kind])]
    playout = play(rules, players, {}, rng=random.Random(seed), max_events=MAX_EVENTS, keep_states=True)
    if kind != "seven-and-a-half":
        assert playout.finished, f"{kind} did not end within {MAX_EVENTS} events"
    for state in playout.states:
        census = check_census(rules, state)
        for looker in [*range(len(players)), SPECTATOR]:
            shown = cards_in(rules.view(state, looker))
            for owner, private in census.private.items():
                if owner != looker:
                    leaked = shown & set(private)
                    assert not leaked, f"seat {looker} sees seat {owner}'s {leaked} at seq {state.seq}"
    final = playout.states[-1]
    initial = rules.initial_state(players, rules.options_for(players, {}))
    assert engine.fold(rules, initial, _envelopes(list(playout.events))) == final
    sheet = rules.score(final)
    for hand in sheet.hands:
        sums = [0] * len(players)
        for line in hand.lines:
            sums[line.seat] += line.points
            assert all(1 <= seq <= final.seq for seq in line.events), line
        assert tuple(sums) == hand.points, f"hand {hand.hand}: lines sum to {sums}, points {hand.points}"


def test_the_golden_copies_match_the_shared_examples() -> None:
    """tests/data/examples is a copy of ../shared/examples (when that folder is beside the checkout)."""
    from tests.projections.helpers import EXAMPLES

    shared = EXAMPLES.parents[3] / "shared" / "examples"
    if not shared.is_dir():
        pytest.skip("../shared/examples is not beside this checkout")
    ours = {p.name: p.read_bytes() for p in EXAMPLES.glob("*.json")}
    theirs = {p.name: p.read_bytes() for p in shared.glob("*.json")}
    assert ours == theirs, "refresh tests/data/examples from ../shared/examples"
