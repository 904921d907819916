"""JSON request bodies parsed strictly, with orjson, for the routes whose bodies FastAPI reads.

FastAPI reads a body model (`GameCreate`, `ClaimCheck`) with the standard
library's `json.loads`, which takes `NaN`, `Infinity` and `1e400` (as
infinity), integers of any size, and lone surrogates (`"\\ud800"`): a claim
of NaN points was answered as if it were a number, and an option of 2**64
or a name no store can encode reached the database (a 500). orjson refuses
all of these, as the append route's own parsing does (`events/codec.py`);
its `JSONDecodeError` is the standard library's, so FastAPI answers it as
any malformed body: 422 `invalid`. An integer above 64 bits still reads, as
a float, and is then refused by the model or the option it is given to.

The pattern is FastAPI's documented "custom Request and APIRoute class".
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

import orjson
from fastapi import Request, Response
from fastapi.routing import APIRoute


class StrictJSONRequest(Request):
    """A request whose `json()` is orjson's: no NaN or Infinity, no lone surrogate, no 1e400."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = orjson.loads(await self.body())
        return self._json


class StrictJSONRoute(APIRoute):
    """A route whose body model is read from strict JSON (`StrictJSONRequest`)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handler(StrictJSONRequest(request.scope, request.receive))

        return strict
