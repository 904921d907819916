"""docs/events.md is the output of its generator, `python -m projections.reading.vocabulary`: it cannot drift."""

from __future__ import annotations

from pathlib import Path

from projections.core.registry import KINDS, rules_for
from projections.reading.vocabulary import render, rule_ids

DOC = Path(__file__).resolve().parents[2] / "docs" / "events.md"


def test_docs_events_md_is_the_generated_vocabulary() -> None:
    assert DOC.read_text(encoding="utf-8") == render(), (
        "docs/events.md is stale: run `.venv/bin/python -m projections.reading.vocabulary > docs/events.md`"
    )


def test_every_game_has_its_events_options_phases_and_rule_ids() -> None:
    text = render()
    for kind in KINDS:
        rules = rules_for(kind)
        section = text.split(f"(`{kind}`)", 1)[1].split("\n## ", 1)[0]
        for name in rules.events:
            if name not in ("score_claimed", "note", "hand_voided", "retract"):
                assert f"| `{name}` |" in section, (kind, name)
        for option in rules.options:
            assert f"| `{option}` |" in section, (kind, option)
        assert "`phase` values:" in section, kind
        illegal, scored = rule_ids(kind)
        assert illegal and scored, kind
        assert all(f"`{rule}`" in section for rule in illegal + scored)
    assert "schnapsen.follow_suit" in rule_ids("schnapsen")[0]
    assert "casino.trail_with_build" in rule_ids("casino")[0]  # raised as IllegalEventError(*breach)
    assert "half.stake_limits" in rule_ids("seven-and-a-half")[0]
