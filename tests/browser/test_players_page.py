"""The player page and the standings page (issue 20), read off the drawn page in Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.browser.conftest import Server

READY = 'body[data-busy="0"] #content:not([hidden])'


def _rated_player(server: Server) -> dict[str, Any]:
    """The page data of the player with the longest rating history in the club."""
    pages = [server.get(f"/v1/players/{p['id']}") for p in server.get("/v1/players")["players"]]
    best: dict[str, Any] = max(pages, key=lambda page: len(page["history"]))
    assert best["history"], "no rated result in the browser club"
    return best


def test_the_player_page_draws_the_rating_history_and_links_the_games(
    server: Server, open_page: Any, screenshots: Path
) -> None:
    data = _rated_player(server)
    player = data["player"]
    p = open_page(f"/players/{player['id']}", role="viewer")
    p.page.wait_for_selector(READY, timeout=15_000)
    assert p.page.locator("#title").text_content() == player["name"]
    assert p.page.locator("#key-form").is_hidden()  # the key was given: no form to type it in
    drawn = p.page.evaluate(
        """() => [...document.querySelectorAll('svg.chart')].map((svg) => ({
             pool: svg.dataset.pool, points: Number(svg.dataset.points),
             dots: [...svg.querySelectorAll('circle.dot')].map((c) => ({game: c.dataset.game, mu: Number(c.dataset.mu),
                                                                         tip: c.querySelector('title').textContent})),
             line: svg.querySelector('polyline').getAttribute('points').split(' ').length}))"""
    )
    pools: dict[str, list[dict[str, Any]]] = {}
    for change in data["history"]:
        pools.setdefault(change["pool"], []).append(change)
    assert {chart["pool"] for chart in drawn} == set(pools)
    for chart in drawn:
        changes = pools[chart["pool"]]
        assert chart["points"] == chart["line"] == len(changes) + 1  # the start, then one point a result
        assert [d["game"] for d in chart["dots"]] == [c["game_id"] for c in changes]
        assert [d["mu"] for d in chart["dots"]] == [c["after"]["mu"] for c in changes]
        last = changes[-1]
        assert chart["dots"][-1]["tip"].endswith(
            f"{last['before']['mu']:.1f} → {last['after']['mu']:.1f} ({last['change']:+.1f})"
        )
    ratings = p.page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('#ratings tr[data-pool]')].map((tr) =>
             [tr.dataset.pool, tr.children[1].textContent]))"""
    )
    assert ratings == {  # in words: "rating 27.4, provisional"
        pool: f"{r['mu']:.1f}" + (", provisional" if r["provisional"] else "") for pool, r in data["ratings"].items()
    }
    links = p.page.evaluate(
        "() => [...document.querySelectorAll('#games tr[data-game] td:first-child a')]"
        ".map((a) => a.getAttribute('href'))"
    )
    assert links == [f"/replay/{g['id']}" for g in data["games"]]
    stats = p.page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('#stats ul[data-kind]')].map((ul) =>
             [ul.dataset.kind, Object.fromEntries([...ul.querySelectorAll('li[data-stat]')].map((li) =>
               [li.dataset.stat, Number(li.querySelector('.value').textContent)]))]))"""
    )
    assert stats == data["statistics"]
    assert p.errors == []
    p.page.screenshot(path=str(screenshots / "player-page.png"), full_page=True)
    p.page.locator("#games tr[data-game] td:first-child a").first.click()
    p.page.wait_for_url(f"**/replay/{data['games'][0]['id']}")


def test_the_standings_page_lists_the_leaderboard_in_order(server: Server, open_page: Any, screenshots: Path) -> None:
    table = server.get("/v1/standings", game="schnapsen")
    expected = [
        (r["name"], f"{r['rating']['mu']:.1f}" + (", provisional" if r["rating"]["provisional"] else ""), r["place"])
        for r in table["pools"]["schnapsen"]["standings"]
    ]
    assert expected, "no Schnapsen standings in the browser club"
    p = open_page("/standings?game=schnapsen", role="viewer")
    p.page.wait_for_selector(READY, timeout=15_000)
    drawn = p.page.evaluate(
        """() => [...document.querySelectorAll('table[data-pool="schnapsen"] tr[data-player]')].map((tr) =>
             [tr.children[1].textContent, tr.children[5].textContent, Number(tr.children[0].textContent)])"""
    )
    assert [tuple(row) for row in drawn] == expected
    assert p.page.locator("#game").input_value() == "schnapsen"
    assert p.page.locator("#key-form").is_hidden()
    assert p.errors == []
    p.page.screenshot(path=str(screenshots / "standings-page.png"), full_page=True)
    p.page.locator('table[data-pool="schnapsen"] tr[data-player] a').first.click()
    p.page.wait_for_selector(READY, timeout=15_000)
    assert p.page.locator("#title").text_content() == expected[0][0]
    # a range with no games: the page says so
    later = open_page("/standings?game=schnapsen&since=2999-01-01", role="viewer")
    later.page.wait_for_selector(READY, timeout=15_000)
    assert "No rated results" in later.page.locator("#pools").text_content()
    # without a key the page asks for one, and shows the table once it is typed
    keyless = open_page("/standings?game=schnapsen", role=None)
    keyless.page.wait_for_selector("#key-form:not([hidden])", timeout=15_000)
    keyless.page.fill("#key-input", server.keys["viewer"])
    keyless.page.click("#key-form button")
    keyless.page.wait_for_selector(READY, timeout=15_000)
    assert keyless.page.locator('table[data-pool="schnapsen"] tr[data-player]').count() == len(expected)
