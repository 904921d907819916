"""`event.read_by` (migration 0016): each row is written with the bits of the read models that read it, and
a row written without them is read as before, by its texts; on SQLite and PostgreSQL."""

from __future__ import annotations

import random
from typing import Any

import pytest

from events.store import Head, Store
from events.store.log import LogFilter
from events.store.mapper import READ_FLAGS, ReadFlags
from projections.core.registry import available, rules_for
from projections.core.simulate import play
from projections.readmodels import hand_facts, ratings
from tests.projections.helpers import CREATED_AT, PLAYERS, sealed

#: the reads below the transaction-id horizon need a server no other run holds back (tests/conftest.py)
OWN_SERVER = True

#: bit -> the read model's filter
FILTERS: dict[int, LogFilter] = {hand_facts.FLAG: hand_facts.READS, ratings.FLAG: ratings.READS}  # type: ignore[dict-item]


def _game(kind: str, seed: int = 3, events: int = 160) -> list[Any]:
    players = PLAYERS[kind]
    rules = rules_for(kind)
    played = play(rules, players, rng=random.Random(seed), max_events=events)
    return sealed(kind, players, rules.options_for(players, {}), list(played.events))


def _record(store: Store, kind: str, envelopes: list[Any], batch: int = 7) -> str:
    club = store.ensure_club("flags")
    game = store.create_game(
        club_id=club, kind=kind, players=PLAYERS[kind], options={}, created_at=CREATED_AT, genesis_hash="g", totals={}
    )
    for start in range(0, len(envelopes), batch):
        chunk = envelopes[start : start + batch]
        last = chunk[-1]
        head = Head(seq=last["seq"], hand=last["hand"], status="live", totals={}, winner=None, head_hash=last["hash"])
        store.append(game.id, chunk, base_seq=start, head=head)
    return game.id


def _rows(store: Store, game_id: str) -> list[tuple[Any, ...]]:
    return store.db.rows(
        store.db.sql("SELECT seq, type, data, result, read_by FROM event WHERE game_id = ? ORDER BY seq"), (game_id,)
    )


def _wanted(kind: str, seq: int, data: str, result: str) -> int:
    return sum(flag for flag, only in FILTERS.items() if only.admits(kind, seq, data, result))


def _read(store: Store, only: LogFilter, game_ids: set[str]) -> dict[str, list[int]]:
    """The seqs of each game that `read_filtered` gives a reader of `only`, from the log's start."""
    found: dict[str, list[int]] = {gid: [] for gid in game_ids}
    after = 0
    while True:
        upto, rows = store.log.read_filtered(after, 50, only)
        for row in rows:
            if row[1] in found:
                found[row[1]].append(int(row[2]))
        if upto == after:
            return found
        after = upto


def test_both_read_models_told_their_filters_on_import() -> None:
    assert hand_facts.READS is not None
    assert READ_FLAGS.of("retract", 9, "{}", "{}") == hand_facts.FLAG | ratings.FLAG
    assert READ_FLAGS.of("play", 1, "{}", "{}") == ratings.FLAG  # a game's first event: the ratings' context
    assert READ_FLAGS.of("play", 9, '{"card":"QS"}', "{}") == 0


@pytest.mark.parametrize("kind", available())
def test_every_row_is_written_with_the_bits_of_the_filters_that_admit_it(store: Store, kind: str) -> None:
    envelopes = _game(kind)
    appended = _record(store, kind, envelopes)
    imported = store.import_game(
        club_id=store.ensure_club("flags"),
        kind=kind,
        players=PLAYERS[kind],
        options={},
        created_at=CREATED_AT,
        genesis_hash="g",
        envelopes=envelopes,
        head=Head(seq=len(envelopes), hand=1, status="live", totals={}, winner=None, head_hash="h"),
    ).id
    for game_id in (appended, imported):
        rows = _rows(store, game_id)
        assert len(rows) == len(envelopes)
        assert [bits for *_, bits in rows] == [_wanted(t, s, d, r) for s, t, d, r, _ in rows]
    bits = {row[4] for row in _rows(store, appended)}
    assert 0 in bits and any(b & ratings.FLAG for b in bits), bits  # the test sees events read and events not


def test_a_row_written_without_bits_is_read_by_its_texts(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """A row stored before migration 0016 (or by a writer that knows no read model) has NULL: each read
    model's page has it all the same, exactly where it has the same event written with its bits."""
    envelopes = _game("schnapsen", seed=5, events=200)
    with_bits = _record(store, "schnapsen", envelopes)
    monkeypatch.setattr(READ_FLAGS, "test", None)
    without = _record(store, "schnapsen", envelopes)
    assert {row[4] for row in _rows(store, without)} == {None}
    for flag, only in FILTERS.items():
        pages = _read(store, only, {with_bits, without})
        wanted = [s for s, t, d, r, _ in _rows(store, with_bits) if only.admits(t, s, d, r)]
        assert wanted and pages[with_bits] == wanted, flag
        assert pages[without] == wanted, flag


def test_a_writer_gives_no_bits_until_every_read_model_told_its_filter() -> None:
    flags = ReadFlags()
    flags.register(1, LogFilter(types=("retract",), flag=1))
    assert flags.of("retract", 4, "{}", "{}") is None  # bit 2's filter unknown: NULL, the texts are tested
    flags.register(2, None)  # None: the read model reads every event
    assert flags.of("retract", 4, "{}", "{}") == 3
    assert flags.of("play", 4, "{}", "{}") == 2
    with pytest.raises(ValueError):
        flags.register(4, None)
    with pytest.raises(ValueError):
        flags.register(1, LogFilter(types=("retract",), flag=2))


def test_marks_are_plain_substrings_of_either_text() -> None:
    flags = ReadFlags()
    flags.register(1, LogFilter(result_marks=('"a.b"', '"x"'), data_marks=('"m"',), flag=1))
    flags.register(2, LogFilter(result_marks=('"x"',), first_events=True, flag=2))
    assert flags.of("t", 2, "{}", '{"aXb":1}') == 0  # `.` is no wildcard
    assert flags.of("t", 2, "{}", '{"a.b":1}') == 1
    assert flags.of("t", 2, "{}", '{"k":"x"}') == 3
    assert flags.of("t", 2, '{"m":1}', "{}") == 1
    assert flags.of("t", 2, "{}", '{"m":1}') == 0  # a data mark is looked for in the data only
    assert flags.of("t", 1, "{}", "{}") == 2


@pytest.mark.parametrize(
    "marks",
    [('"ab"', '"a"', '""', '"x.y"'), ("ab", "b", "abc"), ('"ab"', "a")],
    ids=["quoted", "plain", "mixed"],
)
def test_every_mark_is_found_as_a_plain_substring_and_nothing_else(marks: tuple[str, ...]) -> None:
    flags = ReadFlags()
    flags.register(1, LogFilter(result_marks=marks, flag=1))
    flags.register(2, None)
    texts = ['{"ab":1}', '{"a":1}', '{"k":""}', '"x.y"', '"xzy"', "abc", "b", "a", '{"abc":1}', "", '"', '""']
    for text in texts:
        wanted = 3 if any(mark in text for mark in marks) else 2
        assert flags.of("t", 2, "{}", text) == wanted, (marks, text)
