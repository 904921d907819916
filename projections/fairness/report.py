"""The fairness report of a club's server deals: what chance gives, against what the deals gave.

Over every revealed server-dealt hand of a game kind (`rules/server-deal.md`; a hand still being
played is left out: its deck is secret), two comparisons, each with Pearson's chi-square and its
p-value:

- hand patterns: the suit distribution of each seat's dealt hand (`4-3-2-1` is four cards of one
  suit, three of another...), against the exact multivariate hypergeometric probability of each
  pattern. Patterns expected fewer than 5 times are pooled into one bin (`other`), so the chi-square
  approximation holds; with too few hands there is no p-value.
- card positions: how often each card lay at each position of the recomputed deck, against the
  uniform 1/N of an exactly uniform shuffle ((N-1)**2 degrees of freedom; expected counts per cell
  below 5 make the p-value rough, and the report says so).

The chi-square survival function is written here (the regularized upper incomplete gamma function,
series and continued fraction, after Numerical Recipes' `gammq`): no statistics library is needed.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from projections.core.registry import rules_for
from projections.fairness import fairdeal

#: the least expected count of a bin of its own (the usual rule of thumb for Pearson's chi-square)
MIN_EXPECTED = 5.0
#: a hand smaller than this has no suit pattern worth the name (a game may deal one card each)
MIN_PATTERN_CARDS = 2


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with `df` degrees of freedom: Q(df/2, x/2)."""
    if df < 1:
        raise ValueError("a chi-square needs at least one degree of freedom")
    if x <= 0:
        return 1.0
    a, z = df / 2.0, x / 2.0
    gln = math.lgamma(a)
    if z < a + 1.0:  # the series of P(a, z); Q = 1 - P
        term = total = 1.0 / a
        ap = a
        for _ in range(10_000):
            ap += 1.0
            term *= z / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-z + a * math.log(z) - gln))
    # Lentz's continued fraction of Q(a, z)
    tiny = 1e-300
    b = z + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return min(1.0, math.exp(-z + a * math.log(z) - gln) * h)


def chi_square(
    observed: Sequence[float], expected: Sequence[float], df: int | None = None
) -> tuple[float, int, float | None]:
    """Pearson's statistic, its degrees of freedom (bins - 1 unless given) and p-value (None without one)."""
    stat = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True) if e > 0)
    if df is None:
        df = sum(1 for e in expected if e > 0) - 1
    return stat, df, (chi2_sf(stat, df) if df >= 1 else None)


def pattern_of(cards: Iterable[str]) -> str:
    """A hand's suit pattern: its suits' counts, largest first, `-` between (`3-1-1-0`)."""
    counts = Counter(card[1] for card in cards)
    return "-".join(str(n) for n in sorted((counts.get(s, 0) for s in fairdeal.SUITS), reverse=True))


def pattern_probabilities(deck_size: int, hand_size: int) -> dict[str, float]:
    """The exact probability of every suit pattern of a hand of `hand_size` from a deck of four equal suits."""
    per_suit = deck_size // 4
    total = math.comb(deck_size, hand_size)
    out: dict[str, float] = {}

    def split(left: int, most: int, parts: int) -> Iterable[tuple[int, ...]]:
        if parts == 0:
            if left == 0:
                yield ()
            return
        for k in range(min(left, most), -1, -1):
            for rest in split(left - k, k, parts - 1):
                yield (k, *rest)

    for counts in split(hand_size, min(hand_size, per_suit), 4):
        ways = math.factorial(4)
        for n in Counter(counts).values():
            ways //= math.factorial(n)
        hands = ways * math.prod(math.comb(per_suit, k) for k in counts)
        if hands:
            out["-".join(map(str, counts))] = hands / total
    return out


#: what the report counts per recorder: the hands it dealt (first deals), the hands it voided (each is
#: dealt again from a new deck), its retracts that put dealt cards back in the deck (the same cards are
#: dealt again), and the hands dealt again from another shuffle of one committed deck (a record made
#: before the server refused it: `fairdeal.DEALT_AGAIN`)
RECORDER_COUNTS = ("hands_dealt", "hands_voided", "retracts_of_dealt_cards", "hands_dealt_again")


@dataclass
class KindTally:
    """What one game kind's revealed hands gave."""

    kind: str
    hands: int = 0
    games: set[str] = field(default_factory=set)
    patterns: Counter[str] = field(default_factory=Counter)
    hand_size: int = 0
    seat_hands: int = 0
    positions: dict[str, list[int]] = field(default_factory=dict)
    unverified: int = 0
    #: per recorder (an event's `actor`): what it did that deals a hand again (`RECORDER_COUNTS`)
    recorders: dict[str, Counter[str]] = field(default_factory=dict)

    def count(self, actor: str, what: str) -> None:
        self.recorders.setdefault(actor, Counter())[what] += 1

    def add_deck(self, deck: Sequence[str]) -> None:
        if not self.positions:
            self.positions = {card: [0] * len(deck) for card in fairdeal.canonical_deck(self.kind)}
        for index, card in enumerate(deck):
            self.positions[card][index] += 1
        self.hands += 1

    def add_seat_hand(self, cards: Sequence[str]) -> None:
        if len(cards) < MIN_PATTERN_CARDS or (self.hand_size and len(cards) != self.hand_size):
            return
        self.hand_size = len(cards)
        self.patterns[pattern_of(cards)] += 1
        self.seat_hands += 1

    def report(self) -> dict[str, Any]:
        deck_size = len(fairdeal.canonical_deck(self.kind))
        out: dict[str, Any] = {
            "game": self.kind,
            "games": len(self.games),
            "hands": self.hands,
            "unverified_hands": self.unverified,
            "deck_size": deck_size,
            "patterns": self._patterns(deck_size),
            "positions": self._positions(deck_size),
            "recorders": [
                {"actor": actor, **{what: counts.get(what, 0) for what in RECORDER_COUNTS}}
                for actor, counts in sorted(self.recorders.items())
            ],
        }
        return out

    def _patterns(self, deck_size: int) -> dict[str, Any] | None:
        if not self.hand_size:
            return None
        exact = pattern_probabilities(deck_size, self.hand_size)
        n = self.seat_hands
        rows: list[dict[str, Any]] = [
            {
                "pattern": p,
                "observed": self.patterns.get(p, 0),
                "expected": prob * n,
                "probability": prob,
                "frequency": self.patterns.get(p, 0) / n if n else 0.0,
            }
            for p, prob in sorted(exact.items(), key=lambda item: -item[1])
        ]
        kept = [r for r in rows if r["expected"] >= MIN_EXPECTED]
        pooled = [r for r in rows if r["expected"] < MIN_EXPECTED]
        observed = [float(r["observed"]) for r in kept]
        expected = [float(r["expected"]) for r in kept]
        if pooled:
            observed.append(float(sum(r["observed"] for r in pooled)))
            expected.append(float(sum(r["expected"] for r in pooled)))
        stat, df, p = chi_square(observed, expected) if len(observed) > 1 else (0.0, 0, None)
        return {
            "hand_size": self.hand_size,
            "seat_hands": n,
            "rows": rows,
            "pooled": [r["pattern"] for r in pooled],
            "chi_square": stat,
            "df": df,
            "p_value": p,
        }

    def _positions(self, deck_size: int) -> dict[str, Any] | None:
        if not self.hands:
            return None
        expected = self.hands / deck_size
        observed = [float(n) for counts in self.positions.values() for n in counts]
        # every card is somewhere and every position holds a card: rows and columns both sum to the hands
        stat, df, p = chi_square(observed, [expected] * len(observed), (deck_size - 1) ** 2)
        return {
            "expected_per_cell": expected,
            "probability": 1 / deck_size,
            "observed": self.positions,
            "chi_square": stat,
            "df": df,
            "p_value": p,
            "rough": expected < MIN_EXPECTED,
        }


def seat_hands(kind: str, data: Mapping[str, Any]) -> list[list[str]]:
    """Each seat's dealt cards in a deal event (only the seats dealt to: a seat sitting out has none), as
    the game declares them: the deal's fields whose cards only their own seat sees (`Secret(...,
    "each_seat")` in the game's `visibility`), a list by seat or an object keyed by seat, of cards or of a
    single card each."""
    out: list[list[str]] = []
    for secret in rules_for(kind).visibility.secrets.get("deal", ()):
        if secret.to != "each_seat" or not secret.when(data):
            continue
        value = data.get(secret.field) or ()
        for cards in value.values() if isinstance(value, Mapping) else value:
            out.append([cards] if isinstance(cards, str) else list(cards))
    return out


def tally_game(
    tallies: dict[str, KindTally],
    game_id: str,
    kind: str,
    seats: int,
    options: Mapping[str, Any],
    envelopes: Sequence[Mapping[str, Any]],
) -> None:
    """Add one server-dealt game's revealed hands to the tallies (the first deal of each hand for patterns)."""
    checked = fairdeal.verify_events({"game": kind, "seats": seats, "options": dict(options)}, envelopes)
    tally = tallies.setdefault(kind, KindTally(kind))
    tally.games.add(game_id)
    retracted = _retracted(envelopes)
    first_deal: dict[int, Mapping[str, Any]] = {}
    for env in envelopes:
        if env.get("type") == "deal" and env["seq"] not in retracted and env["hand"] not in first_deal:
            first_deal[env["hand"]] = env["data"]
    _count_recorders(tally, checked, envelopes, retracted)
    for hand, doc in checked.hands.items():
        if not doc["revealed"] or not doc["server_seed"]:
            continue
        if doc["verified"] is False:
            tally.unverified += 1
            continue
        seed = bytes.fromhex(doc["server_seed"])
        tally.add_deck(fairdeal.shuffle(seed, checked.genesis, hand, doc["seeds"], fairdeal.canonical_deck(kind)))
        if hand in first_deal:
            for cards in seat_hands(kind, first_deal[hand]):
                tally.add_seat_hand(cards)


def _count_recorders(
    tally: KindTally, checked: fairdeal.Report, envelopes: Sequence[Mapping[str, Any]], retracted: set[int]
) -> None:
    """Who dealt, voided, took dealt cards back and dealt a hand again, by the `actor` of each event."""
    actors = {env["seq"]: str(env.get("actor", "")) for env in envelopes}
    dealt: set[int] = set()
    for env in envelopes:
        if env.get("type") == "deal" and env["seq"] not in retracted and env["hand"] not in dealt:
            dealt.add(env["hand"])
            tally.count(actors[env["seq"]], "hands_dealt")
        elif env.get("type") == "hand_voided" and env["seq"] not in retracted:
            tally.count(actors[env["seq"]], "hands_voided")
    for doc in checked.hands.values():
        for seq in doc["retracts"]:
            tally.count(actors.get(seq, ""), "retracts_of_dealt_cards")
    for problem in checked.problems:
        if problem.get("problem") in fairdeal.DEALT_AGAIN:
            tally.count(actors.get(problem["seq"], ""), "hands_dealt_again")


def _retracted(envelopes: Iterable[Mapping[str, Any]]) -> set[int]:
    out: set[int] = set()
    for env in envelopes:
        if env.get("type") == "retract":
            out.update(range(env["data"]["to_seq"] + 1, env["seq"]))
    return out


def report(tallies: Mapping[str, KindTally]) -> dict[str, Any]:
    """`{kinds: [...]}`: each kind's comparison, in kind order."""
    return {"kinds": [tallies[k].report() for k in sorted(tallies)]}
