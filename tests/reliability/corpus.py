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
SEAT_FIELDS = frozenset({"seat", "dealer", "bidder", "banker", "to", "from"})


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


def mutations(event: dict[str, Any], seats: int) -> Iterator[Case]:
    """Every way of breaking `event` (a legal next event) that the corpus knows."""
    for path, leaf in leaves({k: v for k, v in event.items() if k != "type"}):
        where = show(path)
        for other in OTHER_TYPES:
            if type(other) is not type(leaf) and not (isinstance(leaf, int | float) and type(other) in (int, float)):
                yield Case("wrong type", f"{where} = {other!r}", replaced(event, path, other))
        if is_card(leaf):
            for bad in BAD_CARDS:
                yield Case("bad card code", f"{where} = {bad!r}", replaced(event, path, bad))
        if isinstance(leaf, int) and not isinstance(leaf, bool) and path[-1] in SEAT_FIELDS:
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
