"""`tablebook-shuffle-v1` (rules/server-deal.md): the test vectors of docs/server-deal.md, the shuffle's
uniformity, the fairness report's statistics."""

from __future__ import annotations

import hashlib
import hmac
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

from projections.fairness import fairdeal
from projections.fairness import report as deal_report

ROOT = Path(__file__).resolve().parents[2]


def doc_vectors() -> list[dict[str, str]]:
    """The vectors of docs/server-deal.md, as written there."""
    text = (ROOT / "docs" / "server-deal.md").read_text()
    block = text.split("## Test vectors", 1)[1].split("```", 2)[1]
    vectors: list[dict[str, str]] = []
    for line in block.splitlines():
        if line.startswith("vector "):
            vectors.append({})
        elif line.strip():
            key, _, value = line.partition(" ")
            vectors[-1][key] = value
    return vectors


def test_the_documented_vectors_are_the_rules_vectors() -> None:
    vectors = doc_vectors()
    assert len(vectors) == 3
    rules = (
        (ROOT.parent / "shared" / "rules" / "server-deal.md").read_text() if (ROOT.parent / "shared").exists() else ""
    )
    for vector in vectors:
        deck = fairdeal.shuffle(
            bytes.fromhex(vector["server_seed"]),
            vector["genesis"],
            int(vector["hand"]),
            [s for s in vector.get("seeds", "").split("|") if s],
            fairdeal.canonical_deck(vector["game"]),
        )
        assert " ".join(deck) == vector["deck"]
        if rules:  # the contract's own listing, where the shared rules are at hand
            assert f"`{vector['deck']}`" in " ".join(rules.split())
    assert [line.endswith("ok") for line in fairdeal.check_vectors()] == [True, True, True]


def test_the_canonical_decks() -> None:
    assert fairdeal.canonical_deck("schnapsen")[:6] == ["AC", "TC", "JC", "QC", "KC", "AD"]
    assert fairdeal.canonical_deck("seven-and-a-half")[:11] == [
        "AC",
        "2C",
        "3C",
        "4C",
        "5C",
        "6C",
        "7C",
        "JC",
        "QC",
        "KC",
        "AD",
    ]
    assert len(fairdeal.canonical_deck("casino")) == 52 and fairdeal.canonical_deck("casino")[-1] == "KS"


def test_the_shuffle_is_the_sketch_step_by_step() -> None:
    """The message, the key and the first draw of vector 1 written out by hand."""
    seed = bytes(range(32))
    message = b"tablebook-shuffle-v1|" + b"ab" * 32 + b"|1|-:hello|2:table four"
    key = hmac.new(seed, message, hashlib.sha256).digest()
    block0 = hmac.new(key, (0).to_bytes(8, "big"), hashlib.sha256).digest()
    x = int.from_bytes(block0[:4], "big")
    assert x < (2**32 // 52) * 52  # not rejected: the first swap is deck[51] <-> deck[x % 52]
    deck = fairdeal.canonical_deck("casino")
    first = deck[x % 52]
    assert fairdeal.shuffle(seed, "ab" * 32, 1, ["-:hello", "2:table four"], deck)[51] == first


def test_the_standalone_checker_runs_without_tablebook(tmp_path: Path) -> None:
    """`python3 fairdeal.py --vectors` from a copy of the file alone, outside the project."""
    copy = tmp_path / "fairdeal.py"
    copy.write_text(Path(fairdeal.__file__).read_text())
    done = subprocess.run([sys.executable, "-I", str(copy), "--vectors"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["vector 1: ok", "vector 2: ok", "vector 3: ok"]


def test_each_card_lands_at_each_position_uniformly() -> None:
    """Position of each card over 2,000 shuffles of Schnapsen's 20 cards (fixed seeds): chi-square over the
    400 cells (100 expected each), and the same test catches a biased shuffle."""
    rng = random.Random(19)
    deck = fairdeal.canonical_deck("schnapsen")
    counts = {card: [0] * 20 for card in deck}
    first_cards = [0] * 20
    shuffles = 2000
    for hand in range(shuffles):
        shuffled = fairdeal.shuffle(rng.randbytes(32), "cd" * 32, hand, [], deck)
        assert sorted(shuffled) == sorted(deck)
        for position, card in enumerate(shuffled):
            counts[card][position] += 1
        first_cards[deck.index(shuffled[0])] += 1
    observed = [float(n) for row in counts.values() for n in row]
    stat, df, p = deal_report.chi_square(observed, [shuffles / 20] * 400, 19 * 19)
    assert df == 361
    assert p is not None and p > 0.001, (stat, p)

    # the naive shuffle (swap each card with any card) is biased: the same test finds it
    biased = {card: [0] * 20 for card in deck}
    for _ in range(shuffles):
        cards = list(deck)
        for i in range(20):
            j = rng.randrange(20)
            cards[i], cards[j] = cards[j], cards[i]
        for position, card in enumerate(cards):
            biased[card][position] += 1
    stat, _, p = deal_report.chi_square([float(n) for row in biased.values() for n in row], [shuffles / 20] * 400, 361)
    assert p is not None and p < 1e-6, (stat, p)


def test_rejection_sampling_has_no_modulo_bias() -> None:
    """draw(n) rejects the top of the 32-bit range that does not divide by n."""
    for n in (3, 20, 52):
        limit = (2**32 // n) * n
        assert limit % n == 0 and 2**32 - limit < n


@pytest.mark.parametrize(
    ("x", "df", "expected"),
    [(3.841458820694124, 1, 0.05), (18.307038053275146, 10, 0.05), (10.0, 10, 0.4404932850652134), (0.5, 3, 0.9188914)],
)
def test_the_chi_square_survival_function(x: float, df: int, expected: float) -> None:
    assert math.isclose(deal_report.chi2_sf(x, df), expected, rel_tol=1e-6)


def test_pattern_probabilities_are_exact() -> None:
    bridge = deal_report.pattern_probabilities(52, 13)
    assert math.isclose(sum(bridge.values()), 1.0)
    assert math.isclose(bridge["4-4-3-2"], 0.2155117, rel_tol=1e-6)  # the textbook bridge figure
    schnapsen = deal_report.pattern_probabilities(20, 5)
    assert math.isclose(sum(schnapsen.values()), 1.0)
    assert math.isclose(schnapsen["5-0-0-0"], 4 / math.comb(20, 5))
    assert deal_report.pattern_of(["AS", "KS", "2D", "3C"]) == "2-1-1-0"


def test_every_game_declares_its_dealing_order() -> None:
    """Each registered game is known to the standalone checker: its dealing events, its deck."""
    from projections.core.registry import available, rules_for

    for kind in available():
        assert kind in fairdeal.TAKES, kind
        rules = rules_for(kind)
        assert set(fairdeal.TAKES[kind]) <= set(rules.events), kind
        deck = fairdeal.canonical_deck(kind)
        assert (
            frozenset(deck)
            == rules.census(
                rules.initial_state(list(rules.demo_players), rules.options_for(list(rules.demo_players), {}))
            ).deck
        ), kind
        assert rules.options["dealing"].default == "table"
