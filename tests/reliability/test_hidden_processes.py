"""Hidden cards with several real API processes on one database: two servers, and `serve --workers 2`.

The defect of issue 13: a process decided which hand was live from its cached
head while reading the envelopes fresh from the database, so a process that
had cached a game between hands showed the next hand's deal to a viewer, and
to a share link. Here a recorder plays each game kind through one process
while a viewer and a share link read every GET route through the other (or
through whichever worker `--workers 2` hands them to), after every event of a
live hand; every answer is checked for the live hand's hidden cards and for
every hash computed over one.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from events.store import Store
from projections.core.registry import available, rules_for
from projections.core.rules import SPECTATOR
from tests.api.helpers import hand_cut, secret_hashes, viewer_reads
from tests.conftest import make_club
from tests.reliability.figures import FIGURES
from tests.reliability.load import PLAYERS, Api
from tests.reliability.server import ROOT, ServerGroup, free_port

pytestmark = pytest.mark.reliability


@pytest.fixture
def workers_server(store_url: str, tmp_path: Path) -> Iterator[str]:
    """`tablebook serve --workers 2` on a free port: uvicorn hands each connection to either worker."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLEBOOK_")}
    env["TABLEBOOK_DATABASE_URL"] = store_url
    log = (tmp_path / "workers.log").open("wb")
    command = [sys.executable, "-m", "api.cli", "serve", "--port", str(port), "--workers", "2"]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/", timeout=1.0).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.1)
    else:
        proc.kill()
        raise RuntimeError(f"serve --workers 2 did not answer: {(tmp_path / 'workers.log').read_text()[-2000:]}")
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


def leaks_in(
    answers: dict[str, Any], secrets: set[str], hidden_seqs: set[int], hidden_data: dict[int, Any], share: bool
) -> list[str]:
    """What an answer gave away: a hash over a hidden card, or a live-hand envelope not redacted (withheld)."""
    found: list[str] = []
    for label, (status, body) in answers.items():
        if status >= 500:
            found.append(f"{label}: {status}")
            continue
        if any(h in body for h in secrets):
            found.append(f"{label}: a hash over a hidden card")
        if label.startswith("/events") and status == 200:
            for env in orjson.loads(body)["events"]:
                if env["seq"] not in hidden_seqs:
                    continue
                if share and env.get("type") != "withheld":
                    found.append(f"{label}: seq {env['seq']} shown to a share link")
                if not share and env["data"] != hidden_data[env["seq"]]:
                    found.append(f"{label}: seq {env['seq']} not redacted")
        if (label.startswith("/replay") or label.startswith("/state")) and status == 200:
            document = orjson.loads(body)
            if document["hand"] == 2 and (share or document["viewpoint"] != "public"):
                found.append(f"{label}: hand 2 shown from {document['viewpoint']!r}")
    return found


def play_and_read(store: Store, recorder_url: str, reader_url: str, kind: str, full: bool) -> tuple[int, list[str]]:
    """Record a game up to hand 2 through `recorder_url`, reading through `reader_url` after every event
    of hand 2 (the short run: after its first, middle and last event only)."""
    club = make_club(store)
    rules = rules_for(kind)
    events, _, over, cut = hand_cut(kind, 2)
    seats = len(PLAYERS[kind])
    reads, leaks = 0, []
    with Api(recorder_url, club.keys["recorder"]) as api, httpx.Client(base_url=reader_url, timeout=30) as reader:
        game_id = api.create_game(kind)
        assert api.append(game_id, events[: over + 1])[0] == 201
        token = api.http.post(f"/v1/games/{game_id}/share").json()["token"]
        viewer = {"Authorization": f"Bearer {club.keys['viewer']}"}
        share = {"Authorization": f"Bearer {token}"}
        for _ in range(4):  # warm every worker's cache while no hand is live
            viewer_reads(reader, viewer, game_id, seats, over + 1, 1)  # type: ignore[arg-type]
        points = range(over + 1, cut + 1)
        checked = set(points) if full else {points[0], points[len(points) // 2], points[-1]}
        for index in points:
            assert api.append(game_id, [events[index]])[0] == 201
            if index not in checked:
                continue
            stored = store.read_events(game_id)
            live = [env for env in stored if env["hand"] == 2]
            secrets = secret_hashes(store, game_id, live[0]["seq"])
            hidden_data = {
                env["seq"]: {
                    k: v
                    for k, v in rules.redact_event({"type": env["type"], **env["data"]}, SPECTATOR).items()
                    if k != "type"
                }
                for env in live
            }
            seqs = set(hidden_data)
            for headers, is_share in ((viewer, False), (share, True)):
                answers = viewer_reads(reader, headers, game_id, seats, index + 1, 2)  # type: ignore[arg-type]
                reads += len(answers)
                leaks += leaks_in(answers, secrets, seqs, hidden_data, is_share)
    return reads, leaks


@pytest.mark.parametrize("kind", available())
def test_two_processes_never_show_a_live_hand(store: Store, shared_server: ServerGroup, kind: str, full: bool) -> None:
    reads, leaks = play_and_read(store, shared_server.urls[0], shared_server.urls[1], kind, full)
    FIGURES.note(
        "hidden cards",
        f"{store.dialect}, {kind}, 2 server processes: {reads} viewer and share-link reads over every GET route "
        f"after each event of a live hand, {len(leaks)} leaks",
    )
    assert not leaks, leaks[:10]


@pytest.mark.parametrize("kind", ["schnapsen", "seven-and-a-half"])
def test_serve_with_two_workers_never_shows_a_live_hand(
    store: Store, workers_server: str, kind: str, full: bool
) -> None:
    reads, leaks = play_and_read(store, workers_server, workers_server, kind, full)
    FIGURES.note(
        "hidden cards",
        f"{store.dialect}, {kind}, serve --workers 2: {reads} viewer and share-link reads, {len(leaks)} leaks",
    )
    assert not leaks, leaks[:10]
