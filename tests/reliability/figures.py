"""The figures the reliability suite publishes: counted by the tests, printed at the end of the session.

Each test adds to the one `FIGURES` object of the session; `conftest.py`
prints it with the terminal summary (whatever `-s` says) and writes it to
`test-output/reliability.txt`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

TOTALS = (
    ("appends_tried", "appends tried"),
    ("acknowledged", "appends acknowledged (201)"),
    ("refused_409", "appends refused with 409"),
    ("unanswered", "appends unanswered (killed or timed out)"),
    ("lost", "acknowledged appends lost"),
    ("duplicated", "appends stored twice"),
    ("half_batches", "half batches stored"),
    ("gaps", "seq gaps"),
    ("chains_verified", "chains verified (GET /verify ok)"),
    ("chains_broken", "chains broken"),
    ("crashes", "kill -9 crashes survived"),
    ("retries", "requests retried with their Idempotency-Key"),
    ("retries_duplicated", "retried requests stored twice"),
    ("fuzz_cases", "fuzz cases tried (broken events)"),
    ("fuzz_accepted", "fuzz cases accepted (should be 0)"),
    ("api_cases", "schemathesis cases tried"),
    ("server_errors", "5xx answers seen"),
    ("skips_in_log_order", "positions skipped by a catch-up reader of the log"),
)


@dataclass
class Figures:
    """Counters summed over the session, plus one line per measurement."""

    counts: dict[str, int] = field(default_factory=lambda: {name: 0 for name, _ in TOTALS})
    lines: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, **counts: int) -> None:
        """Add to the session's counters (thread-safe)."""
        with self._lock:
            for name, value in counts.items():
                if name not in self.counts:
                    raise KeyError(f"unknown figure {name!r}")
                self.counts[name] += value

    def note(self, section: str, text: str) -> None:
        """One line of a measurement, e.g. ("races", "sqlite: 10,000 appends ...")."""
        with self._lock:
            self.lines.append((section, text))

    def report(self, mode: str) -> list[str]:
        out = [f"reliability suite ({mode} run): {self.seconds:.1f} s of test time"]
        for name, label in TOTALS:
            out.append(f"  {label:<58} {self.counts[name]:>9,}")
        section = None
        for sec, text in self.lines:
            if sec != section:
                out.append(f"[{sec}]")
                section = sec
            out.append(f"  {text}")
        return out


FIGURES = Figures()
