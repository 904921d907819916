"""The ceiling for the HTTP benchmark: a bare FastAPI endpoint that parses and
checks the same append body as Tablebook's, and writes nothing."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import FastAPI, Request

from api.responses import ORJSONResponse
from events.games.schnapsen import EVENTS
from events.schema import parse_event

app = FastAPI(default_response_class=ORJSONResponse)


@app.get("/")
async def root() -> dict[str, str]:
    return {"ok": "bare"}


@app.post("/bare", status_code=201)
async def bare(request: Request) -> dict[str, Any]:
    document = orjson.loads(await request.body())
    events = [parse_event(e, EVENTS, 2) for e in document["events"]]
    return {"events": events}
