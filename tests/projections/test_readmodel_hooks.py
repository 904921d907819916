"""The games' hooks the read models call for every event they read (issue 34: written to look each key up
once), at their edges: what an envelope without a `data` or a `result` gives, a stake or a role half named,
and the facts of one event that gives both a fact at its own seq and facts that name earlier events."""

from __future__ import annotations

from typing import Any

from projections.core.registry import rules_for
from projections.readmodels.hand_facts import Fact, facts_of
from projections.readmodels.ratings import context_of, matches_of


def _env(kind: str, seq: int, hand: int, result: Any, data: Any = None) -> dict[str, Any]:
    return {"type": kind, "seq": seq, "hand": hand, "data": data, "result": result}


def test_the_bank_context_takes_the_first_stake_of_each_seat_and_the_latest_banker_named() -> None:
    context = context_of("seven-and-a-half")
    context.observe(_env("stand", 1, 2, None))  # no result, no data: only the hand
    context.observe(_env("bet", 2, 2, {"banker": 1}, {"seat": 0, "amount": 1}))
    context.observe(_env("bet", 3, 2, {}, {"amount": 1}))  # no seat: no stake
    context.observe(_env("bet", 4, 2, None, {"seat": 0, "amount": 2}))  # seat 0 again: its first stake stands
    context.observe(_env("bet", 5, 2, {"banker": "2"}, {"seat": 1, "amount": 1}))  # not a seat: no banker
    context.observe(_env("bet", 6, 2, {}, {"seat": 3, "amount": 1}))
    assert (context.hand, context.banker, context.stakes) == (2, (1, 2), {0: 2, 1: 5, 3: 6})
    result = {"hand_ended": True, "points": {"0": -1, "3": 2}}  # seat 1 is the banker's own: not a pair
    found = matches_of("seven-and-a-half", 4, _env("stand", 9, 2, result), context)
    assert [(m.hand, m.seq, m.sides, m.ranks) for m in found] == [
        (2, 9, ((0,), (1,)), (1, 0)),
        (2, 9, ((3,), (1,)), (0, 1)),
    ]
    context.observe(_env("hit", 10, 2, {"banker": 3}))  # a result that names a banker, on any event
    assert context.banker == (3, 10)
    context.observe(_env("retract", 11, 2, None, {"to_seq": 4}))
    assert (context.banker, context.stakes) == (None, {0: 2})
    context.observe(_env("bet", 12, 3, {}, {"seat": 2, "amount": 1}))  # a new hand starts afresh
    assert (context.hand, context.banker, context.stakes) == (3, None, {2: 12})
    assert matches_of("seven-and-a-half", 4, _env("stand", 13, 3, result), context) == []  # no banker named


def test_the_roles_context_takes_the_roles_only_when_all_three_are_named() -> None:
    context = context_of("gin-rummy-3")
    context.observe(_env("deal", 1, 1, None))
    context.observe(_env("deal", 2, 1, {"box": 0, "captain": 1}))  # two of three: no roles
    assert (context.hand, context.roles) == (1, None)
    context.observe(_env("cut", 3, 1, {"box": 0, "captain": 1, "sitter": None}))
    assert context.roles is None
    context.observe(_env("cut", 4, 1, {"box": 2, "captain": 0, "sitter": 1, "deal": 1}))
    assert context.roles == {"box": 2, "captain": 0, "sitter": 1}
    context.observe(_env("retract", 5, 1, {"box": 0, "captain": 1, "sitter": 2}, {"to_seq": 3}))
    assert context.roles == {"box": 2, "captain": 0, "sitter": 1}  # a retract names no roles
    context.observe(_env("deal", 6, 2, {"deal": 2}))
    assert (context.hand, context.roles) == (2, None)


def test_one_event_gives_its_facts_in_the_order_of_its_tags_at_its_own_seq_or_earlier_ones() -> None:
    rules = rules_for("casino")
    result = {"three_faces": True, "sweeps": [{"seat": 1, "seq": 7}, {"seat": True, "seq": 12}]}
    envelope = _env("capture", 30, 2, result, {"seat": 3, "cards": []})
    assert facts_of(rules, envelope) == [
        Fact(2, 7, "sweep", 1, once=True),
        Fact(2, 12, "sweep", None, once=True),  # a seat that is not a number is nobody's
        Fact(2, 30, "three_faces", 3),
    ]
    # a `seat` that is no plain number is nobody's; a `sweeps` that names no seq is a fact at the event's own
    odd = _env("capture", 31, 2, {"three_faces": True, "sweeps": [{"seat": 1}]}, {"seat": False})
    assert facts_of(rules, odd) == [Fact(2, 31, "sweep", None), Fact(2, 31, "three_faces", None)]
