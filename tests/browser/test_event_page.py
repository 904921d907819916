"""Events (issue 33) on two servers, then the event page in Chromium.

Two servers on one database: the browser suite's uvicorn process (`server`) and the app in the test's own
process (its own store, state cache and board links). Table 1 plays on one, table 2 on the other; a viewer
of table 1 on either never sees a card of a board table 2 is still playing, and once table 2 has finished
it the board is revealed and compared, the results readable at the other server at once. Then the event
page at a phone's and a desktop's size, and the printable results (one page a round, then the standings).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from api.settings import Settings
from events.store import Store
from tests.api.event_tables import EventTable, cards_in, dealt
from tests.browser.conftest import Server
from tests.conftest import Club

READY = 'body[data-busy="0"] #content:not([hidden])'
SIZES = {"phone": (390, 844), "desktop": (1280, 800)}


@pytest.fixture
def two(server: Server) -> Iterator[tuple[httpx.Client, TestClient, Club]]:
    keys = server.keys
    club = Club(
        "browser club", *({"Authorization": f"Bearer {keys[r]}"} for r in ("recorder", "viewer", "auditor")), keys
    )
    store = Store(server.database_url)
    try:
        with (
            httpx.Client(base_url=server.url, timeout=30) as a,
            TestClient(create_app(Settings(database_url=server.database_url), store)) as b,
        ):
            yield a, b, club
    finally:
        store.dispose()


def test_a_board_in_play_at_one_server_is_hidden_at_the_other_and_the_page_shows_the_results(
    two: tuple[httpx.Client, TestClient, Club], open_page: Any, screenshots: Path
) -> None:
    a, b, club = two
    players = ["Anna", "Ben", "Cleo", "Dan"]
    body = {"name": "Two rooms", "game": "schnapsen", "players": players, "boards": 2, "kind": "tournament"}
    made = a.post("/v1/events", json=body, headers=club.recorder)
    assert made.status_code == 201, made.text
    event_id = made.json()["id"]
    event: dict[str, Any] = b.post(f"/v1/events/{event_id}/rounds/1/start", headers=club.recorder).json()
    one, two_ = EventTable(a, club, event, 1, 1), EventTable(b, club, event, 1, 2)
    one.play_until(random.Random(3), 3)  # both boards finished at table 1 (on the uvicorn process)
    board_one = cards_in(dealt(one, 1))
    for reader in (a, b):
        for path in ("events", "export", "score"):
            shown = reader.get(f"/v1/games/{one.id}/{path}", headers=club.viewer)
            assert shown.status_code == 200 and not board_one & cards_in(shown.json()), (path, shown.text[:300])
        assert reader.get(f"/v1/games/{one.id}/replay", params={"hand": 1}, headers=club.viewer).status_code == 403
        assert reader.get(f"/v1/events/{event_id}/results", headers=club.viewer).json()["travellers"] == []
    rng = random.Random(4)
    latencies = []
    for board in (1, 2):
        while two_.position.deal is None or two_.position.deal.hand <= board:
            two_.step(rng)  # on the in-process server, until the board is finished there too
        done = time.perf_counter()
        results = a.get(f"/v1/events/{event_id}/results", headers=club.viewer).json()
        latencies.append(time.perf_counter() - done)
        assert [t["board"] for t in results["travellers"]] == list(range(1, board + 1))
    print(f"the last table's board compared at the other server {max(latencies) * 1000:.0f} ms after its append")
    assert dealt(one, 1) == dealt(two_, 1)
    for reader in (a, b):
        assert board_one <= cards_in(reader.get(f"/v1/games/{one.id}/events", headers=club.viewer).json())
        assert reader.get(f"/v1/games/{one.id}/replay", params={"hand": 1}, headers=club.viewer).status_code == 200

    standings = [r["name"] for r in results["standings"]["rows"]]
    for name, (width, height) in SIZES.items():
        p = open_page(f"/events/{event_id}", role="viewer", width=width, height=height)
        p.page.wait_for_selector(READY, timeout=15_000)
        assert p.page.locator("#title").text_content() == "Two rooms"
        drawn = p.page.evaluate(
            "() => [...document.querySelectorAll('#standings tr[data-player]')].map((tr) => tr.dataset.player)"
        )
        assert drawn == standings
        assert p.page.locator(".traveller-card").count() == 2
        assert p.page.locator(".round-card tbody tr").count() == 2
        overflow = p.page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name}: the page is {overflow} px wider than the screen"
        assert p.errors == []
        p.page.screenshot(path=str(screenshots / f"event-{name}.png"), full_page=True)
    printed = open_page(f"/events/{event_id}/print", role="viewer", width=794, height=1123)
    printed.page.wait_for_selector('body[data-busy="0"] .print-page', timeout=15_000)
    assert printed.page.locator(".print-page").count() == 2  # round 1, then the standings
    assert printed.page.locator(".print-page").first.locator(".traveller-card").count() == 2
    assert printed.errors == []
    printed.page.screenshot(path=str(screenshots / "event-print.png"), full_page=True)
