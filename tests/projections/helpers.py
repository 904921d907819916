"""Given events => event => expected state or error, for any game."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from events.codec import genesis_hash
from events.errors import IllegalEventError, ImpossibleEventError, InvalidEventError
from events.store import Store
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


#: when every game sealed in memory was created, and its events recorded
CREATED_AT = "2024-01-01T00:00:00Z"


def sealed(kind: str, players: list[str], options: dict[str, Any], events: list[dict[str, Any]]) -> list[Any]:
    """The envelopes of `events`, decided and sealed in a chain from the game's genesis."""
    rules = rules_for(kind)
    replay = engine.Replay(rules, engine.start(rules, players, options))
    prev = genesis_hash(kind, len(players), options, CREATED_AT)
    envelopes = []
    for event in events:
        decision = replay.push(dict(event))
        state = replay.position
        envelope = dict(engine.sealed(state, decision, recorded_at=CREATED_AT, actor="test", prev_hash=prev))
        prev = envelope["hash"]
        envelopes.append(envelope)
    return envelopes


# scripted hands under the house rules (tests/projections/test_house_rules.py), which the rescore tests
# replay under other options (tests/projections/test_rescore.py, tests/api/test_rescore.py)

#: Casino, two players: seat 1, first to play, can capture (its 5C takes the 5H)
CASINO_DEAL: dict[str, Any] = {
    "type": "deal",
    "dealer": 0,
    "hands": [["2H", "3H", "4H", "9S"], ["5C", "7D", "8D", "KS"]],
    "table": ["5H", "JC", "QD", "AC"],
}

#: Cutthroat Smear, two players: a whole hand, seat 1 bidding 2 and leading the KH
SMEAR_TWO: list[dict[str, Any]] = [
    {
        "type": "deal",
        "dealer": 0,
        "hands": [["JH", "2H", "6D", "7D", "8D", "9D"], ["KH", "QH", "2C", "3C", "4C", "5C"]],
    },
    {"type": "bid", "seat": 1, "amount": 2},
    {"type": "pass", "seat": 0},
    *[
        e
        for lead, follow in (("KH", "2H"), ("QH", "JH"), ("2C", "6D"), ("3C", "7D"), ("4C", "8D"), ("5C", "9D"))
        for e in ({"type": "play", "seat": 1, "card": lead}, {"type": "play", "seat": 0, "card": follow})
    ],
]

#: Gin Rummy for three: the first hand's roles, and a deal where the captain (seat 1) holds a ten-card run
GIN_ROLES: dict[str, Any] = {"first_roles": {"box": 0, "captain": 1, "sitter": 2}}
RUN = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS"]
BOX = ["2H", "4H", "6H", "8H", "TH", "2D", "4D", "6D", "8D", "TD"]
GIN_DEAL: dict[str, Any] = {"type": "deal", "hands": {"0": BOX, "1": RUN}, "upcard": "QC"}

#: Seven and a Half, four players: a hand where a punter and the banker both reach 7½
HALF_HAND: list[dict[str, Any]] = [
    {"type": "bet", "seat": 1, "amount": 10},
    {"type": "bet", "seat": 2, "amount": 10},
    {"type": "bet", "seat": 3, "amount": 10},
    {"type": "deal", "cards": {"0": "7C", "1": "2C", "2": "3C", "3": "KC"}},
    {"type": "hit", "seat": 3, "card": "7D"},  # 7½: the hand finishes
    {"type": "stand", "seat": 2},
    {"type": "stand", "seat": 1},
    {"type": "hit", "seat": 0, "card": "QD"},  # the banker's 7½ wins the tie
]


def caught_up(model: Any, store: Store) -> None:
    """Catch a read model (`RatingsModel`, `HandFacts`) up to the log's head. On PostgreSQL a catch-up reads only
    below the transaction-id horizon, which any older open transaction in the cluster (another test's) holds
    back: this catches up again for up to 10 s, and fails the test if the model is still behind."""
    for _ in range(100):
        model.catch_up()
        if model.position() == store.head_position():
            return
        time.sleep(0.1)
    raise AssertionError(f"{type(model).__name__} did not catch up with the log")
