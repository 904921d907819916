"""A re-imported record is not a second result (issue 20), on SQLite and PostgreSQL.

Exporting a finished game and importing it back into its club is answered with the club's game and
writes nothing; with `copy=true` (`tablebook import --copy`, a bulk import without `skip_existing`)
it is stored as a *copy*, `copy_of` the original, which the players' statistics, the ratings and the
standings skip.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from typer.testing import CliRunner

from api.cli import app as cli
from api.service import Tablebook
from events.store import Store
from events.store.base import EVENTS, GAMES
from events.store.migrate import upgrade
from events.store.players import SEATS
from projections.readmodels.ratings import RatingsModel
from tests.conftest import BOTH, Club

#: PostgreSQL on the session's own server: these tests read the log below the transaction-id horizon
#: (tests/conftest.py `store_url`), which open transactions elsewhere on a shared server hold back
OWN_SERVER = True

#: both stores (tests/conftest.py `stores_of`):
#: the read models behind the statistics and ratings read each store's log its own way
STORES = BOTH

runner = CliRunner()


def _finished(store: Store, club: Club, kind: str, seed: int) -> str:
    """A finished demo game of the club (the bots play it to its end)."""
    service = Tablebook.open(store)
    game_id = service.record_demo_game(store.ensure_club(club.name), kind, random.Random(seed))
    assert store.get_game(game_id).status == "finished"
    return game_id


def _counts(store: Store) -> tuple[int, int, int]:
    """Games, events and seats in the whole database: what an import would have written."""
    with store.db.engine.connect() as conn:
        return tuple(  # type: ignore[return-value]
            int(conn.execute(select(func.count()).select_from(table)).scalar_one()) for table in (GAMES, EVENTS, SEATS)
        )


def _export(client: TestClient, club: Club, game_id: str, fmt: str) -> bytes:
    response = client.get(f"/v1/games/{game_id}/export?format={fmt}", headers=club.recorder)
    assert response.status_code == 200, response.text
    content: bytes = response.content
    return content


def _player(client: TestClient, club: Club, name: str) -> dict[str, Any]:
    found = client.get(f"/v1/players?name={name}", headers=club.viewer).json()["players"]
    assert len(found) == 1, found
    page = client.get(f"/v1/players/{found[0]['id']}", headers=club.viewer)
    assert page.status_code == 200, page.text
    profile: dict[str, Any] = page.json()
    return profile


@pytest.mark.parametrize("fmt", ["json", "jsonl", "text"])
def test_a_finished_game_imported_back_is_the_clubs_game_and_nothing_is_written(
    client: TestClient, store: Store, club: Club, fmt: str
) -> None:
    game_id = _finished(store, club, "schnapsen", 3)
    body = _export(client, club, game_id, fmt)
    before = _counts(store)
    again = client.post("/v1/import", content=body, headers=club.recorder)
    assert again.status_code == 200, again.text
    answer = again.json()
    assert answer["duplicate_of"] == game_id and answer["copy_of"] is None and answer["game"]["id"] == game_id
    assert _counts(store) == before


def test_a_copy_is_stored_marked_and_the_statistics_count_it_not(client: TestClient, store: Store, club: Club) -> None:
    game_id = _finished(store, club, "schnapsen", 3)
    original = store.get_game(game_id)
    before = _player(client, club, original.players[0])["statistics"]["schnapsen"]
    copies = []
    for fmt in ("jsonl", "text"):  # the same chain, and the same events decided again (a new chain)
        made = client.post("/v1/import?copy=true", content=_export(client, club, game_id, fmt), headers=club.recorder)
        assert made.status_code == 201, made.text
        assert made.json()["copy_of"] == game_id and made.json()["duplicate_of"] is None
        copy_id = made.json()["game"]["id"]
        assert made.json()["game"]["copy_of"] == game_id
        assert client.get(f"/v1/games/{copy_id}", headers=club.viewer).json()["copy_of"] == game_id
        copies.append(copy_id)
    # a copy's own export imported with copy=true names the original, not the copy
    third = client.post("/v1/import?copy=true", content=_export(client, club, copies[0], "json"), headers=club.recorder)
    assert third.status_code == 201 and third.json()["copy_of"] == game_id, third.text
    copies.append(third.json()["game"]["id"])
    assert client.get(f"/v1/games/{game_id}", headers=club.viewer).json()["copy_of"] is None
    assert store.players.copies([game_id, *copies]) == dict.fromkeys(copies, game_id)
    assert set(store.players.rated_seats([game_id, *copies])) == {game_id}
    assert store.players.game_seats(copies)[copies[0]] == store.players.game_seats([game_id])[game_id]
    for name in original.players:
        page = _player(client, club, name)
        assert page["statistics"]["schnapsen"] == (
            before if name == original.players[0] else page["statistics"]["schnapsen"]
        )
        assert page["statistics"]["schnapsen"]["games"] == 1 and page["statistics"]["schnapsen"]["finished"] == 1
        listed = {g["id"]: g["copy_of"] for g in page["games"]}
        assert listed == {game_id: None, **dict.fromkeys(copies, game_id)}  # listed, marked, not counted


def test_a_bulk_import_that_keeps_existing_games_stores_them_as_copies(
    client: TestClient, store: Store, club: Club
) -> None:
    game_id = _finished(store, club, "casino", 2)
    bulk = client.get("/v1/export?game=casino", headers=club.recorder).content
    skipped = client.post("/v1/import/bulk", content=bulk, headers=club.recorder).json()
    assert skipped["summary"]["imported"] == 0 and skipped["skipped"][0]["duplicate_of"] == game_id
    kept = client.post("/v1/import/bulk?skip_existing=false", content=bulk, headers=club.recorder).json()
    assert kept["summary"]["imported"] == 1, kept
    copy_id = kept["imported"][0]["id"]
    assert store.get_game(copy_id).copy_of == game_id


def test_a_copy_is_not_rated_and_not_in_the_standings(client: TestClient, store: Store, club: Club) -> None:
    """The ratings rate `rated_seats` (no copy), so a copy's results change no rating, incrementally or rebuilt,
    and the standings (made of the ratings) and the players' histories show the original's results once."""
    game_id = _finished(store, club, "casino", 2)
    RatingsModel(store).catch_up()
    rows = [r for r in store.ratings.rows() if r["game_id"] == game_id]
    assert rows
    made = client.post("/v1/import?copy=true", content=_export(client, club, game_id, "jsonl"), headers=club.recorder)
    assert made.status_code == 201 and made.json()["copy_of"] == game_id, made.text
    copy_id = made.json()["game"]["id"]
    RatingsModel(store).catch_up()  # incrementally: the copy's events are read, none is rated
    assert not [r for r in store.ratings.rows() if r["game_id"] == copy_id]
    incremental = store.ratings.rows()
    RatingsModel(store).rebuild()
    assert store.ratings.rows() == incremental  # and a rebuild agrees
    standings = client.get("/v1/standings?game=casino", headers=club.viewer).json()["pools"]["casino"]["standings"]
    assert {r["name"] for r in standings} == set(store.get_game(game_id).players)
    assert all(r["results"] == 1 and r["games"] == 1 for r in standings), standings
    for name in store.get_game(game_id).players:
        page = _player(client, club, name)
        assert page["ratings"]["casino"]["results"] == 1
        assert [h["game_id"] for h in page["history"]] == [game_id]


def test_cli_import_copy_says_it_is_a_copy(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/cli.db"
    upgrade(url)
    store = Store(url)
    try:
        club_id = store.ensure_club("Chess & Cards")
        game_id = Tablebook.open(store).record_demo_game(club_id, "schnapsen", random.Random(5))
    finally:
        store.dispose()
    path = tmp_path / "game.jsonl"
    assert runner.invoke(cli, ["export", game_id, "-f", "jsonl", "-o", str(path), "--database", url]).exit_code == 0
    there = runner.invoke(cli, ["import", str(path), "--database", url])
    assert there.exit_code == 0 and f"already in the club as {game_id}" in there.stdout, there.output
    copied = runner.invoke(cli, ["import", str(path), "--copy", "--database", url])
    assert copied.exit_code == 0, copied.output
    assert f"a copy of {game_id} (not rated)" in copied.stdout and "imported 1 of 1 games" in copied.stdout
    store = Store(url)
    try:
        copies = store.players.copies(store.game_ids())
    finally:
        store.dispose()
    assert list(copies.values()) == [game_id]
