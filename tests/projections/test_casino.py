"""Casino (`rules/casino.md`): given events => event => expected state or error.

Seats in these tests: two players unless said otherwise, seat 0 deals, so
seat 1 plays first (left of the dealer). With three players the order after
a deal by seat 0 is 1, 2, 0.
"""

from __future__ import annotations

import random
import re
from dataclasses import replace
from typing import Any

import pytest

from events.errors import UnknownGameError
from events.games.casino import build_value
from projections.core import phrases
from projections.core.engine import Position
from projections.core.registry import rules_for
from projections.core.rules import HIDDEN, OMNISCIENT, SPECTATOR
from projections.core.simulate import play
from projections.games.casino import CasinoState
from projections.games.casino._groups import value_of
from projections.games.casino._state import CARD_SET, Build
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
    with_options,
)

KIND = "casino"
RULES = rules_for(KIND)


def said(marked: str) -> str:
    """A `match=` pattern for a message written with phrase markers (`{seat:1} deals`)."""
    return re.escape(marked)


# --------------------------------------------------------------------------- helpers


def deal(hands: list[list[str]], table: list[str] | None = None, dealer: int = 0) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "deal", "dealer": dealer, "hands": hands}
    if table is not None:
        event["table"] = table
    return event


def cap(seat: int, card: str, *take: str) -> dict[str, Any]:
    return {"type": "capture", "seat": seat, "card": card, "take": list(take)}


def build(seat: int, card: str, onto: list[str], value: int | str) -> dict[str, Any]:
    return {"type": "build", "seat": seat, "card": card, "onto": onto, "value": value}


def trail(seat: int, card: str) -> dict[str, Any]:
    return {"type": "trail", "seat": seat, "card": card}


def start(
    hands: list[list[str]],
    table: list[str],
    *events: dict[str, Any],
    dealer: int = 0,
    options: dict[str, Any] | None = None,
) -> Position[CasinoState]:
    """The position after a round's first deal by `dealer`, then `events`."""
    players = [f"P{i}" for i in range(len(hands))]
    opts = {"first_dealer": dealer, **(options or {})}
    state: Position[CasinoState] = given(KIND, [deal(hands, table, dealer), *events], players=players, options=opts)
    return state


def recording(state: Position[CasinoState]) -> Position[CasinoState]:
    recorded: Position[CasinoState] = with_options(state, enforcement="record")
    return recorded


def trail_out(state: Position[CasinoState]) -> Position[CasinoState]:
    """Every seat trails its cards, lowest first, until the hands are empty."""
    while state.game.phase == "play":
        seat = state.game.to_play
        state = then(KIND, state, trail(seat, sorted(state.game.hands[seat])[0]))
    return state


def last_card(
    *,
    won: list[list[str]],
    loose: list[str],
    held: str,
    last_capture: tuple[int, int] | None,
    cleared: tuple[tuple[int, int], ...] = (),
    builds: tuple[Build, ...] = (),
    totals: tuple[int, int] = (0, 0),
    options: dict[str, Any] | None = None,
) -> Position[CasinoState]:
    """A two-player round at its last card: seat 0 (the dealer) holds `held`.

    `won[s]` was captured by seat s at event 10 + s. The piles, the table and the
    last card together must be the whole deck.
    """
    state = start([["2C", "3C", "4C", "5C"], ["2D", "3D", "4D", "5D"]], ["6C", "7C", "8C", "9C"], options=options)
    piles = tuple(tuple((c, 10 + s) for c in pile) for s, pile in enumerate(won))
    everything = [*won[0], *won[1], *loose, held, *(c for b in builds for c in b.cards)]
    assert sorted(everything) == sorted(CARD_SET), "the crafted round must hold the whole deck once"
    game = replace(
        state.game,
        deals=6,
        seen=CARD_SET,
        hands=(frozenset({held}), frozenset()),
        to_play=0,
        loose=tuple(loose),
        builds=builds,
        won=piles,
        last_capture=last_capture,
        cleared=cleared,
        totals=totals,
    )
    return replace(state, game=game, seq=30)


def lines_of(state: Position[CasinoState], hand: int) -> list[tuple[int, int, str, tuple[int, ...]]]:
    sheet = RULES.score(state.game).hand(hand)
    assert sheet is not None
    return [(line.seat, line.points, line.rule, line.events) for line in sheet.lines]


H2 = [["4C", "9D", "QH", "JS"], ["8D", "3C", "KS", "KH"]]
T2 = ["8C", "2D", "6H", "5S"]
CLUBS = [r + "C" for r in "A23456789TJQK"]
HEARTS = [r + "H" for r in "A23456789TJQK"]
DIAMONDS = [r + "D" for r in "A2345678JQK"]  # no TD, no 9D
SPADES = [r + "S" for r in "A3456789TJQ"]  # no 2S, no KS


# --------------------------------------------------------------------------- options and players


def test_options_are_filled_with_their_defaults() -> None:
    assert RULES.options_for(["a", "b"], {}) == {
        "first_dealer": 0,
        "target": 21,
        "sweeps": False,
        "trail_only_when_forced": False,
        "enforcement": "strict",
        "dealing": "table",
    }
    assert RULES.options_for(["a", "b", "c"], {"target": 11, "sweeps": True, "first_dealer": 2})["target"] == 11


@pytest.mark.parametrize(
    "options",
    [{"bonus": 1}, {"target": 0}, {"target": "21"}, {"sweeps": "yes"}, {"first_dealer": 2}, {"enforcement": "lax"}],
)
def test_unknown_option_or_value_out_of_range_is_refused(options: dict[str, Any]) -> None:
    with pytest.raises(UnknownGameError):
        RULES.options_for(["a", "b"], options)


@pytest.mark.parametrize("players", [1, 5])
def test_two_to_four_players(players: int) -> None:
    with pytest.raises(UnknownGameError, match="2 or 3 or 4"):
        RULES.options_for([f"P{i}" for i in range(players)], {})


# --------------------------------------------------------------------------- shapes (invalid)


def test_malformed_events_are_invalid() -> None:
    state = start(H2, ["8C", "2D", "6H", "5S"])
    expect_invalid(KIND, state, build(1, "3C", ["5S"], "X"), "value")
    expect_invalid(KIND, state, build(1, "3C", ["5S"], True), "value")
    expect_invalid(KIND, state, cap(1, "8D", "zz"), "take")
    expect_invalid(KIND, state, {**trail(1, "KS"), "take": []}, "unknown field")
    expect_invalid(KIND, state, {"type": "capture", "seat": 1, "card": "8D"}, "take")
    expect_invalid(KIND, state, trail(2, "KS"), "out of range")
    expect_invalid(KIND, state, trail(1, "1S"), "card code")
    fresh = given(KIND, [], options={})
    expect_invalid(
        KIND, fresh, deal([["8D", "3C", "KS"], ["4C", "9D", "QH", "JS"]], ["8C", "2D", "6H", "5S"]), "expected 4 items"
    )


def test_items_and_values_are_normalised() -> None:
    state = start(H2, ["8C", "2D", "6H", "5S"])
    decision = decide(KIND, state, {"type": "build", "seat": 1, "card": "3c", "onto": ["5s"], "value": 8})
    assert decision.event == build(1, "3C", ["5S"], 8)
    assert build_value("k", "value", 2) == "K"
    state = then(KIND, state, decision.event)
    state = then(KIND, state, trail(0, "4C"))
    assert decide(KIND, state, cap(1, "8D", "B1", "8c")).event["take"] == ["b1", "8C"]


# --------------------------------------------------------------------------- dealing


def test_first_deal_opens_a_hand_and_play_starts_left_of_the_dealer() -> None:
    state = start(H2, ["8C", "2D", "6H", "5S"])
    assert (state.hand, state.game.phase, state.game.to_play, state.game.deals) == (1, "play", 1, 1)
    assert state.game.loose == ("8C", "2D", "6H", "5S")
    assert state.facts == {"deal": 1, "last_deal": False, "stock": 40}
    three = start(
        [["8D", "3C", "KS", "KH"], ["4C", "9D", "QH", "JS"], ["2H", "3H", "4H", "5H"]],
        ["8C", "2D", "6H", "5S"],
        dealer=2,
    )
    assert three.game.to_play == 0
    assert RULES.view(three.game, SPECTATOR)["to_act"] == [0]


def test_first_deal_needs_the_table_and_the_due_dealer() -> None:
    fresh = given(KIND, [], options={"first_dealer": 1})
    hands = H2
    expect_impossible(KIND, fresh, deal(hands, dealer=1), "table")
    expect_impossible(KIND, fresh, deal(hands, ["8C", "2D", "6H", "5S"], dealer=0), said(f"{phrases.seat(1)} deals"))
    expect_impossible(
        KIND, fresh, deal(hands, ["8C", "2D", "6H", "8D"], dealer=1), said(f"{phrases.card('8D')} is named twice")
    )
    expect_impossible(KIND, fresh, trail(0, "8D"), said(f"a deal by {phrases.seat(1)} is due"))


def test_later_deals_continue_the_round_without_table() -> None:
    state = start(H2, ["8C", "2D", "6H", "5S"])
    expect_impossible(
        KIND, state, deal([["AS", "AC", "AD", "AH"], ["2S", "2C", "2H", "3S"]]), said(f"{phrases.seat(1)} is to play")
    )
    state = trail_out(state)
    assert state.game.phase == "deal" and state.hand == 1 and RULES.hand_in_progress(state.game)
    second = [["AS", "AC", "AD", "AH"], ["2S", "2C", "2H", "3S"]]
    expect_impossible(KIND, state, deal(second, ["4S", "4D", "4H", "5C"]), "only the first deal")
    expect_impossible(KIND, state, deal(second, dealer=1), said(f"{phrases.seat(0)} deals now"))
    expect_impossible(
        KIND,
        state,
        deal([["AS", "AC", "AD", "AH"], ["2S", "2C", "2H", "8C"]]),
        said(f"{phrases.card('8C')} has already been seen"),
    )
    state = then(KIND, state, deal(second))
    assert (state.hand, state.game.deals, state.game.to_play) == (1, 2, 1)
    assert state.facts == {"deal": 2, "last_deal": False, "stock": 32}
    assert state.game.loose == ("8C", "2D", "6H", "5S", "3C", "4C", "8D", "9D", "KH", "JS", "KS", "QH")


@pytest.mark.parametrize(("players", "deals"), [(2, 6), (3, 4), (4, 3)])
def test_the_deck_runs_out_after_6_4_or_3_deals(players: int, deals: int) -> None:
    cards = sorted(CARD_SET)
    hands = [cards[4 * s : 4 * s + 4] for s in range(players)]
    state = start(hands, cards[4 * players : 4 * players + 4])
    used = 4 * players + 4
    facts = [state.facts]
    for _ in range(deals - 1):
        state = trail_out(state)
        state = then(KIND, state, deal([cards[used + 4 * s : used + 4 * s + 4] for s in range(players)]))
        used += 4 * players
        facts.append(state.facts)
    assert used == 52
    assert [f["last_deal"] for f in facts] == [False] * (deals - 1) + [True]
    assert RULES.view(state.game, OMNISCIENT)["table"]["last_deal"] is True
    state = trail_out(state)
    # nobody captured: the round ends, its table counts for nobody, the next dealer deals
    assert state.facts["hand_ended"] is True and state.facts["rest"]["seat"] is None
    assert state.game.phase == "deal" and not RULES.hand_in_progress(state.game)
    assert RULES.score(state.game).hands[0].points == (0,) * players
    assert RULES.view(state.game, SPECTATOR)["to_act"] == [1]
    check_census(RULES, state)


# --------------------------------------------------------------------------- turns


def test_out_of_turn_and_cards_not_held_are_impossible() -> None:
    state = start(H2, ["8C", "2D", "6H", "5S"])
    expect_impossible(KIND, state, trail(0, "4C"), said(f"{phrases.seat(1)}'s turn"))
    expect_impossible(KIND, state, trail(1, "4C"), said(f"{phrases.seat(1)} does not hold {phrases.card('4C')}"))
    expect_impossible(KIND, state, cap(1, "8C", "8C"), said(f"does not hold {phrases.card('8C')}"))


# --------------------------------------------------------------------------- captures

#: three players, seat 0 deals: seat 1 builds 4D on 4C (8), seat 2 trails 5S, seat 0 trails 3H
SWEEP_SETUP = (
    [["3H", "8H", "9D", "JC"], ["4D", "8D", "KS", "KH"], ["5S", "QC", "QD", "9S"]],
    ["8C", "4C", "2D", "6H"],
    build(1, "4D", ["4C"], 8),
    trail(2, "5S"),
    trail(0, "3H"),
)


def test_capture_of_several_groups_at_once_is_a_sweep() -> None:
    state = start(*SWEEP_SETUP[:2], *SWEEP_SETUP[2:])
    assert [b.to_dict() for b in state.game.builds] == [
        {
            "id": "b1",
            "value": 8,
            "cards": ["4C", "4D"],
            "multiple": False,
            "owner": 1,
            "seq": 2,
            "groups": [["4C", "4D"]],
        }
    ]
    event = cap(1, "8D", "8C", "2D", "6H", "5S", "3H", "b1")
    state = then(KIND, state, event)
    assert state.facts == {
        "captured": ["8D", "8C", "2D", "6H", "5S", "3H", "4C", "4D"],
        "builds": ["b1"],
        "table_cleared": True,
    }
    assert state.game.loose == () and state.game.builds == ()
    assert [c for c, _ in state.game.won[1]] == ["8D", "8C", "2D", "6H", "5S", "3H", "4C", "4D"]
    assert {q for _, q in state.game.won[1]} == {5}
    # not tagged `sweep` yet: only the round's end facts (`sweeps`) tell a sweep from the last capture
    assert RULES.situations(event, state.facts) == ["build_captured"]


def test_the_capturer_chooses_what_to_take() -> None:
    state = start(*SWEEP_SETUP[:2], *SWEEP_SETUP[2:])
    state = then(KIND, state, cap(1, "8D", "2D", "6H", "b1"))
    assert state.game.loose == ("8C", "5S", "3H") and "table_cleared" not in state.facts


@pytest.mark.parametrize(
    ("take", "why"),
    [
        (["2D", "5S"], "do not split into groups adding up to 8"),
        (["2D", "6H", "5S"], "do not split"),
        (["b2"], "no build b2"),
        (["7C"], said(f"{phrases.card('7C')} is not a loose card on the table")),
        ([], "names no table item"),
        (["8C", "8C"], said(f"{phrases.card('8C')} twice")),
    ],
)
def test_captures_that_do_not_add_up_are_impossible(take: list[str], why: str) -> None:
    state = start(*SWEEP_SETUP[:2], *SWEEP_SETUP[2:])
    expect_impossible(KIND, state, cap(1, "8D", *take), why)


def test_number_cards_take_neither_faces_nor_builds_of_another_value() -> None:
    state = start([["QH", "9D", "2S", "3S"], ["7C", "5H", "KS", "KH"]], ["KD", "5D", "2D", "JH"])
    state = then(KIND, state, build(1, "5H", ["2D"], 7))
    expect_impossible(KIND, state, cap(0, "9D", "b1", "2D"), "not a loose card")
    expect_impossible(KIND, state, cap(0, "2S", "b1"), "captures only builds of 2; b1 is a build of 7")
    state = start([["QH", "9D", "2S", "3S"], ["7C", "5H", "KS", "KH"]], ["KD", "5D", "2D", "JH"])
    expect_impossible(KIND, state, cap(1, "5H", "JH"), said(f"{phrases.card('JH')} has no number"))
    expect_impossible(KIND, state, cap(1, "KS", "5D"), "a K captures only loose Ks")


def test_face_cards_pair_one_or_take_all_three() -> None:
    hands = [["2C", "3C", "4C", "5C"], ["QC", "KS", "6D", "7D"]]
    state = start(hands, ["QH", "QD", "QS", "5H"])
    expect_impossible(KIND, state, cap(1, "QC", "QH", "QD"), "not 2 of the 3")
    one = then(KIND, state, cap(1, "QC", "QD"))
    assert one.game.loose == ("QH", "QS", "5H") and "three_faces" not in one.facts
    event = cap(1, "QC", "QH", "QD", "QS")
    three = then(KIND, state, event)
    assert three.game.loose == ("5H",) and three.facts["three_faces"] is True
    assert "three_faces" in RULES.situations(event, three.facts)
    two_only = start(hands, ["QH", "QD", "6S", "5H"])
    expect_impossible(KIND, two_only, cap(1, "QC", "QH", "QD"), "not 2 of the 2")


def test_face_build_is_taken_by_its_rank_alone_or_with_one_loose_card() -> None:
    hands = [["2C", "3C", "4C", "5C"], ["KH", "KD", "6D", "7D"]]
    state = start(hands, ["KS", "KC", "9S", "5H"], build(1, "KH", ["KS"], "K"), trail(0, "2C"))
    assert state.game.builds[0].value == "K" and state.game.builds[0].cards == ("KS", "KH")
    assert state.facts == {} and state.game.loose == ("KC", "9S", "5H", "2C")
    both = then(KIND, state, cap(1, "KD", "b1", "KC"))
    assert both.facts["captured"] == ["KD", "KC", "KS", "KH"]
    alone = then(KIND, state, cap(1, "KD", "b1"))
    assert alone.game.loose == ("KC", "9S", "5H", "2C")


# --------------------------------------------------------------------------- builds

BUILD_HANDS = [["3S", "8C", "7D", "QH"], ["2H", "5S", "TD", "KC"]]
BUILD_TABLE = ["3D", "9H", "JS", "5C"]


def test_single_build_gets_an_id_and_an_owner() -> None:
    event = build(1, "2H", ["3D"], 5)
    state = start(BUILD_HANDS, BUILD_TABLE, event)
    assert state.facts == {"build": "b1", "value": 5, "cards": ["3D", "2H"], "multiple": False}
    assert state.game.loose == ("9H", "JS", "5C")
    view = RULES.view(state.game, SPECTATOR)
    assert view["table"]["builds"] == [
        {
            "id": "b1",
            "value": 5,
            "cards": ["3D", "2H"],
            "multiple": False,
            "owner": 1,
            "seq": 2,
            "groups": [["3D", "2H"]],
        }
    ]
    assert view["seats"][1]["builds"] == ["b1"]
    assert RULES.situations(event, state.facts) == ["build"]


def test_multiple_build_and_a_card_alone_next_to_a_group() -> None:
    hands = [["3S", "8C", "TD", "QH"], ["3C", "8S", "8D", "KC"]]
    event = build(1, "3C", ["5D", "8H"], 8)
    state = start(hands, ["5D", "8H", "9H", "JS"], event)
    assert state.facts["multiple"] is True and state.game.builds[0].cards == ("5D", "8H", "3C")
    assert RULES.situations(event, state.facts) == ["build", "multiple_build"]
    alone = start(hands, ["5D", "8H", "9H", "JS"], build(1, "8S", ["8H"], 8))
    assert alone.facts["multiple"] is True and alone.game.builds[0].value == 8


@pytest.mark.parametrize(
    ("event", "why"),
    [
        (build(1, "2H", ["3D"], 11), "2 to 10, not 11"),
        (build(1, "2H", ["3D"], 1), "2 to 10, not 1"),
        (build(1, "5S", ["5C", "9H"], 14), "2 to 10"),
        (build(1, "2H", ["9H"], 8), "do not split"),
        (build(1, "TD", ["3D"], 8), "worth more"),
        (build(1, "2H", ["3D", "9H"], 7), "do not split into groups adding up to 7"),
        (build(1, "2H", ["JS"], 5), said(f"{phrases.card('JS')} has no number")),
        (build(1, "2H", [], 5), "names no table item"),
        (build(1, "2H", ["3D"], "K"), "face build of Ks is made with a K"),
        (build(1, "KC", ["3D"], 5), "makes only a face build of Ks"),
        (build(1, "KC", ["JS"], "K"), "onto one loose K"),
    ],
)
def test_builds_that_do_not_add_up_are_impossible(event: dict[str, Any], why: str) -> None:
    state = start(BUILD_HANDS, BUILD_TABLE)
    expect_impossible(KIND, state, event, why)


def test_a_build_over_ten_is_impossible_even_when_also_illegal() -> None:
    state = start(BUILD_HANDS, BUILD_TABLE)
    # no card of 14 is held (illegal), but a build over 10 is impossible first
    expect_impossible(KIND, state, build(1, "5S", ["9H"], 14), "2 to 10")


def test_increasing_another_players_build_keeps_the_id_and_takes_ownership() -> None:
    state = start(BUILD_HANDS, BUILD_TABLE, build(1, "2H", ["3D"], 5))
    event = build(0, "3S", ["b1"], 8)
    state = then(KIND, state, event)
    assert state.facts == {"build": "b1", "value": 8, "cards": ["3D", "2H", "3S"], "multiple": False, "increased": True}
    assert [(b.id, b.value, b.owner) for b in state.game.builds] == [("b1", 8, 0)]
    assert "increase" in RULES.situations(event, state.facts)
    # seat 1 owns nothing any more and may trail
    state = then(KIND, state, trail(1, "KC"))
    assert state.game.loose[-1] == "KC"


def test_increasing_ones_own_build_answers_to_rule_one_only() -> None:
    state = start(BUILD_HANDS, BUILD_TABLE, build(1, "2H", ["3D"], 5), trail(0, "QH"))
    # seat 1 plays its 5 onto its build of 5: it keeps no 5, but holds the T for the new value
    state = then(KIND, state, build(1, "5S", ["b1"], 10))
    assert [(b.id, b.value, b.owner, b.cards) for b in state.game.builds] == [("b1", 10, 1, ("3D", "2H", "5S"))]


def test_an_increase_uses_the_played_card_alone() -> None:
    state = start(BUILD_HANDS, BUILD_TABLE, build(1, "2H", ["3D"], 5))
    expect_impossible(KIND, state, build(0, "3S", ["b1", "5C"], 13), "2 to 10")
    expect_impossible(KIND, state, build(0, "3S", ["b1", "5C"], 8), "b1 is a build of 5")


def test_a_build_made_from_builds_gets_a_new_id() -> None:
    hands = [["3H", "8S", "7D", "QH"], ["4D", "8D", "KC", "KH"]]
    state = start(hands, ["4C", "5S", "9H", "JS"], build(1, "4D", ["4C"], 8))
    state = then(KIND, state, build(0, "3H", ["5S", "b1"], 8))
    assert state.facts == {
        "build": "b2",
        "value": 8,
        "cards": ["5S", "4C", "4D", "3H"],
        "multiple": True,
        "replaced": ["b1"],
    }
    assert [(b.id, b.owner) for b in state.game.builds] == [("b2", 0)]
    expect_impossible(KIND, state, cap(1, "8D", "b1"), "no build b1")
    state = then(KIND, state, trail(1, "KC"))  # seat 1 owns no build now
    # a multiple build may be taken into a larger multiple build of the same value
    assert RULES.view(state.game, SPECTATOR)["table"]["builds"][0]["id"] == "b2"


def test_multiple_build_taken_into_a_larger_one() -> None:
    hands = [["2C", "8S", "3C", "QH"], ["3H", "8D", "6C", "KH"]]
    state = start(hands, ["5D", "8H", "6S", "9H"], build(1, "3H", ["5D", "8H"], 8))
    state = then(KIND, state, build(0, "2C", ["6S", "b1"], 8))
    assert (state.game.builds[0].id, state.game.builds[0].multiple, state.game.builds[0].owner) == ("b2", True, 0)
    assert state.game.builds[0].cards == ("6S", "5D", "8H", "3H", "2C")


def test_a_multiple_build_shows_its_groups_and_its_owner() -> None:
    hands = [["2C", "8S", "3C", "QH"], ["3H", "8D", "6C", "KH"]]
    state = start(hands, ["5D", "8H", "6S", "9H"], build(1, "3H", ["5D", "8H"], 8))
    shown = RULES.view(state.game, SPECTATOR)["table"]["builds"]
    assert [(b["id"], b["owner"], b["groups"]) for b in shown] == [("b1", 1, [["5D", "3H"], ["8H"]])]
    # taken into a larger one: the old build's groups, then the new cards' group, and the new owner
    state = then(KIND, state, build(0, "2C", ["6S", "b1"], 8))
    shown = RULES.view(state.game, SPECTATOR)["table"]["builds"]
    assert [(b["id"], b["owner"], b["groups"]) for b in shown] == [("b2", 0, [["5D", "3H"], ["8H"], ["6S", "2C"]])]
    assert all(sum(value_of(c) or 0 for c in g) == 8 for g in shown[0]["groups"])
    # the rules' results are the same as before: the facts list the cards, not the groups
    assert state.facts == {
        "build": "b2",
        "value": 8,
        "cards": ["6S", "5D", "8H", "3H", "2C"],
        "multiple": True,
        "replaced": ["b1"],
    }


def test_the_last_capture_says_who_played_which_card_and_what_it_took() -> None:
    state = start(*SWEEP_SETUP[:2], *SWEEP_SETUP[2:])
    assert RULES.view(state.game, SPECTATOR)["table"]["last_capture"] is None
    state = then(KIND, state, cap(1, "8D", "8C", "b1"))
    last = RULES.view(state.game, SPECTATOR)["table"]["last_capture"]
    assert last == {"seat": 1, "seq": state.seq, "card": "8D", "took": ["8C", "4C", "4D"]}


def test_a_played_out_round_shows_its_last_deal_not_deal_0() -> None:
    state = last_card(
        won=[CLUBS + HEARTS, DIAMONDS + SPADES], loose=["TD", "2S", "9D"], held="KS", last_capture=(1, 11)
    )
    assert RULES.view(state.game, SPECTATOR)["table"]["deal"] == 6
    state = then(KIND, state, trail(0, "KS"))
    table = RULES.view(state.game, SPECTATOR)["table"]
    assert state.facts["hand_ended"] and (table["deal"], table["deals"]) == (6, 6)
    voided = then(KIND, start(*SWEEP_SETUP[:2]), {"type": "hand_voided", "reason": "misdeal"})
    assert RULES.view(voided.game, SPECTATOR)["table"]["deal"] == 0


def test_face_build_onto_a_face_build_keeps_its_id() -> None:
    hands = [["KC", "2C", "3C", "4C"], ["KH", "KD", "6D", "7D"]]
    state = start(hands, ["KS", "9S", "5H", "8H"], build(1, "KH", ["KS"], "K"))
    event = build(0, "KC", ["b1"], "K")
    expect_illegal(KIND, state, event, "casino.build_without_capturing_card")
    state = then(KIND, recording(state), event)
    assert [(b.id, b.value, b.owner, b.cards) for b in state.game.builds] == [("b1", "K", 0, ("KS", "KH", "KC"))]
    assert state.facts["face_added"] is True
    assert "face_build" in RULES.situations(event, state.facts)


# --------------------------------------------------------------------------- illegal plays


def test_trail_while_owning_a_build_is_illegal_and_recorded() -> None:
    state = start(BUILD_HANDS, BUILD_TABLE, build(1, "2H", ["3D"], 5), trail(0, "QH"))
    expect_illegal(KIND, state, trail(1, "KC"), "casino.trail_with_build")
    state = then(KIND, recording(state), trail(1, "KC"))
    assert state.game.loose[-1] == "KC" and state.game.builds[0].owner == 1


def test_build_without_a_capturing_card_is_illegal() -> None:
    state = start(BUILD_HANDS, BUILD_TABLE)
    expect_illegal(KIND, state, build(1, "5S", ["3D"], 8), "casino.build_without_capturing_card")
    state = then(KIND, recording(state), build(1, "5S", ["3D"], 8))
    assert state.game.builds[0].value == 8 and state.game.builds[0].owner == 1


def test_increasing_a_multiple_build_is_illegal() -> None:
    hands = [["2C", "TS", "7D", "QH"], ["3C", "8S", "TD", "KC"]]
    state = start(hands, ["5D", "8H", "9H", "JS"], build(1, "3C", ["5D", "8H"], 8))
    expect_illegal(KIND, state, build(0, "2C", ["b1"], 10), "casino.increase_multiple_build")
    state = then(KIND, recording(state), build(0, "2C", ["b1"], 10))
    assert [(b.id, b.value, b.owner, b.multiple) for b in state.game.builds] == [("b1", 10, 0, False)]


def test_the_owner_must_keep_a_card_to_capture_the_build() -> None:
    state = start(BUILD_HANDS, ["3D", "9H", "JS", "5C"], build(1, "2H", ["3D"], 5), trail(0, "QH"))
    expect_illegal(KIND, state, cap(1, "5S", "5C"), "casino.keep_capturing_card")
    state = then(KIND, state, cap(1, "5S", "5C", "b1"))
    assert state.game.builds == () and state.facts["captured"] == ["5S", "5C", "3D", "2H"]


def test_another_build_must_not_strand_the_owners_first_build() -> None:
    hands = [["3S", "8C", "7D", "QH"], ["2H", "5S", "6D", "9C"]]
    state = start(hands, ["3D", "4H", "JS", "5C"], build(1, "2H", ["3D"], 5), trail(0, "QH"))
    # a build of 9 with the 5 leaves no 5 for b1
    expect_illegal(KIND, state, build(1, "5S", ["4H"], 9), "casino.keep_capturing_card")
    # a build of 9 with the 6 keeps the 5
    state = then(KIND, state, cap(1, "9C", "4H", "5C"))
    assert state.game.builds[0].id == "b1"


def test_the_capture_of_ones_build_by_another_frees_the_owner() -> None:
    state = start(BUILD_HANDS, BUILD_TABLE, build(1, "2H", ["3D"], 5))
    assert all(e["type"] != "trail" for e in RULES.legal_events(then(KIND, state, trail(0, "QH")).game))
    state = then(KIND, state, build(0, "3S", ["b1"], 8))
    state = then(KIND, state, trail(1, "KC"))
    state = then(KIND, state, cap(0, "8C", "b1"))
    assert state.game.builds == ()


# --------------------------------------------------------------------------- end of the round and scoring


def test_round_score_lines_name_seats_items_and_captures() -> None:
    state = last_card(
        won=[CLUBS + HEARTS, DIAMONDS + SPADES],
        loose=["TD", "2S", "KS"],
        held="9D",
        last_capture=(1, 11),
    )
    state = then(KIND, state, trail(0, "9D"))
    assert state.facts["hand_ended"] is True
    assert state.facts["points"] == {"0": 2, "1": 6}
    assert state.facts["rest"] == {"seat": 1, "cards": ["TD", "2S", "KS", "9D"]}
    # 26 cards each: most cards goes to nobody
    assert lines_of(state, 1) == [
        (1, 1, "casino.most_spades", (11,)),
        (1, 2, "casino.big_casino", (11,)),
        (1, 1, "casino.little_casino", (11,)),
        (0, 1, "casino.ace", (10,)),
        (1, 1, "casino.ace", (11,)),
        (0, 1, "casino.ace", (10,)),
        (1, 1, "casino.ace", (11,)),
    ]
    sheet = RULES.score(state.game)
    reasons = [phrases.render(line.reason, ["Ann", "Ben"]) for line in sheet.hands[0].lines]
    assert reasons[1] == (
        "big casino: Ben took 10♦ with the cards left on the table, after their last capture at event 11: 2 points"
    )
    assert reasons[3] == "ace: Ann captured A♣ at event 10: 1 point"
    assert "Ben captured 13 spades (Ann 0)" in reasons[0]
    assert (
        sheet.hands[0].lines[3].reason == f"ace: {phrases.seat(0)} captured {phrases.card('AC')} at event 10: 1 point"
    )
    assert sheet.totals == (2, 6) and not sheet.finished and sheet.winner is None
    assert state.game.phase == "deal" and state.game.next_dealer == 1
    check_census(RULES, state)


def test_most_cards_and_the_sweep_option() -> None:
    kwargs: dict[str, Any] = {
        "won": [CLUBS + HEARTS + ["TD", "9D"], DIAMONDS + SPADES],
        "loose": ["2S"],
        "held": "KS",
        "last_capture": (1, 11),
        "cleared": ((0, 10), (1, 11)),
    }
    plain = then(KIND, last_card(**kwargs), trail(0, "KS"))
    assert lines_of(plain, 1)[:2] == [(0, 3, "casino.most_cards", (10,)), (1, 1, "casino.most_spades", (11,))]
    assert plain.facts["points"] == {"0": 7, "1": 4}
    # the capture at seq 11 was the round's last: it is not a sweep; seq 10 was
    assert plain.facts["sweeps"] == [{"seat": 0, "seq": 10}]
    assert "sweep" in RULES.situations(trail(0, "KS"), plain.facts)  # the search tag comes from the round's end
    swept = then(KIND, last_card(**kwargs, options={"sweeps": True}), trail(0, "KS"))
    assert swept.facts["points"] == {"0": 8, "1": 4}
    assert lines_of(swept, 1)[-1] == (0, 1, "casino.sweep", (10,))


def test_the_last_capture_is_never_a_sweep() -> None:
    state = last_card(
        won=[CLUBS + HEARTS[:-1], DIAMONDS + SPADES + ["TD", "9D", "2S"]],
        loose=["KS"],
        held="KH",
        last_capture=(1, 11),
        options={"sweeps": True},
    )
    event = cap(0, "KH", "KS")
    state = then(KIND, state, event)
    assert state.facts["table_cleared"] is True and state.facts["sweeps"] == []
    assert "casino.sweep" not in [line.rule for line in RULES.score(state.game).lines]
    assert "sweep" not in RULES.situations(event, state.facts)
    assert state.facts["rest"] == {"seat": 0, "cards": []}


def test_builds_left_at_the_end_go_to_the_last_capturer() -> None:
    left = (Build("b3", 9, ("4S", "5S"), False, 0, 20),)
    spades = [c for c in SPADES if c not in ("4S", "5S")]
    state = last_card(
        won=[CLUBS + HEARTS, DIAMONDS + spades],
        loose=["TD", "2S", "9D"],
        held="KS",
        builds=left,
        last_capture=(1, 11),
    )
    state = replace(state, game=replace(state.game, build_count=3))
    expect_illegal(KIND, state, trail(0, "KS"), "casino.trail_with_build")
    state = then(KIND, recording(state), trail(0, "KS"))
    assert state.facts["rest"] == {"seat": 1, "cards": ["TD", "2S", "9D", "KS", "4S", "5S"]}
    assert RULES.score(state.game).hands[0].points == (2, 6)
    check_census(RULES, state)


def test_if_nobody_captured_the_table_counts_for_nobody() -> None:
    state = last_card(won=[[], []], loose=sorted(CARD_SET - {"KS"}), held="KS", last_capture=None)
    state = then(KIND, recording(state), trail(0, "KS"))
    assert state.facts["points"] == {"0": 0, "1": 0} and state.facts["rest"]["seat"] is None
    assert RULES.score(state.game).hands[0].lines == ()
    census = check_census(RULES, state)
    assert len(census.places["counted for nobody"]) == 52


# --------------------------------------------------------------------------- rounds and the end of the game


def _round_end(totals: tuple[int, int], target: int = 21) -> Position[CasinoState]:
    """The scoring round of `test_round_score_lines...` (2 to seat 0, 6 to seat 1) from `totals`."""
    state = last_card(
        won=[CLUBS + HEARTS, DIAMONDS + SPADES],
        loose=["TD", "2S", "KS"],
        held="9D",
        last_capture=(1, 11),
        totals=totals,
        options={"target": target},
    )
    ended: Position[CasinoState] = then(KIND, state, trail(0, "9D"))
    return ended


def test_the_game_ends_when_a_seat_reaches_the_target_alone_at_the_top() -> None:
    state = _round_end((19, 10))
    sheet = RULES.score(state.game)
    assert (sheet.totals, sheet.finished, sheet.winner) == ((21, 16), True, 0)
    assert state.facts["game_ended"] is True and state.facts["winner"] == 0
    assert RULES.is_terminal(state.game) and RULES.legal_events(state.game) == []
    expect_impossible(KIND, state, deal([["AS", "AC", "AD", "AH"], ["2S", "2C", "2H", "3S"]], dealer=1), "ended")
    # the highest total wins, even when both reached the target
    both = RULES.score(_round_end((30, 26)).game)
    assert (both.totals, both.winner) == ((32, 32), None)
    over = RULES.score(_round_end((31, 24)).game)
    assert (over.totals, over.winner, over.finished) == ((33, 30), 0, True)


def test_a_shared_highest_total_means_another_round_and_the_deal_passes_left() -> None:
    state = _round_end((19, 15))
    assert RULES.score(state.game).totals == (21, 21) and not RULES.is_terminal(state.game)
    assert state.game.phase == "deal" and RULES.view(state.game, SPECTATOR)["to_act"] == [1]
    hands = [["AS", "AC", "AD", "AH"], ["2S", "2C", "2H", "3S"]]
    expect_impossible(
        KIND, state, deal(hands, ["4S", "4D", "4H", "5C"], dealer=0), said(f"{phrases.seat(1)} deals now")
    )
    state = then(KIND, state, deal(hands, ["4S", "4D", "4H", "5C"], dealer=1))
    assert (state.hand, state.game.dealer, state.game.to_play) == (2, 1, 0)
    assert state.game.won == ((), ()) and state.game.builds == () and state.game.build_count == 0


def test_hand_voided_between_two_deals_and_the_same_dealer_deals_again() -> None:
    state = start(H2, ["8C", "2D", "6H", "5S"], dealer=1)
    state = trail_out(state)
    assert state.game.phase == "deal"
    state = then(KIND, state, {"type": "hand_voided", "reason": "misdeal"})
    assert state.facts == {"hand_ended": True, "voided": True, "points": {"0": 0, "1": 0}}
    sheet = RULES.score(state.game)
    assert [(h.hand, h.points, h.lines) for h in sheet.hands] == [(1, (0, 0), ())]
    expect_impossible(KIND, state, {"type": "hand_voided", "reason": "again"}, "in progress")
    hands = [["AS", "AC", "AD", "AH"], ["2S", "2C", "2H", "3S"]]
    expect_impossible(
        KIND, state, deal(hands, ["4S", "4D", "4H", "5C"], dealer=0), said(f"{phrases.seat(1)} deals now")
    )
    state = then(KIND, state, deal(hands, ["4S", "4D", "4H", "8C"], dealer=1))
    assert (state.hand, state.game.dealer, state.game.loose) == (2, 1, ("4S", "4D", "4H", "8C"))
    check_census(RULES, state)


def test_hand_voided_during_play_and_not_before_a_deal() -> None:
    fresh = given(KIND, [], options={})
    expect_impossible(KIND, fresh, {"type": "hand_voided", "reason": "x"}, "in progress")
    state = start(H2, ["8C", "2D", "6H", "5S"])
    state = then(KIND, state, {"type": "hand_voided", "reason": "cards seen"})
    assert state.game.phase == "deal" and state.game.next_dealer == 0 and RULES.score(state.game).totals == (0, 0)


# --------------------------------------------------------------------------- legal events


def test_legal_events_list_every_capture_build_increase_and_trail() -> None:
    state = start(*SWEEP_SETUP[:2], *SWEEP_SETUP[2:])
    legal = RULES.legal_events(state.game)
    captures = [e for e in legal if e["type"] == "capture" and e["card"] == "8D"]
    # groups {8C} {2D 6H} {5S 3H} {b1}: every choice of them with b1 (8D is seat 1's only card for b1)
    assert len(captures) == 8
    assert cap(1, "8D", "8C") not in captures and cap(1, "8D", "b1") in captures
    assert cap(1, "8D", "8C", "2D", "6H", "5S", "3H", "b1") in captures
    assert not [e for e in legal if e["type"] == "trail"]  # seat 1 owns b1
    # no K lies on the table to pair, and seat 1 (an owner) may not trail: only the 8 can be played
    assert {e["card"] for e in legal} == {"8D"} and len(legal) == 8
    assert all(e["seat"] == 1 for e in legal) and legal == sorted(legal, key=lambda e: (e["type"], e["card"]))
    for event in legal:
        assert decide(KIND, state, event).violation is None


def test_legal_events_offer_increases_and_new_builds() -> None:
    state = start(BUILD_HANDS, BUILD_TABLE, build(1, "2H", ["3D"], 5))
    legal = RULES.legal_events(state.game)
    assert build(0, "3S", ["b1"], 8) in legal
    assert build(0, "3S", ["5C", "b1"], 8) not in legal
    assert trail(0, "QH") in legal
    assert build(0, "3S", ["5C"], 8) in legal
    assert build(0, "7D", ["b1"], 12) not in legal
    assert RULES.legal_events(given(KIND, [], options={}).game) == []


# --------------------------------------------------------------------------- views, redaction, census


def test_views_hide_the_other_hands() -> None:
    state = start(*SWEEP_SETUP[:2], *SWEEP_SETUP[2:])
    mine = RULES.view(state.game, 1)
    assert mine["seats"][1]["cards"] == ["8D", "KH", "KS"]
    assert mine["seats"][0] == {
        "seat": 0,
        "card_count": 3,
        "captured": [],
        "captured_count": 0,
        "spades": 0,
        "builds": [],
        "dealer": True,
    }
    assert mine["phase"] == "play" and mine["to_act"] == [1]
    assert "cards" not in RULES.view(state.game, SPECTATOR)["seats"][1]
    assert RULES.view(state.game, OMNISCIENT)["seats"][2]["cards"] == ["9S", "QC", "QD"]
    table = mine["table"]
    assert table["loose"] == ["8C", "2D", "6H", "5S", "3H"] and table["stock"] == 36 and table["deal"] == 1


def test_hand_points_in_the_view_follow_the_captures() -> None:
    state = start(*SWEEP_SETUP[:2], *SWEEP_SETUP[2:])
    state = then(KIND, state, cap(1, "8D", "8C", "2D", "6H", "5S", "3H", "b1"))
    # 8 cards and 1 spade: most cards and most spades so far
    assert RULES.view(state.game, SPECTATOR)["hand_points"] == {"0": 0, "1": 4, "2": 0}


def test_redacted_deal_shows_only_ones_own_cards_and_the_table() -> None:
    event = deal(H2, ["8C", "2D", "6H", "5S"])
    seen = RULES.redact_event(event, 0)
    assert seen["hands"] == [H2[0], [HIDDEN] * 4] and seen["table"] == event["table"]
    assert RULES.redact_event(event, SPECTATOR)["hands"] == [[HIDDEN] * 4, [HIDDEN] * 4]
    assert RULES.redact_event(event, OMNISCIENT) == event
    assert RULES.redact_event(trail(1, "JS"), 0) == trail(1, "JS")


def test_census_places_builds_on_the_table() -> None:
    state = start(*SWEEP_SETUP[:2], *SWEEP_SETUP[2:])
    census = check_census(RULES, state)
    assert census.places["build b1"] == ("4C", "4D") and census.unseen == 36
    assert census.private[1] == frozenset({"8D", "KS", "KH"})


# --------------------------------------------------------------------------- golden records


@pytest.mark.parametrize("name", examples_of(KIND))
def test_golden_records_fold_to_their_expected_score(name: str) -> None:
    example = load_example(name)
    state = given(KIND, example["events"], players=example["players"], options=example["options"])
    sheet = RULES.score(state.game)
    assert expected_of(sheet.to_dict()) == example["expected"]
    assert sheet.finished
    for hand in sheet.hands:
        for line in hand.lines:
            assert line.rule.startswith("casino.") and phrases.seat(line.seat) in line.reason and line.events


def test_golden_records_exist() -> None:
    assert examples_of(KIND) == ["casino-9001.json", "casino-9002.json", "casino-9003.json"]


def test_golden_multiple_build_from_a_build_gets_a_new_id() -> None:
    example = load_example("casino-9001.json")
    events = example["events"]
    assert events[93] == build(0, "2S", ["b7", "4C"], 6)
    state = given(KIND, events[:94], players=example["players"])
    assert state.facts == {
        "build": "b8",
        "value": 6,
        "cards": ["4C", "AD", "4S", "AH", "2S"],
        "multiple": True,
        "replaced": ["b7"],
    }


# --------------------------------------------------------------------------- what a person reads

ROUND_RULES = {"casino.most_cards", "casino.most_spades", "casino.big_casino", "casino.little_casino", "casino.ace"}


def test_every_score_reason_reads_with_the_players_names() -> None:
    """Random games until every item has been scored: each reason, rendered, names its seat's player and
    holds neither a bare `seat N` nor a marker (the sweep's line: a crafted round)."""
    names = ["Ann", "Ben", "Cho"]
    seen: set[str] = set()
    for seed in range(20):
        playout = play(RULES, names[: 2 + seed % 2], {"target": 11}, rng=random.Random(seed), keep_states=True)
        for line in RULES.score(playout.states[-1].game).lines:
            text = phrases.render(line.reason, names)
            assert names[line.seat] in text, text
            assert not re.search(r"seat \d", text) and not phrases.has_marker(text), text
            seen.add(line.rule)
        if seen >= ROUND_RULES:
            break
    assert seen >= ROUND_RULES
    won = [CLUBS + HEARTS + ["TD", "9D"], DIAMONDS + SPADES]
    crafted = last_card(won=won, loose=["2S"], held="KS", last_capture=(1, 11), cleared=((0, 10), (1, 11)))
    swept = then(KIND, with_options(crafted, sweeps=True), trail(0, "KS"))
    lines = [line for line in RULES.score(swept.game).lines if line.rule == "casino.sweep"]
    assert [phrases.render(line.reason, names) for line in lines] == [
        "sweep: Ann's capture at event 10 left the table empty: 1 point"
    ]


def test_illegal_plays_read_with_names_and_cards() -> None:
    state = start(BUILD_HANDS, BUILD_TABLE, build(1, "2H", ["3D"], 5))
    error = expect_illegal(KIND, then(KIND, state, trail(0, "QH")), trail(1, "KC"), "casino.trail_with_build")
    assert phrases.render(error.reason, ["Ann", "Ben"]) == (
        "Ben owns build b1 and may not trail K♣: they must capture or build"
    )
