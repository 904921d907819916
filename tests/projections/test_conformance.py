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
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.envelope import seal
from projections import engine
from projections.registry import available, rules_for
from projections.rules import CHANCE, SPECTATOR
from projections.simulate import play
from tests.projections.helpers import cards_in, check_census

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
    players = [f"P{i}" for i in range(len(rules.demo_players))]
    playout = play(rules, players, {}, rng=random.Random(seed), max_events=MAX_EVENTS, keep_states=True)
    if "session_closed" not in rules.events:  # a session that ends only when closed
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


#: the most events one `legal_events` call may offer: a count, not a time (times are printed, and measured
#: in make bench), that catches an enumeration blowing up (every stake of a wide range, say)
LEGAL_EVENTS_BOUND = 5000


@pytest.mark.parametrize("kind", available())
def test_to_act_and_is_legal_agree_with_legal_events(kind: str) -> None:
    """On random states of random legal games: every offered decision `is_legal`; `to_act` is CHANCE
    exactly when `legal_events` offers nothing and `chance_events` completes an event; otherwise its
    seats are the view's `to_act` (and `()` only at the end); every chance event offered `is_legal`."""
    rules = rules_for(kind)
    slowest, most = 0.0, 0
    for seed in range(3):
        rng = random.Random(seed)
        players = list(rules.demo_players)
        playout = play(rules, players, {}, rng=rng, max_events=600, keep_states=True)
        for state in [rules.initial_state(players, rules.options_for(players, {})), *playout.states]:
            start = time.perf_counter()
            offered = rules.legal_events(state)
            slowest = max(slowest, time.perf_counter() - start)
            most = max(most, len(offered))
            chance = rules.chance_events(state, rng)
            acting = rules.to_act(state)
            for event in offered:
                assert rules.is_legal(state, event), (kind, state.seq, event)
            for event in chance:
                assert rules.is_legal(state, event), (kind, state.seq, event)
            if rules.is_terminal(state):
                assert acting == () and not offered
                continue
            assert (acting is CHANCE) == (not offered and bool(chance)), (kind, state.seq, acting, offered)
            if acting is not CHANCE:
                assert isinstance(acting, tuple) and acting, (kind, state.seq)
                assert list(acting) == list(rules.view(state, None)["to_act"]), (kind, state.seq)
            assert str(state.phase) in {p.value for p in rules.phases}, (kind, state.phase)
    print(f"{kind}: slowest legal_events {slowest * 1000:.2f} ms, at most {most} events offered")
    assert most <= LEGAL_EVENTS_BOUND, f"{kind}: legal_events offered {most} events"


@pytest.mark.parametrize("kind", available())
def test_is_legal_refuses_what_validate_refuses(kind: str) -> None:
    rules = rules_for(kind)
    players = list(rules.demo_players)
    state = rules.initial_state(players, rules.options_for(players, {}))
    assert not rules.is_legal(state, {"type": "no_such_event"})
    assert not rules.is_legal(state, {"type": "hand_voided"})  # no hand is in progress


@pytest.mark.parametrize("kind", available())
def test_the_declaration_is_complete(kind: str) -> None:
    """What every reader of the declaration relies on."""
    rules = rules_for(kind)
    assert rules.kind == kind and rules.title
    assert len(rules.demo_players) in rules.player_counts
    for name, spec in rules.options.items():
        assert spec.help, f"{kind}: option {name} has no help text"
    assert rules.situation_tags and all(rules.situation_tags.values())
    for event_type, fields in rules.fields.items():
        assert event_type in rules.events, (kind, event_type)
        shape = rules.events[event_type]
        for field in fields:
            assert field in shape.required or field in shape.optional, (kind, event_type, field)
