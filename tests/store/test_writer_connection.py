"""SQLite: the appends write on one connection kept out of the pool (`Database.writer_connection`), which an
error leaves fresh for the next append and `Store.dispose` closes; PostgreSQL keeps none (its appends run in
parallel on pooled connections)."""

from __future__ import annotations

import pytest

from events.errors import StreamConflictError
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
