"""The documents of API v1, as pydantic models for the OpenAPI schema (`/docs`, `/redoc`, `/openapi.json`).

They describe what the routes answer; most routes do not validate their answers against them
(`responses={200: {"model": ...}}`, not `response_model`): the answers stay exactly what the
server builds, and the hot read routes pay nothing. Every model allows fields it does not name
(`extra="allow"`), so a new field is never dropped; `tests/api/test_openapi.py` checks real
answers of every route against this schema.

Errors: one model per status, `{"error": {"code", "message", ...}}` (`ERRORS`, `errors()`).
Events: each game's event vocabulary, generated from its schemas (`events/<game>.py`), as a
union on `type` per game (`event_schemas()`).
"""

from __future__ import annotations

import random
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from events.codec import plain
from projections.core import engine
from projections.core.registry import KINDS, rules_for
from projections.core.rules import CHANCE
from projections.core.simulate import playout_choice

# --------------------------------------------------------------------------- errors


class Doc(BaseModel):
    """A document the server answers: the named fields, and any others it may add."""

    model_config = ConfigDict(extra="allow")


class ErrorDetail(Doc):
    code: str = Field(description="a stable code: what went wrong")
    message: str = Field(description="what went wrong, for people")


class UnauthorizedDetail(ErrorDetail):
    code: Literal["unauthorized"]


class ForbiddenDetail(ErrorDetail):
    code: Literal["forbidden"]
    role: str | None = Field(default=None, description="the role of the key (or `share`)")
    index: int | None = Field(default=None, description="an auditor's batch: the event that is no correction")
    hand: int | None = Field(default=None, description="a share link: the hand still being played")
    live: bool | None = None


class NotFoundDetail(ErrorDetail):
    code: Literal["not_found"]


class TimeoutDetail(ErrorDetail):
    code: Literal["timeout"]


class ConflictDetail(ErrorDetail):
    code: Literal["seq_conflict", "idempotency_mismatch", "tampered"]
    expected: int | None = Field(default=None, description="seq_conflict: the `expected_seq` sent")
    actual: int | None = Field(default=None, description="seq_conflict: the game's head seq")


class TooLargeDetail(ErrorDetail):
    code: Literal["too_large"]
    limit: int | None = Field(default=None, description="the route's body limit, in bytes")


class UnavailableDetail(ErrorDetail):
    code: Literal["unavailable"]


class BusyDetail(ErrorDetail):
    code: Literal["busy"]
    retry_after: int = Field(description="seconds to wait before asking again (also the Retry-After header)")


class InvalidDetail(ErrorDetail):
    code: Literal["invalid", "impossible", "illegal"]
    field: str | None = Field(default=None, description="where: a field path (`events.hands[0]`), a parameter")
    index: int | None = Field(default=None, description="the event's index in the batch")
    rule: str | None = Field(default=None, description="illegal: the rule's id (`schnapsen.follow_suit`)")
    line: int | None = Field(default=None, description="an import: the line of the file")
    template: str | None = Field(
        default=None,
        description="a refusal by a game's rules: the message with placeholders (`{seat} does not hold {card}`)",
    )
    fields: dict[str, Any] | None = Field(default=None, description="the template's values (`{seat: 1, card: AS}`)")


class ErrorBody401(Doc):
    error: UnauthorizedDetail


class ErrorBody403(Doc):
    error: ForbiddenDetail


class ErrorBody404(Doc):
    error: NotFoundDetail


class ErrorBody408(Doc):
    error: TimeoutDetail


class ErrorBody409(Doc):
    error: ConflictDetail


class ErrorBody413(Doc):
    error: TooLargeDetail


class ErrorBody422(Doc):
    error: InvalidDetail


class ErrorBody429(Doc):
    error: BusyDetail


class ErrorBody503(Doc):
    error: UnavailableDetail


#: status -> (the model of its body, what it means)
ERRORS: dict[int, tuple[type[BaseModel], str]] = {
    401: (ErrorBody401, "`unauthorized`: no key, not a Tablebook key, an unknown or revoked key or share link"),
    403: (ErrorBody403, "`forbidden`: the key's role (or a share link) may not do this"),
    404: (ErrorBody404, "`not_found`: no such game in the key's club (or no such hand, seq, share link)"),
    408: (ErrorBody408, "`timeout`: the request body did not arrive in time"),
    409: (ErrorBody409, "`seq_conflict` (with `expected`, `actual`) or `idempotency_mismatch`"),
    413: (ErrorBody413, "`too_large`: the request body is over the route's limit (with `limit`)"),
    422: (
        ErrorBody422,
        "`invalid` (malformed: with `field`), `impossible` or `illegal` (with `rule`, and the event's `index`)",
    ),
    429: (ErrorBody429, "`busy`: the server is running as many searches as it allows; ask again after Retry-After"),
    503: (ErrorBody503, "`unavailable`: the database does not answer"),
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """`responses=` of a route: the error bodies of these statuses."""
    return {status: {"model": ERRORS[status][0], "description": ERRORS[status][1]} for status in statuses}


#: every route that reads a key; a share link is refused (403) on most routes
AUTH = (401, 403, 422)
#: ... of one game
GAME = (401, 403, 404, 422)
#: ... with a request body
BODY = (408, 413)


# --------------------------------------------------------------------------- envelopes


class Violation(Doc):
    rule: str = Field(description="the rule an event stored under `record` enforcement breaks")
    message: str


class Envelope(Doc):
    """A stored event: `{seq, hand, type, v, data, recorded_at, actor, result, prev_hash, hash}`.

    A viewer gets a live hand's hidden cards as `??` (`redacted: true`) and no hash over them
    (`null`); a share link gets a live hand's events `withheld` (type `withheld`, no data).
    """

    seq: int
    hand: int
    type: str = Field(description="the event's type (`withheld` for a share link's hidden hand)")
    v: int | None = Field(
        default=None,
        description="the version of its type's shape it was written in (absent: version 1, an event stored "
        "before versions were recorded); a reader upcasts older versions (docs/adding-a-game.md)",
    )
    data: dict[str, Any] = Field(description="the event's fields, as sent (card codes canonical)")
    recorded_at: str | None = None
    actor: str | None = Field(default=None, description="`key:<id>` or `share:<id>`")
    result: dict[str, Any] = Field(description="derived facts: trick winner, points, `game_ended`...")
    prev_hash: str | None = None
    hash: str | None = None
    violation: Violation | None = None
    redacted: bool | None = None
    withheld: bool | None = None


class Appended(Doc):
    """201: the envelopes of the batch, in order."""

    events: list[Envelope]


class EventPage(Doc):
    events: list[Envelope]
    head: int = Field(description="the game's head seq")


# --------------------------------------------------------------------------- the state document

#: points by seat (`"0"`, `"1"`...); the state document and a replay's frames are `api/state_models.py`'s
SeatPoints = dict[str, int]


# --------------------------------------------------------------------------- score, verify, replay, audit


class ScoreLineDoc(Doc):
    seat: int
    points: int
    rule: str = Field(description="the rule's id (`schnapsen.last_trick`)")
    reason: str = Field(description="why, for people: seats by the players' names, cards with suit symbols")
    template: str = Field(
        description="the reason with a placeholder for each seat, card and value: "
        "`{seat} captured {card}`; `{seat_2}`... for the second and later of a kind"
    )
    fields: dict[str, Any] = Field(
        description="the placeholders' values: a seat number (`seat`), a card code (`card`), a list of card "
        "codes (`cards`), half points (`half`: 7 is 3½) or chips (`chips`)"
    )
    events: list[int] = Field(description="the seqs the points come from")


class HandScoreDoc(Doc):
    hand: int
    points: SeatPoints
    lines: list[ScoreLineDoc]


class ScoreSheet(Doc):
    totals: SeatPoints
    finished: bool
    winner: int | None
    hands: list[HandScoreDoc]


class Problem(Doc):
    seq: int | None = None
    problem: str | None = None
    message: str | None = None


class VerifyReport(Doc):
    ok: bool
    events: int
    head_hash: str | None
    first_bad_seq: int | None = None
    problems: list[Problem]
    deals: dict[str, Any] | None = Field(
        None,
        description="a server-dealt game only: `{ok, algorithm, hands: [{hand, commitment, seeds, revealed, "
        "server_seed, verified, cards_checked}]}`, each hand's deck checked (docs/server-deal.md); a mismatch is a "
        'problem `"problem": "deal"` naming the hand, the seq and the card',
    )


class ClaimLine(ScoreLineDoc):
    hand: int


class ClaimComparison(Doc):
    hand: int | None
    claimed: dict[str, float]
    computed: SeatPoints | None
    agrees: bool
    summary: str
    lines: list[ClaimLine]


class RecordedClaim(ClaimComparison):
    seq: int
    retracted: bool
    before_retract: int | None = Field(
        default=None, description="the retract whose range it was made in (it stays in force), or null"
    )


class AuditChain(Doc):
    ok: bool
    events: int
    head_hash: str | None
    problems: list[Problem]


class AuditViolation(Doc):
    seq: int
    hand: int
    type: str
    rule: str
    message: str
    retracted: bool


class AuditRetraction(Doc):
    seq: int
    to_seq: int
    reason: str
    actor: str
    recorded_at: str
    retracted: list[int] = Field(description="the game events it took back")
    kept: list[int] = Field(
        default_factory=list, description="the claims and notes in its range, which it left in force"
    )


class AuditNote(Doc):
    seq: int
    text: str
    ref: int | None
    actor: str
    recorded_at: str
    retracted: bool
    before_retract: int | None = Field(
        default=None, description="the retract whose range it was made in (it stays in force), or null"
    )
    remark: str | None = Field(default=None, description="for a note made before a retract: what that means")


class GameNote(Doc):
    seq: int
    hand: int
    text: str
    retracted: bool


class AuditReport(Doc):
    game: str
    chain: AuditChain
    violations: list[AuditViolation]
    retractions: list[AuditRetraction]
    claims: list[RecordedClaim]
    notes: list[AuditNote]
    game_notes: list[GameNote]
    score: ScoreSheet | None


# --------------------------------------------------------------------------- imports


class ImportedGame(Doc):
    """`POST /v1/import`: the game (new, or the one the club had), and where it came from."""

    game: dict[str, Any] = Field(description="the game's metadata, as `GET /v1/games/{id}` answers it")
    duplicate_of: str | None = Field(description="200: the club's game the file is a record of (nothing written)")
    copy_of: str | None = Field(
        default=None,
        description="201 with `copy=true`: the club's game the new one is a copy of (a record, not a second "
        "result: ratings, statistics and standings skip it); null for a new original",
    )
    format: Literal["json", "jsonl", "text"]
    events: int
    head_hash: str
    same_head_hash: bool
    source: dict[str, Any] = Field(description="the export's `id`, `club` and `head_hash`")


class BulkImported(Doc):
    imported: list[dict[str, Any]] = Field(description="`[{id, source_id, events}]`")
    skipped: list[dict[str, Any]] = Field(description="`[{source_id, line, reason, duplicate_of}]`")
    summary: dict[str, int] = Field(description="`{imported, skipped, events}`")


# --------------------------------------------------------------------------- events (request bodies)

_COMMON = ("score_claimed", "note", "hand_voided", "retract")


def _title(kind: str) -> str:
    return "".join(part.capitalize() for part in kind.replace("-", "_").split("_"))


def event_schemas() -> dict[str, dict[str, Any]]:
    """Components of the events, generated from each game's schemas (`rules.events`, `events/<game>.py`).

    `<Game><Type>` for a game's own events (`SchnapsenPlay`), `<Type>` for the common ones (`Note`);
    `<Game>Event`, a union on `type` of the game's events; `Event`, any game's event; `AppendBody`.
    """
    out: dict[str, dict[str, Any]] = {}
    games: list[dict[str, str]] = []
    for kind in KINDS:
        rules = rules_for(kind)
        mapping: dict[str, str] = {}
        for name, shape in rules.events.items():
            component = _title(name) if name in _COMMON else _title(kind) + _title(name)
            schema = shape.json_schema(name)
            schema["title"] = f"{name}" if name in _COMMON else f"{rules.title}: {name}"
            out[component] = schema
            mapping[name] = f"#/components/schemas/{component}"
        union = f"{_title(kind)}Event"
        out[union] = {
            "title": f"{rules.title} event",
            "description": f"an event of `{kind}`: one of " + ", ".join(f"`{n}`" for n in rules.events),
            "oneOf": [{"$ref": ref} for ref in mapping.values()],
            "discriminator": {"propertyName": "type", "mapping": mapping},
        }
        games.append({"$ref": f"#/components/schemas/{union}"})
    out["Event"] = {
        "title": "Event",
        "description": "an event of the game's vocabulary (`docs/events.md`); the common events `score_claimed`, "
        "`note`, `hand_voided` and `retract` are every game's",
        "anyOf": games,
    }
    out["AppendBody"] = {
        "title": "AppendBody",
        "type": "object",
        "required": ["events"],
        "additionalProperties": False,
        "properties": {
            "expected_seq": {
                "type": "integer",
                "minimum": 0,
                "description": "the seq of the last event you have seen (0 for a new game): 409 `seq_conflict` "
                "if the game is elsewhere",
            },
            "events": {
                "type": "array",
                "minItems": 1,
                "maxItems": 1000,
                "items": {"$ref": "#/components/schemas/Event"},
                "description": "checked in order; one refusal and nothing is written",
            },
        },
    }
    return out


def first_events(kind: str) -> list[dict[str, Any]]:
    """A new game's first events, from its declaration: the demo players' game under default options, its
    chance events (a cut, a deal...) up to the first decision and that decision (a random playout's choice,
    `simulate.playout_choice`), drawn with `random.Random(0)` and decided as an append would be."""
    rules = rules_for(kind)
    players = list(rules.demo_players)
    replay = engine.Replay(rules, engine.start(rules, players, rules.options_for(players, None)), keep=())
    rng = random.Random(0)
    out: list[dict[str, Any]] = []
    for _ in range(_MAX_CHANCE + 1):
        game = replay.position.game
        due = rules.to_act(game)
        offered = rules.chance_events(game, rng) if due is CHANCE else rules.legal_events(game)
        if not offered:
            break
        if due is CHANCE:
            chosen = offered[0]
        else:
            chosen = playout_choice(rules, game, offered, rng, out)
        out.append(plain(replay.push(plain(chosen)).event))
        if due is not CHANCE:
            break
    return out


#: the most chance events (a cut, a deal...) an example shows before the first decision
_MAX_CHANCE = 3


def append_examples() -> dict[str, dict[str, Any]]:
    """Request body examples of the append route: a new game's first events for every game, and a note."""
    examples: dict[str, dict[str, Any]] = {}
    for kind in KINDS:
        events = first_events(kind)
        examples[kind] = {
            "summary": f"{rules_for(kind).title}: " + ", then ".join(e["type"] for e in events),
            "value": {"expected_seq": 0, "events": events},
        }
    examples["note"] = {
        "summary": "Any game: a note (an auditor key may append it too)",
        "value": {"events": [{"type": "note", "text": "table 3, second session"}]},
    }
    return examples


#: request body examples of the append route, one per game (its first events) and a note
APPEND_EXAMPLES: dict[str, dict[str, Any]] = append_examples()


#: `GET /v1/games/{id}/stream`'s 200: an event stream, not JSON
STREAM_RESPONSE: dict[str, Any] = {
    "description": "`text/event-stream`: `retry: 1000`, then an `envelope` event (id: its seq, data: the "
    "envelope's JSON) for each new event; `: keep-alive` comments; an `error` event (data "
    '`{"error": {...}}`) if the key or share link is revoked',
    "content": {"text/event-stream": {"schema": {"type": "string"}}},
}
