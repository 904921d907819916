"""Typed query parameters: times with a time zone, the known game kinds, and no unknown parameter.

- `since`/`until` (`Moment`): an ISO 8601 date and time with a time zone (`2026-11-29T14:00:00+01:00`,
  `...Z`), or a plain date meaning midnight UTC (`2026-11-29`). A time without a zone is refused (422:
  it names no instant), as is anything that is not a date (`yesterday`, `2026-13-45`). The bound is
  converted to UTC and written as the store writes its times (`events.codec.utc_now`:
  `2026-11-29T13:00:00.000000Z`), so that the text comparison of the query is a comparison of times.
- `game` (`GameKind`): one of `projections.core.registry.KINDS`; another answers 422 naming them.
- `player` (`api.requests.QueryName`): a name normalised as names are kept (no spaces around, whitespace
  inside one space); blank is a 422.
- `known_query`: a dependency of the whole application that refuses, with 422 naming it, a query
  parameter the route does not declare (`?plyer=Anna` listed every game). The HTML pages (not in the
  schema) are left alone: the replay page reads its own `?share=`.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import Depends, Query, Request
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from pydantic import (
    AfterValidator,
    AwareDatetime,
    BeforeValidator,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
)
from pydantic_core import PydanticCustomError

from api.requests import QueryName
from events.errors import InvalidEventError, clip
from projections.core.registry import KINDS

if TYPE_CHECKING:

    class GameKind(StrEnum):
        """The game kinds, by their wire names (those of `projections.core.registry.KINDS`)."""

else:
    #: The game kinds, by their wire names: built from `projections.core.registry.KINDS`, so a new game
    #: needs no line here (members are named with `_` for `-`: `GameKind.gin_rummy_3`).
    GameKind = StrEnum("GameKind", {kind.replace("-", "_"): kind for kind in KINDS})
    GameKind.__doc__ = "The game kinds, by their wire names (those of `projections.core.registry.KINDS`)."

_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
#: a time whose `+01:00` came as ` 01:00`: a `+` a client did not encode reads as a space in a query
_SPACED_OFFSET = re.compile(r"(.*T[0-9:.,]+) ([0-9]{2}(?::?[0-9]{2})?)")


def _date_is_midnight_utc(value: Any) -> Any:
    """A plain date (`2026-11-29`) is that day's midnight UTC; anything else is left to `AwareDatetime`.

    `2026-11-29T14:00:00 01:00` is taken for `...+01:00`: in a query string an unencoded `+` is a space,
    and no other reading of it names a time.
    """
    if not isinstance(value, str):
        return value
    text = value.strip()
    if _DATE.fullmatch(text):
        return text + "T00:00:00Z"
    spaced = _SPACED_OFFSET.fullmatch(text)
    return f"{spaced[1]}+{spaced[2]}" if spaced else value


def _zone_needed(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """`AwareDatetime`, whose refusal of a time without a zone says how to give one."""
    try:
        return handler(value)
    except ValidationError as exc:
        if any(error["type"] == "timezone_aware" for error in exc.errors()):
            raise PydanticCustomError(
                "timezone_aware", "a time needs a time zone: add Z (UTC) or an offset such as +01:00"
            ) from None
        raise


def _in_utc(moment: datetime) -> datetime:
    try:
        return moment.astimezone(UTC)
    except (OverflowError, ValueError):  # 0001-01-01T00:00:00+01:00 is before the first UTC instant
        raise PydanticCustomError("datetime_range", "Input is out of the range of times") from None


#: a query parameter's instant: a date and time with a time zone, or a date (midnight UTC); in UTC
Moment = Annotated[
    AwareDatetime, BeforeValidator(_date_is_midnight_utc), WrapValidator(_zone_needed), AfterValidator(_in_utc)
]

_FORMS = "ISO 8601 with a time zone (2026-11-29T14:00:00+01:00, 2026-11-29T13:00:00Z) or a date (midnight UTC)"
#: the descriptions of `since` and `until` (GET /v1/games, GET /v1/export)
SINCE = f"created at or after this time: {_FORMS}"
UNTIL = f"created before this time: {_FORMS}"


def stored_time(moment: datetime | None) -> str | None:
    """`moment` as the store writes its UTC times (`2026-11-29T13:00:00.000000Z`), to compare as text."""
    if moment is None:
        return None
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def game_filters(
    game: Annotated[GameKind | None, Query(description="game kind: " + ", ".join(KINDS))] = None,
    player: Annotated[
        QueryName,
        Query(
            max_length=100,
            description="a player's name or alias, case-insensitive, whitespace normalised (with `has=`: their own "
            "situations)",
        ),
    ] = None,
    player_id: Annotated[
        str | None, Query(max_length=32, description="a player's id (with `has=`: their own situations)")
    ] = None,
    event: Annotated[str | None, Query(max_length=200, description="the event label, exactly")] = None,
    round: Annotated[str | None, Query(max_length=200, description="the round label, exactly")] = None,
    status: Annotated[Literal["live", "finished"] | None, Query()] = None,
    winner: Annotated[int | None, Query(ge=0, le=7, description="the winning seat (as recorded)")] = None,
    since: Annotated[Moment | None, Query(description=SINCE)] = None,
    until: Annotated[Moment | None, Query(description=UNTIL)] = None,
) -> dict[str, Any]:
    """The filters that pick a club's games, as the store takes them (`kind`, times in the store's form):
    one declaration for `GET /v1/games` and a season's re-score (`POST /v1/rescore`), so both read the same
    query the same way."""
    return {
        "kind": game.value if game is not None else None,
        "player": player,
        "player_id": player_id,
        "event": event,
        "round": round,
        "status": status,
        "winner": winner,
        "since": stored_time(since),
        "until": stored_time(until),
    }


#: the games filters of a route (`game_filters`)
GameFiltersDep = Annotated[dict[str, Any], Depends(game_filters)]


def _query_names(dependant: Dependant) -> set[str]:
    """The query parameters a route declares, its dependencies' included (by the names a client sends)."""
    names = {field.alias for field in dependant.query_params}
    for sub in dependant.dependencies:
        names |= _query_names(sub)
    return names


def declared_query(route: APIRoute) -> frozenset[str]:
    """The query parameters of `route`: walked once per route and kept on it (routes are not hashable)."""
    known: frozenset[str] | None = getattr(route, "_declared_query", None)
    if known is None:
        known = frozenset(_query_names(route.dependant))
        route._declared_query = known  # type: ignore[attr-defined]
    return known


async def known_query(request: Request) -> None:
    """Refuse (422 `invalid`, with `field`) a query parameter the route does not declare.

    Raises:
        InvalidEventError: `unknown query parameter 'plyer' (known: cursor, game, ...)`.
    """
    route = request.scope.get("route")
    if not isinstance(route, APIRoute) or not route.include_in_schema:
        return
    known = declared_query(route)
    for name in request.query_params:
        if name not in known:
            listed = ", ".join(sorted(known)) or "none"
            shown = clip(name, 100)
            raise InvalidEventError(f"unknown query parameter {shown!r} (known: {listed})", field=shown)
