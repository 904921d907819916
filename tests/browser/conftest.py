"""Browser tests: a real uvicorn server process, a temporary SQLite database, Debian's Chromium.

The server runs `api.asgi:app` on a free loopback port with
`TABLEBOOK_DATABASE_URL` pointing at a fresh, migrated SQLite file; the games
are recorded into that file before it starts (so its state cache begins
empty), and later events go through its HTTP API. Chromium is
`/usr/bin/chromium` (`apt-get install chromium`; `make test` installs it through scripts/ensure-services),
driven headless by Playwright. Screenshots go to `test-output/screenshots/`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.auth import create_key
from events.store import Store
from events.store.migrate import upgrade
from tests.browser.games import (
    EXAMPLES,
    KINDS,
    Recorded,
    record_example,
    record_flawed_smear,
    record_live_schnapsen,
    record_noted_retract,
    record_plain,
)
from tests.reliability.server import free_port

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-output" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--headless"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives Chromium against a live server (tests/browser)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


@dataclass
class Server:
    """The running server, its club's keys, and the games recorded for the tests."""

    url: str
    database_url: str
    keys: dict[str, str]
    games: dict[str, Recorded]
    live: Recorded
    live_rest: list[dict[str, Any]]
    shared: Recorded
    shared_live: Recorded
    shared_live_rest: list[dict[str, Any]]
    #: Schnapsen with a note and a claim inside a retracted range (`record_noted_retract`)
    noted: Recorded
    #: the shared example games as they are, by file name (`games.EXAMPLES`, `record_example`)
    examples: dict[str, Recorded]

    def headers(self, role: str = "recorder") -> dict[str, str]:
        return {"Authorization": f"Bearer {self.keys[role]}"}

    def get(self, path: str, role: str = "recorder", **params: Any) -> Any:
        response = httpx.get(self.url + path, headers=self.headers(role), params=params, timeout=30)
        assert response.status_code == 200, response.text
        return response.json()

    def post(self, path: str, body: Any = None, role: str = "recorder") -> Any:
        response = httpx.post(self.url + path, headers=self.headers(role), json=body, timeout=30)
        assert response.status_code in (200, 201), response.text
        return response.json()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (make test does it as root)")
    path = tmp_path_factory.mktemp("browser") / "tablebook.db"
    database_url = f"sqlite:///{path}"
    upgrade(database_url)
    store = Store(database_url)
    keys = {role: create_key(store, "browser club", role) for role in ("recorder", "viewer", "auditor")}
    club_id = store.ensure_club("browser club")
    games = {kind: record_plain(store, club_id, kind) for kind in KINDS if kind != "cutthroat-smear"}
    games["cutthroat-smear"] = record_flawed_smear(store, club_id)
    live, rest = record_live_schnapsen(store, club_id)
    shared, _ = record_live_schnapsen(store, club_id, seed=4)
    shared_live, shared_rest = record_live_schnapsen(store, club_id, seed=6)
    noted = record_noted_retract(store, club_id)
    # the examples last: the games recorded before them are the same as without them
    examples = {name: record_example(store, club_id, name) for name in EXAMPLES}
    store.dispose()

    port = free_port()
    env = {**os.environ, "TABLEBOOK_DATABASE_URL": database_url}
    log = (path.parent / "server.log").open("w")
    command = [sys.executable, "-m", "uvicorn", "api.asgi:app", "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--log-level", "warning"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            log.close()
            pytest.fail(f"the server exited: {(path.parent / 'server.log').read_text()}")
        try:
            if httpx.get(url + "/", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail("the server did not start within 30 s")
        time.sleep(0.1)
    try:
        yield Server(url, database_url, keys, games, live, rest, shared, shared_live, shared_rest, noted, examples)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


SNAPSHOT = """() => {
  const table = document.getElementById('table');
  const seats = {};
  for (const seat of table.querySelectorAll('.seat')) {
    const hand = seat.querySelector('.hand');
    seats[seat.dataset.seat] = {
      cards: [...hand.querySelectorAll('[data-card]')].map((c) => c.dataset.card),
      backs: [...hand.querySelectorAll('.backs')].map((b) => Number(b.dataset.count)),
      toAct: seat.classList.contains('to-act'),
      name: seat.querySelector('.name').textContent,
    };
  }
  const center = [...table.querySelector('.center').querySelectorAll('[data-card]')].map((c) => c.dataset.card);
  return {seq: Number(table.dataset.seq), hand: Number(table.dataset.hand), viewpoint: table.dataset.viewpoint,
          phase: table.dataset.phase, seats, center};
}"""


class Page:
    """A page of the replay page, with the console errors it logged."""

    def __init__(self, page: Any, errors: list[str]) -> None:
        self.page = page
        self.errors = errors

    def snapshot(self) -> dict[str, Any]:
        result: dict[str, Any] = self.page.evaluate(SNAPSHOT)
        return result

    def wait_seq(self, seq: int) -> None:
        self.page.wait_for_selector(f'body[data-busy="0"] #table[data-seq="{seq}"]', timeout=10_000)


@pytest.fixture
def open_page(browser: Any, server: Server) -> Iterator[Any]:
    contexts: list[Any] = []

    def opener(path: str, role: str | None = "recorder", width: int = 1280, height: int = 900, **extra: Any) -> Page:
        context = browser.new_context(viewport={"width": width, "height": height}, **extra)
        contexts.append(context)
        if role is not None:
            key = json.dumps(server.keys[role])
            context.add_init_script(f"sessionStorage.setItem('tablebook.key', {key})")
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(server.url + path)
        return Page(page, errors)

    yield opener
    for context in contexts:
        context.close()


#: the table pad's size unless a test says another (a tablet on the table)
TABLET = {"width": 1024, "height": 768}


def settle(page: Page, seq: int | None = None) -> int:
    """Wait until nothing is loading or waiting to be sent (at `seq` when given); the pad's seq."""
    at = f'[data-seq="{seq}"]' if seq is not None else "[data-seq]"
    page.page.wait_for_selector(f'body[data-busy="0"][data-queue="0"]{at} #turn:not(:empty)', timeout=20_000)
    return int(page.page.get_attribute("body", "data-seq") or -1)


@pytest.fixture
def pad(open_page: Callable[..., Page]) -> Callable[..., Page]:
    """Open the pad of a game and wait until it shows the game's head."""

    def opener(game_id: str, size: dict[str, int] = TABLET, **extra: Any) -> Page:
        page = open_page(f"/record/{game_id}", width=size["width"], height=size["height"], **extra)
        settle(page)
        return page

    return opener


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
