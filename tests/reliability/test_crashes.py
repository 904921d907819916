"""Crashes and retries: kill -9 the server in the middle of appends, then restart it.

After every restart: every acknowledged event is there, no batch is stored
in part, seqs run 1..n and every chain verifies; a request that got no
answer (the process died under it) is retried with its Idempotency-Key and
lands exactly once. A 1,000-event batch killed inside its transaction leaves
nothing. A request that timed out on the client and is retried with its key
lands once, on the same process or on another.
"""

from __future__ import annotations

import random
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy import text

from events.store import Store
from tests.conftest import make_club
from tests.reliability.figures import FIGURES
from tests.reliability.load import Api, Ledger, batches_in, check_game, kinds, note, simulated

pytestmark = pytest.mark.reliability

WRITERS = 8


@dataclass
class Writer:
    """One client's game, what it was told, and the request it must retry."""

    client: int
    game_id: str
    events: list[dict[str, Any]]
    ledger: Ledger = field(default_factory=Ledger)
    head: int = 0
    real: int = 0  # how many of `events` are stored
    batches: int = 0
    pending: tuple[str, list[dict[str, Any]], int] | None = None  # (key, batch, expected_seq) without an answer
    acked: int = 0
    tried: int = 0
    unanswered: int = 0
    retried: int = 0


def next_batch(writer: Writer, rng: random.Random) -> list[dict[str, Any]]:
    """Alternately a batch of 1 to 20 labelled notes, and 1 to 3 events of the writer's game."""
    writer.batches += 1
    if writer.batches % 2 and writer.real < len(writer.events):
        return writer.events[writer.real : writer.real + rng.randint(1, 3)]
    size = rng.randint(1, 20)
    return [note(f"crash/{writer.client}.{writer.batches}/{i}/{size}") for i in range(size)]


def landed(writer: Writer, batch: list[dict[str, Any]], body: dict[str, Any]) -> None:
    writer.ledger.ack(body["events"])
    writer.head = body["events"][-1]["seq"]
    writer.real += sum(1 for event in batch if event["type"] != "note")
    writer.acked += 1


def write_transaction_open(store: Store) -> bool:
    """Whether some process holds an append transaction open right now."""
    if store.dialect == "sqlite":
        path = store.url.split("///", 1)[1]
        probe = sqlite3.connect(path, timeout=0, isolation_level=None)
        try:
            probe.execute("BEGIN IMMEDIATE")
            probe.execute("ROLLBACK")
            return False
        except sqlite3.OperationalError:
            return True
        finally:
            probe.close()
    with store.engine.connect() as conn:
        busy = conn.execute(
            text(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND state = 'idle in transaction' AND pid <> pg_backend_pid()"
            )
        ).scalar_one()
    return bool(busy)


def check_all(store: Store, writers: list[Writer]) -> tuple[int, int, list[str]]:
    """(lost, half batches, problems) over every writer's game."""
    lost = half = 0
    problems: list[str] = []
    for writer in writers:
        check = check_game(store, writer.game_id, writer.ledger)
        lost += check.lost
        problems += check.problems
        for batch, stored, size in batches_in(store, writer.game_id, "crash/"):
            if stored != size:
                half += 1
                problems.append(f"{writer.game_id}: batch {batch} has {stored} of its {size} events")
    return lost, half, problems


@dataclass(frozen=True)
class Tally:
    """A crash run's end: every game checked against its client's ledger once more, and the clients' counts."""

    lost: int
    half: int
    duplicated: int
    problems: list[str]
    tried: int
    acked: int
    unanswered: int

    def add_to_figures(self, *, lost_before: int, half_before: int, kills: int, verified: int, **more: int) -> None:
        """The run's counters into the reliability figures (`lost_before`, `half_before`: found after each kill)."""
        FIGURES.add(
            appends_tried=self.tried,
            acknowledged=self.acked,
            unanswered=self.unanswered,
            lost=lost_before + self.lost,
            duplicated=self.duplicated,
            half_batches=half_before + self.half,
            crashes=kills,
            chains_verified=verified,
            **more,
        )


def tally(store: Store, writers: list[Writer]) -> Tally:
    """`check_all` over every writer's game, the events stored twice, and the writers' counts summed."""
    lost, half, problems = check_all(store, writers)
    return Tally(
        lost=lost,
        half=half,
        duplicated=sum(check_game(store, w.game_id, w.ledger).duplicated for w in writers),
        problems=problems,
        tried=sum(w.tried for w in writers),
        acked=sum(w.acked for w in writers),
        unanswered=sum(w.unanswered for w in writers),
    )


def test_kill_9_in_the_middle_of_appends(store_url: str, store: Store, launch: Any, full: bool) -> None:
    kills = 20 if full else 2
    group = launch(store_url, processes=1, TABLEBOOK_TEST_COMMIT_DELAY_MS="0-3")
    key = make_club(store).keys["recorder"]
    writers = []
    with Api(group.url, key) as setup:
        for client in range(WRITERS):
            kind = kinds()[client % len(kinds())]
            events = simulated(kind, seed=500 + client, max_events=3000 if full else 400)
            writers.append(Writer(client, setup.create_game(kind), events))
    gate = threading.Event()
    gate.set()
    stop = threading.Event()

    def run(writer: Writer) -> None:
        rng = random.Random(writer.client)
        with Api(group.url, key, timeout=20.0) as api:
            while not stop.is_set():
                gate.wait()
                if stop.is_set():
                    return
                if writer.pending is not None:  # the retry after a crash: same key, same body
                    idem, batch, expected = writer.pending
                    writer.retried += 1
                else:
                    idem, batch, expected = uuid.uuid4().hex, next_batch(writer, rng), writer.head
                    writer.tried += 1
                status, body = api.append(writer.game_id, batch, expected_seq=expected, idempotency_key=idem)
                if status == 201:
                    landed(writer, batch, body)
                    writer.pending = None
                elif status is None:
                    if writer.pending is None:
                        writer.unanswered += 1
                    writer.pending = (idem, batch, expected)
                    time.sleep(0.05)
                else:
                    raise AssertionError((writer.game_id, status, body))

    threads = [threading.Thread(target=run, args=(w,), daemon=True) for w in writers]
    for thread in threads:
        thread.start()
    rng = random.Random(20)
    restarts: list[float] = []
    open_at_kill = 0
    problems: list[str] = []
    lost = half = 0
    try:
        for _ in range(kills):
            time.sleep(rng.uniform(0.2, 0.5))
            open_at_kill += write_transaction_open(store)
            group.kill()
            gate.clear()
            time.sleep(0.2)  # let every client see its request cut
            restarts.append(group.restart())
            found_lost, found_half, found = check_all(store, writers)
            lost, half, problems = lost + found_lost, half + found_half, problems + found
            with Api(group.url, key) as api:
                assert all(api.verify(w.game_id)["ok"] for w in writers)
            gate.set()
        time.sleep(0.5)
    finally:
        stop.set()
        gate.set()
        for thread in threads:
            thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads)
    pending = [w for w in writers if w.pending is not None]
    with Api(group.url, key) as api:  # the requests cut by the last kill, if any
        for writer in pending:
            idem, batch, expected = writer.pending  # type: ignore[misc]
            status, body = api.append(writer.game_id, batch, expected_seq=expected, idempotency_key=idem)
            assert status == 201, (status, body)
            landed(writer, batch, body)
            writer.retried += 1
        verified = sum(api.verify(w.game_id)["ok"] for w in writers)
    end = tally(store, writers)
    end.add_to_figures(
        lost_before=lost,
        half_before=half,
        kills=kills,
        verified=verified,
        retries=sum(w.retried for w in writers),
        retries_duplicated=end.duplicated,
    )
    FIGURES.note(
        "crashes",
        f"{store.dialect}: {kills} kill -9 during appends by {WRITERS} clients (batches of 1-20 events, "
        f"0-3 ms inside each transaction; a write transaction was open at {open_at_kill} of the kills): "
        f"{end.tried:,} appends tried, {end.acked:,} acknowledged, {end.unanswered} cut by a kill and retried with "
        f"their Idempotency-Key; lost {lost + end.lost}, half batches {half + end.half}, duplicated "
        f"{end.duplicated}; restart to first answer {min(restarts):.2f}-{max(restarts):.2f} s",
    )
    assert end.tried > kills and end.acked == end.tried
    assert (lost, half, end.lost, end.half, end.duplicated) == (0, 0, 0, 0, 0), (problems + end.problems)[:5]
    assert not problems and not end.problems, (problems + end.problems)[:5]
    assert verified == WRITERS and group.bugs_logged() == 0


GROUP_WRITERS = 16


def shared_transactions(store: Store, game_ids: list[str]) -> tuple[int, int, int]:
    """(events, events in a transaction with others, most events of one transaction) of the games: each of
    their appends is one event, so a transaction of several is a group commit's batch."""
    with store.engine.connect() as conn:
        sizes = [
            int(count)
            for (count,) in conn.execute(
                text("SELECT count(*) FROM event WHERE game_id = ANY(:ids) GROUP BY xact_id"), {"ids": game_ids}
            )
        ]
    return sum(sizes), sum(size for size in sizes if size > 1), max(sizes, default=0)


def batch_in_flight(store: Store) -> bool:
    """Whether a group commit's statement (several games' appends in one) is running right now."""
    with store.engine.connect() as conn:
        running = conn.execute(
            text(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' "
                "AND query LIKE 'WITH input AS MATERIALIZED%'"
            )
        ).scalar_one()
    return bool(running)


def test_kill_9_during_group_committed_appends_loses_no_acknowledged_event(
    store_url: str, store: Store, launch: Any, full: bool
) -> None:
    """16 clients append one note a request, no Idempotency-Key, each to its own game, so that the server writes
    them in shared transactions (group commit: events/store/group_commit.py on PostgreSQL, the appends of a turn
    of the event loop on SQLite, events/store/turn_commit.py); the server is killed -9 again and again. Every
    acknowledged event is there after each restart: an append is answered only after the commit of the
    transaction its event was written in. A request cut by the kill may have landed or not; its client reads
    the head and goes on."""
    postgres = store.dialect == "postgresql"
    kills = 10 if full else 2
    group = launch(store_url, processes=1)
    key = make_club(store).keys["recorder"]
    with Api(group.url, key) as setup:
        writers = [Writer(client, setup.create_game("schnapsen"), []) for client in range(GROUP_WRITERS)]
    gate = threading.Event()
    gate.set()
    stop = threading.Event()
    unexpected: list[Any] = []

    def run(writer: Writer) -> None:
        with Api(group.url, key, timeout=20.0) as api:
            while not stop.is_set():
                gate.wait()
                if stop.is_set():
                    return
                if writer.pending is not None:  # cut by a kill: it landed or not, the head says
                    status, body = api.request("GET", f"/v1/games/{writer.game_id}")
                    if status != 200:
                        time.sleep(0.05)
                        continue
                    writer.head, writer.pending = body["seq"], None
                writer.tried += 1
                batch = [note(f"group/{writer.client}.{writer.tried}/0/1")]
                status, body = api.append(writer.game_id, batch, expected_seq=writer.head)
                if status == 201:
                    landed(writer, batch, body)
                elif status is None:
                    writer.unanswered += 1
                    writer.ledger.unknown_texts.append(batch[0]["text"])
                    writer.pending = ("", batch, writer.head)
                    time.sleep(0.05)
                else:
                    unexpected.append((writer.game_id, status, body))
                    return

    threads = [threading.Thread(target=run, args=(w,), daemon=True) for w in writers]
    for thread in threads:
        thread.start()
    rng = random.Random(34)
    in_flight = 0
    lost = half = 0
    problems: list[str] = []
    restarts: list[float] = []
    try:
        for _ in range(kills):
            time.sleep(rng.uniform(0.3, 0.6))
            seen = False
            looked_until = time.monotonic() + 1.0
            while postgres and not seen and time.monotonic() < looked_until:  # a kill while a batch is written
                seen = batch_in_flight(store)
            in_flight += seen
            group.kill()
            gate.clear()
            time.sleep(0.2)  # let every client see its request cut
            restarts.append(group.restart())
            found_lost, found_half, found = check_all(store, writers)
            lost, half, problems = lost + found_lost, half + found_half, problems + found
            gate.set()
        time.sleep(0.5)
    finally:
        stop.set()
        gate.set()
        for thread in threads:
            thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads) and not unexpected, unexpected[:3]
    end = tally(store, writers)
    with Api(group.url, key) as api:
        verified = sum(api.verify(w.game_id)["ok"] for w in writers)
    if postgres:
        events, grouped, largest = shared_transactions(store, [w.game_id for w in writers])
        how = f"killed as soon as a batch statement was seen running, which it was at {in_flight} of the kills"
        shared = f"{grouped:,} of them in transactions shared with other games (at most {largest} in one)"
    else:  # SQLite keeps no transaction id: which events shared a commit is not known afterwards
        events = sum(store.get_game(w.game_id).seq for w in writers)
        how, shared = "killed at random times", "shared transactions not recorded on SQLite"
    end.add_to_figures(lost_before=lost, half_before=half, kills=kills, verified=verified)
    FIGURES.note(
        "crashes",
        f"{store.dialect}: {kills} kill -9 during group-committed appends by {GROUP_WRITERS} clients (one note a "
        f"request to a game each, no Idempotency-Key; {how}): "
        f"{end.tried:,} appends tried, {end.acked:,} acknowledged, {end.unanswered} cut by a kill; {events:,} events "
        f"stored, {shared}; "
        f"lost {lost + end.lost}, duplicated {end.duplicated}; restart to first answer "
        f"{min(restarts):.2f}-{max(restarts):.2f} s",
    )
    assert end.acked + end.unanswered == end.tried and end.acked > kills
    assert (lost, half, end.lost, end.half, end.duplicated) == (0, 0, 0, 0, 0), (problems + end.problems)[:5]
    assert not problems and not end.problems, (problems + end.problems)[:5]
    assert verified == GROUP_WRITERS and group.bugs_logged() == 0


def test_kill_9_inside_a_big_batch_leaves_nothing_and_the_retry_lands_once(
    store_url: str, store: Store, launch: Any
) -> None:
    group = launch(store_url, processes=1, TABLEBOOK_TEST_COMMIT_DELAY_MS="4000")
    key = make_club(store).keys["recorder"]
    with Api(group.url, key) as api:
        game_id = api.create_game("schnapsen")
    before = store.get_game(game_id).seq
    batch = [note(f"big/b/{i}/1000") for i in range(1000)]
    idem = uuid.uuid4().hex
    answer: list[Any] = []

    def send() -> None:
        with Api(group.url, key, timeout=30.0) as api:
            answer.append(api.append(game_id, batch, expected_seq=0, idempotency_key=idem))

    sender = threading.Thread(target=send)
    sender.start()
    deadline = time.monotonic() + 10
    while not write_transaction_open(store):
        assert time.monotonic() < deadline, "the batch's transaction never opened"
        time.sleep(0.01)
    group.kill()  # the 1,000 rows are written, not committed
    sender.join()
    assert answer == [(None, None)]
    group.processes[0].env.pop("TABLEBOOK_TEST_COMMIT_DELAY_MS")
    group.restart()
    assert store.get_game(game_id).seq == before == 0
    assert list(batches_in(store, game_id, "big/")) == []
    with Api(group.url, key) as api:
        assert api.verify(game_id)["ok"]
        first = api.append(game_id, batch, expected_seq=0, idempotency_key=idem)
        again = api.append(game_id, batch, expected_seq=0, idempotency_key=idem)
    assert first[0] == again[0] == 201 and first[1] == again[1]
    assert list(batches_in(store, game_id, "big/")) == [("b", 1000, 1000)]
    assert store.get_game(game_id).seq == 1000
    FIGURES.add(crashes=1, retries=2, appends_tried=1, acknowledged=1, unanswered=1, chains_verified=1)
    FIGURES.note(
        "crashes",
        f"{store.dialect}: kill -9 inside the transaction of a 1,000-event batch: 0 of its events stored after "
        "the restart; retried twice with its Idempotency-Key: stored once (1,000 events), same answer twice",
    )


def test_a_request_retried_after_a_timeout_lands_once(store_url: str, store: Store, launch: Any, full: bool) -> None:
    """The client gives up after 0.2 s while the append sits 0.5 s in its transaction, and sends it again at once."""
    group = launch(store_url, processes=2, TABLEBOOK_TEST_COMMIT_DELAY_MS="500")
    key = make_club(store).keys["recorder"]
    with Api(group.urls[0], key) as first, Api(group.urls[1], key) as other:
        game_id = first.create_game("schnapsen")
        retries = [first, other, first, other] if full else [first, other]
        for round_, retry in enumerate(retries):
            head = first.head(game_id)
            batch = [note(f"timeout/{round_}/{i}/3") for i in range(3)]
            idem = uuid.uuid4().hex
            timed_out = first.append(game_id, batch, expected_seq=head, idempotency_key=idem, timeout=0.2)
            retried = retry.append(game_id, batch, expected_seq=head, idempotency_key=idem)
            assert timed_out == (None, None) and retried[0] == 201, retried
            assert [e["seq"] for e in retried[1]["events"]] == [head + 1, head + 2, head + 3]
    rounds = len(retries)
    assert store.get_game(game_id).seq == 3 * rounds and len(store.read_events(game_id)) == 3 * rounds
    assert sorted(batches_in(store, game_id, "timeout/")) == [(str(r), 3, 3) for r in range(rounds)]
    assert group.bugs_logged() == 0
    FIGURES.add(retries=rounds, appends_tried=rounds, acknowledged=rounds, unanswered=rounds)
    FIGURES.note(
        "retries",
        f"{store.dialect}: {rounds} batches timed out on the client (0.2 s; 0.5 s inside the transaction) and were "
        "sent again at once with their Idempotency-Key, half to the same API process and half to another: "
        "each stored once",
    )
