"""The error of a file that cannot be imported: where (line, event index, seq) and why."""

from __future__ import annotations

from typing import Any

from events.errors import InvalidEventError


class BadImportError(InvalidEventError):
    """A json, jsonl or text export that cannot be imported (422 `invalid`); nothing is written.

    The message starts with the place (`line 7:` or `event 6:`); the details repeat it as
    `line`, `index` (0-based, in the json `events` list) and `seq` where they are known, and
    `problem` for a chain problem (`chain`, `hash`, `order`, `missing`, `rules`, ...).
    """

    def __init__(self, message: str, **details: Any) -> None:
        where = []
        if details.get("line") is not None:
            where.append(f"line {details['line']}")
        elif details.get("index") is not None:
            where.append(f"event {details['index']}")
        prefix = (", ".join(where) + ": ") if where else ""
        super().__init__(prefix + message, **{k: v for k, v in details.items() if v is not None})
        self.reason = message


def located(error: Exception, **details: Any) -> BadImportError:
    """Re-raise a domain error (a refused event, say) as a BadImportError at a place."""
    message = getattr(error, "message", str(error))
    extra = dict(getattr(error, "details", {}))
    extra.pop("index", None)
    code = getattr(error, "code", "invalid")
    bad = BadImportError(message, **{**extra, **details})
    if code in ("impossible", "illegal"):
        bad.code = code  # the refused event's own 422 code
    return bad
