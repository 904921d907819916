"""Schnapsen, rule by rule (`rules/schnapsen.md`): given events => event => state or error."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given as hgiven
from hypothesis import settings
from hypothesis import strategies as st

from events.errors import OutOfTurnError, UnknownGameError
from projections import engine
from projections.registry import rules_for
from projections.schnapsen import SchnapsenState
from projections.simulate import play
from tests.projections.helpers import (
    examples_of,
    expect_illegal,
    expect_impossible,
    expect_invalid,
    expected_of,
    given,
    load_example,
    then,
)

KIND = "schnapsen"
RULES = rules_for(KIND)

# Anna (seat 0) and Ben (seat 1); Ben deals, so Anna leads. Trump hearts (JH face up).
ANNA = ["KH", "QH", "TD", "AC", "JS"]
BEN = ["TS", "AD", "KC", "QS", "JD"]
TALON = ["KD", "QD", "TC", "QC", "JC", "AS", "KS", "AH", "TH"]  # top first; JH lies at the bottom


def deal(dealer: int = 1, hands: tuple[list[str], list[str]] = (ANNA, BEN), trump: str = "JH") -> dict[str, Any]:
    return {"type": "deal", "dealer": dealer, "hands": [list(hands[0]), list(hands[1])], "trump_card": trump}


class Table:
    """A hand in progress whose draws come off a known talon automatically."""

    def __init__(
        self,
        hands: tuple[list[str], list[str]] = (ANNA, BEN),
        trump: str = "JH",
        talon: list[str] | None = None,
        dealer: int = 1,
        options: dict[str, Any] | None = None,
    ) -> None:
        opts = {"first_dealer": dealer, **(options or {})}
        self.state: SchnapsenState = given(KIND, [deal(dealer, hands, trump)], options=opts)
        self.talon = list(TALON if talon is None else talon)

    def play(self, seat: int, card: str, marriage: bool = False, draw: bool = True) -> SchnapsenState:
        event: dict[str, Any] = {"type": "play", "seat": seat, "card": card}
        if marriage:
            event["marriage"] = True
        self.state = then(KIND, self.state, event)
        while draw and self.state.phase == "draw":
            self.draw()
        return self.state

    def draw(self) -> SchnapsenState:
        seat = self.state.draws_due[0]
        card = self.state.trump_card if self.state.talon == 1 else self.talon.pop(0)
        self.state = then(KIND, self.state, {"type": "draw", "seat": seat, "card": card})
        return self.state

    def do(self, event: dict[str, Any]) -> SchnapsenState:
        self.state = then(KIND, self.state, event)
        return self.state


def test_options_have_defaults_and_are_checked() -> None:
    assert RULES.options_for(["A", "B"], {}) == {"first_dealer": 0, "enforcement": "strict"}
    with pytest.raises(UnknownGameError, match="unknown option 'target'"):
        RULES.options_for(["A", "B"], {"target": 5})
    with pytest.raises(UnknownGameError, match="first_dealer"):
        RULES.options_for(["A", "B"], {"first_dealer": 2})
    with pytest.raises(UnknownGameError, match="2 players"):
        RULES.options_for(["A", "B", "C"], {})


# --------------------------------------------------------------------------- the deal


def test_deal_sets_trump_talon_and_the_non_dealer_leads() -> None:
    state = given(KIND, [deal()], options={"first_dealer": 1})
    assert state.hand == 1 and state.phase == "lead" and state.leader == 0
    assert state.trump_suit == "H" and state.trump_card == "JH" and state.talon == 10
    assert state.hands[0] == frozenset(ANNA) and state.hands[1] == frozenset(BEN)


def test_deal_must_name_the_dealer_due() -> None:
    start = given(KIND, [], options={"first_dealer": 1})
    expect_impossible(KIND, start, deal(dealer=0), match="seat 1 deals")


def test_deal_refuses_cards_outside_the_deck_and_duplicates() -> None:
    start = given(KIND, [], options={"first_dealer": 1})
    expect_impossible(KIND, start, deal(hands=(["9H", *ANNA[1:]], BEN)), match="9H is not in the Schnapsen deck")
    expect_impossible(KIND, start, deal(hands=(ANNA, ["KH", *BEN[1:]])), match="KH twice")
    expect_invalid(KIND, start, deal(hands=(ANNA[:4], BEN)), match="expected 5 items")
    expect_invalid(KIND, start, {**deal(), "extra": 1}, match="unknown field 'extra'")
    expect_invalid(KIND, start, deal(dealer=2), match="out of range")


def test_dealer_alternates_every_hand_even_after_a_void() -> None:
    table = Table()
    table.do({"type": "hand_voided", "reason": "misdeal"})
    assert table.state.next_dealer == 0
    expect_impossible(KIND, table.state, deal(dealer=1), match="seat 0 deals")
    table.do(deal(dealer=0))
    assert table.state.hand == 2 and table.state.leader == 1


# --------------------------------------------------------------------------- tricks and draws


def test_out_of_turn_and_cards_not_held_are_impossible() -> None:
    table = Table()
    with pytest.raises(OutOfTurnError):
        RULES.validate(table.state, {"type": "play", "seat": 1, "card": "TS"})
    expect_impossible(KIND, table.state, {"type": "play", "seat": 0, "card": "AS"}, match="does not hold AS")


def test_trick_goes_to_higher_card_of_suit_led_or_to_a_trump() -> None:
    table = Table()
    table.play(0, "TD", draw=False)
    state = table.play(1, "AD", draw=False)
    assert state.facts == {"trick_winner": 1, "trick_points": 21}
    assert state.trick_points == (0, 21)

    table = Table()
    table.play(0, "AC", draw=False)
    state = table.play(1, "KC", draw=False)  # lower club
    assert state.facts["trick_winner"] == 0

    table = Table()
    table.play(0, "AC", draw=False)
    assert table.play(1, "TS", draw=False).facts["trick_winner"] == 0  # off-suit never wins

    table = Table(
        hands=(ANNA, ["TS", "AD", "KC", "QS", "AH"]), talon=["KD", "QD", "TC", "QC", "JC", "AS", "KS", "JD", "TH"]
    )
    table.play(0, "AC", draw=False)
    assert table.play(1, "AH", draw=False).facts["trick_winner"] == 1  # a trump takes it


def test_winner_draws_first_then_loser_and_nothing_else_meanwhile() -> None:
    table = Table()
    table.play(0, "TD", draw=False)
    table.play(1, "AD", draw=False)
    state = table.state
    assert state.phase == "draw" and state.draws_due == (1, 0)
    with pytest.raises(OutOfTurnError, match="seat 1 draws next"):
        RULES.validate(state, {"type": "draw", "seat": 0, "card": "KD"})
    with pytest.raises(OutOfTurnError, match="must draw first"):
        RULES.validate(state, {"type": "play", "seat": 1, "card": "TS"})
    with pytest.raises(OutOfTurnError):
        RULES.validate(state, {"type": "close", "seat": 1})
    expect_impossible(KIND, state, {"type": "draw", "seat": 1, "card": "TS"}, match="already been seen")
    expect_impossible(KIND, state, {"type": "draw", "seat": 1, "card": "JH"}, match="drawn last")
    state = table.draw()
    assert state.hands[1] >= {"KD"} and state.draws_due == (0,)
    state = table.draw()
    assert state.phase == "lead" and state.leader == 1 and state.talon == 8


def _play_lowest_tricks(table: Table, until_talon: int) -> None:
    while table.state.talon > until_talon:
        leader = table.state.leader
        table.play(leader, sorted(table.state.hands[leader])[0])
        table.play(1 - leader, sorted(table.state.hands[1 - leader])[0])


def test_the_talons_last_card_is_the_trump_card() -> None:
    table = Table()
    _play_lowest_tricks(table, until_talon=2)
    leader = table.state.leader
    table.play(leader, sorted(table.state.hands[leader])[0], draw=False)
    table.play(1 - leader, sorted(table.state.hands[1 - leader])[0], draw=False)
    winner, loser = table.state.draws_due
    table.do({"type": "draw", "seat": winner, "card": table.talon[0]})
    expect_impossible(
        KIND, table.state, {"type": "draw", "seat": loser, "card": "AS"}, match="last card is the trump card JH"
    )
    state = table.do({"type": "draw", "seat": loser, "card": "JH"})
    assert "JH" in state.hands[loser] and state.talon == 0 and state.trump_card is None and state.strict


# --------------------------------------------------------------------------- exchange and close


def test_exchange_trump_by_the_leader_holding_the_unter() -> None:
    hands = (["KH", "QH", "TD", "AC", "JH"], BEN)
    table = Table(hands=hands, trump="AH", talon=["KD", "QD", "TC", "QC", "JC", "AS", "KS", "JS", "TH"])
    with pytest.raises(OutOfTurnError):
        RULES.validate(table.state, {"type": "exchange_trump", "seat": 1})
    state = table.do({"type": "exchange_trump", "seat": 0})
    assert "AH" in state.hands[0] and "JH" not in state.hands[0] and state.trump_card == "JH"
    assert state.facts == {"took": "AH", "gave": "JH"}
    expect_impossible(KIND, state, {"type": "exchange_trump", "seat": 0}, match="Unter JH itself")


def test_exchange_needs_the_unter_and_an_open_talon_of_two() -> None:
    table = Table(trump="AH", talon=["KD", "QD", "TC", "QC", "JC", "AS", "KS", "JH", "TH"])
    expect_impossible(
        KIND, table.state, {"type": "exchange_trump", "seat": 0}, match="does not hold the trump Unter JH"
    )
    table.do({"type": "close", "seat": 0})
    expect_impossible(KIND, table.state, {"type": "close", "seat": 0}, match="closed by seat 0")


def test_exchange_then_close_on_the_first_lead_is_allowed() -> None:
    hands = (["KH", "QH", "TD", "AC", "JH"], BEN)
    table = Table(hands=hands, trump="AH", talon=["KD", "QD", "TC", "QC", "JC", "AS", "KS", "JS", "TH"])
    table.do({"type": "exchange_trump", "seat": 0})
    state = table.do({"type": "close", "seat": 0})
    assert state.closed_by == 0 and state.close_seq == 3
    assert state.facts == {"opponent_hand_points": 0, "opponent_tricks": 0}


def test_after_a_close_no_draws_and_the_strict_rules_apply() -> None:
    table = Table()
    table.do({"type": "close", "seat": 0})
    table.play(0, "TD")
    # Ben holds AD (higher) and JD (lower): he must follow and head the trick
    expect_illegal(KIND, table.state, {"type": "play", "seat": 1, "card": "TS"}, "schnapsen.follow_suit")
    expect_illegal(KIND, table.state, {"type": "play", "seat": 1, "card": "JD"}, "schnapsen.head_trick")
    assert RULES.legal_events(table.state) == [{"type": "play", "seat": 1, "card": "AD"}]
    state = table.play(1, "AD")
    assert state.phase == "lead" and state.talon == 10 and not state.draws_due


def test_follower_may_play_any_card_while_the_talon_is_open() -> None:
    table = Table()
    table.play(0, "TD", draw=False)
    assert len(RULES.legal_events(table.state)) == 5
    state = table.play(1, "TS", draw=False)
    assert state.facts["trick_winner"] == 0


def test_follow_suit_lower_when_unable_to_head() -> None:
    hands = (["QS", "AC", "TD", "KH", "QH"], ["KS", "JS", "AD", "KC", "JD"])
    table = Table(hands=hands, talon=["TS", "AS", "KD", "QD", "TC", "QC", "JC", "AH", "TH"])
    table.do({"type": "close", "seat": 0})
    table.play(0, "QS")
    expect_illegal(KIND, table.state, {"type": "play", "seat": 1, "card": "JS"}, "schnapsen.head_trick")
    table.play(1, "KS")  # Ben heads and leads
    table.play(1, "JD")
    # Anna holds TD only in diamonds: higher, so she must head with it
    assert RULES.legal_events(table.state) == [{"type": "play", "seat": 0, "card": "TD"}]


def test_trump_when_void_of_the_led_suit() -> None:
    hands = (["KH", "QH", "TD", "AC", "JC"], ["TS", "AD", "KD", "QS", "JS"])
    talon = ["KC", "QD", "TC", "QC", "JD", "AS", "KS", "AH", "TH"]
    table = Table(hands=hands, talon=talon)
    table.do({"type": "close", "seat": 0})
    table.play(0, "AC")  # Ben has no club, holds no heart either: any card
    state = table.play(1, "JS")
    assert state.facts["trick_winner"] == 0
    table.play(0, "TD")
    table.play(1, "AD")  # Ben wins, leads spades
    table.play(1, "TS")
    # Anna holds no spade but holds trumps KH QH: must trump
    expect_illegal(KIND, table.state, {"type": "play", "seat": 0, "card": "JC"}, "schnapsen.trump_when_void")
    assert table.play(0, "QH").facts["trick_winner"] == 0


def test_record_enforcement_stores_the_revoke_and_plays_on() -> None:
    table = Table(options={"enforcement": "record"})
    table.do({"type": "close", "seat": 0})
    table.play(0, "TD")
    decision = engine.decide(RULES, table.state, {"type": "play", "seat": 1, "card": "TS"})
    assert decision.violation == {"rule": "schnapsen.follow_suit", "message": decision.violation["message"]}
    state = engine.apply(RULES, table.state, decision.event, table.state.seq + 1)
    assert state.facts["trick_winner"] == 0 and "TS" in state.won[0]


def test_the_fifth_trick_is_free_and_strict_rules_start_after_it() -> None:
    table = Table()
    _play_lowest_tricks(table, until_talon=2)
    assert not table.state.strict  # the fifth trick is still played without obligations
    leader = table.state.leader
    table.play(leader, sorted(table.state.hands[leader])[0], draw=False)
    follower = 1 - leader
    assert len(RULES.legal_events(table.state)) == len(table.state.hands[follower]) == 5
    table.play(follower, sorted(table.state.hands[follower])[0])
    assert table.state.talon == 0 and table.state.strict


# --------------------------------------------------------------------------- marriages


def test_marriage_is_pending_until_a_trick_is_won() -> None:
    table = Table()
    state = table.play(0, "KH", marriage=True, draw=False)
    assert state.facts == {"marriage": {"suit": "H", "points": 40, "credited": False}}
    assert state.pending(0) == 40 and state.hand_points(0) == 0
    state = table.play(1, "TS")  # Anna's KH wins: 4 + 10, plus the 40
    assert state.hand_points(0) == 54 and state.pending(0) == 0


def test_marriage_in_a_plain_suit_is_20_and_credited_at_once_after_a_trick() -> None:
    hands = (["KS", "QS", "TD", "AC", "JC"], ["TS", "AD", "KC", "QD", "JD"])
    talon = ["KD", "TC", "QC", "AS", "JS", "AH", "TH", "KH", "QH"]
    table = Table(hands=hands, talon=talon)
    table.play(0, "AC")
    table.play(1, "KC")  # Anna wins 15
    state = table.play(0, "QS", marriage=True, draw=False)
    assert state.facts["marriage"] == {"suit": "S", "points": 20, "credited": True}
    assert state.hand_points(0) == 35


def test_marriage_needs_its_partner_the_lead_and_a_first_declaration() -> None:
    table = Table()
    expect_impossible(KIND, table.state, {"type": "play", "seat": 0, "card": "TD", "marriage": True}, match="K or Q")
    hands = (["KH", "QS", "TD", "AC", "JS"], ["TS", "AD", "KC", "QC", "JD"])
    other = Table(hands=hands, talon=["KD", "QD", "TC", "QH", "JC", "AS", "KS", "AH", "TH"])
    expect_impossible(
        KIND, other.state, {"type": "play", "seat": 0, "card": "KH", "marriage": True}, match="does not hold QH"
    )
    table.play(0, "TD", draw=False)
    expect_impossible(
        KIND, table.state, {"type": "play", "seat": 1, "card": "KC", "marriage": True}, match="player on lead"
    )


def test_each_suits_marriage_once_per_player() -> None:
    hands = (["KH", "QH", "TD", "AC", "JS"], BEN)
    table = Table(hands=hands)
    table.play(0, "KH", marriage=True)
    table.play(1, "TS")
    expect_impossible(
        KIND, table.state, {"type": "play", "seat": 0, "card": "QH", "marriage": True}, match="does not hold KH"
    )
    assert {"type": "play", "seat": 0, "card": "QH", "marriage": True} not in RULES.legal_events(table.state)


def test_marriage_false_is_the_same_as_no_marriage() -> None:
    table = Table()
    state = table.do({"type": "play", "seat": 0, "card": "KH", "marriage": False})
    assert state.marriages == () and state.facts == {}


# --------------------------------------------------------------------------- 66 and scoring


def _play_to_66(loser_has: str) -> SchnapsenState:
    """Anna reaches 66 while Ben has 33+ (`33`), fewer with a trick (`trick`) or no trick (`none`)."""
    if loser_has == "none":
        hands = (["KH", "QH", "AH", "TH", "AC"], ["JS", "QS", "KS", "JD", "QD"])
        table = Table(hands=hands, talon=["TC", "KC", "QC", "JC", "AS", "TS", "AD", "TD", "KD"])
        table.play(0, "AH")
        table.play(1, "JS")  # Anna 13
        table.play(0, "KH", marriage=True)  # credited at once: 53
        table.play(1, "QS")  # 60
        table.play(0, "TH")
        return table.play(1, "KS")  # 74
    if loser_has == "trick":
        table = Table()
        table.play(0, "KH", marriage=True)
        table.play(1, "TS")
        table.play(0, "TD")
        table.play(1, "AD")
        table.play(1, "KC")
        return table.play(0, "AC")
    hands = (["KH", "QH", "AH", "TH", "JS"], ["AS", "TS", "AD", "TD", "KS"])
    table = Table(hands=hands, talon=["KD", "QS", "QD", "JD", "TC", "QC", "JC", "KC", "AC"])
    table.play(0, "JS")
    table.play(1, "AS")  # Ben 13
    table.play(1, "TD")
    table.play(0, "QS")  # Ben 26
    table.play(1, "AD")
    table.play(0, "JD")  # Ben 39: three tricks
    table.play(1, "TS")
    table.play(0, "AH")  # Anna 21
    table.play(0, "KH", marriage=True)  # 61, credited at once
    return table.play(1, "KD")  # 69


@pytest.mark.parametrize(
    ("loser_has", "points", "why"),
    [
        ("33", 1, "seat 1 had 39 hand points and 3 tricks: 33 or more, 1 game points"),
        ("trick", 2, "seat 1 had 21 hand points and 1 trick: fewer than 33 with a trick, 2 game points"),
        ("none", 3, "seat 1 had 0 hand points and no trick: no trick, 3 game points"),
    ],
)
def test_reaching_66_scores_1_2_or_3_by_the_losers_figures(loser_has: str, points: int, why: str) -> None:
    state = _play_to_66(loser_has)
    assert state.facts["hand_ended"] and state.phase == "deal"
    hand = RULES.score(state).hands[0]
    assert hand.points == (points, 0)
    assert hand.lines[0].rule == "schnapsen.reached_66" and why in hand.lines[0].reason


def test_worked_check_of_the_rule_file() -> None:
    """Anna leads KH with the heart marriage (40, pending), wins 14, then 15: 69; Ben has 21 in one trick: 2."""
    table = Table()
    table.play(0, "KH", marriage=True)
    state = table.play(1, "TS")
    assert state.hand_points(0) == 54
    table.play(0, "TD")
    table.play(1, "AD")  # Ben wins 21
    table.play(1, "KC")
    state = table.play(0, "AC")  # Anna wins 15: 69
    assert state.hand_points(0) == 69
    assert state.facts["hand_ended"] is True and state.facts["rule"] == "schnapsen.reached_66"
    sheet = RULES.score(state)
    assert sheet.totals == (5, 7) and sheet.hands[0].points == (2, 0)
    line = sheet.hands[0].lines[0]
    assert (line.seat, line.points, line.rule) == (0, 2, "schnapsen.reached_66")
    assert state.seq in line.events and 2 in line.events  # the decisive trick and the marriage
    assert state.phase == "deal" and state.next_dealer == 0


def test_a_hand_ends_at_once_at_66_and_refuses_more_play() -> None:
    state = _play_to_66("trick")
    with pytest.raises(OutOfTurnError, match="no hand is in progress"):
        RULES.validate(state, {"type": "play", "seat": 1, "card": "TS"})
    claimed = then(KIND, state, {"type": "score_claimed", "hand": 1, "points": {"0": 2, "1": 0}})
    noted = then(KIND, claimed, {"type": "note", "text": "agreed", "ref": 2})
    assert RULES.score(noted) == RULES.score(state)
    expect_impossible(KIND, state, {"type": "hand_voided", "reason": "late"}, match="only while a hand")
    expect_impossible(
        KIND, state, {"type": "score_claimed", "hand": 2, "points": {"0": 1, "1": 0}}, match="hands 1 to 1"
    )
    expect_invalid(KIND, state, {"type": "score_claimed", "hand": 1, "points": {"0": 1}}, match="missing 1")


def test_marriage_declared_with_a_trick_can_end_the_hand_leaving_the_lead_on_the_table() -> None:
    hands = (["KH", "QH", "AS", "TS", "AC"], ["JS", "QS", "KS", "JD", "TC"])
    table = Table(hands=hands, talon=["QC", "KC", "JC", "AD", "TD", "KD", "QD", "AH", "TH"])
    table.play(0, "AS")
    table.play(1, "QS")  # 14
    table.play(0, "TS")
    table.play(1, "KS")  # 28
    state = table.play(0, "KH", marriage=True)  # 28 + 40 = 68: ends at once
    assert state.facts["hand_ended"] and state.trick == ((0, "KH"),)
    assert state.hand_points(0) == 68
    line = RULES.score(state).hands[0].lines[0]
    assert line.events[-1] == state.seq and line.points == 3  # Ben has no trick


def test_pending_marriages_and_trick_points_are_added_before_the_66_check() -> None:
    hands = (["KH", "QH", "KS", "QS", "AC"], ["TC", "JS", "AD", "TD", "JD"])
    table = Table(hands=hands, talon=["KC", "QC", "JC", "AS", "TS", "KD", "QD", "AH", "TH"])
    table.play(0, "KH", marriage=True)
    table.play(1, "JS")  # Anna wins 6: 6 + 40 = 46
    state = table.play(0, "KS", marriage=True)  # credited at once: 66 -> the hand ends
    assert state.facts["hand_ended"] and state.hand_points(0) == 66


def _last_lead(closed: bool, points: tuple[int, int], opponent: tuple[int, int] = (0, 0)) -> Table:
    """Anna on lead with AC against Ben's KC, the last cards of the hand (Anna wins 15)."""
    table = Table()
    state = table.state
    table.state = replace(
        state,
        hands=(frozenset({"AC"}), frozenset({"KC"})),
        talon=4 if closed else 0,
        trump_card=state.trump_card if closed else None,
        trick_points=points,
        tricks=(3, 3),
        closed_by=0 if closed else None,
        close_seq=1 if closed else None,
        closed_opponent_points=opponent[0],
        closed_opponent_tricks=opponent[1],
    )
    return table


def test_last_trick_scores_one_when_nobody_reached_66() -> None:
    table = _last_lead(closed=False, points=(40, 50))
    table.play(0, "AC")
    line = RULES.score(table.play(1, "KC")).hands[0].lines[0]
    assert (line.seat, line.points, line.rule) == (0, 1, "schnapsen.last_trick")


def test_closer_reaching_66_scores_with_the_opponents_figures_at_the_close() -> None:
    # at the close Ben had 40 and a trick: 1 point, although he has only 10 now
    table = _last_lead(closed=True, points=(60, 10), opponent=(40, 1))
    table.play(0, "AC")
    line = RULES.score(table.play(1, "KC")).hands[0].lines[0]
    assert (line.seat, line.points, line.rule) == (0, 1, "schnapsen.closer_made")
    # at the close Ben had no trick: 3, whatever he won since
    table = _last_lead(closed=True, points=(60, 40), opponent=(0, 0))
    table.play(0, "AC")
    line = RULES.score(table.play(1, "KC")).hands[0].lines[0]
    assert (line.seat, line.points, line.rule) == (0, 3, "schnapsen.closer_made")
    assert 1 in line.events  # the close


def test_closer_who_fails_gives_two_or_three() -> None:
    # all tricks played and the closer below 66: the opponent scores 2 (a trick at the close)
    table = _last_lead(closed=True, points=(40, 50), opponent=(20, 1))
    table.play(0, "AC")
    line = RULES.score(table.play(1, "KC")).hands[0].lines[0]
    assert (line.seat, line.points, line.rule) == (1, 2, "schnapsen.closer_failed")
    # no trick at the close: 3
    table = _last_lead(closed=True, points=(40, 50), opponent=(0, 0))
    table.play(0, "AC")
    line = RULES.score(table.play(1, "KC")).hands[0].lines[0]
    assert (line.seat, line.points) == (1, 3)


def test_closer_fails_when_the_opponent_reaches_66_first() -> None:
    table = Table()
    table.state = replace(
        table.state,
        trick_points=(10, 60),
        tricks=(1, 2),
        closed_by=0,
        close_seq=1,
        closed_opponent_points=30,
        closed_opponent_tricks=1,
    )
    table.play(0, "TD")
    state = table.play(1, "AD")  # Ben 81
    line = RULES.score(state).hands[0].lines[0]
    assert (line.seat, line.points, line.rule) == (1, 2, "schnapsen.closer_failed")


def test_match_ends_at_zero_and_refuses_play_after() -> None:
    example = load_example("schnapsen-9001.json")
    state = given(KIND, example["events"], players=example["players"], options=example["options"])
    assert RULES.is_terminal(state)
    sheet = RULES.score(state)
    assert sheet.finished and sheet.winner == 0 and sheet.totals[0] <= 0
    expect_impossible(KIND, state, deal(dealer=state.next_dealer), match="game has ended")
    then(KIND, state, {"type": "note", "text": "well played"})


def test_hand_voided_scores_zero_and_counts_as_a_hand() -> None:
    table = Table()
    table.play(0, "TD")
    state = table.do({"type": "hand_voided", "reason": "a card was exposed"})
    sheet = RULES.score(state)
    assert sheet.hands[0].hand == 1 and sheet.hands[0].points == (0, 0) and sheet.totals == (7, 7)
    assert state.facts["voided"] and state.phase == "deal"


def test_retract_restores_the_state_and_cannot_be_retracted() -> None:
    from events.envelope import seal

    events = [deal(), {"type": "play", "seat": 0, "card": "TD"}, {"type": "play", "seat": 1, "card": "AD"}]
    envs = [
        seal(seq=i, hand=1, event=e, result={}, violation=None, recorded_at="t", actor="a", prev_hash="")
        for i, e in enumerate(events, 1)
    ]
    initial = RULES.initial_state(["A", "B"], RULES.options_for(["A", "B"], {"first_dealer": 1}))
    state = engine.fold(RULES, initial, envs)
    decision = engine.decide(RULES, state, {"type": "retract", "to_seq": 1, "reason": "wrong card"})
    envs.append(
        seal(seq=4, hand=1, event=decision.event, result={}, violation=None, recorded_at="t", actor="a", prev_hash="")
    )
    after = engine.fold(RULES, initial, envs)
    assert after.seq == 4 and after.phase == "lead" and after.hands[0] == frozenset(ANNA)
    assert after.trick_points == (0, 0)
    expect_impossible(KIND, after, {"type": "retract", "to_seq": 2, "reason": "x"}, match="past the retract at seq 4")
    expect_impossible(KIND, after, {"type": "retract", "to_seq": 4, "reason": "x"}, match="retracts nothing")


# --------------------------------------------------------------------------- golden and property


@pytest.mark.parametrize("name", examples_of(KIND))
def test_golden_records_fold_to_their_expected_score(name: str) -> None:
    example = load_example(name)
    state = given(KIND, example["events"], players=example["players"], options=example["options"])
    assert expected_of(RULES.score(state).to_dict()) == example["expected"]


@settings(max_examples=25, deadline=None)
@hgiven(seed=st.integers(0, 2**32 - 1), first_dealer=st.sampled_from([0, 1]))
def test_random_matches_end_with_one_player_at_zero(seed: int, first_dealer: int) -> None:
    playout = play(RULES, ["A", "B"], {"first_dealer": first_dealer}, rng=random.Random(seed), keep_states=True)
    final = playout.states[-1]
    sheet = RULES.score(final)
    assert playout.finished and sheet.finished
    assert sum(1 for t in sheet.totals if t <= 0) == 1 and sheet.totals[sheet.winner] <= 0
    assert sheet.totals == tuple(7 - sum(h.points[s] for h in sheet.hands) for s in range(2))
    for hand in sheet.hands:
        assert sorted(hand.points)[0] == 0 and 1 <= max(hand.points) <= 3
    dealers = [e["dealer"] for e in playout.events if e["type"] == "deal"]
    assert dealers == [(first_dealer + i) % 2 for i in range(len(dealers))]
    for state in playout.states:
        assert state.hand_points(0) < 66 or state.facts.get("hand_ended") or state.phase != "lead"
