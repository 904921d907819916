"""The upcasting mechanism itself, on a made-up change: Schnapsen's `play` renames its field `card` to
`played` in a version 2. A record written in version 1 (no `v`, the field `card`) still folds, verifies
and replays: the hash is checked over the bytes as stored, and the rules see today's shape."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from events.codec import envelope_hash, genesis_hash
from events.errors import InvalidEventError
from events.schema import Shape, Upcast
from events.upcast import _reshaped as reshaped
from events.upcast import data_reshaped, upcast
from projections.core import engine
from projections.core.registry import rules_for
from projections.reading.verify import verify_stream

CREATED = "2026-12-01T10:00:00.000000Z"
PLAYERS = ["Anna", "Ben"]
EVENTS = [
    {
        "type": "deal",
        "dealer": 0,
        "hands": [["AH", "TH", "KH", "QH", "JH"], ["AS", "TS", "KS", "QS", "JS"]],
        "trump_card": "AC",
    },
    {"type": "play", "seat": 1, "card": "AS"},
    {"type": "play", "seat": 0, "card": "JH"},
]


def version_1_record() -> list[dict[str, Any]]:
    """The events as a version 1 of the made-up change wrote them: no `v`, the play's card under `played`,
    hashed over exactly those stored fields."""
    rules = rules_for("schnapsen")
    options = rules.options_for(PLAYERS, {})
    replay = engine.Replay(rules, engine.start(rules, PLAYERS, options))
    prev = genesis_hash("schnapsen", 2, options, CREATED)
    out = []
    for seq, event in enumerate(EVENTS, start=1):
        decision = replay.push(event)
        data = {k: v for k, v in decision.event.items() if k != "type"}
        if event["type"] == "play":
            data["played"] = data.pop("card")
        env: dict[str, Any] = {
            "seq": seq,
            "hand": replay.position.hand,
            "type": event["type"],
            "data": data,
            "recorded_at": CREATED,
            "actor": "key:old",
            "result": dict(replay.position.facts),
            "prev_hash": prev,
        }
        env["hash"] = prev = envelope_hash(env)
        out.append(env)
    return out


@pytest.fixture
def renamed_play() -> Iterator[None]:
    """Schnapsen's `play` as if its version 1 had called the card `played` and version 2 `card` (today's
    rules read `card`): version 2's upcast renames the field."""
    events = rules_for("schnapsen").events
    assert isinstance(events, dict)
    original = events["play"]

    def v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in data.items() if k != "played"}
        if "played" in data:
            out["card"] = data["played"]
        return out

    events["play"] = Shape(
        original.required, original.optional, version=2, upcasts=(Upcast("the card played, renamed", data=v1_to_v2),)
    )
    reshaped.clear()  # the schemas of a game never change in a process; here they do
    try:
        yield
    finally:
        events["play"] = original
        reshaped.clear()


def test_a_version_1_record_with_the_old_field_folds_and_verifies_in_todays_shape(renamed_play: None) -> None:
    rules = rules_for("schnapsen")
    assert data_reshaped(rules.events) == {"play"}
    record = version_1_record()
    assert upcast(record[1], rules.events).event == {"type": "play", "seat": 1, "card": "AS"}
    options = rules.options_for(PLAYERS, {})
    folded = engine.fold(rules, engine.start(rules, PLAYERS, options), record)
    assert folded.seq == 3 and folded.facts.get("trick_winner") == 1
    report = verify_stream("schnapsen", PLAYERS, options, CREATED, record)
    assert report.ok, report.problems
    # and without the upcast the same record is refused: the rules know no field `played`
    events = rules.events
    assert isinstance(events, dict)
    events["play"] = Shape(events["play"].required, events["play"].optional)
    reshaped.clear()
    assert not verify_stream("schnapsen", PLAYERS, options, CREATED, record).ok


def test_an_envelope_of_a_version_this_code_does_not_know_is_refused_with_words() -> None:
    rules = rules_for("schnapsen")
    env = {"seq": 4, "type": "play", "data": {"seat": 0, "card": "AS"}, "v": 9}
    with pytest.raises(InvalidEventError) as refused:
        upcast(env, rules.events)
    assert "version 9" in refused.value.message and refused.value.details["field"] == "v"
