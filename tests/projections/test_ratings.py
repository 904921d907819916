"""Ratings (projections/readmodels/ratings/): the matches each game shape rates, explained changes, rebuild =
incremental, and a retract of a rated result corrected from the first change it takes back."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from api.service import Operator, Tablebook
from bench import ratings as bench_ratings
from events.codec import dumps
from events.store import Store
from events.store.migrate import upgrade
from events.store.ratings import CHANGE_COLUMNS
from projections.games.seven_and_a_half.readmodels import BANKER_POOL, PUNTER_POOL
from projections.readmodels.ratings import (
    MODEL,
    HandContext,
    Match,
    RatingsModel,
    context_of,
    matches_of,
    matches_of_rows,
    rate,
    update,
)
from projections.readmodels.ratings import projection as ratings_projection
from tests.projections.helpers import caught_up

#: PostgreSQL on the session's own server: these tests read the log below the transaction-id horizon
#: (tests/conftest.py `store_url`), which open transactions elsewhere on a shared server hold back
OWN_SERVER = True


def _env(kind: str, seq: int, hand: int, result: dict[str, Any], data: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": kind, "seq": seq, "hand": hand, "data": data or {}, "result": result}


def test_schnapsen_rates_the_winner_against_the_loser_at_the_game_end_only() -> None:
    context = HandContext()
    assert matches_of("schnapsen", 2, _env("play", 9, 3, {"hand_ended": True}), context) == []
    (match,) = matches_of("schnapsen", 2, _env("play", 10, 3, {"game_ended": True, "winner": 1}), context)
    assert match.sides == ((0,), (1,)) and match.ranks == (1, 0) and match.pools == ("schnapsen", "schnapsen")


def test_casino_and_smear_rank_everyone_by_final_totals_with_ties() -> None:
    result = {"game_ended": True, "totals": {"0": 17, "1": 21, "2": 17, "3": 5}}
    (match,) = matches_of("casino", 4, _env("capture", 80, 6, result), HandContext())
    assert match.sides == ((0,), (1,), (2,), (3,))
    assert match.ranks == (1, 0, 1, 3)  # 21 first, the two 17s tie second, 5 last
    (smear,) = matches_of(
        "cutthroat-smear", 3, _env("play", 50, 4, {"game_ended": True, "totals": {"0": 3}}), HandContext()
    )
    assert smear.pools == ("cutthroat-smear",) * 3 and smear.ranks == (0, 1, 1)


def test_gin_rates_each_scored_hand_box_against_captain_and_sitter() -> None:
    context = context_of("gin-rummy-3")
    context.observe(_env("deal", 2, 1, {"box": 2, "captain": 0, "sitter": 1}))
    (match,) = matches_of("gin-rummy-3", 3, _env("lay_off", 20, 1, {"hand_ended": True, "box_won": False}), context)
    assert match.sides == ((2,), (0, 1)) and match.ranks == (1, 0)
    drawn = _env("discard", 30, 1, {"hand_ended": True, "drawn": True})
    assert matches_of("gin-rummy-3", 3, drawn, context) == []


def test_seven_and_a_half_pairs_each_staking_punter_with_the_banker_in_separate_pools() -> None:
    context = context_of("seven-and-a-half")
    context.observe(_env("bet", 1, 1, {"banker": 0}, {"seat": 1, "amount": 2}))
    context.observe(_env("bet", 2, 1, {}, {"seat": 3, "amount": 1}))
    context.observe(_env("bet", 3, 1, {}, {"seat": 2, "amount": 1}))
    result = {"hand_ended": True, "points": {"0": 1, "1": -2, "2": 0, "3": 1}}
    found = matches_of("seven-and-a-half", 4, _env("stand", 9, 1, result), context)
    assert [(m.sides, m.ranks) for m in found] == [
        (((1,), (0,)), (1, 0)),  # seat 1 lost to the bank
        (((2,), (0,)), (0, 0)),  # seat 2 tied
        (((3,), (0,)), (0, 1)),  # seat 3 won
    ]
    assert all(m.pools == (PUNTER_POOL, BANKER_POOL) for m in found)
    # a retract back before seat 2's stake takes it out of the hand
    context.observe(_env("retract", 4, 1, {}, {"to_seq": 2}))
    assert [m.sides[0] for m in matches_of("seven-and-a-half", 4, _env("stand", 9, 1, result), context)] == [(1,), (3,)]


def test_a_rating_change_is_explained_with_the_opponents_before_and_the_expected_result() -> None:
    ratings: dict[tuple[str, str], tuple[float, float, int]] = {("pB", "schnapsen"): (30.0, 5.0, 12)}
    match = Match(3, 40, ((0,), (1,)), ("schnapsen", "schnapsen"), (0, 1))
    rows = rate(match, ["pA", "pB"], ratings, (1, "g1", "schnapsen", 77, "2026-01-01T00:00:00Z"))
    anna, ben = (dict(zip(CHANGE_COLUMNS, row, strict=True)) for row in rows)
    assert anna["game_id"] == "g1" and anna["position"] == 77 and anna["pool"] == "schnapsen"
    assert anna["player_id"] == "pA" and anna["mu_before"] == MODEL.mu and anna["actual"] == 1.0
    assert anna["expected"] < 0.5 < ben["expected"]  # Ben was rated higher: Anna's win was the surprise
    assert abs(anna["expected"] + ben["expected"] - 1.0) < 1e-9
    assert anna["mu_after"] > anna["mu_before"] and ben["mu_after"] < ben["mu_before"]
    assert '"mu":30.0' in anna["opponents"] and '"player_id":"pB"' in anna["opponents"]
    assert ratings[("pA", "schnapsen")][2] == 1 and ratings[("pB", "schnapsen")][2] == 13


def test_the_in_place_update_is_the_librarys_rate_bit_for_bit() -> None:
    """`update` skips `MODEL.rate`'s checks and copies; on random matches of every shape the ratings agree
    exactly, so an openskill whose `rate` does something else fails here."""
    rng = random.Random(11)
    shapes = [[1, 1], [1, 2], [1, 1, 1], [1, 1, 1, 1], [2, 1], [1, 1, 2]]
    for _ in range(3000):
        sizes = rng.choice(shapes)
        teams = [
            [MODEL.rating(mu=rng.uniform(5, 45), sigma=rng.choice([rng.uniform(0.05, 9.0), 25 / 3])) for _ in range(n)]
            for n in sizes
        ]
        ranks = [rng.randrange(len(sizes)) for _ in sizes]  # ties and gaps as they come
        expected = MODEL.rate(teams, ranks=list(ranks))
        update(teams, ranks)
        assert [[(r.mu, r.sigma) for r in side] for side in teams] == [
            [(r.mu, r.sigma) for r in side] for side in expected
        ], (sizes, ranks)


KINDS = ("schnapsen", "casino", "cutthroat-smear", "gin-rummy-3", "seven-and-a-half")


def _demo(store: Store, rounds: int, seed: int, *, follow: RatingsModel | None = None) -> list[str]:
    service = Tablebook.open(store)
    club = store.ensure_club("c")
    rng = random.Random(seed)
    ids = []
    for _ in range(rounds):
        for kind in KINDS:
            ids.append(service.record_demo_game(club, kind, rng))
            if follow is not None:
                follow.catch_up()
    return ids


def test_rebuild_gives_the_same_ratings_as_the_incremental_updates(store: Store) -> None:
    follow = RatingsModel(store, batch=97)  # pages that end inside hands: the hand context is read back
    _demo(store, 2, 7, follow=follow)
    caught_up(follow, store)
    incremental = store.ratings.rows()
    pools = {row["pool"] for row in incremental}
    assert pools == {"schnapsen", "casino", "cutthroat-smear", "gin-rummy-3", BANKER_POOL, PUNTER_POOL}
    assert follow.position() == store.head_position()
    RatingsModel(store).rebuild()
    assert store.ratings.rows() == incremental
    # each change follows from the one before it for the same player and pool
    last: dict[tuple[str, str], float] = {}
    for row in incremental:
        key = (row["player_id"], row["pool"])
        assert row["mu_before"] == pytest.approx(last.get(key, MODEL.mu))
        last[key] = row["mu_after"]


def test_the_filtered_read_rates_what_a_read_of_every_event_rates(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`READS` leaves most events to the database; the ratings from what it admits are those from the whole
    log (pages of 97 events, so that hand contexts are also read back from the middle of hands)."""
    _demo(store, 1, 5)
    RatingsModel(store, batch=97).rebuild()
    filtered = store.ratings.rows()
    assert {row["pool"] for row in filtered} >= {"gin-rummy-3", BANKER_POOL, PUNTER_POOL}
    monkeypatch.setattr(ratings_projection, "READS", None)  # what the projection reads
    RatingsModel(store, batch=97).rebuild()
    assert store.ratings.rows() == filtered


def test_a_retract_of_a_rated_result_is_corrected_and_drops_it(store: Store) -> None:
    ids = _demo(store, 1, 3)
    model = RatingsModel(store)
    model.catch_up()
    schnapsen = ids[0]
    rated = [r for r in store.ratings.rows() if r["game_id"] == schnapsen]
    assert len(rated) == 2  # winner and loser
    service = Tablebook.open(store)
    reader = Operator(club_id=store.ensure_club("c"), club="c")
    end = store.get_game(schnapsen).seq
    service.append(
        reader, schnapsen, [{"type": "retract", "to_seq": end - 1, "reason": "the last trick was misrecorded"}]
    )
    model.catch_up()
    after = store.ratings.rows()
    assert [r for r in after if r["game_id"] == schnapsen] == []
    RatingsModel(store).rebuild()
    assert store.ratings.rows() == after  # the same as from zero: the later games rated without it


def _latest(rows: list[dict[str, Any]]) -> dict[tuple[str, str], tuple[float, float]]:
    """Each (player, pool)'s rating after its last change in these rows."""
    return {(r["player_id"], r["pool"]): (r["mu_after"], r["sigma_after"]) for r in rows}


@pytest.mark.parametrize(("seed", "in_place"), [(1, 0.25), (3, 0.0)])
def test_a_correction_rederives_what_a_rebuild_gives_and_reports_each_player(
    store: Store, seed: int, in_place: float
) -> None:
    """Retracts of rated results, at random places in random games (one at a time, then two in one page),
    re-derive the ratings from the first change they take back: the rows equal a rebuild's from zero,
    and each correction's report gives every player whose rating it changed, before it and after it. Both
    ways of writing it: the changed rows in place (the default for a few) or all again from the first."""
    rng = random.Random(seed)
    model = RatingsModel(store, batch=rng.choice([53, 97, 20_000]))
    model.in_place = in_place
    ids = _demo(store, 2, seed)  # two games of each kind: a correction in the first changes the second's ratings
    caught_up(model, store)
    service = Tablebook.open(store)
    reader = Operator(club_id=store.ensure_club("c"), club="c")
    retracted: set[str] = set()  # a game retracted once is not reached back past again (`retract_floor`)
    for at_once in (1, 2):
        old = store.ratings.rows()
        # the first: a game of the first round, so that a later game of its pool is rated again
        rated = sorted({r["game_id"] for r in old} & set(ids[: len(KINDS)] if at_once == 1 else ids) - retracted)
        games = rng.sample(rated, at_once)
        back_to: dict[str, int] = {}
        retracted.update(games)
        for game_id in games:
            back_to[game_id] = rng.choice(sorted({r["seq"] for r in old if r["game_id"] == game_id})) - 1
            retract = {"type": "retract", "to_seq": back_to[game_id], "reason": "misrecorded"}
            service.append(reader, game_id, [retract])
        done = len(model.corrections)
        caught_up(model, store)
        assert len(model.corrections) == done + 1, "one correction for the page"
        correction = model.corrections[-1]
        new = store.ratings.rows()
        assert {g for g, _ in correction.retracts} == set(games)
        first = min(i for i, r in enumerate(old) if r["seq"] > back_to.get(r["game_id"], r["seq"]))
        assert new[:first] == old[:first]  # nothing before the first change taken back is touched
        assert not [r for r in new if r["seq"] > back_to.get(r["game_id"], r["seq"])]  # nor after it kept
        was, now = _latest(old), _latest(new)
        changed = {key for key in was if now.get(key, (MODEL.mu, MODEL.sigma)) != was[key]}
        assert changed and {(p.player_id, p.pool) for p in correction.players} == changed
        for p in correction.players:
            key = (p.player_id, p.pool)
            assert (p.mu_before, p.sigma_before) == was[key]
            assert (p.mu_after, p.sigma_after) == now.get(key, (MODEL.mu, MODEL.sigma))
    incremental = store.ratings.rows()
    RatingsModel(store).rebuild()
    assert store.ratings.rows() == incremental


def test_a_process_that_did_not_make_a_correction_rates_on_from_the_corrected_rows(store: Store) -> None:
    """Two processes: one makes a correction, the other, holding the players' ratings in memory from before
    it, rates the next game: the checkpoint it finds moved makes it read the corrected rows, not its own."""
    first, second = RatingsModel(store), RatingsModel(store)
    service = Tablebook.open(store)
    club = store.ensure_club("c")
    rng = random.Random(8)
    ids = [service.record_demo_game(club, "schnapsen", rng) for _ in range(2)]  # Anna and Ben twice
    first.catch_up()
    second.catch_up()  # nothing new: it holds the ratings at this checkpoint
    service.record_demo_game(club, "schnapsen", rng)
    second.catch_up()  # and now it is the one that moved the checkpoint last
    seq = min(r["seq"] for r in store.ratings.rows() if r["game_id"] == ids[0])
    reader = Operator(club_id=club, club="c")
    service.append(reader, ids[0], [{"type": "retract", "to_seq": seq - 1, "reason": "misrecorded"}])
    first.catch_up()
    assert first.corrections and first.corrections[-1].players
    service.record_demo_game(club, "schnapsen", rng)
    second.catch_up()
    caught_up(second, store)
    rows = store.ratings.rows()
    RatingsModel(store).rebuild()
    assert store.ratings.rows() == rows


def test_a_smear_bid_made_or_set_is_the_bidders_fact_not_the_last_players() -> None:
    """The statistics count bids made and set at the bidder's seat, though the result comes on the last play."""
    from projections.core.registry import rules_for
    from projections.readmodels.hand_facts import facts_of

    rules = rules_for("cutthroat-smear")
    envelope = {
        "type": "play",
        "seq": 40,
        "hand": 3,
        "data": {"seat": 2, "card": "AS"},
        "result": {"hand_ended": True, "made": False, "bidder": 0, "game": 1},
    }
    found = {(f.situation, f.seat) for f in facts_of(rules, envelope)}
    assert ("failed_bid", 0) in found and not any(tag == "failed_bid" and seat == 2 for tag, seat in found)


def test_two_processes_taking_turns_rate_as_one_rebuild(store: Store) -> None:
    """A model keeps its players' ratings in memory from page to page; when another process moved the
    checkpoint in between, what it holds is behind, and it reads them again: the rows are the rebuild's."""
    first, second = RatingsModel(store, batch=40), RatingsModel(store, batch=40)
    first.catch_up()
    service = Tablebook.open(store)
    club = store.ensure_club("c")
    rng = random.Random(5)
    for turn in range(6):  # the same kinds and players again and again: each turn moves the same ratings
        for kind in ("schnapsen", "gin-rummy-3"):
            service.record_demo_game(club, kind, rng)
        (first if turn % 2 == 0 else second).catch_up()
    caught_up(first, store)
    taking_turns = store.ratings.rows()
    assert len({r["game_id"] for r in taking_turns}) >= 12
    RatingsModel(store).rebuild()
    assert store.ratings.rows() == taking_turns


def _plain_rows(
    stored: list[tuple[Any, ...]], held: dict[tuple[str, str], tuple[float, float]] | None = None
) -> list[tuple[Any, ...]]:
    """The rows of the results `stored` holds, rated again the plain way, from zero (or the ratings `held`):
    openskill's public `rate` (its checks and copies), its `predict_win` for each side against each other
    averaged, the opponents as dicts dumped by the codec, a fresh rating object for each player of each result."""
    latest = dict(held or {})
    out: list[tuple[Any, ...]] = []
    found = matches_of_rows(stored)
    assert found is not None
    for match, players, (club_id, game_id, kind, position, recorded_at) in found:
        before = [
            [(seat, players[seat], *latest.get((players[seat], pool), (MODEL.mu, MODEL.sigma))) for seat in side]
            for side, pool in zip(match.sides, match.pools, strict=True)
        ]
        made: dict[tuple[str, str], Any] = {}  # one object per player and pool (a name seated twice: one object)
        teams = [
            [made.setdefault((player, pool), MODEL.rating(mu=mu, sigma=sigma)) for _, player, mu, sigma in side]
            for side, pool in zip(before, match.pools, strict=True)
        ]
        count = len(teams)
        expected = [
            sum(MODEL.predict_win([teams[i], teams[j]])[0] for j in range(count) if j != i) / (count - 1)
            for i in range(count)
        ]
        if count == 2:
            expected = list(MODEL.predict_win(teams))
        after = MODEL.rate(teams, ranks=list(match.ranks))
        for i, side in enumerate(before):
            others = [j for j in range(count) if j != i]
            actual = sum(
                1.0 if match.ranks[i] < match.ranks[j] else 0.5 if match.ranks[i] == match.ranks[j] else 0.0
                for j in others
            ) / len(others)
            opponents = dumps(
                [{"seat": s, "player_id": p, "mu": mu, "sigma": sigma} for j in others for s, p, mu, sigma in before[j]]
            )
            for (seat, player, mu, sigma), new in zip(side, after[i], strict=True):
                latest[(player, match.pools[i])] = (new.mu, new.sigma)
                out.append(
                    (
                        club_id, game_id, kind, match.pools[i], match.hand, match.seq, position, seat, player,
                        mu, sigma, new.mu, new.sigma, expected[i], actual, opponents, recorded_at,
                    )
                )  # fmt: skip
    return out


def test_a_rebuild_rates_a_few_hundred_games_as_openskills_public_rate_does(tmp_path: Path) -> None:
    """Bit for bit: every number of a rebuild's rows (openskill's numbers on plain floats, the ratings kept from
    result to result, the opponents' JSON made without the codec's sorting) against the plain way of `_plain_rows`,
    on 300 games of every kind seated from 40 players (so ratings carry from result to result), through pages of
    2,000 events."""
    url = f"sqlite:///{tmp_path}/ratings.db"
    upgrade(url)
    store = Store(url)
    try:
        bench_ratings.fill(store, 300, players=bench_ratings.PLAYERS[:40])
        RatingsModel(store, batch=2000).rebuild()
        stored = [row[:17] for row in store.ratings.changes_from(1)]
        assert len(stored) > 3000 and len({row[3] for row in stored}) == 6
        assert stored == _plain_rows(stored)
    finally:
        store.dispose()


@pytest.mark.parametrize(
    ("sides", "pools", "players"),
    [
        (((0,), (1,)), ("schnapsen", "schnapsen"), ["pA", "pA"]),  # one name seated twice: the library's copies
        (((0,), (1,)), (PUNTER_POOL, BANKER_POOL), ["pA", "pA"]),  # the same name in two pools: two ratings
        (((0,), (1,)), ("schnapsen", "schnapsen"), ["pA", "pB"]),
        (((0,), (1, 2)), ("gin-rummy-3",) * 2, ["pA", "pB", "pA"]),
        (((0,), (1,), (2,)), ("casino",) * 3, ["pA", "pB", "pC"]),
    ],
)
def test_a_result_of_any_shape_is_rated_as_openskills_public_rate_does(
    sides: tuple[tuple[int, ...], ...], pools: tuple[str, ...], players: list[str]
) -> None:
    """`rate`'s ways (a pair of players, any other shape, a name seated twice), each against the plain way, from
    ratings held before and twice in a row (the second from the ratings the first left)."""
    ratings: dict[tuple[str, str], tuple[float, float, int]] = {("pB", pools[-1]): (31.5, 4.25, 9)}
    base = (1, "g1", "kind", 77, "2026-01-01T00:00:00Z")
    first = rate(Match(1, 10, sides, pools, (1,) + (0,) * (len(sides) - 1)), players, ratings, base)
    second = rate(Match(2, 20, sides, pools, (0,) * len(sides)), players, ratings, (*base[:3], 78, base[4]))
    plain = _plain_rows(first + second, {("pB", pools[-1]): (31.5, 4.25)})
    assert first + second == plain
    for player, pool in {(players[s], pools[i]) for i, side in enumerate(sides) for s in side}:
        seated = sum(players[s] == player for i, side in enumerate(sides) for s in side if pools[i] == pool)
        assert ratings[(player, pool)][2] == 2 * seated + (9 if player == "pB" else 0)
