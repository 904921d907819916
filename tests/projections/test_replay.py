"""Replay frames, including a retract that brings play back into an earlier hand."""

from __future__ import annotations

from events.envelope import seal
from projections.core import engine
from projections.core.registry import rules_for
from projections.reading.replay import hand_frames
from tests.projections.helpers import load_example

RULES = rules_for("schnapsen")


def _envelopes(events: list[dict]) -> list[dict]:  # type: ignore[type-arg]
    example = load_example("schnapsen-9002.json")
    players = example["players"]
    replay = engine.Replay(RULES, engine.start(RULES, players, RULES.options_for(players, example["options"])))
    out = []
    for seq, event in enumerate(events, 1):
        decision = replay.push(event)
        state = replay.position
        out.append(
            seal(
                seq=seq,
                hand=state.hand,
                event=decision.event,
                result=state.facts,
                violation=None,
                recorded_at="t",
                actor="a",
                prev_hash="",
            )
        )
    return out


def test_a_retract_back_into_an_earlier_hand_keeps_its_later_events_in_that_hands_replay() -> None:
    example = load_example("schnapsen-9002.json")
    events = example["events"]
    # hand 1 ends at seq 22; hand 2 is dealt at 23; then a retract to seq 21 replays the end of hand 1 differently
    history = [*events[:23], {"type": "retract", "to_seq": 21, "reason": "the marriage was not declared"}]
    envs = _envelopes(history)
    assert [e["hand"] for e in envs[-3:]] == [1, 2, 1]
    initial = engine.start(RULES, example["players"], RULES.options_for(example["players"], example["options"]))
    frames = hand_frames(RULES, initial, envs, 1, None, example["players"])
    assert [f["seq"] for f in frames][-2:] == [22, 24]
    assert frames[-1]["event"]["type"] == "retract" and frames[-1]["state"]["phase"] == "lead"
    assert frames[-2]["retracted_by"] == 24
