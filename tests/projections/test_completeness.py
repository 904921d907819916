"""`legal_events` offers every decision `validate` accepts, for every registered game (issue 15).

As `test_casino_properties.py` does for Casino by brute force, generically: on small states reached by
random play (uniform, or the game's `playout_bot` for a game that uniform play never ends), candidate events
of every decision type are enumerated from the game's event schema (`rules.events`) and the
declaration's field kinds (`rules.fields`): every seat for a seat field, every card of the census's
deck for a card field, both flags, each `one_of` choice, integers from -1 to 12 and next to each
offered amount; a field holding a list (melds, lay-offs, the items a capture takes) takes the values
the offered events of that type hold (their arrangements are too many to enumerate). Optional fields
are tried absent and present. Every candidate the rules accept without a violation must be offered,
or (a stake from a wide range, `projections/seven_and_a_half` `offered_stakes`) lie inside the span of
a bounded sample of amounts offered for the same event; the ends of such a span are the range's, since
the amounts just outside it are candidates too. Chance event types (those `chance_events` completes)
and the events the engine or every game share (`note`, `retract`, `score_claimed`, `hand_voided`)
are not decisions and are left out. Offered events are checked to be accepted in
`test_conformance.py`.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Mapping
from typing import Any

import pytest

from events.errors import IllegalEventError, ImpossibleEventError, InvalidEventError
from events.schema import json_schema
from projections.core import engine
from projections.core.registry import available, rules_for
from projections.core.rules import CHANCE, GameRules
from projections.core.simulate import next_options, playout_choice

COMMON = frozenset({"note", "retract", "score_claimed", "hand_voided"})
#: candidates tried per event type and state at most (a sample beyond)
MAX_CANDIDATES = 4000
#: a sample of amounts is one whose span is at least this wide (narrower ranges are offered whole)
WIDE = 100


def key(event: Mapping[str, Any]) -> str:
    return json.dumps(event, sort_keys=True)


def accepted(rules: GameRules[Any], state: Any, event: Mapping[str, Any]) -> dict[str, Any] | None:
    try:
        decision = engine.decide(rules, state, dict(event))
    except (InvalidEventError, ImpossibleEventError, IllegalEventError):
        return None
    return decision.event if decision.violation is None else None


def field_values(
    rules: GameRules[Any], state: Any, kind: str, name: str, validator: Any, offered: list[dict[str, Any]]
) -> list[Any]:
    schema = json_schema(validator)
    seen = [e[name] for e in offered if name in e]
    if name in rules.seat_fields(kind):
        return list(range(state.seats))
    if "enum" in schema:
        return list(schema["enum"])
    if schema.get("type") == "boolean":
        return [True, False]
    if schema.get("type") == "integer":
        near = {v + d for v in seen if isinstance(v, int) for d in (-1, 0, 1)}
        return sorted(set(range(-1, 13)) | near)
    if name in rules.card_fields(kind) and schema.get("type") == "string":
        return sorted(rules.census(state.game).deck)
    unique = {key({"v": v}): v for v in seen}
    return list(unique.values())


def excused(event: Mapping[str, Any], offered: list[dict[str, Any]]) -> bool:
    """Inside the span of a wide sample of amounts offered for the same event (other fields equal)."""
    for name, value in event.items():
        if isinstance(value, bool) or not isinstance(value, int):
            continue
        rest = {k: v for k, v in event.items() if k != name}
        amounts = [e[name] for e in offered if {k: v for k, v in e.items() if k != name} == rest and name in e]
        if amounts and max(amounts) - min(amounts) + 1 >= WIDE and min(amounts) <= value <= max(amounts):
            return True
    return False


def same_as_offered(rules: GameRules[Any], state: Any, event: Mapping[str, Any], same: list[dict[str, Any]]) -> bool:
    """Another spelling of an offered event (an optional field at its default): the same state after it."""
    after = engine.apply(rules, state, event, state.seq + 1)
    return any(engine.apply(rules, state, e, state.seq + 1) == after for e in same)


def check_state(rules: GameRules[Any], state: Any, chance_types: set[str], rng: random.Random) -> int:
    offered = [engine.decide(rules, state, dict(e)).event for e in rules.legal_events(state.game)]
    offered_keys = {key(e) for e in offered}
    tried = 0
    for kind, shape in rules.events.items():
        if kind in COMMON or kind in chance_types:
            continue
        same = [e for e in offered if e["type"] == kind]
        axes: list[list[tuple[str, Any]]] = []
        for name, validator in shape.required.items():
            axes.append([(name, v) for v in field_values(rules, state, kind, name, validator, same)])
        for name, validator in shape.optional.items():
            axes.append([(name, None), *((name, v) for v in field_values(rules, state, kind, name, validator, same))])
        combos = list(itertools.islice(itertools.product(*axes), MAX_CANDIDATES * 4))
        if len(combos) > MAX_CANDIDATES:
            combos = rng.sample(combos, MAX_CANDIDATES)
        for combo in combos:
            candidate = {"type": kind, **{n: v for n, v in combo if v is not None}}
            tried += 1
            event = accepted(rules, state, candidate)
            if event is None:
                continue
            assert (
                key(event) in offered_keys or same_as_offered(rules, state, event, same) or excused(event, offered)
            ), f"{rules.kind}: {event} is accepted at seq {state.seq} but not offered"
    return tried


@pytest.mark.parametrize("kind", available())
def test_legal_events_offer_every_accepted_decision(kind: str) -> None:
    rules = rules_for(kind)
    rng = random.Random(15)
    chance_types: set[str] = set()
    states: list[Any] = []
    for _ in range(3):
        seats = rng.choice(rules.player_counts)
        players = [f"P{i}" for i in range(seats)]
        state = engine.start(rules, players, rules.options_for(players, {}))
        for _ in range(200):
            if rules.is_terminal(state.game):
                break
            chance_types |= {e["type"] for e in rules.chance_events(state.game, rng)}
            if rules.to_act(state.game) is not CHANCE and rng.random() < 0.15:
                states.append(state)
            offered = next_options(rules, state.game, rng)
            chosen = playout_choice(rules, state.game, offered, rng)
            state = engine.apply(rules, state, engine.decide(rules, state, dict(chosen)).event, state.seq + 1)
    assert states
    tried = sum(check_state(rules, s, chance_types, rng) for s in rng.sample(states, min(8, len(states))))
    assert tried
