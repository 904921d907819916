"""The site's routes (api/routes/site.py): the home page or the JSON signpost at `/`, the players page, the
embeddable view and its frame-ancestors policy, the HTML error pages a browser gets, the score-sheet CSV."""

from __future__ import annotations

import csv
import io

from fastapi.testclient import TestClient

from projections.readmodels.leaderboard import points_won
from tests.conftest import Club, new_game

HTML = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


def test_the_root_is_the_home_page_and_json_only_when_asked(client: TestClient) -> None:
    page = client.get("/", headers=HTML)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert '<nav class="site-nav"' in page.text and "/static/home.js" in page.text
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert client.get("/").headers["content-type"].startswith("text/html")  # no preference: the page
    signpost = client.get("/", headers={"Accept": "application/json"})
    assert signpost.headers["content-type"].startswith("application/json")
    assert signpost.json() == {"service": "tablebook", "docs": "/docs", "api": "/v1/games"}


def test_the_players_page_and_the_embeddable_view(client: TestClient) -> None:
    for path in ("/players", "/players/"):
        page = client.get(path)
        assert page.status_code == 200 and "/static/players.js" in page.text, path
    embed = client.get("/embed/gabc123")
    assert embed.status_code == 200 and "/static/embed.js" in embed.text
    policy = embed.headers["content-security-policy"]
    assert "frame-ancestors *" in policy and "script-src 'self'" in policy and "default-src 'none'" in policy
    assert client.get("/embed/not.a.game", headers=HTML).status_code == 404


def test_a_browser_gets_an_error_page_and_an_api_client_json(client: TestClient) -> None:
    page = client.get("/replay/not.a.game", headers=HTML)
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert "No game “not.a.game” here" in page.text and 'href="/replay"' in page.text and 'href="/"' in page.text
    assert "default-src 'none'" in page.headers["content-security-policy"]
    unknown = client.get("/no/such/page", headers=HTML)
    assert unknown.status_code == 404 and "There is no such page" in unknown.text
    # the API's errors stay JSON, whatever the client accepts
    for path in ("/replay/not.a.game", "/v1/nothing", "/static/nothing.js"):
        headers = {} if path.startswith("/replay") else HTML
        answer = client.get(path, headers=headers)
        assert answer.status_code == 404 and answer.headers["content-type"].startswith("application/json"), path
        assert answer.json()["error"]["code"] == "not_found"
    script = "<script>alert(1)</script>"
    escaped = client.get(f"/replay/{script}", headers=HTML)
    assert escaped.status_code == 404 and script not in escaped.text


def test_the_score_sheet_export(client: TestClient, club: Club) -> None:
    game = new_game(client, club, players=["Anna", "=Ben"], options={"first_dealer": 1})
    deal = {
        "type": "deal",
        "dealer": 1,
        "trump_card": "JH",
        "hands": [["KH", "QH", "TD", "AC", "JS"], ["TS", "AD", "KC", "QS", "JD"]],
    }
    assert (
        client.post(f"/v1/games/{game['id']}/events", json={"events": [deal]}, headers=club.recorder).status_code == 201
    )
    answer = client.get(f"/v1/games/{game['id']}/export?format=sheet", headers=club.viewer)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/csv")
    assert answer.headers["content-disposition"] == f'attachment; filename="{game["id"]}-sheet.csv"'
    rows = list(csv.reader(io.StringIO(answer.text)))
    assert rows[0] == ["hand", "Anna", "'=Ben"]  # a name a spreadsheet would run is quoted
    assert rows[1:] == [["total", "0", "0"], ["to go", "7", "7"], ["live", "", ""]]  # no hand scored yet
    refused = client.get(f"/v1/games/{game['id']}/export?format=sheets", headers=club.viewer)
    assert refused.status_code == 422


def test_points_won_count_up_where_a_sheet_counts_down() -> None:
    assert points_won("schnapsen", {"0": 0, "1": 4}, 0) == 7
    assert points_won("schnapsen", {"0": -1, "1": 4}, 0) == 8  # a last hand worth more than was left
    assert points_won("schnapsen", {"0": 0, "1": 4}, 1) == 3
    assert points_won("casino", {"0": 23, "1": 19}, 1) == 19
    assert points_won("seven-and-a-half", {"0": -40}, 0) == -40
