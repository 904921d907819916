"""The replay page in Chromium: the table equals the API's state at every step, for every game.

Each test compares what the page draws (every card code in each seat's hand,
the face-down counts, every card on the table, whose turn, the seq) with
`GET /v1/games/{id}/state?at=SEQ[&seat=S]`, so a page that drew the wrong
moment, leaked a hidden card or dropped one would fail.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.conftest import Page, Server
from tests.browser.games import KINDS, Recorded

CARD = re.compile(r"^[A2-9TJQK][CDHS]$")
READY = 'body[data-busy="0"] #table[data-seq]'


def card_codes(value: Any) -> set[str]:
    """Every card code anywhere in a JSON value."""
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, list):
        return set().union(*(card_codes(v) for v in value)) if value else set()
    if isinstance(value, dict):
        return set().union(*(card_codes(v) for v in value.values())) if value else set()
    return set()


def assert_table_is(page: Page, state: dict[str, Any]) -> None:
    """The page draws exactly this state: seq, hands (cards or face-down counts), table cards, turn."""
    shown = page.snapshot()
    assert shown["seq"] == state["seq"]
    assert shown["hand"] == state["hand"]
    assert shown["phase"] == state["phase"]
    assert shown["viewpoint"] == str(state["viewpoint"])
    assert sorted(shown["seats"]) == sorted(str(s["seat"]) for s in state["seats"])
    for seat in state["seats"]:
        drawn = shown["seats"][str(seat["seat"])]
        assert drawn["name"] == seat["name"]
        if "cards" in seat:
            assert sorted(drawn["cards"]) == sorted(seat["cards"]), seat
            assert drawn["backs"] == []
        else:
            assert drawn["cards"] == [], seat
            assert drawn["backs"] == [seat["card_count"]], seat
        assert drawn["toAct"] == (seat["seat"] in state["to_act"] and state["phase"] != "over")
    assert set(shown["center"]) == card_codes(state["table"])


def state_at(server: Server, game: Recorded, seq: int, seat: int | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"at": seq}
    if seat is not None:
        params["seat"] = seat
    state: dict[str, Any] = server.get(f"/v1/games/{game.id}/state", **params)
    return state


def a_middle_hand(game: Recorded) -> tuple[int, list[int]]:
    hands = game.hands()
    hand = hands[1] if len(hands) > 1 else hands[0]
    return hand, game.seqs_of(hand)


@pytest.mark.parametrize("kind", KINDS)
def test_each_game_at_the_table(kind: str, server: Server, open_page: Any, screenshots: Path) -> None:
    game = server.games[kind]
    hand, seqs = a_middle_hand(game)
    start = len(seqs) // 2
    page = open_page(f"/replay/{game.id}#hand={hand}&seq={seqs[start]}")
    p = page.page

    # a deep link opens at its seq
    page.wait_seq(seqs[start])
    assert_table_is(page, state_at(server, game, seqs[start]))
    assert p.locator(f'#events li.current[data-seq="{seqs[start]}"]').count() == 1
    assert p.locator("#title").inner_text() != "Tablebook replay"

    # the buttons
    p.click("#next")
    page.wait_seq(seqs[start + 1])
    assert_table_is(page, state_at(server, game, seqs[start + 1]))
    assert p.url.endswith(f"#{seqs[start + 1]}")  # the address holds the position: #seq, as lichess's
    p.click("#prev")
    p.click("#prev")
    page.wait_seq(seqs[start - 1])
    assert_table_is(page, state_at(server, game, seqs[start - 1]))
    p.click("#last")
    page.wait_seq(seqs[-1])
    assert_table_is(page, state_at(server, game, seqs[-1]))
    p.click("#first")
    page.wait_seq(seqs[0])
    assert_table_is(page, state_at(server, game, seqs[0]))

    # the keys
    p.keyboard.press("ArrowRight")
    p.keyboard.press("ArrowRight")
    page.wait_seq(seqs[2])
    assert_table_is(page, state_at(server, game, seqs[2]))
    p.keyboard.press("ArrowLeft")
    page.wait_seq(seqs[1])
    assert_table_is(page, state_at(server, game, seqs[1]))
    p.keyboard.press("End")
    page.wait_seq(seqs[-1])

    # the slider and the event list
    p.locator("#slider").focus()
    p.keyboard.press("Home")
    page.wait_seq(seqs[0])
    p.click(f'#events button[data-seq="{seqs[start]}"]')
    page.wait_seq(seqs[start])
    assert p.locator("#slider").input_value() == str(start)

    # the seat switch: from a seat, only what that seat saw; back to everything
    middle = state_at(server, game, seqs[start])
    seat = next(s for s in [*middle["to_act"], 0, 1] if "cards" in middle["seats"][s] and middle["seats"][s]["cards"])
    p.select_option("#seat-select", str(seat))
    p.wait_for_selector(f'body[data-busy="0"] #table[data-viewpoint="{seat}"]')
    seen = state_at(server, game, seqs[start], seat)
    assert_table_is(page, seen)
    drawn = page.snapshot()["seats"]
    hidden = 0
    for other, view in drawn.items():
        if int(other) == seat:
            continue
        own = next(s for s in seen["seats"] if s["seat"] == int(other))
        visible_to_seat = set(own.get("cards", [])) - {"??"}
        assert set(view["cards"]) - {"??"} <= visible_to_seat
        hidden += sum(view["backs"]) + view["cards"].count("??")
    assert hidden > 0, "the seat view should hide some other seat's cards here"
    assert f"seat={seat}" in p.url
    p.keyboard.press("ArrowRight")
    page.wait_seq(seqs[start + 1])
    assert_table_is(page, state_at(server, game, seqs[start + 1], seat))
    p.screenshot(path=str(screenshots / f"{kind}-seat-{seat}.png"))
    p.select_option("#seat-select", "all")
    p.wait_for_selector('body[data-busy="0"] #table[data-viewpoint="all"]')
    assert_table_is(page, state_at(server, game, seqs[start + 1]))

    # a score line jumps to its seq
    score = server.get(f"/v1/games/{game.id}/score")
    line_hand, line = next(
        (h, line) for h in score["hands"] for line in h["lines"] if line["events"] and h["hand"] != hand
    )
    seq = line["events"][-1]
    summary = p.locator(f'#score details.score-hand[data-hand="{line_hand["hand"]}"] > summary')
    summary.click()
    p.locator(f'#score button.seq-link[data-seq="{seq}"]').first.click()
    page.wait_seq(seq)
    assert_table_is(page, state_at(server, game, seq))
    assert p.locator(f'#events li.current[data-seq="{seq}"]').count() == 1

    # a picture of the table, and a page without errors
    p.goto(f"{server.url}/replay/{game.id}#hand={hand}&seq={seqs[start]}")
    page.wait_seq(seqs[start])
    p.screenshot(path=str(screenshots / f"{kind}.png"), full_page=True)
    assert page.errors == []


def test_flagged_plays_and_retractions_are_marked(server: Server, open_page: Any) -> None:
    game = server.games["cutthroat-smear"]
    flagged = next(env for env in game.envelopes if "violation" in env)
    retract = next(env for env in game.envelopes if env["type"] == "retract")
    retracted = range(retract["data"]["to_seq"] + 1, retract["seq"])
    page = open_page(f"/replay/{game.id}#hand={flagged['hand']}&seq={flagged['seq']}")
    page.wait_seq(flagged["seq"])
    p = page.page
    line = p.locator(f'#events li[data-seq="{flagged["seq"]}"]')
    assert "violation" in (line.get_attribute("class") or "")
    assert "Against the rules" in line.inner_text() and flagged["violation"]["rule"] not in line.inner_text()
    assert line.locator("details.rule-details code").text_content() == flagged["violation"]["rule"]
    assert p.locator("#events li.violation").count() == sum(
        1 for env in game.envelopes if "violation" in env and env["hand"] == flagged["hand"]
    )
    if retract["hand"] != flagged["hand"]:
        p.select_option("#hand-select", str(retract["hand"]))
        p.wait_for_selector(f'#events li[data-seq="{retract["seq"]}"]')
    for seq in retracted:
        item = p.locator(f'#events li[data-seq="{seq}"]')
        assert "retracted" in (item.get_attribute("class") or "")
        assert f"taken back by the correction at event {retract['seq']}" in item.inner_text()
    assert "retract" in (p.locator(f'#events li[data-seq="{retract["seq"]}"]').get_attribute("class") or "")
    # the table after a retract is the table at its to_seq
    p.click(f'#events button[data-seq="{retract["seq"]}"]')
    page.wait_seq(retract["seq"])
    before = state_at(server, game, retract["data"]["to_seq"])
    after = state_at(server, game, retract["seq"])
    assert_table_is(page, after)
    assert [s.get("cards") for s in after["seats"]] == [s.get("cards") for s in before["seats"]]
    assert page.errors == []


def test_before_the_first_hand_the_gin_cut(server: Server, open_page: Any) -> None:
    game = server.games["gin-rummy-3"]
    cut = game.envelopes[0]
    assert cut["type"] == "cut" and cut["hand"] == 0
    page = open_page(f"/replay/{game.id}#hand=0&seq={cut['seq']}")
    page.wait_seq(cut["seq"])
    assert_table_is(page, state_at(server, game, cut["seq"]))
    assert sorted(page.snapshot()["center"]) == sorted(cut["data"]["cards"])
    page.page.click("#next")
    page.wait_seq(game.seqs_of(1)[0])
    assert_table_is(page, state_at(server, game, game.seqs_of(1)[0]))
    page.page.click("#prev")
    page.wait_seq(cut["seq"])
    assert page.errors == []


def test_live_game_follows_the_stream_unless_stepped_back(server: Server, open_page: Any) -> None:
    game, rest = server.live, server.live_rest
    head = game.envelopes[-1]["seq"]
    page = open_page(f"/replay/{game.id}")
    page.wait_seq(head)
    p = page.page
    p.wait_for_selector('#live-badge[data-mode="on"]')
    server.post(f"/v1/games/{game.id}/events", {"expected_seq": head, "events": rest[:2]})
    page.wait_seq(head + 2)
    assert_table_is(page, state_at(server, game, head + 2))
    assert p.locator(f'#events li.current[data-seq="{head + 2}"]').count() == 1

    p.click("#prev")
    page.wait_seq(head + 1)
    server.post(f"/v1/games/{game.id}/events", {"expected_seq": head + 2, "events": rest[2:4]})
    p.wait_for_selector(f'#events li[data-seq="{head + 4}"]')
    p.wait_for_selector("#live-jump:visible")
    assert page.snapshot()["seq"] == head + 1
    p.click("#live-jump")
    page.wait_seq(head + 4)
    assert_table_is(page, state_at(server, game, head + 4))
    assert page.errors == []


def test_viewer_key_sees_a_live_hand_from_above_only(server: Server, open_page: Any) -> None:
    game = server.shared
    live_hand = game.envelopes[-1]["hand"]
    head = game.envelopes[-1]["seq"]
    page = open_page(f"/replay/{game.id}", role="viewer")
    page.wait_seq(head)
    p = page.page
    assert page.snapshot()["viewpoint"] == "public"
    assert p.locator("#viewnote").is_visible()
    for view in page.snapshot()["seats"].values():
        assert [c for c in view["cards"] if c != "??"] == []
        assert sum(view["backs"]) > 0
    p.select_option("#seat-select", "0")
    page.wait_seq(head)
    p.wait_for_selector('body[data-busy="0"]')
    for view in page.snapshot()["seats"].values():
        assert [c for c in view["cards"] if c != "??"] == []
    # a finished hand: everything, from above
    p.select_option("#seat-select", "all")
    p.select_option("#hand-select", str(live_hand - 1))
    p.wait_for_selector(f'body[data-busy="0"] #table[data-hand="{live_hand - 1}"]')
    shown = page.snapshot()
    assert shown["viewpoint"] == "all"
    assert_table_is(page, state_at(server, game, shown["seq"]))
    assert page.errors == []


def test_share_link_shows_finished_hands_only(server: Server, open_page: Any, screenshots: Path) -> None:
    game = server.shared
    live_hand = game.envelopes[-1]["hand"]
    last_finished = game.seqs_of(live_hand - 1)[-1]
    link = server.post(f"/v1/games/{game.id}/share")
    assert link["path"] == f"/replay/{game.id}#share={link['token']}"

    page = open_page(link["path"], role=None)
    requests: list[str] = []
    page.page.on("request", lambda request: requests.append(request.url))
    page.wait_seq(last_finished)
    p = page.page
    assert page.snapshot()["hand"] == live_hand - 1
    assert p.locator(f'#hand-select option[value="{live_hand}"]').is_disabled()
    assert p.locator("#next").is_disabled()
    assert "Share link" in p.locator("#access").inner_text()
    assert f"share={link['token']}" in p.url
    p.click("#first")
    page.wait_seq(game.seqs_of(live_hand - 1)[0])
    assert all(f"hand={live_hand}" not in url and "/state" not in url for url in requests)
    p.screenshot(path=str(screenshots / "share-link.png"))
    assert page.errors == []

    # revoked: the same link no longer opens
    response = httpx.delete(
        f"{server.url}/v1/games/{game.id}/share/{link['id']}", headers=server.headers("recorder"), timeout=10
    )
    assert response.status_code == 200
    revoked = open_page(link["path"], role=None)
    revoked.page.wait_for_selector("#problem .problem")
    assert "revoked" in revoked.page.locator("#problem").inner_text()
    assert revoked.page.locator("#main").is_hidden()


def test_a_share_link_shows_a_hand_once_it_is_over(server: Server, open_page: Any) -> None:
    game, rest = server.shared_live, server.shared_live_rest
    head = game.envelopes[-1]["seq"]
    live_hand = game.envelopes[-1]["hand"]
    link = server.post(f"/v1/games/{game.id}/share")
    page = open_page(link["path"], role=None)
    page.wait_seq(game.seqs_of(live_hand - 1)[-1])
    p = page.page
    p.wait_for_selector('#live-badge[data-mode="on"]')
    # events of the live hand arrive withheld: the page stays on the finished hand
    first = server.post(f"/v1/games/{game.id}/events", {"expected_seq": head, "events": rest[:1]})["events"]
    assert not first[0]["result"].get("hand_ended")
    seq = first[-1]["seq"]
    p.wait_for_timeout(600)
    assert page.snapshot()["hand"] == live_hand - 1
    ended = None
    for event in rest[1:]:
        stored = server.post(f"/v1/games/{game.id}/events", {"expected_seq": seq, "events": [event]})["events"]
        seq = stored[-1]["seq"]
        if stored[-1]["result"].get("hand_ended"):
            ended = seq
            break
    assert ended is not None
    page.wait_seq(ended)
    assert page.snapshot()["hand"] == live_hand
    assert_table_is(page, state_at(server, game, ended))
    assert page.errors == []


def test_the_page_asks_for_a_key_once(server: Server, open_page: Any, screenshots: Path) -> None:
    game = server.games["schnapsen"]
    page = open_page(f"/replay/{game.id}", role=None)
    p = page.page
    p.wait_for_selector("#key-dialog[open]")
    p.fill("#key-input", "tb_nope_nope")
    p.click("#key-submit")
    p.wait_for_selector("#key-error:visible")
    assert "This key is not known here" in p.locator("#key-error").inner_text()
    p.screenshot(path=str(screenshots / "key-prompt.png"))
    p.fill("#key-input", server.keys["viewer"])
    p.click("#key-submit")
    page.wait_seq(game.envelopes[-1]["seq"])
    assert p.evaluate("() => sessionStorage.getItem('tablebook.key')") == server.keys["viewer"]
    p.reload()
    page.wait_seq(game.envelopes[-1]["seq"])
    assert p.locator("#key-dialog[open]").count() == 0


def test_the_share_dialog_makes_and_revokes_links(server: Server, open_page: Any, screenshots: Path) -> None:
    game = server.games["casino"]
    page = open_page(f"/replay/{game.id}")
    page.wait_seq(game.envelopes[-1]["seq"])
    p = page.page
    p.click("#share-button")
    p.click("#share-create")
    p.wait_for_selector("#share-url")
    url = p.locator("#share-url").input_value()
    assert url.startswith(f"{server.url}/replay/{game.id}#share=ts_")
    listed = server.get(f"/v1/games/{game.id}/share")["shares"]
    assert len(listed) == 1 and not listed[0]["revoked"]
    p.screenshot(path=str(screenshots / "share-dialog.png"))
    share_id = listed[0]["id"]
    p.click(f'#share-list button[aria-label="Revoke link {share_id}"]')
    p.wait_for_selector("#share-list li:has-text('revoked')")
    assert server.get(f"/v1/games/{game.id}/share")["shares"][0]["revoked"]
    p.click("#share-close")
    assert page.errors == []


def test_the_games_list(server: Server, open_page: Any) -> None:
    # one page of 200 (other tests of the session add games to the server: the list pages by 25)
    page = open_page("/replay?limit=200")
    page.page.wait_for_selector("#games-body tr")
    links = page.page.locator("#games-body a")
    hrefs = {links.nth(i).get_attribute("href") for i in range(links.count())}
    assert {f"/replay/{g.id}" for g in server.games.values()} <= hrefs
    assert page.errors == []


def test_phone_layout_and_accessibility(server: Server, open_page: Any, screenshots: Path) -> None:
    game = server.games["seven-and-a-half"]
    hand, seqs = a_middle_hand(game)
    page = open_page(
        f"/replay/{game.id}#hand={hand}&seq={seqs[len(seqs) // 2]}",
        width=390,
        height=844,
        is_mobile=True,
        has_touch=True,
    )
    page.wait_seq(seqs[len(seqs) // 2])
    p = page.page
    width = p.evaluate("() => Math.max(document.scrollingElement.scrollWidth, window.innerWidth)")
    assert width <= 390, "the page is wider than the phone"
    for name in ("#first", "#prev", "#next", "#last"):
        box = p.locator(name).bounding_box()
        assert box is not None and box["height"] >= 44 and box["width"] >= 44, name
        assert p.locator(name).get_attribute("aria-label")
    unlabeled = p.evaluate(
        """() => [...document.querySelectorAll('button')].filter((b) => b.offsetParent !== null
             && !(b.getAttribute('aria-label') || b.textContent.trim())).length"""
    )
    assert unlabeled == 0
    cards = p.evaluate(
        "() => [...document.querySelectorAll('#table .card')].map((c) => c.closest('[aria-label]') ? 1 : 0)"
    )
    assert cards and all(cards)
    assert p.locator("label[for=slider]").count() == 1
    p.tap("#next")
    page.wait_seq(seqs[len(seqs) // 2 + 1])
    p.screenshot(path=str(screenshots / "seven-and-a-half-phone.png"), full_page=True)
    assert page.errors == []
