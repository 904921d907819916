"""Group commit on SQLite: the checked single-event appends that the event loop writes in one turn of it share one
transaction, and so one commit (one fsync of the WAL in `full` durability), instead of one each.

Why: on SQLite an append by a key this process has read before is decided and written on the event loop
(`api.routes.events._append_known_on_loop`), and its commit, with `synchronous=FULL`, is most of the CPU of its
transaction (0.08-0.11 ms of the 0.14, measured in a bare sqlite3 loop and with bench/append_profile.py). Under
load the loop finds several appends ready at once (uvicorn reads every socket that is readable in one turn): they
can share that commit. An earlier try with a writer thread lost what it saved to the threads' hand-over; here
there is no other thread: the appends of a turn write in turn, on the loop, and the commit is one more callback of
the loop. No library does this (SQLite has no group commit of its own; the `eventsourcing` library commits each).

How, all on the event loop's thread (nothing here is shared with another thread but the writer lock):

- The first checked append of a turn takes this process's writer lock without waiting (held by a thread: nothing
  is grouped, the append goes on as before), begins the transaction (`BEGIN IMMEDIATE`) on the appends' kept
  connection, and asks the loop to commit it (`loop.call_soon`): the commit runs in the loop's next turn, after
  every callback and task that was ready in this one has run to its first wait. No delay is added: a lone append
  is committed as soon as the loop has nothing else ready.
- Each append of the turn writes its head's checked UPDATE, then its event (`write`, given by `EventRecorder`).
  Refused (the head or the key changed): its UPDATE matched no row, nothing of it is written, the others are
  untouched, and its caller at once appends as before (it says what happened). An integrity error on its event's
  row (which the checked head rules out, unless the database was changed under the process) leaves its head's
  UPDATE in the transaction: the whole transaction rolls back, and every member appends as before, none written.
  A SAVEPOINT around each append would spare the others that, but it cost an append about 0.1 ms of CPU
  (SQLite's statement journal; measured in process, three runs in turn: 0.59-0.62 ms an append with one,
  0.43-0.53 without), as much as a shared commit saves.
- A second append to a game already in the open transaction waits for that transaction's end (`game_free`), and is
  then decided on the head the first one moved: the appends of one game land in the order they were decided.
- Every member is acknowledged only after the COMMIT has returned (its future resolves True then). A commit that
  fails gives every member its error, as one alone would have had; a member's write that fails with anything but
  a refusal rolls the whole transaction back: that member gets its error, the others False (nothing of theirs
  was written: each appends as before).
- The writer lock stays held by the loop's thread from the BEGIN to the COMMIT. It is re-entrant, so any other
  write that the loop's thread starts meanwhile (`Database.one_writer`, `writer_within`, `writer_if_free`) first
  commits the open transaction (`Database.commit_open_group`) and then takes the lock as before: nothing of the
  loop ever writes on a connection of its own while the kept one holds SQLite's write lock (it would wait for
  itself). Other threads wait for the lock as they wait for any append.

`TABLEBOOK_GROUP_COMMIT=off` turns it off (each append its own transaction, as before), as on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import Any

from events.store.base import DATABASE_ERRORS, Database

#: a member's write in the open transaction: True, written; False, refused (nothing of it written)
Write = Callable[[Any], bool]


class _Open:
    """The transaction of one turn of the loop: its connection, its games, its members' futures."""

    def __init__(self, raw: Any, cursor: Any, owner: int) -> None:
        self.raw = raw
        self.cursor = cursor
        self.owner = owner
        self.games: set[str] = set()
        #: each member's future and what is done for it once the transaction has committed
        self.members: list[tuple[asyncio.Future[bool], Callable[[], object]]] = []
        #: resolved when this transaction has ended (committed or rolled back): `game_free` waits for it
        self.ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()


class TurnCommit:
    """The open transaction of this process's appends on the event loop (one per `EventRecorder`, SQLite only)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._open: _Open | None = None
        #: transactions committed, and the appends they held (their ratio: appends a commit)
        self.commits = 0
        self.committed = 0

    def owned_here(self) -> bool:
        """Whether a transaction is open and the calling thread (the loop's) holds it (`Database.commit_open_group`)."""
        group = self._open
        return group is not None and group.owner == threading.get_ident()

    async def game_free(self, game_id: str) -> None:
        """Wait until no open transaction holds an append to `game_id` (at once when none does)."""
        while self._open is not None and game_id in self._open.games:
            await asyncio.shield(self._open.ended)

    def append(self, game_id: str, write: Write, landed: Callable[[], object]) -> asyncio.Future[bool] | None:
        """`write` in this turn's transaction (begun here if none is open): a future that resolves True once that
        transaction has committed, `landed` called first (in the commit's callback, so that it is done even if
        the caller stops waiting: the game's state cached, its streams woken), or raises its commit's error
        (False: it rolled back, nothing written), or None
        when nothing was written (refused, the game already in the transaction, no running loop, or the writer
        lock held by a thread): the caller appends as before.

        Raises:
            the error of a write that failed otherwise than by a refusal (the transaction rolled back).
        """
        group = self._open
        if group is None:
            group = self._begin()
            if group is None:
                return None
        if game_id in group.games:
            return None
        try:
            written = write(group.cursor)
        except self.db.integrity_error:  # its head's UPDATE may stand: the transaction rolls back, nothing lands
            self._end(group, failed=True)
            return None
        except BaseException:
            self._end(group, failed=True)
            raise
        if not written:  # refused: its checked UPDATE matched no row, nothing of it is written
            return None
        group.games.add(game_id)
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        group.members.append((done, landed))
        return done

    def commit(self) -> None:
        """Commit the open transaction now, if there is one (the loop's callback, or a write of the loop's thread
        that must not wait for it: `Database.commit_open_group`); its members are answered."""
        group = self._open
        if group is None:
            return
        try:
            group.raw.commit()
        except BaseException as error:
            self._end(group, failed=True, error=error)
            if not isinstance(error, DATABASE_ERRORS):
                raise
            return
        self.commits += 1
        self.committed += len(group.members)
        self._end(group)

    def _begin(self) -> _Open | None:
        """A transaction for this turn, the writer lock held until it ends; None if that cannot be now."""
        writer = self.db.writer_rlock
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None
        if writer is None or not writer.acquire(blocking=False):
            return None
        try:
            kept = self.db.writer_connection()
            if kept is None or kept.driver_connection.in_transaction:  # pragma: no cover - the lock was free
                writer.release()
                return None
            raw = kept.dbapi_connection
            cursor = raw.cursor()
            try:
                cursor.execute(self.db.dialect.begin_write or "BEGIN")
            except BaseException:
                with contextlib.suppress(*DATABASE_ERRORS):
                    cursor.close()
                raise
        except BaseException as error:
            if isinstance(error, DATABASE_ERRORS):
                self.db.drop_writer_connection()
            writer.release()
            raise
        group = _Open(raw, cursor, threading.get_ident())
        self._open = group
        self.db.open_group = self
        loop.call_soon(self.commit)
        return group

    def _end(self, group: _Open, *, failed: bool = False, error: BaseException | None = None) -> None:
        """The transaction ended (committed, or rolled back if `failed`): its lock released, its members answered
        (True: committed; `error`: the commit's; False: rolled back before its commit)."""
        self._open = None
        self.db.open_group = None
        try:
            if failed:
                with contextlib.suppress(*DATABASE_ERRORS):
                    group.raw.rollback()
                self.db.drop_writer_connection()  # whatever state it is in, the next append starts afresh
            else:
                with contextlib.suppress(*DATABASE_ERRORS):
                    group.cursor.close()
        finally:
            self.db.writer_rlock.release()  # type: ignore[union-attr]
            for member, landed in group.members:
                if failed:
                    if not member.done():
                        member.set_exception(error) if error is not None else member.set_result(False)
                    continue
                try:
                    landed()
                except Exception as after:  # as when it was called after a lone append's commit: its caller's error
                    if not member.done():
                        member.set_exception(after)
                    continue
                if not member.done():
                    member.set_result(True)
            if not group.ended.done():
                group.ended.set_result(None)
