"""The error tree of Tablebook.

Domain code raises these; `api/main.py` maps them to HTTP statuses once, so
no module below `api/` imports FastAPI. The three event errors carry the
422 codes of `rules/README.md`: `invalid`, `impossible`, `illegal`.
"""

from __future__ import annotations

from typing import Any

#: the longest message (or string detail) an error carries; longer ones are cut with "…"
MAX_MESSAGE = 500


def clip(text: str, limit: int = MAX_MESSAGE) -> str:
    """`text`, cut to `limit` characters: an error quoting a huge input must stay small and readable."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


class TablebookError(Exception):
    """Root of every error Tablebook raises on purpose."""

    code = "error"

    def __init__(self, message: str, **details: Any) -> None:
        message = clip(message)
        super().__init__(message)
        self.message = message
        self.details: dict[str, Any] = {k: clip(v) if isinstance(v, str) else v for k, v in details.items()}

    def to_dict(self) -> dict[str, Any]:
        """The `{"code", "message", ...}` body of the error shape in DESIGN.md."""
        return {"code": self.code, "message": self.message, **self.details}


class InvalidEventError(TablebookError):
    """Not well-formed: unknown type, missing/extra/mistyped field, bad card, seat out of range."""

    code = "invalid"


class ImpossibleEventError(TablebookError):
    """Well-formed, but it cannot happen at a real table; always rejected."""

    code = "impossible"


class OutOfTurnError(ImpossibleEventError):
    """An event by a seat that is not to act, or in the wrong phase."""


class IllegalEventError(TablebookError):
    """Possible with real cards but against a rule; carries the rule's id.

    Rejected under `strict` enforcement, stored with a `violation` under `record`.
    """

    code = "illegal"

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(reason, rule=rule)
        self.rule = rule
        self.reason = reason


class StreamConflictError(TablebookError):
    """The game's head is not at the seq the client expected."""

    code = "seq_conflict"

    def __init__(self, expected: int, actual: int) -> None:
        super().__init__(
            f"expected the game to be at seq {expected}, but it is at seq {actual}",
            expected=expected,
            actual=actual,
        )
        self.expected = expected
        self.actual = actual


class IdempotencyMismatchError(TablebookError):
    """An Idempotency-Key reused with a different request body."""

    code = "idempotency_mismatch"


class NotFoundError(TablebookError):
    """No such game (or not visible to this club), no such key, no such seq."""

    code = "not_found"


class UnknownGameError(InvalidEventError):
    """A game kind that the registry does not know, or a bad game option."""


class UnauthorizedError(TablebookError):
    """No key, or a key that is unknown or revoked."""

    code = "unauthorized"


class ForbiddenError(TablebookError):
    """A valid key whose role may not do this."""

    code = "forbidden"


class TooLargeError(TablebookError):
    """A request body over the route's limit."""

    code = "too_large"


class BusyError(TablebookError):
    """Work the server limits per process (a hand review's search) is running at its limit: send the
    request again after `retry_after` seconds (429 with Retry-After)."""

    code = "busy"


class TamperedError(TablebookError):
    """Stored events whose hashes or rules do not check out."""

    code = "tampered"
