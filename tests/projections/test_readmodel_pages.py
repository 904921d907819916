"""A read model's large page is processed with the cyclic collector off, and the collector is always put back."""

from __future__ import annotations

import gc

import pytest

from projections.readmodels.pages import LARGE_PAGE, large_page


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
