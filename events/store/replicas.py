"""Reads on replicas, with read-your-writes: which store a read goes to (docs/replication.md).

Appends always go to the primary (the store of `TABLEBOOK_DATABASE_URL`). A read that may be served
by a replica (a replay, an export, a state, the events of a game) asks `ReadRoutes.store_for` for a
store: one of the replicas of `TABLEBOOK_READ_URLS`, in turn, or the primary.

Read-your-writes: every answer about a game carries the seq it was computed at (the append's
envelopes, `seq` / `head` of the reads), and a client that wants to see at least its own last
append sends that seq back (`Tablebook-Min-Seq: N`). The read then goes to a replica only if that
replica's copy of the game has reached seq N (its `game.seq`, one indexed row): the router looks,
waits up to `wait` seconds for it (polling every `poll`), and else sends the read to the primary,
which has every acknowledged event. Without a min seq a read goes to the next replica as it is.

Every routed read first reads one row on the replica it picks (the game's head, or `SELECT 1`); a
replica that fails there (down, or restarted by the failover manager) is left out for `down_for`
seconds, its reads going to the next one or to the primary. A replica that fails after that, in
the middle of the read itself, fails that read with a 503 `unavailable` and `Retry-After: 1`
(api/main.py, `events.store.base.unavailable`) and is left out the same way (`failed`): the client's
retry goes to another replica or to the primary.
With no replica configured, everything is the primary, exactly as before.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from events.store import Store  # above the facade, which does not import this module: it chooses whole stores
from events.store.base import GAMES

log = logging.getLogger(__name__)

PRIMARY = "primary"
REPLICA = "replica"


class ReadRoutes:
    """The primary and the replicas, and the choice between them for each read."""

    def __init__(
        self,
        primary: Store,
        replicas: Sequence[Store] = (),
        *,
        wait: float = 0.5,
        poll: float = 0.02,
        down_for: float = 5.0,
    ) -> None:
        self.primary = primary
        self.replicas = list(replicas)
        self.wait, self.poll, self.down_for = wait, poll, down_for
        self._turn = itertools.count()
        self._down: dict[int, float] = {}  # replica index -> monotonic time until which it is left out
        self._lock = threading.Lock()

    def _candidates(self) -> list[int]:
        """The replicas not left out, starting with the next in turn."""
        if not self.replicas:
            return []
        start = next(self._turn) % len(self.replicas)
        now = time.monotonic()
        order = [(start + i) % len(self.replicas) for i in range(len(self.replicas))]
        with self._lock:
            return [i for i in order if self._down.get(i, 0.0) <= now]

    def _mark_down(self, index: int, error: BaseException) -> None:
        with self._lock:
            self._down[index] = time.monotonic() + self.down_for
        log.warning("replica %d left out for %.0f s: %s", index, self.down_for, error)

    def failed(self, store: Store, error: BaseException) -> None:
        """A read on `store` failed midway (the database went away): a replica is left out for `down_for`."""
        for index, replica in enumerate(self.replicas):
            if replica is store:
                self._mark_down(index, error)

    def head_on(self, store: Store, game_id: str) -> int | None:
        """The game's head seq in `store`'s copy (None: the game is not there yet)."""
        with store.engine.connect() as conn:
            seq = conn.execute(select(GAMES.c.seq).where(GAMES.c.id == game_id)).scalar()
        return None if seq is None else int(seq)

    def _probe(self, store: Store, game_id: str | None) -> None:
        if game_id is not None:
            self.head_on(store, game_id)
            return
        with store.engine.connect() as conn:
            conn.execute(select(1)).scalar()

    def store_for(self, game_id: str | None = None, min_seq: int | None = None) -> tuple[Store, str]:
        """The store a read of `game_id` goes to, and `"replica"` or `"primary"`.

        With `min_seq`, a replica only if its copy of the game has reached it (waiting up to `wait`
        seconds for the first replica that answers); else the primary.
        """
        candidates = self._candidates()
        if not candidates:
            return self.primary, PRIMARY
        if game_id is None or min_seq is None or min_seq <= 0:
            # the next replica that answers (one indexed read, or `SELECT 1`), as it is
            for index in candidates:
                try:
                    self._probe(self.replicas[index], game_id)
                except SQLAlchemyError as error:
                    self._mark_down(index, error)
                    continue
                return self.replicas[index], REPLICA
            return self.primary, PRIMARY
        deadline = time.monotonic() + self.wait
        for index in candidates:
            replica = self.replicas[index]
            while True:
                try:
                    head = self.head_on(replica, game_id)
                except SQLAlchemyError as error:
                    self._mark_down(index, error)
                    break
                if head is not None and head >= min_seq:
                    return replica, REPLICA
                if time.monotonic() + self.poll > deadline:
                    # the first replica that answered is behind: the primary, now (not the other replicas,
                    # whose lag is most likely the same, and the wait is spent)
                    return self.primary, PRIMARY
                time.sleep(self.poll)
        return self.primary, PRIMARY

    def dispose(self) -> None:
        for replica in self.replicas:
            replica.dispose()
