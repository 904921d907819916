"""The marker language of person-facing text, the one value formatter, and the boundary that renders them."""

from __future__ import annotations

from typing import Any

import pytest

from projections.core import phrases
from projections.core.registry import rules_for
from projections.core.rules import EMPTY, HandScore, ScoreLine, ScoreSheet
from projections.reading.notation import describe

NAMES = ["Anna", "Ben", "Cho"]


def test_markers_are_the_text_the_rules_write() -> None:
    assert f"{phrases.seat(1)} closed the talon" == "{seat:1} closed the talon"
    assert phrases.card("TD") == "{card:TD}"
    assert phrases.cards(["TD", "AS"]) == "{cards:TD AS}"
    assert phrases.cards([]) == "{cards:}"
    assert phrases.half(7) == "{half:7}"
    assert phrases.chips(5) == "{chips:5}"


def test_render_writes_names_glyphs_and_units() -> None:
    text = f"{phrases.seat(1)} captured {phrases.card('TD')} with {phrases.cards(['TH', 'TS'])}: {phrases.half(15)}"
    assert phrases.render(text, NAMES) == "Ben captured 10♦ with 10♥ 10♠: 7½"
    assert phrases.render(f"{phrases.seat(0)} pays {phrases.chips(1)}, {phrases.chips(-3)}", NAMES) == (
        "Anna pays 1 chip, -3 chips"
    )
    assert phrases.render("{cards:} {card:??}", NAMES) == " ??"


def test_without_names_or_beyond_them_a_seat_reads_seat_n() -> None:
    assert phrases.render("{seat:2} stood", None) == "seat 2 stood"
    assert phrases.render("{seat:7} stood", NAMES) == "seat 7 stood"
    assert phrases.render("{card:ZZ}", NAMES) == "ZZ"  # never fails, even on a code that is no card


def test_text_without_markers_is_left_alone() -> None:
    assert phrases.render("seq 3 {not a marker}", NAMES) == "seq 3 {not a marker}"
    assert not phrases.has_marker("seq 3 {not a marker}")
    assert phrases.has_marker("x {seat:0}")
    assert phrases.structure("no marker") == ("no marker", {})


def test_structure_names_repeats_and_types_its_fields() -> None:
    text = "{seat:1} beat {seat:0} with {card:AS} over {cards:KS QS}, total {half:15}, paid {chips:3}"
    template, fields = phrases.structure(text)
    assert template == "{seat} beat {seat_2} with {card} over {cards}, total {half}, paid {chips}"
    assert fields == {"seat": 1, "seat_2": 0, "card": "AS", "cards": ["KS", "QS"], "half": 15, "chips": 3}


@pytest.mark.parametrize(
    "text",
    [
        "{seat:1} beat {seat:0} and {seat:2} with {card:AS}",
        "{cards:} left; {cards:TD 2C} taken; {half:1}; {chips:-1}",
        "nothing marked at all",
    ],
)
def test_template_and_fields_fill_back_to_the_rendered_text(text: str) -> None:
    explained = phrases.explained(text, NAMES)
    assert explained["reason"] == phrases.render(text, NAMES)
    assert phrases.fill(explained["template"], explained["fields"], NAMES) == explained["reason"]
    assert not phrases.has_marker(explained["reason"])


def test_halves_and_chips_are_the_units() -> None:
    assert [phrases.halves(v) for v in (15, 14, 1, 0, -1, -3, 17)] == ["7½", "7", "½", "0", "-½", "-1½", "8½"]
    assert [phrases.chip_text(n) for n in (1, -1, 0, 5)] == ["1 chip", "-1 chip", "0 chips", "5 chips"]


def test_value_text_formats_each_unit() -> None:
    assert phrases.value_text("half", 7) == "3½"
    assert phrases.value_text("half", 17, signed=True) == "+8½"
    assert phrases.value_text("chips", 3, signed=True) == "+3 chips"
    assert phrases.value_text("chips", -1, signed=True) == "-1 chip"
    assert phrases.value_text("to_go", 4) == "4 to go"
    assert phrases.value_text("to_go", -2) == "0 to go"  # won: nothing left to go
    assert phrases.value_text("seat", 2) == "seat 2"
    assert phrases.value_text("", 4, signed=True) == "+4"
    assert phrases.value_text("", 0, signed=True) == "0"
    assert phrases.value_text("half", [15, 1]) == "[7½ ½]"
    assert phrases.value_text("half", True) == "True"  # a flag is no number
    assert phrases.value_text("chips", "n/a") == "n/a"


def test_seat_keys_are_declared_once() -> None:
    assert all(phrases.is_seat_key(k) for k in ("dealer", "trick_winner", "jack_won_by", "offer_to", "closer"))
    assert not any(phrases.is_seat_key(k) for k in ("points", "total", "stock"))
    assert phrases.is_seats_key("stakes_due") and phrases.is_seats_key("to_act")
    assert phrases.suit_text("trump", "D") == "♦" and phrases.suit_text("source", "D") == "D"


# --------------------------------------------------------------------------- score lines with names


LINE = ScoreLine(2, 1, 3, "schnapsen.close", "{seat:1} closed the talon and won with {card:AS}", (4, 9))


def test_a_line_without_names_is_the_wire_shape_as_before() -> None:
    assert LINE.to_dict() == {
        "seat": 1,
        "points": 3,
        "rule": "schnapsen.close",
        "reason": "{seat:1} closed the talon and won with {card:AS}",
        "events": [4, 9],
    }


def test_a_line_with_names_is_rendered_and_structured() -> None:
    doc = LINE.to_dict(["Anna", "Ben"])
    assert doc == {
        "seat": 1,
        "points": 3,
        "rule": "schnapsen.close",
        "reason": "Ben closed the talon and won with A♠",
        "template": "{seat} closed the talon and won with {card}",
        "fields": {"seat": 1, "card": "AS"},
        "events": [4, 9],
    }


def test_a_named_sheet_renders_every_reason_without_being_asked() -> None:
    sheet = ScoreSheet((3, 0), (HandScore(2, (3, 0), (LINE,)),), False, None)
    named = sheet.named(["Anna", "Ben"])
    reasons = [line["reason"] for hand in named.to_dict()["hands"] for line in hand["lines"]]
    assert reasons == ["Ben closed the talon and won with A♠"]
    assert sheet.to_dict()["hands"][0]["lines"][0]["reason"] == LINE.reason  # the plain sheet is unchanged
    assert named.to_dict(["X", "Y"])["hands"][0]["lines"][0]["reason"].startswith("Y closed")
    assert named.totals == sheet.totals and list(named.hands) == list(sheet.hands)


# --------------------------------------------------------------------------- describe


def _with_units(kind: str, units: dict[str, str]) -> Any:
    from dataclasses import replace

    return replace(rules_for(kind), units=units)


def test_describe_writes_values_in_the_games_units() -> None:
    rules = _with_units("seven-and-a-half", {"total": "half", "amount": "chips"})
    names = ["Juan", "Inès", "Carlo", "Sara"]
    hit = describe(rules, {"type": "hit", "seat": 0, "card": "3S"}, {"total": 7}, names)
    assert hit == "Juan hit 3♠  → total 3½"
    bet = describe(rules, {"type": "bet", "seat": 1, "amount": 5}, {"stakes_due": [3, 2]}, names)
    assert bet == "Inès bet amount 5 chips  → stakes due (Sara, Carlo)"


def test_describe_renders_the_facts_the_rules_wrote_with_markers() -> None:
    rules = rules_for("casino")
    fact = f"{phrases.seat(0)} captured {phrases.card('TD')} with {phrases.card('TH')}"
    line = describe(rules, {"type": "trail", "seat": 1, "card": "2C"}, {"note": fact, "sweep_by": 2}, NAMES)
    assert line == "Ben trail 2♣  → Anna captured 10♦ with 10♥, sweep by Cho"
    assert not phrases.has_marker(line)


def test_describe_names_seats_of_facts_declared_as_seats() -> None:
    rules = _with_units("cutthroat-smear", {"high": "seat"})
    line = describe(rules, {"type": "play", "seat": 0, "card": "JD"}, {"high": 2, "trump": "D"}, NAMES)
    assert line == "Anna play J♦  → high Cho, trump ♦"
    assert describe(rules_for("cutthroat-smear"), {"type": "pass", "seat": 0}, EMPTY, NAMES) == "Anna pass"


def test_describe_writes_a_deal_seat_by_seat_and_quotes_free_text() -> None:
    rules = rules_for("schnapsen")
    deal = {"type": "deal", "dealer": 1, "hands": [["KH", "QH"], ["TS", "AD"]], "trump_card": "JH"}
    shown = describe(rules, deal, {}, ["Anna", "Ben"])
    assert shown == "deal dealer Ben hands (Anna [K♥ Q♥], Ben [10♠ A♦]) trump card J♥"
    note = describe(rules, {"type": "note", "text": "{seat:0} cheated"}, {}, ["Anna", "Ben"])
    assert note == "note “{seat:0} cheated”"  # a person's words are never read as a template
