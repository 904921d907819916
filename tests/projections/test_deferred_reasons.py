"""A score line whose reason is written when first read (`scores.deferred_line`) is the line made with
its text, for every reader: equality, hash, repr, the wire, a snapshot, a copy, a pickle (issue 34)."""

from __future__ import annotations

import copy
import pickle

import orjson

from projections.core import snapshots
from projections.core.fastreplace import replace
from projections.core.phrases import seat
from projections.core.scores import ScoreLine, deferred_line, hand_score


def _reason(who: int, count: int, seqs: tuple[int, ...]) -> str:
    return f"{seat(who)} took {count} cards at seq {', '.join(map(str, seqs))}"


def _pair() -> tuple[ScoreLine, ScoreLine]:
    plain = ScoreLine(2, 1, 3, "casino.most_cards", _reason(1, 27, (4, 9)), (4, 9))
    return plain, deferred_line(2, 1, 3, "casino.most_cards", _reason, 1, 27, (4, 9), events=(4, 9))


def test_a_deferred_line_is_the_line_with_its_text() -> None:
    plain, deferred = _pair()
    assert deferred == plain and plain == deferred
    assert hash(deferred) == hash(plain)
    assert repr(deferred) == repr(plain)
    assert deferred.reason == plain.reason == "{seat:1} took 27 cards at seq 4, 9"


def test_a_deferred_line_gives_the_same_bytes_everywhere() -> None:
    for read_first in (False, True):
        plain, deferred = _pair()
        if read_first:
            assert deferred.reason
        assert orjson.dumps(deferred.to_dict()) == orjson.dumps(plain.to_dict())
        assert orjson.dumps(deferred.to_dict(["Ann", "Bob"])) == orjson.dumps(plain.to_dict(["Ann", "Bob"]))
        assert snapshots.encode(hand_score(2, 2, [deferred])) == snapshots.encode(hand_score(2, 2, [plain]))


def test_a_deferred_line_copies_and_decodes_as_a_line_with_its_text() -> None:
    plain, deferred = _pair()
    for twin in (
        copy.copy(deferred),
        copy.deepcopy(deferred),
        pickle.loads(pickle.dumps(_pair()[1])),
        snapshots.decode(snapshots.encode(_pair()[1])),
        replace(_pair()[1], points=3),
    ):
        assert type(twin) is ScoreLine
        assert twin == plain and twin.reason == plain.reason
    assert replace(deferred, points=4) == ScoreLine(2, 1, 4, plain.rule, plain.reason, plain.events)
