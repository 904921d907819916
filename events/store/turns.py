"""One append at a time per game in this process (PostgreSQL): the locks of `EventRecorder.turn`, and how many
appends may hold a head at once (`EventRecorder.hold_head`).

Why: the appends of one process to one game wait here, on no connection, rather than in the database behind each
other's row lock, each on a pooled connection (see `EventRecorder.turn`). `threading` has no lock per key that
drops itself when unused; these are made on demand and dropped when no thread holds or waits for them.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

#: how many appends of one process may hold a head on PostgreSQL at once: each holds one pooled connection
#: in its transaction and takes another for its reads, so 8 of them need at most 16 of the pool's 30
#: (events/store/base.py), and none of them waits for a connection that another one holds
HOLDS = 8


class Turns:
    """One re-entrant lock per game that an append of this process is busy with, made on demand and dropped
    when no thread holds or waits for it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._games: dict[str, tuple[threading.RLock, list[int]]] = {}

    @contextlib.contextmanager
    def taken(self, game_id: str, timeout: float, before_wait: Callable[[], None]) -> Iterator[bool]:
        """The game's lock, waited for at most `timeout` seconds: True, held to the end; False, not had.
        `before_wait` is called first if it must be waited for."""
        with self._lock:
            lock, users = self._games.setdefault(game_id, (threading.RLock(), [0]))
            users[0] += 1
        try:
            got = lock.acquire(blocking=False)
            if not got:
                before_wait()
                got = lock.acquire(timeout=max(timeout, 0.0))
            try:
                yield got
            finally:
                if got:
                    lock.release()
        finally:
            with self._lock:
                users[0] -= 1
                if not users[0]:
                    del self._games[game_id]
