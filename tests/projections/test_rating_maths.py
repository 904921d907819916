"""The ratings' maths on plain floats (projections/readmodels/ratings/maths.py) against openskill itself: the
public `MODEL.rate` and `MODEL.predict_win`, float for float, on many random results of every shape."""

from __future__ import annotations

import random
import struct

import pytest

from projections.readmodels.ratings.maths import MODEL, Skill, rated, rated_pair

#: one against one (most results), a team on either side, three to six sides, teams among many sides
SHAPES = ([1, 1], [1, 2], [2, 1], [2, 2], [1, 1, 1], [1, 1, 1, 1], [1, 1, 2], [3, 1, 2], [1] * 6)


def _bits(values: object) -> object:
    """Every float as its IEEE bytes (so -0.0 and 0.0 differ, as they would in a stored row)."""
    if isinstance(values, float):
        return struct.pack("<d", values)
    if isinstance(values, list | tuple):
        return [_bits(v) for v in values]
    return values


def _skill(rng: random.Random) -> Skill:
    """A rating as results leave them: any mu, a sigma anywhere from the prior down to near the floor."""
    sigma = rng.choice([25 / 3, rng.uniform(0.5, 9.0), rng.uniform(0.0, 0.3), rng.uniform(1e-6, 1e-3)])
    return rng.uniform(-10.0, 60.0), sigma


def _library(sides: list[list[Skill]], ranks: list[int]) -> tuple[list[float], list[list[Skill]]]:
    """The plain way: fresh rating objects, `predict_win` for each side against each other (averaged, as the
    rows show it; with two sides the library's pair), then the public `rate`."""
    teams = [[MODEL.rating(mu=mu, sigma=sigma) for mu, sigma in side] for side in sides]
    count = len(teams)
    if count == 2:
        expected = list(MODEL.predict_win(teams))
    else:
        expected = [
            sum(MODEL.predict_win([teams[i], teams[j]])[0] for j in range(count) if j != i) / (count - 1)
            for i in range(count)
        ]
    after = MODEL.rate(teams, ranks=list(ranks))
    return expected, [[(r.mu, r.sigma) for r in side] for side in after]


@pytest.mark.parametrize("seed", range(4))
def test_rated_is_openskills_rate_and_predict_win_bit_for_bit(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(5000):
        sizes = rng.choice(SHAPES)
        sides = [[_skill(rng) for _ in range(size)] for size in sizes]
        if rng.random() < 0.1:  # newcomers: every side the prior (equal ordinals in a team, equal sums)
            sides = [[(MODEL.mu, MODEL.sigma) for _ in side] for side in sides]
        ranks = [rng.randrange(len(sizes)) for _ in sizes]  # ties, gaps and any order, as they come
        assert _bits(rated(sides, ranks)) == _bits(_library(sides, ranks)), (sides, ranks)


def test_rated_pair_is_openskills_rate_of_one_against_one_bit_for_bit() -> None:
    rng = random.Random(7)
    for _ in range(20000):
        (mu_a, sigma_a), (mu_b, sigma_b) = _skill(rng), _skill(rng)
        ranks = rng.choice([[0, 1], [1, 0], [0, 0], [2, 0], [1, 1]])
        (win, loss), ((after_a,), (after_b,)) = _library([[(mu_a, sigma_a)], [(mu_b, sigma_b)]], ranks)
        found = rated_pair(mu_a, sigma_a, mu_b, sigma_b, ranks[0], ranks[1])
        assert _bits(found) == _bits((win, loss, *after_a, *after_b)), (mu_a, sigma_a, mu_b, sigma_b, ranks)

