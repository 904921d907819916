"""The rating update and the expected results, on plain floats: openskill's `BradleyTerryFull`, bit for bit.

The library (`openskill`, compiled with mypyc) is the reference: `update` and `expected_results` below call it
on its own rating objects, and `python -m bench.ratings` times them as the ceiling of a rebuild's maths. A
rebuild rates every result, though, and the library's way costs more than its arithmetic: a rating object per
player (made with a uuid when new), a team-rating object per side, the ranks mapped, sorted and unwound, and
`predict_win` checking its arguments again. No library computes these numbers without those objects, so
`rated` writes out the same operations on floats, in the same order, with the same expressions:

- `predict_win` (before the update): each side's mu and sigma squared summed over its players (in the
  library's order: by ordinal, best first, the sums started at 0.0), then
  `phi_major((mu_a - mu_b) / sqrt(2 beta^2 + s_a + s_b))`, `NormalDist().cdf` written out with `erf`;
  with three sides or more, each side's win against each other side averaged, as `expected_results` does;
- `rate`: each sigma widened by `tau` (`sqrt(sigma * sigma + tau * tau)`), the sides taken in rank order
  (stable, so ties keep their order), and `_compute`'s loop over every other side: `c`, the logistic `p`,
  `omega` and `delta` summed from 0.0 in that order, the model's default `gamma` (`sqrt(s_i) / c`), then each
  player's mu and sigma (weight 1.0, `kappa` the floor); a tied side's mu moved by the library's average
  change of the tied sides, which is 0.0 (it reads the objects it has just written), so `mu + 0.0`.

Multiplying or dividing by the weight 1.0 and the margin divisor 1.0 changes no float, so they are left out.
`tests/projections/test_rating_maths.py` holds `rated` to the library's public `MODEL.rate` and `predict_win`
on many thousand random results of every shape (one against one, teams, three and four sides, ties, sigmas
near the floor), float for float; an openskill whose numbers change fails there before it changes a rating.
`rated` handles every shape a game declares; the one it refuses (a player in two sides of one result, whose
one rating the library updates twice through one object) goes through `MODEL.rate` (`changes.rate`), as does
any model this module was not written for (`MODEL` with other options fails the asserts below at import).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from openskill.models import BradleyTerryFull, BradleyTerryFullRating
from openskill.models.weng_lin.bradley_terry_full import _gamma

MODEL = BradleyTerryFull()

assert not MODEL.limit_sigma, "update() and rated() follow MODEL.rate without limit_sigma"
assert not MODEL.balance and MODEL.gamma is _gamma, "rated() follows the model's default gamma, unbalanced"

#: `MODEL.rate`'s own additive dynamics (`tau`), squared as it squares it
_TAU_SQUARED = MODEL.tau * MODEL.tau
#: `2 * beta**2`, as `_compute` and `predict_win` both write it
_TWO_BETA_SQUARED = 2 * MODEL.beta**2
_KAPPA = MODEL.kappa
#: `statistics.NormalDist().cdf`'s `sigma * _SQRT2` with sigma 1.0
_SQRT2 = math.sqrt(2.0)

_sqrt, _exp, _erf = math.sqrt, math.exp, math.erf

#: a player's rating as `rated` takes and gives it: (mu, sigma)
Skill = tuple[float, float]


def update(sides: Sequence[Sequence[BradleyTerryFullRating]], ranks: Sequence[int]) -> None:
    """`MODEL.rate(sides, ranks)`, made on the rating objects themselves: the same numbers, bit for bit.

    `rate` checks its arguments, deep-copies every rating (a new object and a uuid each), widens each
    sigma by `tau`, orders the sides by rank, runs the model's update (`_compute`, which writes the new
    mu and sigma into the objects it is given) and puts the sides back in their order; the checks and
    the copies are five sixths of its time. Here the objects are the caller's, each player in one side
    only, so the update may write into them: the same widening with the same expression, the same stable
    order by rank, the same `_compute`. The library's own maths, which `python -m bench.ratings` times as
    the ceiling; `tests/projections/test_ratings.py` compares it with `MODEL.rate`.
    """
    for side in sides:
        for rating in side:
            rating.sigma = math.sqrt(rating.sigma * rating.sigma + _TAU_SQUARED)
    order = sorted(range(len(sides)), key=ranks.__getitem__)
    MODEL._compute(teams=[sides[i] for i in order], ranks=[ranks[i] for i in order])


def expected_results(sides: list[list[BradleyTerryFullRating]]) -> list[float]:
    """Each side's expected result against the others: the library's win probability (`MODEL.predict_win`)
    against each other side, averaged over them like the actual result (with two sides, one call gives
    both: the library's `[p, 1 - p]`)."""
    count = len(sides)
    if count == 2:
        pair = MODEL.predict_win(sides)
        return [pair[0], pair[1]]
    return [
        sum(MODEL.predict_win([sides[i], sides[j]])[0] for j in range(count) if j != i) / (count - 1)
        for i in range(count)
    ]


def _phi(x: float) -> float:
    """`openskill`'s `phi_major`: `statistics.NormalDist().cdf(x)` (mu 0.0, sigma 1.0) as it computes it."""
    return 0.5 * (1.0 + _erf(x / _SQRT2))


def _two_sides(mu_a: float, squared_a: float, mu_b: float, squared_b: float, rank_a: int, rank_b: int) -> tuple[
    float, float, float, float
]:  # fmt: skip
    """`_compute`'s loop for two sides (their sums, widened): each side's `omega` and `delta`, summed from 0.0 over
    its one opponent; `c` is the same for both (a sum of two terms is the same either way)."""
    c = _sqrt(squared_a + squared_b + _TWO_BETA_SQUARED)
    p_a = 1 / (1 + _exp((mu_b - mu_a) / c))
    p_b = 1 / (1 + _exp((mu_a - mu_b) / c))
    score_a = 1.0 if rank_b > rank_a else (0.5 if rank_b == rank_a else 0.0)
    score_b = 1.0 if rank_a > rank_b else (0.5 if rank_a == rank_b else 0.0)
    over_c_a, over_c_b = squared_a / c, squared_b / c
    return (
        0.0 + over_c_a * (score_a - p_a),
        0.0 + ((_sqrt(squared_a) / c * over_c_a) / c) * p_a * (1 - p_a),
        0.0 + over_c_b * (score_b - p_b),
        0.0 + ((_sqrt(squared_b) / c * over_c_b) / c) * p_b * (1 - p_b),
    )


def rated_pair(mu_a: float, sigma_a: float, mu_b: float, sigma_b: float, rank_a: int, rank_b: int) -> tuple[
    float, float, float, float, float, float
]:  # fmt: skip
    """One player against one (most results): `rated([[(mu_a, sigma_a)], [(mu_b, sigma_b)]], (rank_a, rank_b))`
    with no list made: (expected a, expected b, mu a after, sigma a after, mu b after, sigma b after).

    With two sides each side's sums are its one player's (`0.0 + mu`, `sigma**2`), and the order of the sides
    changes nothing."""
    team_mu_a, team_mu_b = 0.0 + mu_a, 0.0 + mu_b
    win = _phi((team_mu_a - team_mu_b) / _sqrt(_TWO_BETA_SQUARED + sigma_a**2 + sigma_b**2))
    sigma_a = _sqrt(sigma_a * sigma_a + _TAU_SQUARED)
    sigma_b = _sqrt(sigma_b * sigma_b + _TAU_SQUARED)
    squared_a, squared_b = sigma_a**2, sigma_b**2
    omega_a, delta_a, omega_b, delta_b = _two_sides(team_mu_a, squared_a, team_mu_b, squared_b, rank_a, rank_b)
    share_a, share_b = sigma_a**2 / squared_a, sigma_b**2 / squared_b
    new_mu_a = mu_a + share_a * omega_a
    new_mu_b = mu_b + share_b * omega_b
    if rank_a == rank_b:  # the library's average change of a tie: 0.0
        new_mu_a, new_mu_b = new_mu_a + 0.0, new_mu_b + 0.0
    return (
        win,
        1 - win,
        new_mu_a,
        sigma_a * _sqrt(max(1 - share_a * delta_a, _KAPPA)),
        new_mu_b,
        sigma_b * _sqrt(max(1 - share_b * delta_b, _KAPPA)),
    )


def _team(players: Sequence[Skill]) -> tuple[float, float]:
    """A side's summed mu and sigma squared as the library sums them: its players by ordinal (`mu - 3 sigma`),
    best first (a stable sort), from 0.0. One player or two (every side a game declares) without `sorted`: of
    two, the second goes first only when its ordinal is greater (a tie keeps their order)."""
    if len(players) == 1:
        ((mu, sigma),) = players
        return 0.0 + mu, sigma**2
    if len(players) == 2:
        first, second = players
        if (second[0] - 3.0 * second[1]) + 0.0 > (first[0] - 3.0 * first[1]) + 0.0:
            first, second = second, first
        return 0.0 + first[0] + second[0], 0.0 + first[1] ** 2 + second[1] ** 2
    mu, squared = 0.0, 0.0
    for player_mu, sigma in sorted(players, key=lambda p: (p[0] - 3.0 * p[1]) + 0.0, reverse=True):
        mu += player_mu
        squared += sigma**2
    return mu, squared


def _side_after(side: Sequence[Skill], squared: float, omega: float, delta: float, tied: bool) -> list[Skill]:
    """`_compute`'s last step for one side's players (widened), from its sums and the side's `omega` and `delta`;
    a tied side's mu moved by the library's average change of the tied sides, 0.0 (it reads the objects it
    has just written: each change is `x - x`)."""
    out = []
    for mu, sigma in side:
        share = sigma**2 / squared
        mu += share * omega
        if tied:
            mu += 0.0
        out.append((mu, sigma * _sqrt(max(1 - share * delta, _KAPPA))))
    return out


def _rated_two(side_a: Sequence[Skill], side_b: Sequence[Skill], rank_a: int, rank_b: int) -> tuple[
    list[float], list[list[Skill]]
]:  # fmt: skip
    """`rated` of two sides (a team against a player or a team): as `rated_pair`, each side's sums its players'."""
    mu_a, squared_a = _team(side_a)
    mu_b, squared_b = _team(side_b)
    win = _phi((mu_a - mu_b) / _sqrt(_TWO_BETA_SQUARED + squared_a + squared_b))
    side_a = [(mu, _sqrt(sigma * sigma + _TAU_SQUARED)) for mu, sigma in side_a]
    side_b = [(mu, _sqrt(sigma * sigma + _TAU_SQUARED)) for mu, sigma in side_b]
    mu_a, squared_a = _team(side_a)
    mu_b, squared_b = _team(side_b)
    omega_a, delta_a, omega_b, delta_b = _two_sides(mu_a, squared_a, mu_b, squared_b, rank_a, rank_b)
    tied = rank_a == rank_b
    return [win, 1 - win], [
        _side_after(side_a, squared_a, omega_a, delta_a, tied),
        _side_after(side_b, squared_b, omega_b, delta_b, tied),
    ]


def rated(sides: Sequence[Sequence[Skill]], ranks: Sequence[int]) -> tuple[list[float], list[list[Skill]]]:
    """Each side's expected result (`expected_results`, before the update) and each player's rating after the
    result (`MODEL.rate(sides, ranks)`), side by side in the order given, from (mu, sigma) pairs; every player
    in one side only (the caller sends a player seated twice to the library)."""
    count = len(sides)
    if count == 2:
        return _rated_two(sides[0], sides[1], ranks[0], ranks[1])
    before = [_team(side) for side in sides]
    expected = []
    for i, (mu_i, squared_i) in enumerate(before):
        total: float = 0
        for j, (mu_j, squared_j) in enumerate(before):
            if j != i:
                total += _phi((mu_i - mu_j) / _sqrt(_TWO_BETA_SQUARED + squared_i + squared_j))
        expected.append(total / (count - 1))
    widened = [[(mu, _sqrt(sigma * sigma + _TAU_SQUARED)) for mu, sigma in side] for side in sides]
    order = sorted(range(count), key=ranks.__getitem__)
    teams = [_team(widened[i]) for i in order]
    after: list[list[Skill]] = [[] for _ in range(count)]
    for at, i in enumerate(order):
        mu_i, squared_i = teams[at]
        rank_i = ranks[i]
        omega, delta = 0.0, 0.0
        for q, (mu_q, squared_q) in enumerate(teams):
            if q == at:
                continue
            c = _sqrt(squared_i + squared_q + _TWO_BETA_SQUARED)
            p = 1 / (1 + _exp((mu_q - mu_i) / c))
            over_c = squared_i / c
            rank_q = ranks[order[q]]
            score = 1.0 if rank_q > rank_i else (0.5 if rank_q == rank_i else 0.0)
            omega += over_c * (score - p)
            delta += ((_sqrt(squared_i) / c * over_c) / c) * p * (1 - p)
        tied = any(ranks[j] == rank_i for j in order if j != i)
        after[i] = _side_after(widened[i], squared_i, omega, delta, tied)
    return expected, after
