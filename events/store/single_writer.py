"""SQLite: the checked append of one event (`EventRecorder.append_checked`), in a transaction of its own or in the
one that a turn of the event loop shares (`events/store/turn_commit.py`), and the head's move that every SQLite
append makes: the part of the event recorder (`EventRecorder`, which mixes it in) that runs under this process's
one writer.

Apart from the recorder for size; the statements are `append_sql.SQL`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from typing import Any

from events.codec import dumps
from events.envelope import Envelope
from events.store.append_sql import check_of
from events.store.base import DATABASE_ERRORS, Database
from events.store.heads import Head
from events.store.mapper import row_values
from events.store.registry import KeyRecord
from events.store.turn_commit import TurnCommit


class SingleWriterWrites:
    """SQLite's checked appends and head moves, for `EventRecorder`."""

    db: Database
    turn_commit: TurnCommit | None
    commit_delay: tuple[float, float] | None
    _sql: dict[str, str]

    def _append_checked_single_writer(
        self, game_id: str, row: Sequence[Any], envelope: Envelope, base_seq: int, head: Head, key: KeyRecord
    ) -> bool:
        """SQLite, `append_checked`: one transaction on the appends' kept connection, under this process's writer lock,
        whose head's UPDATE moves the head only if the game's row and the key are still what the event was decided
        on and the key's row read (`move_head_checked`, `key_still`), and whose event is inserted only if it did;
        else it rolls back and nothing is written. The key's and the game's read before the append (a statement on
        the connection whose commit has just fsynced: 33 us of CPU where the same read costs 15 us after a read,
        measured) is so made by the write itself, in its transaction: the key is still read from the database at
        every append, as it is written."""
        write = self._checked_write(game_id, row, envelope, base_seq, head, key)
        with self.db.writer_lock:  # `one_writer`
            kept = self.db.writer_connection()
            if kept is None:  # pragma: no cover - SQLite always keeps one
                return False
            raw = kept.dbapi_connection
            cursor = raw.cursor()
            try:
                cursor.execute(self.db.dialect.begin_write or "BEGIN")
                if not write(cursor):
                    raw.rollback()
                    return False
                raw.commit()
                return True
            except BaseException as error:
                with contextlib.suppress(*DATABASE_ERRORS):
                    raw.rollback()
                if isinstance(error, DATABASE_ERRORS):
                    self.db.drop_writer_connection()  # whatever state it is in, the next append starts afresh
                if isinstance(error, self.db.integrity_error):
                    return False  # the caller appends as before and says what happened
                raise
            finally:
                with contextlib.suppress(*DATABASE_ERRORS):
                    cursor.close()

    def _checked_write(
        self, game_id: str, row: Sequence[Any], envelope: Envelope, base_seq: int, head: Head, key: KeyRecord
    ) -> Callable[[Any], bool]:
        """SQLite, `append_checked`'s statements on a cursor in a write transaction: the head's checked UPDATE, then
        the event's INSERT if the head moved. True: both written; False: nothing written (the head or the key
        changed)."""
        now = envelope["recorded_at"]
        totals = dumps(dict(head.totals))
        check = check_of(envelope, key)

        def write(cursor: Any) -> bool:
            if not self._move_head_single_writer(cursor, head, totals, now, game_id, base_seq, check):
                return False
            cursor.execute(self._sql["insert_event"], tuple(row))
            return True

        return write

    def append_checked_in_turn(
        self,
        game_id: str,
        envelope: Envelope,
        *,
        base_seq: int,
        head: Head,
        key: KeyRecord,
        landed: Callable[[], object],
    ) -> asyncio.Future[bool] | None:
        """SQLite, on the event loop: `append_checked` written in the transaction that this turn of the loop shares
        with its other checked appends (`events/store/turn_commit.py`). A future that resolves True once that
        transaction has committed, `landed` called first (False: it rolled back, nothing written; an error: its
        commit's), or None:
        nothing written (a refusal, group commit off, the reliability tests' delay, or not on the loop): the
        caller appends as before, as after `append_checked`'s False."""
        if self.turn_commit is None or self.commit_delay is not None:
            return None
        row = row_values(game_id, envelope)
        return self.turn_commit.append(
            game_id, self._checked_write(game_id, row, envelope, base_seq, head, key), landed
        )

    def _move_head_single_writer(
        self, cursor: Any, head: Head, totals: str, now: str, game_id: str, base_seq: int, check: tuple[Any, ...] = ()
    ) -> bool:
        """SQLite, in an append's transaction under the one writer: the head moved to `head` if it is at `base_seq`,
        with its status as it was first (`move_head_same_status`, every append but a game's last: SQLite rewrites
        an index entry of every column an UPDATE sets), else a second statement that sets it (`move_head`); with a
        `check` (`append_checked`, `check_of`), their `_checked` forms. True: the head moved."""
        checked = "_checked" if check else ""
        same = (head.seq, head.hand, totals, head.winner, head.head_hash, now, game_id, base_seq, head.status)
        cursor.execute(self._sql[f"move_head_same_status{checked}"], (*same, *check))
        if cursor.rowcount != 1:
            moved = (head.seq, head.hand, head.status, totals, head.winner, head.head_hash, now, game_id, base_seq)
            cursor.execute(self._sql[f"move_head{checked}"], (*moved, *check))
        return bool(cursor.rowcount == 1)
