"""Given events => event => expected state or error, for any game."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from events.errors import IllegalEventError, ImpossibleEventError, InvalidEventError
from projections.core import engine
from projections.core.registry import available, rules_for
from projections.core.rules import Census, GameRules

#: the golden records of ../shared/examples, copied here so that a clean clone tests on its own
EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "examples"

#: each game's players, from its declaration (`GameRules.demo_players`)
PLAYERS: dict[str, list[str]] = {kind: list(rules_for(kind).demo_players) for kind in available()}
#: the same, with names that must be quoted or escaped in a text export (an accent, a space) where a test
#: looks for them; every other game plays with its declared players
AWKWARD_PLAYERS: dict[str, list[str]] = {
    **PLAYERS,
    "seven-and-a-half": ["Juan", "Inès", "Carlo", "Sara"],
    "cutthroat-smear": ["Ruby", "Ava Marie", "Liam"],
}


def given(
    kind: str,
    events: Iterable[Mapping[str, Any]],
    players: Sequence[str] | None = None,
    options: Mapping[str, Any] | None = None,
) -> Any:
    """The position after `events` (an `engine.Position`: the game's state is `.game`, the last event's
    facts `.facts`), each event decided (validated) then applied, as a write would."""
    rules = rules_for(kind)
    players = list(players or ["P0", "P1"])
    position = engine.start(rules, players, rules.options_for(players, options))
    for event in events:
        decision = engine.decide(rules, position, dict(event))
        position = engine.apply(rules, position, decision.event, position.seq + 1)
    return position


def then(kind: str, position: Any, event: Mapping[str, Any]) -> Any:
    """Decide and apply one more event; returns the new position."""
    rules = rules_for(kind)
    decision = engine.decide(rules, position, dict(event))
    return engine.apply(rules, position, decision.event, position.seq + 1)


def with_options(position: Any, **changes: Any) -> Any:
    """The same position with some of the game's options changed (a test's what-if)."""
    from dataclasses import replace

    game = replace(position.game, options={**position.game.options, **changes})
    return replace(position, game=game)


def decide(kind: str, state: Any, event: Mapping[str, Any]) -> engine.Decision:
    return engine.decide(rules_for(kind), state, dict(event))


def expect_invalid(kind: str, state: Any, event: Mapping[str, Any], match: str = "") -> InvalidEventError:
    with pytest.raises(InvalidEventError, match=match) as info:
        engine.decide(rules_for(kind), state, dict(event))
    assert type(info.value).__name__ in ("InvalidEventError", "UnknownGameError")
    return info.value


def expect_impossible(kind: str, state: Any, event: Mapping[str, Any], match: str = "") -> ImpossibleEventError:
    with pytest.raises(ImpossibleEventError, match=match) as info:
        engine.decide(rules_for(kind), state, dict(event))
    return info.value


def expect_illegal(kind: str, state: Any, event: Mapping[str, Any], rule: str) -> IllegalEventError:
    """The event is refused with `rule` under strict enforcement, and stored flagged under record."""
    rules = rules_for(kind)
    with pytest.raises(IllegalEventError) as info:
        engine.decide(rules, state, dict(event))
    assert info.value.rule == rule, f"expected rule {rule}, got {info.value.rule}: {info.value.reason}"
    recording = with_options(state, enforcement="record")
    decision = engine.decide(rules, recording, dict(event))
    assert decision.violation is not None and decision.violation["rule"] == rule
    return info.value


def load_example(name: str) -> dict[str, Any]:
    example: dict[str, Any] = json.loads((EXAMPLES / name).read_text())
    return example


def examples_of(kind: str) -> list[str]:
    return sorted(p.name for p in EXAMPLES.glob("*.json") if json.loads(p.read_text())["game"] == kind)


def expected_of(sheet_dict: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of a score document that the example files' `expected` holds."""
    return {
        "totals": sheet_dict["totals"],
        "winner": sheet_dict["winner"],
        "hands": [{"hand": h["hand"], "points": h["points"]} for h in sheet_dict["hands"]],
    }


_CARD = re.compile(r"^(?:[A2-9TJQK][CDHS])$")


def cards_in(document: Any) -> set[str]:
    """Every card code appearing as a string value anywhere in a JSON-like document."""
    found: set[str] = set()
    stack = [document]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _CARD.match(item):
                found.add(item)
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found


def check_census(rules: GameRules[Any], state: Any) -> Census:
    """Every card of the hand is in exactly one place (or still unseen). `state`: a game state or a position."""
    state = getattr(state, "game", state)
    census = rules.census(state)
    placed = [c for cards in census.places.values() for c in cards]
    assert len(placed) == len(set(placed)), f"a card is in two places: {census.places}"
    assert set(placed) <= census.deck, f"cards outside the deck: {set(placed) - census.deck}"
    assert census.unseen >= 0
    if state.hand > 0:
        assert len(placed) + census.unseen == len(census.deck), (
            f"{len(placed)} placed + {census.unseen} unseen != {len(census.deck)}: {census.places}"
        )
    return census
