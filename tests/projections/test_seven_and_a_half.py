"""Seven and a Half, rule by rule (`rules/seven-and-a-half.md`): given events => event => state or error.

Most tables here have four seats with seat 0 banking, so the playing order
is 3, 2, 1 and then the banker, seat 0. Totals are in half points (7½ = 15).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

import pytest

from events.errors import ImpossibleEventError, InvalidEventError, OutOfTurnError, UnknownGameError
from events.schema import MAX_AMOUNT
from projections.core import engine, phrases
from projections.core.phrases import halves
from projections.core.registry import rules_for
from projections.core.rules import HIDDEN, OMNISCIENT, SPECTATOR
from projections.games.seven_and_a_half import ALL_STAKES_UP_TO, SevenAndAHalfState, offered_stakes
from projections.games.seven_and_a_half._cards import is_two_card, status_of, total
from tests.projections.helpers import (
    cards_in,
    check_census,
    decide,
    examples_of,
    expect_illegal,
    expect_invalid,
    expected_of,
    given,
    load_example,
    then,
)

KIND = "seven-and-a-half"
RULES = rules_for(KIND)
P4 = ["Juan", "Ines", "Carlo", "Sara"]


def said(text: str) -> str:
    """A rule's marked text as a log line reads it (`phrases.render` without names): `seat 3`, `6½`,
    `10 chips`, cards as glyphs; the tests below read reasons and messages so."""
    return phrases.render(text)


def impossible(pos: engine.Position[SevenAndAHalfState], event: dict[str, Any], pattern: str) -> None:
    """The event is refused as impossible, with a message that reads `pattern` once rendered."""
    with pytest.raises(ImpossibleEventError) as info:
        decide(KIND, pos, event)
    assert re.search(pattern, said(info.value.message)), said(info.value.message)


def out_of_turn(pos: engine.Position[SevenAndAHalfState], event: dict[str, Any], pattern: str) -> None:
    """The event is refused as out of turn, with a message that reads `pattern` once rendered."""
    with pytest.raises(OutOfTurnError) as info:
        decide(KIND, pos, event)
    assert re.search(pattern, said(info.value.message)), said(info.value.message)


def bet(seat: int, amount: int) -> dict[str, Any]:
    return {"type": "bet", "seat": seat, "amount": amount}


def deal(*cards: str) -> dict[str, Any]:
    """One card per seat, seat 0 first."""
    return {"type": "deal", "cards": {str(s): c for s, c in enumerate(cards)}}


def hit(seat: int, card: str, **extra: Any) -> dict[str, Any]:
    return {"type": "hit", "seat": seat, "card": card, **extra}


def stand(seat: int, **extra: Any) -> dict[str, Any]:
    return {"type": "stand", "seat": seat, **extra}


class Table:
    """A session built event by event, as the server would (decide, then apply)."""

    def __init__(
        self, events: Sequence[dict[str, Any]] = (), options: dict[str, Any] | None = None, players: Sequence[str] = P4
    ) -> None:
        #: where the session stands: the game's state is `.state`, the last event's facts `.pos.facts`
        self.pos: engine.Position[SevenAndAHalfState] = given(KIND, events, list(players), options)

    @property
    def state(self) -> SevenAndAHalfState:
        return self.pos.game

    def do(self, *events: dict[str, Any]) -> SevenAndAHalfState:
        for event in events:
            self.pos = then(KIND, self.pos, event)
        return self.state

    def stakes(self, amounts: dict[int, int]) -> SevenAndAHalfState:
        return self.do(*(bet(s, a) for s, a in amounts.items()))

    @property
    def points(self) -> tuple[int, ...]:
        return RULES.score(self.state).hands[-1].points


def dealt(cards: Sequence[str], amounts: dict[int, int] | None = None, options: dict[str, Any] | None = None) -> Table:
    """A four-seat table, seat 0 banking, with stakes placed and the cards dealt."""
    table = Table(options=options)
    table.stakes(amounts or {3: 10, 2: 5, 1: 7})
    table.do(deal(*cards))
    return table


# --------------------------------------------------------------------------- options and shapes


def test_options_have_defaults_and_are_checked() -> None:
    assert RULES.options_for(P4, {}) == {
        "first_banker": 0,
        "min_bet": 1,
        "max_bet": 100,
        "two_card_bonus": False,
        "wild_card": None,
        "pair_of_sevens": False,
        "face_down_request": False,
        "splitting": False,
        "bank_needs_win": False,
        "enforcement": "strict",
        "dealing": "table",
    }
    assert RULES.options_for(P4, {"wild_card": "kd"})["wild_card"] == "KD"
    with pytest.raises(UnknownGameError, match="unknown option 'jokers'"):
        RULES.options_for(P4, {"jokers": True})
    for bad in (
        {"first_banker": 4},
        {"min_bet": 0},
        {"max_bet": "10"},
        {"max_bet": 2.5},
        {"wild_card": "7D"},
        {"wild_card": "8S"},
        {"wild_card": "XX"},
        {"two_card_bonus": "yes"},
        {"splitting": 1},
        {"enforcement": "lenient"},
    ):
        name = next(iter(bad))
        with pytest.raises(UnknownGameError, match=name):
            RULES.options_for(P4, bad)


def test_min_bet_above_max_bet_is_refused_when_the_game_is_created() -> None:
    options = RULES.options_for(P4, {"min_bet": 20, "max_bet": 10})
    with pytest.raises(UnknownGameError, match="min_bet"):
        RULES.initial_state(P4, options)


def test_four_to_six_players() -> None:
    for n in (4, 5, 6):
        RULES.options_for([f"P{i}" for i in range(n)], {})
    for n in (3, 7):
        with pytest.raises(UnknownGameError, match="4 or 5 or 6 players"):
            RULES.options_for([f"P{i}" for i in range(n)], {})


def test_malformed_events_are_invalid() -> None:
    state = Table().pos
    expect_invalid(KIND, state, {"type": "bet", "seat": 1, "amount": "5"}, "integer")
    expect_invalid(KIND, state, {"type": "bet", "seat": 1, "amount": 1.5}, "integer")
    expect_invalid(KIND, state, {"type": "bet", "seat": 4, "amount": 5}, "out of range")
    expect_invalid(KIND, state, {"type": "bet", "seat": 1, "amount": 5, "hand": 0}, "unknown field")
    expect_invalid(KIND, state, {"type": "session_closed", "now": True}, "unknown field")
    expect_invalid(KIND, state, {"type": "bank_passed"}, "missing field 'to'")
    expect_invalid(KIND, state, {"type": "double_down", "seat": 1}, "unknown event type")
    table = Table()
    table.stakes({3: 1, 2: 1, 1: 1})
    expect_invalid(KIND, table.pos, {"type": "deal", "cards": {"0": "AC", "1": "2C", "2": "3C"}}, "every seat")
    expect_invalid(
        KIND, table.pos, {"type": "deal", "cards": {"0": "AC", "1": "2C", "2": "3C", "3": "ZZ"}}, "not a card code"
    )
    table.do(deal("AC", "2C", "3C", "4C"))
    expect_invalid(KIND, table.pos, hit(3, "5C", face_down="yes"), "true or false")
    expect_invalid(KIND, table.pos, hit(3, "5C", hand=-1), "below 0")
    expect_invalid(KIND, table.pos, {"type": "split", "seat": 3, "amount": 1}, "missing field 'hand'")


def test_card_codes_are_made_canonical() -> None:
    table = Table()
    table.stakes({3: 1, 2: 1, 1: 1})
    table.do({"type": "deal", "cards": {"0": "ac", "1": "2c", "2": "3c", "3": "4c"}})
    assert table.state.hands[0][0].cards == ("AC",)


# --------------------------------------------------------------------------- values in half points


def test_values_are_half_points_never_floats() -> None:
    assert total(["JC", "QD"], None) == 2
    assert total(["7C", "KH"], None) == 15
    assert total(["AC", "6D"], None) == 14
    assert total(["6C", "7D"], None) == 26
    assert all(isinstance(total(cards, None), int) for cards in (["JC"], ["AC", "KD"]))
    assert [halves(n) for n in (1, 2, 13, 14, 15, 26)] == ["½", "1", "6½", "7", "7½", "13"]
    assert status_of(["6C", "AD", "JS"], None, False) == "seven_and_a_half"
    assert status_of(["6C", "2D"], None, False) == "bust"
    assert status_of(["7C", "7D"], None, False) == "bust"  # 14
    assert status_of(["7C", "7D"], None, True) == "pair_of_sevens"


def test_the_wild_card_takes_its_best_value_and_busts_only_at_a_half() -> None:
    assert total(["KD"], "KD") == 14  # alone it is a 7
    assert total(["KD", "5C"], "KD") == 14  # 5 + 2
    assert total(["KD", "JC"], "KD") == 15  # 7 + ½
    assert total(["KD", "6C", "AC"], "KD") == 15  # ½ + 6 + 1
    assert total(["KD", "6C", "2C"], "KD") == 17  # bust with the wild card at ½: 8½
    assert total(["KD", "4C", "3C"], "KD") == 15  # 7 + ½
    assert total(["KD", "3C"], "KD") == 14  # 3 + 4; 3 + ½ would be worse
    assert total(["KD", "3C"], None) == 7  # without the option KD is a plain ½


def test_two_card_shapes() -> None:
    assert is_two_card(["7C", "JD"]) and is_two_card(["QS", "7H"])
    assert not is_two_card(["7C", "7D"])
    assert not is_two_card(["7C", "AD"])
    assert not is_two_card(["6C", "AD", "JS"])


# --------------------------------------------------------------------------- stakes


def test_a_hand_begins_with_its_first_stake() -> None:
    table = Table()
    assert table.state.hand == 0 and table.state.phase == "between"
    table.do(bet(1, 10))
    assert table.state.hand == 1 and table.state.phase == "stakes"
    assert table.pos.facts == {"banker": 0, "stakes_due": [3, 2]}
    assert RULES.hand_in_progress(table.state)
    table.do(bet(3, 2), bet(2, 4))
    assert table.state.phase == "deal" and table.state.hand == 1
    assert RULES.view(table.state, SPECTATOR)["table"]["stakes"] == {"1": 10, "2": 4, "3": 2}


def test_stakes_are_once_per_player_and_never_by_the_banker() -> None:
    table = Table([bet(3, 5)])
    impossible(table.pos, bet(0, 5), "seat 0 holds the bank")
    impossible(table.pos, bet(3, 6), "seat 3 has already staked 5 chips at event 1")
    table.stakes({2: 1, 1: 1})
    table.do(deal("AC", "2C", "3C", "4C"))
    out_of_turn(table.pos, bet(3, 1), "stakes come before the deal")


def test_stakes_within_the_limits_inclusive() -> None:
    table = Table(options={"min_bet": 5, "max_bet": 50})
    table.stakes({3: 5, 2: 50})
    expect_illegal(KIND, table.pos, bet(1, 4), "half.stake_limits")
    expect_illegal(KIND, table.pos, bet(1, 51), "half.stake_limits")
    expect_illegal(KIND, Table().pos, bet(1, 0), "half.stake_limits")
    expect_illegal(KIND, Table().pos, bet(1, 101), "half.stake_limits")


def test_a_stake_outside_the_limits_is_settled_as_placed_under_record() -> None:
    table = Table(options={"enforcement": "record", "max_bet": 10})
    decision = decide(KIND, table.pos, bet(3, 40))
    assert decision.violation == {
        "rule": "half.stake_limits",
        "message": f"{phrases.seat(3)}'s stake of {phrases.chips(40)} is outside the table limits, "
        f"1 to {phrases.chips(10)}",
    }
    assert (
        said(decision.violation["message"]) == "seat 3's stake of 40 chips is outside the table limits, 1 to 10 chips"
    )
    table.stakes({3: 40, 2: 5, 1: 5})
    table.do(deal("7C", "AC", "AD", "6C"), hit(3, "AH"), stand(3), hit(2, "JC"), stand(2), stand(1), stand(0))
    assert table.points == (50, -5, -5, -40)  # seat 3's 7 ties the banker's 7: the stake of 40 is lost


def test_deal_comes_after_every_stake_and_once() -> None:
    table = Table()
    out_of_turn(table.pos, deal("AC", "2C", "3C", "4C"), "no stake has been placed")
    table.stakes({3: 1, 1: 1})
    out_of_turn(table.pos, deal("AC", "2C", "3C", "4C"), "seat 2 has not staked")
    table.do(bet(2, 1))
    impossible(table.pos, deal("AC", "8C", "3C", "4C"), "8♣ is not a card of this game's deck")
    impossible(table.pos, deal("AC", "TC", "3C", "4C"), "10♣ is not a card of this game's deck")
    impossible(table.pos, deal("AC", "2C", "AC", "4C"), "A♣ is named twice in this deal")
    table.do(deal("AC", "2C", "3C", "4C"))
    out_of_turn(table.pos, deal("AD", "2D", "3D", "4D"), "dealt already")


# --------------------------------------------------------------------------- turns


def test_play_goes_counter_clockwise_from_the_bankers_right_then_the_banker() -> None:
    table = dealt(["5C", "6D", "3H", "4S"])
    assert table.state.turn == 3 and RULES.view(table.state, SPECTATOR)["to_act"] == [3]
    out_of_turn(table.pos, hit(2, "AC"), "it is seat 3's turn, not seat 2's")
    out_of_turn(table.pos, stand(0), "not seat 0's")
    table.do(stand(3))
    assert table.state.turn == 2
    table.do(hit(2, "AC"), stand(2))
    assert table.state.turn == 1
    table.do(stand(1))
    assert table.state.phase == "banker" and table.state.turn == 0
    assert table.pos.facts["banker_shows"] == ["5C"]
    out_of_turn(table.pos, hit(1, "AD"), r"it is seat 0's turn \(the banker\), not seat 1's")


def test_playing_order_with_another_banker_and_five_seats() -> None:
    players = ["A", "B", "C", "D", "E"]
    table = Table(options={"first_banker": 2}, players=players)
    assert next(e for e in RULES.legal_events(table.state) if e["type"] == "bet") == bet(0, 1)
    assert table.state.order() == (1, 0, 4, 3)
    table.stakes({0: 1, 1: 1, 3: 1, 4: 1})
    table.do({"type": "deal", "cards": {"0": "AC", "1": "2C", "2": "3C", "3": "4C", "4": "5C"}})
    turns = []
    for _ in range(4):
        assert table.state.turn is not None
        turns.append(table.state.turn)
        table.do(stand(table.state.turn))
    assert turns == [1, 0, 4, 3] and table.state.turn == 2 and table.state.phase == "banker"


def test_card_already_seen_or_outside_the_deck_is_impossible() -> None:
    table = dealt(["5C", "6D", "3H", "4S"])
    impossible(table.pos, hit(3, "6D"), "6♦ has already been seen in this hand")
    impossible(table.pos, hit(3, "9C"), "9♣ is not a card of this game's deck")
    table.do(hit(3, "AC"))
    impossible(table.pos, hit(3, "AC"), "A♣ has already been seen")


def test_no_play_event_between_hands() -> None:
    state = Table().pos
    out_of_turn(state, stand(1), "no hand is being played")
    out_of_turn(state, hit(1, "AC"), "no hand is being played")


def test_a_hand_that_does_not_exist_is_impossible() -> None:
    table = dealt(["5C", "6D", "3H", "4S"])
    impossible(table.pos, stand(3, hand=1), "seat 3 has no hand 1")
    table.do(stand(3, hand=0))
    assert table.state.turn == 2


# --------------------------------------------------------------------------- bust and 7½


def test_a_bust_is_shown_and_loses_its_stake_at_once() -> None:
    table = dealt(["5C", "6D", "3H", "6S"])
    table.do(hit(3, "7S"))  # seq 5: 6 + 7 = 13
    facts = table.pos.facts
    assert facts["bust"] is True and facts["total"] == 26 and facts["shown"] == ["6S", "7S"]
    assert table.state.turn == 2
    assert RULES.view(table.state, 1)["seats"][3]["cards"] == ["6S", "7S"]
    assert RULES.view(table.state, 1)["hand_points"] == {"0": 10, "1": 0, "2": 0, "3": -10}
    lines = table.state.lines
    assert [(line.seat, line.points, line.rule, line.events) for line in lines] == [
        (3, -10, "half.bust", (1, 5)),
        (0, 10, "half.bust", (1, 5)),
    ]
    assert said(lines[0].reason) == "seat 3 bust with 13 at event 5: seat 3 pays 10 chips to the banker, seat 0"
    impossible(table.pos, hit(3, "AC"), "out of turn|turn")


def test_a_finished_hand_takes_no_more_cards() -> None:
    table = Table(options={"splitting": True})
    table.stakes({3: 2, 2: 2, 1: 2})
    table.do(deal("5C", "6D", "3H", "JS"), hit(3, "JH"), {"type": "split", "seat": 3, "hand": 0, "amount": 2})
    table.do(hit(3, "7S", hand=0))  # seq 7: J + 7 = 7½, finished
    impossible(table.pos, hit(3, "AC", hand=0), r"seat 3's hand 0 finished at event 7 \(7½\)")
    impossible(table.pos, stand(3, hand=0), "no stand is accepted")
    table.do(hit(3, "6C", hand=1), hit(3, "2C", hand=1))  # J + 6 + 2: bust
    impossible(table.pos, hit(3, "AC", hand=1), "out of turn|it is seat 2's turn")


def test_exactly_seven_and_a_half_ends_the_turn() -> None:
    table = dealt(["5C", "6D", "3H", "6S"])
    table.do(hit(3, "AC"))
    assert "total" not in table.pos.facts and table.state.turn == 3  # the total would tell the face-down 6S
    table.do(hit(3, "JD"))
    assert table.pos.facts["seven_and_a_half"] is True and table.pos.facts["total"] == 15
    assert table.state.turn == 2
    assert RULES.situations(hit(3, "JD"), table.pos.facts) == ["seven_and_a_half"]


# --------------------------------------------------------------------------- settlement


def test_settlement_the_banker_wins_ties_and_pays_higher_totals() -> None:
    table = dealt(["5C", "6D", "3H", "4S"], {3: 10, 2: 5, 1: 7})
    table.do(hit(3, "3C"), stand(3))  # seq 5-6: 7
    table.do(hit(2, "7S"))  # seq 7: 3 + 7 = 10, bust
    table.do(hit(1, "QH"), stand(1))  # seq 8-9: 6½
    table.do(hit(0, "AH"))  # seq 10: the banker 6
    table.do(stand(0))  # seq 11: settles
    facts = table.pos.facts
    assert facts["hand_ended"] is True and facts["banker_total"] == 12
    assert facts["points"] == {"0": 5 - 10 - 7, "1": 7, "2": -5, "3": 10}
    sheet = RULES.score(table.state)
    hand = sheet.hands[0]
    assert hand.points == (-12, 7, -5, 10)
    by_seat = {(line.seat, line.rule): line for line in hand.lines}
    assert said(by_seat[(3, "half.higher")].reason) == (
        "seat 3: 7 at event 6 against the banker's 6 at event 11: the banker, seat 0, pays 10 chips to seat 3"
    )
    assert by_seat[(3, "half.higher")].events == (1, 6, 11)
    assert [line.points for line in hand.lines if line.seat == 0] == [5, -10, -7]
    assert by_seat[(1, "half.higher")].points == 7
    assert sheet.totals == (-12, 7, -5, 10) and sheet.finished is False and sheet.winner is None


def test_ties_and_lower_totals_go_to_the_banker() -> None:
    table = dealt(["5C", "6D", "3H", "4S"], {3: 10, 2: 5, 1: 7})
    table.do(hit(3, "3C"), stand(3))  # 7
    table.do(hit(2, "2C"), stand(2))  # 5
    table.do(hit(1, "QH"), stand(1))  # 6½
    table.do(hit(0, "2D"), stand(0))  # the banker 7
    assert table.points == (22, -7, -5, -10)
    tie = next(line for line in table.state.lines if line.seat == 3)
    assert tie.rule == "half.banker_wins"
    assert said(tie.reason) == (
        "seat 3: 7 at event 6 against the banker's 7 at event 12: seat 3 pays 10 chips to the banker, seat 0 "
        "(the banker wins ties)"
    )
    lower = next(line for line in table.state.lines if line.seat == 1)
    assert said(lower.reason) == (
        "seat 1: 6½ at event 10 against the banker's 7 at event 12: seat 1 pays 7 chips to the banker, seat 0"
    )
    # the marked text: seats, totals in half points and amounts in chips, for every reader to render
    assert lower.reason == (
        f"{phrases.seat(1)}: {phrases.half(13)} at event 10 against the banker's {phrases.half(14)} at event 12: "
        f"{phrases.seat(1)} pays {phrases.chips(7)} to the banker, {phrases.seat(0)}"
    )


def test_rendered_reasons_show_half_points_chips_and_the_players_names() -> None:
    """What a person reads: names, 6½ and 8½ (not 13 and 17), chips; no `seat N`, no marker left."""
    table = dealt(["5C", "6D", "3H", "4S"], {3: 10, 2: 5, 1: 7})
    table.do(hit(3, "QC"), stand(3))  # 4½
    table.do(hit(2, "5D"))  # 3 + 5 = 8: bust
    table.do(hit(1, "QH"), stand(1))  # 6½
    table.do(hit(0, "JD"), hit(0, "AD"), stand(0))  # the banker 5 + ½ + 1 = 6½
    shown = [phrases.render(line.reason, P4) for line in RULES.score(table.state).hands[0].lines]
    assert shown[0] == "Carlo bust with 8 at event 7: Carlo pays 5 chips to the banker, Juan"
    assert "Sara: 4½ at event 6 against the banker's 6½ at event 12: Sara pays 10 chips to the banker, Juan" in shown
    assert (
        "Ines: 6½ at event 9 against the banker's 6½ at event 12: Ines pays 7 chips to the banker, Juan "
        "(the banker wins ties)" in shown
    )
    for text in shown:
        assert not re.search(r"seat \d", text) and not phrases.has_marker(text)
    # the declared units: totals in half points, amounts in chips
    assert RULES.value_text("total", 13) == "6½" and RULES.value_text("banker_total", 17) == "8½"
    assert RULES.value_text("amount", 5) == "5 chips" and RULES.value_text("points", -1) == "-1 chip"
    assert {RULES.unit(k) for k in ("stake", "stakes", "totals", "min_bet", "max_bet")} == {"chips"}


def test_the_banker_busts_and_pays_every_player_who_has_not_bust() -> None:
    table = dealt(["5C", "6D", "3H", "4S"], {3: 10, 2: 5, 1: 7})
    table.do(stand(3))  # 4
    table.do(hit(2, "7S"))  # bust: loses 5 whatever the banker does
    table.do(stand(1))  # 6
    table.do(hit(0, "4D"))  # the banker 9: bust
    assert table.pos.facts["banker_bust"] is True and table.pos.facts["bust"] is True
    assert table.points == (-10 + 5 - 7, 7, -5, 10)
    assert {line.rule for line in table.state.lines} == {"half.bust", "half.banker_bust"}
    assert RULES.situations(hit(0, "4D"), table.pos.facts) == ["bust", "banker_bust"]


def test_when_every_player_busts_the_banker_does_not_play() -> None:
    table = dealt(["5C", "6D", "3H", "4S"], {3: 10, 2: 5, 1: 7})
    table.do(hit(3, "7S"), hit(2, "7D"), hit(1, "7C"))
    assert table.state.phase == "between" and table.pos.facts["all_bust"] is True
    assert table.pos.facts["hand_ended"] is True
    assert table.points == (22, -7, -5, -10)
    with pytest.raises(OutOfTurnError):
        decide(KIND, table.pos, stand(0))
    with pytest.raises(OutOfTurnError):
        decide(KIND, table.pos, hit(0, "AD"))
    # the next hand begins with a stake, banked by the same seat
    table.do(bet(1, 3))
    assert table.state.hand == 2 and table.state.banker == 0 and table.state.lines == ()


def test_every_settled_stake_is_two_opposite_lines() -> None:
    table = dealt(["5C", "6D", "3H", "4S"], {3: 10, 2: 5, 1: 7})
    table.do(hit(3, "3C"), stand(3), hit(2, "7S"), hit(1, "QH"), stand(1), hit(0, "AH"), stand(0))
    lines = RULES.score(table.state).hands[0].lines
    assert len(lines) == 6
    for player, banker in zip(lines[::2], lines[1::2], strict=True):
        assert banker.seat == 0 and player.seat != 0
        assert player.points == -banker.points and player.rule == banker.rule
        assert player.reason == banker.reason and player.events == banker.events


# --------------------------------------------------------------------------- the bank


def test_a_player_with_seven_and_a_half_takes_the_bank() -> None:
    table = dealt(["5C", "6D", "3H", "4S"], {3: 10, 2: 5, 1: 7})
    table.do(stand(3), hit(2, "4C"), hit(2, "JD"))  # seat 2: 7½
    table.do(stand(1), hit(0, "2C"), stand(0))
    facts = table.pos.facts
    assert facts["bank_taken_by"] == 2 and facts["next_banker"] == 2
    assert RULES.situations(stand(0), facts) == ["bank_passed"]
    assert table.state.next_banker == 2 and RULES.view(table.state, None)["table"]["next_banker"] == 2
    impossible(table.pos, bet(2, 1), "seat 2 holds the bank")
    table.do(bet(0, 4))  # the old banker now stakes
    assert table.state.banker == 2 and table.state.order() == (1, 0, 3)


def test_the_first_in_playing_order_with_seven_and_a_half_takes_the_bank() -> None:
    table = dealt(["5C", "6D", "3H", "4S"], {3: 10, 2: 5, 1: 7})
    table.do(stand(3), hit(2, "4C"), hit(2, "JD"), hit(1, "AC"), hit(1, "QC"))  # seats 2 and 1 make 7½
    table.do(stand(0))
    assert table.state.next_banker == 2


def test_the_bank_passes_even_when_the_banker_also_makes_seven_and_a_half() -> None:
    table = dealt(["7C", "6D", "3H", "4S"], {3: 10, 2: 5, 1: 7})
    table.do(stand(3), hit(2, "4C"), hit(2, "JD"), stand(1))
    table.do(hit(0, "QD"))  # the banker's 7½ ends the hand
    assert table.state.phase == "between"
    assert table.points == (10 + 5 + 7, -7, -5, -10)  # the banker wins the 7½ tie
    assert table.state.next_banker == 2


def test_bank_passed_only_between_hands_and_never_to_the_banker_due() -> None:
    table = Table()
    impossible(table.pos, {"type": "bank_passed", "to": 0}, "already holds the bank")
    table.do({"type": "bank_passed", "to": 1})
    assert table.state.next_banker == 1 and table.state.hand == 0
    assert RULES.situations({"type": "bank_passed", "to": 1}, table.pos.facts) == ["bank_passed"]
    table.do(bet(0, 1))
    assert table.state.banker == 1
    impossible(table.pos, {"type": "bank_passed", "to": 2}, "only between hands")
    impossible(table.pos, {"type": "session_closed"}, "only between hands")


def test_bank_passed_overrides_the_seven_and_a_half_rule() -> None:
    table = dealt(["5C", "6D", "3H", "4S"], {3: 10, 2: 5, 1: 7})
    table.do(stand(3), hit(2, "4C"), hit(2, "JD"), stand(1), stand(0))
    assert table.state.next_banker == 2
    table.do({"type": "bank_passed", "to": 3})
    table.do(bet(2, 1))
    assert table.state.banker == 3


def test_a_voided_hand_scores_zero_and_the_same_banker_deals_again() -> None:
    table = dealt(["5C", "6D", "3H", "4S"], {3: 10, 2: 5, 1: 7})
    table.do(hit(3, "7S"), hit(2, "4C"), hit(2, "JD"))  # a bust and a 7½ before the void
    table.do({"type": "hand_voided", "reason": "misdeal"})
    assert table.pos.facts["voided"] is True and table.state.phase == "between"
    hand = RULES.score(table.state).hands[0]
    assert hand.points == (0, 0, 0, 0) and hand.lines == ()
    assert table.state.next_banker == 0
    impossible(table.pos, {"type": "hand_voided", "reason": "again"}, "only while a hand")
    table.do(bet(3, 1))
    assert table.state.hand == 2 and table.state.banker == 0


def test_a_hand_voided_during_its_stakes_counts_as_a_hand() -> None:
    table = Table([bet(3, 5), {"type": "hand_voided", "reason": "dispute"}, bet(2, 1)])
    sheet = RULES.score(table.state)
    assert [h.hand for h in sheet.hands] == [1] and table.state.hand == 2


def test_session_closed_ends_the_game_without_a_winner() -> None:
    table = dealt(["5C", "6D", "3H", "4S"], {3: 10, 2: 5, 1: 7})
    table.do(stand(3), stand(2), stand(1), stand(0))
    table.do({"type": "session_closed"})
    assert RULES.is_terminal(table.state)
    assert table.pos.facts["game_ended"] is True and table.pos.facts["winner"] is None
    sheet = RULES.score(table.state)
    assert sheet.finished and sheet.winner is None and sheet.totals == (8, 7, -5, -10)
    impossible(table.pos, bet(1, 1), "the game has ended")
    impossible(table.pos, {"type": "bank_passed", "to": 2}, "the game has ended")
    table.do({"type": "note", "text": "good night"})
    assert RULES.legal_events(table.state) == [] and RULES.chance_events(table.state, random.Random(1)) == []


def test_session_closed_before_any_hand() -> None:
    table = Table([{"type": "session_closed"}])
    sheet = RULES.score(table.state)
    assert sheet.finished and sheet.hands == () and sheet.totals == (0, 0, 0, 0)


# --------------------------------------------------------------------------- two-card bonus


def test_two_card_bonus_is_paid_double() -> None:
    table = dealt(["5C", "6D", "7H", "4S"], {3: 10, 2: 5, 1: 7}, {"two_card_bonus": True})
    table.do(stand(3), hit(2, "JD"))  # seat 2: 7 and J
    assert table.pos.facts["two_card"] is True
    assert RULES.situations(hit(2, "JD"), table.pos.facts) == ["seven_and_a_half", "two_card_bonus"]
    table.do(stand(1), hit(0, "2C"), stand(0))  # the banker 7
    line = next(line for line in table.state.lines if line.seat == 2)
    assert line.rule == "half.two_card_bonus" and line.points == 10
    assert "a two-card 7½ (7♥ J♦)" in said(line.reason) and "is paid double" in line.reason
    assert table.points == (7, -7, 10, -10)


def test_two_card_bonus_is_paid_double_also_when_the_banker_busts() -> None:
    table = dealt(["5C", "6D", "7H", "4S"], {3: 10, 2: 5, 1: 7}, {"two_card_bonus": True})
    table.do(stand(3), hit(2, "JD"), stand(1), hit(0, "6C"))
    assert table.points == (-10 - 10 - 7, 7, 10, 10)


def test_without_the_option_seven_and_a_face_card_is_a_plain_seven_and_a_half() -> None:
    table = dealt(["7C", "6D", "7H", "4S"], {3: 10, 2: 5, 1: 7})
    table.do(stand(3), hit(2, "JD"))
    assert "two_card" not in table.pos.facts
    table.do(stand(1), hit(0, "AC"))  # the banker 7 + 1: bust
    assert table.points == (-10 - 5 - 7, 7, 5, 10)  # seat 2's 7½ is paid single


def test_the_bankers_two_card_seven_and_a_half_takes_single_stakes_and_wins_the_tie() -> None:
    table = dealt(["7C", "6D", "7H", "3S"], {3: 10, 2: 5, 1: 7}, {"two_card_bonus": True})
    table.do(hit(3, "4S"), hit(3, "QS"), hit(2, "JD"), stand(1))  # a three-card 7½ and a two-card 7½
    table.do(hit(0, "KC"))
    assert table.pos.facts["two_card"] is True
    assert table.points == (10 + 5 + 7, -7, -5, -10)
    rules = {line.seat: line.rule for line in table.state.lines if line.seat}
    assert rules == {1: "half.banker_two_card", 2: "half.banker_two_card", 3: "half.banker_two_card"}
    tie = next(line for line in table.state.lines if line.seat == 2)
    assert "two two-card 7½s tie: the banker wins" in tie.reason


def test_three_cards_are_never_a_two_card_seven_and_a_half() -> None:
    table = dealt(["5C", "6D", "6H", "4S"], {3: 10, 2: 5, 1: 7}, {"two_card_bonus": True})
    table.do(stand(3), hit(2, "AD"), hit(2, "JD"))
    assert "two_card" not in table.pos.facts
    table.do(stand(1), stand(0))
    assert table.points[2] == 5


# --------------------------------------------------------------------------- wild card


def test_the_wild_card_counts_at_its_best_value() -> None:
    table = dealt(["5C", "6D", "KD", "4S"], {3: 10, 2: 5, 1: 7}, {"wild_card": "KD"})
    table.do(stand(3), hit(2, "5H"))  # K♦ + 5 = 7 (the wild card as 2)
    assert table.state.turn == 2 and table.state.hands[2][0].status == "open"
    table.do(hit(2, "JC"))  # K♦ + 5 + J: ½ + 5 + ½ would be 6, the wild as 2 gives 7½
    assert table.pos.facts["seven_and_a_half"] is True and table.pos.facts["total"] == 15


def test_a_hand_with_the_wild_card_busts_only_if_bust_with_it_at_a_half() -> None:
    table = dealt(["5C", "6D", "KD", "4S"], {3: 10, 2: 5, 1: 7}, {"wild_card": "KD"})
    table.do(stand(3), hit(2, "6H"))  # 1 + 6: 7
    assert table.state.hands[2][0].status == "open" and table.state.total(table.state.hands[2][0]) == 14
    table.do(hit(2, "AC"))  # ½ + 6 + 1 = 7½
    assert table.pos.facts["seven_and_a_half"] is True
    table2 = dealt(["5C", "6D", "KD", "4S"], {3: 10, 2: 5, 1: 7}, {"wild_card": "KD"})
    table2.do(stand(3), hit(2, "6H"))
    table2.do(hit(2, "2C"))  # ½ + 6 + 2 = 8½
    assert table2.pos.facts["bust"] is True and table2.pos.facts["total"] == 17
    assert "bust with 8½" in said(table2.state.lines[0].reason)


def test_the_wild_card_makes_a_two_card_seven_and_a_half_with_a_seven_only() -> None:
    options = {"wild_card": "KD", "two_card_bonus": True, "pair_of_sevens": True}
    table = dealt(["5C", "JD", "KD", "7S"], {3: 10, 2: 5, 1: 7}, options)
    table.do(hit(3, "QD"))  # seat 3: 7 + Q, a two-card 7½
    assert table.pos.facts.get("two_card") is True
    table.do(hit(2, "7D"))  # K♦ + 7: a two-card 7½, not a pair of sevens
    assert table.pos.facts.get("two_card") is True and "pair_of_sevens" not in table.pos.facts
    table.do(hit(1, "QC"), hit(1, "7C"))  # J + Q + 7: a three-card 7½
    assert "two_card" not in table.pos.facts and table.state.phase == "banker"
    table3 = dealt(["5C", "JD", "KD", "7S"], {3: 10, 2: 5, 1: 7}, options)
    table3.do(stand(3), hit(2, "JH"))  # K♦ + J: 7½ with the wild as 7, but not a two-card 7½
    assert table3.pos.facts["seven_and_a_half"] is True and "two_card" not in table3.pos.facts
    table3.do(stand(1), hit(0, "2C"), stand(0))  # the banker 7
    assert next(line for line in table3.state.lines if line.seat == 2).points == 5  # single


# --------------------------------------------------------------------------- pair of sevens


def test_a_pair_of_sevens_is_shown_at_once_paid_triple_and_takes_the_bank() -> None:
    options = {"pair_of_sevens": True}
    table = dealt(["5C", "6D", "3H", "7S"], {3: 10, 2: 5, 1: 7}, options)
    table.do(hit(3, "7D"))
    assert table.pos.facts["pair_of_sevens"] is True and table.state.turn == 2
    assert RULES.situations(hit(3, "7D"), table.pos.facts) == ["pair_of_sevens"]
    impossible(table.pos, hit(3, "AC"), "turn")
    table.do(stand(2), stand(1), hit(0, "2C"), hit(0, "JC"))  # the banker 7½
    line = next(line for line in table.state.lines if line.seat == 3)
    assert line.rule == "half.pair_of_sevens" and line.points == 30
    assert table.points == (-30 + 5 + 7, -7, -5, 30)
    assert table.state.next_banker == 3


def test_a_pair_of_sevens_is_paid_triple_when_the_banker_busts() -> None:
    table = dealt(["5C", "6D", "3H", "7S"], {3: 10, 2: 5, 1: 7}, {"pair_of_sevens": True})
    table.do(hit(3, "7D"), stand(2), stand(1), hit(0, "4C"))
    assert table.points == (-30 - 5 - 7, 7, 5, 30)


def test_the_bankers_pair_of_sevens_wins_every_stake_single() -> None:
    options = {"pair_of_sevens": True, "two_card_bonus": True}
    table = dealt(["7C", "6D", "7H", "7S"], {3: 10, 2: 5, 1: 7}, options)
    table.do(hit(3, "7D"), hit(2, "JD"), stand(1))  # a pair of sevens and a two-card 7½
    table.do(hit(0, "AC"))  # 8: bust, not a pair
    assert table.points == (-30 - 10 - 7, 7, 10, 30)
    table = dealt(["7C", "6D", "7H", "3S"], {3: 10, 2: 5, 1: 7}, options)
    table.do(hit(3, "JS"), hit(3, "4S"), stand(2), stand(1))  # seat 3: 7½
    table.do(hit(0, "7D"))  # the banker's pair of sevens
    assert table.pos.facts["pair_of_sevens"] is True
    assert table.points == (10 + 5 + 7, -7, -5, -10)
    assert {line.rule for line in table.state.lines} == {"half.banker_pair_of_sevens"}


def test_the_bankers_pair_of_sevens_beats_a_players_pair() -> None:
    options = {"pair_of_sevens": True}
    table = dealt(["7C", "6D", "3H", "7S"], {3: 10, 2: 5, 1: 7}, options)
    table.do(hit(3, "7D"), stand(2), stand(1), hit(0, "7H"))
    assert table.points == (22, -7, -5, -10)
    assert table.state.next_banker == 3  # the pair still takes the bank


def test_a_players_pair_beats_the_bankers_two_card_seven_and_a_half() -> None:
    options = {"pair_of_sevens": True, "two_card_bonus": True}
    table = dealt(["7C", "6D", "3H", "7S"], {3: 10, 2: 5, 1: 7}, options)
    table.do(hit(3, "7D"), stand(2), stand(1), hit(0, "JH"))
    assert table.points == (-30 + 5 + 7, -7, -5, 30)


def test_without_the_option_two_sevens_are_a_bust() -> None:
    table = dealt(["5C", "6D", "3H", "7S"], {3: 10, 2: 5, 1: 7})
    table.do(hit(3, "7D"))  # 7 + 7 = 14
    assert table.pos.facts["bust"] is True and "pair_of_sevens" not in table.pos.facts
    assert (
        said(table.state.lines[0].reason)
        == "seat 3 bust with 14 at event 5: seat 3 pays 10 chips to the banker, seat 0"
    )


# --------------------------------------------------------------------------- face-down requests


FD = {"face_down_request": True}


def test_face_down_and_flip_need_the_option() -> None:
    table = dealt(["5C", "6D", "3H", "4S"])
    impossible(table.pos, hit(3, "AC", face_down=True), "needs the face_down_request option")
    impossible(table.pos, {"type": "flip", "seat": 3}, "needs the face_down_request option")
    table.do(hit(3, "AC", face_down=False))
    assert "AC" not in table.state.face_down


def test_the_dealt_card_is_the_one_face_down_card() -> None:
    table = dealt(["5C", "6D", "3H", "4S"], options=FD)
    error = expect_illegal(KIND, table.pos, hit(3, "AC", face_down=True), "half.two_face_down")
    assert "seat 3 asked for a face-down card while holding one (4♠)" in said(error.reason)
    table.do({"type": "flip", "seat": 3})
    assert table.pos.facts == {"flipped": ["4S"]}
    assert RULES.view(table.state, 1)["seats"][3]["cards"] == ["4S"]
    table.do(hit(3, "AC", face_down=True))
    assert RULES.view(table.state, 1)["seats"][3]["cards"] == ["4S", HIDDEN]
    assert RULES.view(table.state, 3)["seats"][3]["cards"] == ["4S", "AC"]
    assert RULES.census(table.state).private[3] == frozenset({"AC"})
    assert RULES.redact_event(hit(3, "AC", face_down=True), 1)["card"] == HIDDEN
    assert RULES.redact_event(hit(3, "AC", face_down=True), 3)["card"] == "AC"
    assert RULES.situations(hit(3, "AC", face_down=True), table.pos.facts) == ["face_down"]
    expect_illegal(KIND, table.pos, hit(3, "2C", face_down=True), "half.two_face_down")
    table.do({"type": "flip", "seat": 3, "hand": 0}, hit(3, "2C", face_down=True))


def test_two_face_down_cards_are_stored_under_record_and_folded() -> None:
    table = dealt(["5C", "6D", "3H", "4S"], options={**FD, "enforcement": "record"})
    decision = decide(KIND, table.pos, hit(3, "AC", face_down=True))
    assert decision.violation is not None and decision.violation["rule"] == "half.two_face_down"
    table.do(hit(3, "AC", face_down=True))
    assert RULES.census(table.state).private[3] == frozenset({"4S", "AC"})
    table.do({"type": "flip", "seat": 3})
    assert table.pos.facts == {"flipped": ["4S", "AC"]}


def test_flip_belongs_to_the_seats_turn_and_an_unfinished_hand_with_a_face_down_card() -> None:
    table = dealt(["5C", "6D", "3H", "4S"], options=FD)
    out_of_turn(table.pos, {"type": "flip", "seat": 2}, "it is seat 3's turn")
    table.do({"type": "flip", "seat": 3})
    impossible(table.pos, {"type": "flip", "seat": 3}, "no face-down card")
    impossible(table.pos, {"type": "flip", "seat": 3, "hand": 0}, "holds no face-down card")
    impossible(table.pos, {"type": "flip", "seat": 3, "hand": 2}, "has no hand 2")
    table.do(stand(3), stand(2), stand(1))
    impossible(table.pos, {"type": "flip", "seat": 0}, "the banker, seat 0, never")
    impossible(table.pos, hit(0, "AC", face_down=True), "the banker, seat 0, never")


def test_a_face_down_card_counts_at_once_for_a_bust() -> None:
    table = dealt(["5C", "6D", "3H", "4S"], options=FD)
    table.do({"type": "flip", "seat": 3}, hit(3, "7S", face_down=True))
    assert table.pos.facts["bust"] is True and table.state.face_down & {"7S", "4S"} == frozenset()
    assert RULES.view(table.state, 2)["seats"][3]["cards"] == ["4S", "7S"]


def test_one_face_down_card_per_seat_across_split_hands() -> None:
    options = {**FD, "splitting": True}
    table = dealt(["5C", "6D", "3H", "JS"], {3: 2, 2: 2, 1: 2}, options)
    table.do({"type": "flip", "seat": 3}, hit(3, "QS", face_down=True))
    table.do({"type": "split", "seat": 3, "hand": 0, "amount": 2})  # QS, face down, moves to hand 1
    assert RULES.view(table.state, 1)["seats"][3]["hands"][1]["cards"] == [HIDDEN]
    expect_illegal(KIND, table.pos, hit(3, "AC", hand=0, face_down=True), "half.two_face_down")
    impossible(table.pos, {"type": "flip", "seat": 3, "hand": 0}, "holds no face-down card")
    table.do({"type": "flip", "seat": 3})  # wherever it lies
    assert table.pos.facts == {"flipped": ["QS"]}
    table.do(hit(3, "AC", hand=0, face_down=True))


def test_a_stood_hands_face_down_card_stays_down_and_blocks_a_second() -> None:
    options = {**FD, "splitting": True}
    table = dealt(["5C", "6D", "3H", "JS"], {3: 2, 2: 2, 1: 2}, options)
    table.do({"type": "flip", "seat": 3}, hit(3, "QS"))
    table.do({"type": "split", "seat": 3, "hand": 0, "amount": 2})
    table.do(hit(3, "AC", hand=0, face_down=True), stand(3, hand=0))
    expect_illegal(KIND, table.pos, hit(3, "2C", hand=1, face_down=True), "half.two_face_down")
    impossible(table.pos, {"type": "flip", "seat": 3}, "no face-down card in an unfinished hand")


# --------------------------------------------------------------------------- splitting


SPLIT = {"splitting": True}


def split(seat: int, hand: int, amount: int) -> dict[str, Any]:
    return {"type": "split", "seat": seat, "hand": hand, "amount": amount}


def test_split_needs_the_option_two_face_cards_and_a_player() -> None:
    table = dealt(["5C", "6D", "3H", "JS"], {3: 4, 2: 2, 1: 2})
    table.do(hit(3, "QS"))
    impossible(table.pos, split(3, 0, 4), "needs the splitting option")
    table = dealt(["5C", "6D", "3H", "JS"], {3: 4, 2: 2, 1: 2}, SPLIT)
    impossible(table.pos, split(3, 0, 4), "only a hand of two face cards may be split; seat 3 holds J♠")
    table.do(hit(3, "AS"))
    impossible(table.pos, split(3, 0, 4), "holds J♠ A♠")
    table.do(hit(3, "QS"))
    impossible(table.pos, split(3, 0, 4), "holds J♠ A♠ Q♠")
    table = dealt(["JC", "6D", "3H", "4S"], {3: 4, 2: 2, 1: 2}, SPLIT)
    table.do(stand(3), stand(2), stand(1), hit(0, "QC"))
    impossible(table.pos, split(0, 0, 4), "the banker, seat 0, never asks for a split")


def test_split_stake_at_least_the_split_hands_and_within_the_limits() -> None:
    table = dealt(["5C", "6D", "3H", "JS"], {3: 4, 2: 2, 1: 2}, {**SPLIT, "max_bet": 10})
    table.do(hit(3, "QS"))
    error = expect_illegal(KIND, table.pos, split(3, 0, 3), "half.split_stake")
    assert said(error.reason) == "the new stake 3 chips is below the stake 4 chips of seat 3 being split"
    expect_illegal(KIND, table.pos, split(3, 0, 11), "half.stake_limits")
    amounts = [e["amount"] for e in RULES.legal_events(table.state) if e["type"] == "split"]
    assert amounts == list(range(4, 11))


def test_a_low_split_stake_is_settled_as_placed_under_record() -> None:
    table = dealt(["5C", "6D", "3H", "JS"], {3: 4, 2: 2, 1: 2}, {**SPLIT, "enforcement": "record"})
    table.do(hit(3, "QS"), split(3, 0, 1))
    assert [h.stake for h in table.state.hands[3]] == [4, 1]
    table.do(hit(3, "7S", hand=1), hit(3, "7D", hand=0))  # both 7½
    table.do(stand(2), stand(1), stand(0))
    assert table.points[3] == 5


def test_splitting_makes_hands_in_order_of_creation_played_in_any_order() -> None:
    table = dealt(["5C", "6D", "3H", "JS"], {3: 4, 2: 2, 1: 2}, SPLIT)
    table.do(hit(3, "QS"), split(3, 0, 6))  # seq 6
    assert table.pos.facts == {"hand": 0, "new_hand": 1}
    assert RULES.situations(split(3, 0, 6), table.pos.facts) == ["split"]
    hands = table.state.hands[3]
    assert [h.cards for h in hands] == [("JS",), ("QS",)] and [h.stake for h in hands] == [4, 6]
    table.do(hit(3, "KS", hand=1), split(3, 1, 6))  # hand 1 (QS KS) splits again: hand 2 gets KS
    assert [h.cards for h in table.state.hands[3]] == [("JS",), ("QS",), ("KS",)]
    table.do(hit(3, "JH"), split(3, 0, 4))  # hand 0 (JS JH) splits: hand 3 gets JH
    assert [h.cards for h in table.state.hands[3]] == [("JS",), ("QS",), ("KS",), ("JH",)]
    assert [h.stake for h in table.state.hands[3]] == [4, 6, 6, 4]
    table.do(hit(3, "7S", hand=2))  # KS 7S: 7½
    table.do(stand(3, hand=3), hit(3, "6S", hand=0), stand(3, hand=0))  # JH stood on ½; JS 6S: 6½
    assert table.state.turn == 3
    table.do(hit(3, "7C", hand=1))  # QS 7C: 7½, the seat's last hand: its turn ends
    assert table.state.turn == 2
    table.do(stand(2), stand(1), hit(0, "2C"), stand(0))  # the banker 7
    lines = [line for line in table.state.lines if line.seat == 3]
    assert [line.points for line in lines] == [-4, 6, 6, -4]
    assert said(lines[1].reason).startswith("seat 3's hand 1: 7½ at event 15 against the banker's 7 at event 19")
    assert table.points == (0, -2, -2, 4)
    assert table.state.next_banker == 3


def test_a_split_hand_that_keeps_a_face_card_and_takes_a_seven_is_a_two_card_seven_and_a_half() -> None:
    table = dealt(["5C", "6D", "3H", "JS"], {3: 4, 2: 2, 1: 2}, {**SPLIT, "two_card_bonus": True})
    table.do(hit(3, "QS"), split(3, 0, 5), hit(3, "7S", hand=0))
    assert table.pos.facts["two_card"] is True
    table.do(hit(3, "AS", hand=1), stand(3, hand=1), stand(2), stand(1), stand(0))
    assert [line.points for line in table.state.lines if line.seat == 3] == [8, -5]


# --------------------------------------------------------------------------- decisions offered


def test_between_hands_every_stake_amount_bank_pass_and_close_are_offered() -> None:
    table = Table(options={"max_bet": 100})
    offered = RULES.legal_events(table.state)
    assert len(offered) == 3 * 100 + 3 + 1
    assert offered == sorted(offered, key=lambda e: (e["type"], e.get("seat", -1), e.get("amount", 0), e.get("to", -1)))
    assert {"type": "session_closed"} in offered and {"type": "bank_passed", "to": 0} not in offered
    for event in offered[::37] + offered[-5:]:
        assert decide(KIND, table.pos, event).violation is None
    table.do(bet(2, 50))
    offered = RULES.legal_events(table.state)
    assert {e["seat"] for e in offered} == {1, 3} and len(offered) == 200
    assert RULES.chance_events(table.state, random.Random(0)) == []


def test_during_play_stand_split_and_flip_are_offered_and_hits_are_chance() -> None:
    table = dealt(["5C", "6D", "3H", "JS"], {3: 99, 2: 2, 1: 2}, {**SPLIT, **FD})
    offered = RULES.legal_events(table.state)
    assert offered == [{"type": "flip", "seat": 3}, {"type": "stand", "seat": 3}]
    chance = RULES.chance_events(table.state, random.Random(3))
    assert len(chance) == 1 and chance[0]["card"] not in table.state.seen  # no face-down hit while holding one
    table.do({"type": "flip", "seat": 3}, hit(3, "QS"))
    offered = RULES.legal_events(table.state)
    assert [e["type"] for e in offered] == ["split", "split", "stand"]
    assert [e.get("amount") for e in offered] == [99, 100, None]
    chance = RULES.chance_events(table.state, random.Random(3))
    assert [bool(e.get("face_down")) for e in chance] == [False, True]
    for event in [*offered, *chance]:
        assert decide(KIND, table.pos, event).violation is None
    table.do(dict(offered[0]))
    assert {e.get("hand") for e in RULES.legal_events(table.state)} == {0, 1}
    assert {e.get("hand") for e in RULES.chance_events(table.state, random.Random(1))} == {0, 1}


def test_the_banker_is_offered_a_stand_and_never_a_face_down_hit() -> None:
    table = dealt(["5C", "6D", "3H", "4S"], options=FD)
    table.do(stand(3), stand(2), stand(1))
    assert RULES.legal_events(table.state) == [{"type": "stand", "seat": 0}]
    chance = RULES.chance_events(table.state, random.Random(5))
    assert len(chance) == 1 and "face_down" not in chance[0]


def test_the_deal_is_a_chance_event_from_the_forty_card_deck() -> None:
    table = Table([bet(3, 1), bet(2, 1), bet(1, 1)])
    assert RULES.legal_events(table.state) == []
    (event,) = RULES.chance_events(table.state, random.Random(7))
    cards = list(event["cards"].values())
    assert sorted(event["cards"]) == ["0", "1", "2", "3"] and len(set(cards)) == 4
    assert all(c[0] not in "89T" for c in cards)
    assert decide(KIND, table.pos, event).violation is None


# --------------------------------------------------------------------------- what each seat sees


def test_dealt_cards_are_face_down_and_the_bankers_is_shown_when_its_turn_begins() -> None:
    table = dealt(["5C", "6D", "3H", "4S"])
    for looker, own in ((1, {"6D"}), (2, {"3H"}), (3, {"4S"}), (SPECTATOR, set())):
        assert cards_in(RULES.view(table.state, looker)) == own
    assert RULES.view(table.state, 0)["seats"][0]["cards"] == ["5C"]
    assert cards_in(RULES.view(table.state, OMNISCIENT)) == {"5C", "6D", "3H", "4S"}
    assert RULES.view(table.state, 2)["seats"][1]["hands"][0]["total"] is None
    assert RULES.redact_event(deal("5C", "6D", "3H", "4S"), 2)["cards"] == {
        "0": HIDDEN,
        "1": HIDDEN,
        "2": "3H",
        "3": HIDDEN,
    }
    assert RULES.redact_event(deal("5C", "6D", "3H", "4S"), OMNISCIENT)["cards"]["0"] == "5C"
    table.do(hit(3, "AC"))
    assert RULES.view(table.state, 1)["seats"][3]["cards"] == [HIDDEN, "AC"]
    assert RULES.redact_event(hit(3, "AC"), 1)["card"] == "AC"
    assert "total" not in table.pos.facts  # the total would tell the face-down card
    table.do(stand(3), stand(2), stand(1))
    assert "5C" in cards_in(RULES.view(table.state, 1))
    assert RULES.view(table.state, 1)["table"]["banker_card_shown"] is True
    assert RULES.census(table.state).private[0] == frozenset()
    table.do(stand(0))
    assert cards_in(RULES.view(table.state, SPECTATOR)) == {"5C", "6D", "3H", "4S", "AC"}


def test_view_phases_and_to_act() -> None:
    table = Table()
    doc = RULES.view(table.state, SPECTATOR)
    assert doc["phase"] == "between" and doc["to_act"] == [3, 2, 1]
    table.do(bet(2, 1))
    assert RULES.view(table.state, SPECTATOR)["to_act"] == [3, 1]
    table.do(bet(3, 1), bet(1, 1))
    assert RULES.view(table.state, SPECTATOR)["phase"] == "deal"
    assert RULES.view(table.state, SPECTATOR)["to_act"] == [0]
    table.do(deal("5C", "6D", "3H", "4S"))
    doc = RULES.view(table.state, SPECTATOR)
    assert doc["phase"] == "play" and doc["table"]["order"] == [3, 2, 1] and doc["table"]["turn"] == 3
    assert doc["seats"][0]["banker"] is True and doc["seats"][1]["hands"][0]["stake"] == 1
    table.do(stand(3), stand(2), stand(1))
    assert RULES.view(table.state, SPECTATOR)["phase"] == "banker"
    table.do({"type": "note", "text": "fine"}, stand(0), {"type": "session_closed"})
    assert RULES.view(table.state, SPECTATOR)["phase"] == "over"
    assert RULES.view(table.state, SPECTATOR)["to_act"] == []


def test_census_places_every_card_once() -> None:
    table = dealt(["5C", "6D", "3H", "JS"], {3: 4, 2: 2, 1: 2}, SPLIT)
    table.do(hit(3, "QS"), split(3, 0, 4), hit(3, "AC", hand=1))
    census = check_census(RULES, table.state)
    assert census.places["seat 3 hand 1"] == ("QS", "AC")
    assert census.unseen == 40 - 6
    assert census.private == {0: {"5C"}, 1: {"6D"}, 2: {"3H"}, 3: {"JS"}}


# --------------------------------------------------------------------------- golden records


@pytest.mark.parametrize("name", examples_of(KIND))
def test_golden_records_fold_to_their_expected_score(name: str) -> None:
    example = load_example(name)
    rules = rules_for(example["game"])
    options = rules.options_for(example["players"], example["options"])
    position = engine.start(rules, example["players"], options)
    for event in example["events"]:
        decision = engine.decide(rules, position, event)
        assert decision.violation is None
        position = engine.apply(rules, position, decision.event, position.seq + 1)
    assert expected_of(rules.score(position.game).to_dict()) == {
        k: example["expected"][k] for k in ("totals", "winner", "hands")
    }


def test_golden_records_exist() -> None:
    assert examples_of(KIND) == ["seven-and-a-half-9001.json", "seven-and-a-half-9002.json"]


def test_invalid_event_is_not_impossible() -> None:
    with pytest.raises(InvalidEventError):
        decide(KIND, Table().pos, {"type": "bet", "seat": "1", "amount": 1})


# --------------------------------------------------------------------------- bounds: options, stakes, legal_events

WIDEST = {"min_bet": 1, "max_bet": MAX_AMOUNT}


def test_table_limits_are_bounded_by_ten_to_the_ninth() -> None:
    """An unbounded `max_bet` once took 2**64 (no store holds it: a 500) and made legal_events crawl."""
    assert RULES.options_for(P4, WIDEST)["max_bet"] == MAX_AMOUNT
    for name in ("min_bet", "max_bet"):
        for bad in (MAX_AMOUNT + 1, 2**63 - 1, 2**64):
            with pytest.raises(UnknownGameError, match=f"option '{name}' must be an integer from 1 to 1,000,000,000"):
                RULES.options_for(P4, {name: bad})


def test_a_stake_beyond_ten_to_the_ninth_is_invalid_even_under_record() -> None:
    """Stakes of 2**63 - 1 were stored as violations under `record`, and every later `stand` answered 500."""
    recording = Table(options={"enforcement": "record"})
    for amount in (MAX_AMOUNT + 1, -MAX_AMOUNT - 1, 2**63 - 1, 2**64 - 1):
        expect_invalid(KIND, recording.pos, bet(3, amount), "amount: ")
    table = dealt(["5C", "6D", "3H", "JS"], {3: 4, 2: 2, 1: 2}, {**SPLIT, "enforcement": "record"})
    table.do(hit(3, "QS"))
    expect_invalid(KIND, table.pos, split(3, 0, MAX_AMOUNT + 1), "amount: ")


def test_the_largest_stakes_recorded_as_violations_settle_with_exact_points() -> None:
    """Stakes of 10**9 against limits of 1 to 100, paid triple on a pair of sevens: plain integers throughout."""
    table = Table(options={"enforcement": "record", "pair_of_sevens": True})
    table.stakes({3: MAX_AMOUNT, 2: MAX_AMOUNT, 1: -MAX_AMOUNT})
    table.do(deal("6C", "AD", "7C", "7D"), hit(3, "7H"), hit(2, "7S"), stand(1), hit(0, "KH"), stand(0))
    assert table.state.phase == "between"
    # the pairs are paid triple; seat 1's stake of -10**9 loses to the banker's 6½: seat 1 "pays" -10**9
    assert table.points == (-7 * MAX_AMOUNT, MAX_AMOUNT, 3 * MAX_AMOUNT, 3 * MAX_AMOUNT)
    assert all(type(p) is int for p in RULES.score(table.state).totals)


def test_offered_stakes_are_every_amount_up_to_a_hundred_then_the_limits_and_round_amounts() -> None:
    assert offered_stakes(1, 100) == list(range(1, 101))
    assert offered_stakes(5, 5) == [5] and offered_stakes(6, 5) == []
    assert offered_stakes(1, 101) == [1, 2, 5, 10, 20, 50, 100, 101]
    assert offered_stakes(37, 10**6) == [
        37,
        50,
        100,
        200,
        500,
        *(m * 10**k for k in (3, 4, 5) for m in (1, 2, 5)),
        10**6,
    ]
    widest = offered_stakes(1, MAX_AMOUNT)
    assert len(widest) == 28 and widest[:3] == [1, 2, 5] and widest[-1] == MAX_AMOUNT


def test_legal_events_at_the_widest_limits_are_few_fast_and_each_accepted() -> None:
    """legal_events once listed every stake: 19 s a call with max_bet 10**6. Now a bounded list (its length is
    asserted, not its time: the wall clock of a busy machine says nothing of the code)."""
    table = Table(options=WIDEST)
    offered = RULES.legal_events(table.state)
    bets = [e for e in offered if e["type"] == "bet"]
    assert len(bets) == 3 * len(offered_stakes(1, MAX_AMOUNT)) and len(offered) == len(bets) + 3 + 1
    assert offered == sorted(offered, key=lambda e: (e["type"], e.get("seat", -1), e.get("amount", 0), e.get("to", -1)))
    for event in offered:
        assert decide(KIND, table.pos, event).violation is None


@pytest.mark.parametrize("options", [{}, {"min_bet": 5, "max_bet": 50}, WIDEST, {"min_bet": 777, "max_bet": 10**6}])
def test_every_stake_validate_accepts_lies_within_the_offered_range(options: dict[str, Any]) -> None:
    """Completeness of a sampled list: its ends are the limits, so every accepted amount lies between two offered."""
    table = Table(options=options)
    amounts = [e["amount"] for e in RULES.legal_events(table.state) if e["type"] == "bet" and e["seat"] == 3]
    low, high = table.state.limits
    assert (amounts[0], amounts[-1]) == (low, high) and len(amounts) <= ALL_STAKES_UP_TO
    rng = random.Random(12)
    for amount in {low, high, *(rng.randint(low, high) for _ in range(50))}:
        assert decide(KIND, table.pos, bet(3, amount)).violation is None
    expect_illegal(KIND, table.pos, bet(3, low - 1), "half.stake_limits")
    if high < MAX_AMOUNT:
        expect_illegal(KIND, table.pos, bet(3, high + 1), "half.stake_limits")
    else:  # beyond the widest limits a stake is not well formed at all
        expect_invalid(KIND, table.pos, bet(3, high + 1), "is above 1000000000")


def test_split_stakes_offered_at_the_widest_limits_run_from_the_stake_to_the_limit() -> None:
    table = dealt(["5C", "6D", "3H", "JS"], {3: 300, 2: 2, 1: 2}, {**SPLIT, **WIDEST})
    table.do(hit(3, "QS"))
    amounts = [e["amount"] for e in RULES.legal_events(table.state) if e["type"] == "split"]
    assert amounts == offered_stakes(300, MAX_AMOUNT) and (amounts[0], amounts[-1]) == (300, MAX_AMOUNT)
    for amount in (amounts[1], 301, MAX_AMOUNT - 1):
        assert decide(KIND, table.pos, split(3, 0, amount)).violation is None
