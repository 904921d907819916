"""Group commit on PostgreSQL (events/store/group_commit.py): single-event appends to different games that arrive
while another is being written share one transaction; each caller is answered as if it had appended alone.

A batch is made deterministic by holding its leader (`GroupCommit.before_write`) until the appends wanted in
the next batch have queued: the leader's own append is written alone, the queued ones together."""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any

import psycopg
import pytest

from events.codec import envelope_hash
from events.errors import NotFoundError, StreamConflictError
from events.store import Head, Store, notify
from events.store.append_sql import check_of
from events.store.group_commit import IN_FLIGHT, BatchFailed, GroupCommit, Pending, enabled
from events.store.mapper import row_values
from tests.store.helpers import head_at, new_raw_game, note_envelope

STORES = ("postgres",)


def connect(store: Store) -> psycopg.Connection[Any]:
    return psycopg.connect(store.url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True)


def xact_ids(store: Store, game_ids: Sequence[str]) -> dict[str, list[str]]:
    """Each game's events' transaction ids, in seq order."""
    with connect(store) as conn:
        rows = conn.execute(
            "SELECT game_id, xact_id::text FROM event WHERE game_id = ANY(%s) ORDER BY game_id, seq", (list(game_ids),)
        ).fetchall()
    found: dict[str, list[str]] = {game_id: [] for game_id in game_ids}
    for game_id, xact in rows:
        found[game_id].append(xact)
    return found


def group_commit(store: Store) -> GroupCommit:
    queue = store.recorder.group_commit
    assert queue is not None, "group commit is on by default on PostgreSQL"
    return queue


def behind_a_held_leader(queue: GroupCommit, runs: Sequence[Callable[[], object]]) -> list[int]:
    """Run each of `runs` on its own thread: the first leads a write of its own and is held before it until all
    the others are waiting in `queue`, then released; every thread joined. The sizes of the writes, in the order
    they began."""
    entered, release = threading.Event(), threading.Event()
    sizes: list[int] = []

    def hold(size: int) -> None:
        sizes.append(size)
        if len(sizes) == 1:
            entered.set()
            assert release.wait(60), "the test never released the leader"

    queue.before_write = hold
    try:
        threads = [threading.Thread(target=run) for run in runs]
        threads[0].start()
        assert entered.wait(60)
        for thread in threads[1:]:
            thread.start()
        deadline = time.monotonic() + 60
        while queue.waiting() < len(runs) - 1:  # a broken build only: they queue at once
            assert time.monotonic() < deadline, f"only {queue.waiting()} of {len(runs) - 1} queued"
            time.sleep(0.005)
        release.set()
        for thread in threads:
            thread.join(60)
        assert not any(thread.is_alive() for thread in threads)
    finally:
        queue.before_write = None
        release.set()
    return sizes


def held_batch(store: Store, appends: Sequence[Callable[[], None]]) -> list[BaseException | None]:
    """Run `appends` at once, each on its own thread: the first leads a batch of its own and is held before its
    write until all the others have queued, so that they are written as the next batch, together. What each
    raised (None: it returned)."""
    queue = group_commit(store)
    outcomes: list[BaseException | None] = [None] * len(appends)

    def run(index: int) -> None:
        try:
            appends[index]()
        except Exception as error:  # the test looks at it
            outcomes[index] = error

    queue.in_flight = 1  # everything that queues behind the held leader, in one batch
    try:
        sizes = behind_a_held_leader(queue, [partial(run, i) for i in range(len(appends))])
    finally:
        queue.in_flight = IN_FLIGHT
    assert sizes[:2] == [1, len(appends) - 1], sizes  # the leader alone, then every other one in one batch
    return outcomes


def one_event(store: Store, game_id: str, seq: int, status: str = "live") -> Callable[[], None]:
    """An append of note `seq` on head `seq - 1`, moving the head to `head_at(seq)` (with `status`)."""
    head = Head(seq=seq, hand=0, status=status, totals={"0": 7, "1": 7}, winner=None, head_hash=f"h{seq}")
    return lambda: store.append(game_id, [note_envelope(seq)], base_seq=seq - 1, head=head)


def test_appends_queued_behind_a_write_share_one_transaction(store: Store) -> None:
    games = [new_raw_game(store) for _ in range(16)]
    outcomes = held_batch(store, [one_event(store, game_id, 1) for game_id in games])
    assert outcomes == [None] * 16
    xacts = xact_ids(store, games)
    assert all(len(found) == 1 for found in xacts.values())
    shared = {xacts[game_id][0] for game_id in games[1:]}
    assert len(shared) == 1 and xacts[games[0]][0] not in shared  # the leader's append alone, the 15 together
    for game_id in games:
        game = store.get_game(game_id)
        assert (game.seq, game.head_hash) == (1, "h1")
        assert [e["seq"] for e in store.read_events(game_id)] == [1]


def test_a_batch_answers_each_conflict_to_its_own_caller_and_lands_the_rest(store: Store) -> None:
    games = [new_raw_game(store) for _ in range(6)]
    for game_id in games:
        store.append(game_id, [note_envelope(1)], base_seq=0, head=head_at(1))
    appends = [
        one_event(store, games[0], 2),  # the leader, alone
        one_event(store, games[1], 2),
        one_event(store, games[2], 5),  # its head is at 1, not 4
        one_event(store, games[3], 2),
        one_event(store, "g-none", 1),  # no such game
        one_event(store, games[4], 3),  # its head is at 1, not 2
        one_event(store, games[5], 2),
    ]
    outcomes = held_batch(store, appends)
    assert [type(o).__name__ if o else None for o in outcomes] == [
        None,
        None,
        "StreamConflictError",
        None,
        "NotFoundError",
        "StreamConflictError",
        None,
    ]
    assert isinstance(outcomes[2], StreamConflictError) and (outcomes[2].expected, outcomes[2].actual) == (4, 1)
    assert isinstance(outcomes[5], StreamConflictError) and (outcomes[5].expected, outcomes[5].actual) == (2, 1)
    assert isinstance(outcomes[4], NotFoundError)
    heads = {game_id: store.get_game(game_id).seq for game_id in games}
    assert heads == {games[0]: 2, games[1]: 2, games[2]: 1, games[3]: 2, games[4]: 1, games[5]: 2}
    xacts = xact_ids(store, games)
    assert len({xacts[g][1] for g in (games[1], games[3], games[5])}) == 1  # the landed ones, together
    assert len(xacts[games[2]]) == len(xacts[games[4]]) == 1  # the refused ones wrote nothing


def test_a_member_whose_row_collides_fails_alone_and_the_others_land(store: Store) -> None:
    games = [new_raw_game(store) for _ in range(4)]
    for game_id in games:
        store.append(game_id, [note_envelope(1)], base_seq=0, head=head_at(1))
    collides = lambda: store.append(games[2], [note_envelope(1)], base_seq=1, head=head_at(9))  # noqa: E731
    appends = [one_event(store, games[0], 2), one_event(store, games[1], 2), collides, one_event(store, games[3], 2)]
    outcomes = held_batch(store, appends)
    assert outcomes[:2] == [None, None] and outcomes[3] is None
    assert isinstance(outcomes[2], StreamConflictError)
    assert [store.get_game(g).seq for g in games] == [2, 2, 1, 2]
    assert store.get_game(games[2]).head_hash == "h1"  # the batch rolled back; alone, the collider moved nothing
    xacts = xact_ids(store, games)
    assert xacts[games[1]][1] != xacts[games[3]][1]  # written alone, after the batch failed as a whole


def test_a_value_refused_for_one_member_fails_only_that_member(store: Store) -> None:
    games = [new_raw_game(store) for _ in range(4)]
    too_long = one_event(store, games[2], 1, status="x" * 40)  # the status column holds 16 characters
    appends = [one_event(store, games[0], 1), one_event(store, games[1], 1), too_long, one_event(store, games[3], 1)]
    outcomes = held_batch(store, appends)
    assert outcomes[:2] == [None, None] and outcomes[3] is None
    assert isinstance(outcomes[2], psycopg.errors.StringDataRightTruncation)
    assert [store.get_game(g).seq for g in games] == [1, 1, 0, 1]
    assert store.read_events(games[2]) == []


def test_a_batch_notifies_each_of_its_games_at_its_commit(store: Store) -> None:
    games = [new_raw_game(store) for _ in range(5)]
    with connect(store) as conn:
        conn.execute(f"LISTEN {notify.CHANNEL}")
        refused = lambda: store.append(games[4], [note_envelope(3)], base_seq=2, head=head_at(3))  # noqa: E731
        outcomes = held_batch(store, [*(one_event(store, g, 1) for g in games[:4]), refused])
        assert isinstance(outcomes[4], StreamConflictError)
        other = new_raw_game(store)
        store.append(other, [note_envelope(1)], base_seq=0, head=head_at(1))
        heard = [note.payload for note in conn.notifies(timeout=60.0, stop_after=5)]
    # in commit order: the leader's, the batch's three (in any order), then the last append's; none for the refused
    assert heard[0] == notify.payload(store.db, games[0])
    assert sorted(heard[1:4]) == sorted(notify.payload(store.db, g) for g in games[1:4])
    assert heard[4] == notify.payload(store.db, other)


def lock_waiters(conn: psycopg.Connection[Any]) -> int:
    """How many backends of this database wait for a lock now."""
    row = conn.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
    ).fetchone()
    return int(row[0]) if row else 0


def wait_for_waiters(conn: psycopg.Connection[Any], count: int) -> None:
    deadline = time.monotonic() + 60
    while lock_waiters(conn) < count:  # a broken build only: they wait at once
        assert time.monotonic() < deadline, f"{lock_waiters(conn)} of {count} lock waits"
        time.sleep(0.01)


def test_two_batches_over_the_same_games_in_opposite_orders_do_not_deadlock(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes' batches share games A < B; the first lists them A, B, the second B, A (bypassing the queue's
    own sort, to test the statement's). Each game row is held by another transaction first, released A then B. Were
    the rows locked in the order given, the first batch would take A and wait for B while the second took B and
    waited for A: a deadlock, one batch failed. Locked in id order, both wait for A; one lands, the other finds the
    heads moved."""
    first, second = sorted(new_raw_game(store) for _ in range(2))
    recorder = store.recorder
    given = store.db.autocommit_connection

    @contextlib.contextmanager
    def by_index() -> Iterator[Any]:
        """The batches' connections plan the head's UPDATE as a walk of the input, each game found by its key (what
        the planner picks on a large table): unsorted, it would lock the rows in the order given."""
        with given() as raw:
            for setting in ("enable_hashjoin", "enable_mergejoin", "enable_seqscan"):
                raw.driver_connection.execute(f"SET {setting} = off")
            yield raw

    monkeypatch.setattr(store.db, "autocommit_connection", by_index)
    envelope = note_envelope(1)

    def pending(game_id: str) -> Pending:
        params = recorder.one_event_params(game_id, row_values(game_id, envelope), "now", 0, head_at(1))
        return Pending(game_id, params)

    answers: dict[str, set[str] | BaseException] = {}

    def write(name: str, batch: list[Pending]) -> None:
        try:
            answers[name] = recorder._write_batch(batch)
        except Exception as error:  # the test looks at it
            answers[name] = error

    holders = [connect(store) for _ in range(2)]
    with connect(store) as watcher:
        try:
            for holder, game_id in zip(holders, (first, second), strict=True):
                holder.autocommit = False
                holder.execute("SELECT id FROM game WHERE id = %s FOR NO KEY UPDATE", (game_id,))
            ab = threading.Thread(target=write, args=("ab", [pending(first), pending(second)]))
            ab.start()
            wait_for_waiters(watcher, 1)  # the first batch waits for A
            ba = threading.Thread(target=write, args=("ba", [pending(second), pending(first)]))
            ba.start()
            wait_for_waiters(watcher, 2)  # the second waits too: for A (in id order), or for B (in its own)
            holders[0].commit()  # A is free: the first batch takes it and waits for B
            time.sleep(0.3)  # (a deadlock needs the second to hold B first: this lets the first get to B's wait)
            holders[1].commit()
            ab.join(60)
            ba.join(60)
        finally:
            for holder in holders:
                holder.close()
    assert answers == {"ab": {first, second}, "ba": set()}, answers
    assert [store.get_game(g).seq for g in (first, second)] == [1, 1]


def chained(game_id: str, count: int) -> list[tuple[dict[str, Any], Head]]:
    """`count` notes of a game, each linked to the hash of the one before, with the head each moves to."""
    out: list[tuple[dict[str, Any], Head]] = []
    prev = "g"
    for seq in range(1, count + 1):
        env = note_envelope(seq, prev=prev)
        env["data"] = {"text": f"{game_id}/{seq}"}
        env["hash"] = envelope_hash(env)
        head = Head(seq=seq, hand=0, status="live", totals={"0": 7, "1": 7}, winner=None, head_hash=env["hash"])
        out.append((env, head))
        prev = env["hash"]
    return out


def test_racing_appends_to_many_games_land_each_event_once_with_whole_chains(store: Store) -> None:
    """16 games, two threads racing on each, every append one event on the head it read: every acknowledged
    event is stored once at its seq, every refusal was a real conflict, and each chain links up to its head."""
    games = [new_raw_game(store) for _ in range(16)]
    per_game = 25
    acked: dict[str, list[int]] = {game_id: [] for game_id in games}
    conflicts = [0]
    lock = threading.Lock()

    def race(game_id: str) -> None:
        events = chained(game_id, per_game)
        while True:
            head = store.get_game(game_id).seq
            if head >= per_game:
                return
            env, moved = events[head]
            try:
                store.append(game_id, [env], base_seq=head, head=moved)
            except StreamConflictError as conflict:
                assert conflict.actual > head  # refused only because the other thread moved it
                with lock:
                    conflicts[0] += 1
                continue
            with lock:
                acked[game_id].append(env["seq"])

    threads = [threading.Thread(target=race, args=(g,)) for g in games for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not any(thread.is_alive() for thread in threads)
    for game_id in games:
        assert sorted(acked[game_id]) == list(range(1, per_game + 1))  # each seq acknowledged exactly once
        stored = store.read_events(game_id)
        assert [e["seq"] for e in stored] == list(range(1, per_game + 1))
        assert [e["data"]["text"] for e in stored] == [f"{game_id}/{s}" for s in range(1, per_game + 1)]
        assert all(later["prev_hash"] == earlier["hash"] for earlier, later in itertools.pairwise(stored))
        assert store.get_game(game_id).head_hash == stored[-1]["hash"]
    queue = group_commit(store)
    written = sum(size * count for size, count in queue.sizes.items())
    assert written == 16 * per_game + conflicts[0]  # every append, landed or refused, went through the queue once


def test_the_switch_turns_it_off(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    assert enabled("") and enabled("on") and not enabled("off") and not enabled("0")
    monkeypatch.setenv("TABLEBOOK_GROUP_COMMIT", "off")
    plain = Store(store.url)
    try:
        assert plain.recorder.group_commit is None
        game_id = new_raw_game(plain)
        plain.append(game_id, [note_envelope(1)], base_seq=0, head=head_at(1))
        assert plain.get_game(game_id).seq == 1
    finally:
        plain.dispose()


# ---------------------------------------------------------------------- the queue alone, with stand-in writers


def test_the_queue_hands_a_failed_batch_to_its_members_and_a_lost_one_to_all() -> None:
    answers: list[str] = []

    def write_one(append: Pending) -> bool:
        return True

    def failing(batch: Sequence[Pending]) -> set[str]:
        answers.append(",".join(a.game_id for a in batch))
        raise BatchFailed("23505")

    queue = GroupCommit(write_one, failing, in_flight=1)
    got: dict[str, list[str]] = {"a": [], "b": [], "c": []}

    def run(game_id: str) -> None:
        outcome = queue.append(game_id, ()).outcome
        with queue._lock:
            got[game_id].append(outcome)

    behind_a_held_leader(queue, [partial(run, g) for g in ("a", "c", "b", "c")])
    # the second append to c waited for the next batch, alone; the batch of b and c came sorted by game
    assert answers == ["b,c"]
    assert {g: sorted(o) for g, o in got.items()} == {"a": ["landed"], "b": ["alone"], "c": ["alone", "landed"]}
    assert dict(queue.sizes) == {1: 2, 2: 1}

    lost = RuntimeError("connection lost")

    def losing(batch: Sequence[Pending]) -> set[str]:
        raise lost

    queue = GroupCommit(write_one, losing, in_flight=1)
    errors: list[BaseException] = []

    def run_lost(game_id: str) -> None:
        try:
            queue.append(game_id, ())
        except RuntimeError as error:
            errors.append(error)

    behind_a_held_leader(queue, [partial(run_lost, g) for g in ("a", "b", "c")])
    assert errors == [lost, lost]  # both members of the lost batch, and not the leader that wrote alone before
    assert queue.waiting() == 0 and queue.writing() == 0


def test_two_writes_are_in_flight_before_appends_queue() -> None:
    """A second append while one is written goes straight to the database too (the process's appends overlap
    there, as without group commit); the third waits, and the appends queued behind both leave as one batch
    when the first write ends."""
    written: list[str] = []
    entered = {"a": threading.Event(), "b": threading.Event()}
    release = {"a": threading.Event(), "b": threading.Event()}

    def write_one(append: Pending) -> bool:
        entered[append.game_id].set()
        assert release[append.game_id].wait(10)
        written.append(append.game_id)
        return True

    def write_batch(batch: Sequence[Pending]) -> set[str]:
        written.append(",".join(a.game_id for a in batch))
        return {a.game_id for a in batch}

    queue = GroupCommit(write_one, write_batch)
    assert queue.in_flight == IN_FLIGHT == 2
    threads = {g: threading.Thread(target=queue.append, args=(g, ())) for g in ("a", "b", "c", "d")}
    threads["a"].start()
    assert entered["a"].wait(10)
    threads["b"].start()
    assert entered["b"].wait(10)  # b did not wait for a
    assert queue.writing() == 2 and queue.waiting() == 0
    threads["c"].start()
    threads["d"].start()
    deadline = time.monotonic() + 10
    while queue.waiting() < 2:
        assert time.monotonic() < deadline
        time.sleep(0.005)
    release["a"].set()
    threads["a"].join(10)
    threads["c"].join(10)
    threads["d"].join(10)
    assert written[:2] == ["a", "c,d"]  # a's end handed the lead to c and d together, while b was still writing
    release["b"].set()
    threads["b"].join(10)
    assert written == ["a", "c,d", "b"] and queue.writing() == 0 and dict(queue.sizes) == {1: 2, 2: 1}


@pytest.mark.parametrize("together", [True, False], ids=["in a batch", "alone"])
def test_a_checked_append_lands_only_if_its_key_and_head_are_still_as_read(store: Store, together: bool) -> None:
    """`EventRecorder.append_checked`'s statement, alone or as a member of a batch beside an append without a
    check: it writes only if the game's head is at its base with the hash it chains to and the key's row is the
    one given (same hash, role and club, not revoked); a member that fails its check writes nothing and holds
    up no other."""
    recorder = store.recorder
    club_id = store.ensure_club(f"raw-{store.dialect}")
    other_club = store.ensure_club(f"other-{store.dialect}")
    ids = [secrets.token_hex(6) for _ in range(3)]
    for key_id, club in zip(ids, (club_id, club_id, other_club), strict=True):
        store.add_key(key_id=key_id, club_id=club, role="recorder", key_hash=f"hash-{key_id}")
    store.revoke_key(ids[1])
    good, revoked, other = (store.find_key(key_id) for key_id in ids)
    assert good is not None and revoked is not None and other is not None
    assert revoked.revoked_at is not None
    unrevoked = dataclasses.replace(revoked, revoked_at=None)  # as a process read it before its revocation
    envelope, stale = note_envelope(1, prev="g"), note_envelope(1, prev="not-the-head")
    checks = {
        "plain": None,
        "good": check_of(envelope, good),
        "revoked": check_of(envelope, unrevoked),
        "other club": check_of(envelope, other),
        "another hash": check_of(envelope, dataclasses.replace(good, key_hash="changed")),
        "another role": check_of(envelope, dataclasses.replace(good, role="auditor")),
        "stale head": check_of(stale, good),
    }
    games = {name: new_raw_game(store) for name in checks}

    def pending(name: str) -> Pending:
        params = recorder.one_event_params(games[name], row_values(games[name], envelope), "now", 0, head_at(1))
        return Pending(games[name], params, check=checks[name])

    if together:
        landed = recorder._write_batch(sorted((pending(name) for name in checks), key=lambda p: p.game_id))
    else:
        landed = {games[name] for name in checks if recorder._write_alone(pending(name))}
    assert landed == {games["plain"], games["good"]}
    assert {name: store.get_game(game_id).seq for name, game_id in games.items()} == {
        name: 1 if name in ("plain", "good") else 0 for name in checks
    }
    # the recorder's own call, through the queue: the same answers
    after = note_envelope(2, prev="h1")
    assert recorder.append_checked(games["good"], after, base_seq=1, head=head_at(2), key=good)
    assert not recorder.append_checked(games["good"], after, base_seq=1, head=head_at(2), key=good)  # moved on
    assert not recorder.append_checked(games["stale head"], envelope, base_seq=0, head=head_at(1), key=unrevoked)
    assert store.get_game(games["good"]).seq == 2
