"""A game's folded state at its head, and the bounded cache of them that a recorder keeps.

Apart from the recorder (`projections/core/recorder.py`), which decides and writes appends, so that the
readers that only hold or build a head (`projections/reading/`, the histories' export and import) need
nothing of the write side. The cache is only an optimisation: the recorder checks every entry against the
game's row in the database before it decides anything on it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from cachetools import LRUCache

from events.store import GameRecord, Head
from projections.core import engine
from projections.core.registry import rules_for
from projections.core.rules import GameRules, seat_dict


@dataclass(frozen=True, slots=True)
class Live:
    """A game's folded state at its head, as cached."""

    game: GameRecord
    rules: GameRules[Any]
    #: the `engine.Position` at the head (the game's state is `state.game`)
    state: engine.Position[Any]
    head_hash: str


class StateCache:
    """A bounded LRU of `Live` entries (`cachetools.LRUCache`), safe across threads.

    A read (`get`) makes its game the most recent; `put` never moves a cached head backwards (a
    slower request that folded an older head loses to the newer one already cached).
    """

    def __init__(self, capacity: int = 1024) -> None:
        if capacity < 1:
            raise ValueError(f"a state cache holds at least one game, not {capacity}")
        self.capacity = capacity
        self._entries: LRUCache[str, Live] = LRUCache(maxsize=capacity)
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, game_id: str) -> Live | None:
        with self._lock:
            entry = self._entries.get(game_id)  # LRUCache.get marks it the most recently used
            if entry is None:
                self.misses += 1
            else:
                self.hits += 1
            return entry

    def put(self, entry: Live) -> None:
        with self._lock:
            current = self._entries.get(entry.game.id)
            if current is not None and current.state.seq > entry.state.seq:
                return  # never move a cached head backwards
            self._entries[entry.game.id] = entry  # the least recently used entry goes when it is full

    def drop(self, game_id: str) -> None:
        with self._lock:
            self._entries.pop(game_id, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


def initial_state_of(game: GameRecord) -> tuple[GameRules[Any], engine.Position[Any]]:
    """The game's rules and its position before the first event."""
    rules = rules_for(game.kind)
    return rules, engine.start(rules, list(game.players), game.options)


def head_of(rules: GameRules[Any], state: engine.Position[Any], head_hash: str) -> Head:
    """The registry's head of a game at `state`: seq, hand, status, totals, winner, hash."""
    sheet = rules.score(state.game)
    return Head(
        seq=state.seq,
        hand=state.hand,
        status="finished" if rules.is_terminal(state.game) else "live",
        totals=seat_dict(sheet.totals),
        winner=sheet.winner,
        head_hash=head_hash,
    )
