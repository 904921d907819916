"""A record made before a game gained an option (a house rule added later) still verifies and imports.

Its options are in its genesis hash as they were, without the new option; it plays at the option's
default (`engine.start`), and an export of it imports back with the same chain.
"""

from __future__ import annotations

import random

import orjson

from events.codec import genesis_hash
from projections.core import engine
from projections.core.registry import rules_for
from projections.core.simulate import play
from projections.histories.importer import from_json
from projections.reading.verify import verify_stream
from tests.projections.helpers import CREATED_AT, sealed


def test_a_casino_record_from_before_trail_only_when_forced_verifies_and_imports() -> None:
    rules = rules_for("casino")
    players = ["Ana", "Bo"]
    today = rules.options_for(players, {})
    before = {k: v for k, v in today.items() if k != "trail_only_when_forced"}
    assert before != today  # the option is new: the old record's options lack it
    playout = play(rules, players, today, rng=random.Random(5), max_events=60)
    envelopes = sealed("casino", players, before, list(playout.events))
    assert verify_stream("casino", players, before, CREATED_AT, envelopes).ok
    assert engine.start(rules, players, before).game.options["trail_only_when_forced"] is False

    last = envelopes[-1]
    document = {
        "format": "tablebook/1",
        "id": "g-old",
        "game": "casino",
        "players": players,
        "seats": 2,
        "options": before,
        "created_at": CREATED_AT,
        "seq": last["seq"],
        "head_hash": last["hash"],
        "events": envelopes,
    }
    imported = from_json(orjson.dumps(document))
    assert imported.envelopes[-1]["hash"] == last["hash"]
    assert imported.genesis == genesis_hash("casino", 2, before, CREATED_AT)
