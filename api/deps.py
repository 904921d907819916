"""Dependencies shared by the routes: the recorder and the calling principal."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from api.auth import Principal, authenticate
from projections.recorder import Recorder


def get_recorder(request: Request) -> Recorder:
    recorder: Recorder = request.app.state.recorder
    return recorder


def get_principal(request: Request) -> Principal:
    return authenticate(request.app.state.recorder.store, request.headers.get("authorization"))


RecorderDep = Annotated[Recorder, Depends(get_recorder)]
PrincipalDep = Annotated[Principal, Depends(get_principal)]
