"""Casino played at random: the invariants of `rules/casino.md` hold in every game.

On top of the generic conformance test: builds always add up, ids follow the
fine points, every round has its deals, the deal passes left, each score
line comes from captures of its seat, the game ends by the target rule, and
`legal_events` is exactly what `validate` accepts (checked by brute force).
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from itertools import combinations
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.errors import IllegalEventError, ImpossibleEventError
from projections.core.engine import Position
from projections.core.registry import rules_for
from projections.core.simulate import play
from projections.games.casino import CasinoState
from projections.games.casino._groups import value_of
from projections.games.casino._state import DEALS

RULES = rules_for("casino")
SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _playout(
    players: int, seed: int, options: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[Position[CasinoState]]]:
    """The events of a random game and the position after each."""
    names = [f"P{i}" for i in range(players)]
    result = play(RULES, names, options, rng=random.Random(seed), keep_states=True)
    assert result.finished
    return list(result.events), list(result.states)


def _check_builds(state: CasinoState) -> None:
    ids = [b.id for b in state.builds]
    assert len(ids) == len(set(ids))
    for b in state.builds:
        assert 1 <= int(b.id[1:]) <= state.build_count
        if isinstance(b.value, str):
            assert all(c[0] == b.value for c in b.cards) and len(b.cards) >= 2
            continue
        total = sum(value_of(c) or 99 for c in b.cards)
        assert 2 <= b.value <= 10
        if b.multiple:
            assert total % b.value == 0 and total > b.value, b
        else:
            assert total == b.value, b
        # the groups a reader is shown: the build's cards exactly, each group adding up to the value
        groups = b.group_list
        assert sorted(c for g in groups for c in g) == sorted(b.cards), b
        assert all(sum(value_of(c) or 99 for c in g) == b.value for g in groups), b
        assert (len(groups) > 1) == b.multiple, b


@SETTINGS
@given(
    players=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**32 - 1),
    sweeps=st.booleans(),
    target=st.integers(5, 25),
)
def test_random_games_keep_the_rules_invariants(players: int, seed: int, sweeps: bool, target: int) -> None:
    events, positions = _playout(players, seed, {"sweeps": sweeps, "target": target, "first_dealer": seed % players})
    dealers: list[int] = []
    deals_in_hand: list[list[bool]] = []
    captures: dict[int, tuple[int, int]] = {}  # seq -> (seat, hand)
    next_id = 1
    for seq, (event, position) in enumerate(zip(events, positions, strict=True), start=1):
        state, facts = position.game, position.facts
        assert position.seq == seq
        _check_builds(state)
        kind = event["type"]
        if kind == "deal":
            if "table" in event:
                dealers.append(event["dealer"])
                deals_in_hand.append([])
                next_id = 1
            deals_in_hand[-1].append(facts["last_deal"])
        if kind == "capture":
            captures[seq] = (event["seat"], state.hand)
        if kind == "build":
            made = facts["build"]
            if made == f"b{next_id}":
                next_id += 1
                if "replaced" in facts:
                    assert all(old not in [b.id for b in state.builds] for old in facts["replaced"])
            else:  # an increase or a face card added: the id stays
                assert event["onto"] == [made] and int(made[1:]) < next_id
        if facts.get("hand_ended"):
            total = sum(facts["points"].values())
            rules = [line.rule for line in RULES.score(state).hands[-1].lines]
            if facts["rest"]["seat"] is not None:
                assert rules.count("casino.ace") == 4 and "casino.big_casino" in rules
                unique = 3 * rules.count("casino.most_cards") + rules.count("casino.most_spades")
                swept = len(facts["sweeps"]) if sweeps else 0
                assert total == 4 + 2 + 1 + unique + swept
            assert rules.count("casino.sweep") == (len(facts["sweeps"]) if sweeps else 0)
    # every round has all its deals, the last one known as the last
    assert all(flags == [False] * (DEALS[players] - 1) + [True] for flags in deals_in_hand)
    # the deal passes to the left, starting with `first_dealer`
    assert dealers == [(seed + i) % players for i in range(len(dealers))]
    sheet = RULES.score(positions[-1].game)
    assert len(sheet.hands) == len(dealers)
    running = [0] * players
    for number, hand in enumerate(sheet.hands, start=1):
        assert hand.hand == number
        for line in hand.lines:
            assert line.events and all(captures[q] == (line.seat, number) for q in line.events), line
        running = [t + p for t, p in zip(running, hand.points, strict=True)]
        best = max(running)
        ends = best >= target and running.count(best) == 1
        assert ends == (number == len(sheet.hands)), (number, running)
    assert tuple(running) == sheet.totals
    assert sheet.finished and sheet.winner == running.index(max(running))


def _brute_force(state: CasinoState) -> set[str]:
    """Every capture, build and trail of the seat to play that `validate` accepts."""
    seat = state.to_play
    items = [*state.loose, *(b.id for b in state.builds)]
    found: set[str] = set()
    for card in sorted(state.hands[seat]):
        candidates: list[dict[str, Any]] = [{"type": "trail", "seat": seat, "card": card}]
        for k in range(1, len(items) + 1):
            for chosen in combinations(items, k):
                candidates.append({"type": "capture", "seat": seat, "card": card, "take": list(chosen)})
                for value in [*range(2, 11), "J", "Q", "K"]:
                    candidates.append(
                        {"type": "build", "seat": seat, "card": card, "onto": list(chosen), "value": value}
                    )
        for event in candidates:
            try:
                RULES.validate(state, event)
            except (ImpossibleEventError, IllegalEventError):
                continue
            found.add(_key(event))
    return found


def _key(event: Mapping[str, Any]) -> str:
    items = sorted(event.get("take", event.get("onto", [])))
    return f"{event['type']} {event['card']} {items} {event.get('value', '')}"


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32 - 1))
def test_legal_events_are_exactly_what_validate_accepts(players: int, seed: int) -> None:
    _, positions = _playout(players, seed, {})
    rng = random.Random(seed)
    games = [p.game for p in positions]
    playing = [s for s in games if s.phase == "play" and len(s.loose) + len(s.builds) <= 7]
    for state in rng.sample(playing, min(6, len(playing))):
        legal = RULES.legal_events(state)
        keys = [_key(e) for e in legal]
        assert len(keys) == len(set(keys)), "legal_events lists a move twice"
        assert set(keys) == _brute_force(state), RULES.view(state, None)


def test_random_four_player_games_are_fast() -> None:
    """Four hands of builds and captures offer no combinatorial blow-up: about 30 ms of CPU a game.

    Counted in this process's CPU time, not the wall clock: a machine busy with other work (two test
    suites at once took a game to 0.6 s of wall time) must not fail it, a blow-up still does.
    """
    started = time.process_time()
    for seed in range(5):
        _playout(4, seed, {})
    assert (time.process_time() - started) / 5 < 0.5
