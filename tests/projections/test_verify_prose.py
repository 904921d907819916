"""Verification re-checks what decides a score, not the wording of the rules' sentences.

A record stored by an older version carries its violation reasons and audit notes in that version's
words; it must still verify, while a changed rule id is still found.
"""

from __future__ import annotations

from typing import Any

from events.codec import envelope_hash
from projections.reading.verify import verify_stream
from tests.projections.helpers import CREATED_AT, sealed
from tests.projections.walks import walk


def rechained(envelopes: list[Any], start: int) -> None:
    """Re-hash the chain from index `start` on, as an older version would have stored it."""
    prev = envelopes[start - 1]["hash"] if start else envelopes[0]["prev_hash"]
    for envelope in envelopes[start:]:
        envelope["prev_hash"] = prev
        envelope["hash"] = envelope_hash(envelope)
        prev = envelope["hash"]


def a_record_with_a_violation() -> tuple[str, list[str], dict[str, Any], list[Any], int]:
    for kind in ("schnapsen", "casino", "cutthroat-smear", "gin-rummy-3", "seven-and-a-half"):
        for seed in range(40):
            walked = walk(kind, seed, "record")
            envelopes = sealed(kind, walked.players, walked.options, walked.events)
            found = [i for i, env in enumerate(envelopes) if env.get("violation")]
            if found:
                return kind, walked.players, walked.options, envelopes, found[0]
    raise AssertionError("no random walk under record enforcement recorded an illegal event")


def test_a_violation_in_older_words_still_verifies_but_another_rule_does_not() -> None:
    kind, players, options, envelopes, index = a_record_with_a_violation()
    assert verify_stream(kind, players, options, CREATED_AT, envelopes).ok

    reworded = [dict(env) for env in envelopes]
    reworded[index]["violation"] = {**reworded[index]["violation"], "reason": "seat 1 broke a rule (old words)"}
    rechained(reworded, index)
    assert verify_stream(kind, players, options, CREATED_AT, reworded).ok

    other_rule = [dict(env) for env in envelopes]
    other_rule[index]["violation"] = {**other_rule[index]["violation"], "rule": "casino.not_a_rule"}
    rechained(other_rule, index)
    report = verify_stream(kind, players, options, CREATED_AT, other_rule)
    assert not report.ok
    assert [p["problem"] for p in report.problems][:1] == ["violation"]
