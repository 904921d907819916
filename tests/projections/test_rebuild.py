"""Both read models rebuilt at once (projections/readmodels/rebuild.py): the same rows as one after the other, every
position reported, and a failure in the second process raised here."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from api.service import Tablebook
from events.errors import TablebookError
from events.store import Store
from events.store.migrate import upgrade
from events.store.tracking import emptied_fast
from projections.core.registry import KINDS as GAMES
from projections.readmodels import rebuild as rebuild_models

#: PostgreSQL on the session's own server: these tests read the log below the transaction-id horizon
#: (tests/conftest.py `store_url`), which open transactions elsewhere on a shared server hold back
OWN_SERVER = True

#: a demo game of each game of the registry, in its order
KINDS = tuple(GAMES)


def _record(store: Store) -> None:
    service = Tablebook.open(store)
    club = store.ensure_club("c")
    rng = random.Random(3)
    for kind in KINDS:
        service.record_demo_game(club, kind, rng)


def test_a_parallel_rebuild_gives_the_rows_of_a_serial_one_and_reports_every_position(store: Store) -> None:
    _record(store)
    serial = rebuild_models.rebuild_read_models(store, parallel=False)
    facts, changes = store.hand_fact_rows(), store.ratings.rows()
    assert facts and changes and serial.facts_read > 0 and serial.ratings_read > 0
    advanced: Counter[str] = Counter()
    rebuilt = rebuild_models.rebuild_read_models(store, lambda name, n: advanced.update({name: n}), parallel=True)
    assert rebuilt == serial
    assert store.hand_fact_rows() == facts and store.ratings.rows() == changes
    head = store.head_position()
    assert advanced == {rebuild_models.FACTS: head, rebuild_models.RATINGS: head}


def test_a_failure_in_the_second_process_is_raised_with_its_traceback(tmp_path: object) -> None:
    url = f"sqlite:///{tmp_path}/no-facts.db"
    upgrade(url)
    broken = Store(url)
    try:
        with broken.engine.begin() as conn:
            conn.exec_driver_sql("DROP TABLE hand_fact")  # the second process's reset fails; the ratings do not
        with pytest.raises(TablebookError, match=r"(?s)hand facts' rebuild failed.*no such table: hand_fact"):
            rebuild_models.rebuild_read_models(broken, parallel=True)
    finally:
        broken.dispose()


def test_a_reset_frees_pages_fast_and_puts_the_connections_own_setting_back(tmp_path: object) -> None:
    """`emptied_fast` (a read model's reset on SQLite) sets `secure_delete=FAST` for its transaction only,
    also when the transaction fails: a pooled connection goes back to the record's tables as it was."""
    url = f"sqlite:///{tmp_path}/reset.db"
    upgrade(url)
    store = Store(url)

    def setting(conn: Any) -> int:
        with conn.begin():
            return int(conn.exec_driver_sql("PRAGMA secure_delete").scalar_one())

    try:
        with store.db.write() as conn:
            before = setting(conn)
            with conn.begin(), emptied_fast(conn, store.dialect):
                assert int(conn.exec_driver_sql("PRAGMA secure_delete").scalar_one()) == 2  # FAST
            assert setting(conn) == before
            with pytest.raises(RuntimeError), conn.begin(), emptied_fast(conn, store.dialect):
                raise RuntimeError("a reset that fails")
            assert setting(conn) == before
    finally:
        store.dispose()
