"""A small declarative language for the shape of events.

A schema answers only "is this well-formed?" (the `invalid` code): types,
required and unknown fields, card codes, seats in range. Whether the event
can happen or is allowed is the business of `projections/`. Validators take
the raw JSON value and return it normalised (card codes made canonical).
"""

from __future__ import annotations

import re
import reprlib
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from events.cards import parse_card
from events.errors import InvalidEventError

#: A validator gets the raw value, its path in the event (for messages) and
#: the number of seats of the game; it returns the normalised value.
Validator = Callable[[Any, str, int], Any]
V = TypeVar("V", bound=Validator)

#: the JSON Schema of each validator, for the OpenAPI document and docs/events.md (`json_schema`); weak
#: keys, so a validator made on the fly (none is, today) leaves nothing behind
_JSON_SCHEMAS: weakref.WeakKeyDictionary[Validator, dict[str, Any]] = weakref.WeakKeyDictionary()
#: the most seats any game has (a seat's JSON Schema bound; the game's own count is checked at run time)
MAX_SEATS = 8

MAX_TEXT = 2000
#: the largest integer an event field holds unless its schema says less (a seq, a hand, a ref): PostgreSQL
#: keeps seqs and hands as 32-bit INTEGER, and sums of such numbers must stay far from 64 bits
MAX_INT = 2**31 - 1
#: the largest amount (a stake) an event holds; a table limit is at most this (`projections/core/rules.py`), so
#: every stake the rules may accept is well formed, and a stake times any multiple, summed over a table,
#: stays far below 2**63
MAX_AMOUNT = 10**9
#: the largest number of points a claim may name, either sign: far above any real score (a Seven and a
#: Half hand moves some tens of stakes of at most 10**9), and every integer up to it is exact as a float
MAX_POINTS = 10**15
_ASCII_DIGITS = re.compile(r"[0-9]+")
#: the longest seat key looked at as a number ("7"; a game has at most a handful of seats)
_MAX_SEAT_DIGITS = 3

# Values quoted in error messages are shown short and shallow: a client may send a string of
# hundreds of kilobytes or a list nested hundreds deep, and the message must stay readable
# (and the built-in repr of such a value may exceed the recursion limit).
_SHORT = reprlib.Repr()
_SHORT.maxlevel = 3
_SHORT.maxstring = 40
_SHORT.maxother = 40
_SHORT.maxlist = _SHORT.maxdict = _SHORT.maxtuple = 6


def described(validator: V, schema: dict[str, Any]) -> V:
    """`validator`, with the JSON Schema of the values it accepts (what `json_schema` answers)."""
    _JSON_SCHEMAS[validator] = schema
    return validator


def json_schema(validator: Validator) -> dict[str, Any]:
    """The JSON Schema of the values `validator` accepts (a copy; `{}`, anything, if it has none)."""
    import copy

    return copy.deepcopy(_JSON_SCHEMAS.get(validator, {}))


def show(value: Any) -> str:
    """A value as quoted in an error message: its repr, cut short and shallow."""
    return _SHORT.repr(value)


def _fail(path: str, message: str) -> InvalidEventError:
    return InvalidEventError(f"{path}: {message}", field=path)


def _type_name(value: Any) -> str:
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def seat(value: Any, path: str, seats: int) -> int:
    """A seat number, 0 to seats - 1."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise _fail(path, f"expected a seat number, got {_type_name(value)}")
    if not 0 <= value < seats:
        raise _fail(path, f"seat {value} is out of range (this game has seats 0 to {seats - 1})")
    return value


described(
    seat,
    {"type": "integer", "minimum": 0, "maximum": MAX_SEATS - 1, "description": "a seat: 0 to the game's seats - 1"},
)


def card(value: Any, path: str, seats: int) -> str:
    """A card code, returned canonical."""
    if not isinstance(value, str) or len(value) > 8:  # a card is 2 or 3 characters, with a little white space
        raise _fail(path, f"{show(value)} is not a card code (rank A23456789TJQK, then suit CDHS, e.g. 'TD')")
    return parse_card(value, path)


#: what `parse_card` reads: a rank (`10` for `T` too) then a suit, either case, with spaces around
CARD_PATTERN = r"^\s*(10|[2-9AaTtJjQqKk])[CcDdHhSs]\s*$"
described(
    card,
    {
        "type": "string",
        "pattern": CARD_PATTERN,
        "description": "a card: rank A23456789TJQK then suit CDHS (e.g. `TD`); case-insensitive, `10` for `T`",
        "examples": ["TD"],
    },
)


def integer(minimum: int = -MAX_INT, maximum: int = MAX_INT) -> Validator:
    """An integer (not a boolean) within bounds (bounds are shape, not rules).

    Every integer field is bounded, by default to 32 bits: an integer of 64 bits or more cannot be
    stored (orjson and PostgreSQL refuse it), and one just below would overflow once multiplied.
    """

    def check(value: Any, path: str, seats: int) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise _fail(path, f"expected an integer, got {_type_name(value)}")
        if value < minimum:
            raise _fail(path, f"{value} is below {minimum}")
        if value > maximum:
            raise _fail(path, f"{value} is above {maximum}")
        return value

    return described(check, {"type": "integer", "minimum": minimum, "maximum": maximum})


def ascii_integer(text: str, path: str, maximum: int = MAX_INT) -> int:
    """A number from 0 to `maximum` written in ASCII digits, as a header or a line of text gives it.

    Not `str.isdigit()`: it also takes "²" (which `int()` refuses) and "٣" (which `int()` reads).

    Raises:
        InvalidEventError: a sign, a space or any other character, more digits than `maximum` has
        (`int()` refuses more than 4,300), or a value above `maximum`.
    """
    if len(text) > len(str(maximum)) or not _ASCII_DIGITS.fullmatch(text):
        raise _fail(path, f"{show(text)} is not a number from 0 to {maximum} in ASCII digits")
    value = int(text)
    if value > maximum:
        raise _fail(path, f"{value} is above {maximum}")
    return value


def number(value: Any, path: str, seats: int) -> int | float:
    """A JSON number (integer or decimal), not a boolean, finite and at most MAX_POINTS either way."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fail(path, f"expected a number, got {_type_name(value)}")
    if not -MAX_POINTS <= value <= MAX_POINTS:  # False for NaN too
        raise _fail(path, f"{show(value)} is not a number from {-MAX_POINTS} to {MAX_POINTS}")
    return value


described(number, {"type": "number", "minimum": -MAX_POINTS, "maximum": MAX_POINTS})


def unstorable(value: str) -> str | None:
    """Why the database cannot keep `value` as it is (a NUL, a lone surrogate), or None.

    PostgreSQL refuses NUL in text and neither store encodes a lone surrogate, so such a string
    is malformed input, refused before any query, on both stores alike.
    """
    if "\x00" in value:
        return "holds a NUL character (U+0000)"
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "holds a lone surrogate (U+D800 to U+DFFF), which is not text"
    return None


def boolean(value: Any, path: str, seats: int) -> bool:
    """true or false."""
    if not isinstance(value, bool):
        raise _fail(path, f"expected true or false, got {_type_name(value)}")
    return value


described(boolean, {"type": "boolean"})


def text(minimum: int = 0, maximum: int = MAX_TEXT) -> Validator:
    """A string of `minimum` to `maximum` characters."""

    def check(value: Any, path: str, seats: int) -> str:
        if not isinstance(value, str):
            raise _fail(path, f"expected a string, got {_type_name(value)}")
        if not minimum <= len(value) <= maximum:
            raise _fail(path, f"must be {minimum} to {maximum} characters, got {len(value)}")
        problem = unstorable(value)
        if problem:
            raise _fail(path, problem)
        return value

    return described(check, {"type": "string", "minLength": minimum, "maxLength": maximum})


def one_of(*choices: Any) -> Validator:
    """One of a fixed set of JSON values (compared by type and value)."""

    def check(value: Any, path: str, seats: int) -> Any:
        for choice in choices:
            if type(value) is type(choice) and value == choice:
                return value
        shown = ", ".join(repr(c) for c in choices)
        raise _fail(path, f"expected one of {shown}, got {show(value)}")

    return described(check, {"enum": list(choices)})


def list_of(item: Validator, length: int | None = None, max_length: int = 64) -> Validator:
    """A list whose items all pass `item`; optionally of an exact length."""

    def check(value: Any, path: str, seats: int) -> list[Any]:
        if not isinstance(value, list):
            raise _fail(path, f"expected a list, got {_type_name(value)}")
        if length is not None and len(value) != length:
            raise _fail(path, f"expected {length} items, got {len(value)}")
        if len(value) > max_length:
            raise _fail(path, f"at most {max_length} items, got {len(value)}")
        return [item(v, f"{path}[{i}]", seats) for i, v in enumerate(value)]

    bounds = {"minItems": length, "maxItems": length} if length is not None else {"maxItems": max_length}
    return described(check, {"type": "array", "items": json_schema(item), **bounds})


def per_seat_list(item: Validator) -> Validator:
    """A list with one item per seat of the game, in seat order."""

    def check(value: Any, path: str, seats: int) -> list[Any]:
        items: list[Any] = list_of(item, length=seats)(value, path, seats)
        return items

    return described(
        check,
        {
            "type": "array",
            "items": json_schema(item),
            "minItems": 1,
            "maxItems": MAX_SEATS,
            "description": "one item per seat, in seat order",
        },
    )


def seat_map(item: Validator, *, every_seat: bool = False) -> Validator:
    """An object keyed by seat numbers written as strings ("0", "1").

    Normalised keys stay strings so that the stored JSON is what was sent.
    """

    def check(value: Any, path: str, seats: int) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise _fail(path, f"expected an object keyed by seat, got {_type_name(value)}")
        out: dict[str, Any] = {}
        for key, v in value.items():
            # isascii: "²".isdigit() is true but int("²") fails; a short key: int() of a huge one fails too
            if (
                not isinstance(key, str)
                or not key.isascii()
                or not key.isdigit()
                or len(key) > _MAX_SEAT_DIGITS
                or str(int(key)) != key
            ):
                raise _fail(path, f"key {show(key)} is not a seat number")
            seat(int(key), f"{path}.{key}", seats)
            out[key] = item(v, f"{path}.{key}", seats)
        if every_seat and len(out) != seats:
            missing = [str(s) for s in range(seats) if str(s) not in out]
            raise _fail(path, f"must name every seat; missing {', '.join(missing)}")
        return out

    which = "every seat" if every_seat else "some seats"
    return described(
        check,
        {
            "type": "object",
            "propertyNames": {"pattern": "^(0|[1-9][0-9]?)$"},
            "additionalProperties": json_schema(item),
            "description": f'keyed by seat numbers written as strings (`"0"`, `"1"`): {which}',
        },
    )


def record(required: Mapping[str, Validator], optional: Mapping[str, Validator] | None = None) -> Validator:
    """A nested object with exactly these fields."""
    shape = Shape(dict(required), dict(optional or {}))

    def check(value: Any, path: str, seats: int) -> dict[str, Any]:
        return shape.check(value, path, seats)

    return described(check, shape.json_schema())


def same_data(data: dict[str, Any]) -> dict[str, Any]:
    """The data of an `Upcast` that changes no client field (only the derived result changed)."""
    return data


@dataclass(frozen=True, slots=True)
class Upcast:
    """How a stored event of one version of its type is read as the next version (the `eventsourcing`
    library's `upcast_v1_v2`): the stored bytes never change (they are hashed); a reader upcasts them.

    `data` turns the client fields of version N into those of version N+1 (the rules only ever see
    today's shape); `new_result` names the fields of the derived `result` that version N+1 gained, so
    that a result stored by version N is checked only on the fields it had (`events.upcast`).
    """

    #: what changed, in words (docs/events.md, the golden records' README)
    why: str
    data: Callable[[dict[str, Any]], dict[str, Any]] = same_data
    new_result: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Shape:
    """Required and optional fields of one object; for an event type, also the version of its shape.

    Every event type has a version (1 unless it changed). An envelope records the version it was
    written in (`v`; an envelope without one is version 1). A change to the shape of an event's data or
    of its derived `result` raises the version and adds the `Upcast` from the last one: `upcasts[i]`
    reads version i + 1 as version i + 2, so there are `version - 1` of them.
    """

    required: dict[str, Validator]
    optional: dict[str, Validator] = field(default_factory=dict)
    version: int = 1
    upcasts: tuple[Upcast, ...] = ()

    def __post_init__(self) -> None:
        if self.version < 1 or len(self.upcasts) != self.version - 1:
            raise ValueError(f"a shape of version {self.version} needs {self.version - 1} upcasts")

    def check(self, value: Any, path: str, seats: int, skip: frozenset[str] = frozenset()) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise _fail(path, f"expected an object, got {_type_name(value)}")
        unknown = [k for k in value if k not in self.required and k not in self.optional and k not in skip]
        if unknown:
            raise _fail(path, f"unknown field {show(unknown[0])}")
        out: dict[str, Any] = {}
        for name, validator in self.required.items():
            if name not in value:
                raise _fail(path, f"missing field {name!r}")
            out[name] = validator(value[name], f"{path}.{name}" if path else name, seats)
        for name, validator in self.optional.items():
            if name in value:
                out[name] = validator(value[name], f"{path}.{name}" if path else name, seats)
        return out

    def json_schema(self, kind: str | None = None) -> dict[str, Any]:
        """The JSON Schema of this object; with `kind`, of the event `{"type": kind, ...}`."""
        properties: dict[str, Any] = {"type": {"const": kind}} if kind is not None else {}
        properties.update({name: json_schema(v) for name, v in self.required.items()})
        properties.update({name: json_schema(v) for name, v in self.optional.items()})
        required = (["type"] if kind is not None else []) + list(self.required)
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        schema["additionalProperties"] = False
        return schema


EventSchemas = Mapping[str, Shape]


def parse_event(raw: Any, schemas: EventSchemas, seats: int) -> dict[str, Any]:
    """Check an event's shape against its type's schema; return it normalised.

    Raises:
        InvalidEventError: not an object, unknown `type`, or a field out of shape.
    """
    if not isinstance(raw, dict):
        raise InvalidEventError(f"an event must be an object, got {_type_name(raw)}")
    kind = raw.get("type")
    if not isinstance(kind, str):
        raise InvalidEventError("an event needs a string field 'type'", field="type")
    shape = schemas.get(kind)
    if shape is None:
        known = ", ".join(sorted(schemas))
        raise InvalidEventError(f"unknown event type {show(kind)}; this game knows: {known}", field="type")
    data = shape.check(raw, "", seats, skip=frozenset({"type"}))
    return {"type": kind, **data}
