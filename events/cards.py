"""Card codes: two characters, rank then suit (`rules/README.md`).

Ranks `A 2 3 4 5 6 7 8 9 T J Q K`, suits `C D H S`. Input is case-insensitive
and accepts `10` for `T`; output is always the canonical two-character code.
"""

from __future__ import annotations

from collections.abc import Iterable

from events.errors import InvalidEventError

RANKS = "A23456789TJQK"
SUITS = "CDHS"
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}

FULL_DECK: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
_CANONICAL = frozenset(FULL_DECK)


def parse_card(code: object, where: str = "card") -> str:
    """Return the canonical code of `code`, or raise `InvalidEventError`.

    >>> parse_card("td"), parse_card("10h"), parse_card("AS")
    ('TD', 'TH', 'AS')

    Raises:
        InvalidEventError: not a string, or not a rank followed by a suit.
    """
    if isinstance(code, str):
        if code in _CANONICAL:
            return code
        text = code.strip().upper()
        if text.startswith("10"):
            text = "T" + text[2:]
        if text in _CANONICAL:
            return text
    raise InvalidEventError(
        f"{where}: {code!r} is not a card code (rank A23456789TJQK, then suit CDHS, e.g. 'TD')",
        field=where,
    )


def rank(card: str) -> str:
    """The rank character of a canonical card."""
    return card[0]


def suit(card: str) -> str:
    """The suit character of a canonical card."""
    return card[1]


def deck(ranks: str, suits: str = SUITS) -> tuple[str, ...]:
    """The cards of the given ranks in the given suits, in a fixed order."""
    return tuple(r + s for s in suits for r in ranks)


def pretty(card: str) -> str:
    """A card for people: `10♦`, `Q♠`."""
    r = "10" if card[0] == "T" else card[0]
    return r + SUIT_SYMBOLS[card[1]]


def sorted_cards(cards: Iterable[str], ranks: str = RANKS) -> list[str]:
    """Cards sorted by suit, then by rank in `ranks` order (for stable output)."""
    return sorted(cards, key=lambda c: (SUITS.index(c[1]), ranks.index(c[0])))
