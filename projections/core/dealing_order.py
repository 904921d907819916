"""A game's dealing order, as the game declares it (`GameRules.dealing_order`), for server deals.

`rules/server-deal.md` says, per game, which events take cards from the deck and in which order their
cards leave it. Each game states that once, in a `DealingOrder` of data and pure functions (in its own
package, `projections/games/<game>/dealing.py`); `projections/core/dealing.py` deals from it and names no
game. The standalone checker `projections/fairness/fairdeal.py` keeps its own table of the same orders
(a player runs it with nothing but the Python standard library), and
`tests/projections/test_dealing_orders.py` checks that table against these declarations on random games.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

Event = Mapping[str, Any]

#: `draw(n)`: the deck's next `n` cards, which leave it (a dealing event is filled by calling it in the order
#: its cards leave the deck)
Draw = Callable[[int], list[str]]


def _every(event: Event) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class DealingOrder:
    """Which events take cards from a server-dealt game's deck, how many, and how the server fills them.

    `state` below is the game's state just before the event (the engine's `Position.game`).
    """

    #: the game's unshuffled deck, in the shuffle's canonical order (suits C D H S, within a suit A 2 ... K)
    deck: tuple[str, ...]
    #: per event type that takes cards from the deck, its card fields, in the order their cards leave it
    takes: Mapping[str, tuple[str, ...]]
    #: `fill(state, event, draw)`: the card fields of a dealing event sent without them, drawn with `draw`
    #: in the order the cards leave the deck (`ImpossibleEventError` when none is due, with no card named)
    fill: Callable[[Any, Event, Draw], dict[str, Any]]
    #: per event type of `takes` whose events take cards only sometimes, which do (Gin's draw: from the stock
    #: only, a draw from the discard pile names a card everyone sees)
    when: Mapping[str, Callable[[Event], bool]] = field(default_factory=lambda: MappingProxyType({}))
    #: `taken(state, event)`: how many cards the complete `event` takes from the deck, where that is not every
    #: card its fields name (Schnapsen's draw that empties the talon takes the face-up trump card: 0); None
    #: from it: every card
    taken: Callable[[Any, Event], int | None] | None = None
    #: `due_hand(state)`: the hand whose deck the next dealing event takes from, where that is not the hand in
    #: progress (or, between hands, the next one): Gin's cut, hand 0; None from it: the usual one
    due_hand: Callable[[Any], int | None] | None = None
    #: `recut(state, event, top)`: whether the cards the deck would give `event` now must be cut again, as the
    #: table cuts again after a tie (Gin's cut ranks the seats: three ranks); `top(n)` reads the deck's next
    #: `n` cards, without dealing them, only when asked (it computes the shuffle)
    recut: Callable[[Any, Event, Draw], bool] | None = None

    def fields(self, event: Event) -> tuple[str, ...]:
        """The card fields of `event` if it takes cards from the deck (else `()`)."""
        kind = event.get("type")
        if not isinstance(kind, str):
            return ()
        fields = self.takes.get(kind)
        if not fields or not self.when.get(kind, _every)(event):
            return ()
        return fields


def cards_in(value: Any) -> Iterator[str]:
    """Every card code in a card field's value: a card, a list of them, or per-seat lists or objects of them."""
    if value is None:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from cards_in(item)
    else:
        for item in value:
            yield from cards_in(item)


def named_count(event: Event, fields: tuple[str, ...]) -> int:
    """How many cards the fields of `event` name."""
    return sum(1 for name in fields for _ in cards_in(event.get(name)))
