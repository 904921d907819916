"""The house rules of rules/*.md ("House rules" sections): each option, its default, its rule id, its kind.

Given crafted events => the option's effect, checked against the rule text: the default reads as the
rules before the option existed (also for a game whose stored options do not name it), the other
value does what the table says, illegal plays carry their rule id (refused under `strict`, stored with a
violation under `record`), and `legal_events` agrees with `validate` (a bot game under the option
never meets an offered event the rules refuse).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from events.errors import IllegalEventError, ImpossibleEventError
from projections.core import engine, simulate
from projections.core.registry import rules_for
from tests.projections.helpers import CASINO_DEAL, GIN_DEAL, GIN_ROLES, HALF_HAND, RUN, SMEAR_TWO, given

# --------------------------------------------------------------------------- the declarations

NEW: dict[str, dict[str, tuple[Any, str, str]]] = {
    "casino": {"trail_only_when_forced": (False, "play", "casino.trail_when_able")},
    "cutthroat-smear": {
        "high_point": ("highest_trump", "scoring", "smear.high"),
        "dealer_bids_after_passes": (True, "play", "smear.throw_in"),
    },
    "gin-rummy-3": {
        "gin_scoring": ("bonus_plus_deadwood", "scoring", "gin.gin_deadwood"),
        "discard_taken_card": (True, "play", "gin.discard_taken_card"),
    },
    "seven-and-a-half": {"bank_needs_win": (False, "play", "half.bank_needs_win")},
}


@pytest.mark.parametrize("kind", sorted(NEW))
def test_each_house_rule_is_declared_with_its_default_kind_and_rule(kind: str) -> None:
    rules = rules_for(kind)
    for name, (default, kind_of, rule) in NEW[kind].items():
        spec = rules.options[name]
        assert (spec.default, spec.kind, spec.rule) == (default, kind_of, rule), name
        assert spec.scoring_only is (kind_of == "scoring")
        assert "house rule" in spec.help and not spec.seating
        assert rules.options_for(list(rules.demo_players), {})[name] == default


def test_the_seating_options_are_marked() -> None:
    seating = {k: sorted(n for n, s in rules_for(k).options.items() if s.seating) for k in NEW}
    assert seating == {
        "casino": ["first_dealer"],
        "cutthroat-smear": ["first_dealer"],
        "gin-rummy-3": ["first_roles"],
        "seven-and-a-half": ["first_banker"],
    }
    assert [n for n, s in rules_for("schnapsen").options.items() if s.seating] == ["first_dealer"]


# --------------------------------------------------------------------------- Casino


def test_casino_trail_only_when_forced_refuses_a_trail_when_a_capture_is_possible() -> None:
    pos = given("casino", [CASINO_DEAL], ["Ann", "Ben"], {"trail_only_when_forced": True})
    with pytest.raises(IllegalEventError) as info:
        engine.decide(rules_for("casino"), pos, {"type": "trail", "seat": 1, "card": "7D"})
    assert info.value.rule == "casino.trail_when_able"
    offered = rules_for("casino").legal_events(pos.game)
    assert offered and not [e for e in offered if e["type"] == "trail"]
    assert {"type": "capture", "seat": 1, "card": "5C", "take": ["5H"]} in offered


def test_casino_default_and_a_record_without_the_option_still_trail_freely() -> None:
    trail = {"type": "trail", "seat": 1, "card": "7D"}
    assert engine.decide(rules_for("casino"), given("casino", [CASINO_DEAL], ["Ann", "Ben"]), trail).violation is None
    old = given("casino", [CASINO_DEAL], ["Ann", "Ben"])
    options = {k: v for k, v in old.game.options.items() if k != "trail_only_when_forced"}
    before = engine.Position(rules_for("casino").initial_state(["Ann", "Ben"], options))
    pos = engine.apply(rules_for("casino"), before, CASINO_DEAL, 1)
    assert engine.decide(rules_for("casino"), pos, trail).violation is None


def test_casino_trail_when_able_is_stored_with_its_violation_under_record() -> None:
    pos = given("casino", [CASINO_DEAL], ["Ann", "Ben"], {"trail_only_when_forced": True, "enforcement": "record"})
    decision = engine.decide(rules_for("casino"), pos, {"type": "trail", "seat": 1, "card": "7D"})
    assert decision.violation is not None and decision.violation["rule"] == "casino.trail_when_able"
    assert "{seat:1}" in decision.violation["message"]


def test_casino_a_forced_trail_is_still_legal() -> None:
    deal = {
        "type": "deal",
        "dealer": 0,
        "hands": [["2H", "3H", "4H", "9S"], ["KC", "KD", "KH", "TD"]],
        "table": ["5H", "JC", "QD", "AC"],
    }
    pos = given("casino", [deal], ["Ann", "Ben"], {"trail_only_when_forced": True})
    offered = rules_for("casino").legal_events(pos.game)
    assert offered and all(e["type"] == "trail" for e in offered)
    assert engine.decide(rules_for("casino"), pos, {"type": "trail", "seat": 1, "card": "TD"}).violation is None


# --------------------------------------------------------------------------- Smear


def _lines(pos: Any, kind: str) -> list[tuple[int, int, str]]:
    return [(line.seat, line.points, line.rule) for line in rules_for(kind).score(pos.game).lines]


def test_smear_high_point_ace_only_gives_no_high_without_the_ace() -> None:
    default = given("cutthroat-smear", SMEAR_TWO, ["Ann", "Ben"])
    ace_only = given("cutthroat-smear", SMEAR_TWO, ["Ann", "Ben"], {"high_point": "ace_only"})
    assert (1, 1, "smear.high") in _lines(default, "cutthroat-smear")
    assert (1, 0, "smear.high") in _lines(ace_only, "cutthroat-smear")
    assert rules_for("cutthroat-smear").score(default.game).totals == (1, 3)
    assert rules_for("cutthroat-smear").score(ace_only.game).totals == (1, 2)  # Low to Ann; Jack, Game to Ben
    assert ace_only.facts["high"] is None and default.facts["high"] == 1
    high = next(line for line in rules_for("cutthroat-smear").score(ace_only.game).lines if line.rule == "smear.high")
    assert "no ace of trump" in high.reason and "{card:KH}" in high.reason


def test_smear_high_point_ace_only_still_gives_high_to_the_ace() -> None:
    events = [dict(e) for e in SMEAR_TWO]
    events[0] = {**events[0], "hands": [["JH", "2H", "6D", "7D", "8D", "9D"], ["AH", "QH", "2C", "3C", "4C", "5C"]]}
    events[3] = {"type": "play", "seat": 1, "card": "AH"}
    pos = given("cutthroat-smear", events, ["Ann", "Ben"], {"high_point": "ace_only"})
    assert (1, 1, "smear.high") in _lines(pos, "cutthroat-smear")


def _smear_three(dealer_bids: bool) -> Any:
    deal = {
        "type": "deal",
        "dealer": 0,
        "hands": [
            ["AS", "KS", "QS", "JS", "TS", "9S"],
            ["AH", "KH", "QH", "JH", "TH", "9H"],
            ["AD", "KD", "QD", "JD", "TD", "9D"],
        ],
    }
    events = [deal, {"type": "pass", "seat": 1}, {"type": "pass", "seat": 2}]
    return given("cutthroat-smear", events, ["Ann", "Ben", "Cy"], {"dealer_bids_after_passes": dealer_bids})


def test_smear_dealer_bids_after_passes_false_throws_the_hand_in_at_once() -> None:
    pos = _smear_three(False)
    assert pos.facts["thrown_in"] is True and pos.game.phase == "deal" and pos.game.next_dealer == 0
    (line,) = rules_for("cutthroat-smear").score(pos.game).lines
    assert line.rule == "smear.throw_in" and line.points == 0 and "the dealer does not speak" in line.reason
    with pytest.raises(ImpossibleEventError):
        engine.decide(rules_for("cutthroat-smear"), pos, {"type": "bid", "seat": 0, "amount": 2})


def test_smear_dealer_bids_after_passes_true_lets_the_dealer_speak() -> None:
    pos = _smear_three(True)
    assert pos.game.phase == "bid" and "thrown_in" not in pos.facts
    after = engine.apply(rules_for("cutthroat-smear"), pos, {"type": "bid", "seat": 0, "amount": 2}, pos.seq + 1)
    assert after.facts["bidder"] == 0


def test_smear_two_players_throw_in_at_the_first_pass() -> None:
    deal = {
        "type": "deal",
        "dealer": 0,
        "hands": [["AS", "KS", "QS", "JS", "TS", "9S"], ["AH", "KH", "QH", "JH", "TH", "9H"]],
    }
    pos = given(
        "cutthroat-smear", [deal, {"type": "pass", "seat": 1}], ["Ann", "Ben"], {"dealer_bids_after_passes": False}
    )
    assert pos.facts["thrown_in"] is True


# --------------------------------------------------------------------------- Gin


def _gin_hand(**options: Any) -> Any:
    events = [
        GIN_DEAL,
        {"type": "pass", "seat": 1},
        {"type": "pass", "seat": 0},
        {"type": "draw", "seat": 1, "source": "stock", "card": "KH"},
        {"type": "knock", "seat": 1, "discard": "KH", "melds": [RUN]},
        {"type": "lay_off", "seat": 0, "melds": [], "layoffs": []},
    ]
    return given("gin-rummy-3", events, ["Ida", "Jo", "Kim"], {**GIN_ROLES, **options})


def test_gin_scoring_flat_scores_the_bonus_alone() -> None:
    default, flat = _gin_hand(), _gin_hand(gin_scoring="flat")
    assert rules_for("gin-rummy-3").score(default.game).totals == (0, 85, 0)  # 25 + the defender's 60
    assert rules_for("gin-rummy-3").score(flat.game).totals == (0, 25, 0)
    assert _lines(flat, "gin-rummy-3") == [(1, 25, "gin.gin_bonus"), (1, 0, "gin.gin_deadwood")]
    assert "flat gin scoring" in rules_for("gin-rummy-3").score(flat.game).lines[1].reason


def _gin_taken(**options: Any) -> Any:
    events = [GIN_DEAL, {"type": "draw", "seat": 1, "source": "discard", "card": "QC"}]
    return given("gin-rummy-3", events, ["Ida", "Jo", "Kim"], {**GIN_ROLES, **options})


def test_gin_discard_taken_card_off_refuses_discarding_or_knocking_off_the_taken_card() -> None:
    pos = _gin_taken(discard_taken_card=False)
    assert pos.game.taken == "QC"
    rules = rules_for("gin-rummy-3")
    for event in (
        {"type": "discard", "seat": 1, "card": "QC"},
        {"type": "knock", "seat": 1, "discard": "QC", "melds": [RUN]},
    ):
        with pytest.raises(IllegalEventError) as info:
            engine.decide(rules, pos, event)
        assert info.value.rule == "gin.discard_taken_card"
    offered = rules.legal_events(pos.game)
    assert {"type": "discard", "seat": 1, "card": "TS"} in offered
    assert not [e for e in offered if e.get("card") == "QC" or e.get("discard") == "QC"]


def test_gin_discard_taken_card_default_allows_it() -> None:
    pos = _gin_taken()
    assert engine.decide(rules_for("gin-rummy-3"), pos, {"type": "discard", "seat": 1, "card": "QC"}).violation is None
    assert {"type": "discard", "seat": 1, "card": "QC"} in rules_for("gin-rummy-3").legal_events(pos.game)


def test_gin_a_stock_draw_is_never_the_taken_card() -> None:
    events = [GIN_DEAL, {"type": "pass", "seat": 1}, {"type": "pass", "seat": 0}]
    events.append({"type": "draw", "seat": 1, "source": "stock", "card": "KH"})
    pos = given("gin-rummy-3", events, ["Ida", "Jo", "Kim"], {**GIN_ROLES, "discard_taken_card": False})
    assert pos.game.taken is None
    assert engine.decide(rules_for("gin-rummy-3"), pos, {"type": "discard", "seat": 1, "card": "KH"}).violation is None


# --------------------------------------------------------------------------- Seven and a Half

FOUR = ["Juan", "Ines", "Carlo", "Sara"]


def test_bank_needs_win_keeps_the_bank_from_a_7_and_a_half_that_lost() -> None:
    default = given("seven-and-a-half", HALF_HAND, FOUR)
    needs = given("seven-and-a-half", HALF_HAND, FOUR, {"bank_needs_win": True})
    assert default.facts["next_banker"] == 3 and default.facts["bank_taken_by"] == 3
    assert needs.facts["next_banker"] == 0 and "bank_taken_by" not in needs.facts
    sheet = rules_for("seven-and-a-half").score(needs.game)
    assert sheet.totals == rules_for("seven-and-a-half").score(default.game).totals == (30, -10, -10, -10)
    kept = [line for line in sheet.lines if line.rule == "half.bank_needs_win"]
    assert [(line.seat, line.points) for line in kept] == [(3, 0)]
    assert not [
        line for line in rules_for("seven-and-a-half").score(default.game).lines if line.rule == "half.bank_needs_win"
    ]


def test_bank_needs_win_lets_a_winning_7_and_a_half_take_the_bank() -> None:
    events = [*HALF_HAND[:-1], {"type": "stand", "seat": 0}]  # the banker stands on 7: Sara's 7½ wins
    pos = given("seven-and-a-half", events, FOUR, {"bank_needs_win": True})
    assert pos.facts["next_banker"] == 3


# --------------------------------------------------------------------------- legal_events agrees with validate


@pytest.mark.parametrize(
    ("kind", "options"),
    [
        ("casino", {"trail_only_when_forced": True}),
        ("cutthroat-smear", {"dealer_bids_after_passes": False, "high_point": "ace_only"}),
        ("gin-rummy-3", {"discard_taken_card": False, "gin_scoring": "flat"}),
        ("seven-and-a-half", {"bank_needs_win": True}),
    ],
)
def test_a_bot_game_under_the_house_rules_is_played_by_the_rules(kind: str, options: dict[str, Any]) -> None:
    """`simulate.play` decides every offered event and fails on one the rules refuse or call illegal."""
    rules = rules_for(kind)
    playout = simulate.play(rules, list(rules.demo_players), options, rng=random.Random(21), max_events=1500)
    assert len(playout.events) > 20
