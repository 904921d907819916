"""A random walk over a registered game, with the common events mixed in (issue 15), checked at every step.

Not a test module: tests/projections/test_conformance_walk.py runs it for every game (its docstring says
what a walk appends and what it checks), and tests/projections/test_verify_prose.py and
tests/store/test_stored_records.py take the records it makes.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from events.codec import genesis_hash
from events.envelope import event_of
from events.errors import IllegalEventError, ImpossibleEventError, InvalidEventError, UnknownGameError
from projections.core import engine
from projections.core.registry import rules_for
from projections.core.rules import GameRules, cumulative_totals
from projections.core.simulate import next_options, playout_choice
from projections.reading.verify import verify_stream
from tests.projections.helpers import CREATED_AT, check_census

#: decisions and chance events a walk makes before it only tries to end the game
BUDGET = 400
#: after the budget, at most this many more events to reach the end
FINISH = 4000
P_NOTE, P_CLAIM, P_VOID, P_RETRACT, P_ILLEGAL = 0.04, 0.04, 0.01, 0.03, 0.06


def option_values(rules: GameRules[Any], seats: int, rng: random.Random) -> dict[str, Any]:
    """Random option values that the declaration's checks accept, near each default (so games still end)."""
    out: dict[str, Any] = {}
    for name, spec in rules.options.items():
        if name == "dealing":  # the walk deals at the table (server deals: tests/api/test_server_deals.py)
            out[name] = spec.default
            continue
        candidates: list[Any] = [spec.default, True, False, None, "strict", "record", *range(seats), "KD", "JH"]
        if isinstance(spec.default, int) and not isinstance(spec.default, bool):
            d = spec.default
            candidates += [d - 1, d + 1, d // 2, d * 2, 1, 5, 10, 20, 25]
        accepted = []
        for value in candidates:
            try:
                accepted.append(spec.check(value, seats))
            except ValueError:
                continue
        out[name] = rng.choice(accepted)
    return out


def new_game(rules: GameRules[Any], rng: random.Random, enforcement: str) -> tuple[list[str], dict[str, Any], Any]:
    """Players and options drawn from the declaration, and the initial state."""
    while True:
        seats = rng.choice(rules.player_counts)
        players = [f"P{i}" for i in range(seats)]
        options = option_values(rules, seats, rng)
        if "enforcement" in rules.options:
            options["enforcement"] = enforcement
        try:
            filled = rules.options_for(players, options)
            return players, filled, engine.start(rules, players, filled)
        except UnknownGameError:  # options that only together are refused (a minimum above a maximum)
            continue


def mutations(rules: GameRules[Any], state: Any, event: Mapping[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    """Events like `event` with one field changed: another seat, card, amount or flag, a list item swapped."""
    census = rules.census(state.game)
    deck = sorted(census.deck)
    out: list[dict[str, Any]] = []
    kind = event["type"]
    seat_fields, card_fields = rules.seat_fields(kind), rules.card_fields(kind)
    for name, value in event.items():
        if name == "type":
            continue
        if name in seat_fields and isinstance(value, int):
            out += [{**event, name: s} for s in range(state.seats) if s != value]
        elif isinstance(value, bool):
            out.append({**event, name: not value})
        elif isinstance(value, int):
            out += [{**event, name: v} for v in (value - 1, value + 1, value * 2, 0, -value) if v != value]
        elif name in card_fields and isinstance(value, str) and deck:
            out += [{**event, name: c} for c in rng.sample(deck, min(6, len(deck))) if c != value]
        elif isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            i = rng.randrange(len(value))
            out.append({**event, name: value[:i] + value[i + 1 :]})
            if deck:
                other = rng.choice(deck)
                out.append({**event, name: [*value[:i], other, *value[i + 1 :]]})
                out.append({**event, name: [*value, other]})
        elif isinstance(value, Mapping) and value:  # a map of seats to cards (a deal)
            key = rng.choice(sorted(value))
            if isinstance(value[key], str) and deck:
                out.append({**event, name: {**value, key: rng.choice(deck)}})
    return out


def illegal_event(rules: GameRules[Any], state: Any, offered: Sequence[Mapping[str, Any]], rng: random.Random) -> Any:
    """A mutated offered event that the rules refuse as illegal (recorded with a violation), after which
    some event is still possible; or None."""
    for event in rng.sample(list(offered), min(8, len(offered))):
        candidates = mutations(rules, state, event, rng)
        rng.shuffle(candidates)
        for candidate in candidates[:12]:
            try:
                decision = engine.decide(rules, state, candidate)
            except (InvalidEventError, ImpossibleEventError, IllegalEventError):
                continue
            if decision.violation is None:
                continue
            # an illegal event may leave no legal way on (a Casino build its owner cannot capture, when
            # a build's owner may not trail): such a record is kept out of the walk, which must go on
            after = engine.apply(rules, state, decision.event, state.seq + 1)
            if rules.is_terminal(after.game) or next_options(rules, after.game, rng):
                return decision.event
    return None


def check_placed_once(rules: GameRules[Any], state: Any, *, conserved: bool) -> None:
    """Every card of the census is placed at most once; and, but between a `hand_voided` and the next
    hand (see `test_a_voided_hand_keeps_its_cards` of test_conformance_walk.py), placed or unseen
    exactly once."""
    if conserved:
        check_census(rules, state)
        return
    census = rules.census(state.game)
    placed = [c for cards in census.places.values() for c in cards]
    assert len(placed) == len(set(placed)), f"a card is in two places: {census.places}"
    assert set(placed) <= census.deck and census.unseen >= 0


def check_score(rules: GameRules[Any], initial: Any, state: Any, signs: set[int]) -> None:
    """Lines sum to each hand's points; totals are the start plus (or minus) the sum of the hands."""
    sheet = rules.score(state.game)
    for hand in sheet.hands:
        sums = [0] * state.seats
        for line in hand.lines:
            sums[line.seat] += line.points
        assert tuple(sums) == hand.points, f"hand {hand.hand}: lines sum to {sums}, points {hand.points}"
    start = rules.score(initial.game).totals
    fits = {
        sign
        for sign in (1, -1)
        if sheet.totals
        == tuple(s + t for s, t in zip(start, cumulative_totals(state.seats, sheet.hands, 0, sign), strict=True))
    }
    assert fits, f"totals {sheet.totals} do not follow from {start} and hands {[h.points for h in sheet.hands]}"
    signs &= fits  # the same sign all game long (an empty `signs` means none fits every step)
    assert signs, f"totals {sheet.totals} changed direction at seq {state.seq}"


@dataclass(frozen=True)
class Walked:
    """A walked game: how to create it, its decided events, the live state at its end, and counts."""

    players: list[str]
    options: dict[str, Any]
    events: list[dict[str, Any]]
    state: Any
    counts: dict[str, int]


def walk(kind: str, seed: int, enforcement: str) -> Walked:
    rules = rules_for(kind)
    rng = random.Random(seed)
    players, options, initial = new_game(rules, rng, enforcement)
    state = initial
    states: dict[int, Any] = {0: initial}  # the live state after each seq
    replay = engine.Replay(rules, initial)
    envelopes: list[dict[str, Any]] = []
    prev = genesis_hash(kind, len(players), options, CREATED_AT)
    signs = {1, -1}
    voided: dict[int, int | None] = {0: None}  # after each seq: the hand voided, if no hand has begun since
    violations: list[int] = []  # the seqs of the recorded illegal events not retracted
    counts: dict[str, int] = {}
    steps = 0
    while not rules.is_terminal(state.game):
        steps += 1
        assert steps <= BUDGET + FINISH, f"{kind}: the walk did not end in {steps} events (seed {seed})"
        offered = next_options(rules, state.game, rng)
        ending = steps > BUDGET
        event: Any = None
        r = rng.random()
        if not offered:
            # only a recorded illegal event may lead here (a Casino build its owner can never capture,
            # while a build's owner may not trail): the walk takes it back, as a scorer would
            assert violations, f"{kind}: nothing possible at seq {state.seq} but the game is not over"
            to_seq = max(state.retract_floor, min(violations[-1] - 1, state.seq - 1))
            assert to_seq < state.seq, f"{kind}: stuck at seq {state.seq} and nothing left to retract"
            event = {"type": "retract", "to_seq": to_seq, "reason": "no legal way on"}
        elif ending:
            pass
        elif r < P_NOTE:
            event = {"type": "note", "text": f"note {steps}"}
            if state.seq and rng.random() < 0.5:
                event["ref"] = rng.randint(1, state.seq)
        elif r < P_NOTE + P_CLAIM and state.hand >= 1:
            points = {str(s): rng.randint(-20, 20) for s in range(state.seats)}
            event = {"type": "score_claimed", "hand": rng.randint(1, state.hand), "points": points}
        elif r < P_NOTE + P_CLAIM + P_VOID and rules.hand_in_progress(state.game):
            event = {"type": "hand_voided", "reason": "misdeal"}
        elif r < P_NOTE + P_CLAIM + P_VOID + P_RETRACT and state.seq > state.retract_floor:
            event = {"type": "retract", "to_seq": rng.randint(state.retract_floor, state.seq - 1), "reason": "oops"}
        elif r < P_NOTE + P_CLAIM + P_VOID + P_RETRACT + P_ILLEGAL and options.get("enforcement") == "record":
            event = illegal_event(rules, state, offered, rng)
        if event is None:
            if ending:  # take an event that ends the game when one is offered (a session closed)
                enders = [e for e in offered if rules.is_terminal(engine.apply(rules, state, e, state.seq + 1).game)]
                if enders:
                    offered = enders
            event = playout_choice(rules, state.game, offered, rng)
        decision = replay.push(dict(event))
        state = replay.position
        seq = state.seq
        if decision.event["type"] == "retract":
            violations = [v for v in violations if v <= decision.event["to_seq"]]
        states[seq] = state
        if decision.violation:
            violations.append(seq)
        key = "illegal" if decision.violation else decision.event["type"]
        counts[key] = counts.get(key, 0) + 1
        envelope = engine.sealed(state, decision, recorded_at=CREATED_AT, actor="walk", prev_hash=prev)
        prev = envelope["hash"]
        envelopes.append(dict(envelope))
        if decision.event["type"] == "retract":
            voided[seq] = voided[decision.event["to_seq"]]
        else:
            voided[seq] = state.hand if decision.event["type"] == "hand_voided" else voided[seq - 1]
        check_placed_once(rules, state, conserved=voided[seq] != state.hand)
        check_score(rules, initial, state, signs)
    # the replay: folding the envelopes gives the live state after every one of them (a fold of each
    # prefix, walked once: `engine.walk` yields the state a fold of the envelopes up to it would return)
    replayed = 0
    for env, folded in engine.walk(rules, initial, envelopes):
        assert folded == states[env["seq"]], f"{kind}: replay differs from the live state at seq {env['seq']}"
        replayed += 1
    assert replayed == state.seq
    assert engine.fold(rules, initial, envelopes) == state
    report = verify_stream(kind, players, options, CREATED_AT, envelopes)
    assert report.ok, report.problems[:3]
    return Walked(players, options, [event_of(e) for e in envelopes], state, counts)
