"""Gin Rummy for three (`rules/gin-rummy-3.md`): given events => event => pos or error."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import combinations
from typing import Any

import pytest

from events.errors import UnknownGameError
from projections.core import engine, phrases
from projections.core.rules import SPECTATOR
from projections.games.gin_rummy_3 import RULES, GinState
from projections.games.gin_rummy_3._melds import candidate_melds, deadwood_value
from tests.projections.helpers import (
    check_census,
    expect_illegal,
    expect_impossible,
    expect_invalid,
    expected_of,
    given,
    load_example,
    then,
    with_options,
)

GIN = "gin-rummy-3"


def turn_of(seat: int) -> str:
    """The pattern of an out-of-turn message naming whose turn it is (the rules write seats as markers)."""
    return re.escape(f"{phrases.seat(seat)}'s turn")


def not_held(card: str) -> str:
    """The pattern of "... does not hold AH" with the card as the rules mark it."""
    return re.escape(f"does not hold {phrases.card(card)}")


PLAYERS = ["Ann", "Bob", "Cy"]
#: seat 0 in the box, seat 1 captain, seat 2 sitter
ROLES = {"first_roles": {"box": 0, "captain": 1, "sitter": 2}}

# A hand where the captain can knock after drawing AH (deadwood AD AH 3H 5D = 10).
BOX_A = ["7C", "7D", "7H", "2S", "3S", "4S", "KS", "QH", "5C", "9D"]
CAPTAIN_A = ["8C", "8D", "8H", "TS", "JS", "QS", "AD", "3H", "6C", "5D"]
UPCARD_A = "4H"
KNOCK_A = {
    "type": "knock",
    "seat": 1,
    "discard": "6C",
    "melds": [["8C", "8D", "8H"], ["TS", "JS", "QS"]],
}
# A box hand that undercuts the knock above (deadwood AC 2C = 3).
BOX_LOW = ["7C", "7D", "7H", "2S", "3S", "4S", "5S", "6S", "AC", "2C"]
# A box hand ready for gin, and a captain hand with 98 deadwood and no meld.
BOX_GIN = ["AC", "2C", "3C", "4C", "AD", "2D", "3D", "AH", "2H", "3H"]
CAPTAIN_BIG = ["KC", "KD", "QC", "QD", "JH", "JS", "TC", "TD", "9H", "9S"]
GIN_MELDS = [["AC", "2C", "3C", "4C"], ["AD", "2D", "3D"], ["AH", "2H", "3H"]]


def deal(hands: dict[int, list[str]], upcard: str) -> dict[str, Any]:
    return {"type": "deal", "hands": {str(s): h for s, h in hands.items()}, "upcard": upcard}


def start(
    box: list[str] = BOX_A,
    captain: list[str] = CAPTAIN_A,
    upcard: str = UPCARD_A,
    *more: dict[str, Any],
    options: dict[str, Any] | None = None,
) -> engine.Position[GinState]:
    """Seat 0 box, seat 1 captain: the deal, then `more` events."""
    pos: engine.Position[GinState] = given(
        GIN, [deal({0: box, 1: captain}, upcard), *more], PLAYERS, {**ROLES, **(options or {})}
    )
    return pos


def passes() -> list[dict[str, Any]]:
    return [{"type": "pass", "seat": 1}, {"type": "pass", "seat": 0}]


def knocked_a(box: list[str] = BOX_A, options: dict[str, Any] | None = None) -> engine.Position[GinState]:
    """Both pass, the captain draws AH and knocks with 10 deadwood."""
    return start(
        box,
        CAPTAIN_A,
        UPCARD_A,
        *passes(),
        {"type": "draw", "seat": 1, "source": "stock", "card": "AH"},
        KNOCK_A,
        options=options,
    )


def gin_state(captain: list[str] = CAPTAIN_BIG, options: dict[str, Any] | None = None) -> engine.Position[GinState]:
    """The captain passes, the box takes the upcard 5S and goes gin discarding it."""
    return start(
        BOX_GIN,
        captain,
        "5S",
        {"type": "pass", "seat": 1},
        {"type": "draw", "seat": 0, "source": "discard", "card": "5S"},
        {"type": "knock", "seat": 0, "discard": "5S", "melds": GIN_MELDS},
        options=options,
    )


def lay_off(seat: int, melds: list[list[str]], layoffs: Sequence[tuple[str, int]] = ()) -> dict[str, Any]:
    return {"type": "lay_off", "seat": seat, "melds": melds, "layoffs": [{"card": c, "meld": i} for c, i in layoffs]}


def points(pos: engine.Position[GinState], hand: int = -1) -> tuple[int, ...]:
    return RULES.score(pos.game).hands[hand].points


# --------------------------------------------------------------------------- options


def test_options_are_filled_with_defaults() -> None:
    filled = RULES.options_for(PLAYERS, {})
    assert filled == {
        "first_roles": None,
        "gin_bonus": 25,
        "undercut_bonus": 10,
        "gin_scoring": "bonus_plus_deadwood",
        "discard_taken_card": True,
        "enforcement": "strict",
        "dealing": "table",
    }
    assert RULES.options_for(PLAYERS, {"gin_bonus": 20, "undercut_bonus": 15})["gin_bonus"] == 20


@pytest.mark.parametrize(
    "options",
    [
        {"rounds": 3},
        {"gin_bonus": 30},
        {"gin_bonus": "25"},
        {"undercut_bonus": -1},
        {"undercut_bonus": True},
        {"first_roles": {"box": 0, "captain": 0, "sitter": 2}},
        {"first_roles": {"box": 0, "captain": 1}},
        {"first_roles": {"box": 0, "captain": 1, "sitter": 3}},
        {"first_roles": [0, 1, 2]},
        {"enforcement": "lenient"},
    ],
)
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(UnknownGameError):
        RULES.options_for(PLAYERS, options)


def test_exactly_three_players() -> None:
    with pytest.raises(UnknownGameError, match="3 players"):
        RULES.options_for(["A", "B"], {})


# --------------------------------------------------------------------------- the cut and the roles


def test_cut_ranks_the_seats_king_high_ace_low() -> None:
    pos = given(GIN, [{"type": "cut", "cards": ["5H", "TH", "JC"]}], PLAYERS)
    assert (pos.game.box, pos.game.captain, pos.game.sitter) == (2, 1, 0)
    assert pos.facts == {"box": 2, "captain": 1, "sitter": 0}
    pos = given(GIN, [{"type": "cut", "cards": ["AS", "KS", "2D"]}], PLAYERS)
    assert (pos.game.box, pos.game.captain, pos.game.sitter) == (1, 2, 0)
    assert pos.game.phase == "deal" and pos.hand == 0


def test_cut_needs_three_different_ranks() -> None:
    pos = given(GIN, [], PLAYERS)
    expect_impossible(GIN, pos, {"type": "cut", "cards": ["5H", "5D", "JC"]}, match="three different ranks")
    # the same card twice: the engine's check of the cards a cut reveals (`reveals`)
    expect_impossible(
        GIN, pos, {"type": "cut", "cards": ["5H", "5H", "JC"]}, match=re.escape(f"{phrases.card('5H')} is named twice")
    )


def test_cut_shape() -> None:
    pos = given(GIN, [], PLAYERS)
    expect_invalid(GIN, pos, {"type": "cut", "cards": ["5H", "JC"]}, match="3 items")
    expect_invalid(GIN, pos, {"type": "cut", "cards": ["5H", "JC", "1X"]}, match="not a card")


def test_first_deal_needs_a_cut() -> None:
    pos = given(GIN, [], PLAYERS)
    assert pos.game.phase == "cut" and RULES.legal_events(pos.game) == []
    expect_impossible(GIN, pos, deal({0: BOX_A, 1: CAPTAIN_A}, UPCARD_A), match="needs a cut")
    expect_impossible(GIN, pos, {"type": "pass", "seat": 1}, match="cut")


def test_only_one_cut() -> None:
    pos = given(GIN, [{"type": "cut", "cards": ["5H", "TH", "JC"]}], PLAYERS)
    expect_impossible(GIN, pos, {"type": "cut", "cards": ["6H", "TH", "JC"]}, match="already been made")


def test_first_roles_replace_the_cut() -> None:
    pos = given(GIN, [], PLAYERS, ROLES)
    assert (pos.game.phase, pos.game.box, pos.game.captain, pos.game.sitter) == ("deal", 0, 1, 2)
    expect_impossible(GIN, pos, {"type": "cut", "cards": ["5H", "TH", "JC"]}, match="first_roles")


def test_cut_cards_go_back_into_the_deck() -> None:
    pos = given(GIN, [{"type": "cut", "cards": ["5H", "TH", "JC"]}], PLAYERS)
    pos = then(
        GIN, pos, deal({2: ["5H", "TH", "JC", *BOX_A[3:]], 1: CAPTAIN_A[:4] + BOX_A[:3] + ["AS", "AH", "KD"]}, "2C")
    )
    assert pos.hand == 1 and "5H" in pos.game.hands[2]
    assert RULES.view(pos.game, 0)["table"]["cut"] is None


# --------------------------------------------------------------------------- the deal


def test_the_box_deals_ten_each_and_the_upcard_starts_the_pile() -> None:
    pos = start()
    assert pos.hand == 1 and pos.game.phase == "offer"
    assert pos.game.hands[0] == frozenset(BOX_A) and pos.game.hands[1] == frozenset(CAPTAIN_A) and not pos.game.hands[2]
    assert pos.game.pile == (UPCARD_A,) and pos.game.stock == 31
    assert pos.game.turn == 1
    check_census(RULES, pos)


def test_deal_must_name_the_box_and_the_captain() -> None:
    pos = given(GIN, [], PLAYERS, ROLES)
    expect_impossible(GIN, pos, deal({0: BOX_A, 2: CAPTAIN_A}, UPCARD_A), match="captain")
    expect_impossible(GIN, pos, deal({0: BOX_A}, UPCARD_A), match="box")


def test_deal_cards_once() -> None:
    pos = given(GIN, [], PLAYERS, ROLES)
    expect_impossible(
        GIN, pos, deal({0: BOX_A, 1: CAPTAIN_A}, "7C"), match=re.escape(f"{phrases.card('7C')} is named twice")
    )
    expect_impossible(
        GIN,
        pos,
        deal({0: BOX_A, 1: [*CAPTAIN_A[:9], "KS"]}, UPCARD_A),
        match=re.escape(f"{phrases.card('KS')} is named twice"),
    )


def test_deal_shape() -> None:
    pos = given(GIN, [], PLAYERS, ROLES)
    expect_invalid(GIN, pos, deal({0: BOX_A[:9], 1: CAPTAIN_A}, UPCARD_A), match="10 items")
    expect_invalid(GIN, pos, {"type": "deal", "hands": {"3": BOX_A}, "upcard": UPCARD_A}, match="out of range")
    expect_invalid(GIN, pos, {"type": "deal", "hands": {"0": BOX_A, "1": CAPTAIN_A}}, match="upcard")
    expect_invalid(GIN, pos, {**deal({0: BOX_A, 1: CAPTAIN_A}, UPCARD_A), "dealer": 0}, match="dealer")


def test_no_second_deal_during_a_hand() -> None:
    # cards of the hand in progress: already seen (the engine's check of the cards a deal reveals)
    expect_impossible(GIN, start(), deal({0: BOX_A, 1: CAPTAIN_A}, UPCARD_A), match="already been seen")
    unseen = sorted(RULES.census(start().game).deck - start().game.seen)
    expect_impossible(GIN, start(), deal({0: unseen[:10], 1: unseen[10:20]}, unseen[20]), match="in progress")


# --------------------------------------------------------------------------- the upcard offer


def test_upcard_offer_captain_then_box_then_captain_draws_from_stock() -> None:
    pos = start()
    assert RULES.legal_events(pos.game) == [
        {"type": "draw", "seat": 1, "source": "discard", "card": UPCARD_A},
        {"type": "pass", "seat": 1},
    ]
    expect_impossible(GIN, pos, {"type": "pass", "seat": 0}, match=turn_of(1))
    pos = then(GIN, pos, {"type": "pass", "seat": 1})
    assert pos.game.turn == 0 and pos.game.phase == "offer"
    pos = then(GIN, pos, {"type": "pass", "seat": 0})
    assert pos.game.turn == 1 and pos.game.phase == "draw" and pos.game.stock_only
    assert RULES.legal_events(pos.game) == []
    expect_impossible(
        GIN, pos, {"type": "draw", "seat": 1, "source": "discard", "card": UPCARD_A}, match="must draw from the stock"
    )
    pos = then(GIN, pos, {"type": "draw", "seat": 1, "source": "stock", "card": "AH"})
    assert pos.game.phase == "discard" and pos.game.stock == 30


def test_during_the_offer_only_take_or_pass() -> None:
    pos = start()
    expect_impossible(GIN, pos, {"type": "draw", "seat": 1, "source": "stock", "card": "AH"}, match="upcard")
    expect_impossible(GIN, pos, {"type": "discard", "seat": 1, "card": "6C"}, match="take the upcard")
    expect_impossible(GIN, pos, {**KNOCK_A}, match="take the upcard")
    expect_impossible(GIN, pos, {"type": "draw", "seat": 1, "source": "discard", "card": "AH"}, match="top")


def test_captain_takes_the_upcard_then_the_box_plays() -> None:
    pos = start(BOX_A, CAPTAIN_A, UPCARD_A, {"type": "draw", "seat": 1, "source": "discard", "card": UPCARD_A})
    assert pos.game.phase == "discard" and UPCARD_A in pos.game.hands[1] and pos.game.pile == ()
    assert pos.facts["upcard"] is True
    expect_impossible(GIN, pos, {"type": "pass", "seat": 1}, match="upcard offer")
    pos = then(GIN, pos, {"type": "discard", "seat": 1, "card": "6C"})
    assert pos.game.phase == "draw" and pos.game.turn == 0 and pos.game.pile == ("6C",)


def test_box_takes_the_upcard_after_the_captain_passes() -> None:
    pos = start(
        BOX_A,
        CAPTAIN_A,
        UPCARD_A,
        {"type": "pass", "seat": 1},
        {"type": "draw", "seat": 0, "source": "discard", "card": UPCARD_A},
        {"type": "discard", "seat": 0, "card": "KS"},
    )
    assert pos.game.turn == 1 and pos.game.phase == "draw" and not pos.game.stock_only
    assert RULES.legal_events(pos.game) == [{"type": "draw", "seat": 1, "source": "discard", "card": "KS"}]


# --------------------------------------------------------------------------- draw and discard


def test_draws_and_discards() -> None:
    pos = start(BOX_A, CAPTAIN_A, UPCARD_A, *passes(), {"type": "draw", "seat": 1, "source": "stock", "card": "AH"})
    expect_impossible(GIN, pos, {"type": "draw", "seat": 1, "source": "stock", "card": "2H"}, match="must discard")
    expect_impossible(GIN, pos, {"type": "discard", "seat": 1, "card": "KS"}, match=not_held("KS"))
    expect_impossible(GIN, pos, {"type": "discard", "seat": 0, "card": "KS"}, match=turn_of(1))
    pos = then(GIN, pos, {"type": "discard", "seat": 1, "card": "AH"})
    assert pos.game.pile == (UPCARD_A, "AH") and pos.game.turn == 0
    expect_impossible(GIN, pos, {"type": "discard", "seat": 0, "card": "KS"}, match="must draw")
    expect_impossible(GIN, pos, {"type": "draw", "seat": 0, "source": "stock", "card": "AH"}, match="already been seen")
    expect_impossible(GIN, pos, {"type": "draw", "seat": 0, "source": "stock", "card": "7C"}, match="already been seen")
    expect_impossible(GIN, pos, {"type": "draw", "seat": 0, "source": "discard", "card": UPCARD_A}, match="top")
    pos = then(GIN, pos, {"type": "draw", "seat": 0, "source": "discard", "card": "AH"})
    # discarding the card just taken from the pile is allowed
    pos = then(GIN, pos, {"type": "discard", "seat": 0, "card": "AH"})
    assert pos.game.pile == (UPCARD_A, "AH") and pos.game.stock == 30
    check_census(RULES, pos)


def test_draw_shape() -> None:
    pos = start()
    expect_invalid(GIN, pos, {"type": "draw", "seat": 1, "source": "deck", "card": "AH"}, match="source")
    expect_invalid(GIN, pos, {"type": "draw", "seat": 1, "source": "stock"}, match="card")
    expect_invalid(GIN, pos, {"type": "pass", "seat": 3}, match="out of range")


# --------------------------------------------------------------------------- knocking


def test_knock_with_ten_ends_play() -> None:
    pos = knocked_a()
    assert pos.game.phase == "lay_off" and pos.game.turn == 0
    assert pos.game.knock is not None and pos.game.knock.count == 10 and not pos.game.knock.gin
    assert pos.facts["deadwood"] == 10 and pos.facts["gin"] is False
    assert pos.facts["deadwood_cards"] == ["AD", "5D", "AH", "3H"]
    assert pos.facts["better_melding"] is None
    assert pos.game.pile[-1] == "6C" and len(pos.game.hands[1]) == 10
    assert RULES.situations(KNOCK_A, pos.facts) == ["knock"]
    expect_impossible(GIN, pos, {"type": "discard", "seat": 1, "card": "AD"}, match=turn_of(0) + " to lay off")
    expect_impossible(GIN, pos, {"type": "discard", "seat": 0, "card": "KS"}, match="play has ended")


def _before_knock(box: list[str] = BOX_A) -> engine.Position[GinState]:
    return start(box, CAPTAIN_A, UPCARD_A, *passes(), {"type": "draw", "seat": 1, "source": "stock", "card": "AH"})


def test_knock_over_ten_is_illegal_even_if_a_better_arrangement_existed() -> None:
    pos = _before_knock()
    # with only the set declared, TS JS QS AD AH 3H 6C = 41 is deadwood
    over = {"type": "knock", "seat": 1, "discard": "5D", "melds": [["8C", "8D", "8H"]]}
    error = expect_illegal(GIN, pos, over, "gin.knock_over_ten")
    assert "over 10" in error.reason


def test_knock_over_ten_is_scored_as_declared_under_record() -> None:
    pos = given(
        GIN,
        [
            deal({0: BOX_A, 1: CAPTAIN_A}, UPCARD_A),
            *passes(),
            {"type": "draw", "seat": 1, "source": "stock", "card": "AH"},
        ],
        PLAYERS,
        {**ROLES, "enforcement": "record"},
    )
    knock = {"type": "knock", "seat": 1, "discard": "6C", "melds": [["8C", "8D", "8H"]]}
    decision = engine.decide(RULES, pos, knock)
    assert decision.violation is not None and decision.violation["rule"] == "gin.knock_over_ten"
    assert "TS JS QS" in decision.violation["message"] and "= 40" in decision.violation["message"]
    pos = engine.apply(RULES, pos, decision.event, pos.seq + 1)
    # declared deadwood: TS JS QS AD AH 3H 5D = 40; a better arrangement had 10
    assert pos.game.knock is not None and pos.game.knock.count == 40
    assert pos.facts["better_melding"]["count"] == 10 and pos.facts["better_melding"]["declared_count"] == 40
    # the box lays off nothing and keeps 7C 7D 7H 2S 3S 4S melded, KS QH 5C 9D = 34: undercut 10 + 6
    pos = then(GIN, pos, lay_off(0, [["7C", "7D", "7H"], ["2S", "3S", "4S"]]))
    assert points(pos) == (16, 0, 0)


@pytest.mark.parametrize(
    ("knock", "match"),
    [
        ({"discard": "KD", "melds": [["8C", "8D", "8H"]]}, not_held("KD")),
        ({"discard": "6C", "melds": [["8C", "8D", "8H", "8S"]]}, not_held("8S")),
        ({"discard": "6C", "melds": [["8C", "8D"]]}, "not a meld"),
        ({"discard": "6C", "melds": [["TS", "JS", "AD"]]}, "not a meld"),
        ({"discard": "6C", "melds": [["QS", "KS", "AS"]]}, "not a meld"),
        ({"discard": "6C", "melds": [[]]}, "not a meld"),
        ({"discard": "8C", "melds": [["8C", "8D", "8H"]]}, "cannot also be in a meld"),
        ({"discard": "6C", "melds": [["8C", "8D", "8H"], ["8H", "TS", "JS"]]}, "not a meld"),
        ({"discard": "6C", "melds": [["TS", "JS", "QS"], ["TS", "JS", "QS"]]}, "twice"),
    ],
)
def test_impossible_knocks(knock: dict[str, Any], match: str) -> None:
    expect_impossible(GIN, _before_knock(), {"type": "knock", "seat": 1, **knock}, match=match)


def test_knock_before_drawing_is_out_of_turn() -> None:
    pos = start(BOX_A, CAPTAIN_A, UPCARD_A, *passes())
    expect_impossible(GIN, pos, KNOCK_A, match="must draw")


def test_lay_off_without_a_knock_is_out_of_turn() -> None:
    expect_impossible(GIN, _before_knock(), lay_off(1, []), match="only after a knock")
    expect_impossible(GIN, start(), lay_off(1, []), match="only after a knock")
    expect_impossible(GIN, knocked_a(), {"type": "pass", "seat": 0}, match="upcard offer")
    expect_impossible(GIN, knocked_a(), {**KNOCK_A, "seat": 0, "discard": "KS"}, match="play has ended")


def test_meld_cards_in_any_order() -> None:
    pos = _before_knock()
    # cards of a meld may be listed in any order
    knock = {"type": "knock", "seat": 1, "discard": "6C", "melds": [["8H", "8C", "8D"], ["QS", "TS", "JS"]]}
    pos = then(GIN, pos, knock)
    assert pos.game.knock is not None and pos.game.knock.melds == (("8C", "8D", "8H"), ("TS", "JS", "QS"))


def test_knock_on_the_first_turn_and_gin() -> None:
    pos = gin_state()
    assert pos.game.knock is not None and pos.game.knock.gin
    assert pos.facts["gin"] is True
    assert RULES.situations({"type": "knock"}, pos.facts) == ["knock", "gin"]


def test_better_melding_note_in_the_knock_result() -> None:
    captain = ["2C", "2D", "2H", "3H", "4H", "9S", "TS", "JS", "AC", "AD"]
    box = ["KC", "KD", "QC", "QD", "JH", "8S", "TC", "TD", "9H", "5S"]
    pos = start(box, captain, "7C", {"type": "draw", "seat": 1, "source": "discard", "card": "7C"})
    knock = {"type": "knock", "seat": 1, "discard": "7C", "melds": [["2C", "2D", "2H"], ["9S", "TS", "JS"]]}
    pos = then(GIN, pos, knock)
    assert pos.game.knock is not None and pos.game.knock.count == 9
    better = pos.facts["better_melding"]
    assert better == {
        "melds": [["2H", "3H", "4H"], ["9S", "TS", "JS"]],
        "deadwood": ["AC", "2C", "AD", "2D"],
        "count": 6,
        "declared_count": 9,
    }
    assert "better_melding" in RULES.situations(knock, pos.facts)


# --------------------------------------------------------------------------- lay-offs and scoring


def test_knock_scores_the_difference_to_the_knocker() -> None:
    pos = then(GIN, knocked_a(), lay_off(0, [["7C", "7D", "7H"], ["2S", "3S", "4S"]], [("KS", 1)]))
    # box deadwood QH 5C 9D = 24 after laying KS on TS JS QS; captain 10: 14
    assert points(pos) == (0, 14, 0)
    assert pos.facts["points"] == {"0": 0, "1": 14, "2": 0}
    assert pos.facts["rule"] == "gin.knock" and pos.facts["defender_deadwood"] == 24
    assert pos.facts["outcome"] == "knock" and pos.facts["scorer"] == 1 and pos.facts["knocker_deadwood"] == 10
    (line,) = RULES.score(pos.game).hands[0].lines
    assert (line.seat, line.points, line.rule, line.events) == (1, 14, "gin.knock", (5, 6))
    assert "24 - 10 = 14" in line.reason
    assert pos.game.totals == (0, 14, 0)
    assert RULES.situations(lay_off(0, [], [("KS", 1)]), pos.facts) == ["layoff"]


def test_defender_may_lay_off_fewer_and_melds_are_the_record() -> None:
    # no lay-off and only one meld declared: 2S 3S 4S KS QH 5C 9D = 43
    pos = then(GIN, knocked_a(), lay_off(0, [["7C", "7D", "7H"]]))
    assert points(pos) == (0, 33, 0)


def test_undercut_scores_bonus_and_difference_to_the_defender() -> None:
    pos = then(GIN, knocked_a(BOX_LOW), lay_off(0, [["7C", "7D", "7H"], ["2S", "3S", "4S", "5S", "6S"]]))
    assert points(pos) == (17, 0, 0)
    lines = RULES.score(pos.game).hands[0].lines
    assert [(ln.seat, ln.points, ln.rule) for ln in lines] == [(0, 10, "gin.undercut_bonus"), (0, 7, "gin.undercut")]
    assert pos.facts["outcome"] == "undercut" and pos.facts["scorer"] == 0
    assert "undercut" in RULES.situations(lay_off(0, []), pos.facts)


def test_equal_deadwood_is_an_undercut() -> None:
    box = [*BOX_LOW[:8], "AC", "9C"]
    pos = then(GIN, knocked_a(box), lay_off(0, [["7C", "7D", "7H"], ["2S", "3S", "4S", "5S", "6S"]]))
    assert points(pos) == (10, 0, 0)


def test_undercut_bonus_option() -> None:
    pos = knocked_a(BOX_LOW, options={"undercut_bonus": 25})
    pos = then(GIN, pos, lay_off(0, [["7C", "7D", "7H"], ["2S", "3S", "4S", "5S", "6S"]]))
    assert points(pos) == (32, 0, 0)


def test_gin_scores_bonus_plus_defender_deadwood() -> None:
    pos = then(GIN, gin_state(captain=["5C", *CAPTAIN_BIG[1:]]), lay_off(1, []))
    # 5C KD QC QD JH JS TC TD 9H 9S = 93
    assert points(pos) == (118, 0, 0)
    lines = RULES.score(pos.game).hands[0].lines
    assert [(ln.seat, ln.points, ln.rule) for ln in lines] == [(0, 25, "gin.gin_bonus"), (0, 93, "gin.gin_deadwood")]
    assert pos.facts["outcome"] == "gin" and "gin bonus 25" in lines[0].reason


def test_gin_bonus_option() -> None:
    pos = then(GIN, gin_state(options={"gin_bonus": 20}), lay_off(1, []))
    assert points(pos) == (118, 0, 0)


def test_gin_with_zero_defender_deadwood_still_scores_for_the_knocker() -> None:
    captain = ["5C", "6C", "7C", "KD", "KS", "KH", "9S", "TS", "JS", "QS"]
    pos = then(GIN, gin_state(captain), lay_off(1, [["5C", "6C", "7C"], ["KD", "KH", "KS"], ["9S", "TS", "JS", "QS"]]))
    assert points(pos) == (25, 0, 0)


def test_no_lay_off_after_gin() -> None:
    pos = gin_state(captain=["5C", *CAPTAIN_BIG[1:]])
    expect_illegal(GIN, pos, lay_off(1, [], [("5C", 0)]), "gin.layoff_after_gin")
    # a lay-off that would not even fit is impossible, not illegal
    expect_impossible(GIN, pos, lay_off(1, [], [("KD", 0)]), match="does not fit")


def test_lay_off_after_gin_is_applied_under_record() -> None:
    pos = gin_state(captain=["5C", *CAPTAIN_BIG[1:]], options={"enforcement": "record"})
    decision = engine.decide(RULES, pos, lay_off(1, [], [("5C", 0)]))
    assert decision.violation is not None and decision.violation["rule"] == "gin.layoff_after_gin"
    pos = engine.apply(RULES, pos, decision.event, pos.seq + 1)
    assert points(pos) == (25 + 88, 0, 0)


def test_lay_off_onto_the_high_end_of_a_run() -> None:
    box = ["2S", "3S", "4S", "2D", "3D", "4D", "AS", "KS", "5C", "9D"]
    ok = lay_off(0, [["AS", "2S", "3S", "4S"], ["2D", "3D", "4D"]], [("KS", 1)])
    pos = then(GIN, knocked_a(box), ok)
    assert pos.game.layout is not None and pos.game.layout.extended[1] == ("TS", "JS", "QS", "KS")
    # the box keeps 5C 9D = 14 against 10: the captain scores 4
    assert points(pos) == (0, 4, 0)


def test_impossible_lay_offs() -> None:
    pos = knocked_a(["2S", "3S", "4S", "2D", "3D", "4D", "AS", "KS", "8S", "9S"])
    cases = [
        (lay_off(0, [["2S", "3S"]]), "not a meld"),
        (lay_off(0, [["2S", "3S", "4S"]], [("4S", 1)]), "own melds"),
        (lay_off(0, [], [("KS", 1), ("KS", 1)]), "laid off once"),
        (lay_off(0, [], [("KS", 2)]), "no meld 2"),
        (lay_off(0, [], [("2D", 0)]), "does not fit"),
        (lay_off(0, [], [("AH", 1)]), not_held("AH")),
        (lay_off(0, [["8C", "8D", "8H"]]), not_held("8C")),
        (lay_off(1, []), turn_of(0)),
    ]
    for event, match in cases:
        expect_impossible(GIN, pos, event, match=match)
    # 9S below TS, then 8S below 9S: in that order only
    pos2 = then(GIN, pos, lay_off(0, [["2D", "3D", "4D"], ["AS", "2S", "3S", "4S"]], [("9S", 1), ("8S", 1), ("KS", 1)]))
    assert pos2.game.layout is not None and pos2.game.layout.extended[1] == ("8S", "9S", "TS", "JS", "QS", "KS")
    # each lay-off names the meld it joined by the knock's numbering, with the cards it found there
    assert pos2.facts["layoffs"] == [
        {"card": "9S", "meld": 1, "onto": ["TS", "JS", "QS"]},
        {"card": "8S", "meld": 1, "onto": ["9S", "TS", "JS", "QS"]},
        {"card": "KS", "meld": 1, "onto": ["8S", "9S", "TS", "JS", "QS"]},
    ]
    assert RULES.view(pos2.game, None)["table"]["layout"]["layoffs"] == pos2.facts["layoffs"]
    assert (
        f"{phrases.card('8S')} on {phrases.cards(['9S', 'TS', 'JS', 'QS'])}" in RULES.score(pos2.game).lines[0].reason
    )
    # the defender keeps no deadwood against the knocker's 10: undercut 10 + 10
    assert pos2.game.layout.count == 0 and points(pos2) == (20, 0, 0)
    expect_impossible(
        GIN, pos, lay_off(0, [], [("8S", 1), ("9S", 1)]), match=re.escape(f"{phrases.card('8S')} does not fit")
    )


def test_a_three_card_set_takes_the_fourth_card() -> None:
    box = ["7C", "7D", "7H", "2S", "3S", "4S", "8S", "QH", "5C", "9D"]
    pos = knocked_a(box)
    expect_impossible(GIN, pos, lay_off(0, [], [("7C", 0)]), match="does not fit")
    pos = then(GIN, pos, lay_off(0, [["7C", "7D", "7H"], ["2S", "3S", "4S"]], [("8S", 0)]))
    assert pos.game.layout is not None and pos.game.layout.extended[0] == ("8C", "8D", "8H", "8S")
    assert points(pos) == (0, 14, 0)


def test_no_ace_above_a_king() -> None:
    captain = ["JS", "QS", "KS", "8C", "8D", "8H", "AD", "AH", "2C", "3H"]
    box = ["AS", "2S", "3S", "7C", "7D", "7H", "5C", "9D", "QH", "KD"]
    pos = start(box, captain, "4C", {"type": "draw", "seat": 1, "source": "discard", "card": "4C"})
    knock = {"type": "knock", "seat": 1, "discard": "4C", "melds": [["JS", "QS", "KS"], ["8C", "8D", "8H"]]}
    pos = then(GIN, pos, knock)
    expect_impossible(GIN, pos, lay_off(0, [], [("AS", 0)]), match="does not fit")


# --------------------------------------------------------------------------- roles, drawn hands, voided hands


def test_box_loses_sits_out_captain_boxes_sitter_captains() -> None:
    pos = then(GIN, knocked_a(), lay_off(0, [["7C", "7D", "7H"], ["2S", "3S", "4S"]], [("KS", 1)]))
    assert pos.game.dealing_roles == (1, 2, 0)
    assert pos.facts["box_won"] is False and pos.facts["next_roles"] == {"box": 1, "captain": 2, "sitter": 0}
    expect_impossible(GIN, pos, deal({0: BOX_A, 1: CAPTAIN_A}, UPCARD_A), match=re.escape(phrases.seat(1)))
    pos = then(GIN, pos, deal({1: BOX_A, 2: CAPTAIN_A}, UPCARD_A))
    assert pos.game.turn == 2 and pos.hand == 2


def test_the_state_after_a_knocks_hand_end_keeps_the_hands_roles_until_the_next_deal() -> None:
    """A replay frame of the hand's end shows the roles it was played with: the captain (seat 1) who
    knocked, the box (seat 0) who laid off, both hands as laid down, the sitter empty-handed."""
    pos = then(GIN, knocked_a(), lay_off(0, [["7C", "7D", "7H"], ["2S", "3S", "4S"]], [("KS", 1)]))
    assert pos.game.phase == "deal" and pos.facts["scorer"] == 1 and pos.facts["outcome"] == "knock"
    for looker in (None, 0, 1, 2, SPECTATOR):
        view = RULES.view(pos.game, looker)
        table = view["table"]
        assert (table["box"], table["captain"], table["sitter"]) == (0, 1, 2)
        assert [s["role"] for s in view["seats"]] == ["box", "captain", "sitter"]
        # both hands are face up as laid down (10 cards each); the sitter holds none
        assert [view["seats"][s]["cards"] for s in (0, 1)] == [
            RULES.view(pos.game, None)["seats"][s]["cards"] for s in (0, 1)
        ]
        assert [len(view["seats"][s]["cards"]) for s in (0, 1)] == [10, 10]
        assert view["seats"][2].get("card_count", 0) == len(view["seats"][2].get("cards", ())) == 0
        assert table["next_roles"] == {"box": 1, "captain": 2, "sitter": 0}
        assert table["knock"]["seat"] == 1 and table["knock"]["melds"] == [["8C", "8D", "8H"], ["TS", "JS", "QS"]]
        assert table["layout"]["layoffs"] == [{"card": "KS", "meld": 1, "onto": ["TS", "JS", "QS"]}]
        assert view["to_act"] == [1]
    # the score line names the knocker as the captain it was
    (line,) = RULES.score(pos.game).hands[0].lines
    assert f"{phrases.seat(1)} (captain) knocked" in line.reason
    assert f"after laying off {phrases.card('KS')} on {phrases.cards(['TS', 'JS', 'QS'])}" in line.reason
    # the deal moves the roles on: seat 1 deals to itself and seat 2
    dealt = then(GIN, pos, deal({1: BOX_A, 2: CAPTAIN_A}, UPCARD_A))
    table = RULES.view(dealt.game, None)["table"]
    assert (table["box"], table["captain"], table["sitter"], table["next_roles"]) == (1, 2, 0, None)
    assert dealt.game.next_roles is None and dealt.facts["box"] == 1 and table["knock"] is None


def test_knock_and_lay_off_facts_number_the_melds_as_the_event() -> None:
    """The knock's facts list its melds separately (a set and a run are two), and a lay-off's `meld`
    indexes that list from 0, as the event, the state's `layout.layoffs` and `extended` do."""
    pos = knocked_a()
    assert pos.facts["melds"] == [["8C", "8D", "8H"], ["TS", "JS", "QS"]]
    pos = then(GIN, pos, lay_off(0, [["7C", "7D", "7H"], ["2S", "3S", "4S"]], [("KS", 1)]))
    assert pos.facts["layoffs"] == [{"card": "KS", "meld": 1, "onto": ["TS", "JS", "QS"]}]
    layout = RULES.view(pos.game, None)["table"]["layout"]
    assert layout["layoffs"] == pos.facts["layoffs"] and layout["extended"][1] == ["TS", "JS", "QS", "KS"]


def test_box_wins_keeps_its_place_captain_and_sitter_swap() -> None:
    pos = then(GIN, knocked_a(BOX_LOW), lay_off(0, [["7C", "7D", "7H"], ["2S", "3S", "4S", "5S", "6S"]]))
    assert (pos.game.box, pos.game.captain, pos.game.sitter) == (0, 1, 2) and pos.game.dealing_roles == (0, 2, 1)
    assert pos.facts["box_won"] is True


def test_box_wins_with_its_own_knock() -> None:
    pos = then(GIN, gin_state(["5C", "6C", "7C", "KD", "KS", "KH", "9S", "TS", "JS", "QS"]), lay_off(1, []))
    # 5C 6C 7C KD KH KS 9S TS JS QS all unmelded: 87
    assert points(pos) == (25 + 87, 0, 0) and pos.game.phase == "over"
    pos = then(
        GIN,
        gin_state(["5C", "6C", "7C", "KD", "KS", "KH", "9S", "TS", "JS", "QS"]),
        lay_off(1, [["5C", "6C", "7C"], ["KD", "KH", "KS"], ["9S", "TS", "JS", "QS"]]),
    )
    assert pos.game.dealing_roles == (0, 2, 1) and pos.game.phase == "deal"


def _stock_turns(pos: engine.Position[GinState], turns: int, *, discard_last: bool = True) -> engine.Position[GinState]:
    """`turns` turns in which the player draws the lowest unseen card from the stock and discards it."""
    for turn in range(turns):
        seat = pos.game.turn
        card = sorted(RULES.census(pos.game).deck - pos.game.seen)[0]
        pos = then(GIN, pos, {"type": "draw", "seat": seat, "source": "stock", "card": card})
        if discard_last or turn < turns - 1:
            pos = then(GIN, pos, {"type": "discard", "seat": seat, "card": card})
    return pos


def test_drawn_hand_at_two_cards_in_the_stock() -> None:
    pos = _stock_turns(start(BOX_A, CAPTAIN_A, UPCARD_A, *passes()), 28)
    assert pos.game.stock == 3 and pos.game.phase == "draw"
    pos = _stock_turns(pos, 1, discard_last=False)
    assert pos.game.stock == 2 and pos.game.phase == "discard"
    seat = pos.game.turn
    assert seat is not None
    pos = then(GIN, pos, {"type": "discard", "seat": seat, "card": sorted(pos.game.hands[seat])[0]})
    assert pos.game.phase == "deal" and pos.facts["drawn"] is True and pos.facts["hand_ended"] is True
    assert points(pos) == (0, 0, 0) and RULES.score(pos.game).hands[0].lines[0].rule == "gin.drawn_hand"
    assert RULES.situations({"type": "discard"}, pos.facts) == ["drawn_hand"]
    # roles stay: the same box deals again
    assert (pos.game.box, pos.game.captain, pos.game.sitter) == (0, 1, 2)
    pos = then(GIN, pos, deal({0: BOX_A, 1: CAPTAIN_A}, UPCARD_A))
    assert pos.hand == 2 and pos.game.stock == 31


def test_knock_with_two_cards_left_in_the_stock_is_allowed() -> None:
    pos = _stock_turns(start(BOX_GIN, CAPTAIN_BIG, "5S", *passes()), 1)
    # the box takes the captain's discard and throws it back, so the box makes the 29th stock draw
    top = pos.game.pile[-1]
    pos = then(GIN, pos, {"type": "draw", "seat": 0, "source": "discard", "card": top})
    pos = then(GIN, pos, {"type": "discard", "seat": 0, "card": top})
    pos = _stock_turns(pos, 27)
    assert pos.game.turn == 0 and pos.game.stock == 3
    pos = _stock_turns(pos, 1, discard_last=False)
    assert pos.game.stock == 2 and pos.game.phase == "discard"
    drawn = sorted(pos.game.hands[0] - set(BOX_GIN))[0]
    pos = then(GIN, pos, {"type": "knock", "seat": 0, "discard": drawn, "melds": GIN_MELDS})
    assert pos.game.phase == "lay_off" and pos.game.knock is not None and pos.game.knock.gin


def test_hand_voided_from_the_deal_until_the_lay_off() -> None:
    for pos in (start(), knocked_a()):
        voided = then(GIN, pos, {"type": "hand_voided", "reason": "misdeal"})
        assert voided.game.phase == "deal" and voided.facts["voided"] is True
        assert points(voided) == (0, 0, 0)
        assert (voided.game.box, voided.game.captain, voided.game.sitter) == (0, 1, 2)
    ended = then(GIN, knocked_a(), lay_off(0, []))
    expect_impossible(GIN, ended, {"type": "hand_voided", "reason": "late"}, match="in progress")
    expect_impossible(GIN, given(GIN, [], PLAYERS, ROLES), {"type": "hand_voided", "reason": "x"}, match="in progress")


# --------------------------------------------------------------------------- the end of the game


def test_game_ends_after_the_hand_that_reaches_100() -> None:
    pos = then(GIN, gin_state(), lay_off(1, []))
    # 25 + KC KD QC QD JH JS TC TD 9H 9S (98) = 123
    assert points(pos) == (123, 0, 0)
    sheet = RULES.score(pos.game)
    assert sheet.finished and sheet.winner == 0 and sheet.totals == (123, 0, 0)
    assert pos.facts["game_ended"] is True and pos.facts["winner"] == 0
    expect_impossible(GIN, pos, deal({0: BOX_A, 1: CAPTAIN_A}, UPCARD_A), match="game has ended")
    pos = then(GIN, pos, {"type": "score_claimed", "hand": 1, "points": {"0": 123, "1": 0, "2": 0}})
    assert RULES.is_terminal(pos.game)


def test_totals_are_cumulative_and_the_game_goes_on_below_100() -> None:
    pos = then(GIN, knocked_a(), lay_off(0, [["7C", "7D", "7H"], ["2S", "3S", "4S"]], [("KS", 1)]))
    # next hand: seat 1 box, seat 2 captain; seat 2 knocks the same way
    pos = then(GIN, pos, deal({1: BOX_A, 2: CAPTAIN_A}, UPCARD_A))
    for event in (
        {"type": "pass", "seat": 2},
        {"type": "pass", "seat": 1},
        {"type": "draw", "seat": 2, "source": "stock", "card": "AH"},
        {**KNOCK_A, "seat": 2},
        lay_off(1, [["7C", "7D", "7H"], ["2S", "3S", "4S"]], [("KS", 1)]),
    ):
        pos = then(GIN, pos, event)
    sheet = RULES.score(pos.game)
    assert [h.points for h in sheet.hands] == [(0, 14, 0), (0, 0, 14)]
    assert sheet.totals == (0, 14, 14) and not sheet.finished and sheet.winner is None
    # the second hand's roles until the third deal, which gives the next ones
    assert (pos.game.box, pos.game.captain, pos.game.sitter) == (1, 2, 0) and pos.game.dealing_roles == (2, 0, 1)


def test_golden_record() -> None:
    record = load_example("gin-rummy-3-9001.json")
    pos = given(GIN, record["events"], record["players"], record["options"])
    assert expected_of(RULES.score(pos.game).to_dict()) == record["expected"]
    assert RULES.is_terminal(pos.game)


# --------------------------------------------------------------------------- views, redaction, census


def test_views_hide_the_other_hands() -> None:
    pos = _before_knock()
    mine = RULES.view(pos.game, 1)
    assert mine["phase"] == "discard" and mine["to_act"] == [1]
    assert mine["seats"][1]["cards"] and mine["seats"][0] == {"seat": 0, "role": "box", "card_count": 10}
    assert mine["seats"][2] == {"seat": 2, "role": "sitter", "card_count": 0}
    for looker in (0, 2, SPECTATOR):
        shown = RULES.view(pos.game, looker)
        assert "cards" not in shown["seats"][1] and shown["seats"][1]["card_count"] == 11
    table = RULES.view(pos.game, None)["table"]
    assert table["pile"] == [UPCARD_A] and table["stock"] == 30 and table["knock"] is None
    assert all("cards" in s for s in RULES.view(pos.game, None)["seats"])


def test_the_knockers_cards_are_face_up_after_the_knock() -> None:
    pos = knocked_a()
    for looker in (0, 2, SPECTATOR):
        seats = RULES.view(pos.game, looker)["seats"]
        assert seats[1]["cards"] == ["8C", "AD", "5D", "8D", "AH", "3H", "8H", "TS", "JS", "QS"]
        assert ("cards" in seats[0]) == (looker == 0)
    knock = RULES.view(pos.game, SPECTATOR)["table"]["knock"]
    assert knock["count"] == 10 and knock["melds"] == [["8C", "8D", "8H"], ["TS", "JS", "QS"]]
    census = check_census(RULES, pos)
    assert 1 not in census.private and census.private[0] == frozenset(BOX_A)


def test_redact_event() -> None:
    event = deal({0: BOX_A, 1: CAPTAIN_A}, UPCARD_A)
    assert RULES.redact_event(event, 0)["hands"] == {"0": BOX_A, "1": ["??"] * 10}
    assert RULES.redact_event(event, 2)["hands"] == {"0": ["??"] * 10, "1": ["??"] * 10}
    assert RULES.redact_event(event, None) == event
    draw = {"type": "draw", "seat": 1, "source": "stock", "card": "AH"}
    assert RULES.redact_event(draw, 0)["card"] == "??" and RULES.redact_event(draw, 1)["card"] == "AH"
    taken = {"type": "draw", "seat": 1, "source": "discard", "card": "AH"}
    assert RULES.redact_event(taken, 0) == taken


def test_census_before_the_first_deal_and_in_a_hand() -> None:
    census = RULES.census(given(GIN, [], PLAYERS).game)
    assert census.unseen == 52 and not census.places
    census = check_census(RULES, _before_knock())
    assert census.unseen == 30 and census.places["pile"] == (UPCARD_A,)


def test_record_enforcement_does_not_relax_impossibles() -> None:
    pos = with_options(_before_knock(), enforcement="record")
    expect_impossible(
        GIN, pos, {"type": "knock", "seat": 1, "discard": "6C", "melds": [["8C", "8D"]]}, match="not a meld"
    )


# --------------------------------------------------------------------------- legal events


def _all_pass(pos: engine.Position[GinState]) -> list[dict[str, Any]]:
    offered = [dict(e) for e in RULES.legal_events(pos.game)]
    for event in offered:
        decision = engine.decide(RULES, pos, event)
        assert decision.violation is None, event
    return offered


def test_legal_events_in_the_discard_phase_are_discards_and_knocks() -> None:
    offered = _all_pass(_before_knock())
    discards = [e for e in offered if e["type"] == "discard"]
    assert [e["card"] for e in discards] == ["6C", "8C", "AD", "5D", "8D", "AH", "3H", "8H", "TS", "JS", "QS"]
    knocks = [e for e in offered if e["type"] == "knock"]
    # only the discard of 6C with both melds leaves 10 or less
    assert knocks == [KNOCK_A]


def test_legal_knocks_list_every_arrangement_with_ten_or_less() -> None:
    pos = start(BOX_GIN, CAPTAIN_BIG, "5S", {"type": "pass", "seat": 1})
    pos = then(GIN, pos, {"type": "draw", "seat": 0, "source": "discard", "card": "5S"})
    knocks = [e for e in _all_pass(pos) if e["type"] == "knock"]
    gins = [e for e in knocks if e["discard"] == "5S" and sum(len(m) for m in e["melds"]) == 10]
    assert gins == [{"type": "knock", "seat": 0, "discard": "5S", "melds": GIN_MELDS}]
    # against a brute force over every combination of candidate melds
    for discard in sorted(pos.game.hands[0]):
        rest = pos.game.hands[0] - {discard}
        expected = set()
        candidates = candidate_melds(rest)
        for k in range(5):
            for combo in combinations(candidates, k):
                used = [c for m in combo for c in m]
                if len(used) == len(set(used)) and deadwood_value(rest - set(used)) <= 10:
                    expected.add(frozenset(combo))
        offered = {frozenset(tuple(m) for m in e["melds"]) for e in knocks if e["discard"] == discard}
        assert offered == expected, discard
    assert len({repr(k) for k in knocks}) == len(knocks)


def test_legal_lay_offs_include_the_greedy_lay_off_and_none() -> None:
    offered = _all_pass(knocked_a())
    assert lay_off(0, [["7C", "7D", "7H"], ["2S", "3S", "4S"]]) in offered
    assert lay_off(0, [["7C", "7D", "7H"], ["2S", "3S", "4S"]], [("KS", 1)]) in offered
    assert all(e["type"] == "lay_off" and e["seat"] == 0 for e in offered)


def test_legal_lay_offs_chain_onto_a_run() -> None:
    pos = knocked_a(["2S", "3S", "4S", "2D", "3D", "4D", "AS", "KS", "8S", "9S"])
    offered = _all_pass(pos)
    full = lay_off(0, [["2D", "3D", "4D"], ["AS", "2S", "3S", "4S"]], [("9S", 1), ("8S", 1), ("KS", 1)])
    assert any(e["melds"] == full["melds"] and len(e["layoffs"]) == 3 for e in offered)


def test_no_lay_offs_offered_after_gin() -> None:
    offered = _all_pass(gin_state(captain=["5C", *CAPTAIN_BIG[1:]]))
    assert offered and all(e["layoffs"] == [] for e in offered)


def test_chance_events() -> None:
    import random

    rng = random.Random(7)
    (cut,) = RULES.chance_events(given(GIN, [], PLAYERS).game, rng)
    assert cut["type"] == "cut" and len({c[0] for c in cut["cards"]}) == 3
    (first,) = RULES.chance_events(given(GIN, [], PLAYERS, ROLES).game, rng)
    assert sorted(first["hands"]) == ["0", "1"] and first["upcard"] not in first["hands"]["0"]
    pos = start(BOX_A, CAPTAIN_A, UPCARD_A, *passes())
    (draw,) = RULES.chance_events(pos.game, rng)
    assert draw["source"] == "stock" and draw["seat"] == 1 and draw["card"] not in pos.game.seen
    assert RULES.chance_events(start().game, rng) == []
