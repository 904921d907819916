"""Movements keep what they state: nobody meets anybody more often than `Plan.most_meetings`, and every
player sits out at most once more than any other (projections/tournaments/movements.py)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from projections.tournaments import movements


def check(plan: movements.Plan, players: int, seats: int) -> None:
    """Every round seats each player once (at a table or sitting out), tables are full, and the promises hold."""
    out: Counter[int] = Counter()
    for seating in plan.rounds:
        seated = [p for table in seating.tables for p in table]
        assert sorted(seated + list(seating.sit_out)) == list(range(players))
        assert all(len(table) == seats for table in seating.tables)
        assert len(seating.sit_out) == players % seats
        out.update(seating.sit_out)
        counts = [out[p] for p in range(players)]
        assert max(counts) - min(counts) <= 1, f"sit-outs {counts} after {len(plan.rounds)} rounds"
    met = movements.meetings(plan.rounds)
    assert max(met.values(), default=0) <= plan.most_meetings, (met.most_common(3), plan.most_meetings)


@pytest.mark.parametrize("players", [4, 5, 8, 9])
def test_a_round_robin_meets_every_pair_once_a_cycle(players: int) -> None:
    cycle = players - 1 if players % 2 == 0 else players
    plan = movements.plan("round-robin", players, 2, cycle)
    check(plan, players, 2)
    assert plan.most_meetings == 1
    met = movements.meetings(plan.rounds)
    assert len(met) == players * (players - 1) // 2 and set(met.values()) == {1}  # every pair, exactly once
    twice = movements.plan("round-robin", players, 2, 2 * cycle)
    check(twice, players, 2)
    assert set(movements.meetings(twice.rounds).values()) == {2}
    # the second cycle swaps the seats: whoever had seat 0 against someone has seat 1 the next time
    first = {t for s in twice.rounds[:cycle] for t in s.tables}
    assert {t[::-1] for s in twice.rounds[cycle:] for t in s.tables} == first


@settings(max_examples=12, deadline=None, derandomize=True)
@given(players=st.integers(3, 13), seats=st.sampled_from([3, 4]), rounds=st.integers(1, 5))
def test_groups_keep_their_bound_and_share_the_sit_outs(players: int, seats: int, rounds: int) -> None:
    if players < seats:
        players = seats
    plan = movements.plan("groups", players, seats, rounds)
    check(plan, players, seats)
    block = movements.block_length(players, seats)
    met = movements.meetings(plan.rounds[:block])
    assert max(met.values(), default=0) <= 1  # within a block nobody meets twice


@pytest.mark.parametrize("players", [6, 7])
def test_swiss_pairs_by_the_standings_without_rematches(players: int) -> None:
    rng = random.Random(players)
    rounds = 5
    first = movements.plan("swiss", players, 2, rounds)
    seatings = list(first.rounds)
    for _ in range(rounds - 1):
        ranking = list(range(players))
        rng.shuffle(ranking)
        history = movements.history_of(players, 2, seatings)
        seating = movements.swiss_round(history, ranking)
        # the best-ranked player plays the best-ranked one below them not met yet
        top = next(p for p in ranking if p not in seating.sit_out)
        table = next(t for t in seating.tables if top in t)
        other = table[1] if table[0] == top else table[0]
        met = movements.meetings(seatings)
        below = [p for p in ranking[ranking.index(top) + 1 :] if p not in seating.sit_out]
        assert other == next(p for p in below if frozenset((top, p)) not in met)
        seatings.append(seating)
    plan = movements.Plan("swiss", players, 2, tuple(seatings), first.most_meetings)
    check(plan, players, 2)
    assert max(movements.meetings(seatings).values()) == 1  # five rounds of six or seven: no rematch


def test_a_movement_that_does_not_fit_is_refused() -> None:
    with pytest.raises(ValueError, match="two players"):
        movements.plan("round-robin", 6, 3, 2)
    with pytest.raises(ValueError, match="cannot fill"):
        movements.plan("groups", 2, 3, 1)
    with pytest.raises(ValueError, match="must be one of"):
        movements.plan("howell", 6, 2, 1)
