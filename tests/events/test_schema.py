"""The shape validators' bounds: every integer, number and string of an event is one the store can hold."""

from __future__ import annotations

import math
from typing import Any

import pytest

from events.errors import InvalidEventError
from events.schema import MAX_INT, MAX_POINTS, ascii_integer, integer, number, text, unstorable


@pytest.mark.parametrize("value", [MAX_INT + 1, -MAX_INT - 1, 2**63 - 1, 2**64 - 1, -(2**63)])
def test_an_integer_field_is_bounded_by_default(value: int) -> None:
    """`integer()` took any size: 2**63 - 1 was stored, and overflowed 64 bits once multiplied (a 500)."""
    with pytest.raises(InvalidEventError, match=r"^amount: ") as refused:
        integer()(value, "amount", 4)
    assert refused.value.details["field"] == "amount"


def test_an_integer_field_takes_its_bounds_inclusive() -> None:
    assert integer()(MAX_INT, "x", 2) == MAX_INT and integer()(-MAX_INT, "x", 2) == -MAX_INT
    assert integer(0, 10)(10, "x", 2) == 10
    for value in (-1, 11):
        with pytest.raises(InvalidEventError):
            integer(0, 10)(value, "x", 2)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 1e300, float(MAX_POINTS) * 2, -(10**16), True, "1"])
def test_points_are_finite_numbers_within_bounds(value: Any) -> None:
    """A score claim of NaN or 1e400 (infinity) is no number of points."""
    with pytest.raises(InvalidEventError, match=r"^points\.0: "):
        number(value, "points.0", 2)


def test_points_take_integers_and_decimals_up_to_the_bound() -> None:
    for value in (0, -3, 1.5, MAX_POINTS, -MAX_POINTS, float(MAX_POINTS)):
        assert number(value, "points.0", 2) == value


@pytest.mark.parametrize("value", ["a\x00b", "\x00", "x\ud800", "\udfff"])
def test_text_no_store_can_hold_is_invalid(value: str) -> None:
    """PostgreSQL refuses NUL in text; no store encodes a lone surrogate."""
    assert unstorable(value)
    with pytest.raises(InvalidEventError, match=r"^text: holds a"):
        text(1, 2000)(value, "text", 2)


def test_any_other_text_is_kept_as_written() -> None:
    for value in ("Inès", "\u2028", "\x01\x7f", "🂡", "a" * 2000):
        assert unstorable(value) is None and text(1, 2000)(value, "text", 2) == value


@pytest.mark.parametrize("value", ["²", "٣", "1" * 5000, "-1", "+1", " 1", "1 ", "1_0", "", "0x1", str(MAX_INT + 1)])
def test_ascii_integer_refuses_all_but_ascii_digits_in_range(value: str) -> None:
    """`"²".isdigit()` is true and `int("²")` fails; `int()` refuses more than 4,300 digits: both were 500s."""
    with pytest.raises(InvalidEventError, match=r"^last_event_id: ") as refused:
        ascii_integer(value, "last_event_id")
    assert refused.value.details["field"] == "last_event_id"


def test_ascii_integer_reads_digits() -> None:
    assert ascii_integer("0", "x") == 0 and ascii_integer("0042", "x") == 42
    assert ascii_integer(str(MAX_INT), "x") == MAX_INT and ascii_integer("7", "x", maximum=7) == 7
