"""Settings, from the environment: each field `name` is read from `TABLEBOOK_<NAME>` (README, "Settings").

An empty variable counts as unset. A bad value stops the process at startup with the
variable's name (`pydantic.ValidationError`, a `ValueError`). Fields given to `Settings(...)`
win over the environment (the tests build `Settings(database_url=...)`).
"""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from events.store import DEFAULT_URL, durability_from


class Settings(BaseSettings):
    """Where the database is, how to serve, and the limits."""

    model_config = SettingsConfigDict(env_prefix="TABLEBOOK_", env_ignore_empty=True, frozen=True, extra="forbid")

    database_url: str = Field(
        default=DEFAULT_URL,
        description="the database: sqlite:///PATH, or postgresql+psycopg://USER@HOST:PORT/DB "
        "(with psycopg: pip install -e '.[postgres]')",
    )
    read_urls: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="replicas that may serve reads (replays, exports, states, a game's events), comma-separated "
        "database URLs; empty (the default): every read goes to database_url. Appends always go to database_url "
        "(docs/replication.md)",
    )
    follow_patroni: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Patroni REST APIs (http://HOST:8008, comma-separated): the read models (hand facts, ratings) "
        "read the log on the synchronous standby Patroni names, their rows and checkpoints staying on "
        "database_url; empty (the default): they read it on database_url (docs/replication.md)",
    )
    read_wait: float = Field(
        default=0.5,
        ge=0,
        description="seconds a read with Tablebook-Min-Seq waits for a replica to reach that seq before it goes "
        "to the primary",
    )
    durability: str = Field(
        default="full",
        description="'full': an acknowledged event is on disk (SQLite synchronous=FULL, PostgreSQL "
        "synchronous_commit=on); 'fast': synchronous=NORMAL / synchronous_commit=off, which may lose the last "
        "acknowledged events on power loss. events.store.make_engine reads the same variable",
    )
    host: str = Field(default="127.0.0.1", description="the address `tablebook serve` listens on")
    port: int = Field(default=8000, ge=0, le=65535, description="the port `tablebook serve` listens on")
    workers: int = Field(default=1, ge=1, description="the API processes `tablebook serve` starts (uvicorn workers)")
    access_log: bool = Field(default=True, description="`tablebook serve` logs each request on stdout (false: off)")
    cors_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="the browser origins allowed to call the API from another site, comma-separated "
        "(https://a.example,https://b.example) or '*'; empty: no CORS headers, only same-origin pages",
    )
    cache_size: int = Field(default=1024, ge=1, description="games whose folded state each API process keeps")
    body_timeout: float = Field(
        default=60.0,
        gt=0,
        description="seconds a request body has to arrive whole (imports: ten times as long); then 408",
    )
    max_body: int = Field(
        default=1024 * 1024, ge=1, description="bytes a request body may hold, else 413 (imports excepted)"
    )
    max_import_body: int = Field(
        default=64 * 1024 * 1024, ge=1, description="bytes an import request body may hold, else 413"
    )

    @field_validator("durability", mode="before")
    @classmethod
    def _durability(cls, value: Any) -> str:
        # the same check and message as events.store.make_engine: it names the variable and its values
        return durability_from("" if value is None else str(value))

    @field_validator("read_urls", "follow_patroni", mode="before")
    @classmethod
    def _read_urls(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _origins(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return orjson.loads(text)
            return [part.strip().rstrip("/") for part in text.split(",") if part.strip()]
        return value


def env_name(field: str) -> str:
    """The environment variable of a settings field."""
    return f"TABLEBOOK_{field.upper()}"
