"""JSON responses serialised with orjson (seat-keyed objects get string keys)."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi.responses import JSONResponse


class ORJSONResponse(JSONResponse):
    """orjson, with `OPT_NON_STR_KEYS` (seat-keyed dicts have int keys).

    Not `fastapi.responses.ORJSONResponse`: the locked FastAPI (0.165) deprecates that class and warns
    (`FastAPIDeprecationWarning`) when it is used or subclassed; the render below is the same.
    """

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS)


def error_body(code: str, message: str, **details: Any) -> dict[str, Any]:
    """The error shape of DESIGN.md: `{"error": {"code", "message", ...}}`."""
    return {"error": {"code": code, "message": message, **details}}
