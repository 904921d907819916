"""The replay page of a server-dealt game: each hand's commitment, and a "verified" mark once it is revealed."""

from __future__ import annotations

import random
from typing import Any

import httpx

from tests.api.server_tables import Table
from tests.browser.conftest import Server
from tests.conftest import Club


def test_the_replay_page_marks_each_revealed_hand_verified(server: Server, open_page: Any) -> None:
    headers = {role: server.headers(role) for role in ("recorder", "viewer", "auditor")}
    club = Club("browser club", headers["recorder"], headers["viewer"], headers["auditor"], server.keys)
    with httpx.Client(base_url=server.url, timeout=30) as client:
        table = Table(client, club, "schnapsen")  # type: ignore[arg-type]
        table.play_to_hand(random.Random(1), 2)
    deals = server.get(f"/v1/games/{table.id}/deals")
    revealed = [h for h in deals["hands"] if h["revealed"]]
    assert revealed and all(h["verified"] for h in revealed)
    page = open_page(f"/replay/{table.id}")
    page.page.wait_for_selector("#deals li", timeout=10_000)
    items = page.page.locator("#deals li")
    assert items.count() == len(deals["hands"])
    for i, hand in enumerate(deals["hands"]):
        text = items.nth(i).inner_text()
        assert f"Hand {hand['hand']}" in text and hand["commitment"][:16] in text
        assert ("✓ verified" in text) == bool(hand["verified"]), text
    assert "not revealed yet" in items.nth(len(deals["hands"]) - 1).inner_text()
    assert page.errors == []
