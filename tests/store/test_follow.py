"""Read models that read the log on a standby, their rows on the primary (events/store/follow.py).

On the local PostgreSQL, a "standby" is a copy of the primary's database made at one moment
(`CREATE DATABASE ... TEMPLATE`): it holds a prefix of the log and never more, as a lagging standby
does; the real cluster (Patroni, synchronous replication, failovers) is in
tests/reliability/test_failover.py. PostgreSQL only: SQLite has no replicas and nothing to follow.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Iterator

import psycopg
import psycopg.errors
import pytest

from api.service import Tablebook
from events.store import FollowedLog, Store
from events.store.migrate import upgrade
from projections.core.registry import KINDS as GAMES
from projections.readmodels.hand_facts import HandFacts
from projections.readmodels.ratings import RatingsModel

KINDS = tuple(GAMES)


def _play(store: Store, games: int, seed: int) -> list[str]:
    service = Tablebook.open(store)
    club = store.ensure_club("c")
    rng = random.Random(seed)
    return [service.record_demo_game(club, KINDS[i % len(KINDS)], rng) for i in range(games)]


@pytest.fixture
def pair(own_postgres_server: str) -> Iterator[tuple[str, str]]:
    """(primary URL, the name its "standby" copy gets), on the test session's own server: a follower reads
    below the transaction-id horizon, which any open transaction on a shared server would hold back."""
    admin_url = f"{own_postgres_server.replace('postgresql+psycopg://', 'postgresql://')}/postgres"
    names = [f"tablebook_follow_{secrets.token_hex(4)}", f"tablebook_standby_{secrets.token_hex(4)}"]
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{names[0]}"')
    upgrade(f"{own_postgres_server}/{names[0]}")
    yield f"{own_postgres_server}/{names[0]}", names[1]
    with psycopg.connect(admin_url, autocommit=True) as admin:
        for name in names:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _copy(primary: Store, name: str) -> str:
    """The primary's database copied now: a standby that stays at this point of the log."""
    primary.dispose()
    base, source = primary.url.rsplit("/", 1)
    with psycopg.connect(
        f"{base.replace('postgresql+psycopg://', 'postgresql://')}/postgres", autocommit=True
    ) as admin:
        for _ in range(100):
            # the notifier's publisher (events/store/notify.py) may still hold a connection of its own
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (source,))
            try:
                admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{source}"')
                break
            except psycopg.errors.ObjectInUse:
                time.sleep(0.05)
        else:
            raise AssertionError(f"{source} stays in use: cannot copy it")
    return f"{base}/{name}"


def _count(store: Store) -> int:
    return int(store.db.rows("SELECT count(*) FROM event", ())[0][0])


def test_read_models_read_the_standby_and_write_the_primary_with_the_rows_of_a_rebuild(
    pair: tuple[str, str],
) -> None:
    url, standby_name = pair
    primary = Store(url)
    first = _play(primary, 5, seed=1)
    standby_url = _copy(primary, standby_name)
    on_standby = _count(primary)
    later = _play(primary, 5, seed=2)  # the standby lags these
    standby = Store(standby_url)
    assert _count(standby) == on_standby < _count(primary)

    # the standby alone (no tail on the primary): the read models reach the standby's head, no further
    alone = FollowedLog(primary, lambda: ("copy", standby_url), tail_on_primary=False, recheck=0)
    primary.follow_from(alone)
    HandFacts(primary).catch_up()
    RatingsModel(primary, batch=97).catch_up()
    assert alone.read_from["standby"] > 0 and alone.read_from["primary"] == 0  # (the events the models read)
    assert HandFacts(primary).position() == standby.log.head_position() < Store(url).log.head_position()
    assert standby.hand_fact_rows() == [] and standby.ratings.rows() == []  # nothing written on the standby
    # what a fold reads of a game's events (`read_for_fold`) comes from the node the pages came from too
    lean, _ = primary.follower.read_for_fold(first[0], 0, 10**6)
    wanted = standby.read_events(first[0])
    assert lean == [{k: env[k] for k in ("seq", "type", "v", "data") if k in env} for env in wanted]
    assert primary.follower.read_for_fold(later[0], 0, 10**6) == ([], None) != primary.read_for_fold(later[0], 0, 10**6)

    # then with the tail on the primary: the rest, from the standby's last event on
    tail = FollowedLog(primary, lambda: ("copy", standby_url), recheck=0)
    primary.follow_from(tail)
    HandFacts(primary).catch_up()
    RatingsModel(primary, batch=7).catch_up()  # pages small enough that some start past the standby's head
    assert tail.read_from["primary"] > 0
    assert tail.behind > 0  # past the standby's head, every page came from the primary
    facts, ratings = primary.hand_fact_rows(), primary.ratings.rows()
    assert facts and {row["pool"] for row in ratings} >= {"schnapsen", "casino"}

    plain = Store(url)  # a rebuild on the primary alone: the same rows
    HandFacts(plain).rebuild()
    RatingsModel(plain).rebuild()
    assert plain.hand_fact_rows() == facts
    assert plain.ratings.rows() == ratings
    for store in (primary, standby, plain):
        store.dispose()


def test_a_standby_without_the_checkpoints_event_is_not_followed(pair: tuple[str, str]) -> None:
    url, standby_name = pair
    primary = Store(url)
    _play(primary, 2, seed=3)
    standby_url = _copy(primary, standby_name)
    _play(primary, 2, seed=4)
    HandFacts(Store(url)).catch_up()  # another process, on the primary, moved the checkpoint past the standby
    checkpoint = HandFacts(primary).position()
    assert checkpoint > Store(standby_url).log.head_position()

    _play(primary, 1, seed=5)
    followed = FollowedLog(primary, lambda: ("copy", standby_url), recheck=0)
    primary.follow_from(followed)
    read = HandFacts(primary).catch_up()
    # reading the standby from a cursor it does not hold would read events again (the cursor falls back to
    # the event before it): the page came from the primary
    assert read > 0
    assert followed.behind >= 1 and followed.read_from["standby"] == 0
    assert HandFacts(primary).position() == primary.log.head_position()
    plain = Store(url)
    facts = primary.hand_fact_rows()
    HandFacts(plain).rebuild()
    assert plain.hand_fact_rows() == facts
    primary.dispose()
    plain.dispose()


def test_a_node_whose_event_at_the_cursor_is_another_one_is_not_followed(pair: tuple[str, str]) -> None:
    """A node rewound after a failover may hold another event at the cursor's position: not followed."""
    url, standby_name = pair
    primary = Store(url)
    ids = _play(primary, 2, seed=6)
    standby_url = _copy(primary, standby_name)
    standby = Store(standby_url)
    club = primary.ensure_club("c")
    # the same next position on both, holding an event of another game on each
    Tablebook.open(primary).recorder.append(
        ids[0], [{"type": "note", "text": "on the primary"}], club_id=club, actor="test"
    )
    Tablebook.open(standby).recorder.append(
        ids[1], [{"type": "note", "text": "on the copy"}], club_id=club, actor="test"
    )
    head = primary.log.head_position()
    assert standby.log.head_position() == head

    node: list[tuple[str, str] | None] = [None]  # first the primary, then the diverged copy
    followed = FollowedLog(primary, lambda: node[0], recheck=0)
    primary.follow_from(followed)
    HandFacts(primary).catch_up()
    assert HandFacts(primary).position() == head and followed.read_from["primary"] > 0 == followed.read_from["standby"]
    node[0] = ("copy", standby_url)
    Tablebook.open(primary).recorder.append(ids[0], [{"type": "note", "text": "after"}], club_id=club, actor="test")
    HandFacts(primary).catch_up()  # the note is none of the facts' events: read on the primary, past it
    assert HandFacts(primary).position() == primary.log.head_position() == head + 1
    assert followed.behind == 1 and followed.read_from["standby"] == 0  # the copy's event at the cursor is not ours
    primary.dispose()
    standby.dispose()
