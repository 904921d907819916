"""The table pad's copy of the last table (localStorage) does not keep a player's name after an erasure.

The pad keeps the game's last table in localStorage for an offline reload, names and all, and its
waiting taps carry labels that name the seats. An erasure (`DELETE /v1/players/{ref}`) replaces the
name in every game the server answers for; when the pad reads the game and finds other names than the
ones it kept, it drops the kept copy at once (before writing the new one, which a full storage may
refuse) and writes the waiting taps' labels with the new names; a game that answers 404 (a key that
does not see it) has its copy dropped too. Run on both stores: a server process of its own on each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from events.store import Store
from tests.browser.conftest import Page, settle
from tests.conftest import Club, make_club
from tests.reliability.server import ROOT, free_port

ERASED = "Zoë Quist"
#: a phone whose storage is full: writes of the pad's table copy fail while `test.full` is set in the tab
FULL_STORAGE = """
(() => {
  const setItem = Storage.prototype.setItem;
  Storage.prototype.setItem = function (key, value) {
    if (String(key).startsWith('tablebook.pad.cache.') && window.sessionStorage.getItem('test.full')) {
      throw new DOMException('the storage is full', 'QuotaExceededError');
    }
    return setItem.call(this, key, value);
  };
})();
"""
#: every entry of the origin's localStorage
STORED = "() => Object.fromEntries(Object.keys(localStorage).map((k) => [k, localStorage.getItem(k)]))"


@pytest.fixture
def pad_server(store_url: str, tmp_path: Any) -> Iterator[str]:
    """`api.asgi:app` on a free port over this test's store (SQLite or PostgreSQL)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLEBOOK_")}
    env["TABLEBOOK_DATABASE_URL"] = store_url
    log = (tmp_path / "server.log").open("wb")
    command = [sys.executable, "-m", "uvicorn", "api.asgi:app", "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen([*command, "--log-level", "warning"], cwd=ROOT, env=env, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    try:
        while True:
            assert process.poll() is None, (tmp_path / "server.log").read_text()
            try:
                if httpx.get(url + "/", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the server did not start within 30 s"
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.fixture
def opened(browser: Any, pad_server: str) -> Iterator[Any]:
    """A function that opens the pad of a game with a key in a new browser context (its own localStorage)."""
    contexts: list[Any] = []

    def opener(game_id: str, key: str) -> Page:
        context = browser.new_context(viewport={"width": 1024, "height": 768})
        contexts.append(context)
        context.add_init_script(FULL_STORAGE)
        context.add_init_script(
            f"if (!sessionStorage.getItem('tablebook.key')) sessionStorage.setItem('tablebook.key', {json.dumps(key)})"
        )
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{pad_server}/record/{game_id}")
        opened_page = Page(page, errors)
        settle(opened_page)
        return opened_page

    yield opener
    for context in contexts:
        context.close()


def new_game(url: str, club: Club, players: list[str]) -> str:
    body = {"game": "schnapsen", "players": players, "options": {"first_dealer": 1}}
    created = httpx.post(f"{url}/v1/games", json=body, headers=club.recorder, timeout=30)
    assert created.status_code == 201, created.text
    return str(created.json()["id"])


def stored(page: Page) -> dict[str, str]:
    entries: dict[str, str] = page.page.evaluate(STORED)
    return entries


def test_an_erased_name_leaves_the_pads_storage_even_when_the_new_copy_cannot_be_written(
    store: Store, pad_server: str, opened: Any
) -> None:
    club = make_club(store)
    game_id = new_game(pad_server, club, [ERASED, "Ben Ode"])
    pad = opened(game_id, club.keys["recorder"])
    cache = f"tablebook.pad.cache.{game_id}"
    held = f"tablebook.pad.held.{game_id}"
    assert ERASED in stored(pad)[cache]
    # a tap waiting on this device after a refused one: its label names the player
    waiting = [
        {
            "key": "pad-waiting",
            "event": {"type": "note", "text": "later"},
            "expected_seq": 1,
            "label": f"{ERASED}: a note for {ERASED} (and Ben Ode)",
            "at": "2026-12-01T20:00:00Z",
            "checked": True,
        }
    ]
    pad.page.evaluate(
        f"localStorage.setItem({json.dumps(held)}, {json.dumps(json.dumps(waiting, ensure_ascii=False))})"
    )
    assert ERASED in stored(pad)[held]

    player = httpx.get(f"{pad_server}/v1/players", params={"name": ERASED}, headers=club.recorder).json()["players"]
    erased = httpx.delete(f"{pad_server}/v1/players/{player[0]['id']}", headers=club.recorder, timeout=30)
    assert erased.status_code == 200, erased.text

    pad.page.evaluate("sessionStorage.setItem('test.full', '1')")  # the new copy cannot be written
    pad.page.reload()
    settle(pad)
    assert pad.page.text_content("#title") == "Schnapsen: (erased), Ben Ode"
    after = stored(pad)
    assert cache not in after, "the copy with the erased name stayed on the device"
    assert not [k for k, v in after.items() if ERASED in k or ERASED in v], after
    assert [item["label"] for item in json.loads(after[held])] == ["(erased): a note for (erased) (and Ben Ode)"]

    pad.page.evaluate("sessionStorage.removeItem('test.full')")  # room again: the copy is kept, new names only
    pad.page.reload()
    settle(pad)
    again = json.loads(stored(pad)[cache])
    assert again["meta"]["players"] == ["(erased)", "Ben Ode"]
    assert not pad.errors, pad.errors


def test_a_game_that_answers_404_has_its_copy_dropped(store: Store, pad_server: str, opened: Any) -> None:
    club, other = make_club(store), make_club(store)
    game_id = new_game(pad_server, club, ["Ivo Pell", "Ann Ray"])
    pad = opened(game_id, club.keys["recorder"])
    cache = f"tablebook.pad.cache.{game_id}"
    assert "Ivo Pell" in stored(pad)[cache]
    # the same device, now with a key of another club: the game is not found for it
    pad.page.evaluate(f"sessionStorage.setItem('tablebook.key', {json.dumps(other.keys['recorder'])})")
    pad.page.reload()
    pad.page.wait_for_selector("#alert:not([hidden]) .problem", timeout=20_000)
    assert pad.page.text_content("#alert h2") == "No such game in your club."
    pad.page.wait_for_selector('body[data-busy="0"]', timeout=20_000)
    assert cache not in stored(pad)
    assert not [v for v in stored(pad).values() if "Ivo Pell" in v]
    assert not pad.errors, pad.errors
