"""The stored envelope around a client's event (`rules/README.md`).

`{"seq", "hand", "type", "v", "data", "recorded_at", "actor", "result",
"prev_hash", "hash"}` plus `"violation"` only for an illegal event stored
under `record` enforcement. The client's fields live unchanged under `data`.
`v` is the version of the event type's shape it was written in (`events/upcast.py`); an envelope
written before versions were recorded has none (version 1).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from events.codec import canonical, sha256_hex

Envelope = dict[str, Any]
Event = Mapping[str, Any]


class SealedEnvelope(dict[str, Any]):
    """An envelope fresh from `seal`: a plain envelope dict that also carries `texts`.

    `texts` are the canonical JSON texts of its `data`, `result` and `violation` (None when legal):
    the very bytes its hash was computed over. The store's mapper (`events/store/mapper.py`) writes
    them as they are, so a payload is encoded once, and what is stored is exactly what was hashed.
    Treat a sealed envelope as frozen (every caller does): editing it would not change its texts.
    """

    __slots__ = ("texts",)

    texts: tuple[str, str, str | None]


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
    version: int | None = None,
) -> Envelope:
    """Build an envelope and chain it to `prev_hash`.

    `data`, `result` and `violation` are encoded once; the hash is the sha256 of the canonical
    envelope with those texts spliced in (`orjson.Fragment`), byte for byte what
    `events.codec.envelope_hash` computes over the decoded envelope (a canonical nested object is the
    same bytes inside its parent as alone), so every stored hash is unchanged.
    """
    data = {k: v for k, v in event.items() if k != "type"}
    texts = (
        canonical(data).decode(),
        canonical(dict(result)).decode(),
        None if violation is None else canonical(dict(violation)).decode(),
    )
    fields: dict[str, Any] = {"seq": seq, "hand": hand, "type": event["type"]}
    if version is not None:
        fields["v"] = version
    fields.update(
        {
            "data": orjson.Fragment(texts[0]),
            "recorded_at": recorded_at,
            "actor": actor,
            "result": orjson.Fragment(texts[1]),
            "prev_hash": prev_hash,
        }
    )
    envelope = SealedEnvelope(fields, data=data, result=dict(result))
    if violation is not None:
        fields["violation"] = orjson.Fragment(texts[2] or "")
        envelope["violation"] = dict(violation)
    envelope["hash"] = sha256_hex(canonical(fields))
    envelope.texts = texts
    return envelope


def event_of(envelope: Mapping[str, Any]) -> dict[str, Any]:
    """The client's event back out of an envelope: `{"type", **data}`."""
    return {"type": envelope["type"], **envelope["data"]}
