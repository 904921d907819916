"""Process tuning that folds rely on: the garbage collector's first threshold.

A fold allocates small containers (event dicts, tuples, state dicts) at a high rate while large sets
of objects stay alive (a page of decoded envelopes, the states a replay keeps). With CPython's
default first-generation threshold of 700 allocations, the collector runs so often that it keeps
re-traversing those live sets: rebuilding a long Seven and a Half game from SQLite went at about
105,000 events a second with the default and 170,000 with a threshold of 10,000 (same run, this
machine). No fold creates reference cycles of its own (states and events are trees of immutable
values), so collecting less often only delays the collection of cycles made elsewhere.

Every process that folds calls `tune_gc()` once at its start: the API's ASGI app, the CLI and the
benchmarks (which so measure what a server does).
"""

from __future__ import annotations

import gc

#: allocations between first-generation collections (CPython's default: 700)
FIRST_THRESHOLD = 10_000


def tune_gc() -> tuple[int, int, int]:
    """Raise the first-generation threshold to `FIRST_THRESHOLD` (never lower it); returns the thresholds."""
    first, second, third = gc.get_threshold()
    if first < FIRST_THRESHOLD:
        gc.set_threshold(FIRST_THRESHOLD, second, third)
    return gc.get_threshold()
