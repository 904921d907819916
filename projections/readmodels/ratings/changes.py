"""One rated result as its explained `rating_change` rows: each player's rating before and after, each side's
expected and actual result, and the opponents it was rated against.

A rebuild runs `rate` for every result, so it makes no more than the rows need: the ratings are plain
`(mu, sigma, results)` tuples in one dict, the numbers come from `maths.rated` (openskill's own, bit for bit,
without its objects), each side's opponents' JSON is made once, and a result of one player against one (three
in four in `python -m bench.ratings`) takes `rated_pair`, with no list of sides or seats to walk.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
from openskill.models import BradleyTerryFullRating

from projections.core.rating import Match
from projections.readmodels.ratings.maths import MODEL, Skill, expected_results, rated, rated_pair

#: the latest rating of each (player, pool): mu, sigma, and how many results it is made of
Ratings = dict[tuple[str, str], tuple[float, float, int]]
#: one `rating_change` row, in `CHANGE_COLUMNS` order (what `RatingRecorder.commit_ratings` writes)
ChangeRow = tuple[Any, ...]
#: a result's `(club_id, game_id, kind, position, recorded_at)`, as its rows begin and end
Base = tuple[int, str, str, int, str]

#: a (player, pool) not rated yet: the model's prior, no results
PRIOR = (MODEL.mu, MODEL.sigma, 0)


def score(mine: int, theirs: int) -> float:
    """The actual result of a side of rank `mine` against one of rank `theirs` (lower is better)."""
    return 1.0 if mine < theirs else (0.5 if mine == theirs else 0.0)


def side_json(entries: list[dict[str, Any]]) -> str:
    """A side's players before a result as the opponents' JSON names them: `events.codec.dumps` of these dicts,
    whose keys `rate` writes in sorted order, so orjson's own order is the codec's without its sorting."""
    return orjson.dumps(entries).decode()


def rate(match: Match, players: Sequence[str], ratings: Ratings, base: Base) -> list[ChangeRow]:
    """Rate one match: update `ratings` in place; one explained `rating_change` row per player, side after side,
    seat after seat.

    Every number is the library's (`maths.rated`: `MODEL.rate` for the new ratings, `predict_win` for each
    side's expected result, taken before the update). `tests/projections/test_ratings.py` holds the rows of a
    rebuild of 300 games to those of openskill's public `rate` and the codec, bit for bit.
    """
    sides = match.sides
    if len(sides) == 2 and len(sides[0]) == 1 == len(sides[1]):
        pair = _rate_pair(match, players, ratings, base)
        if pair is not None:
            return pair
    prior = PRIOR
    befores: list[list[tuple[int, tuple[str, str], float, float, int]]] = []  # (seat, key, mu, sigma, results)
    skills: list[list[Skill]] = []
    texts: list[str] = []  # each side's players before, as its opponents' JSON names them
    seated: set[tuple[str, str]] = set()
    for side, pool in zip(sides, match.pools, strict=True):
        before = []
        skill = []
        named = []
        for seat in side:
            player = players[seat]
            key = (player, pool)
            mu, sigma, results = ratings.get(key, prior)
            before.append((seat, key, mu, sigma, results))
            skill.append((mu, sigma))
            named.append({"mu": mu, "player_id": player, "seat": seat, "sigma": sigma})
            seated.add(key)
        befores.append(before)
        skills.append(skill)
        texts.append(side_json(named))
    count = len(sides)
    ranks = match.ranks
    apart = len(seated) == sum(map(len, befores))
    if apart:
        expectations, after = rated(skills, ranks)
    else:
        expectations, after = _seated_twice(befores, ranks)
    club_id, game_id, kind, position, recorded_at = base
    pools = match.pools
    hand, seq = match.hand, match.seq
    rows: list[ChangeRow] = []
    for i in range(count):
        if count == 2:
            j = 1 - i
            actual = score(ranks[i], ranks[j])
            opponents = texts[j]
        else:
            others = [j for j in range(count) if j != i]
            actual = sum(score(ranks[i], ranks[j]) for j in others) / len(others)
            opponents = "[" + ",".join(texts[j][1:-1] for j in others) + "]"
        pool, expected = pools[i], expectations[i]
        for (seat, key, mu, sigma, results), (new_mu, new_sigma) in zip(befores[i], after[i], strict=True):
            if not apart:  # the same key again: count from its rating as this result left it
                results = ratings.get(key, prior)[2]
            ratings[key] = (new_mu, new_sigma, results + 1)
            rows.append(
                (
                    club_id, game_id, kind, pool, hand, seq, position, seat, key[0],
                    mu, sigma, new_mu, new_sigma, expected, actual, opponents, recorded_at,
                )
            )  # fmt: skip
    return rows


def _seated_twice(
    befores: list[list[tuple[int, tuple[str, str], float, float, int]]], ranks: Sequence[int]
) -> tuple[list[float], list[list[Skill]]]:
    """`rated` of a result with one player in two sides (a name seated twice): the library's own way, which
    `maths.rated` does not follow. One rating object per (player, pool), in both sides, as the library's
    `predict_win` reads it and its `rate` updates it: `rate`'s deep copy keeps the two places one object, so
    the second update starts from the first's (`tests/projections/test_ratings.py`, a name seated twice)."""
    made: dict[tuple[str, str], BradleyTerryFullRating] = {}
    sides = [
        [made.setdefault(key, MODEL.rating(mu=mu, sigma=sigma)) for _, key, mu, sigma, _ in before]
        for before in befores
    ]
    expected = expected_results(sides)
    after = MODEL.rate(sides, ranks=list(ranks))
    return expected, [[(rating.mu, rating.sigma) for rating in side] for side in after]


def _rate_pair(match: Match, players: Sequence[str], ratings: Ratings, base: Base) -> list[ChangeRow] | None:
    """`rate` of a match of one player against one: the same rows, with no list of sides or seats to walk. None
    when both are the same player in the same pool (then `rate`'s general way, the library's)."""
    ((seat_a,), (seat_b,)), (pool_a, pool_b) = match.sides, match.pools
    player_a, player_b = players[seat_a], players[seat_b]
    key_a, key_b = (player_a, pool_a), (player_b, pool_b)
    if key_a == key_b:
        return None
    mu_a, sigma_a, results_a = ratings.get(key_a, PRIOR)
    mu_b, sigma_b, results_b = ratings.get(key_b, PRIOR)
    rank_a, rank_b = match.ranks
    expected_a, expected_b, new_mu_a, new_sigma_a, new_mu_b, new_sigma_b = rated_pair(
        mu_a, sigma_a, mu_b, sigma_b, rank_a, rank_b
    )
    ratings[key_a] = (new_mu_a, new_sigma_a, results_a + 1)
    ratings[key_b] = (new_mu_b, new_sigma_b, results_b + 1)
    club_id, game_id, kind, position, recorded_at = base
    hand, seq = match.hand, match.seq
    as_opponent_a = side_json([{"mu": mu_a, "player_id": player_a, "seat": seat_a, "sigma": sigma_a}])
    as_opponent_b = side_json([{"mu": mu_b, "player_id": player_b, "seat": seat_b, "sigma": sigma_b}])
    return [
        (
            club_id, game_id, kind, pool_a, hand, seq, position, seat_a, player_a,
            mu_a, sigma_a, new_mu_a, new_sigma_a, expected_a, score(rank_a, rank_b), as_opponent_b, recorded_at,
        ),
        (
            club_id, game_id, kind, pool_b, hand, seq, position, seat_b, player_b,
            mu_b, sigma_b, new_mu_b, new_sigma_b, expected_b, score(rank_b, rank_a), as_opponent_a, recorded_at,
        ),
    ]  # fmt: skip
