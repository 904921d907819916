"""Every game in the registry, played at random through `legal_events`:

- every offered event passes `validate` (the simulator decides each one);
- every card is in exactly one place at every step;
- replaying the stored envelopes gives the live state;
- each hand's score lines sum to its points;
- what each seat may see is the game's `visibility` declaration: no view and
  no redacted event shows a viewer a card another seat holds privately
  (unless the table saw it before the event), and the view hides nothing the
  declaration does not;
- the game ends by its rule;
- the typed events (`event_types`) are the schemas, field for field.
"""

from __future__ import annotations

import random
import time
import typing
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.envelope import seal
from projections.core import engine
from projections.core.registry import available, rules_for
from projections.core.rules import CHANCE, SPECTATOR
from projections.core.simulate import play
from tests.projections.helpers import cards_in, check_census

#: a game that ends by its rule must end within this many events
MAX_EVENTS = 3000
#: a game with no end but `session_closed` (Seven and a Half) is played for this many: about 80 rounds, the
#: bank changing hands about ten times; each example's checks cost the same per event whatever its length
SESSION_EVENTS = 800


def _envelopes(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        seal(seq=i, hand=0, event=e, result={}, violation=None, recorded_at="t", actor="test", prev_hash="")
        for i, e in enumerate(events, 1)
    ]


@pytest.mark.parametrize("kind", available())
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_random_game_keeps_every_invariant(kind: str, seed: int) -> None:
    rules = rules_for(kind)
    players = [f"P{i}" for i in range(len(rules.demo_players))]
    session = "session_closed" in rules.events  # a session that ends only when closed
    most = SESSION_EVENTS if session else MAX_EVENTS
    playout = play(rules, players, {}, rng=random.Random(seed), max_events=most, keep_states=True)
    if not session:
        assert playout.finished, f"{kind} did not end within {MAX_EVENTS} events"
    public_before = _public(rules.census(engine.start(rules, players, rules.options_for(players, {})).game))
    for event, state in zip(playout.events, playout.states, strict=True):
        census = check_census(rules, state)
        assert census.private == rules.visibility.held(state.game), (kind, state.seq)
        # what every view must show but for the looker's hidden cards: the same for each looker
        placed_in_view = _placed(census) - _cards_off_view(rules, state.game)
        for looker in [*range(len(players)), SPECTATOR]:
            hidden = rules.visibility.hidden_from(state.game, looker)
            shown = cards_in(rules.view(state.game, looker))
            leaked = shown & hidden
            assert not leaked, f"seat {looker} sees {leaked}, another seat's, at seq {state.seq}"
            # the view hides what the declaration names, and nothing else it holds
            assert shown >= placed_in_view - hidden, (kind, state.seq, looker)
            told = cards_in(rules.redact_event(event, looker)) & hidden
            assert told <= public_before, f"seat {looker} learns {told - public_before} from {event}"
        public_before = _public(census)
    final = playout.states[-1]
    initial = engine.start(rules, players, rules.options_for(players, {}))
    assert engine.fold(rules, initial, _envelopes(list(playout.events))) == final
    sheet = rules.score(final.game)
    for hand in sheet.hands:
        sums = [0] * len(players)
        for line in hand.lines:
            sums[line.seat] += line.points
            assert all(1 <= seq <= final.seq for seq in line.events), line
        assert tuple(sums) == hand.points, f"hand {hand.hand}: lines sum to {sums}, points {hand.points}"


def _placed(census: Any) -> set[str]:
    return {card for cards in census.places.values() for card in cards}


def _public(census: Any) -> set[str]:
    """The cards the whole table has seen in a state, from its census: placed, and no seat's privately."""
    private = {card for cards in census.private.values() for card in cards}
    return _placed(census) - private


def _cards_off_view(rules: Any, state: Any) -> set[str]:
    """Placed cards a view leaves out for everyone (won piles shown as counts, say): those the omniscient
    view does not show either."""
    return _placed(rules.census(state)) - cards_in(rules.view(state, None))


def test_the_golden_copies_match_the_shared_examples() -> None:
    """tests/data/examples is a copy of ../shared/examples (when that folder is beside the checkout)."""
    from tests.projections.helpers import EXAMPLES

    shared = EXAMPLES.parents[3] / "shared" / "examples"
    if not shared.is_dir():
        pytest.skip("../shared/examples is not beside this checkout")
    ours = {p.name: p.read_bytes() for p in EXAMPLES.glob("*.json")}
    theirs = {p.name: p.read_bytes() for p in shared.glob("*.json")}
    assert ours == theirs, "refresh tests/data/examples from ../shared/examples"


#: the most events one `legal_events` call may offer: a count, not a time (times are printed, and measured
#: in make bench), that catches an enumeration blowing up (every stake of a wide range, say)
LEGAL_EVENTS_BOUND = 5000


@pytest.mark.parametrize("kind", available())
def test_to_act_and_is_legal_agree_with_legal_events(kind: str) -> None:
    """On random states of random legal games: every offered decision `is_legal`; `to_act` is CHANCE
    exactly when `legal_events` offers nothing and `chance_events` completes an event; otherwise its
    seats are the view's `to_act` (and `()` only at the end); every chance event offered `is_legal`."""
    rules = rules_for(kind)
    slowest, most = 0.0, 0
    for seed in range(3):
        rng = random.Random(seed)
        players = list(rules.demo_players)
        playout = play(rules, players, {}, rng=rng, max_events=600, keep_states=True)
        for position in [engine.start(rules, players, rules.options_for(players, {})), *playout.states]:
            state = position.game
            start = time.perf_counter()
            offered = rules.legal_events(state)
            slowest = max(slowest, time.perf_counter() - start)
            most = max(most, len(offered))
            chance = rules.chance_events(state, rng)
            acting = rules.to_act(state)
            for event in offered:
                assert engine.is_legal(rules, position, event), (kind, position.seq, event)
            for event in chance:
                assert engine.is_legal(rules, position, event), (kind, position.seq, event)
            if rules.is_terminal(state):
                assert acting == () and not offered
                continue
            assert (acting is CHANCE) == (not offered and bool(chance)), (kind, position.seq, acting, offered)
            if acting is not CHANCE:
                assert isinstance(acting, tuple) and acting, (kind, position.seq)
                assert list(acting) == list(rules.view(state, None)["to_act"]), (kind, position.seq)
            assert str(state.phase) in {p.value for p in rules.phases}, (kind, state.phase)
    print(f"{kind}: slowest legal_events {slowest * 1000:.2f} ms, at most {most} events offered")
    assert most <= LEGAL_EVENTS_BOUND, f"{kind}: legal_events offered {most} events"


@pytest.mark.parametrize("kind", available())
def test_is_legal_refuses_what_validate_refuses(kind: str) -> None:
    rules = rules_for(kind)
    players = list(rules.demo_players)
    position = engine.Position(rules.initial_state(players, rules.options_for(players, {})))
    assert not engine.is_legal(rules, position, {"type": "no_such_event"})
    assert not engine.is_legal(rules, position, {"type": "retract", "to_seq": 0, "reason": ""})
    assert not engine.is_legal(rules, position, {"type": "hand_voided"})  # no hand is in progress


@pytest.mark.parametrize("kind", available())
def test_the_declaration_is_complete(kind: str) -> None:
    """What every reader of the declaration relies on."""
    rules = rules_for(kind)
    assert rules.kind == kind and rules.title
    assert len(rules.demo_players) in rules.player_counts
    for name, spec in rules.options.items():
        assert spec.help, f"{kind}: option {name} has no help text"
    assert rules.situation_tags and all(rules.situation_tags.values())
    for event_type, fields in rules.fields.items():
        assert event_type in rules.events, (kind, event_type)
        shape = rules.events[event_type]
        for field in fields:
            assert field in shape.required or field in shape.optional, (kind, event_type, field)


@pytest.mark.parametrize("kind", available())
def test_the_typed_events_are_the_schemas(kind: str) -> None:
    """`event_types`: one TypedDict per event the game folds (its own and `hand_voided`), keyed by its
    `type` literal, whose keys and required keys are the schema's (what `evolve` matches exhaustively)."""
    rules = rules_for(kind)
    members = typing.get_args(rules.event_types) or (rules.event_types,)
    by_type: dict[str, Any] = {}
    for member in members:
        hints = typing.get_type_hints(member)
        for literal in typing.get_args(hints["type"]):
            assert literal not in by_type, (kind, literal)
            by_type[literal] = member
    assert set(by_type) == set(rules.events) - engine.ENGINE_EVENTS, kind
    for event_type, member in by_type.items():
        shape = rules.events[event_type]
        hints = typing.get_type_hints(member, include_extras=True)  # the module's postponed annotations, read
        assert set(hints) == {"type", *shape.required, *shape.optional}, (kind, event_type)
        optional = {name for name, hint in hints.items() if typing.get_origin(hint) is typing.NotRequired}
        assert optional == set(shape.optional), (kind, event_type)
