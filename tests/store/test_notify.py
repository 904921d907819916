"""PostgreSQL: an append sends its game's NOTIFY itself, in the statement that moves the head, delivered at its
commit (events/store/notify.py); another process's listener wakes the game, and a process's own listener skips
the NOTIFYs of its own appends (`publish` woke them already)."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
import pytest

from events.errors import StreamConflictError
from events.store import Store, notify
from tests.store.helpers import head_at, new_raw_game, note_envelope

#: NOTIFY is PostgreSQL's; SQLite's other processes look at the head (tests/api/test_stream_push.py)
STORES = ("postgres",)


def listening(store: Store) -> psycopg.Connection[Any]:
    conn = psycopg.connect(store.url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True)
    conn.execute(f"LISTEN {notify.CHANNEL}")
    return conn


def heard(conn: psycopg.Connection[Any], count: int) -> list[str]:
    """The next `count` payloads (the bound is for a broken build only). They come in commit order: the last
    one there, every earlier NOTIFY has come too."""
    return [note.payload for note in conn.notifies(timeout=60.0, stop_after=count)]


def test_each_append_notifies_its_game_once_at_its_commit(store: Store) -> None:
    game_id = new_raw_game(store)
    sent = notify.payload(store.db, game_id)
    assert sent == f"{game_id} {notify.sender(store.db)}"
    with listening(store) as conn:
        store.append(game_id, [note_envelope(1)], base_seq=0, head=head_at(1))  # one statement
        store.append(game_id, [note_envelope(2), note_envelope(3)], base_seq=1, head=head_at(3))  # a transaction
        store.append(game_id, [note_envelope(4)], base_seq=3, head=head_at(4), idempotency=("key-4", "body"))
        with store.recorder.hold_head(game_id, 5.0) as held:
            store.append(game_id, [note_envelope(5)], base_seq=4, head=head_at(5), held=held)
        assert heard(conn, 4) == [sent] * 4


def test_a_refused_append_notifies_nothing(store: Store) -> None:
    game_id = new_raw_game(store)
    store.append(game_id, [note_envelope(1)], base_seq=0, head=head_at(1))
    with listening(store) as conn:
        with pytest.raises(StreamConflictError):
            store.append(game_id, [note_envelope(3)], base_seq=2, head=head_at(3))
        with pytest.raises(StreamConflictError):  # the head moves, the row collides: the statement is undone
            store.append(game_id, [note_envelope(1)], base_seq=1, head=head_at(9))
        with pytest.raises(StreamConflictError):
            store.append(game_id, [note_envelope(3), note_envelope(4)], base_seq=2, head=head_at(4))
        other = new_raw_game(store)
        store.append(other, [note_envelope(1)], base_seq=0, head=head_at(1))
        assert heard(conn, 1) == [notify.payload(store.db, other)]  # and none before it


def test_a_listener_wakes_the_other_stores_appends_and_skips_its_own(store: Store) -> None:
    other = Store(store.url)  # another process's store: another sender
    try:
        mine, theirs = new_raw_game(store), new_raw_game(store)
        notifier = notify.notifier_for(store)
        woken: list[str] = []
        wake = notifier._wake

        def recorded(game_ids: Any) -> None:
            if game_ids is not None:
                woken.extend(game_ids)
            wake(game_ids)

        notifier._wake = recorded  # type: ignore[method-assign]

        async def follow() -> None:
            with notifier.subscribe(mine), notifier.subscribe(theirs):
                while notifier.wake_alls < 1:  # the listener has started: it wakes everyone once it listens
                    await asyncio.sleep(0.01)
                store.append(mine, [note_envelope(1)], base_seq=0, head=head_at(1))  # not published: skipped
                other.append(theirs, [note_envelope(1)], base_seq=0, head=head_at(1))
                for _ in range(6000):  # a broken build only: the NOTIFY comes at once
                    if theirs in woken:
                        break
                    await asyncio.sleep(0.01)

        asyncio.run(follow())
        # delivered in commit order: by the time the other store's append woke its game, ours had been skipped
        assert woken == [theirs]
        notifier.close()
    finally:
        other.dispose()
