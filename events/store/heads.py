"""What an append and its callers pass each other: the head it moves a game to, a head held still, an earlier
request with the same Idempotency-Key (and the exception that carries it out of an append's transaction).

Apart from the recorder (`events/store/recorder.py`) so that its parts (`turns.py`, `one_statement.py`,
`stream_reads.py`) and the write side above it name them without the recorder's whole module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Head:
    """What an append moves a game's head to."""

    seq: int
    hand: int
    status: str
    totals: Mapping[str, Any]
    winner: int | None
    head_hash: str


@dataclass(frozen=True, slots=True)
class PriorRequest:
    """An earlier append with the same Idempotency-Key."""

    body_hash: str
    first_seq: int
    last_seq: int


@dataclass(frozen=True, slots=True)
class HeldHead:
    """A game's head held still for one append (`EventRecorder.hold_head`)."""

    game_id: str
    #: PostgreSQL: the raw connection whose open transaction holds the game row's lock, the append's to write
    #: in; SQLite: None (this process's writer lock is held instead, and the append begins its own)
    connection: Any | None


class DuplicateRequest(Exception):
    """Raised inside an append when its Idempotency-Key has landed already."""

    def __init__(self, prior: PriorRequest) -> None:
        super().__init__(prior)
        self.prior = prior
