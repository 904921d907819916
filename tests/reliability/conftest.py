"""The reliability suite: real server processes on loopback, on SQLite and PostgreSQL.

`make test` runs the short version (tens of seconds); `make reliability`
runs the full one: `--full-reliability` on the command line (when pytest is
pointed at this folder), or `TABLEBOOK_FULL_RELIABILITY=1` anywhere. The
figures (appends tried, acknowledged, lost, duplicated, crashes survived,
fuzz cases, 5xx seen...) are printed at the end of the session whatever
`-s` says, and written to `test-output/reliability.txt`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from events.store import Store
from tests.conftest import Club, make_club
from tests.reliability.figures import FIGURES
from tests.reliability.server import ServerGroup, start_servers

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
REPORT = ROOT / "test-output" / "reliability.txt"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--full-reliability",
        action="store_true",
        default=False,
        help="run the long reliability runs (10,000 racing appends, 20 crashes, ...); env TABLEBOOK_FULL_RELIABILITY=1",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "reliability: the reliability suite (short in make test, full in make reliability)"
    )


def is_full(config: pytest.Config) -> bool:
    """The full run: the option, or TABLEBOOK_FULL_RELIABILITY=1."""
    flag = bool(config.getoption("--full-reliability", default=False))
    return flag or os.environ.get("TABLEBOOK_FULL_RELIABILITY", "") not in ("", "0")


@pytest.fixture(scope="session")
def full(pytestconfig: pytest.Config) -> bool:
    return is_full(pytestconfig)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if Path(str(report.fspath)).resolve().parent == HERE:
        FIGURES.seconds += report.duration


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    if not FIGURES.seconds:
        return
    lines = FIGURES.report("full" if is_full(config) else "short")
    terminalreporter.section("reliability figures")
    for line in lines:
        terminalreporter.write_line(line)
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text("\n".join([time.strftime("%Y-%m-%d %H:%M:%S"), *lines]) + "\n")
    terminalreporter.write_line(f"(written to {REPORT.relative_to(ROOT)})")


@pytest.fixture(scope="session")
def log_root(request: pytest.FixtureRequest) -> Iterator[Path]:
    """Where the server processes log: kept (and named in the summary) when a test failed."""
    root = Path(tempfile.mkdtemp(prefix="tablebook-reliability-"))
    failed_before = request.session.testsfailed
    yield root
    if request.session.testsfailed == failed_before:
        shutil.rmtree(root, ignore_errors=True)
    else:
        FIGURES.note("server logs", f"kept in {root}")


@pytest.fixture
def servers() -> Iterator[list[ServerGroup]]:
    """Server groups started by the test (`launch`); all stopped at its end."""
    started: list[ServerGroup] = []
    yield started
    for group in started:
        group.stop()


@pytest.fixture
def launch(servers: list[ServerGroup], log_root: Path, request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """`launch(url, processes=1, **env)`: uvicorn processes of `api.asgi:app` on free loopback ports."""

    def start(url: str, processes: int = 1, **env: str) -> ServerGroup:
        logs = Path(tempfile.mkdtemp(prefix=f"{request.node.name[:60]}-", dir=log_root))
        group = start_servers(url, processes, env, logs)
        servers.append(group)
        return group

    return start


_SHARED: dict[str, ServerGroup] = {}


@pytest.fixture(scope="session")
def _shared_groups(log_root: Path) -> Iterator[dict[str, ServerGroup]]:
    yield _SHARED
    for group in _SHARED.values():
        group.stop()


@pytest.fixture
def shared_server(store_url: str, _shared_groups: dict[str, ServerGroup], log_root: Path) -> Iterator[ServerGroup]:
    """Two plain server processes on `store_url`, started once a session (for the tests that kill nothing).

    A test after which they logged an unhandled error (a 500) fails in its teardown.
    """
    group = _shared_groups.get(store_url)
    if group is None:
        logs = Path(tempfile.mkdtemp(prefix="shared-", dir=log_root))
        group = _shared_groups[store_url] = start_servers(store_url, 2, {}, logs)
    before = group.bugs_logged()
    yield group
    after = group.bugs_logged()
    assert after == before, f"the server logged {after - before} unhandled errors; see {group.processes[0].log.parent}"


@pytest.fixture
def live_club(store: Store) -> Club:
    """A club with a key of each role, made in the database the servers use."""
    return make_club(store)
