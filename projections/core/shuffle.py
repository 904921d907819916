"""`tablebook-shuffle-v1` (`rules/server-deal.md`): the deck of a server-dealt hand, from its secret seed.

Pure, no store: the server seed is the store's (`events/store/seeds.py`), the dealing order the game's
(`GameRules.dealing_order`). The standalone checker a player runs, `projections/fairness/fairdeal.py`,
has the same few lines in its own file, since it may import nothing but the Python standard library;
`tests/projections/test_dealing_orders.py` holds the two to the test vectors of `server-deal.md` and to
each other on random inputs.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from events.cards import RANKS, SUITS
from events.common import SHUFFLE_ALGORITHM


def canonical(cards: Iterable[str]) -> list[str]:
    """`cards` in the unshuffled deck's order: suits C D H S, within a suit A 2 ... K."""
    return sorted(cards, key=lambda card: (SUITS.index(card[1]), RANKS.index(card[0])))


def _stream(key: bytes) -> Iterator[int]:
    counter = 0
    while True:
        yield from hmac.new(key, counter.to_bytes(8, "big"), hashlib.sha256).digest()
        counter += 1


def shuffle(server_seed: bytes, genesis: str, hand: int, seeds: Sequence[str], cards: Sequence[str]) -> list[str]:
    """`cards` (the unshuffled deck) shuffled for hand `hand`; `seeds` are the hand's `S:seed` strings in
    seq order, `genesis` the game's genesis hash in hex. The top card first."""
    message = (f"{SHUFFLE_ALGORITHM}|{genesis}|{hand}|" + "|".join(seeds)).encode("utf-8")
    key = hmac.new(server_seed, message, hashlib.sha256).digest()
    stream = _stream(key)

    def draw(n: int) -> int:
        limit = (2**32 // n) * n
        while True:
            x = int.from_bytes(bytes(next(stream) for _ in range(4)), "big")
            if x < limit:
                return x % n

    deck = list(cards)
    for i in range(len(deck) - 1, 0, -1):
        j = draw(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def commitment_of(server_seed: bytes) -> str:
    """The `commitment` of a server seed: its sha256, in hex."""
    return hashlib.sha256(server_seed).hexdigest()


def seed_string(data: Mapping[str, Any]) -> str:
    """A `seed` event's part of the shuffle's message: `S:seed`, S its seat or `-`."""
    seat = data.get("seat")
    return f"{'-' if seat is None else seat}:{data['seed']}"
