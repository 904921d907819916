"""`tablebook players ...` and `tablebook standings` (issue 20), on a SQLite file; and a merge that
makes two players' results one player's, rebuilt from the events."""

from __future__ import annotations

import random

import orjson
from typer.testing import CliRunner

from api.cli import app
from api.service import Operator, Tablebook
from events.store import Store
from events.store.migrate import upgrade
from projections.readmodels.hand_facts import HandFacts
from projections.readmodels.ratings import RatingsModel

runner = CliRunner()


def _club(url: str, games: int = 2) -> Store:
    upgrade(url)
    store = Store(url)
    service = Tablebook.open(store)
    club = store.ensure_club("Hearts")
    rng = random.Random(4)
    for _ in range(games):
        service.record_demo_game(club, "schnapsen", rng)  # Anna and Ben
    return store


def _run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_players_list_add_rename_show_merge_forget_and_standings(tmp_path: object) -> None:
    url = f"sqlite:///{tmp_path}/cli.db"
    store = _club(url)
    listed = orjson.loads(_run("players", "list", "--club", "Hearts", "--json", "--database", url))
    assert [p["name"] for p in listed["players"]] == ["Anna", "Ben"]
    added = _run("players", "add", "Ben K.", "--alias", "BK", "--club", "Hearts", "--database", url)
    assert added.startswith("added Ben K. as p")
    renamed = _run("players", "rename", "anna", "Anna M.", "--club", "Hearts", "--database", url)
    assert renamed.endswith("is now Anna M.\n")
    shown = orjson.loads(_run("players", "show", "Anna M.", "--club", "Hearts", "--json", "--database", url))
    assert shown["player"]["aliases"] == ["Anna"] and shown["statistics"]["schnapsen"]["games"] == 2
    assert len(shown["history"]) == 2 and "against Ben" in shown["history"][0]["reason"]
    text = _run("players", "show", "Anna M.", "--club", "Hearts", "--database", url)
    assert "rating schnapsen:" in text and "(provisional)" in text
    merged = _run("players", "merge", "bk", "Ben", "--club", "Hearts", "--database", url)
    assert "merged into Ben" in merged and "Ben K., BK" in merged
    table = orjson.loads(_run("standings", "schnapsen", "--club", "Hearts", "--json", "--database", url))
    rows = table["pools"]["schnapsen"]["standings"]
    assert {r["name"] for r in rows} == {"Anna M.", "Ben"} and all(r["results"] == 2 for r in rows)
    plain = _run("standings", "schnapsen", "--club", "Hearts", "--database", url)
    assert "Anna M." in plain and "Ben" in plain
    forgot = _run("players", "forget", "Anna M.", "--club", "Hearts", "--database", url)
    assert forgot.startswith("erased p") and "in 2 games" in forgot
    assert all("Anna" not in " ".join(g.players) for g in store.iter_games())
    refused = runner.invoke(app, ["players", "show", "nobody", "--club", "Hearts", "--database", url])
    assert refused.exit_code == 1 and "no player 'nobody'" in refused.output
    store.dispose()


def test_standings_tell_a_correction_of_the_ratings_on_stderr(tmp_path: object) -> None:
    """A retract of a rated result, then `tablebook standings`: the ratings are corrected as they catch up,
    and each player whose rating changed is told, before and after."""
    url = f"sqlite:///{tmp_path}/fix.db"
    store = _club(url)
    RatingsModel(store).catch_up()
    service = Tablebook.open(store)
    hearts = Operator(club_id=store.ensure_club("Hearts"), club="Hearts")
    first = store.ratings.rows()[0]
    retract = {"type": "retract", "to_seq": first["seq"] - 1, "reason": "misrecorded"}
    service.append(hearts, first["game_id"], [retract])
    result = CliRunner().invoke(app, ["standings", "schnapsen", "--club", "Hearts", "--database", url])
    assert result.exit_code == 0, result.output
    assert f"ratings corrected after the retract at seq {first['seq'] + 1} of {first['game_id']}" in result.stderr
    assert f"{first['player_id']} schnapsen: {first['mu_after']:.2f}" not in result.stderr  # the last, not the first
    assert sum(" schnapsen: " in line for line in result.stderr.splitlines()) == 2  # Anna and Ben
    store.dispose()


def test_a_merge_rebuilds_the_ratings_so_both_players_results_are_one_players(tmp_path: object) -> None:
    url = f"sqlite:///{tmp_path}/merge.db"
    store = _club(url, games=1)
    service = Tablebook.open(store)
    hearts = Operator(club_id=store.ensure_club("Hearts"), club="Hearts")
    service.rename_player(hearts, "Ben", "Ben K.", keep_alias=False)
    service.record_demo_game(hearts.club_id or 0, "schnapsen", random.Random(9))  # a new "Ben"
    RatingsModel(store).catch_up()
    bens = {p.name: p.id for p in service.players(hearts)}
    assert set(bens) == {"Anna", "Ben K.", "Ben"}
    assert {r["player_id"] for r in store.ratings.rows()} == {bens["Anna"], bens["Ben K."], bens["Ben"]}
    service.merge_players(hearts, "Ben K.", "Ben")
    after = store.ratings.rows()
    assert {r["player_id"] for r in after} == {bens["Anna"], bens["Ben"]}
    ben = [r for r in after if r["player_id"] == bens["Ben"]]
    assert len(ben) == 2 and ben[1]["mu_before"] == ben[0]["mu_after"]  # one rating, carried on
    store.dispose()


def test_list_and_search_find_a_player_by_any_case_and_by_id(tmp_path: object) -> None:
    url = f"sqlite:///{tmp_path}/list.db"
    store = _club(url, games=1)
    anna = store.players.find_players(store.ensure_club("Hearts"), "ANNA")[0].id
    by_name = orjson.loads(_run("list", "--player", "aNNa", "--json", "--database", url))
    by_id = orjson.loads(_run("list", "--player-id", anna, "--json", "--database", url))
    assert [g["id"] for g in by_name["games"]] == [g["id"] for g in by_id["games"]] and len(by_id["games"]) == 1
    hits = orjson.loads(_run("search", "marriage", "--player", "anna", "--json", "--database", url))
    seat = by_id["games"][0]["players"].index("Anna")
    every = orjson.loads(_run("search", "marriage", "--json", "--database", url))
    assert every["games"], "the demo Schnapsen game has a marriage"
    annas = [h for g in every["games"] for h in g["hits"] if h["seat"] == seat]
    assert [h for g in hits["games"] for h in g["hits"]] == annas
    store.dispose()


def test_tablebook_rebuild_gives_the_ratings_the_incremental_path_gave(tmp_path: object) -> None:
    url = f"sqlite:///{tmp_path}/rebuild.db"
    store = _club(url, games=3)
    RatingsModel(store).catch_up()
    incremental = store.ratings.rows()
    assert len(incremental) == 6  # three Schnapsen games, two players each
    HandFacts(store).catch_up()
    facts = store.hand_fact_rows()
    assert facts
    for how in ((), ("--parallel",), ("--serial",)):  # the default chooses serial for so short a log
        output = _run("rebuild", "--database", url, *how)
        assert "rebuilt the ratings:" in output and "6 rating changes" in output, how
        assert store.ratings.rows() == incremental and store.hand_fact_rows() == facts, how
    store.dispose()
