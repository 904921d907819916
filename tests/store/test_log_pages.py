"""The pages of the log reader's filtered reads (`read_filtered`, `read_checkpointed`) are exactly the rows a
plain read of every event gives and the filter admits, in log order, whatever the page size, on SQLite and
PostgreSQL: PostgreSQL's pages come in the statement's own order, its last row (the head, the checkpoint) sliced
off, not sorted again in Python, and this is what would catch a page that came out of order or lost a row."""

from __future__ import annotations

import random
from typing import Any

import pytest

from events.store import Store, new_id
from events.store.log import LogFilter
from events.store.tracking import advance, reset_checkpoint
from projections.core.recorder import Recorder
from projections.core.registry import available, rules_for
from projections.core.simulate import play
from projections.readmodels import hand_facts, ratings
from tests.projections.helpers import PLAYERS
from tests.store.helpers import new_raw_game

#: the reads below the transaction-id horizon need a server no other run holds back (tests/conftest.py)
OWN_SERVER = True

#: the read models' filters, and none (every event)
FILTERS: dict[str, LogFilter | None] = {"hand facts": hand_facts.READS, "ratings": ratings.READS, "all": None}


def _record_random_games(store: Store, seed: int) -> None:
    """A random legal game of every kind (the bots' `play`, through `legal_events`), appended in batches of
    random sizes, and a retract in one of them."""
    rng = random.Random(seed)
    recorder = Recorder(store)
    club_id = store.ensure_club("log pages")
    for kind in available():
        events = list(play(rules_for(kind), PLAYERS[kind], {}, rng=rng, max_events=150).events)
        game = recorder.create_game(club_id=club_id, kind=kind, players=PLAYERS[kind], options={})
        start = 0
        while start < len(events):
            size = rng.randint(1, 40)
            recorder.append(game.id, events[start : start + size], club_id=club_id, actor="t")
            start += size
        if kind == available()[0]:
            recorder.append(game.id, [{"type": "retract", "to_seq": 5, "reason": "t"}], club_id=club_id, actor="t")


def _plain(store: Store, after: int, only: LogFilter | None) -> list[tuple[Any, ...]]:
    """Every event after `after` in log order (`read_texts`, no filter), the filter applied in Python."""
    found: list[tuple[Any, ...]] = []
    while True:
        page = store.log.read_texts(after, 500)
        found += [row for row in page if only is None or only.admits(row[4], row[2], row[5], row[6])]
        if len(page) < 500:
            return found
        after = int(page[-1][0])


@pytest.mark.parametrize("limit", [1, 7, 100, 20_000])
@pytest.mark.parametrize("reader", sorted(FILTERS))
def test_filtered_pages_are_the_plain_reads_rows_in_log_order(store: Store, reader: str, limit: int) -> None:
    only = FILTERS[reader]
    start = store.head_position()
    _record_random_games(store, seed=limit)
    head = store.head_position()
    expected = _plain(store, start, only)
    assert expected and len({row[0] for row in expected}) == len(expected)
    paged: list[tuple[Any, ...]] = []
    after = start
    while True:
        upto, rows = store.log.read_filtered(after, limit, only)
        assert len(rows) <= limit and all(isinstance(row, tuple) and len(row) == 8 for row in rows)
        paged += rows
        if len(rows) == limit:
            assert upto == rows[-1][0]
        else:  # a short page: the reader may go to the head, having been shown every row it needs up to there
            assert upto == head
            break
        after = upto
    assert paged == expected


@pytest.mark.parametrize("limit", [1, 13, 20_000])
def test_checkpointed_pages_are_the_filtered_pages_from_the_checkpoint(store: Store, limit: int) -> None:
    """`read_checkpointed` (the checkpoint read with the page, and on PostgreSQL moved by the same statement over
    an empty page) gives, page after page, what `read_filtered` gives from the same position."""
    only = hand_facts.READS
    name = f"test-pages-{new_id()}"
    start = store.head_position()
    _record_random_games(store, seed=100 + limit)
    head = store.head_position()
    with store.db.write() as conn, conn.begin():
        reset_checkpoint(conn, name)
    assert advance(store.db, name, 0, start)
    paged: list[tuple[Any, ...]] = []
    while True:
        page = store.log.read_checkpointed(name, limit, only)
        assert (page.upto, page.rows) == store.log.read_filtered(page.old, limit, only)
        paged += page.rows
        if page.moved or page.upto == page.old:
            break
        assert advance(store.db, name, page.old, page.upto)
    assert store.projection_position(name) == head
    assert paged == _plain(store, start, only)


def test_the_kinds_and_clubs_of_a_pages_games_are_read_whatever_their_number(store: Store) -> None:
    """`game_kinds` (what the hand facts ask once a page): the games named that exist, each once, past the 500 ids
    SQLite's reads take at a time and in PostgreSQL's one read of them all."""
    games = [new_raw_game(store) for _ in range(3)]
    unknown = [f"g-none-{n:04d}" for n in range(700)]
    found = store.game_kinds([*unknown[:350], games[0], *games, *unknown[350:]])
    club_id = store.get_game(games[0]).club_id
    assert found == {game_id: ("schnapsen", club_id) for game_id in games}
    assert store.game_kinds([]) == {}
