"""The compiled Schnapsen search (`_fastsolver.c`) against the Python one it ports (`_solver.Solver.value`).

The review uses the compiled search where it was built; both must give every position the same value, from
the first lead (talon still closed to neither seat) to the last trick, closes and marriages included. Under
CI the package is installed with a compiler, so the module must be there: a build that silently fell back
to Python would pass every other test, only twenty times slower.
"""

from __future__ import annotations

import os
import random

import pytest

from projections.core.registry import rules_for
from projections.games.schnapsen import _solver as solver
from projections.games.schnapsen._solver import Solver
from projections.games.schnapsen._state import SchnapsenState
from projections.games.schnapsen.review import node_of

RULES = rules_for("schnapsen")
PLAYERS = ["Anna", "Ben"]

needs_compiled = pytest.mark.skipif(not solver.COMPILED, reason="the compiled search was not built here")


def _position(rng: random.Random, tricks: int) -> tuple[SchnapsenState, list[int]]:
    """A random hand played at random for `tricks` tricks (closing now and then), and its full talon order."""
    while True:
        cards = [solver.code(i) for i in range(20)]
        rng.shuffle(cards)
        deal = {"type": "deal", "dealer": rng.randrange(2), "hands": [cards[0:5], cards[5:10]], "trump_card": cards[10]}
        order = cards[11:20]
        state, _ = RULES.evolve(RULES.initial_state(PLAYERS, RULES.options_for(PLAYERS, {})), deal, 1)
        seq = 2
        while state.phase not in ("deal", "over"):
            if state.phase == "draw":
                card = state.trump_card if state.talon == 1 else order[10 - state.talon]
                state, _ = RULES.evolve(state, {"type": "draw", "seat": state.draws_due[0], "card": card}, seq)
            else:
                if state.phase == "lead" and sum(state.tricks) >= tricks:
                    return state, [solver.index(c) for c in order]
                events = RULES.legal_events(state)
                event = rng.choice(events)
                if event["type"] == "close" and rng.random() < 0.7:
                    event = next(e for e in events if e["type"] == "play")
                state, _ = RULES.evolve(state, event, seq)
            seq += 1


def _solvers(state: SchnapsenState, order: list[int]) -> tuple[Solver, Solver]:
    trump = solver.SUITS.index(state.trump_suit or "C")
    return Solver(order, trump, compiled=True), Solver(order, trump, compiled=False)


@needs_compiled
@pytest.mark.parametrize("tricks", [2, 3, 4, 5, 6])
def test_both_searches_value_every_move_alike(tricks: int) -> None:
    rng = random.Random(tricks)
    for _ in range(4):
        state, order = _position(rng, tricks)
        fast, slow = _solvers(state, order)
        node = node_of(state)
        assert fast.moves(node) == slow.moves(node)
        for move in fast.moves(node):
            after = fast.child(node, move)
            assert fast.exact(after) == slow.exact(after), (state, solver.code(move) if move >= 0 else move)
        assert fast.searched == slow.searched == slow.expanded  # the same positions, expanded alike


def _orders(rng: random.Random, state: SchnapsenState, order: list[int], count: int) -> list[list[int]]:
    """`count` talon orders alike in the cards already drawn, the rest shuffled (the first as it was)."""
    drawn = 10 - state.talon
    out = [order]
    while len(out) < count:
        rest = order[drawn:]
        rng.shuffle(rest)
        out.append(order[:drawn] + rest)
    return out


@needs_compiled
@pytest.mark.parametrize("tricks", [3, 4])
def test_both_searches_share_the_settled_positions_alike(tricks: int) -> None:
    """Solvers of several talon orders sharing one table of settled positions: the compiled and the Python
    search give every move the same value at every order, expanding the same positions, and the same values
    as solvers with tables of their own."""
    rng = random.Random(10 + tricks)
    positions = 0
    while positions < 2:
        state, order = _position(rng, tricks)
        if state.closed_by is not None:
            continue  # nothing more is drawn: every order is the same search
        positions += 1
        trump = solver.SUITS.index(state.trump_suit or "C")
        orders = _orders(rng, state, order, 3)
        fast = [Solver(orders[0], trump, compiled=True)]
        fast += [Solver(o, trump, shared=fast[0]) for o in orders[1:]]
        slow = [Solver(orders[0], trump, compiled=False)]
        slow += [Solver(o, trump, shared=slow[0]) for o in orders[1:]]
        assert all(s._compiled is None for s in slow) and all(s._compiled is not None for s in fast)
        node = node_of(state)
        for f, s, o in zip(fast, slow, orders, strict=True):
            alone = Solver(o, trump)
            for move in f.moves(node):
                after = f.child(node, move)
                assert f.exact(after) == s.exact(after) == alone.exact(after), (state, o, move)
        assert [f.searched for f in fast] == [s.searched for s in slow] == [s.expanded for s in slow]
        assert len(slow[0].settled) > 0 and slow[1].settled is slow[0].settled


def test_a_shared_solver_has_the_same_trump() -> None:
    with pytest.raises(ValueError, match="same trump"):
        Solver([0] * 9, 1, shared=Solver([0] * 9, 2))


@needs_compiled
def test_both_searches_bound_a_window_alike() -> None:
    """Fail-soft bounds in narrow windows, asked in the same order, are the same numbers."""
    rng = random.Random(7)
    for _ in range(12):
        state, order = _position(rng, rng.randrange(3, 7))
        fast, slow = _solvers(state, order)
        node = node_of(state)
        for alpha in range(-4, 3):
            beta = alpha + rng.choice([1, 1, 2, 8])
            assert fast.value(node, alpha, beta) == slow.value(node, alpha, beta), (state, alpha, beta)


@needs_compiled
def test_the_compiled_search_values_a_whole_hand_from_its_first_lead() -> None:
    """From the first lead, where the Python search takes seconds: the compiled one agrees with the Python
    search's value of the same position (one position, the costly case of a review)."""
    state, order = _position(random.Random(3), 0)
    fast, slow = _solvers(state, order)
    node = node_of(state)
    assert fast.solve(node) == slow.solve(node)
    assert fast.searched == slow.searched > 1000


def test_under_ci_the_compiled_search_is_built() -> None:
    if os.environ.get("CI", "").lower() not in ("1", "true", "yes"):
        pytest.skip("only CI promises a compiler at install time")
    assert solver.COMPILED, "projections/games/schnapsen/_fastsolver.c was not built by `pip install -e .`"
