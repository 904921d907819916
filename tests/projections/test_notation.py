"""Events in words: melds as melds, lay-offs on the meld they join (counted from 1, as the page draws them)."""

from __future__ import annotations

from projections.games.gin_rummy_3 import RULES as GIN
from projections.games.schnapsen import RULES as SCHNAPSEN
from projections.games.seven_and_a_half import RULES as HALF
from projections.reading.notation import describe

NAMES = ["Ann", "Ben", "Ida"]


def test_a_lay_off_names_its_meld_from_1_and_the_cards_it_joins() -> None:
    event = {"type": "lay_off", "seat": 2, "melds": [], "layoffs": [{"card": "5S", "meld": 1}]}
    result = {"layoffs": [{"card": "5S", "meld": 1, "onto": ["6S", "7S", "8S", "9S"]}]}
    assert describe(GIN, event, result, NAMES) == "Ida lay off 5♠ on meld 2  → 5♠ on meld 2 (6♠ 7♠ 8♠ 9♠)"


def test_a_knocks_melds_are_one_seats_groups_not_hands_per_seat() -> None:
    event = {"type": "knock", "seat": 2, "discard": "KD", "melds": [["5S", "6S", "7S"], ["2H", "2D", "2C"]]}
    assert describe(GIN, event, {}, NAMES) == "Ida knock discard K♦ melds [5♠ 6♠ 7♠] [2♥ 2♦ 2♣]"


def test_a_deals_hands_are_per_seat_with_names() -> None:
    event = {"type": "deal", "dealer": 1, "hands": [["AS", "TS", "KS", "QS", "JS"], ["AH"] * 5], "trump_card": "AC"}
    assert describe(SCHNAPSEN, event, {}, NAMES).startswith("deal dealer Ben hands (Ann [A♠ 10♠ K♠ Q♠ J♠], Ben [")


def test_a_seats_only_hand_is_not_numbered_and_half_points_read_in_halves() -> None:
    assert (
        describe(HALF, {"type": "hit", "seat": 1, "card": "3S"}, {"total": 7, "hand": 0}, NAMES)
        == "Ben hit 3♠  → total 3½"
    )
    split = describe(HALF, {"type": "hit", "seat": 1, "card": "3S", "hand": 1}, {"total": 15, "hand": 1}, NAMES)
    assert split == "Ben hit 3♠ hand 1  → total 7½, hand 1"
