"""Group commit on PostgreSQL: single-event appends to different games that arrive together share one
transaction, and so one WAL flush (fsync), instead of one each.

Why: an append of one event is one autocommit statement (`EventRecorder._append_in_one`), and its commit
waits for the WAL to reach the disk. With many clients the disk's flush rate, not the CPU, bounds the
appends a second; PostgreSQL itself groups only the flushes of commits that happen to wait at the same
moment (and `commit_delay` is off by default). Here the grouping is explicit and costs no waiting.

How (a leader/follower queue, one per `EventRecorder`: per process and database):

- An append that finds fewer than `IN_FLIGHT` (2) writes in flight is the leader of a batch of one, and writes
  it at once with the one-event statement: a lone append has no extra latency and no extra statement.
- An append that finds `IN_FLIGHT` writes in flight queues its parameters and waits (on no connection).
- The leader, its batch written and answered, hands the lead to the first waiter, with every queued append
  to a game not yet in that batch (a second append to the same game waits for the next batch: its base is
  the head the first one moves); that leader writes them all in ONE autocommit statement
  (`EventRecorder`'s `move_heads_and_insert`: its text is the same whatever the batch's size, so the driver
  prepares it once). No delay is ever added: batches grow by themselves while commits' flushes are in flight.
- Why two in flight, not one: with one, a process's appends never overlapped in the database, and at 4 clients
  (batches of 2) group commit halved the rate of one statement each (1,521 against 2,626 events a second,
  `bench/group_commit.py`, 2026-12-07), and it cost a one-worker HTTP server 0.2 ms of CPU a request; two
  writes in flight keep the database as busy as 2 appends at once would, and while both wait for their
  flushes the others still gather into the next batches.
- The statement returns after its commit (`synchronous_commit` as configured), so every member's caller
  is answered after the commit of its own event, as before. It returns the games whose heads moved;
  the other members get the same `StreamConflictError` / `NotFoundError` as alone (each reads its head).
- A member may carry a check (`EventRecorder.append_checked`: the head's hash it chains to and its key's row, as
  its process read them on an earlier request); its head moves only if the check holds in the database, else it
  is "refused" like a member whose head moved, and its caller appends as before. Members without one carry NULLs.
- A batch that fails as a whole with the server's answer (a unique key hit by one member, a deadlock, a
  value one member's column refuses) has certainly rolled back: each member then writes alone, so one bad
  member never fails the others. A batch whose connection was lost may or may not have committed: each
  member gets that error (503, as an append alone), never a second try that could answer a conflict for
  an append that landed.

Deadlocks: the statement locks its games' rows in the order of their ids (a `FOR NO KEY UPDATE` over the
batch `ORDER BY id`, taken before any head moves), so two batches of two processes that share games take
their locks in the same order and never wait for each other in a circle. Every other append holds at most
one game row (the one-event statement, an append's transaction, `hold_head`), so it cannot close a circle
with a batch either. Within one batch a game is at most once; two batches in flight may both hold a game only
when one process appends to it from two threads at once outside `EventRecorder.turn` (the HTTP service never
does): then the second waits for the first's row lock and finds its head moved, a conflict, as it would alone.
Should a deadlock still be reported (a server's order differs from what is assumed here), the batch falls
back to one statement per member, as above.

What it costs: a batch ends when its slowest member's does. A member whose game row is locked by another
process's transaction (its `hold_head`, an append's transaction) holds up the appends batched with it for that
transaction's time, where before it held up only its own game's. A waiting follower keeps the connection it
read on (inside `Database.one_connection`, as the HTTP layer's appends are): the leader writes on its own, which
it already holds there, so the waiters never leave it without one.

`TABLEBOOK_GROUP_COMMIT=off` turns it off (each append its own statement, as before issue 34): for the
benchmark's comparison (bench/group_commit.py). SQLite has one writer and never groups.
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

#: the environment variable that turns group commit off ("off", "0", "false", "no")
SWITCH = "TABLEBOOK_GROUP_COMMIT"
#: how many writes (a lone append or a batch) one process has in flight at most (see the module docstring)
IN_FLIGHT = 2


def enabled(value: str | None = None) -> bool:
    """Whether group commit is on: `TABLEBOOK_GROUP_COMMIT` (or `value`) is unset or not an "off" word."""
    text = os.environ.get(SWITCH, "") if value is None else value
    return text.strip().lower() not in ("off", "0", "false", "no")


@dataclass(slots=True)
class Pending:
    """One single-event append waiting to be written: its parameters, then what became of it."""

    game_id: str
    #: the one-event statement's parameters, in the order `EventRecorder` gives them
    params: tuple[Any, ...]
    #: `EventRecorder.append_checked`'s check of the game's head and the key, written with the append (None: none)
    check: tuple[Any, ...] | None = None
    done: threading.Event = field(default_factory=threading.Event)
    #: set by the leader: "landed", "refused" (its head was not at its base: the caller reads it), "alone"
    #: (the batch failed as a whole and rolled back: write it alone), "lead" (lead the batch `batch`), "error"
    outcome: str = ""
    error: BaseException | None = None
    #: written alone and refused: the game's head row as the writer read it right after (None: no such game)
    found: Any = None
    head_read: bool = False
    #: for "lead": the batch this waiter is to write (itself first)
    batch: list[Pending] = field(default_factory=list)


#: what the recorder's batch writer answers: the game ids that landed; it raises `BatchFailed` when the
#: batch rolled back as a whole (its members then write alone)
WriteBatch = Callable[[Sequence[Pending]], set[str]]
WriteOne = Callable[[Pending], bool]


class BatchFailed(Exception):
    """The batch's statement failed with the server's answer and rolled back: nothing of it landed."""


class GroupCommit:
    """The queue of one recorder's single-event appends on PostgreSQL (see the module docstring)."""

    def __init__(self, write_one: WriteOne, write_batch: WriteBatch, in_flight: int = IN_FLIGHT) -> None:
        #: writes one append alone (the one-event statement): True if its head moved
        self._write_one = write_one
        #: writes a batch of appends to distinct games in one statement: the games that landed
        self._write_batch = write_batch
        self._lock = threading.Lock()
        self._queue: list[Pending] = []
        #: how many writes may be in flight at once (a test sets 1 to make a batch of everything queued)
        self.in_flight = in_flight
        #: how many are now
        self._writing = 0
        #: how many batches of each size were written (the benchmark prints it)
        self.sizes: Counter[int] = Counter()
        #: test-only: called by the leader with its batch's size before it writes it (a test holds it there
        #: until the appends it wants in the next batch have queued)
        self.before_write: Callable[[int], None] | None = None

    def writing(self) -> int:
        """How many writes are in flight now (the tests look at it)."""
        with self._lock:
            return self._writing

    def waiting(self) -> int:
        """How many appends wait for a batch now (the tests poll it)."""
        with self._lock:
            return len(self._queue)

    def append(self, game_id: str, params: tuple[Any, ...], check: tuple[Any, ...] | None = None) -> Pending:
        """Write one append, alone or with others; its `outcome`: "landed", "refused" (the head was not at its
        base, or its `check` failed) or "alone" (its batch rolled back: the caller writes it alone now). Raises
        what its write raised (a batch's lost connection: every member gets it)."""
        mine = Pending(game_id, params, check=check)
        with self._lock:
            if self._writing >= self.in_flight:
                self._queue.append(mine)
                lead = False
            else:
                self._writing += 1
                mine.batch = [mine]
                lead = True
        if not lead:
            mine.done.wait()
            if mine.outcome != "lead":
                return self._answer(mine)
        self._lead(mine.batch)
        return self._answer(mine)

    @staticmethod
    def _answer(mine: Pending) -> Pending:
        if mine.outcome == "error":
            assert mine.error is not None
            raise mine.error
        return mine

    def _lead(self, batch: list[Pending]) -> None:
        """Write `batch`, answer its members, then hand the lead to the next batch's first member (or end)."""
        try:
            hook = self.before_write
            if hook is not None:
                hook(len(batch))
            if len(batch) == 1:
                outcomes = {batch[0].game_id: "landed" if self._write_one(batch[0]) else "refused"}
            else:
                try:
                    landed = self._write_batch(sorted(batch, key=lambda p: p.game_id))
                    outcomes = {p.game_id: "landed" if p.game_id in landed else "refused" for p in batch}
                except BatchFailed:
                    outcomes = {p.game_id: "alone" for p in batch}
            for member in batch:
                member.outcome = outcomes[member.game_id]
        except BaseException as error:
            for member in batch:
                member.outcome, member.error = "error", error
        finally:
            with self._lock:
                self.sizes[len(batch)] += 1
                following = self._next_batch()
                if not following:
                    self._writing -= 1
            for member in batch[1:]:  # the first is this thread
                member.done.set()
            if following:
                following[0].outcome, following[0].batch = "lead", following
                following[0].done.set()

    def _next_batch(self) -> list[Pending]:
        """The queued appends to distinct games, in their order of arrival, taken off the queue (under the lock);
        a second append to a game stays queued for a later batch."""
        taken: list[Pending] = []
        kept: list[Pending] = []
        games: set[str] = set()
        for pending in self._queue:
            if pending.game_id in games:
                kept.append(pending)
            else:
                games.add(pending.game_id)
                taken.append(pending)
        self._queue = kept
        return taken
