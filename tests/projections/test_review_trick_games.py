"""The hindsight searches of Casino's and Cutthroat Smear's reviews against a plain minimax through the game's own
`legal_events` and `evolve` (no pruning, no table), on random positions near a deal's end, and Gin's deadwood
against a hand worked out by hand and an exhaustive melding.

The plain minimax is the reading the reviews document: the deciding seat plays its best, every other seat plays to
keep its points down, and the value is the seat's points when the deal (Smear: the hand) ends.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from projections.core.registry import rules_for
from projections.core.rules import GameRules
from projections.core.simulate import play
from projections.games.casino.review import SEQ, Search, count
from projections.games.cutthroat_smear import review as smear_review
from projections.games.cutthroat_smear._state import to_act
from projections.games.gin_rummy_3._melds import candidate_melds, deadwood_value
from projections.games.gin_rummy_3.review import after_discards, gin_in
from tests.projections.helpers import PLAYERS


def positions(kind: str, seed: int, near_end: Callable[[Any], bool], count_: int) -> list[Any]:
    """States of random games where a seat is to play and `near_end` holds (a few cards left in the deal)."""
    rules = rules_for(kind)
    found: list[Any] = []
    rng = random.Random(seed)
    while len(found) < count_:
        playout = play(rules, PLAYERS[kind], {}, rng=rng, max_events=400, keep_states=True)
        states = [p.game for p in playout.states if p.game.phase == "play" and near_end(p.game)]
        if states:
            found.append(rng.choice(states))
    return found


def plain(
    rules: GameRules[Any], state: Any, seat: int, mover: Callable[[Any], int], points: Callable[..., float], ply: int
) -> float:
    """The seat's value by plain minimax over the game's own moves, to the end of the deal (or the hand)."""
    values = []
    for event in rules.legal_events(state):
        after, facts = rules.evolve(state, event, SEQ + 100 + ply)
        if after.phase != "play" or facts.get("hand_ended"):
            values.append(points(after, facts))
        else:
            values.append(plain(rules, after, seat, mover, points, ply + 1))
    return max(values) if mover(state) == seat else min(values)


@pytest.mark.parametrize("seed", range(3))
def test_casinos_search_agrees_with_a_plain_minimax(seed: int) -> None:
    rules = rules_for("casino")
    for state in positions("casino", seed, lambda s: sum(len(h) for h in s.hands) <= 4, 3):
        seat = state.to_play
        search = Search(rules, seat)
        values = search.choices(state)
        assert search.limit is None  # small enough to search to the deal's end
        events = rules.legal_events(state)

        def points(after: Any, facts: Mapping[str, Any], seat: int = seat) -> float:
            return float(facts["points"][str(seat)]) if facts.get("hand_ended") else float(count(after, seat))

        for i, event in enumerate(events):
            after, facts = rules.evolve(state, event, SEQ)
            expected = (
                points(after, facts)
                if after.phase != "play" or facts.get("hand_ended")
                else plain(rules, after, seat, lambda s: s.to_play, points, 1)
            )
            assert values[i] == expected, (state, event)


@pytest.mark.parametrize("seed", range(3))
def test_smears_search_agrees_with_a_plain_minimax(seed: int) -> None:
    rules = rules_for("cutthroat-smear")
    for state in positions("cutthroat-smear", seed, lambda s: len(s.tricks) >= 3, 3):
        seat = to_act(state)[0]
        search = smear_review.Search(state, seat, smear_review._dealt(state))
        node, trump = smear_review.node_of(state)

        def points(after: Any, facts: Mapping[str, Any], seat: int = seat) -> float:
            return float(facts["points"][str(seat)])

        for move in search.moves(node, trump):
            card = smear_review.CARDS[move]
            after, facts = rules.evolve(state, {"type": "play", "seat": seat, "card": card}, SEQ)
            expected = (
                points(after, facts)
                if facts.get("hand_ended")
                else plain(rules, after, seat, lambda s: to_act(s)[0], points, 1)
            )
            assert search.exact(node, trump, move) == expected, (state, card)


def test_discarding_the_ace_keeps_gin_where_the_usual_king_does_not() -> None:
    """K♠ K♥ K♦, A♣ 2♣ 3♣ 4♣, 7♦ 8♦ 9♦ 10♦: throwing the highest card, a king, breaks the kings' set and keeps 20;
    letting A♣ go (or 4♣, 7♦, 10♦, the ends of the runs) leaves gin. 2♣ leaves A♣ 3♣ 4♣ unmelded (8), 8♦ leaves
    7♦ 9♦ 10♦ (26)."""
    hand = ["KS", "KH", "KD", "AC", "2C", "3C", "4C", "7D", "8D", "9D", "TD"]
    values = after_discards(hand)
    assert {c for c, v in values.items() if v == 0} == {"AC", "4C", "7D", "TD"}
    assert values["KS"] == values["KH"] == 20
    assert values["2C"] == 8 and values["8D"] == 26
    assert gin_in(set(hand) - {"KS"}) is None and gin_in(set(hand) - {"AC"}) == frozenset(hand) - {"AC"}


def brute_deadwood(cards: frozenset[str]) -> int:
    """The least deadwood of `cards` over every set of disjoint melds, tried one by one."""
    best = deadwood_value(cards)
    for meld in candidate_melds(cards):
        best = min(best, brute_deadwood(cards - set(meld)))
    return best


def test_the_deadwood_after_each_discard_is_the_least_of_every_melding() -> None:
    rng = random.Random(11)
    deck = [r + s for s in "CDHS" for r in "A23456789TJQK"]
    for _ in range(6):
        # a hand rich in melds: the cards of two suits' first seven ranks and their sets
        pool = [c for c in deck if c[0] in "A234567" or c[1] in "CD"]
        hand = frozenset(rng.sample(pool, 11))
        values = after_discards(hand)
        assert values == {c: brute_deadwood(hand - {c}) for c in hand}
