"""The store on SQLite and PostgreSQL: append-only, conflicts, idempotency, atomic batches, tamper evidence."""

from __future__ import annotations

import dataclasses
import itertools
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, IntegrityError

from events.codec import dumps, envelope_hash
from events.errors import StreamConflictError
from events.store import DuplicateRequest, Store, new_id
from events.store.log import CheckpointPage, LogFilter
from events.store.tracking import advance
from projections.core.recorder import Recorder
from projections.reading.verify import verify_game
from tests.projections.helpers import load_example
from tests.store.helpers import head_at, new_raw_game, note_envelope, tamper

#: the PostgreSQL database on this test session's own server (conftest `store_url`): two tests read the
#: global log, which waits below the transaction-id horizon, and a long transaction of other work on a
#: shared server (a benchmark's bulk fill, seen 2026-12-06) held it back past `_log_after`'s 10 s
OWN_SERVER = True


def record_example(store: Store, name: str = "schnapsen-9001.json", batch: int = 10) -> str:
    example = load_example(name)
    recorder = Recorder(store)
    club_id = store.ensure_club(f"store-tests-{store.dialect}")
    game = recorder.create_game(
        club_id=club_id, kind=example["game"], players=example["players"], options=example["options"]
    )
    events = example["events"]
    for start in range(0, len(events), batch):
        recorder.append(game.id, events[start : start + batch], club_id=club_id, actor="test")
    return game.id


def test_recorded_game_reads_back_and_verifies(store: Store) -> None:
    game_id = record_example(store)
    envelopes = store.read_events(game_id)
    assert [e["seq"] for e in envelopes] == list(range(1, 140))
    assert all(envelope_hash(e) == e["hash"] for e in envelopes)
    assert all(b["prev_hash"] == a["hash"] for a, b in itertools.pairwise(envelopes))
    game = store.get_game(game_id)
    assert game.seq == 139 and game.status == "finished" and game.winner == 0
    assert game.totals == {"0": -1, "1": 4} and game.head_hash == envelopes[-1]["hash"]
    report = verify_game(game, envelopes)
    assert report.ok and report.events == 139 and report.head_hash == game.head_hash


def test_the_folds_read_is_the_envelopes_seq_type_version_and_data_with_the_heads_hash(store: Store) -> None:
    """`read_for_fold` (what a load of a game's state reads) gives, of each envelope `read_events` gives, its seq,
    type, version and data, and the hash of the event at `upto`: None when no event there was read."""
    game_id = record_example(store)
    whole = store.read_events(game_id)
    keys = ("seq", "type", "v", "data")
    for after, upto in ((0, 139), (0, 20), (19, 21), (138, 139)):
        lean, head = store.read_for_fold(game_id, after, upto)
        wanted = [env for env in whole if after < env["seq"] <= upto]
        assert lean == [{k: env[k] for k in keys if k in env} for env in wanted]
        assert head == wanted[-1]["hash"]
    assert store.read_for_fold(game_id, 139, 139) == ([], None)
    assert store.read_for_fold(game_id, 130, 500) == (store.read_for_fold(game_id, 130, 139)[0], None)
    state = Recorder(store, snapshots=False).live(game_id, fresh=True)
    assert state.head_hash == whole[-1]["hash"] and state.state.seq == 139


def test_a_recorder_catches_up_with_another_ones_appends_from_the_folds_read(store: Store) -> None:
    """A process's cached state, behind the head another process moved, is caught up by folding the events
    since (`read_for_fold`): the same position and head hash as a fold from the first event, and its next
    append chains to that hash."""
    example = load_example("schnapsen-9001.json")
    club_id = store.ensure_club(f"store-tests-{store.dialect}")
    mine, theirs = Recorder(store), Recorder(store)
    game = mine.create_game(
        club_id=club_id, kind=example["game"], players=example["players"], options=example["options"]
    )
    events = example["events"]
    mine.append(game.id, events[:10], club_id=club_id, actor="test")
    theirs.append(game.id, events[10:25], club_id=club_id, actor="test")
    caught_up = mine.live(game.id)
    fresh = Recorder(store, snapshots=False).live(game.id, fresh=True)
    assert caught_up.state == fresh.state and caught_up.state.seq == 25
    assert caught_up.head_hash == fresh.head_hash == store.read_events(game.id, 24)[0]["hash"]
    mine.append(game.id, events[25:30], club_id=club_id, actor="test")
    assert verify_game(store.get_game(game.id), store.read_events(game.id)).ok


def test_update_and_delete_on_event_are_refused_by_the_database(store: Store) -> None:
    game_id = record_example(store, batch=139)
    for statement in ("UPDATE event SET type = 'x' WHERE game_id = :g", "DELETE FROM event WHERE game_id = :g"):
        with pytest.raises(DBAPIError, match="append-only"), store.engine.connect() as conn, conn.begin():
            conn.execute(text(statement), {"g": game_id})
    assert len(store.read_events(game_id)) == 139


def test_truncate_is_refused_on_postgresql(store: Store) -> None:
    if store.dialect != "postgresql":
        pytest.skip("SQLite has no TRUNCATE")
    record_example(store, batch=139)
    with pytest.raises(DBAPIError, match="append-only"), store.engine.connect() as conn, conn.begin():
        conn.exec_driver_sql("TRUNCATE event CASCADE")


def test_append_on_a_stale_head_is_a_conflict_and_writes_nothing(store: Store) -> None:
    game_id = new_raw_game(store)
    store.append(game_id, [note_envelope(1), note_envelope(2)], base_seq=0, head=head_at(2))
    with pytest.raises(StreamConflictError) as conflict:
        store.append(game_id, [note_envelope(2)], base_seq=1, head=head_at(2))
    assert (conflict.value.expected, conflict.value.actual) == (1, 2)
    assert [e["seq"] for e in store.read_events(game_id)] == [1, 2]


def test_a_head_that_changes_status_moves_only_on_its_base(store: Store) -> None:
    """SQLite moves a head with its status left out when it is unchanged, and with it when it changes: both
    on the base seq only, the status written exactly when it differs."""
    game_id = new_raw_game(store)
    store.append(game_id, [note_envelope(1)], base_seq=0, head=head_at(1))
    finished = dataclasses.replace(head_at(2), status="finished", winner=1)
    with pytest.raises(StreamConflictError):
        store.append(game_id, [note_envelope(2)], base_seq=0, head=finished)
    game = store.get_game(game_id)
    assert (game.seq, game.status, game.winner, game.head_hash) == (1, "live", None, "h1")
    store.append(game_id, [note_envelope(2)], base_seq=1, head=finished)
    game = store.get_game(game_id)
    assert (game.seq, game.status, game.winner, game.head_hash) == (2, "finished", 1, "h2")
    store.append(game_id, [note_envelope(3)], base_seq=2, head=dataclasses.replace(head_at(3), status="finished"))
    assert (store.get_game(game_id).seq, store.get_game(game_id).status) == (3, "finished")


def test_the_unique_game_seq_key_is_the_backstop(store: Store) -> None:
    game_id = new_raw_game(store)
    store.append(game_id, [note_envelope(1)], base_seq=0, head=head_at(1))
    row = {
        "game_id": game_id,
        "seq": 1,
        "hand": 0,
        "type": "note",
        "data": "{}",
        "result": "{}",
        "violation": None,
        "recorded_at": "t",
        "actor": "a",
        "prev_hash": "p",
        "hash": "h",
    }
    with pytest.raises(IntegrityError), store.engine.connect() as conn, conn.begin():
        conn.execute(
            text(
                "INSERT INTO event (game_id, seq, hand, type, data, result, violation, recorded_at, actor, "
                "prev_hash, hash) VALUES (:game_id, :seq, :hand, :type, :data, :result, :violation, "
                ":recorded_at, :actor, :prev_hash, :hash)"
            ),
            row,
        )


def test_a_batch_is_all_or_nothing(store: Store) -> None:
    game_id = new_raw_game(store)
    store.append(game_id, [note_envelope(1)], base_seq=0, head=head_at(1))
    with pytest.raises(StreamConflictError):
        # the head moves, then the second row collides with seq 1: the whole transaction rolls back
        store.append(game_id, [note_envelope(2), note_envelope(1)], base_seq=1, head=head_at(3))
    assert [e["seq"] for e in store.read_events(game_id)] == [1]
    assert store.get_game(game_id).seq == 1


def test_idempotency_key_lands_once(store: Store) -> None:
    game_id = new_raw_game(store)
    store.append(game_id, [note_envelope(1)], base_seq=0, head=head_at(1), idempotency=("k1", "body"))
    with pytest.raises(DuplicateRequest) as duplicate:
        store.append(game_id, [note_envelope(2)], base_seq=1, head=head_at(2), idempotency=("k1", "body"))
    assert (duplicate.value.prior.first_seq, duplicate.value.prior.last_seq) == (1, 1)
    assert len(store.read_events(game_id)) == 1
    found = store.find_request(game_id, "k1")
    assert found is not None and found.body_hash == "body"


def _log_after(store: Store, start: int, games: set[str], count: int) -> list[Any]:
    """The log after `start`, these games' events, once `count` of them are readable (within 10 s).

    On PostgreSQL a transaction open anywhere on the server (another test session's) holds the log's
    horizon back for a moment: the reader waits for it, as a follower would.
    """
    deadline = time.monotonic() + 10
    while True:
        rows = [r for r in store.read_positions(after=start) if r[1] in games]
        if len(rows) >= count or time.monotonic() > deadline:
            return rows
        time.sleep(0.05)


def test_global_position_orders_every_event(store: Store) -> None:
    first, second = new_raw_game(store), new_raw_game(store)
    start = store.head_position()
    store.append(first, [note_envelope(1)], base_seq=0, head=head_at(1))
    store.append(second, [note_envelope(1), note_envelope(2)], base_seq=0, head=head_at(2))
    store.append(first, [note_envelope(2)], base_seq=1, head=head_at(2))
    rows = _log_after(store, start, {first, second}, 4)
    assert [(gid, env["seq"]) for _, gid, env in rows] == [(first, 1), (second, 1), (second, 2), (first, 2)]
    positions = [p for p, _, _ in rows]
    assert positions == sorted(positions) and len(set(positions)) == 4


def test_an_edited_row_fails_verify_at_its_seq(store: Store) -> None:
    game_id = record_example(store)
    tamper(store, "UPDATE event SET data = :d WHERE game_id = :g AND seq = 40", d='{"card":"AS","seat":1}', g=game_id)
    report = verify_game(store.get_game(game_id), store.read_events(game_id))
    assert not report.ok and report.first_bad_seq == 40 and report.problems[0]["problem"] == "hash"


def test_an_edited_row_with_a_recomputed_hash_breaks_the_next_link(store: Store) -> None:
    game_id = record_example(store)
    env = store.read_events(game_id, 19, 1)[0]
    assert env["type"] == "deal"
    env["data"] = {**env["data"], "dealer": 1 - env["data"]["dealer"]}
    tamper(
        store,
        "UPDATE event SET data = :d, hash = :h WHERE game_id = :g AND seq = 20",
        d=dumps(env["data"]),
        h=envelope_hash(env),
        g=game_id,
    )
    report = verify_game(store.get_game(game_id), store.read_events(game_id))
    # the row hashes right and links back right: the next row's link and the rules both catch it
    assert not report.ok and report.first_bad_seq == 20 and report.problems[0]["problem"] == "rules"
    dealer = load_example("schnapsen-9001.json")["players"][0]
    assert f"{dealer} deals this hand" in report.problems[0]["message"]  # in words, with the player's name


def test_a_rehashed_note_breaks_the_link_of_the_next_event(store: Store) -> None:
    game_id = record_example(store)
    club_id = store.get_game(game_id).club_id
    recorder = Recorder(store)
    recorder.append(
        game_id,
        [{"type": "note", "text": "Lukas disputes trick 4"}, {"type": "note", "text": "ok"}],
        club_id=club_id,
        actor="test",
    )
    env = store.read_events(game_id, 139, 1)[0]
    env["data"] = {"text": "Emma disputes trick 4"}
    tamper(
        store,
        "UPDATE event SET data = :d, hash = :h WHERE game_id = :g AND seq = 140",
        d=dumps(env["data"]),
        h=envelope_hash(env),
        g=game_id,
    )
    report = verify_game(store.get_game(game_id), store.read_events(game_id))
    assert not report.ok and report.first_bad_seq == 141 and report.problems[0]["problem"] == "chain"


def test_a_deleted_row_fails_verify_at_the_missing_seq(store: Store) -> None:
    game_id = record_example(store)
    tamper(store, "DELETE FROM event WHERE game_id = :g AND seq = 77", g=game_id)
    report = verify_game(store.get_game(game_id), store.read_events(game_id))
    assert report.first_bad_seq == 77 and report.problems[0]["problem"] == "missing"


def test_reordered_rows_fail_verify(store: Store) -> None:
    game_id = record_example(store)
    tamper(store, "UPDATE event SET seq = -1 WHERE game_id = :g AND seq = 30", g=game_id)
    tamper(store, "UPDATE event SET seq = 30 WHERE game_id = :g AND seq = 31", g=game_id)
    tamper(store, "UPDATE event SET seq = 31 WHERE game_id = :g AND seq = -1", g=game_id)
    report = verify_game(store.get_game(game_id), store.read_events(game_id))
    assert not report.ok and report.first_bad_seq == 30


def test_a_dropped_tail_is_found_against_the_recorded_head(store: Store) -> None:
    game_id = record_example(store)
    tamper(store, "DELETE FROM event WHERE game_id = :g AND seq = 139", g=game_id)
    report = verify_game(store.get_game(game_id), store.read_events(game_id))
    assert not report.ok and report.first_bad_seq == 139


def test_the_log_waits_for_a_late_commit_instead_of_skipping_it(store: Store, store_url: str) -> None:
    """An append that took a smaller position commits after one to another game: a log follower gets both, in order.

    PostgreSQL only (SQLite's second writer would wait for the first). The first append sleeps 1 s
    inside its transaction, after its row is written; the second, to another game, commits meanwhile.
    A reader by position alone would read the second and move its cursor past the first for ever.
    """
    if store.dialect != "postgresql":
        pytest.skip("SQLite has one writer: positions commit in order")
    slow, fast = new_raw_game(store), new_raw_game(store)
    late = Store(store_url)
    late.recorder.commit_delay = (1.0, 1.0)
    start = store.head_position()
    thread = threading.Thread(
        target=late.append, args=(slow, [note_envelope(1)]), kwargs={"base_seq": 0, "head": head_at(1)}
    )
    try:
        thread.start()
        time.sleep(0.4)  # the slow append has written its row (its position) and sleeps before its commit
        store.append(fast, [note_envelope(1)], base_seq=0, head=head_at(1))
        mine = [gid for _, gid, _ in store.read_positions(after=start) if gid in (slow, fast)]
        assert mine == []  # the fast event is not handed out while the slow transaction is open
        thread.join()
    finally:
        late.dispose()
    rows = _log_after(store, start, {slow, fast}, 2)
    assert [gid for _, gid, _ in rows] == [slow, fast] and rows[0][0] < rows[1][0]
    assert [r for r in store.read_positions(after=rows[0][0]) if r[1] in (slow, fast)] == rows[1:]


#: a read model's filter for the raw games' notes: a game's first event (a note at seq 1), nothing after it
FIRSTS = LogFilter(first_events=True)


def _checkpoint_at(store: Store, position: int) -> str:
    """A new read model's checkpoint, made at `position`; its name."""
    name = f"test-{new_id()}"
    with store.db.write() as conn, conn.begin():
        conn.execute(text("INSERT INTO projection_checkpoint (name, position, updated_at) VALUES (:n, :p, 'now')"),
                     {"n": name, "p": position})  # fmt: skip
    return name


def _read_until(store: Store, name: str, done: Callable[[CheckpointPage], bool]) -> CheckpointPage:
    """`read_checkpointed` until its page is `done` (within 10 s: see `_log_after` on the horizon)."""
    deadline = time.monotonic() + 10
    while True:
        page = store.log.read_checkpointed(name, 100, FIRSTS)
        if done(page) or time.monotonic() > deadline:
            return page
        time.sleep(0.05)


def test_a_read_model_reads_its_checkpoint_with_its_page_and_an_empty_page_moves_it(store: Store) -> None:
    """`read_checkpointed`: the checkpoint and the page from it; a page with rows moves nothing (the read model
    writes its rows with the move); on PostgreSQL a page with none moves the checkpoint to the head itself."""
    game = new_raw_game(store)
    start = store.head_position()
    name = _checkpoint_at(store, start)
    store.append(game, [note_envelope(1)], base_seq=0, head=head_at(1))  # a first event: the filter takes it
    page = _read_until(store, name, lambda p: any(row[1] == game for row in p.rows))
    assert page.old == start and [(row[1], row[2]) for row in page.rows] == [(game, 1)] and not page.moved
    assert store.projection_position(name) == start
    assert advance(store.db, name, start, page.upto)
    store.append(game, [note_envelope(2)], base_seq=1, head=head_at(2))  # a note the filter leaves out
    last = store.head_position()
    page = _read_until(store, name, lambda p: p.upto == last or p.old == last)
    if store.dialect == "postgresql":  # moved by the read itself
        assert page.old < last and page.upto == last and page.rows == [] and page.moved
    else:  # SQLite: the read model moves it (its writes queue behind the process's writer lock)
        assert page.upto == last and page.rows == [] and not page.moved
        assert advance(store.db, name, page.old, page.upto)
    assert store.projection_position(name) == last
    again = store.log.read_checkpointed(name, 100, FIRSTS)
    assert (again.old, again.upto, again.rows, again.moved) == (last, last, [], False)
    never = store.log.read_checkpointed(f"test-{new_id()}", 100, FIRSTS)  # no checkpoint: read from 0, made by none
    assert never.old == 0 and not never.moved and store.projection_position(f"test-{new_id()}") == 0


def test_a_read_models_empty_page_never_moves_its_checkpoint_past_a_late_commit(store: Store, store_url: str) -> None:
    """The move made by `read_checkpointed` stays below the horizon: an event whose transaction is still open
    (its position before one committed after it) is read once it commits, never passed over."""
    if store.dialect != "postgresql":
        pytest.skip("SQLite has one writer: positions commit in order")
    slow, fast = new_raw_game(store), new_raw_game(store)
    start = store.head_position()
    name = _checkpoint_at(store, start)
    late = Store(store_url)
    late.recorder.commit_delay = (1.0, 1.0)
    thread = threading.Thread(
        target=late.append, args=(slow, [note_envelope(1)]), kwargs={"base_seq": 0, "head": head_at(1)}
    )
    try:
        thread.start()
        time.sleep(0.4)  # the slow first event has its position and waits before its commit
        store.append(fast, [note_envelope(2)], base_seq=0, head=head_at(2))  # not a first event: left out
        page = store.log.read_checkpointed(name, 100, FIRSTS)
        assert page.rows == [] and not page.moved and store.projection_position(name) == start
        thread.join()
    finally:
        late.dispose()
    page = _read_until(store, name, lambda p: any(row[1] == slow for row in p.rows))
    assert [(row[1], row[2]) for row in page.rows if row[1] in (slow, fast)] == [(slow, 1)] and not page.moved


def test_a_key_and_its_clubs_game_are_read_in_one_round_trip(store: Store) -> None:
    """`find_key_and_game`: the key as `find_key` reads it, and the game only if it is of the key's club."""
    game_id = new_raw_game(store)
    club_id = store.get_game(game_id).club_id
    store.add_key(key_id="k-own", club_id=club_id, role="recorder", key_hash="h")
    store.add_key(key_id="k-other", club_id=store.ensure_club(f"other-{store.dialect}"), role="viewer", key_hash="h")
    key, game = store.find_key_and_game("k-own", game_id)
    assert key == store.find_key("k-own") and game == store.get_game(game_id)
    key, game = store.find_key_and_game("k-other", game_id)
    assert key == store.find_key("k-other") and game is None  # another club's game is not found
    assert store.find_key_and_game("k-own", "no-such-game") == (store.find_key("k-own"), None)
    assert store.find_key_and_game("no-such-key", game_id) == (None, None)
