"""An append in one API process wakes the streams that another process serves (events/store/notify.py).

PostgreSQL pushes it (LISTEN/NOTIFY): nothing polls there, so without the notification the event
would never come. SQLite has no notification between processes: the fallback check of each process
(every `FALLBACK_SECONDS`) finds it.
"""

from __future__ import annotations

import threading
import time

import httpx

from events.store import Store, notify
from tests.conftest import make_club
from tests.reliability.figures import FIGURES
from tests.reliability.load import Api, note
from tests.reliability.server import ServerGroup

#: with the fallback's wake-ups alone (uniform over 1.5 s), six appends all under 0.5 s: 1 chance in 729
APPENDS = 6


def test_an_append_in_one_process_wakes_a_stream_in_another(store: Store, shared_server: ServerGroup) -> None:
    club = make_club(store)
    with Api(shared_server.urls[0], club.keys["recorder"]) as writer:
        game_id = writer.create_game("schnapsen")
        arrived: dict[int, float] = {}
        opened = threading.Event()

        def follow() -> None:
            with httpx.stream(
                "GET",
                f"{shared_server.urls[1]}/v1/games/{game_id}/stream",
                params={"limit": APPENDS},
                headers={"Authorization": f"Bearer {club.keys['viewer']}"},
                timeout=30,
            ) as response:
                for line in response.iter_lines():
                    if line.startswith("retry:"):
                        opened.set()
                    if line.startswith("id: "):
                        arrived[int(line[4:])] = time.monotonic()

        follower = threading.Thread(target=follow, daemon=True)
        follower.start()
        assert opened.wait(10)
        time.sleep(1.0)  # the stream has read the empty game and waits (and its process listens)
        latencies = []
        for seq in range(1, APPENDS + 1):
            status, _ = writer.append(game_id, [note(f"from the other process {seq}")])
            appended = time.monotonic()
            assert status == 201
            deadline = appended + notify.FALLBACK_SECONDS + 5
            while seq not in arrived and time.monotonic() < deadline:
                time.sleep(0.005)
            assert seq in arrived, f"event {seq}, appended in another process, never reached the stream"
            latencies.append(arrived[seq] - appended)
        follower.join(timeout=10)
    worst = max(latencies)
    FIGURES.note(
        "streams",
        f"{store.dialect}: an append in another process reached a stream in {min(latencies) * 1000:.0f}-"
        f"{worst * 1000:.0f} ms ({'NOTIFY' if store.dialect == 'postgresql' else 'the fallback check'})",
    )
    if store.dialect == "postgresql":
        # pushed: well within the fallback interval (which PostgreSQL does not even run while it listens)
        assert worst < notify.FALLBACK_SECONDS / 3, latencies
    else:
        assert worst < notify.FALLBACK_SECONDS + 2.0, latencies
