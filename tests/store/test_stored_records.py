"""Events written through the store and read back fold to the live game (issue 15).

A codec round trip, not an in-memory one: every event of the golden records (tests/data/examples) and of
random walks of every registered game (`tests/projections/walks.py`: notes, claims, voided
hands, retracts and, under `record` enforcement, illegal events among the play) is appended with
`Recorder.append` on each store (SQLite and PostgreSQL, the `store` fixture), read back with
`store.read_events`, and folded from the initial state: the fold equals the live state (for the walks, the
state the walk reached; for the examples, the state of deciding the events in memory), the read model's
head agrees, and the stored envelopes verify (`projections.reading.verify.verify_game`: hash chain and rules).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from events.store import Store
from projections.core import engine
from projections.core.recorder import Recorder
from projections.core.registry import available, rules_for
from projections.reading.verify import verify_game
from tests.projections.helpers import EXAMPLES, given, load_example
from tests.projections.walks import walk

#: events per append: a batch holds several, so a retract may reach into the same batch or a stored one
BATCH = 7


def record(store: Store, kind: str, players: Sequence[str], options: Mapping[str, Any], events: Sequence[Any]) -> str:
    recorder = Recorder(store)
    club_id = store.ensure_club(f"stored-records-{store.dialect}")
    game = recorder.create_game(club_id=club_id, kind=kind, players=players, options=options)
    for start in range(0, len(events), BATCH):
        recorder.append(game.id, [dict(e) for e in events[start : start + BATCH]], club_id=club_id, actor="test")
    return game.id


def check_stored(store: Store, game_id: str, kind: str, players: Sequence[str], live: Any) -> None:
    rules = rules_for(kind)
    game = store.get_game(game_id)
    envelopes = store.read_events(game_id)  # decoded from the database's text, not the envelopes written
    assert [e["seq"] for e in envelopes] == list(range(1, live.seq + 1))
    initial = engine.start(rules, list(players), game.options)
    assert engine.fold(rules, initial, envelopes) == live
    assert game.seq == live.seq and game.head_hash == envelopes[-1]["hash"]
    sheet = rules.score(live.game)
    assert game.totals == {str(s): t for s, t in enumerate(sheet.totals)}
    report = verify_game(game, envelopes)
    assert report.ok and report.events == live.seq, report.problems[:3]


EXAMPLE_FILES = sorted(p.name for p in EXAMPLES.glob("*.json"))


@pytest.mark.parametrize("name", EXAMPLE_FILES)
def test_golden_records_round_trip_through_the_store(store: Store, name: str) -> None:
    example = load_example(name)
    kind, players, options = example["game"], example["players"], example["options"]
    live = given(kind, example["events"], players, options)
    game_id = record(store, kind, players, options, example["events"])
    check_stored(store, game_id, kind, players, live)


@pytest.mark.parametrize("enforcement", ["strict", "record"])
@pytest.mark.parametrize("kind", available())
def test_walked_games_round_trip_through_the_store(store: Store, kind: str, enforcement: str) -> None:
    for seed in range(2):
        walked = walk(kind, 1000 + seed, enforcement)
        game_id = record(store, kind, walked.players, walked.options, walked.events)
        check_stored(store, game_id, kind, walked.players, walked.state)


def test_every_example_names_a_registered_game() -> None:
    kinds = {json.loads((EXAMPLES / n).read_text())["game"] for n in EXAMPLE_FILES}
    assert kinds <= set(available()) and kinds
