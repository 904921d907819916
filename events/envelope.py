"""The stored envelope around a client's event (`rules/README.md`).

`{"seq", "hand", "type", "data", "recorded_at", "actor", "result",
"prev_hash", "hash"}` plus `"violation"` only for an illegal event stored
under `record` enforcement. The client's fields live unchanged under `data`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from events.codec import envelope_hash

Envelope = dict[str, Any]
Event = Mapping[str, Any]


def seal(
    *,
    seq: int,
    hand: int,
    event: Event,
    result: Mapping[str, Any],
    violation: Mapping[str, Any] | None,
    recorded_at: str,
    actor: str,
    prev_hash: str,
) -> Envelope:
    """Build an envelope and chain it to `prev_hash`."""
    data = {k: v for k, v in event.items() if k != "type"}
    envelope: Envelope = {
        "seq": seq,
        "hand": hand,
        "type": event["type"],
        "data": data,
        "recorded_at": recorded_at,
        "actor": actor,
        "result": dict(result),
        "prev_hash": prev_hash,
    }
    if violation is not None:
        envelope["violation"] = dict(violation)
    envelope["hash"] = envelope_hash(envelope)
    return envelope


def event_of(envelope: Mapping[str, Any]) -> dict[str, Any]:
    """The client's event back out of an envelope: `{"type", **data}`."""
    return {"type": envelope["type"], **envelope["data"]}
