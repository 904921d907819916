"""Schnapsen's hand review: the exact solver against a position worked out by hand and against a plain
minimax through the game's own rules, and the review of whole recorded hands."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from projections.core import simulate
from projections.core.registry import rules_for
from projections.core.review import HINDSIGHT, SEEN
from projections.games.schnapsen import _solver as solver
from projections.games.schnapsen._state import SchnapsenState
from projections.games.schnapsen.review import layouts_of, node_of, review, solve
from tests.projections.review_helpers import record

RULES = rules_for("schnapsen")
PLAYERS = ["Anna", "Ben"]


def endgame() -> SchnapsenState:
    """Trump diamonds, the talon used up, Anna (seat 0) to lead with A♠ J♠ against Ben's K♠ Q♦.

    Anna has 55 hand points and Ben 45, each with tricks (the other sixteen cards in their piles).
    Leading A♠, Ben must follow with K♠ (he holds spades and none higher): Anna takes 15, reaches 70
    and wins 1 game point (Ben has 33 or more). Leading J♠, Ben must head it with K♠ and takes 6
    (51), then leads the trump Q♦, which Anna cannot follow nor trump: Ben takes the last trick with
    65 and wins it for 1 game point. Only A♠ wins.
    """
    start = RULES.initial_state(PLAYERS, RULES.options_for(PLAYERS, {}))
    won0 = ("JH", "QH", "KH", "TH", "AH", "TC", "AC", "KD")
    won1 = ("JC", "QC", "KC", "JD", "TD", "AD", "QS", "TS")
    return replace(
        start,
        hand=1,
        phase="lead",
        dealer=1,
        hands=(frozenset({"AS", "JS"}), frozenset({"KS", "QD"})),
        trump_suit="D",
        trump_card=None,
        talon=0,
        leader=0,
        won=(won0, won1),
        trick_points=(55, 45),
        tricks=(4, 4),
    )


def test_only_one_lead_wins_the_endgame() -> None:
    state = endgame()
    search, node = solve(state, [])
    values = {solver.code(m): search.exact(search.child(node, m)) for m in search.moves(node)}
    assert values == {"AS": 1, "JS": -1}
    assert search.solve(node) == 1


def brute(state: SchnapsenState, order: list[str], seq: int = 1000) -> int:
    """The hand's value for seat 0 by plain minimax through the game's `legal_events` and `evolve`, the
    talon drawn in `order` (top first): no pruning, no table, no solver code."""
    if state.phase == "draw":
        drawn = 10 - state.talon
        card = state.trump_card if state.talon == 1 else order[drawn]
        after, facts = RULES.evolve(state, {"type": "draw", "seat": state.draws_due[0], "card": card}, seq)
        return brute(after, order, seq + 1)
    mover = state.leader if state.phase == "lead" else 1 - state.leader
    best: int | None = None
    for event in RULES.legal_events(state):
        after, facts = RULES.evolve(state, event, seq)
        if facts.get("hand_ended"):
            v = facts["points"]["0"] - facts["points"]["1"]
        else:
            v = brute(after, order, seq + 1)
        if best is None or (v > best if mover == 0 else v < best):
            best = v
    assert best is not None
    return best


def _positions(count: int, seed: int) -> list[tuple[SchnapsenState, list[str]]]:
    """Random positions near a hand's end (a close now and then), each with its talon order."""
    rng = random.Random(seed)
    out: list[tuple[SchnapsenState, list[str]]] = []
    while len(out) < count:
        cards = list(solver.code(i) for i in range(20))
        rng.shuffle(cards)
        deal = {"type": "deal", "dealer": rng.randrange(2), "hands": [cards[0:5], cards[5:10]], "trump_card": cards[10]}
        order = cards[11:20]
        state, _ = RULES.evolve(RULES.initial_state(PLAYERS, RULES.options_for(PLAYERS, {})), deal, 1)
        stop = rng.choice([4, 5, 6, 6, 7, 7])
        seq = 2
        while state.phase != "deal" and state.phase != "over":
            if state.phase == "draw":
                drawn = 10 - state.talon
                card = state.trump_card if state.talon == 1 else order[drawn]
                state, _ = RULES.evolve(state, {"type": "draw", "seat": state.draws_due[0], "card": card}, seq)
            else:
                if state.phase == "lead" and _tricks(state) >= stop:
                    out.append((state, order))
                    break
                events = RULES.legal_events(state)
                event = rng.choice(events)
                if event["type"] == "close" and rng.random() < 0.6:
                    event = next(e for e in events if e["type"] == "play")
                state, _ = RULES.evolve(state, event, seq)
            seq += 1
    return out


def _tricks(state: SchnapsenState) -> int:
    return state.tricks[0] + state.tricks[1]


@pytest.mark.parametrize("seed", range(4))
def test_the_solver_agrees_with_a_plain_minimax_through_the_rules(seed: int) -> None:
    for state, order in _positions(5, seed):
        search, node = solve(state, order[10 - state.talon :] if state.talon else [])
        for move in search.moves(node):
            event = {k: v for k, v in _event(state, move).items()}
            after, facts = RULES.evolve(state, event, 999)
            expected = facts["points"]["0"] - facts["points"]["1"] if facts.get("hand_ended") else brute(after, order)
            assert search.exact(search.child(node, move)) == expected, (state, event)


def _event(state: SchnapsenState, move: int) -> dict[str, Any]:
    from projections.games.schnapsen.review import event_of

    return event_of(state, state.leader if state.phase == "lead" else 1 - state.leader, move)


def test_the_solvers_moves_are_the_rules_legal_events() -> None:
    for state, order in _positions(20, 9):
        search, node = solve(state, order[10 - state.talon :] if state.talon else [])
        listed = sorted(repr(sorted(_event(state, m).items())) for m in search.moves(node))
        assert listed == sorted(repr(sorted(e.items())) for e in RULES.legal_events(state))


def test_a_recorded_hand_is_reviewed_decision_by_decision() -> None:
    played = simulate.play(RULES, PLAYERS, RULES.options_for(PLAYERS, {}), rng=random.Random(3), bot=RULES.bot)
    events = list(played.events)
    hand = record(RULES, PLAYERS, events, 1)
    decisions = review(hand, None)
    plays = [t for t in hand.turns if t.event["type"] in ("play", "close", "exchange_trump")]
    assert [d.seq for d in decisions] == [t.seq for t in plays]
    for decision in decisions:
        hindsight = decision.figure(HINDSIGHT)
        assert hindsight is not None and hindsight.cost >= 0
        assert hindsight.best.value >= hindsight.chosen.value
        seen = decision.figure(SEEN)
        turn = next(t for t in hand.turns if t.seq == decision.seq)
        assert (seen is not None) == turn.before.strict
        if seen is not None and seen.of_layouts == 1:
            assert seen.chosen.value == hindsight.chosen.value  # the talon used up: the seat can tell the layout
    only = review(hand, 1)
    assert only and all(d.seat == 1 for d in only)


def test_what_the_seat_saw_places_a_declared_marriages_other_half() -> None:
    """Ben declared the heart marriage leading K♥ and still holds Q♥; the talon is closed with three cards:
    Anna cannot place Ben's two other cards among the unseen ones, but she knows his Q♥."""
    from projections.games.schnapsen._state import Marriage

    state = replace(
        endgame(),
        hands=(frozenset({"AS", "JS", "TC"}), frozenset({"QH", "KS", "QD"})),
        won=(("JH", "TH", "AH", "AC"), ("KH", "JC", "KD", "JD")),
        trick_points=(34, 16),
        marriages=(Marriage(1, "H", 20, 5, True),),
        talon=4,
        trump_card="AD",
        closed_by=0,
        close_seq=9,
        closed_opponent_points=36,
        closed_opponent_tricks=2,
    )
    known, pool, slots = layouts_of(state, 0, [])
    assert known == frozenset({"QH"})
    assert slots == 2
    assert "AD" not in pool and "QH" not in pool and set(pool) >= {"KS", "QD"}
    node = node_of(state)
    assert node[4] == 0 and node[2] == 6  # closed by Anna, six cards drawn or dealt away from the talon
