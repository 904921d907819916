"""A corpus of broken events for every game kind, made by mutating the next legal event.

Every case starts from an event the game would accept at that point (the
next event of a random legal playout) and breaks it one way: a field of the
wrong type, an unknown field, a missing field, a huge string, deep nesting,
a bad card code, a seat out of range, a bad seat key, a wrong `type`, not an
object at all; or a real event of the same game sent out of order. Each case
names its category, so the figures say what was tried.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from events.cards import FULL_DECK
from projections.core.registry import available, rules_for
from projections.core.rules import GameRules

HUGE = "X" * 200_000
#: values of every JSON type; a leaf is replaced by each one of another type
OTHER_TYPES: tuple[Any, ...] = (None, True, "x", 7, 1.5, [], {})
BAD_CARDS: tuple[Any, ...] = ("ZZ", "1S", "", "A", "ASD", "11H", "A♠", " ", "T\x00", "AS" * 40, "1", "HH")
BAD_SEATS: tuple[int, ...] = (-1, 99, 2**31, -(2**63), 2**63 - 1)
BAD_SEAT_KEYS: tuple[str, ...] = ("-1", "9", "00", "²", "1" * 5000, "a", "", " 0", "0.0")
UNKNOWN_FIELDS: tuple[tuple[str, Any], ...] = (
    ("colour", "red"),
    ("Seat", 0),
    ("", 1),
    ("__proto__", {}),
    ("x" * 5000, 1),
)


def declared_seat_fields() -> dict[str, frozenset[str]]:
    """Per event type, the fields some game declares a seat (`GameRules.fields`), over every registered game."""
    out: dict[str, frozenset[str]] = {}
    for kind in available():
        rules = rules_for(kind)
        for event_type in rules.fields:
            out[event_type] = out.get(event_type, frozenset()) | rules.seat_fields(event_type)
    return out


#: per event type, its top-level fields that name a seat, as the games declare them
SEAT_FIELDS: dict[str, frozenset[str]] = declared_seat_fields()


@dataclass(frozen=True, slots=True)
class Case:
    """One broken event: its category, what was done, and the event."""

    category: str
    detail: str
    event: Any


def nested_list(depth: int) -> Any:
    value: Any = "AS"
    for _ in range(depth):
        value = [value]
    return value


def nested_dict(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = {"seat": value}
    return value


Path = tuple[str | int, ...]


def leaves(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every (path, leaf) of a JSON value; containers are walked, not yielded."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, (*path, index))
    else:
        yield path, value


def containers(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    if isinstance(value, dict | list):
        yield path, value
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            yield from containers(item, (*path, key))


def replaced(event: dict[str, Any], path: Path, new: Any) -> dict[str, Any]:
    out = copy.deepcopy(event)
    target: Any = out
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = new
    return out


def is_card(value: Any) -> bool:
    return isinstance(value, str) and value in FULL_DECK


def show(path: Path) -> str:
    return ".".join(str(p) for p in path)


def mutations(event: dict[str, Any], seats: int, rules: GameRules[Any] | None = None) -> Iterator[Case]:
    """Every way of breaking `event` (a legal next event) that the corpus knows.

    Its seat fields are those `rules` declares for its type, else those any game declares (`SEAT_FIELDS`).
    """
    event_type = event.get("type")
    if rules is not None and isinstance(event_type, str):
        seat_fields = rules.seat_fields(event_type)
    else:
        seat_fields = SEAT_FIELDS.get(event_type, frozenset()) if isinstance(event_type, str) else frozenset()
    for path, leaf in leaves({k: v for k, v in event.items() if k != "type"}):
        where = show(path)
        for other in OTHER_TYPES:
            if type(other) is not type(leaf) and not (isinstance(leaf, int | float) and type(other) in (int, float)):
                yield Case("wrong type", f"{where} = {other!r}", replaced(event, path, other))
        if is_card(leaf):
            for bad in BAD_CARDS:
                yield Case("bad card code", f"{where} = {bad!r}", replaced(event, path, bad))
        if isinstance(leaf, int) and not isinstance(leaf, bool) and len(path) == 1 and path[0] in seat_fields:
            for bad_seat in (*BAD_SEATS, seats):
                yield Case("seat out of range", f"{where} = {bad_seat}", replaced(event, path, bad_seat))
        yield Case("huge string", f"{where} = 200,000 characters", replaced(event, path, HUGE))
        yield Case("deep nesting", f"{where} = a list nested 900 deep", replaced(event, path, nested_list(900)))
        yield Case("deep nesting", f"{where} = an object nested 200 deep", replaced(event, path, nested_dict(200)))
    for field in event:
        if field != "type":
            yield Case("missing field", f"without {field}", {k: v for k, v in event.items() if k != field})
    for path, container in containers({k: v for k, v in event.items() if k != "type"}):
        if isinstance(container, dict) and path:
            if all(isinstance(k, str) and k.isdigit() for k in container):  # keyed by seat
                any_value = next(iter(container.values()))
                for key in BAD_SEAT_KEYS:
                    yield Case(
                        "seat out of range",
                        f"{show(path)} key {key[:20]!r}",
                        replaced(event, path, {**container, key: any_value}),
                    )
            else:
                yield Case(
                    "unknown field", f"{show(path)}.colour", replaced(event, path, {**container, "colour": "red"})
                )
        if isinstance(container, list) and container and all(is_card(c) for c in container):
            yield Case("bad card code", f"{show(path)} with 65 cards", replaced(event, path, [container[0]] * 65))
            yield Case(
                "bad card code", f"{show(path)} with a card twice", replaced(event, path, [*container, container[0]])
            )
    for name, value in UNKNOWN_FIELDS:
        yield Case("unknown field", f"top-level {name[:20]!r}", {**event, name: value})
    for kind in (None, 1, "PLAY!", "", HUGE, ["play"], {"type": "play"}, "Deal "):
        yield Case("wrong type", f"type = {str(kind)[:20]!r}", {**event, "type": kind})
    yield Case("missing field", "without type", {k: v for k, v in event.items() if k != "type"})
    for not_an_object in ([event], "play", 5, None, True, []):
        yield Case("not an object", f"the event is {type(not_an_object).__name__}", not_an_object)


def out_of_order(events: list[dict[str, Any]], at: int) -> Iterator[Case]:
    """Real events of the same game at the wrong point: later ones early, an earlier one again."""
    for ahead in (1, 2, 3, 5, 8, 13):
        if at + ahead < len(events):
            yield Case("out of order", f"event {at + ahead + 1} sent as event {at + 1}", events[at + ahead])
    for back in (1, 2, 5):
        if at - back >= 0:
            yield Case("out of order", f"event {at - back + 1} sent again as event {at + 1}", events[at - back])


# --------------------------------------------------------------------------- requests no store can hold

#: a Seven and a Half stake over 64 bits once multiplied, and the widest table limit
BIG_STAKE = 2**63 - 1
WIDEST = 10**9
_TEXT_HEAD = '[Game "schnapsen"]\n[Seat0 "Anna"]\n[Seat1 "Ben"]\n\n'
_DEAL = "deal dealer=Ben trump_card=JH hands=[[KH QH TD AC JS] [TS AD KC QS JD]]"
_NUL_CURSOR = "MjAyNi0wMS0wMXwA"  # base64 of "2026-01-01|\x00"
_NUL_EXPORT_CURSOR = "ZXhwb3J0fDIwMjZ8AA=="  # base64 of "export|2026|\x00"


@dataclass(frozen=True, slots=True)
class Edge:
    """One request an outside test found answered with a 5xx (or a 200 that should be a refusal).

    `target` is the path and query as sent, percent-encoded; `{game}` is a Schnapsen game of the
    club, `{half}` a Seven and a Half game under `record` and `{player}` a player of the club. `key`
    is the role whose key is sent (None: no key). `protocol` marks a request an HTTP server may
    refuse itself, before the app (h11 answers a NUL in a header with a plain 400).
    """

    defect: int
    name: str
    method: str
    target: str
    body: bytes | None = None
    headers: tuple[tuple[str, bytes], ...] = ()
    key: str | None = "recorder"
    field: str | None = None
    protocol: bool = False


def _bets(amount: int) -> bytes:
    bets = ", ".join(f'{{"type": "bet", "seat": {s}, "amount": {amount}}}' for s in (3, 2, 1))
    return b'{"events": [%s]}' % bets.encode()


def _create(game: str, players: str, options: str) -> bytes:
    return b'{"game": "%s", "players": %s, "options": %s}' % (game.encode(), players.encode(), options.encode())


EDGES: tuple[Edge, ...] = (
    # 5: integer options of 2**64 and more; every integer option is bounded
    Edge(
        5,
        "casino target 2**64",
        "POST",
        "/v1/games",
        _create("casino", '["A","B","C"]', '{"target": 18446744073709551616}'),
        field="options.target",
    ),
    Edge(
        5,
        "casino target 10**6",
        "POST",
        "/v1/games",
        _create("casino", '["A","B","C"]', '{"target": 1000000}'),
        field="options.target",
    ),
    Edge(
        5,
        "max_bet 2**64",
        "POST",
        "/v1/games",
        _create("seven-and-a-half", '["A","B","C","D"]', '{"max_bet": 18446744073709551616}'),
        field="options.max_bet",
    ),
    Edge(
        5,
        "max_bet 10**9 + 1",
        "POST",
        "/v1/games",
        _create("seven-and-a-half", '["A","B","C","D"]', '{"max_bet": 1000000001}'),
        field="options.max_bet",
    ),
    # 6: stakes of 2**63 - 1 under record enforcement
    Edge(6, "stakes of 2**63 - 1 under record", "POST", "/v1/games/{half}/events", _bets(BIG_STAKE), field="amount"),
    Edge(
        6,
        "a split of 2**63 - 1",
        "POST",
        "/v1/games/{half}/events",
        b'{"events": [{"type": "split", "seat": 3, "hand": 0, "amount": 9223372036854775807}]}',
        field="amount",
    ),
    Edge(
        6,
        "a note ref of 2**40",
        "POST",
        "/v1/games/{game}/events",
        b'{"events": [{"type": "note", "text": "x", "ref": 1099511627776}]}',
        field="ref",
    ),
    # 7: a text import with numbers of thousands of digits
    Edge(
        7,
        "a text seq of 5,000 digits",
        "POST",
        "/v1/import?format=text",
        (_TEXT_HEAD + "1" * 5000 + ". " + _DEAL + "\n").encode(),
    ),
    Edge(
        7,
        "a text dealer of 5,000 digits",
        "POST",
        "/v1/import?format=text",
        (_TEXT_HEAD + "1. " + _DEAL.replace("dealer=Ben", "dealer=" + "1" * 5000) + "\n").encode(),
    ),
    Edge(
        7,
        "a text #seat of 5,000 digits",
        "POST",
        "/v1/import?format=text",
        (_TEXT_HEAD + "1. " + _DEAL.replace("dealer=Ben", "dealer=#" + "1" * 5000) + "\n").encode(),
    ),
    Edge(
        7,
        "a Seat tag of 5,000 digits",
        "POST",
        "/v1/import?format=text",
        (_TEXT_HEAD.replace("\n\n", f'\n[Seat{"1" * 5000} "Cy"]\n\n') + "1. " + _DEAL + "\n").encode(),
    ),
    # 8: Last-Event-ID that isdigit() takes and int() refuses
    Edge(
        8,
        "Last-Event-ID ²",
        "GET",
        "/v1/games/{game}/stream?follow=false",
        headers=(("Last-Event-ID", "²".encode("latin-1")),),
        field="last_event_id",
    ),
    Edge(
        8,
        "Last-Event-ID of 5,000 digits",
        "GET",
        "/v1/games/{game}/stream?follow=false",
        headers=(("Last-Event-ID", b"1" * 5000),),
        field="last_event_id",
    ),
    Edge(
        8,
        "Last-Event-ID 2**31",
        "GET",
        "/v1/games/{game}/stream?follow=false",
        headers=(("Last-Event-ID", b"2147483648"),),
        field="last_event_id",
    ),
    # 9: NaN, Infinity, 1e400 in request bodies
    Edge(
        9,
        "audit points NaN and 1e400",
        "POST",
        "/v1/games/{game}/audit",
        b'{"points": {"0": NaN, "1": 1e400}}',
        key="auditor",
    ),
    Edge(
        9,
        "audit points 1e300",
        "POST",
        "/v1/games/{game}/audit",
        b'{"points": {"0": 1e300, "1": 0}}',
        key="auditor",
        field="points.0",
    ),
    Edge(9, "a player name of NaN", "POST", "/v1/games", _create("schnapsen", "[NaN, 1]", "{}")),
    Edge(
        9,
        "score_claimed points 1e300",
        "POST",
        "/v1/games/{game}/events",
        b'{"events": [{"type": "score_claimed", "hand": 0, "points": {"0": 1e300, "1": 0}}]}',
        key="auditor",
        field="points.0",
    ),
    # 10: a NUL (or a lone surrogate) anywhere a string reaches the store
    Edge(10, "a game id with a NUL", "GET", "/v1/games/g%00", field="path"),
    Edge(10, "a game id with a NUL, events", "GET", "/v1/games/%00/events", field="path"),
    Edge(
        10,
        "a game id with a NUL, append",
        "POST",
        "/v1/games/%00/events",
        b'{"events": [{"type": "note", "text": "x"}]}',
        field="path",
    ),
    Edge(10, "a share id with a NUL", "DELETE", "/v1/games/{game}/share/%00", field="path"),
    Edge(10, "a list filter with a NUL", "GET", "/v1/games?player=%00", field="player"),
    Edge(10, "a cursor that decodes to a NUL", "GET", f"/v1/games?cursor={_NUL_CURSOR}", field="cursor"),
    Edge(
        10,
        "an access_token with a NUL, no key",
        "GET",
        "/v1/games/x/stream?access_token=tb_%00_x",
        key=None,
        field="access_token",
    ),
    Edge(
        10,
        "a player name with a NUL",
        "POST",
        "/v1/games",
        _create("schnapsen", '["A\\u0000", "B"]', "{}"),
        field="players.0",
    ),
    Edge(
        10, "a player name with a lone surrogate", "POST", "/v1/games", _create("schnapsen", '["A\\ud800", "B"]', "{}")
    ),
    Edge(
        10,
        "a note with a NUL",
        "POST",
        "/v1/games/{game}/events",
        b'{"events": [{"type": "note", "text": "a\\u0000"}]}',
        field="text",
    ),
    Edge(
        10,
        "a retract reason with a NUL",
        "POST",
        "/v1/games/{game}/events",
        b'{"events": [{"type": "retract", "to_seq": 0, "reason": "\\u0000"}]}',
        field="reason",
    ),
    Edge(
        10,
        "an Idempotency-Key with a NUL",
        "POST",
        "/v1/games/{game}/events",
        b'{"events": [{"type": "note", "text": "x"}]}',
        headers=(("Idempotency-Key", b"k\x00"),),
        field="idempotency_key",
        protocol=True,
    ),
    Edge(
        10,
        "an Authorization header with a NUL",
        "GET",
        "/v1/games",
        headers=(("Authorization", b"Bearer tb_\x00_x"),),
        key=None,
        field="authorization",
        protocol=True,
    ),
    # 13: a NUL in the text of the players' and re-scoring routes (PostgreSQL: psycopg's DataError, a 500;
    # SQLite stored the names and aliases), a repeated key in either copy; every body string is checked
    Edge(13, "a new player's name with a NUL", "POST", "/v1/players", b'{"name": "a\\u0000"}', field="name"),
    Edge(
        13,
        "a new player's alias with a NUL",
        "POST",
        "/v1/players",
        b'{"name": "Cy", "aliases": ["ok", "b\\u0000"]}',
        field="aliases.1",
    ),
    Edge(13, "a rename to a NUL", "PATCH", "/v1/players/{player}", b'{"name": "a\\u0000"}', field="name"),
    Edge(
        13,
        "a name with a NUL in the last of two keys",
        "POST",
        "/v1/players",
        b'{"name": "Cy", "name": "a\\u0000"}',
        field="name",
    ),
    Edge(
        13,
        "a name with a NUL in the first of two keys",
        "POST",
        "/v1/players",
        b'{"name": "a\\u0000", "name": "Cy"}',
        field="name",
    ),
    Edge(13, "a merge into a NUL", "POST", "/v1/players/{player}/merge", b'{"into": "a\\u0000"}', field="into"),
    Edge(
        13,
        "a re-score profile with a NUL",
        "POST",
        "/v1/games/{game}/rescore",
        b'{"profile": "a\\u0000"}',
        field="profile",
    ),
    Edge(13, "a season profile with a NUL", "POST", "/v1/rescore", b'{"profile": "a\\u0000"}', field="profile"),
    Edge(
        13,
        "a new game's profile with a NUL",
        "POST",
        "/v1/games",
        b'{"game": "schnapsen", "players": ["A", "B"], "profile": "a\\u0000"}',
        field="profile",
    ),
    Edge(
        13,
        "an option's name with a NUL",
        "POST",
        "/v1/games",
        b'{"game": "schnapsen", "players": ["A", "B"], "options": {"a\\u0000": 1}}',
        field="options.a\x00",
    ),
    Edge(13, "a player's page named with a NUL", "GET", "/v1/players/a%00", field="path"),
    Edge(13, "a players filter with a NUL", "GET", "/v1/players?name=a%00", field="name"),
    # 11: the bulk export's parameters, before its stream begins
    Edge(11, "export since a NUL", "GET", "/v1/export?since=%00", field="since"),
    Edge(11, "export until a NUL", "GET", "/v1/export?until=2026%00", field="until"),
    Edge(11, "export cursor that decodes to a NUL", "GET", f"/v1/export?cursor={_NUL_EXPORT_CURSOR}", field="cursor"),
)
