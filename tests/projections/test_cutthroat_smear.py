"""Cutthroat Canadian Smear (`rules/cutthroat-smear.md`): given events => event => state or error.

Every hand below is written out card by card, with the points it must give
worked out by hand in its comment.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from events.errors import UnknownGameError
from projections.core import engine, phrases
from projections.core.registry import rules_for
from projections.core.rules import OMNISCIENT, SPECTATOR, seat_dict
from projections.core.simulate import play as play_out
from projections.reading import notation
from tests.projections.helpers import (
    check_census,
    decide,
    examples_of,
    expect_illegal,
    expect_impossible,
    expect_invalid,
    expected_of,
    given,
    load_example,
    then,
)

K = "cutthroat-smear"
RULES = rules_for(K)
TWO = ["P0", "P1"]
THREE = ["P0", "P1", "P2"]
NAMES = ["Ruby", "Ava", "Liam"]


def said(marked: str) -> str:
    """A `match=` pattern for a message written with phrase markers (`{seat:1} deals`)."""
    return re.escape(marked)


def read(text: str) -> str:
    """A reason as a player reads it: seats as NAMES, cards with suit symbols."""
    return phrases.render(text, NAMES)


Ev = dict[str, Any]


def deal(dealer: int, *hands: str) -> Ev:
    return {"type": "deal", "dealer": dealer, "hands": [h.split() for h in hands]}


def bid(seat: int, amount: Any) -> Ev:
    return {"type": "bid", "seat": seat, "amount": amount}


def pas(seat: int) -> Ev:
    return {"type": "pass", "seat": seat}


def play(seat: int, card: str) -> Ev:
    return {"type": "play", "seat": seat, "card": card}


def plays(text: str) -> list[Ev]:
    """`"1AH 0KD"`: seat digit then card, in the order played."""
    return [play(int(tok[0]), tok[1:]) for tok in text.split()]


def points(pos: Any, hand: int) -> tuple[int, ...]:
    found = RULES.score(pos.game).hand(hand)
    assert found is not None
    return found.points


def lines(pos: Any, hand: int) -> list[tuple[int, int, str, tuple[int, ...]]]:
    found = RULES.score(pos.game).hand(hand)
    assert found is not None
    return [(ln.seat, ln.points, ln.rule, ln.events) for ln in found.lines]


# --------------------------------------------------------------------------- hands used below

# 2 players, dealer 0, seat 1 bids 2. Hearts are trump (AH led).
# Trick 1: AH 3H -> 1 (game 4). Trick 2: KC, seat 0 trumps with 4H although it holds clubs -> 0 (game 3).
# Trick 3: 9C QC -> 1 (game 2). Trick 4: 2H 8C -> 1. Trick 5: 3D 5D -> 0. Trick 6: 7S 4D -> 0.
# High AH (1, seq 4), Low 2H (1, seq 10), no jack, Game 6 to 3 -> seat 1: 3 points.
TRUMP_ANYWAY_DEAL = deal(0, "3H 4H 9C 8C 5D 7S", "AH 2H KC QC 3D 4D")
TRUMP_ANYWAY_PLAYS = plays("1AH 03H 1KC 04H 09C 1QC 12H 08C 13D 05D 07S 14D")
TRUMP_ANYWAY = [TRUMP_ANYWAY_DEAL, bid(1, 2), pas(0), *TRUMP_ANYWAY_PLAYS]

# 3 players, dealer 0; seat 1 bids 2, seats 2 and 0 pass. Hearts trump.
# T1 AH JH 2H -> 1 (game 5; the jack, played by seat 2, goes to seat 1). T2 3H 4H KH -> 0 (3).
# T3 6D 7S 2S -> 0. T4 7C KC 5C -> 1 (3). T5 9C TC 8C -> 2 (10). T6 9S TD 8S -> 2 (10).
# High AH seat 1, Low 2H seat 0, Jack seat 1, Game seat 2 (0: 3, 1: 8, 2: 20): 1, 2, 1.
THREE_DEAL = deal(0, "KH 2H 7C 8C 6D TD", "AH 3H 9C KC 7S 8S", "JH 4H TC 5C 9S 2S")
THREE_PLAYS = plays("1AH 2JH 02H 13H 24H 0KH 06D 17S 22S 07C 1KC 25C 19C 2TC 08C 29S 0TD 18S")
THREE_HAND = [THREE_DEAL, bid(1, 2), pas(2), pas(0), *THREE_PLAYS]


def sweep(dealer: int, bidder: int, amount: int) -> list[Ev]:
    """A 2-player hand in which `bidder` bids `amount` and takes High, Low, Jack and Game: 4 points."""
    other = 1 - bidder
    hands = ["", ""]
    strong, weak = "AH KH QH JH TH 2H", "3C 4C 5C 6C 7C 8C"
    hands[bidder], hands[other] = strong, weak
    speak = [bid(bidder, amount)] if other == dealer else [pas(other), bid(bidder, amount)]
    if other == dealer and amount < 4:
        speak.append(pas(other))
    cards = zip(strong.split(), weak.split(), strict=True)
    return [deal(dealer, *hands), *speak, *(p for b, o in cards for p in (play(bidder, b), play(other, o)))]


def steal(dealer: int, bidder: int, amount: int) -> list[Ev]:
    """A 2-player hand whose bidder leads 3C and the other seat takes all 4 points: the bid fails."""
    other = 1 - bidder
    hands = ["", ""]
    hands[bidder], hands[other] = "3C 4C 5C 6C 7C 8C", "AC KC QC JC TC 2C"
    speak = [bid(bidder, amount)] if other == dealer else [pas(other), bid(bidder, amount)]
    if other == dealer and amount < 4:
        speak.append(pas(other))
    b, o = bidder, other
    order = [(b, "3C"), (o, "AC"), (o, "KC"), (b, "4C"), (o, "QC"), (b, "5C")]
    order += [(o, "JC"), (b, "6C"), (o, "TC"), (b, "7C"), (o, "2C"), (b, "8C")]
    return [deal(dealer, *hands), *speak, *(play(s, c) for s, c in order)]


# --------------------------------------------------------------------------- options, shapes


def test_options_defaults_counts_and_ranges() -> None:
    assert RULES.options_for(TWO, {}) == {
        "first_dealer": 0,
        "high_point": "highest_trump",
        "dealer_bids_after_passes": True,
        "enforcement": "strict",
        "dealing": "table",
    }
    assert RULES.options_for(THREE, {"first_dealer": 2})["first_dealer"] == 2
    with pytest.raises(UnknownGameError, match="unknown option 'target'"):
        RULES.options_for(TWO, {"target": 21})
    with pytest.raises(UnknownGameError, match="first_dealer"):
        RULES.options_for(TWO, {"first_dealer": 2})
    with pytest.raises(UnknownGameError, match="enforcement"):
        RULES.options_for(TWO, {"enforcement": "lenient"})
    for players in (["a"], ["a", "b", "c", "d"]):
        with pytest.raises(UnknownGameError, match="2 or 3 players"):
            RULES.options_for(players, {})


def test_first_dealer_option_names_the_first_dealer() -> None:
    pos = given(K, [], THREE, {"first_dealer": 2})
    expect_impossible(
        K, pos, deal(0, "2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D", "2H 3H 4H 5H 6H 7H"), said(f"{phrases.seat(2)} deals")
    )
    pos = then(K, pos, deal(2, "2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D", "2H 3H 4H 5H 6H 7H"))
    assert RULES.view(pos.game, OMNISCIENT)["to_act"] == [0]


@pytest.mark.parametrize(
    ("event", "why"),
    [
        (deal(0, "AH KH QH JH TH", "3C 4C 5C 6C 7C 8C"), r"hands\[0\]: expected 6 items"),
        (deal(0, "AH KH QH JH TH 2H"), "hands: expected 2 items"),
        ({"type": "deal", "hands": [["AH"] * 6, ["2C"] * 6]}, "missing field 'dealer'"),
        (deal(0, "AH KH QH JH TH 1X", "3C 4C 5C 6C 7C 8C"), "'1X' is not a card code"),
        ({"type": "double", "seat": 1}, "unknown event type 'double'"),
    ],
)
def test_malformed_deals_are_invalid(event: Ev, why: str) -> None:
    expect_invalid(K, given(K, [], TWO), event, why)


@pytest.mark.parametrize(
    ("event", "why"),
    [
        ({"type": "bid", "seat": 1}, "missing field 'amount'"),
        (bid(1, "2"), "expected an integer, got a string"),
        (bid(1, True), "expected an integer, got a boolean"),
        (bid(2, 2), "seat 2 is out of range"),
        ({"type": "pass", "seat": 1, "amount": 2}, "unknown field 'amount'"),
        (play(1, "ZZ"), "'ZZ' is not a card code"),
    ],
)
def test_malformed_bids_and_plays_are_invalid(event: Ev, why: str) -> None:
    expect_invalid(K, given(K, sweep(0, 1, 2)[:1], TWO), event, why)


# --------------------------------------------------------------------------- the deal


def test_deal_gives_six_cards_each_and_the_rest_is_unseen() -> None:
    pos = given(K, [THREE_DEAL], THREE)
    assert pos.game.hand == 1 and pos.game.phase == "bid"
    assert pos.game.hands[2] == frozenset({"JH", "4H", "TC", "5C", "9S", "2S"})
    census = check_census(RULES, pos)
    assert census.unseen == 52 - 18
    assert pos.facts == {"dealer": 0, "first_to_speak": 1}


def test_impossible_deals() -> None:
    pos = given(K, [], TWO)
    expect_impossible(K, pos, deal(1, "AH KH QH JH TH 2H", "3C 4C 5C 6C 7C 8C"), said(f"{phrases.seat(0)} deals"))
    expect_impossible(
        K, pos, deal(0, "AH KH QH JH TH 2H", "3C 4C 5C 6C 7C AH"), said(f"{phrases.card('AH')} is named twice")
    )
    expect_impossible(K, pos, bid(1, 2), "no hand is in progress")
    expect_impossible(K, pos, play(1, "AH"), "no hand is in progress")
    expect_impossible(K, pos, {"type": "hand_voided", "reason": "x"}, "only while a hand is in progress")
    pos = then(K, pos, deal(0, "AH KH QH JH TH 2H", "3C 4C 5C 6C 7C 8C"))
    expect_impossible(K, pos, deal(0, "AS KS QS JS TS 2S", "3D 4D 5D 6D 7D 8D"), "a hand is in progress")


# --------------------------------------------------------------------------- bidding


def test_bidding_starts_left_of_the_dealer_and_ends_with_the_dealer() -> None:
    pos = given(K, [THREE_DEAL], THREE)
    assert RULES.view(pos.game, OMNISCIENT)["to_act"] == [1]
    expect_impossible(K, pos, bid(2, 2), said(f"{phrases.seat(1)}'s turn"))
    expect_impossible(K, pos, pas(0), said(f"{phrases.seat(1)}'s turn"))
    pos = then(K, pos, pas(1))
    pos = then(K, pos, bid(2, 2))
    assert pos.game.phase == "bid" and RULES.view(pos.game, OMNISCIENT)["to_act"] == [0]
    pos = then(K, pos, bid(0, 3))
    assert pos.game.phase == "play" and pos.game.bidder == 0 and pos.game.leader == 0
    assert pos.facts == {"high_bid": 3, "bidding_over": True, "bidder": 0}
    assert RULES.view(pos.game, OMNISCIENT)["table"]["bids"] == [
        {"seat": 1, "amount": None, "seq": 2},
        {"seat": 2, "amount": 2, "seq": 3},
        {"seat": 0, "amount": 3, "seq": 4},
    ]


def test_dealer_passing_leaves_the_high_bidder() -> None:
    pos = given(K, [THREE_DEAL, bid(1, 2), bid(2, 3), pas(0)], THREE)
    assert pos.game.phase == "play" and pos.game.bidder == 2
    expect_impossible(K, pos, play(1, "AH"), said(f"{phrases.seat(2)}'s turn to play"))
    expect_impossible(K, pos, pas(0), "bidding is over")


def test_a_bid_must_be_strictly_higher_and_from_2_to_4() -> None:
    pos = given(K, [THREE_DEAL, bid(1, 3)], THREE)
    expect_impossible(K, pos, bid(2, 3), said(f"higher than {phrases.seat(1)}'s bid of 3"))
    expect_impossible(K, pos, bid(2, 2), said(f"higher than {phrases.seat(1)}'s bid of 3"))
    pos = then(K, pos, pas(2))
    expect_impossible(
        K, pos, bid(0, 3), said(f"higher than {phrases.seat(1)}'s bid of 3")
    )  # the dealer may not take it at 3
    for amount in (0, 1, 5, -2):
        expect_impossible(K, given(K, [THREE_DEAL], THREE), bid(1, amount), "2, 3 or 4")


def test_a_bid_of_4_ends_the_bidding_and_the_rest_do_not_speak() -> None:
    pos = given(K, [THREE_DEAL, bid(1, 4)], THREE)
    assert pos.game.phase == "play" and pos.game.bidder == 1
    assert pos.facts["bidding_over"] is True
    expect_impossible(K, pos, pas(2), "bidding is over")
    expect_impossible(K, pos, bid(2, 4), "bidding is over")
    assert [e["card"] for e in RULES.legal_events(pos.game)] == ["KC", "9C", "AH", "3H", "8S", "7S"]


def test_play_during_bidding_is_impossible() -> None:
    pos = given(K, [THREE_DEAL, bid(1, 2)], THREE)
    expect_impossible(K, pos, play(1, "AH"), "bidding is not over")


def test_legal_bids_are_the_ones_above_the_high_bid_and_pass() -> None:
    pos = given(K, [THREE_DEAL], THREE)
    assert RULES.legal_events(pos.game) == [bid(1, 2), bid(1, 3), bid(1, 4), pas(1)]
    pos = then(K, pos, bid(1, 3))
    assert RULES.legal_events(pos.game) == [bid(2, 4), pas(2)]


# --------------------------------------------------------------------------- throw-in, voided hands


@pytest.mark.parametrize("players", [TWO, THREE])
def test_all_pass_throws_the_hand_in_and_the_same_dealer_deals_again(players: list[str]) -> None:
    n = len(players)
    hands = ["2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D", "2H 3H 4H 5H 6H 7H"][:n]
    events = [deal(1, *hands), *(pas((1 + i) % n) for i in range(1, n + 1))]
    pos = given(K, events, players, {"first_dealer": 1})
    assert pos.game.phase == "deal" and pos.game.hand == 1
    assert pos.facts["thrown_in"] is True and pos.facts["hand_ended"] is True
    assert pos.facts["points"] == seat_dict((0,) * n)
    sheet = RULES.score(pos.game)
    assert [h.points for h in sheet.hands] == [(0,) * n]
    assert lines(pos, 1) == [(1, 0, "smear.throw_in", tuple(range(2, n + 2)))]
    assert sheet.totals == (0,) * n and not sheet.finished
    assert RULES.situations(events[-1], pos.facts) == ["throw_in"]
    other = (1 + 1) % n
    expect_impossible(K, pos, deal(other, *hands), said(f"{phrases.seat(1)} deals"))
    pos = then(K, pos, deal(1, *hands))
    assert pos.game.hand == 2 and pos.game.phase == "bid"


def test_a_voided_hand_scores_zero_and_the_same_dealer_deals_again() -> None:
    for cut in (2, 8):  # during the bidding, during the play (with KC on the table)
        pos = given(K, [*TRUMP_ANYWAY[:cut], {"type": "hand_voided", "reason": "misdeal"}], TWO)
        assert pos.game.phase == "deal" and pos.facts["voided"] is True
        check_census(RULES, pos)
        assert RULES.score(pos.game).hands[0].points == (0, 0) and RULES.score(pos.game).hands[0].lines == ()
        expect_impossible(K, pos, deal(1, "AH KH QH JH TH 2H", "3C 4C 5C 6C 7C 8C"), said(f"{phrases.seat(0)} deals"))
        pos = then(K, pos, deal(0, "AH KH QH JH TH 2H", "3C 4C 5C 6C 7C 8C"))
        assert pos.game.hand == 2


def test_the_deal_passes_left_after_a_scored_hand() -> None:
    pos = given(K, THREE_HAND, THREE)
    assert pos.game.phase == "deal"
    expect_impossible(
        K, pos, deal(0, "2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D", "2H 3H 4H 5H 6H 7H"), said(phrases.seat(1))
    )
    pos = then(K, pos, deal(1, "2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D", "2H 3H 4H 5H 6H 7H"))
    assert RULES.view(pos.game, OMNISCIENT)["to_act"] == [2]


# --------------------------------------------------------------------------- play


def test_the_bidders_first_lead_sets_trump() -> None:
    pos = given(K, [THREE_DEAL, bid(1, 2), pas(2), pas(0)], THREE)
    assert pos.game.trump is None
    expect_impossible(K, pos, play(0, "2H"), said(f"{phrases.seat(1)}'s turn to play"))
    pos = then(K, pos, play(1, "9C"))
    assert pos.game.trump == "C" and pos.facts == {"trump": "C"}


def test_following_suit_or_trumping_and_any_card_when_void() -> None:
    pos = given(K, [TRUMP_ANYWAY_DEAL, bid(1, 2), pas(0), *TRUMP_ANYWAY_PLAYS[:3]], TWO)
    # KC led; seat 0 holds 9C 8C and the trump 4H: clubs or the trump, not 5D or 7S
    assert RULES.legal_events(pos.game) == [play(0, "9C"), play(0, "8C"), play(0, "4H")]
    expect_illegal(K, pos, play(0, "5D"), "smear.follow_suit")
    expect_illegal(K, pos, play(0, "7S"), "smear.follow_suit")
    trumped = then(K, pos, play(0, "4H"))
    assert trumped.facts["trick_winner"] == 0 and trumped.game.leader == 0
    # trick 4: 2H led and seat 0 holds no trump: any card
    pos = given(K, [TRUMP_ANYWAY_DEAL, bid(1, 2), pas(0), *TRUMP_ANYWAY_PLAYS[:7]], TWO)
    assert {e["card"] for e in RULES.legal_events(pos.game)} == {"8C", "5D", "7S"}


def test_when_trump_is_led_a_player_holding_trump_must_play_trump() -> None:
    pos = given(K, [*THREE_HAND[:4], *THREE_PLAYS[:1]], THREE)
    assert RULES.legal_events(pos.game) == [play(2, "JH"), play(2, "4H")]
    err = expect_illegal(K, pos, play(2, "TC"), "smear.follow_suit")
    assert "Liam holds trump (hearts) and must play trump to A♥, not 10♣" in read(err.reason)
    # later, clubs led: seat 1 holds KC and 9C and no trump, so 8S is illegal
    pos = given(K, [*THREE_HAND[:4], *THREE_PLAYS[:10]], THREE)
    err = expect_illegal(K, pos, play(1, "8S"), "smear.follow_suit")
    assert "Ava holds clubs and must follow 7♣" in read(err.reason)


def test_an_illegal_play_is_folded_as_played_under_record() -> None:
    events = [TRUMP_ANYWAY_DEAL, bid(1, 2), pas(0), *TRUMP_ANYWAY_PLAYS[:3]]
    pos = given(K, events, TWO, {"enforcement": "record"})
    decision = decide(K, pos, play(0, "5D"))
    assert decision.violation is not None and decision.violation["rule"] == "smear.follow_suit"
    pos = engine.apply(RULES, pos, decision.event, pos.seq + 1)
    assert pos.facts["trick_winner"] == 1  # 5D neither follows KC nor trumps
    assert "5D" not in pos.game.hands[0] and pos.game.leader == 1
    check_census(RULES, pos)


def test_impossible_plays() -> None:
    pos = given(K, [TRUMP_ANYWAY_DEAL, bid(1, 2), pas(0), *TRUMP_ANYWAY_PLAYS[:2]], TWO)
    expect_impossible(K, pos, play(0, "9C"), said(f"{phrases.seat(1)}'s turn to play, not {phrases.seat(0)}'s"))
    expect_impossible(K, pos, play(1, "AH"), said(f"already been played in this hand, by {phrases.seat(1)} at event 4"))
    expect_impossible(K, pos, play(1, "8C"), said(f"{phrases.seat(1)} does not hold {phrases.card('8C')}"))
    expect_impossible(K, pos, play(1, "AS"), said(f"{phrases.seat(1)} does not hold {phrases.card('AS')}"))
    expect_impossible(K, pos, bid(1, 3), "bidding is over")


def test_trick_winners() -> None:
    pos = given(K, THREE_HAND, THREE)
    assert [(t.number, t.winner) for t in pos.game.tricks] == [(1, 1), (2, 0), (3, 0), (4, 1), (5, 2), (6, 2)]
    # trick 3: 6D led, both others void and without trump: the led suit wins, 7S does not
    assert pos.game.tricks[2].cards == ("6D", "7S", "2S")


# --------------------------------------------------------------------------- points of a hand


def test_made_bid_scores_everything_won() -> None:
    pos = given(K, TRUMP_ANYWAY, TWO)
    assert points(pos, 1) == (0, 3)
    assert lines(pos, 1) == [
        (1, 1, "smear.high", (4,)),
        (1, 1, "smear.low", (10,)),
        (1, 1, "smear.game", (4, 9)),
        (1, 0, "smear.bid_made", (2,)),
    ]
    scored = RULES.score(pos.game).hands[0].lines
    reasons = [read(ln.reason) for ln in scored]
    assert reasons[0] == "High: Ava played A♥ at event 4, the highest trump (hearts) played"
    assert reasons[2] == "Game: Ava won the most game value in tricks, 6 (Ruby: 3, Ava: 6)"
    assert scored[0].reason.startswith(f"High: {phrases.seat(1)} played {phrases.card('AH')}")
    assert "won 3 points (High, Low, Game): the bid is made" in reasons[3]
    assert pos.facts["made"] is True and pos.facts["jack"] is None
    assert RULES.situations(TRUMP_ANYWAY[-1], pos.facts) == ["made_bid"]


def test_failed_bid_scores_exactly_minus_the_bid() -> None:
    events = [TRUMP_ANYWAY_DEAL, bid(1, 4), *TRUMP_ANYWAY_PLAYS]
    pos = given(K, events, TWO)
    assert points(pos, 1) == (0, -4)
    assert RULES.score(pos.game).totals == (0, -4)
    assert lines(pos, 1) == [
        (1, 0, "smear.high", (3,)),
        (1, 0, "smear.low", (9,)),
        (1, 0, "smear.game", (3, 8)),
        (1, -4, "smear.bid_failed", (2,)),
    ]
    assert all("not counted" in ln.reason for ln in RULES.score(pos.game).hands[0].lines[:3])
    assert RULES.situations(events[-1], pos.facts) == ["failed_bid"]
    assert RULES.situations(events[1], {}) == ["bid_4"]


def test_others_score_what_they_won_when_the_bid_fails() -> None:
    # steal: the bidder leads 3C; seat 0 takes AC (High), 2C (Low), JC (Jack) and all the game
    pos = given(K, steal(0, 1, 2), TWO)
    assert points(pos, 1) == (4, -2)
    assert [ln[2] for ln in lines(pos, 1)] == [
        "smear.high",
        "smear.low",
        "smear.jack",
        "smear.game",
        "smear.bid_failed",
    ]


def test_three_players_high_low_jack_and_game_go_to_different_seats() -> None:
    pos = given(K, THREE_HAND, THREE)
    assert points(pos, 1) == (1, 2, 1)
    assert lines(pos, 1) == [
        (1, 1, "smear.high", (5,)),
        (0, 1, "smear.low", (7,)),
        (1, 1, "smear.jack", (6, 7)),
        (2, 1, "smear.game", (18, 21)),
        (1, 0, "smear.bid_made", (2,)),
    ]
    jack = read(RULES.score(pos.game).hands[0].lines[2].reason)
    assert jack == "Jack: Liam played J♥ at event 6; trick 1, which holds it, was won by Ava at event 7"
    assert "(Ruby: 3, Ava: 8, Liam: 20)" in read(RULES.score(pos.game).hands[0].lines[3].reason)
    assert pos.facts["game_counts"] == {"0": 3, "1": 8, "2": 20}
    assert RULES.situations(THREE_PLAYS[2], {"trick_winner": 1, "jack_won_by": 1}) == ["jack"]


def test_the_jack_trick_is_tagged_when_it_is_won() -> None:
    pos = given(K, [*THREE_HAND[:4], *THREE_PLAYS[:3]], THREE)
    assert pos.facts["jack_won_by"] == 1 and pos.facts["trick_winner"] == 1
    assert "jack" in RULES.situations(THREE_PLAYS[2], pos.facts)


def test_a_single_trump_is_both_high_and_low() -> None:
    hand = deal(0, "2C 3C 4C 5C 6C 7C", "AH 3S 4S 5S 6S 7S")
    events = [hand, bid(1, 3), pas(0), *plays("1AH 02C 13S 03C 14S 04C 15S 05C 16S 06C 17S 07C")]
    pos = given(K, events, TWO)
    assert points(pos, 1) == (0, 3)
    low = RULES.score(pos.game).hands[0].lines[1]
    assert (low.seat, low.points, low.events) == (1, 1, (4,))
    assert "the only trump played: both High and Low" in low.reason


def test_a_tie_for_game_gives_nobody_the_point() -> None:
    hand = deal(0, "KD KC 9D 7S 8S TS", "AH 2H 3S 4S 5S 6S")
    events = [hand, bid(1, 2), pas(0), *plays("1AH 0KD 12H 0KC 13S 0TS 08S 14S 07S 15S 09D 16S")]
    pos = given(K, events, TWO)
    assert points(pos, 1) == (0, 2)
    assert pos.facts["game"] is None and pos.facts["game_counts"] == {"0": 10, "1": 10}
    ties = [ln for ln in RULES.score(pos.game).hands[0].lines if ln.rule == "smear.game"]
    assert [(ln.seat, ln.points) for ln in ties] == [(0, 0), (1, 0)]
    assert "Ruby and Ava tie with 10 game value" in read(ties[0].reason)
    assert "game_tied" in RULES.situations(events[-1], pos.facts)


def test_nobody_winning_game_value_is_a_tie() -> None:
    hand = deal(0, "2C 3C 4C 5C 6C 7C", "9H 8H 3S 4S 5S 6S")
    events = [hand, bid(1, 2), pas(0), *plays("19H 02C 18H 03C 13S 04C 14S 05C 15S 06C 16S 07C")]
    pos = given(K, events, TWO)
    assert points(pos, 1) == (0, 2)
    games = [ln for ln in RULES.score(pos.game).hands[0].lines if ln.rule == "smear.game"]
    assert all(ln.points == 0 and "nobody won any game value" in ln.reason for ln in games)


# --------------------------------------------------------------------------- end of the game


def test_a_made_bid_reaching_11_wins() -> None:
    pos = given(K, [*sweep(0, 1, 2), *sweep(1, 1, 2)], TWO)
    assert RULES.score(pos.game).totals == (0, 8) and not RULES.is_terminal(pos.game)
    pos = given(K, [*sweep(0, 1, 2), *sweep(1, 1, 2), *sweep(0, 1, 2)], TWO)
    sheet = RULES.score(pos.game)
    assert sheet.totals == (0, 12) and sheet.finished and sheet.winner == 1
    assert pos.facts["game_ended"] is True and pos.facts["winner"] == 1
    assert "the new total is 12, 11 or more: Ava wins the game" in read(sheet.hands[-1].lines[-1].reason)
    expect_impossible(K, pos, deal(1, "AH KH QH JH TH 2H", "3C 4C 5C 6C 7C 8C"), "the game has ended")
    then(K, pos, {"type": "note", "text": "well played"})


def test_passing_11_without_bidding_does_not_end_the_game_and_a_made_4_wins_whatever_the_totals() -> None:
    events = [*sweep(0, 1, 2), *sweep(1, 1, 2), *steal(0, 1, 2), *steal(1, 1, 2), *steal(0, 1, 2)]
    pos = given(K, events, TWO)
    assert RULES.score(pos.game).totals == (12, 2) and not RULES.is_terminal(pos.game)
    pos = given(K, [*events, *sweep(1, 1, 4)], TWO)
    sheet = RULES.score(pos.game)
    assert sheet.totals == (12, 6) and sheet.finished and sheet.winner == 1
    assert "a made bid of 4 with a total of 2 before the hand" in sheet.hands[-1].lines[-1].reason


def test_a_made_4_from_a_total_of_0_or_less_does_not_win() -> None:
    pos = given(K, sweep(0, 1, 4), TWO)
    assert RULES.score(pos.game).totals == (0, 4) and not RULES.is_terminal(pos.game)
    pos = given(K, [*steal(0, 1, 2), *sweep(1, 1, 4)], TWO)
    assert RULES.score(pos.game).totals == (4, 2) and not RULES.is_terminal(pos.game)
    assert [h.points for h in RULES.score(pos.game).hands] == [(4, -2), (0, 4)]
    pos = given(K, [*sweep(0, 1, 4), *sweep(1, 1, 4)], TWO)
    assert RULES.score(pos.game).winner == 1 and RULES.score(pos.game).totals == (0, 8)


def test_totals_may_be_negative() -> None:
    pos = given(K, [*steal(0, 1, 3), *steal(1, 1, 4)], TWO)
    assert RULES.score(pos.game).totals == (8, -7)


# --------------------------------------------------------------------------- views, redaction, census


def test_views_hide_other_hands_and_show_the_table() -> None:
    pos = given(K, [*THREE_HAND[:4], *THREE_PLAYS[:4]], THREE)
    seat2 = RULES.view(pos.game, 2)
    assert seat2["phase"] == "play" and seat2["to_act"] == [2]
    assert seat2["seats"][2]["cards"] == ["TC", "5C", "4H", "9S", "2S"]
    assert seat2["seats"][0] == {
        "seat": 0,
        "card_count": 5,
        "won": [],
        "tricks": 0,
        "game": 0,
        "bid": "pass",
        "dealer": True,
    }
    assert seat2["seats"][1]["won"] == ["AH", "JH", "2H"] and seat2["seats"][1]["game"] == 5
    table = seat2["table"]
    assert table["trump"] == "H" and table["bidder"] == 1 and table["high_bid"] == 2
    assert table["trick"] == [{"seat": 1, "card": "3H"}]
    assert table["last_trick"] == {
        "number": 1,
        "winner": 1,
        "cards": [{"seat": 1, "card": "AH"}, {"seat": 2, "card": "JH"}, {"seat": 0, "card": "2H"}],
        "seq": 7,
    }
    # as the cards stand: AH (High) and the jack's trick to seat 1, 2H (Low) to seat 0, Game to seat 1
    assert seat2["hand_points"] == {"0": 1, "1": 3, "2": 0}
    public = RULES.view(pos.game, SPECTATOR)
    assert all("cards" not in s for s in public["seats"])
    assert all("cards" in s for s in RULES.view(pos.game, OMNISCIENT)["seats"])


def test_hand_points_after_the_hand_are_what_it_scored() -> None:
    pos = given(K, THREE_HAND, THREE)
    assert RULES.view(pos.game, SPECTATOR)["hand_points"] == {"0": 1, "1": 2, "2": 1}
    assert RULES.view(pos.game, SPECTATOR)["phase"] == "deal"


def test_redacted_deal_shows_only_the_viewers_cards() -> None:
    seen = RULES.redact_event(THREE_DEAL, 1)
    assert seen["hands"] == [["??"] * 6, ["AH", "3H", "9C", "KC", "7S", "8S"], ["??"] * 6]
    assert RULES.redact_event(THREE_DEAL, SPECTATOR)["hands"] == [["??"] * 6] * 3
    assert RULES.redact_event(THREE_DEAL, OMNISCIENT) == THREE_DEAL
    assert RULES.redact_event(play(1, "AH"), 0) == play(1, "AH")


def test_census_during_and_after_a_hand() -> None:
    pos = given(K, [*THREE_HAND[:4], *THREE_PLAYS[:4]], THREE)
    census = check_census(RULES, pos)
    assert census.places["trick"] == ("3H",) and census.places["won 1"] == ("AH", "JH", "2H")
    assert census.private[0] == frozenset({"KH", "7C", "8C", "6D", "TD"})
    check_census(RULES, given(K, THREE_HAND, THREE))


def test_chance_events_deal_six_unseen_cards_each_by_the_due_dealer() -> None:
    import random

    pos = given(K, THREE_HAND, THREE)
    (event,) = RULES.chance_events(pos.game, random.Random(7))
    assert event["dealer"] == 1 and [len(h) for h in event["hands"]] == [6, 6, 6]
    assert len({c for h in event["hands"] for c in h}) == 18
    assert RULES.chance_events(then(K, pos, event).game, random.Random(7)) == []


# --------------------------------------------------------------------------- golden records


@pytest.mark.parametrize("name", examples_of(K))
def test_golden_record(name: str) -> None:
    example = load_example(name)
    pos = given(K, example["events"], example["players"], example["options"])
    assert expected_of(RULES.score(pos.game).to_dict()) == example["expected"]


def test_there_are_golden_records() -> None:
    assert examples_of(K) == ["cutthroat-smear-9001.json", "cutthroat-smear-9002.json"]


def test_record_enforcement_is_echoed() -> None:
    pos = given(K, [], TWO, {"enforcement": "record"})
    assert pos.game.options["enforcement"] == "record"


# --------------------------------------------------------------------------- what a person reads

SCORING_RULES = {"smear.high", "smear.low", "smear.jack", "smear.game", "smear.bid_made", "smear.bid_failed"}


def test_every_score_reason_reads_with_the_players_names() -> None:
    """Bot games until every rule has scored (and a Game tie and a throw-in came up): each reason, rendered,
    names its seat's player and holds neither a bare `seat N` nor a marker."""
    seen: set[str] = set()
    texts: list[str] = []
    for seed in range(40):
        playout = play_out(RULES, NAMES[: 2 + seed % 2], {}, rng=random.Random(seed), max_events=600, keep_states=True)
        for line in RULES.score(playout.states[-1].game).lines:
            text = read(line.reason)
            assert NAMES[line.seat] in text, text
            assert not re.search(r"seat \d", text) and not phrases.has_marker(text), text
            seen.add(line.rule)
            texts.append(text)
        if seen >= SCORING_RULES | {"smear.throw_in"} and any(" tie " in t for t in texts):
            break
    assert seen == SCORING_RULES | {"smear.throw_in"}
    assert any(" tie with " in t for t in texts)


def test_the_hands_end_facts_name_who_took_each_point() -> None:
    """`high`, `low`, `jack` and `game` are seats (`RULES.units`): a reader of the facts sees the names."""
    facts = {"hand_ended": True, "high": 1, "low": 0, "jack": 2, "game": 1, "bidder": 1, "jack_won_by": 2}
    text = notation.describe(RULES, play(1, "JH"), facts, NAMES)
    assert "high Ava, low Ruby, jack Liam, game Ava, bidder Ava, jack won by Liam" in text
    assert not re.search(r"seat \d| [0-2](,|$)", text), text
