"""The replay page reads like a card player wrote it (issue 17), read from the drawn page in Chromium.

Each test finds its moment in the recorded games through the API (a Seven and a Half total in half
points, a Gin knock with two melds and its hand's last frame, a Casino multiple build, a note inside a
retracted range, the longest Gin discard pile), opens the page there and reads what it drew: the text
a person sees, the rows and groups the cards are in, the links of the download menu, the list's rows.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import Page, Server
from tests.browser.games import Recorded

CASINO_VALUES = {"A": 1, "T": 10, "J": 11, "Q": 12, "K": 13}


def halves(value: int) -> str:
    """Half points as a player reads them (the test's own copy: 7 is 3½, 1 is ½)."""
    whole, rest = divmod(abs(value), 2)
    sign = "-" if value < 0 else ""
    return f"{sign}{whole}" if not rest else f"{sign}{whole or ''}½"


def frames_of(server: Server, game: Recorded, hand: int) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = server.get(f"/v1/games/{game.id}/replay", hand=hand)["frames"]
    return frames


def open_at(open_page: Any, game: Recorded, hand: int, seq: int, **extra: Any) -> Page:
    page: Page = open_page(f"/replay/{game.id}#hand={hand}&seq={seq}", **extra)
    page.wait_seq(seq)
    return page


def test_seven_and_a_half_totals_in_half_points(server: Server, open_page: Any) -> None:
    game = server.games["seven-and-a-half"]
    found = None
    for hand in game.hands():
        for frame in frames_of(server, game, hand):
            total = frame["result"].get("total")
            event = frame["event"]
            if event["type"] in ("hit", "stand") and isinstance(total, int) and total % 2:
                found = hand, frame, event["seat"], total
                break
        if found:
            break
    assert found, "the recorded Seven and a Half game has a hit to a half-point total"
    hand, frame, seat, total = found
    page = open_at(open_page, game, hand, frame["seq"])
    p = page.page
    drawn = p.locator(f'#table .seat[data-seat="{seat}"] .subhand .total').all_inner_texts()
    assert halves(total) in drawn and "½" in halves(total), (drawn, total)
    # the event list says the same total (3½, never the raw half points)
    line = p.locator(f'#events li[data-seq="{frame["seq"]}"]').inner_text()
    assert halves(total) in line, line
    assert not re.search(rf"total {total}\b", line), line
    # stakes are chips
    assert "chips" in p.locator("#table .center").inner_text()
    assert page.errors == []


def gin_knock_hand(server: Server, game: Recorded) -> tuple[int, list[dict[str, Any]], dict[str, Any]]:
    """A hand that ended with a knock of two melds or more, its frames, and the knock frame."""
    for hand in game.hands():
        frames = frames_of(server, game, hand)
        knock = next((f for f in frames if f["event"]["type"] == "knock" and len(f["event"]["melds"]) >= 2), None)
        if knock is not None and frames[-1]["event"]["type"] == "lay_off":
            return hand, frames, knock
    raise AssertionError("the recorded Gin game has no knock with two melds")


def test_gin_last_frame_shows_the_roles_of_its_hand(server: Server, open_page: Any) -> None:
    game = server.games["gin-rummy-3"]
    hand, frames, _ = gin_knock_hand(server, game)
    deal = next(f for f in frames if f["event"]["type"] == "deal")
    roles = {deal["result"][role]: role for role in ("box", "captain", "sitter")}
    last = frames[-1]
    page = open_at(open_page, game, hand, last["seq"])
    p = page.page
    for seat, role in roles.items():
        badges = p.locator(f'#table .seat[data-seat="{seat}"] .badge').all_inner_texts()
        assert role in badges, (seat, role, badges)
        assert p.locator(f'#table .roles .role[data-role="{role}"]').get_attribute("data-seat") == str(seat)
    # the score line of the hand names the same knocker's role
    knocker = last["state"]["table"]["knock"]["seat"]
    assert roles[knocker] in ("box", "captain")
    sitter = next(s for s, r in roles.items() if r == "sitter")
    sitter_cards = p.locator(f'#table .seat[data-seat="{sitter}"] .hand [data-card]').count()
    assert sitter_cards == len(last["state"]["seats"][sitter].get("cards", []))
    assert page.errors == []


def test_gin_knock_melds_are_separate_rows(server: Server, open_page: Any) -> None:
    game = server.games["gin-rummy-3"]
    hand, _, knock = gin_knock_hand(server, game)
    page = open_at(open_page, game, hand, knock["seq"])
    p = page.page
    melds = p.locator("#table .knock .meld")
    assert melds.count() == len(knock["event"]["melds"]) >= 2
    tops = []
    for i, meld in enumerate(knock["event"]["melds"]):
        row = melds.nth(i)
        cards = row.locator("[data-card]")
        assert sorted(cards.evaluate_all("(cs) => cs.map((c) => c.dataset.card)")) == sorted(meld)
        box = row.bounding_box()
        assert box is not None
        tops.append(box["y"])
        # a meld's cards lie on one line
        ys = {round(b["y"]) for b in cards.evaluate_all("(cs) => cs.map((c) => c.getBoundingClientRect())")}
        assert len(ys) == 1, ys
    assert tops == sorted(tops) and len(set(tops)) == len(tops), "each meld is its own row"
    assert page.errors == []


def test_gin_lay_off_drawn_on_its_meld(server: Server, open_page: Any) -> None:
    """The first lay-off of the shared Gin example (scripted: a random game may have none)."""
    game = server.examples["gin-rummy-3-9001.json"]
    for hand in game.hands():
        frames = frames_of(server, game, hand)
        lay = next((f for f in frames if f["event"]["type"] == "lay_off" and f["event"]["layoffs"]), None)
        if lay is not None:
            break
    else:
        raise AssertionError("the Gin example has no lay-off")
    page = open_at(open_page, game, hand, lay["seq"])
    p = page.page
    for layoff in lay["event"]["layoffs"]:
        meld = p.locator(f'#table .knock .meld[data-meld="{layoff["meld"] + 1}"]')
        assert meld.locator(f'.card.laid-off[data-card="{layoff["card"]}"]').count() == 1
        assert f"on meld {layoff['meld'] + 1}" in p.locator("#table .layout").inner_text()
    # the event list names the meld each card joins by its cards (as the text history does), in words
    line = p.locator(f'#events li[data-seq="{lay["seq"]}"] .words').inner_text()
    assert "{" not in line and "'" not in line, line
    glyph = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}
    text = lambda card: ("10" if card[0] == "T" else card[0]) + glyph[card[1]]  # noqa: E731
    knock = next(f for f in frames if f["event"]["type"] == "knock")
    for layoff in lay["event"]["layoffs"]:
        joined = knock["event"]["melds"][layoff["meld"]]
        assert text(layoff["card"]) in line and all(text(c) in line for c in joined), line
    assert page.errors == []


def test_gin_pile_is_readable_on_a_phone(server: Server, open_page: Any) -> None:
    game = server.games["gin-rummy-3"]
    best: tuple[int, int, int] = (0, 0, 0)
    for hand in game.hands():
        for frame in frames_of(server, game, hand):
            best = max(best, (len(frame["state"]["table"]["pile"]), hand, frame["seq"]))
    size, hand, seq = best
    assert size >= 15, "the recorded Gin game has a long discard pile"
    page = open_at(open_page, game, hand, seq, width=360, height=800, is_mobile=True, has_touch=True)
    p = page.page
    cards = p.locator("#table .pile .card")
    assert cards.count() == size
    shown = cards.evaluate_all(
        """(cs) => cs.map((c) => {
             const box = c.getBoundingClientRect();
             const rank = c.querySelector('.rank').getBoundingClientRect();
             const suit = c.querySelector('.suit').getBoundingClientRect();
             return {left: box.left, right: box.right, top: box.top, rankRight: rank.right, suitRight: suit.right,
                     rank: c.querySelector('.rank').textContent};
           })"""
    )
    for under, over in itertools.pairwise(shown):
        if round(over["top"]) == round(under["top"]):  # the same row: the next card covers the rest of this one
            assert over["left"] >= max(under["rankRight"], under["suitRight"]), (under, over)
    assert all(c["right"] <= 360 for c in shown), "the pile fits the phone"
    pile = frames_of(server, game, hand)
    codes = next(f for f in pile if f["seq"] == seq)["state"]["table"]["pile"]
    assert [c["rank"] for c in shown] == [("10" if c[0] == "T" else c[0]) for c in codes]
    assert page.errors == []


def casino_sum(cards: list[str]) -> int:
    """What a group of a number build adds up to."""
    return sum(CASINO_VALUES.get(c[0]) or int(c[0]) for c in cards)


def test_casino_multiple_build_with_its_groups_and_owner(server: Server, open_page: Any) -> None:
    game = server.games["casino"]
    built = next(
        (e for e in game.envelopes if e["type"] == "build" and e["result"].get("multiple")),
        None,
    )
    assert built is not None, "the recorded Casino game has a multiple build"
    page = open_at(open_page, game, built["hand"], built["seq"])
    p = page.page
    build_id = built["result"]["build"]
    drawn = p.locator(f'#table .build[data-build="{build_id}"]')
    assert "multiple" in (drawn.get_attribute("class") or "")
    groups = drawn.locator(".build-group")
    assert groups.count() >= 2
    value = built["data"]["value"]
    seen: list[str] = []
    for i in range(groups.count()):
        cards = groups.nth(i).locator("[data-card]").evaluate_all("(cs) => cs.map((c) => c.dataset.card)")
        assert casino_sum(cards) == value, cards
        seen += cards
    assert sorted(seen) == sorted(built["result"]["cards"])
    owner = game.players[built["data"]["seat"]]
    assert drawn.get_attribute("data-owner") == str(built["data"]["seat"])
    assert owner in drawn.locator(".build-head").inner_text()
    assert page.errors == []


def test_last_trick_says_who_played_which_card(server: Server, open_page: Any) -> None:
    game = server.games["schnapsen"]
    hand = game.hands()[0]
    frames = frames_of(server, game, hand)
    i = next(k for k, f in enumerate(frames) if f["event"]["type"] == "play" and "trick_winner" in f["result"])
    lead, follow = frames[i - 1]["event"], frames[i]["event"]
    page = open_at(open_page, game, hand, frames[i]["seq"])
    p = page.page
    trick = p.locator("#table .last-trick figure")
    assert trick.count() == 2
    for k, play in enumerate((lead, follow)):
        assert trick.nth(k).locator("[data-card]").get_attribute("data-card") == play["card"]
        assert game.players[play["seat"]] in trick.nth(k).locator("figcaption").inner_text()
    winner = game.players[frames[i]["result"]["trick_winner"]]
    assert f"won by {winner}" in p.locator("#table .last-trick").inner_text()
    assert page.errors == []


def test_schnapsen_totals_read_to_go(server: Server, open_page: Any) -> None:
    game = server.games["schnapsen"]
    last = game.envelopes[-1]
    page = open_at(open_page, game, last["hand"], last["seq"])
    p = page.page
    score = server.get(f"/v1/games/{game.id}/score")
    for seat in range(len(game.players)):
        head = p.locator(f'#table .seat[data-seat="{seat}"] .points').inner_text()
        assert f"{max(score['totals'][str(seat)], 0)} to go" in head, head
        won = [h["points"][str(seat)] for h in score["hands"]]
        assert "won " + ", ".join(f"+{w}" if w > 0 else str(w) for w in won) in head, head
    assert p.locator("#score tfoot th").inner_text() == "To go"
    assert "total" not in p.locator("#table .seat .points").first.inner_text().lower()
    assert page.errors == []


def test_a_retract_leaves_the_note_in_force(server: Server, open_page: Any) -> None:
    game = server.noted
    retract = next(env for env in game.envelopes if env["type"] == "retract")
    note = next(env for env in game.envelopes if env["type"] == "note")
    claim = next(env for env in game.envelopes if env["type"] == "score_claimed")
    to_seq = retract["data"]["to_seq"]
    assert to_seq < note["seq"] < retract["seq"] and to_seq < claim["seq"] < retract["seq"]
    page = open_at(open_page, game, retract["hand"], retract["seq"])
    p = page.page
    for env in game.envelopes:
        if not to_seq < env["seq"] < retract["seq"]:
            continue
        item = p.locator(f'#events li[data-seq="{env["seq"]}"]')
        classes = item.get_attribute("class") or ""
        if env["type"] in ("note", "score_claimed"):
            assert "retracted" not in classes, env
            assert "in-force" in classes, env
            assert f"still counts: made before the correction at event {retract['seq']}" in item.inner_text()
            assert item.locator(".words").evaluate("(el) => getComputedStyle(el).textDecorationLine") == "none"
        else:
            assert "retracted" in classes, env
            assert item.locator(".words").evaluate("(el) => getComputedStyle(el).textDecorationLine") == "line-through"
    assert note["data"]["text"] in p.locator(f'#events li[data-seq="{note["seq"]}"]').inner_text()
    assert page.errors == []


FORMATS = {"json": ".json", "jsonl": ".jsonl", "text": ".txt", "csv": ".csv", "csv-excel": ".csv"}


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_download_menu(fmt: str, server: Server, open_page: Any) -> None:
    """Each link of the menu downloads the export (csv-excel: H3's variant, UTF-8 with a BOM)."""
    game = server.games["seven-and-a-half"]
    page = open_page(f"/replay/{game.id}")
    page.wait_seq(game.envelopes[-1]["seq"])
    p = page.page
    p.click("#downloads summary")
    link = p.locator(f'#download-list a[data-format="{fmt}"]')
    assert link.is_visible()
    assert link.get_attribute("href") == f"/v1/games/{game.id}/export?format={fmt}"
    with p.expect_download() as info:
        link.click()
    download = info.value
    assert download.suggested_filename.endswith(FORMATS[fmt])
    body = Path(download.path()).read_bytes()
    text = body.decode("utf-8-sig")
    if fmt == "json":
        assert json.loads(text)["id"] == game.id
    elif fmt == "jsonl":
        assert json.loads(text.splitlines()[0])["id"] == game.id
    elif fmt == "text":
        assert all(name in text for name in game.players)
    else:
        rows = list(csv.reader(io.StringIO(text)))
        assert rows[0][0] == "hand" and "player" in rows[0], rows[0]
        column = rows[0].index("player")
        assert {r[column] for r in rows[1:] if len(r) > column} <= set(game.players)
        assert body.startswith(b"\xef\xbb\xbf") == (fmt == "csv-excel")
    assert page.errors == []


def test_back_link_and_print_sheet(server: Server, open_page: Any) -> None:
    game = server.games["casino"]
    page = open_page(f"/replay/{game.id}")
    page.wait_seq(game.envelopes[-1]["seq"])
    p = page.page
    assert p.locator("#back-link").get_attribute("href") == "/replay"
    p.emulate_media(media="print")
    for hidden in (".controls", "#slider", ".side", ".top-actions", ".toolbar", ".help"):
        assert p.locator(hidden).first.is_hidden(), hidden
    assert p.locator("#table").is_visible()
    sheet = p.locator("#print-sheet")
    assert sheet.is_visible()
    score = server.get(f"/v1/games/{game.id}/score")
    rows = sheet.locator(".score-table tbody tr")
    assert rows.count() == len(score["hands"])
    totals = sheet.locator(".score-table tfoot td").all_inner_texts()
    assert totals == [str(score["totals"][str(s)]) for s in range(len(game.players))]
    assert sheet.locator(".lines li").count() == sum(len(h["lines"]) for h in score["hands"])
    p.emulate_media(media="screen")
    assert sheet.is_hidden()
    assert page.errors == []


def listed(page: Page) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = page.page.locator("#games-body tr").evaluate_all(
        """(rows) => rows.map((r) => ({id: r.dataset.game, kind: r.dataset.kind, status: r.dataset.status,
             players: r.children[2].textContent, winner: r.querySelector('.winner').textContent,
             totals: r.querySelector('.totals').textContent}))"""
    )
    return rows


def wait_list(page: Page) -> None:
    page.page.wait_for_selector('body[data-busy="0"] #games-body tr', timeout=10_000)


def every_row(test: str, page: Page) -> None:
    """Wait until the list is loaded and every row passes `test` (a JS function of the row)."""
    page.page.wait_for_function(
        f"""() => document.body.dataset.busy === '0'
               && [...document.querySelectorAll('#games-body tr')].every({test})"""
    )


def test_the_list_filters_and_columns(server: Server, open_page: Any) -> None:
    page = open_page("/replay")
    wait_list(page)
    p = page.page
    everything = listed(page)
    # the winner and score columns
    for row in everything:
        game = server.get(f"/v1/games/{row['id']}")
        if game["winner"] is not None:
            assert row["winner"] == game["players"][game["winner"]]
        for seat, name in enumerate(game["players"]):
            assert name in row["totals"]
            assert str(game["totals"][str(seat)]) in row["totals"] or "to go" in row["totals"]
    # game
    p.select_option("#filter-game", "casino")
    p.click("#filter-apply")
    every_row("(r) => r.dataset.kind === 'casino'", page)
    assert {r["id"] for r in listed(page)} == {server.games["casino"].id}
    assert "game=casino" in p.url
    # player (with the game filter cleared)
    p.select_option("#filter-game", "")
    player = server.games["gin-rummy-3"].players[1]
    p.fill("#filter-player", player)
    p.click("#filter-apply")
    every_row(f"(r) => r.children[2].textContent.split(', ').includes({json.dumps(player)})", page)
    assert all(player in r["players"].split(", ") for r in listed(page))
    # status
    p.fill("#filter-player", "")
    p.select_option("#filter-status", "finished")
    p.click("#filter-apply")
    every_row("(r) => r.dataset.status === 'finished'", page)
    finished = listed(page)
    assert finished and all(r["status"] == "finished" for r in finished)
    assert {r["id"] for r in finished} < {r["id"] for r in everything}
    # date: from tomorrow finds nothing, to tomorrow finds them all
    tomorrow = (datetime.now(UTC) + timedelta(days=1)).date().isoformat()
    p.select_option("#filter-status", "")
    p.fill("#filter-since", tomorrow)
    p.click("#filter-apply")
    p.wait_for_selector("#games-empty:visible")
    assert listed(page) == []
    p.fill("#filter-since", "")
    p.fill("#filter-until", tomorrow)
    p.click("#filter-apply")
    wait_list(page)
    assert {r["id"] for r in listed(page)} == {r["id"] for r in everything}
    assert page.errors == []


def test_the_list_pages(server: Server, open_page: Any) -> None:
    page = open_page("/replay?limit=3")
    wait_list(page)
    p = page.page
    first = [r["id"] for r in listed(page)]
    assert len(first) == 3
    assert p.locator("#page-newer").is_disabled()
    p.click("#page-older")
    p.wait_for_function("(ids) => !ids.includes(document.querySelector('#games-body tr').dataset.game)", arg=first)
    second = [r["id"] for r in listed(page)]
    assert second and not set(second) & set(first)
    api = server.get("/v1/games", limit=6)["games"]
    assert first + second == [g["id"] for g in api][: len(first) + len(second)]
    p.click("#page-newer")
    p.wait_for_function("(id) => document.querySelector('#games-body tr').dataset.game === id", arg=first[0])
    assert [r["id"] for r in listed(page)] == first
    assert page.errors == []
