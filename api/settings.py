"""Settings, from the environment (`TABLEBOOK_*`)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from events.store import DEFAULT_URL


def _int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


@dataclass(frozen=True, slots=True)
class Settings:
    """Where the database is, where to listen, and the limits."""

    database_url: str = field(default_factory=lambda: os.environ.get("TABLEBOOK_DATABASE_URL", DEFAULT_URL))
    host: str = field(default_factory=lambda: os.environ.get("TABLEBOOK_HOST", "127.0.0.1"))
    port: int = field(default_factory=lambda: _int("TABLEBOOK_PORT", 8000))
    #: games whose folded state each process keeps
    cache_size: int = field(default_factory=lambda: _int("TABLEBOOK_CACHE_SIZE", 1024))
    #: request bodies over this are refused with 413 (imports have their own limit)
    #: seconds a request body has to arrive whole (imports: ten times as long); then 408
    body_timeout: float = field(default_factory=lambda: float(os.environ.get("TABLEBOOK_BODY_TIMEOUT") or 60))
    max_body: int = 1024 * 1024
    max_import_body: int = 64 * 1024 * 1024


settings = Settings()
