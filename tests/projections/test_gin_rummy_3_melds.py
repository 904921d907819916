"""The meld arithmetic of Gin Rummy (`projections/games/gin_rummy_3/_melds.py`), against a brute force."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events.cards import FULL_DECK
from projections.games.gin_rummy_3 import all_meldings, best_melding, better_melding, maximal_meldings
from projections.games.gin_rummy_3._melds import (
    candidate_melds,
    card_value,
    deadwood_value,
    extend_meld,
    meld_kind,
    min_deadwood_after_discard,
)


def brute_force_min(cards: frozenset[str]) -> int:
    """The minimum deadwood over every subset of cards split into melds, by plain recursion."""
    if not cards:
        return 0
    low = min(cards)
    best = card_value(low) + brute_force_min(cards - {low})
    for size in (3, 4, 5, 6, 7, 8, 9, 10, 11):
        for others in combinations(sorted(cards - {low}), size - 1):
            group = (low, *others)
            if meld_kind(group):
                best = min(best, brute_force_min(cards - set(group)))
    return best


@pytest.mark.parametrize(
    ("cards", "kind"),
    [
        (["7C", "7D", "7H"], "set"),
        (["7C", "7D", "7H", "7S"], "set"),
        (["AS", "2S", "3S"], "run"),
        (["3S", "AS", "2S"], "run"),
        (["9H", "TH", "JH", "QH", "KH"], "run"),
        (["QS", "KS", "AS"], None),
        (["KS", "AS", "2S"], None),
        (["7C", "7D"], None),
        (["7C", "8C", "9D"], None),
        (["7C", "8C", "TC"], None),
        (["7C", "7C", "7D"], None),
        ([], None),
    ],
)
def test_meld_kind(cards: list[str], kind: str | None) -> None:
    assert meld_kind(cards) == kind


def test_card_values() -> None:
    assert [card_value(c) for c in ("AS", "2S", "9S", "TS", "JS", "QS", "KS")] == [1, 2, 9, 10, 10, 10, 10]
    assert deadwood_value(["AS", "KD", "5C"]) == 16


def test_best_melding_picks_the_lower_deadwood_use_of_a_shared_card() -> None:
    # 7H in the set leaves 8H 9H (17); in the run leaves 7C 7D (14)
    melding = best_melding(["7C", "7D", "7H", "8H", "9H"])
    assert melding.melds == (("7H", "8H", "9H"),) and melding.count == 14
    # a 4-card set and a run sharing a card: use a 3-card subset of the set
    melding = best_melding(["5C", "5D", "5H", "5S", "6S", "7S"])
    assert melding.count == 0 and set(melding.melds) == {("5C", "5D", "5H"), ("5S", "6S", "7S")}


def test_better_melding_only_when_it_beats_the_declared_one() -> None:
    hand = ["2C", "2D", "2H", "3H", "4H", "9S", "TS", "JS", "AC", "AD"]
    better = better_melding(hand, [["2C", "2D", "2H"], ["9S", "TS", "JS"]])
    assert better is not None and better.count == 6
    assert better.describe() == "2H 3H 4H + 9S TS JS, deadwood AC 2C AD 2D (6)"
    assert better_melding(hand, [["2H", "3H", "4H"], ["9S", "TS", "JS"]]) is None
    # fewer melds declared than possible: the full arrangement is better
    assert better_melding(hand, [["2H", "3H", "4H"]]) is not None


def test_extend_meld() -> None:
    assert extend_meld(("8C", "8D", "8H"), "8S") == ("8C", "8D", "8H", "8S")
    assert extend_meld(("8C", "8D", "8H", "8S"), "8S") is None
    assert extend_meld(("8C", "8D", "8H"), "9C") is None
    assert extend_meld(("TS", "JS", "QS"), "9S") == ("9S", "TS", "JS", "QS")
    assert extend_meld(("TS", "JS", "QS"), "KS") == ("TS", "JS", "QS", "KS")
    assert extend_meld(("JS", "QS", "KS"), "AS") is None
    assert extend_meld(("AS", "2S", "3S"), "KS") is None
    assert extend_meld(("AS", "2S", "3S"), "4S") == ("AS", "2S", "3S", "4S")
    assert extend_meld(("TS", "JS", "QS"), "8S") is None
    assert extend_meld(("TS", "JS", "QS"), "KH") is None


def test_maximal_meldings_of_a_hand_without_melds() -> None:
    assert [m.melds for m in maximal_meldings(["AS", "5D", "9C"])] == [()]


def test_candidate_melds_include_every_sub_run() -> None:
    melds = candidate_melds(["AS", "2S", "3S", "4S", "5S"])
    assert len(melds) == 6 and ("AS", "2S", "3S", "4S", "5S") in melds


hands = st.lists(st.sampled_from(FULL_DECK), min_size=10, max_size=10, unique=True)
#: hands dense in melds: cards from a few ranks and suits
dense = st.lists(st.sampled_from([r + s for r in "A2345" for s in "CDHS"]), min_size=10, max_size=10, unique=True)


@settings(max_examples=60, deadline=None)
@given(cards=st.one_of(hands, dense))
def test_best_melding_is_minimal(cards: list[str]) -> None:
    best = best_melding(cards)
    assert best.count == brute_force_min(frozenset(cards))
    used = [c for m in best.melds for c in m]
    assert len(used) == len(set(used)) and all(meld_kind(m) for m in best.melds)
    assert sorted(used + list(best.deadwood)) == sorted(cards)


@settings(max_examples=40, deadline=None)
@given(cards=dense)
def test_arrangements_are_disjoint_melds_and_maximal_ones_cannot_grow(cards: list[str]) -> None:
    everything = all_meldings(cards)
    maximal = maximal_meldings(cards)
    keys = {m.melds for m in everything}
    assert len(keys) == len(everything)
    assert {m.melds for m in maximal} <= keys
    assert min(m.count for m in maximal) == best_melding(cards).count
    for melding in everything:
        used = [c for m in melding.melds for c in m]
        assert len(used) == len(set(used)) and all(meld_kind(m) for m in melding.melds)
    for melding in maximal:
        assert not candidate_melds(melding.deadwood), melding
    assert {m.melds for m in all_meldings(cards, 10)} == {m.melds for m in everything if m.count <= 10}


eleven = st.lists(st.sampled_from(FULL_DECK), min_size=11, max_size=11, unique=True)
dense_eleven = st.lists(
    st.sampled_from([r + s for r in "A2345" for s in "CDHS"]), min_size=11, max_size=11, unique=True
)


@settings(max_examples=40, deadline=None)
@given(cards=st.one_of(eleven, dense_eleven))
def test_min_deadwood_after_discard_skips_only_hopeless_discards(cards: list[str]) -> None:
    found = min_deadwood_after_discard(cards)
    for discard in cards:
        exact = best_melding(set(cards) - {discard}).count
        if discard in found:
            assert found[discard] == exact
        else:
            assert exact > 10
