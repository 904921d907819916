"""The hand-facts read model, on SQLite and PostgreSQL: incremental catch-up equals a rebuild,
retracted events lose their facts, a racing writer never doubles a fact, Casino sweeps come
from the round's end facts."""

from __future__ import annotations

import random
from typing import Any

from events.store import Store
from projections.core.recorder import Recorder
from projections.core.registry import available, rules_for
from projections.core.simulate import play
from projections.readmodels.hand_facts import KNOWN, NAME, READS, SITUATIONS, HandFacts, facts_of
from tests.projections.helpers import PLAYERS

#: PostgreSQL on the session's own server: these tests read the log below the transaction-id horizon
#: (tests/conftest.py `store_url`), which open transactions elsewhere on a shared server hold back
OWN_SERVER = True

#: three-handed Casino, seed 178: the capture at seq 48 clears the table (a sweep); the one at
#: seq 50 clears it again but is the round's last capture (only trails follow): no sweep
SWEEP_SEED = 178


def record(
    recorder: Recorder, club_id: int, kind: str, seed: int, players: list[str] | None = None, step: int = 50
) -> tuple[str, list[dict[str, Any]]]:
    rules = rules_for(kind)
    players = players or PLAYERS[kind]
    playout = play(rules, players, {}, rng=random.Random(seed), max_events=600)
    game = recorder.create_game(club_id=club_id, kind=kind, players=players, options={})
    events = list(playout.events)
    for start in range(0, len(events), step):
        recorder.append(game.id, events[start : start + step], club_id=club_id, actor="t")
    return game.id, events


def facts(store: Store, game_id: str, situation: str | None = None) -> list[tuple[int, int, str, int | None]]:
    rows = store.hand_fact_rows([game_id])
    return [(r["hand"], r["seq"], r["situation"], r["seat"]) for r in rows if situation in (None, r["situation"])]


def test_incremental_catch_up_gives_the_same_rows_as_a_rebuild(store: Store) -> None:
    recorder = Recorder(store)
    club_id = store.ensure_club("read model club")
    model = HandFacts(store, batch=37)  # small pages: many checkpoints
    ids = []
    for seed, kind in enumerate(available()):
        game_id, _ = record(recorder, club_id, kind, seed)
        ids.append(game_id)
        model.catch_up()  # the incremental path, between the games' appends
    recorder.append(ids[0], [{"type": "retract", "to_seq": 20, "reason": "misdeal"}], club_id=club_id, actor="t")
    model.catch_up()
    assert model.behind() == 0 and model.position() == store.head_position()
    incremental = store.hand_fact_rows()
    mine = [r for r in incremental if r["game_id"] in ids]
    assert {r["situation"] for r in mine} >= {"marriage", "knock", "bust", "made_bid", "build"}
    assert all(r["club_id"] == club_id for r in mine)
    rebuilt = HandFacts(store, batch=1000)
    read = rebuilt.rebuild()
    assert rebuilt.position() == store.head_position()
    # only the events that can give a fact (and the retracts) are read, far fewer than the log holds
    assert 0 < read < store.head_position() // 2
    assert store.hand_fact_rows() == incremental


def test_facts_name_the_hand_the_seq_and_the_seat(store: Store) -> None:
    recorder = Recorder(store)
    club_id = store.ensure_club("read model club")
    game_id, _ = record(recorder, club_id, "schnapsen", 11)
    HandFacts(store).catch_up()
    envelopes = {env["seq"]: env for env in store.read_events(game_id)}
    rules = rules_for("schnapsen")
    expected = sorted((f.hand, f.seq, f.situation, f.seat) for env in envelopes.values() for f in facts_of(rules, env))
    found = facts(store, game_id)
    assert sorted(found) == expected and found
    for hand, seq, situation, seat in found:
        env = envelopes[seq]
        assert env["hand"] == hand and env["data"].get("seat") == seat
        if situation == "marriage":
            assert env["type"] == "play" and env["data"]["marriage"] is True


def test_a_retract_takes_back_the_facts_of_the_retracted_events(store: Store) -> None:
    recorder = Recorder(store)
    club_id = store.ensure_club("read model club")
    game_id, _ = record(recorder, club_id, "cutthroat-smear", 3)
    model = HandFacts(store)
    model.catch_up()
    before = facts(store, game_id)
    cut = before[len(before) // 2][1] - 1
    recorder.append(game_id, [{"type": "retract", "to_seq": cut, "reason": "x"}], club_id=club_id, actor="t")
    model.catch_up()
    after = facts(store, game_id)
    assert after == [f for f in before if f[1] <= cut] and len(after) < len(before)


def test_casino_sweeps_come_from_the_rounds_end_not_from_a_last_clearing_capture(store: Store) -> None:
    recorder = Recorder(store)
    club_id = store.ensure_club("read model club")
    game_id, _ = record(recorder, club_id, "casino", SWEEP_SEED, players=["A", "B", "C"])
    HandFacts(store).catch_up()
    envelopes = {env["seq"]: env for env in store.read_events(game_id)}
    assert envelopes[48]["result"].get("table_cleared") and envelopes[50]["result"].get("table_cleared")
    named = [(s["seq"], s["seat"]) for env in envelopes.values() for s in env["result"].get("sweeps", [])]
    assert named == [(48, envelopes[48]["data"]["seat"])]
    sweeps = facts(store, game_id, "sweep")
    assert sweeps == [(envelopes[48]["hand"], 48, "sweep", envelopes[48]["data"]["seat"])]


def test_a_process_that_lost_the_race_writes_nothing(store: Store) -> None:
    recorder = Recorder(store)
    club_id = store.ensure_club("read model club")
    HandFacts(store).catch_up()
    old = store.projection_position(NAME)
    game_id, _ = record(recorder, club_id, "schnapsen", 5)
    winner, loser = HandFacts(store), HandFacts(store)
    new, page = store.log.read_filtered(old, 10_000, READS)
    deletes, inserts, once = loser._changes(page)
    assert inserts and winner.catch_up() == len(page)
    rows = store.hand_fact_rows()
    lost = store.commit_hand_facts(NAME, old=old, new=new, deletes=deletes, inserts=inserts, once=once)
    assert lost is False and store.hand_fact_rows() == rows
    assert loser.catch_up() == 0 and facts(store, game_id)


def test_every_situation_the_games_give_is_a_known_search_tag() -> None:
    seen: set[str] = set()
    for kind in available():
        rules = rules_for(kind)
        for seed in range(6):
            playout = play(rules, PLAYERS[kind], {}, rng=random.Random(seed), max_events=600, keep_states=True)
            for event, state in zip(playout.events, playout.states, strict=True):
                tags = set(rules.situations(event, state.facts))
                assert tags <= set(SITUATIONS[kind]), f"{kind}: {tags - set(SITUATIONS[kind])} not listed"
                seen |= tags
    assert seen <= KNOWN and len(seen) >= 15


def test_the_filtered_read_gives_every_fact_that_reading_every_event_gives(store: Store) -> None:
    """The read model reads only what `READS` admits (SQL over the partial index); reading every event
    of the games and asking each game's `situations` gives the same facts."""
    recorder = Recorder(store)
    club_id = store.ensure_club("read model club")
    seven = rules_for("seven-and-a-half")
    house = {"two_card_bonus": True, "pair_of_sevens": True, "face_down_request": True, "splitting": True}
    ids = [record(recorder, club_id, kind, seed)[0] for seed, kind in enumerate(available())]
    ids.append(record(recorder, club_id, "casino", SWEEP_SEED, players=["A", "B", "C"])[0])
    playout = play(seven, PLAYERS["seven-and-a-half"], house, rng=random.Random(4), max_events=600)
    game = recorder.create_game(
        club_id=club_id, kind="seven-and-a-half", players=PLAYERS["seven-and-a-half"], options=house
    )
    recorder.append(game.id, list(playout.events), club_id=club_id, actor="t")
    ids.append(game.id)
    HandFacts(store).catch_up()
    expected: set[tuple[str, int, int, str, int | None]] = set()
    for game_id in ids:
        rules = rules_for(store.get_game(game_id).kind)
        for env in store.read_events(game_id):
            expected |= {(game_id, f.hand, f.seq, f.situation, f.seat) for f in facts_of(rules, env)}
    found = [(r["game_id"], r["hand"], r["seq"], r["situation"], r["seat"]) for r in store.hand_fact_rows(ids)]
    assert sorted(found) == sorted(expected) and len(found) == len(set(found))
    assert {f[3] for f in found} >= {"sweep", "marriage", "knock", "bust", "made_bid", "build", "split"}


def test_random_games_rebuilt_give_the_incremental_rows_and_each_events_own_facts(store: Store) -> None:
    """Random legal games of every kind (`play`, through `legal_events`), a three-handed Casino with its sweeps
    (the facts written once, at earlier seqs) and retracts, caught up after every append in small pages: the
    rebuild in large pages writes the same rows, and both are the facts `facts_of` gives each event still in
    force (the plain path, one envelope at a time, against the page's)."""
    recorder = Recorder(store)
    club_id = store.ensure_club("random read model club")
    rng = random.Random(34)
    model = HandFacts(store, batch=5)
    ids: list[str] = []
    for n, kind in enumerate([*available(), "casino"]):
        swept = n == len(available())  # the Casino game whose round's end names a sweep
        seed = SWEEP_SEED if swept else rng.randrange(1000)
        players = ["A", "B", "C"] if swept else None
        game_id, events = record(recorder, club_id, kind, seed, players=players, step=rng.randint(3, 30))
        ids.append(game_id)
        model.catch_up()
        if n % 2 == 0 and not swept:
            cut = rng.randint(1, len(events) - 1)
            recorder.append(game_id, [{"type": "retract", "to_seq": cut, "reason": "t"}], club_id=club_id, actor="t")
            model.catch_up()
    incremental = store.hand_fact_rows(ids)
    HandFacts(store, batch=20_000).rebuild()
    assert store.hand_fact_rows(ids) == incremental
    expected: list[tuple[str, int, int, str, int | None]] = []
    for game_id in ids:
        rules = rules_for(store.get_game(game_id).kind)
        envelopes = store.read_events(game_id)
        retracts = [env for env in envelopes if env["type"] == "retract"]
        taken_back = {s for env in retracts for s in range(env["data"]["to_seq"] + 1, env["seq"])}
        for env in envelopes:
            if env["type"] != "retract":
                expected += [(game_id, f.hand, f.seq, f.situation, f.seat) for f in facts_of(rules, env)]
        expected = [f for f in expected if f[0] != game_id or f[2] not in taken_back]
    found = [(r["game_id"], r["hand"], r["seq"], r["situation"], r["seat"]) for r in incremental]
    assert sorted(found, key=repr) == sorted(set(expected), key=repr)
    assert {f[3] for f in found} >= {"sweep", "build", "bust", "knock"}
