"""Cards, values and hand totals of Seven and a Half, in half points.

Every total is an integer count of half points (½ = 1, 7 = 14, 7½ = 15), so
no float ever enters a comparison or a score. People read them through
`projections.core.phrases` (`halves`, the `{half:N}` marker), the one place that
writes half points as `6½`.
"""

from __future__ import annotations

from collections.abc import Sequence

from events.cards import deck, rank

#: The 40-card deck: A-7 and J, Q, K in each suit (no 8, 9, 10).
CARDS: tuple[str, ...] = deck("A234567JQK")
CARD_SET = frozenset(CARDS)
FACES = "JQK"
#: 7½ in half points.
TOP = 15
#: What the wild card may count: ½ or 1 to 7, in half points.
WILD_VALUES = (1, 2, 4, 6, 8, 10, 12, 14)

# Hand statuses: open (still drawing), or finished one of four ways.
OPEN = "open"
STOOD = "stood"
BUST = "bust"
SEVEN_AND_A_HALF = "seven_and_a_half"
PAIR_OF_SEVENS = "pair_of_sevens"

# Kinds of a finished hand for settlement.
PLAIN = "plain"
TWO_CARD = "two_card"
PAIR = "pair"


def value(card: str) -> int:
    """A card's value in half points: A 2, 2-7 twice their number, J Q K 1."""
    r = rank(card)
    if r in FACES:
        return 1
    if r == "A":
        return 2
    return 2 * int(r)


#: every card's value, worked out once (`total` runs on every hit)
_VALUES: dict[str, int] = {c: value(c) for c in CARDS}


def is_face(card: str) -> bool:
    """J, Q or K; the wild card is always one of these, so it is a face card too."""
    return rank(card) in FACES


def total(cards: Sequence[str], wild: str | None) -> int:
    """The hand's total in half points, the wild card at its best value.

    The wild card counts as whatever of ½, 1..7 gives the highest total not
    above 7½; when even ½ busts, the total is the bust with the wild card at ½.
    """
    if wild is None:
        try:
            return sum(map(_VALUES.__getitem__, cards))  # the common case, at C speed
        except KeyError:
            return sum(value(c) for c in cards)
    values = _VALUES
    base = sum(values[c] if c in values else value(c) for c in cards if c != wild)
    if wild not in cards:
        return base
    fitting = [base + v for v in WILD_VALUES if base + v <= TOP]
    return max(fitting) if fitting else base + 1


def is_pair_of_sevens(cards: Sequence[str]) -> bool:
    """Exactly two cards, both 7s (the wild card is a face card, never a 7)."""
    return len(cards) == 2 and all(rank(c) == "7" for c in cards)


def is_two_card(cards: Sequence[str]) -> bool:
    """Exactly two cards: one 7 and one J, Q or K (the wild card included)."""
    return len(cards) == 2 and sorted(rank(c) == "7" for c in cards) == [False, True] and any(map(is_face, cards))


def status_of(cards: Sequence[str], wild: str | None, pair_rule: bool) -> str:
    """The hand's status after its latest card: a pair of sevens (with the option), bust, 7½, or open.

    Two 7s make 14, a bust, unless the `pair_of_sevens` option makes them the best hand.
    """
    if pair_rule and is_pair_of_sevens(cards):
        return PAIR_OF_SEVENS
    points = total(cards, wild)
    if points > TOP:
        return BUST
    if points == TOP:
        return SEVEN_AND_A_HALF
    return OPEN
