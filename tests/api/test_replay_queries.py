"""A viewer's replay, and every read of the replay page, in at most four queries after the key check.

The game has hidden hands and retracts: a retract inside a finished hand, and one inside the live hand,
whose retracted play a viewer must see as the table the correction put back. The queries are counted
on the store's engine: SQLAlchemy's `before_cursor_execute` event for every statement run through a
Connection, and each statement run on a raw DBAPI connection (the store's hot reads use those, which
the event never sees) by a cursor that counts; the process's state cache holds the game's head, as it
does once a server has served the game. The key check is one query on every request.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

from events.store import Store
from projections.core.registry import rules_for
from projections.core.simulate import play
from tests.conftest import BOTH, Club

#: the stores differ in how they are read: both, each its own count
STORES = BOTH
#: queries a read of the game may make after the key check
MOST = 4


class _Cursor:
    def __init__(self, cursor: Any, seen: list[str]) -> None:
        self._cursor, self._seen = cursor, seen

    def execute(self, statement: str, *args: Any, **kwargs: Any) -> Any:
        self._seen.append(statement)
        return self._cursor.execute(statement, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)


class _Connection:
    def __init__(self, connection: Any, seen: list[str]) -> None:
        self._connection, self._seen = connection, seen

    def cursor(self, *args: Any, **kwargs: Any) -> _Cursor:
        return _Cursor(self._connection.cursor(*args, **kwargs), self._seen)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)


@contextmanager
def counted(store: Store) -> Iterator[list[str]]:
    """Every statement the store's engine runs meanwhile, in order."""
    seen: list[str] = []

    def before(conn: Any, cursor: Any, statement: str, params: Any, context: Any, executemany: bool) -> None:
        seen.append(statement)

    raw_connection = store.engine.raw_connection
    event.listen(store.engine, "before_cursor_execute", before)
    store.engine.raw_connection = lambda: _Connection(raw_connection(), seen)  # type: ignore[method-assign,assignment,return-value]
    try:
        yield seen
    finally:
        event.remove(store.engine, "before_cursor_execute", before)
        del store.engine.raw_connection  # the class's method again


def reads_of(client: TestClient, store: Store, path: str, headers: dict[str, str]) -> tuple[Any, list[str]]:
    """The answer of GET `path` and the statements after its key check (checked to be one query)."""
    with counted(store) as seen:
        response = client.get(path, headers=headers)
    assert response.status_code == 200, response.text
    keys = [q for q in seen if "api_key" in q]
    assert len(keys) == 1 and seen[0] == keys[0], seen
    return response.json(), seen[1:]


@pytest.fixture
def game(client: TestClient, club: Club) -> str:
    """Schnapsen: hands 1 and 2 over, hand 3 live; a retract inside hand 2 and one inside hand 3."""
    rules = rules_for("schnapsen")
    played = play(rules, ["Anna", "Ben"], {}, rng=random.Random(5), max_events=2500, keep_states=True)
    events, states = list(played.events), list(played.states)
    in_hand = {h: [i for i, s in enumerate(states) if s.hand == h and rules.hand_in_progress(s.game)] for h in (2, 3)}
    game_id = client.post(
        "/v1/games", headers=club.recorder, json={"game": "schnapsen", "players": ["Anna", "Ben"]}
    ).json()["id"]
    assert isinstance(game_id, str)

    def append(batch: list[dict[str, Any]]) -> int:
        response = client.post(f"/v1/games/{game_id}/events", headers=club.recorder, json={"events": batch})
        assert response.status_code == 201, response.text
        seq: int = response.json()["events"][-1]["seq"]
        return seq

    middle2, middle3 = in_hand[2][len(in_hand[2]) // 2], in_hand[3][len(in_hand[3]) // 2]
    head = append(events[: middle2 + 1])
    append([{"type": "retract", "to_seq": head - 2, "reason": "a card led out of turn"}])
    head = append(events[middle2 - 1 : middle3 + 1])  # the same plays again, then on into hand 3
    append([{"type": "retract", "to_seq": head - 2, "reason": "Anna meant another card"}])
    append(events[middle3 - 1 : middle3 + 2])
    return game_id


def test_a_viewers_replay_of_the_live_hand_with_a_retract(
    client: TestClient, store: Store, club: Club, game: str
) -> None:
    document, reads = reads_of(client, store, f"/v1/games/{game}/replay?hand=3", club.viewer)
    assert len(reads) <= MOST, reads
    assert sum("retract" in q for q in reads) == 1, reads  # the retracts read once
    frames = document["frames"]
    assert document["viewpoint"] == "public"
    taken = [f for f in frames if "retracted_by" in f]
    assert taken and all(f["redacted"] for f in taken)  # the retracted plays, every card hidden
    corrected = {f["retracted_by"] for f in taken}
    for frame in taken:  # each shows the table its correction put back
        to_seq = next(f for f in frames if f["seq"] == frame["retracted_by"])["event"]["to_seq"]
        back = next(f for f in frames if f["seq"] == to_seq)
        assert frame["state"] == back["state"] and frame["retracted_by"] in corrected


def test_a_viewers_replay_of_a_finished_hand_with_a_retract(
    client: TestClient, store: Store, club: Club, game: str
) -> None:
    document, reads = reads_of(client, store, f"/v1/games/{game}/replay?hand=2", club.viewer)
    assert len(reads) <= MOST, reads
    assert any("retracted_by" in f for f in document["frames"])
    assert not any(f.get("redacted") for f in document["frames"])  # a finished hand is shown whole


@pytest.mark.parametrize("path", ["", "/hands", "/score", "/replay?hand=1", "/replay?hand=3&seat=0"])
def test_every_read_of_the_replay_page(client: TestClient, store: Store, club: Club, game: str, path: str) -> None:
    for headers in (club.viewer, club.recorder):
        _, reads = reads_of(client, store, f"/v1/games/{game}{path}", headers)
        assert len(reads) <= MOST, (path, reads)


def test_a_hand_the_game_does_not_have(client: TestClient, store: Store, club: Club, game: str) -> None:
    with counted(store) as seen:
        response = client.get(f"/v1/games/{game}/replay?hand=9", headers=club.viewer)
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "hand 9 is not in this game (its hands are 1 to 3)"
    assert len(seen) <= 1 + 2, seen  # the key, the game, its marks
