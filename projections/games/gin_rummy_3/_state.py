"""The state of a three-handed Gin Rummy game, its options and small shared helpers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from events.cards import FULL_DECK
from projections.core.dealing import DEALING
from projections.core.fastreplace import fast_init
from projections.core.handlog import EMPTY_LOG, HandLog
from projections.core.rules import ENFORCEMENT, BaseState, OptionSpec, opt_bool, opt_choice, opt_int

CARD_SET = frozenset(FULL_DECK)
HAND_SIZE = 10
#: 52 - 2 x 10 - the upcard
STOCK_AFTER_DEAL = 31
#: the hand is drawn when a discard leaves this many cards in the stock
DRAWN_AT = 2
KNOCK_LIMIT = 10
GAME_TARGET = 100
ROLES = ("box", "captain", "sitter")


def check_first_roles(value: Any, seats: int) -> dict[str, int] | None:
    """`{box, captain, sitter}`: three different seats, or None (a cut decides)."""
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != set(ROLES):
        raise ValueError("must be an object {box, captain, sitter} of seats")
    out: dict[str, int] = {}
    for role in ROLES:
        seat = value[role]
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < seats:
            raise ValueError(f"{role} must be a seat number from 0 to {seats - 1}")
        out[role] = seat
    if len(set(out.values())) != 3:
        raise ValueError("must give the three roles to three different seats")
    return out


OPTIONS: dict[str, OptionSpec] = {
    "first_roles": OptionSpec(
        None,
        check_first_roles,
        "{box, captain, sitter} for the first hand; replaces the cut (default: a cut)",
        seating=True,
    ),
    "gin_bonus": OptionSpec(
        25, opt_choice(25, 20), "the gin bonus: 25 (default) or 20", scoring_only=True, rule="gin.gin_bonus"
    ),
    "undercut_bonus": OptionSpec(
        10, opt_int(0, 100), "the undercut bonus, 0 to 100 (default 10)", scoring_only=True, rule="gin.undercut_bonus"
    ),
    "enforcement": ENFORCEMENT,
    # house rules (rules "House rules"; a record made before them reads as their defaults)
    "gin_scoring": OptionSpec(
        "bonus_plus_deadwood",
        opt_choice("bonus_plus_deadwood", "flat"),
        'house rule: "bonus_plus_deadwood" (default): gin scores the gin bonus + the defender\'s deadwood; '
        '"flat": the gin bonus alone',
        scoring_only=True,
        rule="gin.gin_deadwood",
    ),
    "discard_taken_card": OptionSpec(
        True,
        opt_bool,
        "house rule: true (default): the card just taken from the pile may be discarded at once; false: it may "
        "not (gin.discard_taken_card, illegal)",
        rule="gin.discard_taken_card",
    ),
    "dealing": DEALING,
}


@fast_init
@dataclass(frozen=True, slots=True)
class Knock:
    """A knock as declared: the record, never re-arranged by the server."""

    seat: int
    discard: str
    #: the declared melds in the event's order (lay-offs name them by index),
    #: each meld's cards in display order
    melds: tuple[tuple[str, ...], ...]
    deadwood: tuple[str, ...]
    count: int
    seq: int

    @property
    def gin(self) -> bool:
        return self.count == 0


@fast_init
@dataclass(frozen=True, slots=True)
class Layout:
    """The defender's lay-out: its own melds, its lay-offs, and what stays deadwood."""

    seat: int
    melds: tuple[tuple[str, ...], ...]
    layoffs: tuple[tuple[str, int], ...]
    #: the knocker's melds as extended by the lay-offs
    extended: tuple[tuple[str, ...], ...]
    deadwood: tuple[str, ...]
    count: int
    seq: int


@dataclass(frozen=True, kw_only=True)
class GinState(BaseState):
    """A three-handed Gin Rummy game between hands or within one.

    `box`, `captain` and `sitter` are the roles of the hand in progress, or
    of the last hand once it has ended, until the next deal (None before the
    cut; the first hand's once the cut or `first_roles` gave them): a replay
    frame after a knock's lay-off shows the roles the hand was played with.
    `next_roles` holds the roles the next deal gives when they differ (after
    a knock); `dealing_roles` is what the next deal is checked against.
    """

    phase: str = "cut"
    box: int | None = None
    captain: int | None = None
    sitter: int | None = None
    #: (box, captain, sitter) of the next deal once a knock's hand has moved the roles on; None while
    #: the next deal keeps `box`, `captain`, `sitter` (a drawn or voided hand, a hand in progress)
    next_roles: tuple[int, int, int] | None = None
    #: the cut cards by seat: shown until the first deal, then back in the deck
    cut: tuple[str, ...] = ()
    hands: tuple[frozenset[str], ...] = (frozenset(), frozenset(), frozenset())
    #: the discard pile, bottom to top
    pile: tuple[str, ...] = ()
    upcard: str | None = None
    stock: int = 0
    seen: frozenset[str] = frozenset()
    #: the seat to act in `offer`, `draw`, `discard` (and the defender in `lay_off`)
    turn: int | None = None
    #: passes in the upcard offer (2: the captain must draw from the stock)
    passes: int = 0
    #: the card the player to discard has just taken from the discard pile (None after a stock draw):
    #: with `discard_taken_card` false it may not be discarded at once
    taken: str | None = None
    knock: Knock | None = None
    layout: Layout | None = None
    #: seats whose cards lie face up (the knocker, then both after the lay-off)
    revealed: frozenset[int] = frozenset()
    deal_seq: int = 0
    results: HandLog = EMPTY_LOG
    totals: tuple[int, ...] = (0, 0, 0)
    #: the points of the hand in progress (zeros) or of the hand just ended
    hand_points: tuple[int, ...] = (0, 0, 0)

    def role(self, seat: int) -> str | None:
        """The role of `seat` in the hand in progress (or in the last hand, until the next deal)."""
        for name in ROLES:
            if getattr(self, name) == seat:
                return name
        return None

    @property
    def dealing_roles(self) -> tuple[int, int, int] | None:
        """(box, captain, sitter) of the next deal: `next_roles`, or the present roles (None before the cut)."""
        if self.next_roles is not None:
            return self.next_roles
        if self.box is None or self.captain is None or self.sitter is None:
            return None
        return (self.box, self.captain, self.sitter)

    def opponent(self, seat: int) -> int:
        """The other active player of the hand."""
        assert self.box is not None and self.captain is not None
        return self.captain if seat == self.box else self.box

    @property
    def stock_only(self) -> bool:
        """Both players passed the upcard: the captain's first draw is from the stock."""
        return self.phase == "draw" and self.passes == 2


def to_act(state: GinState) -> tuple[int, ...]:
    """The seats whose event is due."""
    if state.phase == "cut":
        return (0, 1, 2)
    if state.phase == "deal":
        roles = state.dealing_roles
        assert roles is not None
        return (roles[0],)
    if state.phase in ("offer", "draw", "discard", "lay_off"):
        assert state.turn is not None
        return (state.turn,)
    return ()


def roles_of(options: Mapping[str, Any]) -> dict[str, int] | None:
    roles = options.get("first_roles")
    return dict(roles) if roles else None
