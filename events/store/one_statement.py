"""PostgreSQL: a single-event append written as one statement in autocommit, alone or in a group commit's batch
(`events/store/group_commit.py`): the part of the event recorder (`EventRecorder`, which mixes it in) that writes
them.

Apart from the recorder for size: these four methods are what `GroupCommit` calls back (`_write_alone`,
`_write_batch`) and what the recorder's one-event appends go through (`_write_one`, `one_event_params`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from events.codec import dumps
from events.store.append_sql import BASE_END, BATCH_REFUSALS, NO_CHECK
from events.store.base import DATABASE_ERRORS, Database
from events.store.group_commit import BatchFailed, GroupCommit, Pending
from events.store.heads import Head
from events.store.notify import payload


class OneStatementWrites:
    """The one-statement writes of `EventRecorder` (PostgreSQL)."""

    db: Database
    group_commit: GroupCommit | None
    _sql: dict[str, str]
    _batch_sql: str

    def _write_one(self, game_id: str, params: tuple[Any, ...], check: tuple[Any, ...] | None = None) -> Pending:
        """PostgreSQL: a single-event append's statement, through group commit when it is on (in a batch, or alone
        when nothing else is in flight), else alone; its `Pending`, with its outcome ("landed" or refused)."""
        done = self.group_commit.append(game_id, params, check) if self.group_commit is not None else None
        if done is None or done.outcome == "alone":
            done = Pending(game_id, params, check=check)
            done.outcome = "landed" if self._write_alone(done) else "refused"
        return done

    def one_event_params(
        self, game_id: str, row: Sequence[Any], now: str, base_seq: int, head: Head
    ) -> tuple[Any, ...]:
        """The parameters of a single-event append's statement (`move_head_and_insert`, with its NOTIFY's payload
        last), which are also its column of a batch's arrays (`MOVE_HEADS_AND_INSERT`)."""
        moved = (head.seq, head.hand, head.status, dumps(dict(head.totals)), head.winner, head.head_hash, now)
        return (*moved, game_id, base_seq, *row, payload(self.db, game_id))

    def _write_alone(self, append: Pending) -> bool:
        """One single-event append in its own statement (`move_head_and_insert`): True if its head moved; if not,
        the head's row is read right after on the same connection (`append.found`, None: no such game). With a
        check (`append_checked`): `move_head_and_insert_checked`, and nothing read after."""
        with self.db.autocommit_connection() as raw:
            cursor = raw.cursor()
            try:
                if append.check is not None:  # `append_checked`: its check after the base seq; refused, no read
                    params = (*append.params[:BASE_END], *append.check, *append.params[BASE_END:])
                    cursor.execute(self._sql["move_head_and_insert_checked"], params)
                    return bool(cursor.rowcount == 1)
                cursor.execute(self._sql["move_head_and_insert"], append.params)
                if cursor.rowcount == 1:
                    return True
                cursor.execute(self._sql["head_seq"], (append.game_id,))
                append.found, append.head_read = cursor.fetchone(), True
                return False
            finally:
                cursor.close()

    def _write_batch(self, batch: Sequence[Pending]) -> set[str]:
        """Single-event appends to distinct games in one statement (`MOVE_HEADS_AND_INSERT`): the games whose
        heads moved, their events inserted, committed when this returns.

        Raises:
            BatchFailed: the server refused the statement (`BATCH_REFUSALS`): it rolled back, nothing landed,
                and the connection is fine; the members write alone.
        """
        members = (append.params + (append.check or NO_CHECK) for append in batch)
        arrays = [list(column) for column in zip(*members, strict=True)]
        with self.db.autocommit_connection() as raw:
            cursor = raw.cursor()
            try:
                cursor.execute(self._batch_sql, arrays)
                return {str(found[0]) for found in cursor.fetchall()}
            except DATABASE_ERRORS as error:
                state = str(getattr(error, "sqlstate", None) or "")
                broken = bool(getattr(raw.driver_connection, "broken", False) or raw.driver_connection.closed)
                if not broken and (state[:2] in BATCH_REFUSALS or state == "57014"):
                    raise BatchFailed(state) from error
                raise
            finally:
                cursor.close()
