"""Records outlive the code: every record an earlier Tablebook exported imports and verifies today.

`tests/data/records/` holds, per earlier code (a folder per commit), a game of every kind in every
export format, and some of that code's own databases. Each json and jsonl record imports with the
same head hash, the same totals and the same winner as its header says, and verifies; each text
history imports (its events decided again into a new chain) with the same totals and winner; each
server-dealt record's deals check with the standalone checker. An old database migrated to today's
schema verifies every game it holds. A change to the shape of an event or of its derived `result`
fails here until it comes with a new version of the type, its upcast, and records written before it
(docs/adding-a-game.md).
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from api.service import Operator, Tablebook
from events.store import Store
from events.store.migrate import upgrade
from projections.fairness import fairdeal
from tests.conftest import Club

RECORDS = Path(__file__).resolve().parents[1] / "data" / "records"
EXPORTS = sorted(p for p in RECORDS.glob("*/*.gz") if p.name != "tablebook.db.gz")
DATABASES = sorted(RECORDS.glob("*/tablebook.db.gz"))


def header_of(path: Path) -> dict[str, Any]:
    """What the export says of its game (totals, winner, seq, head hash): a text history's is its json
    sibling's header (the same game, exported by the same code)."""
    name = path.name.removesuffix(".gz")
    kind, fmt = name.rsplit(".", 1)
    if fmt == "text":
        path = path.with_name(f"{kind}.json.gz")
    body = gzip.decompress(path.read_bytes())
    header: dict[str, Any] = orjson.loads(body.split(b"\n", 1)[0] if fmt == "jsonl" else body)
    return header


def test_there_are_golden_records_of_every_kind_and_format() -> None:
    kinds = {"casino", "cutthroat-smear", "gin-rummy-3", "schnapsen", "seven-and-a-half"}
    for folder in {p.parent for p in EXPORTS}:
        names = {p.name for p in folder.iterdir()}
        for kind in kinds:
            assert {f"{kind}.json.gz", f"{kind}.jsonl.gz", f"{kind}.text.gz"} <= names, (folder.name, kind)
    assert len({p.parent for p in EXPORTS}) >= 3


@pytest.mark.parametrize("path", EXPORTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_an_old_record_imports_and_verifies_with_its_head_hash_and_totals(
    client: TestClient, club: Club, path: Path
) -> None:
    body = gzip.decompress(path.read_bytes())
    fmt = path.name.removesuffix(".gz").rsplit(".", 1)[1]
    header = header_of(path)
    imported = client.post(
        "/v1/import",
        params={"format": fmt, "copy": "true"},
        content=body,
        headers={**club.recorder, "Content-Type": "application/json" if fmt == "json" else "text/plain"},
    )
    assert imported.status_code == 201, imported.text[:500]
    answer = imported.json()
    game = answer["game"]
    verified = client.get(f"/v1/games/{game['id']}/verify", headers=club.auditor).json()
    assert verified["ok"], verified["problems"][:3]
    assert game["totals"] == header["totals"] and game["winner"] == header["winner"] and game["seq"] == header["seq"]
    if fmt != "text":  # a text history is decided again into a new chain; json and jsonl keep theirs
        assert answer["same_head_hash"] and verified["head_hash"] == header["head_hash"]
    if header["options"].get("dealing") == "server":
        exported = client.get(f"/v1/games/{game['id']}/export", params={"format": "json"}, headers=club.recorder)
        report = fairdeal.verify_file(exported.content)
        assert report.ok and any(doc["verified"] for doc in report.hands.values()), report.problems[:2]


@pytest.mark.parametrize("path", DATABASES, ids=lambda p: p.parent.name)
def test_a_database_of_older_code_migrates_and_every_game_in_it_verifies(path: Path, tmp_path: Path) -> None:
    file = tmp_path / "old.db"
    with gzip.open(path) as packed, file.open("wb") as out:
        shutil.copyfileobj(packed, out)
    url = f"sqlite:///{file}"
    upgrade(url)  # what `tablebook migrate` runs
    store = Store(url)
    try:
        service = Tablebook.open(store)
        ids = service.game_ids()
        assert len(ids) == 5
        for game_id in ids:
            report = service.verify(Operator(actor="cli"), game_id)
            assert report["ok"], (game_id, report["problems"][:2])
    finally:
        store.dispose()
