"""Snapshots (projections/core/snapshots.py): a disposable cache that changes no answer, only where folds start."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from events.errors import TablebookError
from events.store import Store
from projections.core import engine, snapshots
from projections.core.recorder import Recorder, StateCache, initial_state_of
from projections.core.registry import available, rules_for
from projections.core.simulate import play, playout_choice

ROOT = Path(__file__).resolve().parents[2]


def players_of(kind: str) -> list[str]:
    rules = rules_for(kind)
    for n in range(2, 9):
        names = [f"P{i}" for i in range(n)]
        try:
            rules.options_for(names, {})
        except TablebookError:
            continue
        return names
    raise AssertionError(f"no player count for {kind}")


def playout(kind: str, seed: int, limit: int = 400) -> tuple[list[str], list[dict[str, Any]]]:
    names = players_of(kind)
    events = list(play(rules_for(kind), names, {}, rng=random.Random(seed), max_events=limit).events)
    return names, events


@pytest.mark.parametrize("kind", available())
def test_every_hand_boundary_state_survives_the_codec(kind: str) -> None:
    rules = rules_for(kind)
    names = players_of(kind)
    states = play(rules, names, {}, rng=random.Random(7), keep_states=True).states
    before = engine.start(rules, names, rules.options_for(names, {}))
    boundaries = []
    for state in states:
        if snapshots.is_boundary(rules, before, state):
            boundaries.append(state)
        before = state
    # a long 7½ session has hundreds of boundaries whose states carry every hand's score: 15 spread over
    # the game, its first and the end, keep this test to a second per game
    step = max(1, len(boundaries) // 15)
    checked = [*boundaries[:3], *boundaries[3::step], states[-1]]
    for state in checked:
        assert snapshots.decode(snapshots.encode(state)) == state
    assert len(boundaries) >= 1 and len(checked) >= 2


@pytest.mark.parametrize(
    "planted",
    [
        '{"__dc": "os:system"}',
        '{"__dc": "subprocess:Popen", "args": "true"}',
        '{"__r": "builtins:eval", "a": ["1"]}',
        '{"__e": "events.errors:NotFoundError", "v": 1}',
        '{"__dc": "projections.core.rules:<locals>.X"}',
        '{"x": 1}',
        "not json",
    ],
)
def test_the_decoder_makes_nothing_outside_the_allow_list(planted: str) -> None:
    with pytest.raises(snapshots.SnapshotError):
        snapshots.decode(planted)


def recorded(store: Store, kind: str, seed: int, *, retracts: bool) -> tuple[str, Recorder]:
    """A game of `kind` recorded through a Recorder; with retracts: one into an earlier hand, one within the span."""
    names, events = playout(kind, seed)
    recorder = Recorder(store)
    club_id = store.ensure_club(f"snap-{kind}-{seed}")
    game = recorder.create_game(club_id=club_id, kind=kind, players=names, options={})
    batches: list[list[dict[str, Any]]] = []
    if retracts and len(events) > 60:
        k, j = (2 * len(events)) // 3, len(events) // 3
        batches = [events[:k], [{"type": "retract", "to_seq": j, "reason": "a misdeal"}]]
        rest = events[j:]
        half = len(rest) // 2
        floor = k + 1  # the seq of the first retract: the second may not reach below it
        batches += [rest[:half], [{"type": "retract", "to_seq": floor + 3, "reason": "again"}]]
        batches = [b for b in batches if b]
        for batch in batches:
            for i in range(0, len(batch), 200):
                recorder.append(game.id, batch[i : i + 200], club_id=club_id, actor="t")
        live = recorder.live(game.id)
        # play on from where the second retract left the table
        state, rng, more = live.state, random.Random(seed + 1), []
        rules = rules_for(kind)
        from projections.core.simulate import next_options

        while not rules.is_terminal(state.game) and len(more) < 150:
            offered = next_options(rules, state.game, rng)
            chosen = dict(playout_choice(rules, state.game, offered, rng, more))
            decision = engine.decide(rules, state, chosen)
            state = engine.apply(rules, state, decision.event, state.seq + 1)
            more.append(decision.event)
        if more:
            recorder.append(game.id, more, club_id=club_id, actor="t")
    else:
        for i in range(0, len(events), 200):
            recorder.append(game.id, events[i : i + 200], club_id=club_id, actor="t")
    return game.id, recorder


def reference(store: Store, game_id: str) -> list[Any]:
    """The state after every seq (index = seq), folded from event 1 without snapshots."""
    game = store.get_game(game_id)
    rules, initial = initial_state_of(game)
    return [initial, *(state for _, state in engine.walk(rules, initial, store.read_events(game_id)))]


@pytest.mark.parametrize("kind", available())
def test_state_at_from_snapshots_is_the_fold_from_event_1(store: Store, kind: str) -> None:
    game_id, _ = recorded(store, kind, seed=11, retracts=True)
    expected = reference(store, game_id)
    head = len(expected) - 1
    recorder = Recorder(store, StateCache())
    recorder.state_at(game_id, 1)  # a first fold writes the snapshots it passes
    version = snapshots.version_of(kind)
    seqs = store.snapshot_seqs(game_id, version)
    assert seqs and all(0 < s <= head for s in seqs)
    for seq in range(head + 1):
        fresh = Recorder(store, StateCache())  # a cold cache: every read starts at a snapshot
        _, state = fresh.state_at(game_id, seq)
        assert state == expected[seq], f"seq {seq}"
    assert Recorder(store, StateCache()).live(game_id).state == expected[head]
    assert store.snapshot_seqs(game_id, version)[-1] <= head
    # with no snapshot at all, the same answers
    store.delete_snapshots(game_id)
    assert store.snapshot_seqs(game_id) == []
    plain = Recorder(store, StateCache(), snapshots=False)
    for seq in range(0, head + 1, 7):
        assert plain.state_at(game_id, seq)[1] == expected[seq]


def test_a_retract_below_the_snapshot_folds_from_an_older_start(store: Store) -> None:
    game_id, _ = recorded(store, "schnapsen", seed=5, retracts=True)
    expected = reference(store, game_id)
    retracts = store.retracts(game_id)
    assert retracts, "the game has retracts"
    fresh = Recorder(store, StateCache())
    fresh.live(game_id)  # writes snapshots up to the head, some between a retract's target and the retract
    for seq, to_seq in retracts:
        for at in (to_seq, seq - 1, seq, seq + 1):
            if at < len(expected):
                assert Recorder(store, StateCache()).state_at(game_id, at)[1] == expected[at]


def test_a_snapshot_of_another_version_is_never_read(store: Store) -> None:
    game_id, _ = recorded(store, "schnapsen", seed=3, retracts=False)
    expected = reference(store, game_id)
    head = len(expected) - 1
    wrong = snapshots.encode(expected[1])  # a state that is not the one at those seqs
    store.write_snapshots(game_id, "x", [(s, wrong) for s in range(2, head + 1)])
    assert store.read_snapshot(game_id, snapshots.version_of("schnapsen"), head) is None
    for seq in range(0, head + 1, 5):
        assert Recorder(store, StateCache()).state_at(game_id, seq)[1] == expected[seq]
    assert Recorder(store, StateCache()).live(game_id).state == expected[head]


def test_deleting_every_snapshot_changes_no_answer(store: Store) -> None:
    game_id, _ = recorded(store, "casino", seed=2, retracts=True)
    expected = reference(store, game_id)
    head = len(expected) - 1
    Recorder(store, StateCache()).live(game_id)
    assert store.snapshot_seqs(game_id)
    with_rows = [Recorder(store, StateCache()).state_at(game_id, s)[1] for s in range(head + 1)]
    store.delete_snapshots()
    assert store.snapshot_seqs(game_id) == []
    without = [Recorder(store, StateCache()).state_at(game_id, s)[1] for s in range(head + 1)]
    assert with_rows == without == expected


def test_no_snapshot_is_written_past_the_head(store: Store) -> None:
    game_id, _ = recorded(store, "schnapsen", seed=4, retracts=False)
    head = store.get_game(game_id).seq
    text = snapshots.encode(reference(store, game_id)[head])
    assert store.write_snapshots(game_id, "x", [(head + 1, text), (head + 50, text)]) == 0
    assert store.write_snapshots(game_id, "x", [(head, text)]) == 1
    assert store.write_snapshots(game_id, "x", [(head, text)]) == 0  # there already: left as it is
    assert store.snapshot_seqs(game_id, "x") == [head]


def test_a_snapshot_written_by_one_process_is_read_by_another(store: Store) -> None:
    game_id, _ = recorded(store, "gin-rummy-3", seed=9, retracts=False)
    store.delete_snapshots(game_id)
    expected = reference(store, game_id)
    head = len(expected) - 1
    script = (
        "import sys\n"
        "from events.store import Store\n"
        "from projections.core.recorder import Recorder\n"
        "store = Store(sys.argv[1])\n"
        "Recorder(store).live(sys.argv[2])\n"
        "store.dispose()\n"
    )
    subprocess.run([sys.executable, "-c", script, store.url, game_id], cwd=ROOT, check=True, timeout=120)
    seqs = store.snapshot_seqs(game_id, snapshots.version_of("gin-rummy-3"))
    assert seqs, "the other process wrote snapshots"
    reads: list[int] = []
    original = store.read_events

    def counting(game: str, after: int = 0, limit: int | None = None, *, upto: int | None = None) -> Any:
        found = original(game, after, limit, upto=upto)
        reads.append(len(found))
        return found

    store.read_events = counting  # type: ignore[method-assign]
    try:
        recorder = Recorder(store, StateCache())
        _, state = recorder.state_at(game_id, seqs[-1])
        assert state == expected[seqs[-1]]
        assert sum(reads) < head  # neither the head nor the state at seq was folded from event 1
    finally:
        store.read_events = original  # type: ignore[method-assign]


# --------------------------------------------------------------------------- hand histories stored once


def hand_rows(store: Store, game_id: str) -> list[tuple[int, str, str, str]]:
    return store.read_snapshot_hands(game_id, snapshots.version_of("seven-and-a-half"), 10**9)


def counting_hand_reads(store: Store) -> list[int]:
    """Counts `read_snapshot_hands` calls on `store` (the list grows by one per call)."""
    calls: list[int] = []
    original = store.read_snapshot_hands

    def counting(game_id: str, version: str, below: int) -> list[tuple[int, str, str, str]]:
        calls.append(below)
        return original(game_id, version, below)

    store.read_snapshot_hands = counting  # type: ignore[method-assign]
    return calls


def test_a_snapshot_names_its_hands_and_stores_each_once(store: Store) -> None:
    game_id, _ = recorded(store, "seven-and-a-half", seed=11, retracts=False)
    expected = reference(store, game_id)
    head = len(expected) - 1
    Recorder(store, StateCache()).live(game_id)
    version = snapshots.version_of("seven-and-a-half")
    seqs = store.snapshot_seqs(game_id, version)
    assert seqs
    for seq in seqs:
        found = store.read_snapshot(game_id, version, seq)
        assert found is not None and found[0] == seq
        assert '"__hl"' in found[1] and "HandScore" not in found[1]  # a reference, not the hands
    rows = hand_rows(store, game_id)
    assert len(rows) == len(expected[seqs[-1]].game.results)  # one row a hand, however many snapshots hold it
    assert sorted(idx for idx, *_ in rows) == list(range(len(rows)))
    # a later fold from those snapshots adds the rows of its new hands only
    Recorder(store, StateCache()).state_at(game_id, head)
    assert len(hand_rows(store, game_id)) <= len(expected[head].game.results)


def test_a_restored_history_is_read_only_when_looked_at(store: Store) -> None:
    game_id, _ = recorded(store, "seven-and-a-half", seed=12, retracts=False)
    expected = reference(store, game_id)
    head = len(expected) - 1
    Recorder(store, StateCache()).live(game_id)
    calls = counting_hand_reads(store)
    rules = rules_for("seven-and-a-half")
    live = Recorder(store, StateCache()).live(game_id)
    state = live.state
    assert state.seq == head
    assert len(state.game.results) == len(expected[head].game.results) > 0
    assert rules.score(state.game).totals == rules.score(expected[head].game).totals
    assert bool(state.game.results)
    assert calls == []  # neither the length nor the totals read the hands
    assert list(state.game.results) == list(expected[head].game.results)
    assert (
        state.game.results[0] == expected[head].game.results[0]
        and state.game.results[-1] == expected[head].game.results[-1]
    )
    assert len(calls) == 1  # read once, then kept by the log (and every log grown from it)
    assert state == expected[head]


def test_restored_histories_equal_the_fold_across_retracts_of_hands(store: Store) -> None:
    game_id, _ = recorded(store, "seven-and-a-half", seed=13, retracts=True)
    expected = reference(store, game_id)
    head = len(expected) - 1
    retracts = store.retracts(game_id)
    assert retracts
    # the retracts reach back across hand boundaries: the game has hands that were taken back
    assert any(expected[to].hand < expected[seq - 1].hand for seq, to in retracts)
    Recorder(store, StateCache()).state_at(game_id, 1)
    for seq in range(head + 1):
        _, state = Recorder(store, StateCache()).state_at(game_id, seq)
        assert len(state.game.results) == len(expected[seq].game.results), f"seq {seq}"
        assert state.game.results.totals(state.seats) == expected[seq].game.results.totals(state.seats), f"seq {seq}"
        assert tuple(state.game.results) == tuple(expected[seq].game.results), f"seq {seq}"
        assert state == expected[seq], f"seq {seq}"
    rows = hand_rows(store, game_id)
    # the two histories share the rows of the hands before the retract, and keep their own after it
    assert len({(idx, digest) for idx, digest, *_ in rows}) == len(rows)


@pytest.mark.parametrize("damage", ["delete_all", "delete_some", "tamper"])
def test_missing_or_wrong_hand_rows_are_never_used(store: Store, damage: str) -> None:
    game_id, _ = recorded(store, "seven-and-a-half", seed=14, retracts=True)
    expected = reference(store, game_id)
    head = len(expected) - 1
    Recorder(store, StateCache()).state_at(game_id, 1)
    for seq in range(0, head + 1, 9):
        Recorder(store, StateCache()).state_at(game_id, seq)  # more snapshots, more rows
    rows = hand_rows(store, game_id)
    assert rows
    if damage == "delete_all":
        store.delete_snapshot_hands(game_id)
    elif damage == "delete_some":
        store.delete_snapshot_hands(game_id, from_idx=len(rows) // 3)
    else:
        with store.engine.begin() as conn:
            from sqlalchemy import text

            conn.execute(
                text("UPDATE snapshot_hand SET hand = replace(hand, '\"points\"', '\"points\" ') WHERE game_id = :g"),
                {"g": game_id},
            )
            conn.execute(
                text(
                    "UPDATE snapshot_hand SET hand = :h WHERE game_id = :g AND idx = 0"  # valid JSON, wrong hand
                ),
                {"g": game_id, "h": snapshots.encode(expected[head].game.results[-1])},
            )
    assert store.snapshot_seqs(game_id)  # the snapshot rows are still there, and still read
    for seq in range(0, head + 1, 5):
        _, state = Recorder(store, StateCache()).state_at(game_id, seq)
        assert tuple(state.game.results) == tuple(expected[seq].game.results), f"seq {seq}"
        assert state == expected[seq], f"seq {seq}"
    if damage != "tamper":  # the rows of the chains folded again are written again
        assert len(hand_rows(store, game_id)) > (0 if damage == "delete_all" else len(rows) // 3)


def test_deleting_snapshots_deletes_their_hand_rows(store: Store) -> None:
    game_id, _ = recorded(store, "seven-and-a-half", seed=15, retracts=False)
    Recorder(store, StateCache()).live(game_id)
    assert hand_rows(store, game_id)
    store.delete_snapshots()
    assert hand_rows(store, game_id) == []


def test_a_history_reference_needs_a_shelf_and_a_well_formed_reference() -> None:
    rules = rules_for("seven-and-a-half")
    names = players_of("seven-and-a-half")
    state = play(rules, names, {}, rng=random.Random(3), max_events=300, keep_states=True).states[-1]
    assert len(state.game.results) > 1
    rows = snapshots.HandRows()
    text = snapshots.encode(state, rows)
    assert len(rows.rows) == len(state.game.results)
    with pytest.raises(snapshots.SnapshotError):
        snapshots.decode(text)  # no shelf to read the hands from
    assert snapshots.decode(snapshots.encode(state)) == state  # without a sink: the hands inline, as before
    for planted in ('{"__hl": ["x", "", []]}', '{"__hl": [2, 3, []]}', '{"__hl": [1]}'):
        with pytest.raises(snapshots.SnapshotError):
            snapshots.decode(planted, snapshots.Shelf(None, "g", "v", 0))  # type: ignore[arg-type]


def encoded_games() -> bytes:
    """The snapshot texts of every state of two seeded random games of every kind, one a line, each followed
    by the hand rows it names; every state is checked to decode to itself (its hands inline)."""
    lines: list[bytes] = []
    for kind in available():
        rules = rules_for(kind)
        names = players_of(kind)
        for seed in (1, 2):
            for state in play(rules, names, {}, rng=random.Random(seed), max_events=300, keep_states=True).states:
                rows = snapshots.HandRows()
                lines.append(snapshots.encode(state, rows).encode())
                lines.extend(orjson.dumps(row) for row in rows.rows.values())
                assert snapshots.decode(snapshots.encode(state)) == state
    return b"\n".join(lines)


def test_a_state_is_the_same_text_in_every_process() -> None:
    """A set's order follows string hashing, salted per process: its members are written in a canonical order,
    so that two processes of the service write the same state as the same text (issue 34)."""
    script = (
        "import sys\n"
        "from tests.store.test_snapshots import encoded_games\n"
        "sys.stdout.buffer.write(encoded_games())\n"
    )
    outputs = [
        subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
            capture_output=True,
            timeout=300,
        ).stdout
        for seed in ("1", "2")
    ]
    first, second = (output.split(b"\n") for output in outputs)
    assert len(first) == len(second) > 1000
    for at, (one, other) in enumerate(zip(first, second, strict=True)):
        assert one == other, f"line {at} of the encodings differs between two hash seeds"
