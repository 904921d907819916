"""`engine.fold`'s two paths give the positions `engine.walk` gives (issue 34).

A record with no `retract` and no deck of its own is folded without a `Position` per event (only the
game's state is carried); any other goes through `walk`. The short path must answer what the walk
answers: the position after every prefix of a record (its seq, its game, the derived facts of its last
event, the end of the game's among them), and the snapshots passed on the way (`boundaries`: the hand
boundaries and every `every`-th seq, with their facts). Checked over random games of every kind with
notes, score claims and voided hands mixed in, so that a prefix may end on any of them.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from events.envelope import seal
from projections.core import engine, snapshots
from projections.core.registry import available, rules_for
from projections.core.simulate import next_options, playout_choice

#: events a record holds at most (a Seven and a Half session never ends by itself)
MOST = 400


def _record(kind: str, seed: int) -> tuple[Any, Any, list[dict[str, Any]], dict[int, Any]]:
    """A random record: its rules, initial position, envelopes and the live position after each seq."""
    rules = rules_for(kind)
    rng = random.Random(seed)
    players = [f"P{i}" for i in range(rules.player_counts[0])]
    initial = engine.start(rules, players, rules.options_for(players, {}))
    replay = engine.Replay(rules, initial)
    envelopes: list[dict[str, Any]] = []
    states = {0: initial}
    while not rules.is_terminal(replay.position.game) and len(envelopes) < MOST:
        position = replay.position
        r = rng.random()
        if r < 0.06:
            event: Any = {"type": "note", "text": "n"}
        elif r < 0.09 and position.hand >= 1:
            event = {
                "type": "score_claimed",
                "hand": position.hand,
                "points": {str(s): 1 for s in range(position.seats)},
            }
        elif r < 0.11 and rules.hand_in_progress(position.game):
            event = {"type": "hand_voided", "reason": "misdeal"}
        else:
            event = playout_choice(rules, position.game, next_options(rules, position.game, rng), rng)
        decision = replay.push(dict(event))
        after = replay.position
        states[after.seq] = after
        env = engine.sealed(after, decision, recorded_at="t", actor="test", prev_hash="")
        envelopes.append(dict(env))
    # a note after the end (or the cut): a record may end on an event the engine folds itself
    note = {"type": "note", "text": "after"}
    after = replay.apply(note)
    states[after.seq] = after
    envelopes.append(_sealed(after.seq, after.hand, note))
    return rules, initial, envelopes, states


def _sealed(seq: int, hand: int, event: dict[str, Any]) -> dict[str, Any]:
    return dict(
        seal(seq=seq, hand=hand, event=event, result={}, violation=None, recorded_at="t", actor="test", prev_hash="")
    )


@pytest.mark.parametrize("kind", available())
@pytest.mark.parametrize("seed", [1, 2])
def test_the_short_fold_answers_what_the_walk_does(kind: str, seed: int) -> None:
    rules, initial, envelopes, states = _record(kind, seed)
    assert not any(env["type"] == "retract" for env in envelopes)  # so the short path is the one taken
    for k in range(len(envelopes) + 1):
        assert engine.fold(rules, initial, envelopes[:k]) == states[k], (kind, k)
    # the snapshots passed: as the walk finds them, one position each, with its facts
    every = 7
    walked = []
    before = initial
    for _, after in engine.walk(rules, initial, envelopes):
        if after.seq % every == 0 or (rules.hand_in_progress(before.game) and not rules.hand_in_progress(after.game)):
            walked.append((after.seq, after))
        before = after
    passed: list[tuple[int, Any]] = []
    assert engine.fold(rules, initial, envelopes, passed, every) == states[len(envelopes)]
    assert passed == walked
    assert any(seq % every for seq, _ in passed), "no hand boundary passed"
    # from a snapshot on, and the store's rule for them (`EVERY`)
    middle = len(envelopes) // 2
    passed = []
    assert snapshots.fold_from(rules, states[middle], envelopes[middle:], passed) == states[len(envelopes)]
    assert passed == [
        (seq, states[seq])
        for seq in range(middle + 1, len(envelopes) + 1)
        if snapshots.is_boundary(rules, states[seq - 1], states[seq])
    ]


def test_a_record_with_a_retract_is_walked() -> None:
    """A retract restores a kept position: such a record goes the walk's way, to the same answer."""
    rules, initial, envelopes, states = _record("schnapsen", 3)
    to_seq = 5
    retract = {"type": "retract", "to_seq": to_seq, "reason": "oops"}
    head = len(envelopes) + 1
    envelopes.append(_sealed(head, states[to_seq].hand, retract))
    folded = engine.fold(rules, initial, envelopes)
    assert folded.game == states[to_seq].game
    assert (folded.seq, folded.retract_floor) == (head, head)
