"""Wake the live streams of a game when it moves, instead of each stream polling the database.

A stream subscribes to its game (`Notifier.subscribe`), reads what is there, and then waits on its
subscription; an append publishes its game id (`publish`, called by the recorder after the store's
append has committed). Only the subscriptions of that game wake.

- In this process, `publish` wakes the game's subscriptions at once, whatever the database.
- PostgreSQL, other processes: the append itself sends `pg_notify('tablebook_events', payload(db, game_id))`
  in the statement that moves the game's head (`events/store/recorder.py`), so PostgreSQL delivers it when
  the append's transaction commits, and never if it rolls back: no statement, round trip or thread of its
  own (a publisher thread sent it after the commit, until issue 34). One LISTEN connection per process
  and notifier (a thread, started by the first subscription) wakes the subscriptions of the ids it hears.
  The payload is the game id and its sender (`sender`: this process and store); the notifications of
  its own sender are skipped: `publish` woke them already.
- SQLite, other processes: no NOTIFY; one thread per process and notifier looks at the head of the
  global order every `FALLBACK_SECONDS` (one `max(position)` query, whatever the number of streams),
  and wakes the games whose events it has not seen.

A wake-up says only "look again": the stream re-reads from its cursor and decides what may be seen at
the head it reads, as before. A lost or spurious wake-up can only delay or repeat a read, never show
anything, so the threads stay simple: whenever they may have missed something (the LISTEN connection
was (re)opened, or is down; the SQLite fallback started) they wake every subscription.

The threads stop by themselves `IDLE_SECONDS` after their last subscription and hold no connection
then, so a process that disposes of its store leaks nothing; `close` stops them at once.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
import weakref
from collections import defaultdict
from collections.abc import Iterable
from types import TracebackType
from typing import Any

from events.store.base import Database, HoldsDatabase
from events.store.log import LogReader

log = logging.getLogger(__name__)

#: the PostgreSQL channel; the payload is the game id
CHANNEL = "tablebook_events"
#: how often a stream learns of another process's appends where nothing pushes them (SQLite, or the
#: LISTEN connection down)
FALLBACK_SECONDS = 1.5
#: how long the threads go on without a subscription
IDLE_SECONDS = 10.0
#: the SQLite fallback reads which games moved when at most this many events came in a tick; past
#: that it wakes every subscription (cheaper than decoding them all)
FALLBACK_READ = 500


class Subscription:
    """One stream's wait for its game: `clear`, read, then `wait` (a wake between the two is kept).

    Made and awaited in one event loop; woken from any thread.
    """

    __slots__ = ("_event", "_loop", "_notifier", "game_id")

    def __init__(self, notifier: Notifier, game_id: str) -> None:
        self.game_id = game_id
        self._notifier = notifier
        self._loop = asyncio.get_running_loop()
        self._event = asyncio.Event()

    def clear(self) -> None:
        """Forget earlier wake-ups: call it before reading, so that a wake-up after the read is kept."""
        self._event.clear()

    async def wait(self) -> None:
        await self._event.wait()

    def wake(self) -> None:
        """Wake the waiter (from its own event loop: other threads go through the notifier)."""
        self._event.set()

    def close(self) -> None:
        self._notifier._unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


class Notifier:
    """The subscriptions of one database's games in this process, and the threads that wake them."""

    def __init__(self, db: Database) -> None:
        self.db = db
        #: the global order, which the SQLite fallback watches
        self.log = LogReader(db)
        #: whether the database pushes appends to the other processes (PostgreSQL's LISTEN/NOTIFY)
        self.pushes = db.dialect.pushes
        self._lock = threading.Lock()
        self._games: dict[str, set[Subscription]] = defaultdict(set)
        self._count = 0
        self._closed = False
        self._stop = threading.Event()
        #: the PostgreSQL listener, or the SQLite fallback
        self._watcher: threading.Thread | None = None
        self._idle_since = time.monotonic()
        #: how many wake-ups of every subscription the threads made (the tests read it)
        self.wake_alls = 0

    # ------------------------------------------------------------------ subscriptions

    def subscribe(self, game_id: str) -> Subscription:
        """A subscription to `game_id`'s appends, in the running event loop (use it as a context manager)."""
        sub = Subscription(self, game_id)
        with self._lock:
            if self._closed:
                raise RuntimeError("this notifier is closed")
            self._games[game_id].add(sub)
            self._count += 1
            if self._watcher is None or not self._watcher.is_alive():
                target = self._listen if self.pushes else self._poll
                self._watcher = threading.Thread(target=target, name=f"tablebook-{target.__name__[1:]}", daemon=True)
                self._watcher.start()
        return sub

    def _unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            subs = self._games.get(sub.game_id)
            if subs is not None and sub in subs:
                subs.discard(sub)
                self._count -= 1
                if not subs:
                    del self._games[sub.game_id]
                if not self._count:
                    self._idle_since = time.monotonic()

    def subscriptions(self, game_id: str | None = None) -> int:
        """How many subscriptions are open (to `game_id`, or in all)."""
        with self._lock:
            return self._count if game_id is None else len(self._games.get(game_id, ()))

    def _wake(self, game_ids: Iterable[str] | None) -> None:
        """Wake the subscriptions of `game_ids` (None: all), from any thread: one call per event loop."""
        with self._lock:
            if game_ids is None:
                subs = [s for group in self._games.values() for s in group]
            else:
                subs = [s for g in set(game_ids) for s in self._games.get(g, ())]
        by_loop: dict[asyncio.AbstractEventLoop, list[Subscription]] = defaultdict(list)
        for sub in subs:
            by_loop[sub._loop].append(sub)
        for loop, group in by_loop.items():
            try:
                loop.call_soon_threadsafe(_set_all, group)
            except RuntimeError:  # that loop is closed: its streams are gone
                for sub in group:
                    self._unsubscribe(sub)

    def _wake_all(self) -> None:
        self.wake_alls += 1
        self._wake(None)

    # ------------------------------------------------------------------ publishing

    def publish(self, game_id: str) -> None:
        """Say that `game_id` moved (after the commit): wake its streams in this process.

        The other processes' streams are woken by the NOTIFY that the append's own statement sent (PostgreSQL),
        or by their fallback (SQLite). Never raises: the append has happened whatever this does.
        """
        try:
            self._wake((game_id,))
        except Exception:  # pragma: no cover - a wake-up is never worth a failed request
            log.exception("waking the streams of game %s failed", game_id)

    # ------------------------------------------------------------------ the watcher threads

    def _idle(self) -> bool:
        with self._lock:
            if self._closed:
                return True
            if self._count:
                return False
            if time.monotonic() - self._idle_since < IDLE_SECONDS:
                return False
            if self._watcher is threading.current_thread():
                self._watcher = None
            return True

    def _listen(self) -> None:
        """PostgreSQL: LISTEN on a connection of its own; every (re)connection wakes everyone."""
        while not self._idle():
            try:
                raw = self.db.engine.raw_connection()
                conn: Any = raw.driver_connection
                raw.detach()  # kept out of the pool: it listens for as long as this thread lives
                try:
                    conn.rollback()
                    conn.autocommit = True
                    conn.execute(f"LISTEN {CHANNEL}")
                    self._wake_all()  # whatever was appended before it listened
                    while not self._idle():
                        for note in conn.notifies(timeout=1.0):  # then look whether it is still needed
                            game_id, _, sent_by = note.payload.rpartition(" ")
                            if not game_id:  # a bare game id (a process of an older version)
                                self._wake((sent_by,))
                            elif sent_by != sender(self.db):  # its own appends woke their games already
                                self._wake((game_id,))
                finally:
                    raw.close()
                return
            except Exception as error:  # down: wake everyone now and then until it is back
                log.warning(
                    "LISTEN %s failed, streams fall back to %.1f s checks: %s", CHANNEL, FALLBACK_SECONDS, error
                )
                self._wake_all()
                self._stop.wait(FALLBACK_SECONDS)

    def _poll(self) -> None:
        """SQLite: look at the head of the global order every FALLBACK_SECONDS; wake the games that moved."""
        last: int | None = None
        while not self._idle():
            try:
                head = self.log.head_position()
                if last is None:
                    self._wake_all()  # whatever was appended before this thread looked
                elif head > last:
                    if head - last > FALLBACK_READ:
                        self._wake_all()
                    else:
                        moved = {game for _, game, _ in self.log.read_positions(last, FALLBACK_READ)}
                        self._wake(moved)
                last = head
            except Exception as error:
                log.warning("the stream fallback could not read the head: %s", error)
                self._wake_all()
            self._stop.wait(FALLBACK_SECONDS)

    def close(self) -> None:
        """Stop the threads (within a second) and wake every subscription (its stream reads once more)."""
        with self._lock:
            self._closed = True
        self._stop.set()
        self._wake(None)


def _set_all(subs: list[Subscription]) -> None:
    for sub in subs:
        sub.wake()


#: one notifier per database object (a `Store` and its parts share one), kept while it lives: its appends'
#: NOTIFYs carry its `sender`, which its listener skips
_notifiers: weakref.WeakKeyDictionary[Database, Notifier] = weakref.WeakKeyDictionary()
_notifiers_lock = threading.Lock()


def notifier_for(store: HoldsDatabase) -> Notifier:
    """The notifier of `store`'s database in this process (one per database object)."""
    with _notifiers_lock:
        found = _notifiers.get(store.db)
        if found is None:
            found = _notifiers[store.db] = Notifier(store.db)
        return found


def publish(store: HoldsDatabase, game_id: str) -> None:
    """Say that `game_id` moved in `store` (its append has committed): wakes its streams in this process (the
    append's statement notified the others)."""
    notifier_for(store).publish(game_id)


def sender(db: Database) -> str:
    """Who sends the NOTIFYs of `db`'s appends: this process and this database object (a forked process, or
    a second store on the same database, is another sender and hears them)."""
    return f"{os.getpid()}.{id(db)}"


def payload(db: Database, game_id: str) -> str:
    """The NOTIFY payload of an append to `game_id` through `db`: the game id, a space, its `sender`."""
    return f"{game_id} {sender(db)}"
