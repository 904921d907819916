"""JSON request bodies parsed strictly, with orjson, for the routes whose bodies FastAPI reads; names as kept.

FastAPI reads a body model (`GameCreate`, `ClaimCheck`) with the standard
library's `json.loads`, which takes `NaN`, `Infinity` and `1e400` (as
infinity), integers of any size, and lone surrogates (`"\\ud800"`): a claim
of NaN points was answered as if it were a number, and an option of 2**64
or a name no store can encode reached the database (a 500). orjson refuses
all of these, as the append route's own parsing does (`events/codec.py`);
its `JSONDecodeError` is the standard library's, so FastAPI answers it as
any malformed body: 422 `invalid`. An integer above 64 bits still reads, as
a float, and is then refused by the model or the option it is given to.

Text no store can keep: every string of such a body, and every key of its objects, goes through the one
check the path, the query and the headers go through (`events.schema.unstorable`, applied to those by
`api.main.StorableText`), before the body model is read: a NUL (`"\\u0000"`, the only way one reaches a
JSON string) in a player's name, an alias, a `merge` target, a rule `profile`, an option's name... is a
422 `invalid` naming its `field` (`aliases.1`), on SQLite and PostgreSQL alike, and nothing is written.
PostgreSQL refused such text in a query with a 500; SQLite stored it. A key given twice counts each
time: `{"name": "a\\u0000", "name": "Anna"}` is refused too, though JSON keeps only the last.

Player names (`PlayerName`, `QueryName`) are normalised where they come in: no spaces around, each run
of whitespace inside (a tab, a newline) one space (`events.store.players.normal_name`), so `" Anna\\n"`
is kept, and found, as `"Anna"`; a name that is empty once normalised is a 422.

The pattern is FastAPI's documented "custom Request and APIRoute class".
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine, Iterator
from typing import Annotated, Any

import orjson
from fastapi import Request, Response
from fastapi.routing import APIRoute
from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

from events.errors import InvalidEventError, clip
from events.schema import unstorable
from events.store.players import normal_name

#: the only way a NUL reaches a JSON string (a raw NUL byte is no JSON); a body without it needs no walk
_NUL_ESCAPE = b"\\u0000"


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its (key, value) pairs, in order, a key given twice kept twice."""


def _strings(document: Any) -> Iterator[tuple[str, str]]:
    """Every (field path, text) of a JSON document: keys of objects and string values, walked without
    recursion (a body may nest up to orjson's limit)."""
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str):
            yield where or "body", value
        elif isinstance(value, _Pairs | dict):
            pairs = list(value) if isinstance(value, _Pairs) else list(value.items())
            for key, item in reversed(pairs):
                path = f"{where}.{key}" if where else str(key)
                yield path, key
                stack.append((path, item))
        elif isinstance(value, list):
            for index in range(len(value) - 1, -1, -1):
                stack.append((f"{where}.{index}" if where else str(index), value[index]))


def _parsed_pairs(body: bytes) -> Any:
    """The body as JSON with every key kept (`_Pairs`), or None when it is no JSON (FastAPI then says why)."""
    try:
        return json.loads(body, object_pairs_hook=_Pairs)
    except RecursionError:  # deeper than the standard library goes: orjson's document (a repeated key once)
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            return None
    except ValueError:  # not JSON, not UTF-8: the route's own parsing answers it
        return None


def refuse_unstorable(body: bytes) -> None:
    """Refuse a JSON body with a string or a key that no store can keep.

    Raises:
        InvalidEventError: `name: holds a NUL character (U+0000)`, with `field` the string's place.
    """
    if _NUL_ESCAPE not in body:
        return
    for where, text in _strings(_parsed_pairs(body)):
        problem = unstorable(text)
        if problem:
            shown = clip(where, 100)
            raise InvalidEventError(f"{shown}: {problem}", field=shown)


def refuse_unstorable_export(body: bytes) -> None:
    """`refuse_unstorable` for an export being imported: one JSON document, or JSON lines (each checked; a
    line that is no JSON is left to the importer, which says why).

    Raises:
        InvalidEventError: a string or a key holds a NUL, with `field` its place (`line 3: events.0.data...`
            for JSON lines).
    """
    if _NUL_ESCAPE not in body:
        return
    if _parsed_pairs(body) is not None:
        refuse_unstorable(body)
        return
    for number, line in enumerate(body.splitlines(), start=1):
        try:
            refuse_unstorable(line)
        except InvalidEventError as refused:
            where = f"line {number}: {refused.details.get('field', 'body')}"
            raise InvalidEventError(f"line {number}: {refused.message}", field=clip(where, 100)) from None


class StrictJSONRequest(Request):
    """A request whose `json()` is orjson's: no NaN or Infinity, no lone surrogate, no 1e400."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = orjson.loads(await self.body())
        return self._json


class StrictJSONRoute(APIRoute):
    """A route whose body is read from strict JSON (`StrictJSONRequest`), its text checked first
    (`refuse_unstorable`)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            checked = StrictJSONRequest(request.scope, request.receive)
            if request.method in ("POST", "PUT", "PATCH"):
                refuse_unstorable(await checked.body())
            return await handler(checked)

        return strict


# --------------------------------------------------------------------------- names


def _kept_name(text: str) -> str:
    """A player's name as kept: normalised (`normal_name`), not empty, storable."""
    name = normal_name(text)
    if not name:
        raise PydanticCustomError("empty_name", "a name may not be empty or only spaces", {})
    problem = unstorable(name)
    if problem:
        raise PydanticCustomError("unstorable", "the name {problem}", {"problem": problem})
    return name


def _kept_query_name(text: str | None) -> str | None:
    return None if text is None else _kept_name(text)


#: a player's name (or alias) in a body: 1 to 100 characters, kept normalised (`normal_name`)
PlayerName = Annotated[str, Field(min_length=1, max_length=100), AfterValidator(_kept_name)]
#: a player's name in a query (`?name=`, `?player=`), normalised the same way; none: no filter
QueryName = Annotated[str | None, AfterValidator(_kept_query_name)]
