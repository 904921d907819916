"""The figures of docs/performance.md, made from what the benchmarks print: no table there is kept by hand.

`make bench` runs each benchmark through this module and then writes the page::

    python -m bench.report run NAME MODULE [ARG ...]   # `python -m MODULE ARG ...`, its output shown as it
                                                       # comes and kept in bench/results/NAME.txt
    python -m bench.report                             # every bench/results/NAME.txt into docs/performance.md

In the page, each benchmark's table stands between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`; the
second command replaces what is there with the table made from `bench/results/NAME.txt`, and leaves a
section whose benchmark has no results yet as it is. A benchmark's printed lines become rows:

- `label: figures` is a row (an indented line's label follows the label of the line above it that is
  not indented: `SQLite: ...` then `  bulk export of 100 games: ...` is "SQLite, bulk export of 100 games");
- a line in parentheses is a note on the row above;
- `a | b | c` lines (the summary table of `python -m bench`) are copied as a table;
- anything else (a title, a `# ...` line) is said above the table.

Above each table: the command that printed it, when, the run's size (`BENCH_QUICK=1` is a quick run), the
machine's cores and load, and the commit measured.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
PAGE = ROOT / "docs" / "performance.md"
#: the first line of a results file: what was run, and on what
HEADER = "#! "
MARKER = re.compile(r"<!-- bench:(?P<name>[a-z0-9_]+) -->\n.*?<!-- /bench:(?P=name) -->", re.DOTALL)
#: the longest label a row may have (a longer text before its first ": " is a sentence, said above the table)
LABEL_CHARS = 100
OPENS, CLOSES = "([{", ")]}"


def run(name: str, module: str, args: list[str]) -> int:
    """Run `python -m module args`, passing its output through and keeping its stdout in bench/results/NAME.txt."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.strip()
    header = {
        "command": " ".join(["python", "-m", module, *args]),
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "quick": bool(os.environ.get("BENCH_QUICK")),
        "cores": os.cpu_count(),
        "load": round(os.getloadavg()[0], 1),
        "commit": commit or "?",
    }
    lines: list[str] = []
    with subprocess.Popen([sys.executable, "-m", module, *args], stdout=subprocess.PIPE, text=True) as child:
        assert child.stdout is not None
        for line in child.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            lines.append(line.rstrip("\n"))
    if child.returncode == 0:
        (RESULTS / f"{name}.txt").write_text(HEADER + json.dumps(header) + "\n" + "\n".join(lines) + "\n")
    return child.returncode


@dataclass
class Section:
    """One benchmark's output, read back: what it says above its table, its rows, and its own tables."""

    header: dict[str, object]
    said: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    tables: list[list[list[str]]] = field(default_factory=list)


def label_of(line: str) -> tuple[str, str] | None:
    """`(label, figures)` of a `label: figures` line: split at the first ": " outside brackets and backticks
    (`both at once (`tablebook rebuild`: ...): 11.4 s`), the label at most LABEL_CHARS long; else None."""
    depth, quoted = 0, False
    for i, char in enumerate(line[: LABEL_CHARS + 1]):
        if char == "`":
            quoted = not quoted
        elif quoted:
            continue
        elif char in OPENS:
            depth += 1
        elif char in CLOSES:
            depth = max(depth - 1, 0)
        elif char == ":" and depth == 0 and line[i + 1 : i + 2] == " " and i > 0:
            value = line[i + 2 :].strip()
            return (" ".join(line[:i].split()), " ".join(value.split())) if value else None
    return None


def parse(text: str) -> Section:
    """A results file's lines sorted into rows, notes, tables and what is said above them."""
    lines = text.splitlines()
    header: dict[str, object] = {}
    if lines and lines[0].startswith(HEADER):
        header = json.loads(lines.pop(0)[len(HEADER) :])
    section = Section(header)
    group = ""
    table: list[list[str]] | None = None
    for raw in lines:
        line = raw.rstrip()
        stripped = line.strip()
        if " | " in line:
            cells = [cell.strip() for cell in line.split("|")]
            if table is None:
                table = []
                section.tables.append(table)
            table.append(cells)
            continue
        if set(stripped) <= {"-", "|"} and table is not None:  # the table's rule
            continue
        table = None
        if not stripped:
            continue
        if stripped.startswith("#"):
            section.said.append(stripped.lstrip("#").strip())
        elif stripped.startswith("(") and stripped.endswith(")") and section.rows:
            section.rows[-1][1] += " " + " ".join(stripped.split())
        elif (split := label_of(stripped)) is not None:
            label, value = split
            if line[:1].isspace():
                label = f"{group}, {label}" if group else label
            else:
                group = label
            section.rows.append([label, value])
        else:
            section.said.append(stripped)
    return section


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown(name: str, section: Section) -> str:
    """The generated part of a benchmark's section: what printed it, when, on what; then its tables."""
    h = section.header
    size = "quick run (`BENCH_QUICK=1`)" if h.get("quick") else "full run"
    out = [
        f"<!-- bench:{name} -->",
        f"<!-- generated by `python -m bench.report` from bench/results/{name}.txt: do not edit by hand -->",
        f"`{h.get('command', name)}`, {h.get('date', '?')}, {size}, {h.get('cores', '?')} cores, "
        f"load {h.get('load', '?')}, commit `{h.get('commit', '?')}`.",
    ]
    for said in section.said:
        out += ["", cell(said)]
    for table in section.tables:
        width = max(len(row) for row in table)
        rows = [row + [""] * (width - len(row)) for row in table]
        out += ["", "| " + " | ".join(cell(c) for c in rows[0]) + " |", "|" + "---|" * width]
        out += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows[1:]]
    if section.rows:
        out += ["", "| figure | measured |", "|---|---|"]
        out += [f"| {cell(label)} | {cell(value)} |" for label, value in section.rows]
    out.append(f"<!-- /bench:{name} -->")
    return "\n".join(out)


def write(page: Path = PAGE, results: Path = RESULTS) -> list[str]:
    """Replace each benchmark's section of `page` that has results; the names of those replaced."""
    text = page.read_text()
    done: list[str] = []

    def replaced(found: re.Match[str]) -> str:
        name = found["name"]
        source = results / f"{name}.txt"
        if not source.exists():
            return found[0]
        done.append(name)
        return markdown(name, parse(source.read_text()))

    updated = MARKER.sub(replaced, text)
    if updated != text:
        page.write_text(updated)
    return done


def main(argv: list[str]) -> int:
    if argv[:1] == ["run"]:
        if len(argv) < 3:
            print("usage: python -m bench.report run NAME MODULE [ARG ...]", file=sys.stderr)
            return 2
        return run(argv[1], argv[2], argv[3:])
    done = write()
    shown = ", ".join(done) if done else "none (no bench/results/*.txt yet: run make bench)"
    print(f"{PAGE.relative_to(ROOT)}: the tables of {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
