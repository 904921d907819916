"""`tablebook events ...` (issue 33): an event created, started, shown, scored and exported from the CLI, on
the same use cases as /v1/events; a bad one refused with its reason and nothing written."""

from __future__ import annotations

import secrets
from pathlib import Path

import orjson
from typer.testing import CliRunner

from api.cli import app
from events.store import Store
from projections.fairness import fairdeal

runner = CliRunner()


def _run(*args: str, code: int = 0) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, result.output
    return result.output


def test_an_event_from_the_cli(sqlite_url: str, tmp_path: Path) -> None:
    club = f"Hearts {secrets.token_hex(3)}"
    Store(sqlite_url).ensure_club(club)
    base = ("--club", club, "--database", sqlite_url)
    refused = _run("events", "create", "Bad", "--game", "schnapsen", "--player", "A", "--player", "A", *base, code=1)
    assert "same name" in refused
    assert orjson.loads(_run("events", "list", "--json", *base)) == {"events": []}
    players = [arg for name in ("Anna", "Ben", "Cleo") for arg in ("--player", name)]
    made = orjson.loads(
        _run(
            "events",
            "create",
            "Tuesday",
            "--game",
            "schnapsen",
            *players,
            "--boards",
            "1",
            "--rounds",
            "3",
            "--json",
            *base,
        )
    )
    assert made["movement"] == "round-robin" and len(made["rounds"]) == 3
    assert [len(r["sit_out"]) for r in made["rounds"]] == [1, 1, 1]  # three players: each sits out once
    assert sorted(r["sit_out"][0] for r in made["rounds"]) == ["Anna", "Ben", "Cleo"]
    started = _run("events", "start", made["id"], "1", *base)
    assert "round 1: table 1:" in started and "(live)" in started
    _run("events", "start", made["id"], "1", *base, code=1)  # once only
    csv = _run("events", "results", made["id"], "--csv", *base)
    assert csv.splitlines()[0].startswith("place,player,matchpoints")
    out = tmp_path / "event.json"
    _run("events", "export", made["id"], "-o", str(out), *base)
    doc = orjson.loads(out.read_bytes())
    assert doc["board_set"]["commitment"] == made["board_set"]["commitment"]
    reports = fairdeal.verify_event(doc)
    assert len(reports) == 1 and all(r.ok for r in reports.values())
