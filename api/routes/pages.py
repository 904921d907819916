"""The web replay page and share links (issue 9)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(tags=["pages"])
