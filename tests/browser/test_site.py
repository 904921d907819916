"""The club's site in Chromium: the home page, one header on every page, the players, the standings, the
errors said in plain words with a way back, the replay page's keys and address, the embeddable view, the
score-sheet CSV, and no developer's words on a page a player reads (docs/site.md).

Screenshots of every page of the site at 390 and 1366 px wide go to test-output/screenshots/site-*.png.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.conftest import Page, Server
from tests.browser.helpers import developer_words, shown_text

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}
#: the header's links, the same on every page
NAV = [
    ("/", "Home"),
    ("/replay", "Games"),
    ("/record/", "Record"),
    ("/events", "Events"),
    ("/players", "Players"),
    ("/standings", "Standings"),
    ("/docs", "API"),
]


def nav_of(page: Page) -> list[tuple[str, str]]:
    links = page.page.eval_on_selector_all(
        ".site-head .site-nav a", "as => as.map(a => [a.getAttribute('href'), a.textContent.trim()])"
    )
    return [(href, label) for href, label in links]


def current_nav(page: Page) -> str | None:
    found = page.page.eval_on_selector_all(".site-nav a[aria-current=page]", "as => as.map(a => a.textContent.trim())")
    return found[0] if found else None


def idle(page: Page) -> None:
    page.page.wait_for_selector('body[data-busy="0"]', timeout=15_000)


# --------------------------------------------------------------------------- the home page and the header


def test_the_home_page_is_the_clubs_front_door(server: Server, open_page: Any) -> None:
    page = open_page("/", width=PHONE["width"], height=PHONE["height"])
    idle(page)
    p = page.page
    assert nav_of(page) == NAV and current_nav(page) == "Home"
    # live games: each one goes on recording on the pad, or is watched on the replay page
    page_of_live = server.get("/v1/games", status="live", limit=6)
    live = page_of_live["games"]
    assert live
    cards = p.locator("#live-list .game-card")
    assert cards.count() == len(live)
    for game in live:
        card = p.locator(f'#live-list .game-card[data-game="{game["id"]}"]')
        assert card.locator("a.resume").get_attribute("href") == f"/record/{game['id']}"
        assert card.locator("a.watch").get_attribute("href") == f"/replay/{game['id']}"
    # more live games than the page shows: a link to all of them
    assert p.locator("#live-more a").is_visible() == bool(page_of_live["next_cursor"])
    assert p.get_attribute("#live-more a", "href") == "/replay?status=live"
    finished = server.get("/v1/games", status="finished", limit=6)["games"]
    assert p.locator("#recent-list .game-card").count() == len(finished)
    winner = next(g for g in finished if g["winner"] is not None)
    recent = p.locator(f'#recent-list .game-card[data-game="{winner["id"]}"]')
    assert f"{winner['players'][winner['winner']]} won" in recent.inner_text()
    assert recent.locator("a.replay").get_attribute("href") == f"/replay/{winner['id']}"
    # the buttons: a new game, and the live games to go on with; links to players, standings, API docs
    assert p.get_attribute("#new-game", "href") == "/record/"
    assert p.locator("#resume").is_visible()
    for link, href in (("#link-players", "/players"), ("#link-standings", "/standings"), ("#link-api", "/docs")):
        assert p.get_attribute(link, "href") == href
    # a player's name is a link to their page
    assert p.locator(f'#live-list a[href="/players/{live[0]["players"][0]}"]').count() >= 1
    # resume on a phone: the first button a thumb reaches, above the fold
    box = p.locator("#resume").bounding_box()
    assert box is not None and box["y"] + box["height"] < PHONE["height"]
    p.click("#new-game")
    p.wait_for_url(re.compile(r"/record/$"))
    assert page.errors == []


def test_the_root_answers_json_only_when_asked(server: Server) -> None:
    html = httpx.get(server.url + "/", headers={"Accept": "text/html"}, timeout=10)
    assert html.status_code == 200 and html.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in html.headers["content-security-policy"]
    plain = httpx.get(server.url + "/", timeout=10)  # no preference: the page
    assert plain.headers["content-type"].startswith("text/html")
    wanted = httpx.get(server.url + "/", headers={"Accept": "application/json"}, timeout=10)
    assert wanted.headers["content-type"].startswith("application/json")
    assert wanted.json() == {"service": "tablebook", "docs": "/docs", "api": "/v1/games"}


def test_without_a_key_the_home_page_asks_for_one_and_keeps_it(server: Server, open_page: Any) -> None:
    page = open_page("/", role=None)
    p = page.page
    p.wait_for_selector("#key-form")
    assert "secretary" in p.locator("#key-box").inner_text()
    assert p.locator("#new-game").is_visible()  # recording is one tap away even so (the pad asks too)
    p.fill("#key-input", server.keys["viewer"])
    p.click("#key-submit")
    p.wait_for_selector("#lists:not([hidden]) #live-list .game-card")
    assert p.evaluate("sessionStorage.getItem('tablebook.key')") == server.keys["viewer"]
    assert page.errors == []


def test_every_page_has_the_same_header(server: Server, open_page: Any) -> None:
    game = server.games["schnapsen"]
    player = server.get("/v1/players")["players"][0]
    pages = {
        "/": "Home",
        "/replay": "Games",
        f"/replay/{game.id}": "Games",
        "/record/": "Record",
        f"/record/{server.live.id}": "Record",
        "/players": "Players",
        f"/players/{player['id']}": "Players",
        "/standings": "Standings",
        "/replay/not.a.game": None,  # the error page: the header, no page current
        "/nothing-here": None,
    }
    for path, current in pages.items():
        page = open_page(path)
        page.page.wait_for_selector(".site-head .site-nav a")
        assert nav_of(page) == NAV, path
        assert current_nav(page) == current, path
    # every link of the header leads to a page that is there
    for href, _ in NAV:
        response = httpx.get(server.url + href, headers={"Accept": "text/html"}, timeout=10)
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/html"), href


def test_players_lists_the_clubs_players(server: Server, open_page: Any) -> None:
    page = open_page("/players", width=PHONE["width"], height=PHONE["height"])
    idle(page)
    p = page.page
    players = server.get("/v1/players")["players"]
    shown = p.eval_on_selector_all("#players li", "ls => ls.map(l => l.dataset.player)")
    assert shown == [player["id"] for player in players]
    p.fill("#player-filter", players[0]["name"][:3])
    assert p.locator("#players li").count() >= 1
    assert all(
        players[0]["name"][:3].lower() in t.lower()
        for t in p.eval_on_selector_all("#players li strong", "s => s.map(x => x.textContent)")
    )
    p.fill("#player-filter", "")
    p.click(f'#players li[data-player="{players[0]["id"]}"] a')
    p.wait_for_url(re.compile(rf"/players/{players[0]['id']}$"))
    idle(page)
    assert p.text_content("#title") == players[0]["name"]
    assert page.errors == []


# --------------------------------------------------------------------------- errors in plain words, with a way back


def test_an_unknown_key_is_said_plainly_on_every_page(server: Server, open_page: Any) -> None:
    bad = "tb_000000000000_notakeyatall"
    for path in (
        "/",
        "/players",
        "/standings",
        f"/replay/{server.games['casino'].id}",
        f"/record/{server.live.id}",
        "/record/",
    ):
        page = open_page(path, role=None)
        p = page.page
        p.evaluate(f"sessionStorage.setItem('tablebook.key', {json.dumps(bad)})")
        p.reload()
        p.wait_for_selector("#key-error:visible", timeout=15_000)
        said = p.locator("#key-error").inner_text()
        assert "This key is not known here" in said and "secretary" in said, (path, said)
        assert "unknown API key" not in said and "network" not in said, (path, said)


def test_a_wrong_role_is_said_plainly(server: Server, open_page: Any) -> None:
    page = open_page("/record/", role="viewer")
    p = page.page
    p.wait_for_selector("#new-options .option")
    p.fill("#player-0", "Anna")
    p.fill("#player-1", "Ben")
    p.click("#new-submit")
    p.wait_for_selector("#new-error:visible")
    said = p.text_content("#new-error") or ""
    assert said.startswith("A viewer key cannot do that") and "recorder key" in said, said
    assert "it needs a" not in said


def test_a_missing_game_says_so_with_a_way_back(server: Server, open_page: Any) -> None:
    page = open_page("/replay/gnothing000", width=PHONE["width"], height=PHONE["height"])
    p = page.page
    p.wait_for_selector("#problem .problem")
    assert p.locator("#problem h2").inner_text() == "No game “gnothing000” in your club"
    p.click('#problem a:has-text("The club\'s games")')
    p.wait_for_url(re.compile(r"/replay$"))
    p.wait_for_selector("#games-body tr")
    # an id that cannot be a game: the server's own page says so, with the header and the way back
    response = httpx.get(server.url + "/replay/not.a.game", headers={"Accept": "text/html"}, timeout=10)
    assert response.status_code == 404 and response.headers["content-type"].startswith("text/html")
    assert (
        httpx.get(server.url + "/replay/not.a.game", timeout=10).headers["content-type"].startswith("application/json")
    )
    page = open_page("/replay/not.a.game")
    assert page.page.text_content("#problem-title") == "No game “not.a.game” here"
    page.page.click("text=The club's games")
    page.page.wait_for_url(re.compile(r"/replay$"))
    # the pad of a game that is not there
    pad = open_page("/record/gnothing000")
    pad.page.wait_for_selector("#alert .problem")
    assert "No such game in your club." in pad.page.locator("#alert h2").inner_text()
    assert pad.page.locator("#alert a[href='/replay']").count() == 1


def test_a_bad_filter_says_which_and_clears(server: Server, open_page: Any) -> None:
    page = open_page("/standings?game=schnapsen&since=2026-99-99")
    p = page.page
    p.wait_for_selector("#problem .problem")
    said = p.locator("#problem").inner_text()
    assert "A filter is not right" in said and "“From”" in said and "2026-12-01" in said, said
    assert "Input should be" not in said  # the validator's words stay behind "What the server said"
    p.click("#problem a:has-text('Clear the filters')")
    p.wait_for_url(re.compile(r"/standings\?game=schnapsen$"))
    p.wait_for_selector("#content:not([hidden]) #pools table")
    # the games' list reads its filters from the form: one it does not know is left out, never a dead end
    page = open_page("/replay?game=nosuchgame&player=Anna")
    page.page.wait_for_selector("#games-body tr")
    assert page.page.input_value("#filter-player") == "Anna" and page.page.locator("#problem").is_hidden()


def test_a_server_that_does_not_answer_is_said_plainly_and_tried_again(server: Server, open_page: Any) -> None:
    page = open_page("/", role="recorder")
    p = page.page
    idle(page)
    p.route("**/v1/**", lambda route: route.abort())
    p.reload()
    p.wait_for_selector("#problem .problem")
    assert p.locator("#problem h2").inner_text() == "The server does not answer"
    p.unroute("**/v1/**")
    p.click("#problem button[data-action='retry']")
    p.wait_for_selector("#lists:not([hidden]) #live-list .game-card")
    assert p.locator("#problem").is_hidden()
    # the replay page and the standings say the same
    for path in (f"/replay/{server.games['casino'].id}", "/standings"):
        other = open_page(path)
        other.page.route("**/v1/**", lambda route: route.abort())
        other.page.reload()
        other.page.wait_for_selector("#problem .problem")
        assert other.page.locator("#problem h2").inner_text() == "The server does not answer", path


# --------------------------------------------------------------------------- standings and statistics


def test_the_standings_say_who_is_leading_by_what_they_show(server: Server, open_page: Any) -> None:
    for kind in ("schnapsen", "casino", "cutthroat-smear"):
        page = open_page(f"/standings?game={kind}", width=PHONE["width"], height=PHONE["height"])
        p = page.page
        p.wait_for_selector("#content:not([hidden]) #pools table")
        table = server.get("/v1/standings", game=kind)
        for pool, data in table["pools"].items():
            rows = data["standings"]
            keys = [(-r["wins"], -r["points"], -r["rating"]["mu"], r["name"].casefold()) for r in rows]
            assert keys == sorted(keys), (kind, rows)
            shown = p.eval_on_selector_all(
                f'table[data-pool="{pool}"] tbody tr',
                "rs => rs.map(r => [...r.children].map(c => c.textContent.trim()))",
            )
            assert [row[1] for row in shown] == [r["name"] for r in rows]
            for row, r in zip(shown, rows, strict=True):
                assert row[0] == str(r["place"]) and row[2] == str(r["wins"]) and row[3] == str(r["games"])
                assert row[4] == str(r["points"])
                assert row[5] == f"{r['rating']['mu']:.1f}" + (", provisional" if r["rating"]["provisional"] else "")
            # a finished game's winner stands above the loser who won nothing
            winners = [r for r in rows if r["wins"]]
            losers = [r for r in rows if not r["wins"]]
            if winners and losers:
                assert max(r["place"] for r in winners) < min(r["place"] for r in losers)
        note = p.text_content("#order-note") or ""
        assert "Ordered by games won" in note and "then by name" in note
        assert p.get_attribute("#order-note a", "href") == "#how-ratings-work"
        text = shown_text(page)
        assert "openskill" not in text and "BradleyTerry" not in text and "mu" not in text.split() and "σ" not in text
        assert p.locator("#how-ratings-work").is_visible()
        assert not developer_words(text), developer_words(text)


def test_schnapsen_statistics_count_the_game_points_won(server: Server, open_page: Any) -> None:
    game = server.games["schnapsen"]
    meta = server.get(f"/v1/games/{game.id}")
    assert meta["status"] == "finished"
    winner = meta["players"][meta["winner"]]
    page = open_page(f"/players/{winner}")
    idle(page)
    p = page.page
    played = server.get("/v1/games", player=winner, game="schnapsen", status="finished", limit=200)["games"]
    won = sum(7 - g["totals"][str(g["players"].index(winner))] for g in played)
    points = p.locator('ul[data-kind="schnapsen"] li[data-stat="points"]')
    assert points.locator(".value").inner_text() == str(won) and won > 0
    assert points.locator(".label").inner_text() == "game points won"
    wins = p.locator('ul[data-kind="schnapsen"] li[data-stat="wins"] .value').inner_text()
    assert int(wins) == sum(1 for g in played if g["players"][g["winner"]] == winner)
    profile = server.get(f"/v1/players/{winner}")
    assert profile["statistics"]["schnapsen"]["points"] == won
    assert not developer_words(shown_text(page)), developer_words(shown_text(page))
    assert page.errors == []


# --------------------------------------------------------------------------- the replay page: keys and the address


def test_the_replay_keys_and_the_address_follow_lichess(server: Server, open_page: Any) -> None:
    game = server.games["schnapsen"]
    seqs = game.seqs_of(2)
    page = open_page(f"/replay/{game.id}#{seqs[3]}")
    page.wait_seq(seqs[3])
    p = page.page
    assert p.url.endswith(f"#{seqs[3]}")
    p.keyboard.press("ArrowRight")
    page.wait_seq(seqs[4])
    assert p.url.endswith(f"#{seqs[4]}")
    p.keyboard.press("ArrowLeft")
    page.wait_seq(seqs[3])
    p.keyboard.press("End")
    page.wait_seq(seqs[-1])
    p.keyboard.press("Home")
    page.wait_seq(seqs[0])
    bottom = p.get_attribute("#table .seat.pos-b", "data-seat")
    p.keyboard.press("f")
    p.wait_for_function(f"() => document.querySelector('#table .seat.pos-b').dataset.seat !== '{bottom}'")
    p.keyboard.press("f")
    p.wait_for_function(f"() => document.querySelector('#table .seat.pos-b').dataset.seat === '{bottom}'")
    p.keyboard.press("?")
    p.wait_for_selector("#keys-dialog[open]")
    keys = p.locator("#keys-dialog").inner_text()
    assert all(k in keys for k in ("←", "→", "Home", "End", "f", "?"))
    p.keyboard.press("Escape")
    p.wait_for_selector("#keys-dialog:not([open])", state="attached")
    # a link opens at its event; the older form of the address still does
    other = open_page(f"/replay/{game.id}#{seqs[5]}")
    other.wait_seq(seqs[5])
    older = open_page(f"/replay/{game.id}#hand=2&seq={seqs[6]}")
    older.wait_seq(seqs[6])
    assert older.page.url.endswith(f"#{seqs[6]}")
    assert page.errors == []


# --------------------------------------------------------------------------- the embeddable view


HOST_PAGE = """<!doctype html><html><body>
<h1>The club's news</h1>
<iframe id="game" src="{src}" title="A game" style="width: 100%; border: 0" height="150"></iframe>
<script>
window.heights = [];
window.addEventListener("message", (event) => {{
  if (event.data && event.data.type === "tablebook:height") {{
    window.heights.push(event.data.height);
    document.getElementById("game").height = String(event.data.height);
  }}
}});
</script></body></html>"""


class HostSite:
    """Another site (`localhost`, not the server's 127.0.0.1: another origin and another site) serving one page."""

    def __init__(self, body: str) -> None:
        import http.server
        import threading

        page = body.encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://localhost:{self.httpd.server_address[1]}/news"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def host_site(body: str) -> HostSite:
    return HostSite(body)


def test_the_embeddable_view_sizes_itself_in_another_sites_page(server: Server, browser: Any) -> None:
    game = server.shared
    live_hand = game.envelopes[-1]["hand"]
    finished = game.seqs_of(live_hand - 1)
    link = server.post(f"/v1/games/{game.id}/share")
    src = f"{server.url}/embed/{game.id}#{finished[2]}&share={link['token']}"
    headers = httpx.get(f"{server.url}/embed/{game.id}", timeout=10).headers
    assert "frame-ancestors *" in headers["content-security-policy"]
    assert "script-src 'self'" in headers["content-security-policy"]
    assert (
        "frame-ancestors 'none'"
        in httpx.get(f"{server.url}/replay/{game.id}", timeout=10).headers["content-security-policy"]
    )
    context = browser.new_context(viewport=PHONE)
    host = host_site(HOST_PAGE.format(src=src))
    try:
        page = context.new_page()
        page.goto(host.url)
        frame = page.frame_locator("#game")
        frame.locator(f'#table[data-seq="{finished[2]}"]').wait_for()
        page.wait_for_function(
            "() => window.heights.length > 0 && Number(document.getElementById('game').height) > 300"
        )
        height = page.evaluate("() => window.heights[window.heights.length - 1]")
        inner = page.frames[1].evaluate("() => document.documentElement.getBoundingClientRect().height")
        assert abs(height - inner) <= 2
        # it steps, keeps the position in its address, and opens the replay page at it
        frame.locator("#next").click()
        frame.locator(f'#table[data-seq="{finished[3]}"]').wait_for()
        assert page.frames[1].url.endswith(f"#{finished[3]}&share={link['token']}")
        assert (
            frame.locator("#open-link").get_attribute("href")
            == f"/replay/{game.id}#{finished[3]}&share={link['token']}"
        )
        # the share token is honoured: the hand being played is not there
        frame.locator("#last").click()
        frame.locator(f'#table[data-seq="{finished[-1]}"]').wait_for()
        frame.locator("#next").wait_for(state="attached")
        assert frame.locator("#next").is_disabled()
        page.screenshot(path=str(Path("test-output/screenshots/site-embed-host-390.png")), full_page=True)
    finally:
        context.close()
        host.stop()
    # a revoked link: the frame says so, in words
    httpx.delete(f"{server.url}/v1/games/{game.id}/share/{link['id']}", headers=server.headers(), timeout=10)
    context = browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        page.goto(src)
        page.wait_for_selector("#problem .problem")
        assert "share link does not work" in page.locator("#problem").inner_text()
    finally:
        context.close()


# --------------------------------------------------------------------------- the score sheet


def test_the_score_sheet_csv_has_hands_down_and_players_across(server: Server, open_page: Any) -> None:
    for kind in ("schnapsen", "casino", "seven-and-a-half"):
        game = server.games[kind]
        response = httpx.get(
            f"{server.url}/v1/games/{game.id}/export?format=sheet", headers=server.headers(), timeout=10
        )
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
        assert response.headers["content-disposition"] == f'attachment; filename="{game.id}-sheet.csv"'
        rows = list(csv.reader(io.StringIO(response.text)))
        score = server.get(f"/v1/games/{game.id}/score")
        assert rows[0] == ["hand", *game.players]
        hands = [r for r in rows[1:] if r[0].isdigit()]
        assert [int(r[0]) for r in hands] == [h["hand"] for h in score["hands"]]
        for row, hand in zip(hands, score["hands"], strict=True):
            assert [int(v) for v in row[1:]] == [hand["points"].get(str(s), 0) for s in range(len(game.players))]
        total = next(r for r in rows if r[0] == "total")
        if kind == "schnapsen":
            won = [sum(h["points"].get(str(s), 0) for h in score["hands"]) for s in range(2)]
            assert [int(v) for v in total[1:]] == won
            to_go = next(r for r in rows if r[0] == "to go")
            assert [int(v) for v in to_go[1:]] == [max(score["totals"][str(s)], 0) for s in range(2)]
        else:
            assert [int(v) for v in total[1:]] == [score["totals"][str(s)] for s in range(len(game.players))]
    # the replay page offers it beside the line-by-line CSV
    game = server.games["casino"]
    page = open_page(f"/replay/{game.id}")
    page.wait_seq(game.envelopes[-1]["seq"])
    p = page.page
    p.click("#downloads summary")
    assert p.locator('#download-list a[data-format="csv"]').is_visible()
    with p.expect_download() as info:
        p.click('#download-list a[data-format="sheet"]')
    text = Path(info.value.path()).read_text("utf-8")
    assert text.splitlines()[0] == "hand," + ",".join(game.players)
    # a share link may not export, the sheet neither
    link = server.post(f"/v1/games/{game.id}/share")
    refused = httpx.get(
        f"{server.url}/v1/games/{game.id}/export?format=sheet",
        headers={"Authorization": f"Bearer {link['token']}"},
        timeout=10,
    )
    assert refused.status_code in (401, 403)


# --------------------------------------------------------------------------- words a player reads


def test_no_developers_words_on_the_replay_pages(server: Server, open_page: Any) -> None:
    for kind, game in server.games.items():
        for hand in (game.hands()[0], game.hands()[-1]):
            seqs = game.seqs_of(hand)
            page = open_page(f"/replay/{game.id}#{seqs[len(seqs) // 2]}")
            page.wait_seq(seqs[len(seqs) // 2])
            p = page.page
            for opened in p.locator("#score details.score-hand").all():
                opened.evaluate("d => d.open = true")
            found = developer_words(shown_text(page))
            assert not found, (kind, hand, found)
            assert page.errors == []
    # a flagged play: what it broke in words; the rule's id behind "details", and there
    smear = server.games["cutthroat-smear"]
    flagged = next(env for env in smear.envelopes if "violation" in env)
    page = open_page(f"/replay/{smear.id}#{flagged['seq']}")
    page.wait_seq(flagged["seq"])
    line = page.page.locator(f'#events li[data-seq="{flagged["seq"]}"]')
    assert "Against the rules" in line.inner_text() and flagged["violation"]["rule"] not in line.inner_text()
    line.locator("details.rule-details summary").click()
    assert line.locator("details.rule-details code").inner_text() == flagged["violation"]["rule"]


def test_no_developers_words_on_the_pads_and_the_new_game_form(server: Server, open_page: Any) -> None:
    for game in (server.live, server.games["gin-rummy-3"], server.games["seven-and-a-half"], server.games["casino"]):
        page = open_page(f"/record/{game.id}")
        page.page.wait_for_selector('body[data-busy="0"] #turn:not(:empty)', timeout=20_000)
        found = developer_words(shown_text(page))
        assert not found, (game.kind, found)
    page = open_page("/record/")
    p = page.page
    p.wait_for_selector("#new-options .option")
    for kind in ("casino", "cutthroat-smear", "gin-rummy-3", "schnapsen", "seven-and-a-half"):
        p.select_option("#new-kind", kind)
        found = developer_words(p.locator("#new-form").inner_text())
        assert not found, (kind, found)
    assert page.errors == []


# --------------------------------------------------------------------------- screenshots


#: every page of the site, and what shows it is drawn
SHOTS = {
    "home": ("/", "#lists:not([hidden]) .game-card"),
    "players": ("/players", "#players li"),
    "player": ("/players/{player}", "#content:not([hidden]) #stats li"),
    "standings": ("/standings?game=schnapsen", "#content:not([hidden]) #pools table"),
    "standings-7half": ("/standings?game=seven-and-a-half", "#content:not([hidden]) #pools table"),
    "games": ("/replay", "#games-body tr"),
    "replay": ("/replay/{noted}#12", 'body[data-busy="0"] #table[data-seq="12"]'),
    "pad-new": ("/record/", "#new-options .option"),
    "pad-live": ("/record/{live}", 'body[data-busy="0"] #turn:not(:empty)'),
    "missing-game": ("/replay/gnothing000", "#problem .problem"),
    "error-page": ("/replay/not.a.game", "#problem-title"),
    "bad-filter": ("/standings?game=schnapsen&since=2026-99-99", "#problem .problem"),
    "embed": ("/embed/{noted}#12", 'body[data-busy="0"] #table[data-seq="12"]'),
}


@pytest.mark.parametrize("name", list(SHOTS))
def test_screenshots_of_every_page(name: str, server: Server, open_page: Any, screenshots: Path) -> None:
    player = server.get("/v1/players")["players"][0]["id"]
    path, ready = SHOTS[name]
    path = path.format(player=player, noted=server.noted.id, live=server.live.id)
    for size in (PHONE, DESKTOP):
        page = open_page(path, width=size["width"], height=size["height"])
        p = page.page
        p.wait_for_selector(ready, timeout=20_000)
        p.wait_for_function("() => document.fonts.status === 'loaded'")
        p.screenshot(path=str(screenshots / f"site-{name}-{size['width']}.png"), full_page=True)
        assert [e for e in page.errors if not e.startswith("Failed to load resource")] == [], (name, page.errors)
