"""bench/report.py: the benchmarks' printed lines become docs/performance.md's tables, and the page has a
section for every benchmark `make bench` runs (so that no figure there is kept by hand)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bench import report

ROOT = Path(__file__).resolve().parents[2]

PRINTED = """bulk export, 200 games (Python 3.11.7)
SQLite: recorded 200 games, 69,100 events in 8.4 s
  bulk export of   100 games:  10.4 MiB in 0.24 s; peak heap  1.99 MiB streamed
  both at once (`tablebook rebuild`: the hand facts in a second process): 11.4 s, 87 games/s
    (4 workers / 1 worker: 1.06)
# idle streams over 8 s

benchmark | measured     | notes
----------|--------------|------
fold      | 142,169 ev/s |
"""


def test_printed_lines_become_rows_notes_and_tables(tmp_path: Path) -> None:
    header = {"command": "python -m bench.x", "date": "2026-12-03 12:00", "quick": True, "cores": 2, "load": 1.0}
    (tmp_path / "x.txt").write_text(report.HEADER + json.dumps(header) + "\n" + PRINTED)
    page = tmp_path / "page.md"
    sections = "<!-- bench:x -->\nold figures\n<!-- /bench:x -->\n<!-- bench:y -->\nkept\n<!-- /bench:y -->\n"
    page.write_text("before\n" + sections)
    assert report.write(page, tmp_path) == ["x"]
    text = page.read_text()
    assert "old figures" not in text and "kept" in text  # y has no results: its section stays as it was
    assert "`python -m bench.x`, 2026-12-03 12:00, quick run (`BENCH_QUICK=1`), 2 cores, load 1.0" in text
    assert "\nbulk export, 200 games (Python 3.11.7)\n" in text and "\nidle streams over 8 s\n" in text
    assert "| SQLite | recorded 200 games, 69,100 events in 8.4 s |" in text
    assert "| SQLite, bulk export of 100 games | 10.4 MiB in 0.24 s; peak heap 1.99 MiB streamed |" in text
    both = "| SQLite, both at once (`tablebook rebuild`: the hand facts in a second process) | 11.4 s, 87 games/s"
    assert both + " (4 workers / 1 worker: 1.06) |" in text
    assert "| benchmark | measured | notes |\n|---|---|---|\n| fold | 142,169 ev/s |  |" in text


def test_the_page_has_a_section_for_every_benchmark_make_bench_runs() -> None:
    makefile = (ROOT / "Makefile").read_text()
    run = set(re.findall(r"^\t\$\(BENCH_RUN\) (\w+) ", makefile, re.MULTILINE))
    page = (ROOT / "docs" / "performance.md").read_text()
    sections = set(re.findall(r"<!-- bench:([a-z0-9_]+) -->", page))
    assert run and run == sections
    assert set(re.findall(r"<!-- /bench:([a-z0-9_]+) -->", page)) == sections
