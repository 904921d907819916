"""What an imported record's header and envelopes must be, checked before anything of it is folded.

The json and jsonl exports carry a header (format, game, players, options, created_at, labels) and
every envelope as stored; `projections/histories/importer.py` reads a file with these checks (a text
history's header too) and then re-walks the chain and re-runs the rules. Each check raises a
`BadImportError` naming the field, and where in the file it is (`where`: a line, an index).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from events.codec import FORMAT, canonical
from events.envelope import Envelope
from events.errors import TablebookError
from events.schema import unstorable
from events.store.players import normal_name
from projections.core.registry import rules_for
from projections.core.rules import GameRules
from projections.histories.errors import BadImportError
from projections.histories.text import LABEL_TAGS

#: the fields of a stored envelope (and `violation`, when it has one)
ENVELOPE_KEYS = frozenset({"seq", "hand", "type", "data", "recorded_at", "actor", "result", "prev_hash", "hash"})
_HASH = re.compile(r"[0-9a-f]{64}")
_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(Z|[+-][0-9]{2}:?[0-9]{2})?")
MAX_PLAYERS = 8
MAX_NAME = 100


@dataclass(frozen=True, slots=True)
class GameHead:
    kind: str
    rules: GameRules[Any]
    players: list[str]
    options: dict[str, Any]
    created_at: str
    source: dict[str, Any]
    labels: dict[str, str] = field(default_factory=dict)


#: the labels a game may have (`POST /v1/games`): json keys, and the text history's tags
MAX_LABEL = 80


def check_labels(found: Mapping[str, Any], **where: Any) -> dict[str, str]:
    """A game's labels as the API takes them: one line of at most MAX_LABEL characters each, clipped.

    Raises:
        BadImportError: a label that is not such a string, naming it.
    """
    labels: dict[str, str] = {}
    for name, value in found.items():
        if value is None:
            continue
        text = value.strip() if isinstance(value, str) else None
        if text is None or len(text) > MAX_LABEL or any(ord(c) < 32 or c in "\x7f\x85\u2028\u2029" for c in text):
            raise BadImportError(f"{name}: a label is one line of at most {MAX_LABEL} characters", field=name, **where)
        if text:
            labels[name] = text
    return labels


def check_players(players: Any, **where: Any) -> list[str]:
    if not isinstance(players, list) or not players or len(players) > MAX_PLAYERS:
        raise BadImportError(f"players: expected a list of 1 to {MAX_PLAYERS} names", field="players", **where)
    return [check_name(seat, name, **where) for seat, name in enumerate(players)]


def check_name(seat: int, name: Any, **where: Any) -> str:
    """A player's name as the API takes it, normalised as names are kept (`normal_name`: trimmed, whitespace
    inside one space): 1 to MAX_NAME characters, none that a store cannot hold (a NUL).

    Raises:
        BadImportError: anything else, naming the seat (and the place in the file, `where`).
    """
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME:
        raise BadImportError(
            f"players[{seat}]: a name is a string of 1 to {MAX_NAME} characters", field="players", **where
        )
    problem = unstorable(name)
    if problem:
        raise BadImportError(f"players[{seat}]: the name {problem}", field="players", **where)
    kept = normal_name(name)
    if not kept:
        raise BadImportError(f"players[{seat}]: a name is more than spaces", field="players", **where)
    return kept


def check_created(created: Any, **where: Any) -> str:
    if not isinstance(created, str) or not _TIME.fullmatch(created):
        raise BadImportError(
            f"created_at: expected an ISO 8601 time such as 2026-11-29T14:02:11.123456Z, got {created!r}",
            field="created_at",
            **where,
        )
    return created


def game_head(doc: Any, **where: Any) -> GameHead:
    """The game a json/jsonl header describes, checked.

    Raises:
        BadImportError: not a tablebook/1 header, a redacted export, an unknown game, bad players or options.
    """
    if not isinstance(doc, dict):
        raise BadImportError("expected the export's header, a JSON object", **where)
    if doc.get("format") != FORMAT:
        raise BadImportError(
            f"format: expected {FORMAT!r}, got {doc.get('format')!r}: not a Tablebook export", field="format", **where
        )
    if doc.get("redacted"):
        raise BadImportError(
            "this export was redacted for a viewer key (a live hand's cards are hidden): it cannot be "
            "imported; export it with a recorder or auditor key",
            field="redacted",
            **where,
        )
    kind = doc.get("game")
    if not isinstance(kind, str):
        raise BadImportError("game: expected the game's kind, e.g. 'schnapsen'", field="game", **where)
    try:
        rules = rules_for(kind)
    except TablebookError as exc:
        raise BadImportError(exc.message, field="game", **where) from None
    players = check_players(doc.get("players"), **where)
    options = doc.get("options", {})
    if not isinstance(options, dict):
        raise BadImportError("options: expected an object", field="options", **where)
    try:
        filled = rules.options_for(players, options)
    except TablebookError as exc:
        raise BadImportError(exc.message, field=exc.details.get("field", "options"), **where) from None
    unnormalised = sorted(name for name, value in options.items() if filled[name] != value)
    if unnormalised:
        # the options are in the genesis hash exactly as exported; an option the game gained after the
        # export was made is absent from them and plays at its default (`engine.start`)
        raise BadImportError(
            f"options: {unnormalised[0]!r} is not written as an export writes it "
            f"({options[unnormalised[0]]!r}, not {filled[unnormalised[0]]!r}): the options are in the genesis hash",
            field="options",
            **where,
        )
    seats = doc.get("seats")
    if seats is not None and seats != len(players):
        raise BadImportError(f"seats: {seats!r} but {len(players)} players", field="seats", **where)
    created = check_created(doc.get("created_at"), **where)
    source = {k: doc.get(k) for k in ("id", "club", "seq", "head_hash") if doc.get(k) is not None}
    labels = check_labels({name: doc.get(name) for name in LABEL_TAGS}, **where)
    return GameHead(kind, rules, players, options, created, source, labels)


def check_envelope(env: Any, **where: Any) -> Envelope:
    """The shape of a stored envelope, so that it is written back byte for byte.

    Raises:
        BadImportError: not an envelope, a redacted one, a missing, extra or mistyped field.
    """
    if not isinstance(env, dict):
        raise BadImportError("expected an envelope (a JSON object)", **where)
    if env.get("redacted"):
        raise BadImportError("a redacted envelope (cards hidden for a viewer key) cannot be imported", **where)
    missing = sorted(ENVELOPE_KEYS - set(env))
    if missing:
        raise BadImportError(f"the envelope has no {missing[0]!r}", **where)
    extra = sorted(set(env) - ENVELOPE_KEYS - {"violation", "v"})
    if extra:
        raise BadImportError(f"the envelope has an unknown field {extra[0]!r}", **where)
    checks: list[tuple[str, bool, str]] = [
        (
            "seq",
            isinstance(env["seq"], int) and not isinstance(env["seq"], bool) and env["seq"] >= 1,
            "a seq (1, 2...)",
        ),
        ("hand", isinstance(env["hand"], int) and not isinstance(env["hand"], bool) and env["hand"] >= 0, "a hand"),
        ("type", isinstance(env["type"], str) and 0 < len(env["type"]) <= 32, "an event type"),
        ("data", isinstance(env["data"], dict), "an object"),
        ("result", isinstance(env["result"], dict), "an object"),
        ("recorded_at", isinstance(env["recorded_at"], str) and len(env["recorded_at"]) <= 64, "a time"),
        ("actor", isinstance(env["actor"], str) and len(env["actor"]) <= 64, "a key id of up to 64 characters"),
        ("prev_hash", isinstance(env["prev_hash"], str) and bool(_HASH.fullmatch(env["prev_hash"])), "a sha256"),
        ("hash", isinstance(env["hash"], str) and bool(_HASH.fullmatch(env["hash"])), "a sha256 hex digest"),
    ]
    if "violation" in env:
        checks.append(("violation", isinstance(env["violation"], dict), "an object"))
    if "v" in env:  # the version of its type's shape (events/upcast.py); none: version 1
        version = env["v"]
        checks.append(
            ("v", isinstance(version, int) and not isinstance(version, bool) and 1 <= version <= 1000, "a version")
        )
    for name, ok, what in checks:
        if not ok:
            raise BadImportError(f"{name}: expected {what}, got {env[name]!r}"[:300], field=name, **where)
    for name in ("type", "recorded_at", "actor"):  # kept in text columns as they are: PostgreSQL refuses a NUL
        problem = unstorable(env[name])
        if problem:
            raise BadImportError(f"{name}: {problem}", field=name, **where)
    if env["type"] == "retract" or "to_seq" in env["data"]:
        to_seq = env["data"].get("to_seq")
        if not isinstance(to_seq, int) or isinstance(to_seq, bool):
            raise BadImportError("data.to_seq: expected the seq a retract goes back to (an integer)", **where)
    try:
        canonical(env)
    except orjson.JSONEncodeError as exc:
        raise BadImportError(f"a value that cannot be hashed: {exc}", **where) from None
    return env
