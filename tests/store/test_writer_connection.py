"""SQLite: the appends write on one connection kept out of the pool (`Database.writer_connection`), which an
error leaves fresh for the next append and `Store.dispose` closes; PostgreSQL keeps none (its appends run in
parallel on pooled connections)."""

from __future__ import annotations

import pytest

from events.errors import NotFoundError, StreamConflictError
from events.store import Store
from tests.store.helpers import head_at, new_raw_game, note_envelope


def test_the_appends_of_a_sqlite_store_write_on_one_kept_connection(store: Store) -> None:
    game_id = new_raw_game(store)
    store.append(game_id, [note_envelope(1)], base_seq=0, head=head_at(1))
    kept = store.db.writer_connection()
    if store.dialect == "postgresql":
        assert kept is None
        return
    assert kept is not None
    checked_out = store.engine.pool.checkedout()  # type: ignore[attr-defined]
    store.append(game_id, [note_envelope(2)], base_seq=1, head=head_at(2))
    assert store.db.writer_connection() is kept
    assert store.engine.pool.checkedout() == checked_out  # type: ignore[attr-defined]
    assert [e["seq"] for e in store.read_events(game_id)] == [1, 2]


def test_a_failed_append_leaves_no_transaction_open_for_the_next(store: Store) -> None:
    game_id = new_raw_game(store)
    store.append(game_id, [note_envelope(1)], base_seq=0, head=head_at(1))
    with pytest.raises(StreamConflictError):
        store.append(game_id, [note_envelope(1)], base_seq=0, head=head_at(1))
    unbindable = {**note_envelope(2), "hand": {"not": "a number"}}  # fails in the transaction, after the head moved
    with pytest.raises(Exception) as failed:
        store.append(game_id, [unbindable], base_seq=1, head=head_at(2))  # type: ignore[list-item]
    assert not isinstance(failed.value, StreamConflictError)
    store.append(game_id, [note_envelope(2)], base_seq=1, head=head_at(2))  # the head's move was rolled back
    assert [e["seq"] for e in store.read_events(game_id)] == [1, 2]
    assert store.get_game(new_raw_game(store)).seq == 0  # another connection writes: no lock is left held


def test_dispose_closes_the_kept_connection(store_url: str) -> None:
    store = Store(store_url)
    game_id = new_raw_game(store)
    store.append(game_id, [note_envelope(1)], base_seq=0, head=head_at(1))
    store.dispose()
    assert store.db._kept is None
    again = Store(store_url)
    try:
        assert [e["seq"] for e in again.read_events(game_id)] == [1]
    finally:
        again.dispose()


def test_a_key_read_on_the_kept_connection_sees_what_has_committed_and_no_open_transaction(store: Store) -> None:
    """SQLite reads an append's key and game on the kept connection when the writer lock is free and the connection
    in no transaction; else on a pooled one, which sees only what has committed, as it does."""
    import threading

    game_id = new_raw_game(store)
    key_id = "kept1"
    store.add_key(key_id=key_id, club_id=store.get_game(game_id).club_id, role="recorder", key_hash="h", label="")
    store.append(game_id, [note_envelope(1)], base_seq=0, head=head_at(1))
    key, game = store.find_key_and_game(key_id, game_id)
    assert key is not None and game is not None and game.seq == 1
    if store.dialect == "postgresql":
        return
    kept = store.db.writer_connection()
    assert kept is not None
    with store.db.one_writer():  # this thread holds the lock (re-entrant), the kept connection in a transaction
        cursor = kept.cursor()
        cursor.execute("BEGIN IMMEDIATE")
        cursor.execute("UPDATE game SET seq = 7 WHERE id = ?", (game_id,))
        assert store.find_key_and_game(key_id, game_id)[1].seq == 1  # type: ignore[union-attr]
        kept.rollback()
        cursor.close()
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        with store.db.one_writer():
            held.set()
            release.wait(10)

    other = threading.Thread(target=holder)
    other.start()
    try:
        held.wait(10)
        assert store.find_key_and_game(key_id, game_id)[1].seq == 1  # type: ignore[union-attr]
    finally:
        release.set()
        other.join()
    store.append(game_id, [note_envelope(2)], base_seq=1, head=head_at(2))
    assert store.find_key_and_game(key_id, game_id)[1].seq == 2  # type: ignore[union-attr]
    assert not kept.driver_connection.in_transaction


def test_the_kept_connection_alone_checks_no_foreign_key_and_is_never_pooled(store: Store) -> None:
    """SQLite: the kept connection's foreign keys are off (an append's head UPDATE has found its game), and it is
    closed, not given back to the pool, when dropped: every pooled connection checks them as before."""
    if store.dialect == "postgresql":
        return
    kept = store.db.writer_connection()
    assert kept is not None
    assert kept.driver_connection.execute("PRAGMA foreign_keys").fetchone() == (0,)
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar_one() == 1
    driver = kept.driver_connection
    store.db.drop_writer_connection()
    with pytest.raises(Exception, match="closed"):
        driver.execute("SELECT 1")
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar_one() == 1
        with pytest.raises(Exception, match="FOREIGN KEY"):
            conn.exec_driver_sql(
                "INSERT INTO append_request (game_id, idempotency_key, body_hash, first_seq, last_seq, created_at) "
                "VALUES ('g-none', 'k', 'b', 1, 1, 'now')"
            )
    assert store.db.writer_connection().driver_connection.execute("PRAGMA foreign_keys").fetchone() == (0,)  # type: ignore[union-attr]


@pytest.mark.parametrize("events", [1, 3])
def test_an_append_to_no_game_writes_nothing_without_the_foreign_key(store: Store, events: int) -> None:
    """The foreign key's check, off on the kept connection, is the head's: an append, with an Idempotency-Key or
    not, to a game that is not there is refused and leaves no row behind."""
    envelopes = [note_envelope(seq) for seq in range(1, events + 1)]
    with pytest.raises(NotFoundError):
        store.append("g-none", envelopes, base_seq=0, head=head_at(events))
    with pytest.raises(NotFoundError):
        store.append("g-none", envelopes, base_seq=0, head=head_at(events), idempotency=("k", "b"))
    with store.engine.connect() as conn:
        counts = [
            conn.exec_driver_sql(f"SELECT COUNT(*) FROM {table} WHERE game_id = 'g-none'").scalar_one()
            for table in ("event", "append_request")
        ]
    assert counts == [0, 0]
