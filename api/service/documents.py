"""How the service's answers read: a game as the API shows it, the cursor of a page of games, and the
rules' messages rendered with the game's players.

The rules raise and report with marked text (`projections/core/phrases.py`: `{seat:1}`, a card code);
every use case renders it with the game's players before it leaves the service (`rendered_error`,
`named_errors`, `named_report`), keeping the template and fields beside it for a client that renders
its own.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from events.errors import IllegalEventError, InvalidEventError, TablebookError
from events.schema import unstorable
from events.store import GameRecord
from projections.core import phrases


def game_public(game: GameRecord) -> dict[str, Any]:
    """A game as the API shows it (`GET /v1/games/{id}`, and each game of a page)."""
    return {
        "id": game.id,
        "game": game.kind,
        "players": list(game.players),
        "options": game.options,
        "status": game.status,
        "seq": game.seq,
        "hand": game.hand,
        "created_at": game.created_at,
        "updated_at": game.updated_at,
        "totals": game.totals,
        "winner": game.winner,
        "event": game.event,
        "round": game.round,
        "table": game.table,
        "copy_of": game.copy_of,
    }


def encode_cursor(game: GameRecord) -> str:
    """The cursor of a page of games that ends with `game` (newest first by `(created_at, id)`)."""
    return base64.urlsafe_b64encode(f"{game.created_at}|{game.id}".encode()).decode()


def decode_cursor(cursor: str) -> tuple[str, str]:
    """The (created_at, id) a cursor names; one that decodes to text no store holds (a NUL) is refused too.

    Raises:
        InvalidEventError: not a cursor this server gave out.
    """
    try:
        created, _, gid = base64.urlsafe_b64decode(cursor.encode()).decode().partition("|")
    except (ValueError, UnicodeDecodeError):
        raise InvalidEventError("cursor: not a cursor this server gave out", field="cursor") from None
    if not created or not gid or unstorable(created) or unstorable(gid):
        raise InvalidEventError("cursor: not a cursor this server gave out", field="cursor")
    return created, gid


@contextmanager
def named_errors(names: Sequence[str]) -> Iterator[None]:
    """Errors raised inside, with their marked messages rendered with the game's players (`rendered_error`)."""
    try:
        yield
    except TablebookError as refused:
        if not phrases.has_marker(refused.message):
            raise
        raise rendered_error(refused, names) from None


def rendered_error(error: TablebookError, names: Sequence[str] | None) -> TablebookError:
    """The same error (class, code, details, rule) with its message rendered for the game's players, and
    the marked text kept structured in its details (`template`, `fields`), so that a client may render its
    own. The rules raise with markers (`projections/core/phrases.py`); no client ever reads one."""
    template, fields = phrases.structure(error.message)
    out = type(error).__new__(type(error))  # not copy.copy: it would call __init__ with the args alone
    out.__dict__.update(error.__dict__)
    out.message = phrases.render(error.message, names)
    out.args = (out.message,)
    out.details = {
        **{k: phrases.render(v, names) if isinstance(v, str) else v for k, v in error.details.items()},
        "template": template,
        "fields": fields,
    }
    if isinstance(out, IllegalEventError):
        out.reason = out.message
    return out


#: the text fields of a report that the rules or the service wrote, and so may hold markers; free text a
#: person wrote (a note's `text`, a retract's `reason`) is never read as a template
_MARKED_KEYS = frozenset({"message", "summary"})


def named_report(report: dict[str, Any], names: Sequence[str]) -> dict[str, Any]:
    """A verify, audit or claim document with every marked message rendered with the game's players, and
    every score line (`{seat, points, rule, reason, events}`) given its rendered reason, template and fields.

    Where the report's maker already rendered, this changes nothing: rendered text has no marker left.
    """
    named: dict[str, Any] = _named_doc(report, names)
    return named


def _named_doc(document: Any, names: Sequence[str]) -> Any:
    """`named_report` of any part of a document."""
    if isinstance(document, list):
        return [_named_doc(item, names) for item in document]
    if not isinstance(document, dict):
        return document
    out = {k: _named_doc(v, names) for k, v in document.items()}
    for key in _MARKED_KEYS & out.keys():
        if isinstance(out[key], str):
            out[key] = phrases.render(out[key], names)
    if {"seat", "points", "rule", "reason"} <= out.keys() and "template" not in out and isinstance(out["reason"], str):
        out.update(phrases.explained(out["reason"], names))
    return out
