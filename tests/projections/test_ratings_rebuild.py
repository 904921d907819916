"""The ratings rebuilt from zero (projections/readmodels/ratings/) are the incremental catch-up's rows byte for byte,
on both stores: every float as the same IEEE bits, every opponents' text the same bytes."""

from __future__ import annotations

import random

import orjson
import pytest

from api.service import Operator, Tablebook
from events.store import Store
from projections.core.registry import available
from projections.readmodels.ratings import RatingsModel
from tests.projections.helpers import caught_up

#: PostgreSQL on the session's own server: these tests read the log below the transaction-id horizon
#: (tests/conftest.py `store_url`), which open transactions elsewhere on a shared server hold back
OWN_SERVER = True


def _stored(store: Store) -> bytes:
    """Every rating change in order as bytes: its columns without the row id (a rebuild writes new ids), floats
    in orjson's shortest round-trip form (so bit-different floats give different bytes, -0.0 too)."""
    return orjson.dumps([row[:17] for row in store.ratings.changes_from(1)])


def _retractable_results(store: Store, ids: list[str]) -> list[tuple[str, int]]:
    """Each rated game's first rated seq, for the games a retract to just before it may take back (a retract never
    reaches past an earlier one, and the bots' games hold some), in the order the games were recorded: game ids
    are random, so an order by id would make the seed pick another game at every run."""
    first: dict[str, int] = {}
    for row in store.ratings.changes_from(1):
        first[row[1]] = min(first.get(row[1], row[5]), row[5])
    found = []
    for game in ids:
        if game in first:
            floor = max((e["seq"] for e in store.read_events(game) if e["type"] == "retract"), default=0)
            if first[game] - 1 >= floor:
                found.append((game, first[game]))
    assert found, "no rated result a retract may take back"
    return found


@pytest.mark.parametrize("seed", [2, 9])
def test_a_rebuild_from_zero_is_the_incremental_catch_up_byte_for_byte(store: Store, seed: int) -> None:
    """Random games of every kind played by the bots through `legal_events`, in random order, each caught up by
    a model that follows the log (pages of a random size, so that pages end inside hands and hand contexts are
    read back), with a retract of a rated result between (a correction); then a rebuild from zero."""
    rng = random.Random(seed)
    service = Tablebook.open(store)
    club = store.ensure_club("c")
    follow = RatingsModel(store, batch=rng.choice([41, 97, 500]))
    kinds = sorted(available())
    ids = []
    for turn in range(3 * len(kinds)):
        ids.append(service.record_demo_game(club, rng.choice(kinds), rng))
        caught_up(follow, store)
        if turn == len(kinds):  # take back the first rated result of a game already rated
            game, seq = rng.choice(_retractable_results(store, ids))
            retract = {"type": "retract", "to_seq": seq - 1, "reason": "misrecorded"}
            service.append(Operator(club_id=club, club="c"), game, [retract])
            caught_up(follow, store)
            assert follow.corrections, "the retract took back a rated result"
    incremental = _stored(store)
    assert len(orjson.loads(incremental)) > 20 * len(kinds)
    RatingsModel(store).rebuild()
    assert _stored(store) == incremental
