"""Hand histories: export, import, bulk export (issue 8)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(tags=["exports"])
