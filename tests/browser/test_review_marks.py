"""The replay page marks a finished hand's reviewed decisions (?!, ?, ??) as `GET /review` does, with the
review's sentence, and `n` / `p` jump to the next and the previous marked decision; screenshots at phone and
desktop sizes into test-output/screenshots/review-*.png."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from projections.core.registry import rules_for
from projections.core.simulate import play
from tests.browser.conftest import Page, Server
from tests.browser.helpers import game_with

KIND = "gin-rummy-3"
READY = 'body[data-busy="0"] #table[data-seq]'


def test_marks_and_the_next_mistake_key(server: Server, open_page: Callable[..., Page], screenshots: Path) -> None:
    rules = rules_for(KIND)
    players = list(rules.demo_players)
    playout = play(rules, players, {}, rng=random.Random(4), bot=rules.bot, keep_states=True)
    cut = next(i for i, s in enumerate(playout.states) if s.game.hand == 2) + 4  # hand 2 being played
    game_id = game_with(server, KIND, players, list(playout.events[:cut]))
    review = server.get(f"/v1/games/{game_id}/review", hand=1)
    marked = {d["seq"]: d for d in review["decisions"] if d["mark"]}
    assert marked  # this hand has marked decisions (the test would prove nothing without)
    first_seq = min(e["seq"] for e in server.get(f"/v1/games/{game_id}/events", limit=500)["events"] if e["hand"] == 1)

    for name, width, height in (("phone", 390, 844), ("desktop", 1280, 800)):
        page = open_page(f"/replay/{game_id}?review#{first_seq}", width=width, height=height)
        p = page.page
        p.wait_for_selector(READY)
        p.wait_for_selector("#events .mark", timeout=20_000)
        shown = {
            int(li.get_attribute("data-seq") or 0): li.query_selector(".mark").inner_text()  # type: ignore[union-attr]
            for li in p.query_selector_all("#events li.marked")
        }
        assert shown == {seq: d["mark"] for seq, d in marked.items()}
        for seq, d in marked.items():
            assert d["sentence"] in p.inner_text(f'#events li[data-seq="{seq}"]')
        # `n` walks the marked decisions in order, `p` walks back
        p.locator("body").press("Home")
        order = sorted(marked)
        for seq in order:
            p.keyboard.press("n")
            p.wait_for_selector(f'#table[data-seq="{seq}"]')
        p.keyboard.press("p")
        if len(order) > 1:
            p.wait_for_selector(f'#table[data-seq="{order[-2]}"]')
        p.locator(f'#events li[data-seq="{order[0]}"]').scroll_into_view_if_needed()
        p.screenshot(path=str(screenshots / f"review-{name}.png"), full_page=False)
        assert page.errors == []

    # the live hand is not reviewed: no mark on it
    page = open_page(f"/replay/{game_id}?review")
    page.page.wait_for_selector(READY)
    assert page.page.query_selector_all("#events .mark") == []
