"""Batches of events (on PostgreSQL written with a COPY from `COPY_FROM` rows on, `Dialect.insert_events`): every
field back as it went in, whatever the text holds, and a batch that breaks a key writes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from events.envelope import seal
from events.errors import StreamConflictError
from events.store import Store
from events.store.dialect import COPY_FROM
from tests.store.helpers import head_at, new_raw_game

#: texts a COPY's text format must escape: tabs, newlines, backslashes, its NULL marker, quotes, other scripts
AWKWARD = ["tab\there", "line\nbreak\r\n", "back\\slash", "\\N", "\\.", "quote \" and '", "Ünïcödé ♠♥ 牌", ""]


def _batch(first: int, count: int, prev: str = "0" * 64) -> list[Any]:
    envelopes = []
    for seq in range(first, first + count):
        text = AWKWARD[seq % len(AWKWARD)]
        envelope = seal(
            seq=seq,
            hand=seq // 10,
            event={"type": "note", "text": text, "ref": seq - 1 if seq > 1 else None},
            result={"said": text} if seq % 3 else {},
            violation={"rule": "r", "message": text} if seq % 5 == 0 else None,
            recorded_at="2026-12-06T00:00:00.000000Z",
            actor=f"actor {text}",
            prev_hash=prev,
            version=2 if seq % 2 else None,
        )
        prev = envelope["hash"]
        envelopes.append(envelope)
    return envelopes


@pytest.mark.parametrize("count", [1, COPY_FROM - 1, COPY_FROM, 50])
def test_a_batch_reads_back_exactly_as_it_was_appended(store: Store, count: int) -> None:
    game_id = new_raw_game(store)
    envelopes = _batch(1, count)
    store.append(game_id, envelopes, base_seq=0, head=head_at(count))
    assert store.read_events(game_id) == [dict(envelope) for envelope in envelopes]


def test_a_batch_that_breaks_the_key_in_its_middle_writes_nothing(store: Store) -> None:
    game_id = new_raw_game(store)
    store.append(game_id, _batch(1, 2), base_seq=0, head=head_at(2))
    broken = _batch(3, 10)
    broken[6] = broken[5]  # seq 8 twice
    with pytest.raises(StreamConflictError):
        store.append(game_id, broken, base_seq=2, head=head_at(12))
    assert [e["seq"] for e in store.read_events(game_id)] == [1, 2]
    assert store.get_game(game_id).seq == 2
    store.append(game_id, _batch(3, 10), base_seq=2, head=head_at(12))  # nothing left half done
    assert [e["seq"] for e in store.read_events(game_id)] == list(range(1, 13))
