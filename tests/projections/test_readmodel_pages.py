"""A read model's large page is processed with the cyclic collector off, the collector is always put back, and the
page's objects are freed before it is."""

from __future__ import annotations

import dataclasses
import gc
import random
import weakref
from typing import Any

import pytest

from api.service import Tablebook
from events.store import Store
from events.store.log import CheckpointPage, LogFilter
from projections.core.registry import KINDS
from projections.readmodels import pages
from projections.readmodels.hand_facts import HandFacts
from projections.readmodels.pages import LARGE_PAGE, large_page
from projections.readmodels.ratings import RatingsModel

#: PostgreSQL on the session's own server: a rebuild reads the log below the transaction-id horizon
#: (tests/conftest.py `store_url`), which open transactions elsewhere on a shared server hold back
OWN_SERVER = True


def test_a_large_page_turns_the_collector_off_and_back_on() -> None:
    assert gc.isenabled()
    with large_page(LARGE_PAGE):
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_small_page_leaves_the_collector_alone() -> None:
    with large_page(LARGE_PAGE - 1):
        assert gc.isenabled()
    assert gc.isenabled()


def test_the_collector_comes_back_after_a_failure() -> None:
    with pytest.raises(RuntimeError), large_page(LARGE_PAGE):
        raise RuntimeError("a page that fails")
    assert gc.isenabled()


def test_a_collector_someone_else_turned_off_stays_off() -> None:
    gc.disable()
    try:
        with large_page(LARGE_PAGE):
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def _record(store: Store, games: int) -> None:
    service = Tablebook.open(store)
    club = store.ensure_club("c")
    rng = random.Random(7)
    kinds = sorted(KINDS)
    for n in range(games):
        service.record_demo_game(club, kinds[n % len(kinds)], rng)


class _Rows(list[tuple[Any, ...]]):
    """A page's rows in a list that a weak reference can follow."""


@pytest.mark.parametrize("model", [HandFacts, RatingsModel])
def test_a_read_model_frees_its_page_before_the_collector_is_back(
    store: Store, model: type[HandFacts] | type[RatingsModel], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page's rows (and what was made of them) are freed while the collector is still off: else the next page's
    read runs collections that walk all of them (in `python -m bench.ratings`, 0.6 s of the 5 s a 10,000-game
    ratings rebuild took)."""
    _record(store, 4)
    monkeypatch.setattr(pages, "LARGE_PAGE", 1)
    log = store.follower.log
    read = log.read_checkpointed
    pages_read: list[weakref.ref[_Rows]] = []

    def tracked(name: str, limit: int, only: LogFilter | None) -> CheckpointPage:
        found = read(name, limit, only)
        rows = _Rows(found.rows)
        pages_read.append(weakref.ref(rows))
        return dataclasses.replace(found, rows=rows)

    alive: list[bool] = []
    enable = gc.enable

    def counted() -> None:
        alive.append(any(ref() is not None for ref in pages_read))
        enable()

    monkeypatch.setattr(log, "read_checkpointed", tracked)
    monkeypatch.setattr(gc, "enable", counted)
    assert model(store).rebuild() > 0
    assert alive == [False]
