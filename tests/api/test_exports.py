"""Exports and imports over HTTP and the CLI, on SQLite and PostgreSQL.

Round trips of random games of all five kinds in every format, corrupted
files refused with their line and nothing written, viewer exports redacted
and not importable, the bulk NDJSON export resumed with its cursor and read
back, `tablebook export/import/rebuild/players erase`.
"""

from __future__ import annotations

import csv
import io
import random
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.cli import app as cli
from events.store import Store
from events.store.migrate import upgrade
from projections.core.recorder import Recorder
from projections.core.registry import available, rules_for
from projections.core.simulate import play
from tests.conftest import Club, error_of, make_club, new_game
from tests.projections.helpers import AWKWARD_PLAYERS

PLAYERS = AWKWARD_PLAYERS
DEAL = {
    "type": "deal",
    "dealer": 1,
    "hands": [["KH", "QH", "TD", "AC", "JS"], ["TS", "AD", "KC", "QS", "JD"]],
    "trump_card": "JH",
}
runner = CliRunner()
#: the labels every recorded game is created with: each export carries them, each import gives them back
LABELS = {"event": "Winter league", "round": "3", "table": "Table 2"}


def append(client: TestClient, club: Club, game_id: str, events: list[dict[str, Any]]) -> None:
    for start in range(0, len(events), 250):
        response = client.post(
            f"/v1/games/{game_id}/events", json={"events": events[start : start + 250]}, headers=club.recorder
        )
        assert response.status_code == 201, response.text


def record(client: TestClient, club: Club, kind: str, seed: int, max_events: int = 400, **options: Any) -> str:
    """A random game of `kind`, with a note and a claim, recorded over HTTP."""
    rules = rules_for(kind)
    players = PLAYERS[kind]
    playout = play(rules, players, options, rng=random.Random(seed), max_events=max_events)
    body = {"game": kind, "players": players, "options": options, **LABELS}
    created = client.post("/v1/games", json=body, headers=club.recorder)
    assert created.status_code == 201, created.text
    game_id: str = created.json()["id"]
    events = [*playout.events, {"type": "note", "text": 'Ruby: "that was a \\ misdeal"\nno'}]
    events.append({"type": "score_claimed", "hand": 1, "points": {str(s): 2 for s in range(len(players))}})
    append(client, club, game_id, events)
    return game_id


def export_of(client: TestClient, club: Club, game_id: str, fmt: str, role: str = "recorder") -> Any:
    response = client.get(f"/v1/games/{game_id}/export?format={fmt}", headers=getattr(club, role))
    assert response.status_code == 200, response.text
    return response


def events_of(client: TestClient, club: Club, game_id: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = client.get(f"/v1/games/{game_id}/events", headers=club.recorder).json()["events"]
    return events


def games_of(client: TestClient, club: Club) -> list[str]:
    return [g["id"] for g in client.get("/v1/games?limit=200", headers=club.recorder).json()["games"]]


# --------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("kind", available())
def test_round_trips_of_random_games_in_every_format(
    client: TestClient, club: Club, other_club: Club, kind: str
) -> None:
    game_id = record(client, club, kind, seed=len(kind))
    original = events_of(client, club, game_id)
    source = client.get(f"/v1/games/{game_id}", headers=club.recorder).json()
    for fmt in ("json", "jsonl", "text"):
        body = export_of(client, club, game_id, fmt).content
        # copy=true: each format a game of its own (the same game again is otherwise answered as a duplicate)
        response = client.post("/v1/import?copy=true", content=body, headers=other_club.recorder)
        assert response.status_code == 201, response.text
        imported = response.json()
        new_id = imported["game"]["id"]
        assert new_id != game_id and imported["format"] == fmt and imported["events"] == len(original)
        copy = events_of(client, other_club, new_id)
        assert [(e["type"], e["data"], e["result"], e["hand"]) for e in copy] == [
            (e["type"], e["data"], e["result"], e["hand"]) for e in original
        ]
        if fmt in ("json", "jsonl"):
            assert copy == original and imported["same_head_hash"]
            assert imported["head_hash"] == original[-1]["hash"]
        else:
            assert {e["actor"] for e in copy} == {f"key:{other_club.keys['recorder'].split('_')[1]}"}
        game = client.get(f"/v1/games/{new_id}", headers=other_club.recorder).json()
        kept = ("game", "players", "options", "created_at", "status", "totals", "winner", "event", "round", "table")
        assert {k: game[k] for k in kept} == {k: source[k] for k in kept}
        assert {k: game[k] for k in LABELS} == LABELS
        verify = client.get(f"/v1/games/{new_id}/verify", headers=other_club.recorder).json()
        assert verify["ok"] and verify["events"] == len(original)


def test_json_and_jsonl_exports_carry_the_header_and_every_hash(client: TestClient, club: Club) -> None:
    game_id = record(client, club, "schnapsen", 1)
    doc = export_of(client, club, game_id, "json").json()
    original = events_of(client, club, game_id)
    assert doc["format"] == "tablebook/1" and doc["id"] == game_id and doc["game"] == "schnapsen"
    assert doc["club"] == club.name and doc["players"] == PLAYERS["schnapsen"] and doc["seats"] == 2
    assert doc["options"] == {"first_dealer": 0, "enforcement": "strict", "dealing": "table"} and doc["created_at"]
    assert doc["events"] == original and doc["seq"] == len(original) and doc["head_hash"] == original[-1]["hash"]
    response = export_of(client, club, game_id, "jsonl")
    assert response.headers["content-type"].startswith("application/x-ndjson")
    assert f'filename="{game_id}.jsonl"' in response.headers["content-disposition"]
    lines = response.content.decode().splitlines()
    assert orjson.loads(lines[0]) == {k: v for k, v in doc.items() if k not in ("events", "exported_at")} | {
        "exported_at": orjson.loads(lines[0])["exported_at"]
    }
    assert [orjson.loads(line) for line in lines[1:]] == original


def test_record_enforcement_violations_survive_every_format(client: TestClient, club: Club, other_club: Club) -> None:
    game_id = new_game(client, club, options={"first_dealer": 1, "enforcement": "record"})["id"]
    revoke = [DEAL, {"type": "close", "seat": 0}, {"type": "play", "seat": 0, "card": "TD"}]
    append(client, club, game_id, [*revoke, {"type": "play", "seat": 1, "card": "TS"}])
    original = events_of(client, club, game_id)
    assert original[-1]["violation"]["rule"] == "schnapsen.follow_suit"
    text = export_of(client, club, game_id, "text").text
    played = next(line for line in text.split("\n") if line.endswith("[4. Ben: play TS]"))
    assert played.startswith("    Ben plays 10♠ (against the rule schnapsen.follow_suit: "), played
    assert "{" not in played and not re.search(r"\bseat \d", played)
    for fmt in ("jsonl", "text"):
        body = export_of(client, club, game_id, fmt).content
        new_id = client.post("/v1/import?copy=true", content=body, headers=other_club.recorder).json()["game"]["id"]
        assert events_of(client, other_club, new_id)[-1]["violation"] == original[-1]["violation"]


def test_the_csv_score_sheet(client: TestClient, club: Club) -> None:
    game_id = record(client, club, "cutthroat-smear", 2)
    response = export_of(client, club, game_id, "csv")
    assert response.headers["content-type"].startswith("text/csv")
    assert not response.content.startswith(b"\xef\xbb\xbf")  # the plain csv has no byte-order mark
    rows = list(csv.DictReader(io.StringIO(response.text)))
    score = client.get(f"/v1/games/{game_id}/score", headers=club.recorder).json()
    lines = [(h["hand"], line) for h in score["hands"] for line in h["lines"]]
    body = [r for r in rows if r["hand"] != "totals" and r["player"]]
    assert len(body) == len(lines)
    assert list(rows[0]) == ["hand", "player", "points", "running_total", "rule", "reason", "seqs"]
    players = PLAYERS["cutthroat-smear"]
    running = [0, 0, 0]
    for row, (hand, line) in zip(body, lines, strict=True):
        running[line["seat"]] += line["points"]
        assert (int(row["hand"]), row["player"], int(row["points"]), row["rule"]) == (
            hand,
            players[line["seat"]],
            line["points"],
            line["rule"],
        )
        assert int(row["running_total"]) == running[line["seat"]]
        assert row["seqs"] == " ".join(str(q) for q in line["events"])
        assert "{seat:" not in row["reason"] and not re.search(r"\bseat \d", row["reason"])
    totals = [r for r in rows if r["hand"] == "totals"]
    assert [(r["player"], int(r["points"])) for r in totals] == [
        (p, score["totals"][str(s)]) for s, p in enumerate(players)
    ]


def test_the_csv_is_in_each_games_units(client: TestClient, club: Club) -> None:
    half = record(client, club, "seven-and-a-half", 2)
    rows = list(csv.DictReader(io.StringIO(export_of(client, club, half, "csv").text)))
    assert list(rows[0]) == ["hand", "player", "chips", "running_chips", "rule", "reason", "seqs"]
    assert any("½" in r["reason"] for r in rows) and any(r["player"] == "Inès" for r in rows)
    assert all(not re.search(r"\bseat \d", r["reason"]) for r in rows)
    schnapsen = record(client, club, "schnapsen", 2)
    rows = list(csv.DictReader(io.StringIO(export_of(client, club, schnapsen, "csv").text)))
    assert list(rows[0]) == ["hand", "player", "game_points", "game_points_won", "to_go", "rule", "reason", "seqs"]
    score = client.get(f"/v1/games/{schnapsen}/score", headers=club.recorder).json()
    totals = {r["player"]: int(r["to_go"]) for r in rows if r["hand"] == "totals"}
    assert totals == {p: score["totals"][str(s)] for s, p in enumerate(PLAYERS["schnapsen"])}
    for row in rows:
        if row["hand"] != "totals":  # to go after the line: what was left, less the game points won so far
            assert int(row["to_go"]) == max(7 - int(row["game_points_won"]), 0)


def test_the_excel_csv_has_a_byte_order_mark_and_reads_back_accents_and_halves(client: TestClient, club: Club) -> None:
    game_id = record(client, club, "seven-and-a-half", 2)
    plain = export_of(client, club, game_id, "csv")
    excel = export_of(client, club, game_id, "csv-excel")
    assert excel.headers["content-type"].startswith("text/csv")
    assert excel.headers["content-disposition"] == f'attachment; filename="{game_id}.csv"'
    assert excel.content.startswith(b"\xef\xbb\xbf") and excel.content[3:] == plain.content
    text = excel.content.decode("utf-8-sig")  # what Excel does with the mark: UTF-8, the mark dropped
    assert text.startswith("hand,player,") and "Inès" in text and "½" in text
    assert "\r\n" in text and "Ã" not in text  # no double-encoded UTF-8
    error_of(client.get(f"/v1/games/{game_id}/export?format=xlsx", headers=club.recorder), 422, "invalid")


def test_labels_are_given_at_creation_clipped_and_refused_when_too_long(client: TestClient, club: Club) -> None:
    body = {"game": "schnapsen", "players": ["Anna", "Ben"], "event": "  Winter league  ", "table": "   "}
    created = client.post("/v1/games", json=body, headers=club.recorder)
    assert created.status_code == 201, created.text
    game = created.json()
    assert (game["event"], game["round"], game["table"]) == ("Winter league", None, None)
    assert client.get(f"/v1/games/{game['id']}", headers=club.recorder).json()["event"] == "Winter league"
    text = export_of(client, club, game["id"], "text").text
    assert text.startswith('[Event "Winter league"]\n[Game "Schnapsen"]\n') and "[Round " not in text
    assert export_of(client, club, game["id"], "json").json()["event"] == "Winter league"
    plain = client.post("/v1/games", json={"game": "schnapsen", "players": ["Anna", "Ben"]}, headers=club.recorder)
    assert (plain.json()["event"], plain.json()["round"], plain.json()["table"]) == (None, None, None)
    assert "event" not in export_of(client, club, plain.json()["id"], "json").json()
    for field, value, words in (
        ("round", "x" * 81, "at most 80 characters"),
        ("table", "2\n3", "one line"),
        ("event", 7, "string"),
    ):
        bad = {"game": "schnapsen", "players": ["Anna", "Ben"], field: value}
        error = error_of(client.post("/v1/games", json=bad, headers=club.recorder), 422, "invalid")
        assert field in str(error) and words in str(error), error


def test_a_spreadsheet_formula_in_a_name_is_defused(client: TestClient, club: Club) -> None:
    game_id = new_game(client, club, players=["=HYPERLINK(1)", "Ben"], options={"first_dealer": 1})["id"]
    append(client, club, game_id, [DEAL])
    rows = list(csv.DictReader(io.StringIO(export_of(client, club, game_id, "csv").text)))
    assert rows[0]["player"] == "'=HYPERLINK(1)"


# --------------------------------------------------------------------------- bad files


def test_a_corrupted_line_is_refused_with_its_number_and_nothing_is_written(
    client: TestClient, club: Club, other_club: Club
) -> None:
    game_id = record(client, club, "casino", 3)
    lines = export_of(client, club, game_id, "jsonl").content.decode().splitlines()
    envelope = orjson.loads(lines[11])
    envelope["actor"] = "key:someone-else"
    lines[11] = orjson.dumps(envelope).decode()
    before = games_of(client, other_club)
    error = error_of(client.post("/v1/import", content="\n".join(lines), headers=other_club.recorder), 422, "invalid")
    assert error["line"] == 12 and error["seq"] == 11 and error["problem"] == "hash"
    assert error["message"].startswith("line 12: seq 11:")
    text = export_of(client, club, game_id, "text").text.splitlines()
    number = next(i for i, line in enumerate(text, 1) if "  [10. " in line)
    text[number - 1] = text[number - 1].replace("  [10. ", "  [10: ")
    error = error_of(client.post("/v1/import", content="\n".join(text), headers=other_club.recorder), 422, "invalid")
    assert error["line"] == number and error["message"].startswith(f"line {number}: cannot read")
    doc = export_of(client, club, game_id, "json").json()
    del doc["events"][7]
    error = error_of(client.post("/v1/import", json=doc, headers=other_club.recorder), 422, "invalid")
    assert error["index"] == 7 and "expected seq 8, found seq 9" in error["message"]
    assert games_of(client, other_club) == before


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"", "empty"),
        (b'{"format": "pgn", "events": []}', "not a Tablebook export"),
        (b'{"format": "tablebook/1", "game": "poker", "players": ["A"], "events": []}', "unknown game"),
        (b'[Game "schnapsen"]\n[Seat0 "A"]\n[Seat1 "B"]\n1. Anna: play KH\n', "'Anna' is not a player"),
        (b"\xff\xfe[Game]", "not UTF-8"),
        (b"hello", 'the header has no [Game "..."] tag'),
        (b'[Game "schnapsen"]\n[Players "A, B"]\n  A leads K   [1 A: play KH]\n', "cannot read the event"),
        (b'[Game "schnapsen"]\n[Seat0 "A"]\n[Seat1 "B"]\n1. note text=' + b"[" * 200_000, "nest more than"),
        (b"[" * 200_000, "a bad tag pair"),
        (b'{"format": "tablebook/1", "events": [' + b"[" * 200_000, "not valid JSON"),
        (
            b'{"format": "tablebook/1", "game": "schnapsen", "players": ["A", "B"], "options": {"first_dealer": 0, '
            b'"enforcement": "strict"}, "created_at": "2026-01-01T00:00:00Z", "events": [{"seq": 1, "hand": 0, '
            b'"type": "note", "data": {"text": "x", "to_seq": [1]}, "result": {}, "recorded_at": "t", "actor": "a", '
            b'"prev_hash": "' + b"0" * 64 + b'", "hash": "' + b"0" * 64 + b'"}]}',
            "data.to_seq",
        ),
    ],
)
def test_bad_files_get_a_clear_422(client: TestClient, club: Club, body: bytes, words: str) -> None:
    before = games_of(client, club)
    error = error_of(client.post("/v1/import", content=body, headers=club.recorder), 422, "invalid")
    assert words in error["message"]
    assert games_of(client, club) == before


def test_an_event_the_rules_refuse_keeps_its_own_code(client: TestClient, club: Club) -> None:
    text = '[Game "schnapsen"]\n[Seat0 "A"]\n[Seat1 "B"]\n[Options "first_dealer=1"]\n1. A: play KH\n'
    error = error_of(client.post("/v1/import", content=text, headers=club.recorder), 422, "impossible")
    assert error["line"] == 5 and error["seq"] == 1


def test_imports_need_a_recorder_key_and_one_game(client: TestClient, club: Club) -> None:
    game_id = record(client, club, "schnapsen", 4)
    body = export_of(client, club, game_id, "jsonl").content
    error_of(client.post("/v1/import", content=body, headers=club.viewer), 403, "forbidden")
    error_of(client.post("/v1/import", content=body, headers=club.auditor), 403, "forbidden")
    error = error_of(client.post("/v1/import", content=body + body, headers=club.recorder), 422, "invalid")
    assert "second game" in error["message"] and "bulk" in error["message"]
    error_of(client.get(f"/v1/games/{game_id}/export?format=pdf", headers=club.recorder), 422, "invalid")


def test_another_clubs_game_cannot_be_exported(client: TestClient, club: Club, other_club: Club) -> None:
    game_id = record(client, club, "schnapsen", 5)
    for fmt in ("json", "text", "csv"):
        error_of(client.get(f"/v1/games/{game_id}/export?format={fmt}", headers=other_club.viewer), 404, "not_found")


# --------------------------------------------------------------------------- viewers


def test_a_viewers_export_of_a_live_hand_hides_its_cards_and_cannot_be_imported(
    client: TestClient, club: Club, other_club: Club
) -> None:
    game_id = new_game(client, club, options={"first_dealer": 1})["id"]
    append(client, club, game_id, [DEAL, {"type": "play", "seat": 0, "card": "KH", "marriage": True}])
    hidden = ["QH", "TD", "AC", "JS", "TS", "AD", "KC", "QS", "JD"]
    for fmt in ("json", "jsonl", "text"):
        body = export_of(client, club, game_id, fmt, role="viewer").text
        leaked = [card for card in hidden if card in body]
        assert not leaked, f"{fmt} shows {leaked}"
        assert "redacted" in body.lower()
        error = error_of(client.post("/v1/import", content=body, headers=other_club.recorder), 422, "invalid")
        assert "redacted" in error["message"]
    seen = export_of(client, club, game_id, "json", role="recorder").json()
    assert "redacted" not in seen and seen["events"][0]["data"]["hands"][1][0] == "TS"


@pytest.mark.parametrize("kind", available())
def test_a_viewers_export_shows_what_the_events_route_shows_them(client: TestClient, club: Club, kind: str) -> None:
    rules = rules_for(kind)
    playout = play(rules, PLAYERS[kind], {}, rng=random.Random(5), max_events=300, keep_states=True)
    live = [i for i, state in enumerate(playout.states) if rules.hand_in_progress(state.game)]
    cut = live[len(live) // 2]
    game_id: str = new_game(client, club, kind, PLAYERS[kind])["id"]
    append(client, club, game_id, list(playout.events[: cut + 1]))
    seen = client.get(f"/v1/games/{game_id}/events", headers=club.viewer).json()["events"]
    doc = export_of(client, club, game_id, "json", role="viewer").json()
    assert doc["events"] == seen and doc["redacted"] is True
    assert any(env.get("redacted") for env in seen)
    lines = export_of(client, club, game_id, "jsonl", role="viewer").content.splitlines()
    assert [orjson.loads(line) for line in lines[1:]] == seen


def test_a_game_without_events_round_trips(client: TestClient, club: Club, other_club: Club) -> None:
    game_id = new_game(client, club, "casino", PLAYERS["casino"], {"target": 11})["id"]
    for fmt in ("json", "jsonl", "text"):
        body = export_of(client, club, game_id, fmt).content
        response = client.post("/v1/import?copy=true", content=body, headers=other_club.recorder)
        assert response.status_code == 201, response.text
        game = response.json()["game"]
        assert game["seq"] == 0 and game["options"]["target"] == 11 and game["players"] == PLAYERS["casino"]


# --------------------------------------------------------------------------- bulk


def test_bulk_export_streams_resumes_and_reads_back(client: TestClient, store: Store) -> None:
    club, target = make_club(store), make_club(store)
    ids = [record(client, club, kind, seed=7) for kind in ("schnapsen", "cutthroat-smear", "casino")]
    first = client.get("/v1/export?limit=2", headers=club.recorder)
    assert first.status_code == 200 and first.headers["content-type"].startswith("application/x-ndjson")
    lines = [orjson.loads(line) for line in first.content.splitlines()]
    assert lines[-1]["games"] == 2 and lines[-1]["next_cursor"]
    headers = [line for line in lines if "format" in line]
    assert [h["id"] for h in headers] == ids[:2]  # oldest first
    rest = client.get(f"/v1/export?cursor={lines[-1]['next_cursor']}", headers=club.recorder)
    tail = [orjson.loads(line) for line in rest.content.splitlines()]
    assert [h["id"] for h in tail if "format" in h] == ids[2:] and tail[-1] == {"next_cursor": None, "games": 1}
    only = client.get("/v1/export?game=casino", headers=club.recorder).content
    assert [orjson.loads(x)["id"] for x in only.splitlines() if b'"format"' in x] == [ids[2]]
    bundle = first.content + rest.content
    done = client.post("/v1/import/bulk", content=bundle, headers=target.recorder).json()
    assert done["summary"] == {"imported": 3, "skipped": 0, "events": sum(len(events_of(client, club, g)) for g in ids)}
    assert [g["source_id"] for g in done["imported"]] == ids
    for item in done["imported"]:
        assert events_of(client, target, item["id"]) == events_of(client, club, item["source_id"])
    again = client.post("/v1/import/bulk", content=bundle, headers=target.recorder).json()
    assert again["summary"]["imported"] == 0 and all(s["duplicate_of"] for s in again["skipped"])
    error_of(client.get("/v1/export?cursor=nonsense", headers=club.recorder), 422, "invalid")
    error_of(client.get("/v1/export?game=poker", headers=club.recorder), 422, "invalid")


def test_a_bad_game_in_a_bulk_file_is_skipped_with_its_reason(client: TestClient, store: Store) -> None:
    club, target = make_club(store), make_club(store)
    ids = [record(client, club, "schnapsen", seed=s) for s in (8, 9, 10)]
    lines = client.get("/v1/export", headers=club.recorder).content.decode().splitlines()
    second = [i for i, line in enumerate(lines) if '"format"' in line][1]
    envelope = orjson.loads(lines[second + 3])
    envelope["data"]["card"] = "AS" if envelope["data"].get("card") != "AS" else "AH"
    lines[second + 3] = orjson.dumps(envelope).decode()
    done = client.post("/v1/import/bulk", content="\n".join(lines), headers=target.recorder).json()
    assert [g["source_id"] for g in done["imported"]] == [ids[0], ids[2]]
    (skipped,) = done["skipped"]
    assert skipped["source_id"] == ids[1] and skipped["line"] == second + 1
    assert skipped["reason"].startswith(f"line {second + 4}: seq 3: the stored hash")


def test_a_viewers_bulk_export_redacts_live_games_only(client: TestClient, store: Store) -> None:
    club = make_club(store)
    done = record(client, club, "schnapsen", 12)
    live = new_game(client, club, options={"first_dealer": 1})["id"]
    append(client, club, live, [DEAL])
    body = client.get("/v1/export", headers=club.viewer).content
    headers = {h["id"]: h for h in (orjson.loads(x) for x in body.splitlines()) if "format" in h}
    assert headers[live]["redacted"] is True and "redacted" not in headers[done]
    assert b'"QS"' not in body.split(live.encode())[-1]


# --------------------------------------------------------------------------- the CLI


@pytest.fixture
def db(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path}/cli.db"
    upgrade(url)
    return url


def cli_record(url: str, club: str, kind: str, seed: int, players: list[str] | None = None) -> str:
    store = Store(url)
    recorder = Recorder(store)
    club_id = store.ensure_club(club)
    players = players or PLAYERS[kind]
    playout = play(rules_for(kind), players, {}, rng=random.Random(seed), max_events=300)
    game = recorder.create_game(club_id=club_id, kind=kind, players=players, options={})
    recorder.append(game.id, [*playout.events][:300], club_id=club_id, actor="t")
    return game.id


def test_cli_export_all_and_import_move_a_club_to_another_database(db: str, tmp_path: Path) -> None:
    ids = [cli_record(db, "Chess & Cards", kind, seed=3) for kind in available()]
    one = runner.invoke(cli, ["export", ids[0], "--format", "text", "--database", db])
    assert one.exit_code == 0 and '[Game "Casino"]' in one.output and '[Kind "casino"]' in one.output
    bundle = tmp_path / "club.ndjson"
    result = runner.invoke(cli, ["export", "--all", "--output", str(bundle), "--database", db])
    assert result.exit_code == 0, result.output
    other = f"sqlite:///{tmp_path}/other.db"
    imported = runner.invoke(cli, ["import", str(bundle), "--database", other])
    assert imported.exit_code == 0, imported.output
    assert f"imported {len(ids)} of {len(ids)} games" in imported.output
    store = Store(other)
    assert len(store.game_ids()) == len(ids)
    assert {store.club_name(store.get_game(g).club_id) for g in store.game_ids()} == {"Chess & Cards"}
    verified = runner.invoke(cli, ["verify", "--database", other])
    assert verified.exit_code == 0 and f"{len(ids)} of {len(ids)} games verified" in verified.output
    again = runner.invoke(cli, ["import", str(bundle), "--database", other])
    assert again.exit_code == 0 and f"imported 0 of {len(ids)} games" in again.output
    text = tmp_path / "one.txt"
    runner.invoke(cli, ["export", ids[1], "--format", "text", "-o", str(text), "--database", db])
    single = runner.invoke(cli, ["import", str(text), "--club", "Elsewhere", "--database", other])
    assert single.exit_code == 0 and "imported 1 of 1 games" in single.output


def test_cli_import_skips_a_bad_game_and_says_why(db: str, tmp_path: Path) -> None:
    for seed in (1, 2):
        cli_record(db, "c", "schnapsen", seed)
    bundle = tmp_path / "club.ndjson"
    runner.invoke(cli, ["export", "--all", "-o", str(bundle), "--database", db])
    lines = bundle.read_text().splitlines()
    lines[2] = lines[2][:-10]
    bundle.write_text("\n".join(lines) + "\n")
    result = runner.invoke(cli, ["import", str(bundle), "--database", f"sqlite:///{tmp_path}/o.db"])
    assert result.exit_code == 1
    assert "line 3: not valid JSON" in result.output and "imported 1 of 2 games" in result.output


def test_players_erase_replaces_the_name_keeps_every_chain_and_lists_the_notes(db: str) -> None:
    kept = cli_record(db, "c", "schnapsen", 4, players=["Anna", "Ben"])
    other = cli_record(db, "c", "casino", 4, players=["Ann", "Ben", "Cho"])
    store = Store(db)
    Recorder(store).append(kept, [{"type": "note", "text": "Ben disputes trick 4"}], club_id=None, actor="t")
    result = runner.invoke(cli, ["players", "erase", "Ben", "--replacement", "Player B", "--database", db])
    assert result.exit_code == 0, result.output
    assert "in 2 games" in result.output and "Ben disputes trick 4" in result.output
    assert store.get_game(kept).players == ("Anna", "Player B")
    assert store.get_game(other).players == ("Ann", "Player B", "Cho")
    verified = runner.invoke(cli, ["verify", "--database", db])
    assert verified.exit_code == 0 and "2 of 2 games verified" in verified.output
    text = runner.invoke(cli, ["export", kept, "--database", db]).output
    assert '[Players "Anna, Player B"]' in text and "Ben:" not in text and "    Player B: " in text


def test_cli_rebuild_gives_the_incremental_rows(db: str) -> None:
    from projections.readmodels.hand_facts import HandFacts

    for seed, kind in enumerate(available()):
        cli_record(db, "c", kind, seed)
    store = Store(db)
    HandFacts(store).catch_up()
    rows = store.hand_fact_rows()
    result = runner.invoke(cli, ["rebuild", "--database", db])
    assert result.exit_code == 0 and f"{len(rows)} facts" in result.output
    assert store.hand_fact_rows() == rows and rows


# --------------------------------------------------------------------------- importing a game the club has (issue 14)


def test_importing_a_game_the_club_has_answers_the_game_it_has(client: TestClient, store: Store) -> None:
    source, target = make_club(store), make_club(store)
    game_id = record(client, source, "schnapsen", 5)
    jsonl = export_of(client, source, game_id, "jsonl").content
    first = client.post("/v1/import", content=jsonl, headers=target.recorder)
    assert first.status_code == 201 and first.json()["duplicate_of"] is None, first.text
    copy_id = first.json()["game"]["id"]
    for fmt in ("jsonl", "json", "text"):  # the same game in any format: the same record
        body = export_of(client, source, game_id, fmt).content
        again = client.post("/v1/import", content=body, headers=target.recorder)
        assert again.status_code == 200, (fmt, again.text)
        answer = again.json()
        assert answer["duplicate_of"] == copy_id and answer["game"] == first.json()["game"], fmt
        assert answer["format"] == fmt and answer["head_hash"] == first.json()["head_hash"]
    assert games_of(client, target) == [copy_id]
    own = client.post("/v1/import", content=jsonl, headers=source.recorder)  # the club's own game, exported
    assert own.status_code == 200 and own.json()["duplicate_of"] == game_id
    copied = client.post("/v1/import?copy=true", content=jsonl, headers=target.recorder)
    assert copied.status_code == 201 and copied.json()["duplicate_of"] is None, copied.text
    assert copied.json()["game"]["id"] not in (copy_id, game_id)
    assert sorted(games_of(client, target)) == sorted([copy_id, copied.json()["game"]["id"]])
    assert client.post("/v1/import?copy=false", content=jsonl, headers=target.recorder).status_code == 200


def test_a_text_history_imported_twice_is_one_game(client: TestClient, store: Store) -> None:
    source, target = make_club(store), make_club(store)
    game_id = record(client, source, "casino", 2)
    text = export_of(client, source, game_id, "text").content
    first = client.post("/v1/import", content=text, headers=target.recorder)
    assert first.status_code == 201, first.text
    again = client.post("/v1/import", content=text, headers=target.recorder)  # a new chain: decided again
    assert again.status_code == 200 and again.json()["duplicate_of"] == first.json()["game"]["id"], again.text
    assert games_of(client, target) == [first.json()["game"]["id"]]
    # the same genesis and the first events of the club's game: an export taken before the game went on
    # (its last event not yet played) is a record of the club's game too, not another game to rate
    other = export_of(client, source, game_id, "text").text.splitlines()
    shorter = [line for line in other if f"  [{len(events_of(client, source, game_id))}. " not in line]
    body = "\n".join(line for line in shorter if not line.startswith("[Events ") and not line.startswith("[HeadHash "))
    third = client.post("/v1/import", content=body, headers=target.recorder)
    assert third.status_code == 200 and third.json()["duplicate_of"] == first.json()["game"]["id"], third.text
    assert third.json()["events"] == first.json()["game"]["seq"] - 1 and not third.json()["same_head_hash"]
    assert games_of(client, target) == [first.json()["game"]["id"]]
    copied = client.post("/v1/import?copy=true", content=body, headers=target.recorder)
    assert copied.status_code == 201 and copied.json()["copy_of"] == first.json()["game"]["id"], copied.text
    assert copied.json()["game"]["seq"] == first.json()["game"]["seq"] - 1


def test_cli_import_of_a_game_already_there_says_so_unless_copy(db: str, tmp_path: Path) -> None:
    game_id = cli_record(db, "Chess & Cards", "schnapsen", seed=4)
    for fmt in ("jsonl", "text"):
        path = tmp_path / f"game.{fmt}"
        assert runner.invoke(cli, ["export", game_id, "-f", fmt, "-o", str(path), "--database", db]).exit_code == 0
        there = runner.invoke(cli, ["import", str(path), "--database", db])
        assert there.exit_code == 0, there.output
        assert f"already in the club as {game_id}" in there.stdout and "imported 0 of 1 games" in there.stdout
        assert "1 already there" in there.stdout
    store = Store(db)
    assert store.game_ids() == [game_id]
    copied = runner.invoke(cli, ["import", str(tmp_path / "game.jsonl"), "--copy", "--database", db])
    assert copied.exit_code == 0 and "imported 1 of 1 games" in copied.stdout, copied.output
    assert len(store.game_ids()) == 2
    elsewhere = runner.invoke(cli, ["import", str(tmp_path / "game.text"), "--club", "Other", "--database", db])
    assert "imported 1 of 1 games" in elsewhere.stdout, elsewhere.output
    twice = runner.invoke(cli, ["import", str(tmp_path / "game.text"), "--club", "Other", "--database", db])
    assert "1 already there" in twice.stdout and len(store.game_ids()) == 3, twice.output
