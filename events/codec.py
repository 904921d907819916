"""Canonical JSON and the hash chain (`rules/README.md`, "Games, hands, events").

The canonical form is orjson with sorted keys; a hash is the sha256 hex of
those bytes. An envelope's hash covers every field but `hash`; the first
event's `prev_hash` is the hash of the game's genesis record, which holds no
player name, so names can be erased without breaking a chain.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import orjson

FORMAT = "tablebook/1"
_DUMP_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def canonical(value: Any) -> bytes:
    """The canonical JSON bytes of `value` (sorted keys, no whitespace)."""
    return orjson.dumps(value, option=_DUMP_OPTIONS)


def plain(value: Any) -> Any:
    """A value as JSON holds it: mappings as dicts with string keys, tuples as lists (an event built from
    a frozen state, say), so that it compares and serialises as the stored one does."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def dumps(value: Any) -> str:
    """Canonical JSON as text, the form stored in the database."""
    return canonical(value).decode()


#: Parse JSON text (strict: orjson rejects NaN, trailing commas, bad UTF-8). orjson's own function, not a
#: function calling it: a read decodes two or three texts a row, and the call in between cost 0.06-0.13 us
#: of the 2.3-2.6 us a row of `Store.read_events` takes (issue 34, A/B in one process)
loads: Callable[[str | bytes], Any] = orjson.loads


def sha256_hex(data: bytes) -> str:
    """The sha256 hex digest of `data`."""
    return hashlib.sha256(data).hexdigest()


def genesis_hash(game: str, seats: int, options: Mapping[str, Any], created_at: str) -> str:
    """The `prev_hash` of a game's first event."""
    return sha256_hex(
        canonical(
            {
                "format": FORMAT,
                "game": game,
                "seats": seats,
                "options": dict(options),
                "created_at": created_at,
            }
        )
    )


def envelope_hash(envelope: Mapping[str, Any]) -> str:
    """The hash of an envelope: every field except `hash` itself."""
    return sha256_hex(canonical({k: v for k, v in envelope.items() if k != "hash"}))


def utc_now() -> str:
    """UTC now, ISO 8601 with microseconds and a `Z` (`2026-11-29T14:02:11.123456Z`)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
