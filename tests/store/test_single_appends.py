"""An append of one event (on PostgreSQL one statement in autocommit, `EventRecorder._append_in_one`; on SQLite
the transaction of any append) is all or nothing: refused, it leaves the game's row and events as they were."""

from __future__ import annotations

import pytest

from events.errors import NotFoundError, StreamConflictError
from events.store import Store
from tests.store.helpers import head_at, new_raw_game, note_envelope


def test_one_event_lands_with_its_head(store: Store) -> None:
    game_id = new_raw_game(store)
    store.append(game_id, [note_envelope(1)], base_seq=0, head=head_at(1))
    game = store.get_game(game_id)
    assert (game.seq, game.head_hash) == (1, "h1")
    assert [e["seq"] for e in store.read_events(game_id)] == [1]


def test_one_event_on_a_head_elsewhere_moves_nothing(store: Store) -> None:
    game_id = new_raw_game(store)
    store.append(game_id, [note_envelope(1)], base_seq=0, head=head_at(1))
    with pytest.raises(StreamConflictError) as conflict:
        store.append(game_id, [note_envelope(3)], base_seq=2, head=head_at(3))  # no event 3 lands without its head
    assert (conflict.value.expected, conflict.value.actual) == (2, 1)
    assert [e["seq"] for e in store.read_events(game_id)] == [1]
    assert store.get_game(game_id).head_hash == "h1"


def test_one_event_whose_row_collides_moves_no_head(store: Store) -> None:
    game_id = new_raw_game(store)
    store.append(game_id, [note_envelope(1)], base_seq=0, head=head_at(1))
    with pytest.raises(StreamConflictError):
        # the head's update matches (seq 1), the row (game, 1) is there: the statement, update included, is undone
        store.append(game_id, [note_envelope(1)], base_seq=1, head=head_at(9))
    game = store.get_game(game_id)
    assert (game.seq, game.head_hash) == (1, "h1")


def test_one_event_to_no_game_is_not_found(store: Store) -> None:
    with pytest.raises(NotFoundError):
        store.append("g-none", [note_envelope(1)], base_seq=0, head=head_at(1))
