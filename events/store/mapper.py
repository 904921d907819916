"""The one mapping between envelopes and `event` rows.

A row keeps `data`, `result` and `violation` as canonical JSON text: the bytes hashed are the bytes
kept (`events/store/tables.py`). An envelope from `events.envelope.seal` carries those texts already (it
encoded each payload once and hashed those same bytes), and they are written as they are; any other
envelope (an import of a verified export, a test's) is encoded here, with the same canonical codec, so
its hash, computed over the decoded envelope, covers exactly the stored text too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from events.codec import dumps, loads
from events.envelope import Envelope, SealedEnvelope
from events.store.base import EVENTS

#: the `event` columns an envelope is written to, in the order of `row_values`
EVENT_FIELDS = (
    "game_id",
    "seq",
    "hand",
    "type",
    "v",
    "data",
    "result",
    "violation",
    "recorded_at",
    "actor",
    "prev_hash",
    "hash",
)

#: the columns an envelope is read back from, in the order `envelope_from_values` takes them
ENVELOPE_COLUMNS = (
    EVENTS.c.seq,
    EVENTS.c.hand,
    EVENTS.c.type,
    EVENTS.c.v,
    EVENTS.c.data,
    EVENTS.c.recorded_at,
    EVENTS.c.actor,
    EVENTS.c.result,
    EVENTS.c.violation,
    EVENTS.c.prev_hash,
    EVENTS.c.hash,
)
#: the same columns as SQL text, for the raw statements
ENVELOPE_SQL = ", ".join(column.name for column in ENVELOPE_COLUMNS)


def payload_texts(env: Envelope) -> tuple[str, str, str | None]:
    """The stored texts of `data`, `result`, `violation`: those `seal` hashed, or encoded now."""
    if isinstance(env, SealedEnvelope):
        return env.texts
    return dumps(env["data"]), dumps(env["result"]), dumps(env["violation"]) if "violation" in env else None


def row_values(game_id: str, env: Envelope) -> tuple[Any, ...]:
    """The values of an envelope's `event` row, in `EVENT_FIELDS` order."""
    data, result, violation = payload_texts(env)
    return (
        game_id,
        env["seq"],
        env["hand"],
        env["type"],
        env.get("v"),
        data,
        result,
        violation,
        env["recorded_at"],
        env["actor"],
        env["prev_hash"],
        env["hash"],
    )


def event_row(game_id: str, env: Envelope) -> dict[str, Any]:
    """The `event` table row of an envelope, as a mapping (for Core inserts)."""
    return dict(zip(EVENT_FIELDS, row_values(game_id, env), strict=True))


def envelope_from_values(row: Sequence[Any]) -> Envelope:
    """The envelope of the `ENVELOPE_COLUMNS` of a row: the exact dict that was hashed, keys in seal's order."""
    seq, hand, kind, version, data, recorded_at, actor, result, violation, prev_hash, hash_ = row
    envelope: Envelope
    if version is None:  # a row written before versions were recorded: version 1, and no `v` was hashed
        envelope = {
            "seq": seq,
            "hand": hand,
            "type": kind,
            "data": loads(data),
            "recorded_at": recorded_at,
            "actor": actor,
            "result": loads(result),
            "prev_hash": prev_hash,
        }
    else:
        envelope = {
            "seq": seq,
            "hand": hand,
            "type": kind,
            "v": version,
            "data": loads(data),
            "recorded_at": recorded_at,
            "actor": actor,
            "result": loads(result),
            "prev_hash": prev_hash,
        }
    if violation is not None:
        envelope["violation"] = loads(violation)
    envelope["hash"] = hash_
    return envelope


def envelope_from_row(row: Any) -> Envelope:
    """A stored row (a Core row with the `ENVELOPE_COLUMNS`, by name) back into its envelope."""
    return envelope_from_values(
        (
            row.seq,
            row.hand,
            row.type,
            row.v,
            row.data,
            row.recorded_at,
            row.actor,
            row.result,
            row.violation,
            row.prev_hash,
            row.hash,
        )
    )
