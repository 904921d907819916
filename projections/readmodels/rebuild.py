"""Rebuild every read model from zero at once: the hand facts in a second process, the ratings in this one.

The two read models (`projections/readmodels/hand_facts.py`, `projections/readmodels/ratings/`) read the
same log through
different filters, write different tables under different checkpoints, and neither reads the other's
rows, so nothing orders one before the other. Each is one core's work (decoding events and Python
bookkeeping; the database mostly waits), so on a machine with two cores a rebuild takes about as long
as the slower of the two instead of their sum. The second process is started with `spawn` (a fresh
interpreter that opens its own connections: a forked copy of this process's pooled database
connections would share their sockets and files with it) and reports its progress and its end on a
queue that a thread of this process reads. The standard library's `multiprocessing` does all of that;
nothing here is a scheduler of its own.

SQLite lets one writer in at a time: each read model commits a page (up to 20,000 events' rows) in one
write transaction, and the other waits for it in SQLite's busy handler (`busy_timeout`, 30 s), which a
page's write is far below. PostgreSQL takes both at once.
"""

from __future__ import annotations

import multiprocessing
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from events.errors import TablebookError
from events.store import Store
from projections.readmodels.hand_facts import HandFacts
from projections.readmodels.ratings import RatingsModel

#: progress: (read model's name, log positions its last committed page advanced)
Progress = Callable[[str, int], None]

FACTS = "hand facts"
RATINGS = "ratings"

#: a log longer than this (positions) is rebuilt with both read models at once: a second interpreter takes
#: about 1.6 s to start and import (measured here), about what the hand facts of 400,000 events take
PARALLEL_FROM = 400_000


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """The events each read model read in its rebuild."""

    facts_read: int
    ratings_read: int


def _rebuild_facts(url: str, queue: Any) -> None:
    """The second process: rebuild the hand facts on its own connections, reporting on `queue`."""
    store = Store(url)
    try:
        read = HandFacts(store).rebuild(lambda n: queue.put(("progress", n)))
        queue.put(("done", read))
    except BaseException:  # reported to the parent, which raises it there
        queue.put(("failed", traceback.format_exc()))
    finally:
        store.dispose()


def rebuild_read_models(store: Store, progress: Progress | None = None, *, parallel: bool | None = None) -> Rebuilt:
    """Empty the hand facts and the ratings and read the whole log again for both.

    With `parallel` the hand facts are rebuilt in a second process while this one rebuilds the ratings;
    without it, one after the other here (the same rows either way: each read model's rebuild is its own
    `rebuild()`). None (the default) chooses by the log's length (`PARALLEL_FROM`).

    Raises:
        TablebookError: the second process failed (its traceback is in the message).
    """
    report: Progress = progress or (lambda name, n: None)
    if parallel is None:
        parallel = store.head_position() > PARALLEL_FROM
    if not parallel:
        facts_read = HandFacts(store).rebuild(lambda n: report(FACTS, n))
        ratings_read = RatingsModel(store).rebuild(lambda n: report(RATINGS, n))
        return Rebuilt(facts_read, ratings_read)
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_rebuild_facts, args=(store.url, queue), name="tablebook-rebuild-facts")
    child.start()
    outcome: dict[str, Any] = {}

    def listen() -> None:
        while True:
            kind, value = queue.get()
            if kind == "progress":
                report(FACTS, value)
                continue
            outcome[kind] = value
            return

    listener = threading.Thread(target=listen, name="tablebook-rebuild-progress", daemon=True)
    listener.start()
    try:
        ratings_read = RatingsModel(store).rebuild(lambda n: report(RATINGS, n))
    finally:
        child.join()
        listener.join(timeout=5)
    if "failed" in outcome:
        raise TablebookError(f"the hand facts' rebuild failed in its process:\n{outcome['failed']}")
    if "done" not in outcome:
        raise TablebookError(f"the hand facts' rebuild process ended with exit code {child.exitcode} and no answer")
    return Rebuilt(int(outcome["done"]), ratings_read)
