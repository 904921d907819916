"""What a read model does around a large page of the log: Python's cyclic garbage collector held off.

A rebuild's page (up to 20,000 events) makes tens of thousands of dicts, tuples and lists that live until the
page is written: each decoded event, each rating change, each fact. Every 700 allocations the collector
walks the young objects, and every few of those walks the older ones, all of the page made so far: work
that grows with the page and finds nothing, since a page's objects hold no reference cycles (plain
decoded JSON, tuples, the library's rating objects), so reference counting frees them all. Measured on the
ratings' rebuild (scratch runs beside `python -m bench.ratings`'s ceilings): 0.05-0.07 s of CPU saved, a
third of a 300-game rebuild, within the noise of a 2,000-game one (~0.9 s): the full walks are few, and
their number grows slowly with the page. So while a large page is
decoded and rated, the collector is off, and put back as it was after, whatever happens; a catch-up of a
few events leaves it alone (the switch is process-wide: other threads' cycles wait for the page, and a
page is seconds at most). Nothing here decides what a reader sees: it only changes when memory is swept.

The page's objects must also be freed *before* the collector is back (the read models `del` the page and what
they made of it inside the block): whatever survives it is young to the collector, and the allocations of the
next page's read run collections that walk all of it, young then middle-aged then old (measured: 0.6 s of CPU
of the 4.9 s a 10,000-game ratings rebuild took, 0.09 s of a 2,000-game one; the bare read beside it, whose
pages die at once, paid next to nothing for the same rows).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

#: a page with fewer rows is processed with the collector as it is
LARGE_PAGE = 1000


@contextlib.contextmanager
def large_page(rows: int) -> Iterator[None]:
    """Around the processing of a page of `rows` events: the cyclic collector off if the page is large and
    the collector was on, back on after."""
    if rows < LARGE_PAGE or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
