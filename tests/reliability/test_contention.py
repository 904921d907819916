"""Notes sent without `expected_seq` by many clients at once to one game, through real server processes.

Each request is `{"events": [{"type": "note", ...}]}` with no `expected_seq`: the server decides it
again on the new head whenever it loses a race (to a thread of its own process or to the other
process), so every one is acknowledged with a 201, none is lost, the game's seqs run 1..n, and no
request is answered 409 `seq_conflict`, which only a request naming a seq it did not find may get.
Through one server process and through two sharing the database, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

import pytest

from events.store import Store
from tests.conftest import make_club
from tests.reliability.figures import FIGURES
from tests.reliability.load import Api, note
from tests.reliability.server import ServerGroup

pytestmark = pytest.mark.reliability

CLIENTS = 16


@pytest.mark.parametrize("processes", [1, 2], ids=["one-server", "two-servers"])
def test_notes_without_expected_seq_all_land(
    store: Store, shared_server: ServerGroup, full: bool, processes: int
) -> None:
    notes = 900 if full else 90
    urls = shared_server.urls[:processes]
    key = make_club(store).keys["recorder"]
    with Api(urls[0], key) as setup:
        game_id = setup.create_game("schnapsen")
    answers: list[tuple[str, int | None, Any]] = []
    lock = threading.Lock()
    texts = iter(f"contention/{processes}/{n}" for n in range(notes))
    start = threading.Barrier(CLIENTS)

    def client(index: int) -> None:
        with Api(urls[index % len(urls)], key) as api:
            start.wait()
            while True:
                with lock:
                    text = next(texts, None)
                if text is None:
                    return
                status, body = api.append(game_id, [note(text)])
                with lock:
                    answers.append((text, status, body))

    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    refused = [(status, body) for _, status, body in answers if status != 201]
    FIGURES.add(appends_tried=len(answers), acknowledged=len(answers) - len(refused))
    assert not refused, f"{len(refused)} of {notes} not acknowledged: {refused[:3]}"
    acked = sorted(body["events"][0]["seq"] for _, _, body in answers)
    assert acked == list(range(1, notes + 1))  # each acknowledged at a seq of its own
    stored = store.read_events(game_id)
    assert [e["seq"] for e in stored] == list(range(1, notes + 1))  # gapless
    assert sorted(e["data"]["text"] for e in stored) == sorted(text for text, _, _ in answers)  # none lost
    assert all(b["prev_hash"] == a["hash"] for a, b in itertools.pairwise(stored))
    with Api(urls[-1], key) as api:
        assert api.verify(game_id)["ok"]
