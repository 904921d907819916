"""Cutthroat Smear's hand review (`RULES.review`): what every card played was worth, with hindsight.

The unit is the Smear point of the hand, from the deciding seat's side: the points it takes (High, Low,
Jack, Game), or minus its bid when it is the bidder and falls short (the hand's line on its total).
With hindsight every card of the deal is known (six each, all played): a search over the rest of the
hand, the deciding seat playing its best and every other seat playing to keep its points down (with
two players, plain minimax; with three, the "paranoid" reading of a game of everyone for themselves:
the figure is what the seat can make sure of, whatever the others do). Every card dealt is played, so
High and Low are set once trump is; the play decides Jack and Game. Alpha-beta with a transposition
table keeps bounds; the first lead (which names trump) is a decision like any other.

From what the seat could see (the others' hands dealt every way the unseen cards allow, averaged) the
layouts are too many for an exact figure, and a sampled one is given only for the last `SEEN_TRICKS`
tricks, over `SAMPLED_LAYOUTS` layouts drawn at random with a 95% confidence margin. Bids are not valued.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from itertools import islice
from typing import Any

from events.cards import FULL_DECK
from projections.core.phrases import card as card_marker
from projections.core.phrases import seat as seat_marker
from projections.core.review import HINDSIGHT, SEEN, Choice, Decision, Figure, HandRecord, Reviewer, Thresholds, Unit
from projections.games.cutthroat_smear._scoring import GAME_VALUE, STRENGTH
from projections.games.cutthroat_smear._state import SmearState, to_act

SUITS = "CDHS"
#: card index: suit * 13 + strength (2 low ... A high)
CARDS = tuple(r + s for s in SUITS for r in "23456789TJQKA")
INDEX = {c: i for i, c in enumerate(CARDS)}
VALUE = tuple(GAME_VALUE.get(c[0], 0) for c in CARDS)
SUIT_MASK = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
#: a sampled figure from what the seat saw, in the last this many tricks
SEEN_TRICKS = 3
SAMPLED_LAYOUTS = 24

UNITS = {"": Unit("point", "points", 2)}
THRESHOLDS = {"": Thresholds(1, 2, 3)}
ABOUT = {
    "unit": "the hand's Smear points from the deciding seat's side (minus the bid for a bidder who falls short)",
    "hindsight": (
        "every card of the deal known: the seat plays its best and every other seat plays to keep its points "
        "down (minimax with two players; the paranoid reading with three), an exact search with alpha-beta"
    ),
    "seen": (
        f"in the last {SEEN_TRICKS} tricks: the other hands dealt from the unseen cards, {SAMPLED_LAYOUTS} "
        "layouts drawn at random, each searched as with hindsight, with a 95% confidence margin"
    ),
}

#: hands (a mask per seat), leader, the trick so far (card indices in play order), game value won per seat,
#: the seat that won the jack of trump (-1: not yet)
Node = tuple[tuple[int, ...], int, tuple[int, ...], tuple[int, ...], int]


def _cards(m: int) -> list[int]:
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


class Search:
    """The rest of one hand with every card known, valued for `seat` (the others against it)."""

    def __init__(self, state: SmearState, seat: int, dealt: Sequence[int]) -> None:
        self.seats = state.seats
        self.seat = seat
        self.bidder = state.bidder if state.bidder is not None else -1
        self.bid = state.high_bid[1] if state.high_bid else 0
        self.ace_only = state.options.get("high_point") == "ace_only"
        #: every card dealt to a seat this hand, by seat (all of them are played)
        self.dealt = tuple(dealt)
        self.table: dict[tuple[Node, int], tuple[float, float]] = {}
        self._fixed: dict[int, tuple[int, int]] = {}
        self.searched = 0

    def fixed(self, trump: int) -> tuple[int, int]:
        """(High's seat or -1, Low's seat): every dealt card is played, so trump alone decides them."""
        found = self._fixed.get(trump)
        if found is None:
            high = low = -1
            high_s = low_s = 0
            for s, m in enumerate(self.dealt):
                for c in _cards(m & SUIT_MASK[trump]):
                    strength = c % 13
                    if high < 0 or strength > high_s:
                        high, high_s = s, strength
                    if low < 0 or strength < low_s:
                        low, low_s = s, strength
            if self.ace_only and high_s != 12:
                high = -1
            found = self._fixed[trump] = (high, low)
        return found

    def result(self, trump: int, game: tuple[int, ...], jack: int) -> int:
        """The seat's points for the hand, its bid settled."""
        high, low = self.fixed(trump)
        seat = self.seat
        won = (high == seat) + (low == seat) + (jack == seat)
        best = max(game)
        if game[seat] == best and game.count(best) == 1:
            won += 1
        if seat == self.bidder:
            return won if won >= self.bid else -self.bid
        return won

    def moves(self, node: Node, trump: int | None) -> list[int]:
        hands, leader, trick = node[0], node[1], node[2]
        to_play = (leader + len(trick)) % self.seats
        hand = hands[to_play]
        if not trick:
            cards = _cards(hand)
        else:
            led = trick[0] // 13
            same = hand & SUIT_MASK[led]
            if same and trump is not None:
                cards = _cards(hand & (SUIT_MASK[led] | SUIT_MASK[trump]))
            else:
                cards = _cards(hand)
        cards.sort(key=lambda c: -(c % 13) - VALUE[c])
        return cards

    def child(self, node: Node, trump: int | None, card: int) -> tuple[Node, int, int | None]:
        """(the position after `card`, its trump, the hand's value when this ends it, else None)."""
        hands, leader, trick, game, jack = node
        seats = self.seats
        to_play = (leader + len(trick)) % seats
        hands = (*hands[:to_play], hands[to_play] & ~(1 << card), *hands[to_play + 1 :])
        if trump is None:
            trump = card // 13
        trick = (*trick, card)
        if len(trick) < seats:
            return (hands, leader, trick, game, jack), trump, None
        led = trick[0] // 13
        best_i, best_rank = 0, -1
        for i, c in enumerate(trick):
            s = c // 13
            rank = c % 13 + (100 if s == trump else (0 if s == led else -100))
            if rank > best_rank:
                best_i, best_rank = i, rank
        winner = (leader + best_i) % seats
        value = sum(VALUE[c] for c in trick)
        if value:
            game = (*game[:winner], game[winner] + value, *game[winner + 1 :])
        if trump * 13 + 9 in trick:
            jack = winner
        after = (hands, winner, (), game, jack)
        if not any(hands):
            return after, trump, self.result(trump, game, jack)
        return after, trump, None

    def value(self, node: Node, trump: int | None, alpha: float, beta: float) -> float:
        """The seat's points at `node` with best play for it, the others against it (exact inside the window)."""
        key = (node, -1 if trump is None else trump)
        found = self.table.get(key)
        if found is not None:
            low, high = found
            if low >= beta:
                return low
            if high <= alpha:
                return high
            if low == high:
                return low
            alpha, beta = max(alpha, low), min(beta, high)
        else:
            low, high = -4.0, 4.0
        self.searched += 1
        first, last = alpha, beta
        to_play = (node[1] + len(node[2])) % self.seats
        maximising = to_play == self.seat
        best = -5.0 if maximising else 5.0
        for card in self.moves(node, trump):
            after, t, ended = self.child(node, trump, card)
            v = float(ended) if ended is not None else self.value(after, t, alpha, beta)
            if maximising:
                if v > best:
                    best = v
                    alpha = max(alpha, v)
            elif v < best:
                best = v
                beta = min(beta, v)
            if alpha >= beta:
                break
        if best <= first:
            self.table[key] = (low, best)
        elif best >= last:
            self.table[key] = (best, high)
        else:
            self.table[key] = (best, best)
        return best

    def exact(self, node: Node, trump: int | None, card: int) -> float:
        after, t, ended = self.child(node, trump, card)
        return float(ended) if ended is not None else self.value(after, t, -5.0, 5.0)


def node_of(state: SmearState, hands: Sequence[frozenset[str]] | None = None) -> tuple[Node, int | None]:
    """The search's position at a play of `state` (with `hands` instead of the state's) and its trump."""
    held = hands if hands is not None else state.hands
    masks = tuple(sum(1 << INDEX[c] for c in h) for h in held)
    seats = state.seats
    game = [0] * seats
    jack = -1
    trump = None if state.trump is None else SUITS.index(state.trump)
    for t in state.tricks:
        game[t.winner] += sum(VALUE[INDEX[c]] for c in t.cards)
        if state.trump is not None and "J" + state.trump in t.cards:
            jack = t.winner
    trick = tuple(INDEX[c] for _, c, _ in state.trick)
    return (masks, state.leader, trick, tuple(game), jack), trump


def _dealt(state: SmearState) -> tuple[int, ...]:
    return tuple(sum(1 << INDEX[c] for c in h) for h in state.dealt)


def review(hand: HandRecord[SmearState], seat: int | None) -> list[Decision]:
    out: list[Decision] = []
    searches: dict[int, Search] = {}
    for turn in hand.turns:
        state, event = turn.before, turn.event
        if state.phase != "play" or event["type"] != "play":
            if state.phase == "bid" and event["type"] in ("bid", "pass") and (seat is None or event["seat"] == seat):
                out.append(Decision(turn.seq, event["seat"], (), "bids are not valued"))
            continue
        acting = to_act(state)[0]
        if seat is not None and acting != seat:
            continue
        search = searches.get(acting)
        if search is None:
            search = searches[acting] = Search(state, acting, _dealt(state))
        figures = [_hindsight(state, event, acting, search)]
        note = ""
        if 6 - len(state.tricks) <= SEEN_TRICKS:
            figures.append(_seen(state, event, acting, turn.seq))
        else:
            note = (
                f"from what the seat could see only in the last {SEEN_TRICKS} tricks (the layouts are too many before)"
            )
        out.append(Decision(turn.seq, acting, tuple(figures), note))
    return out


SUIT_NAMES = dict(zip(SUITS, ("clubs", "diamonds", "hearts", "spades"), strict=True))


def _words(state: SmearState, card: str) -> str:
    if not state.trick and not state.tricks:
        return f"leading {card_marker(card)} and making {SUIT_NAMES[card[1]]} trump"
    return f"leading {card_marker(card)}" if not state.trick else f"playing {card_marker(card)}"


def _points_text(value: float, seat: int) -> str:
    if value == int(value):
        n = int(value)
        return f"{seat_marker(seat)} {'makes' if n >= 0 else 'loses'} {abs(n)} point{'s' if abs(n) != 1 else ''}"
    return f"{seat_marker(seat)} averages {value:+.2f} points"


def _figure_from(state: SmearState, event: Any, seat: int, values: dict[str, float], view: str, **kw: Any) -> Figure:
    ranked = sorted(values, key=lambda c: -values[c])
    choices = tuple(
        Choice({"type": "play", "seat": seat, "card": c}, _words(state, c), values[c], _points_text(values[c], seat))
        for c in ranked
    )
    if event["card"] in values:
        return Figure(view=view, choices=choices, played=ranked.index(event["card"]), **kw)
    # a play against the rules (stored under record enforcement): listed, not valued
    off = Choice(dict(event), _words(state, event["card"]), float("-inf"), "against the rules")
    return Figure(view=view, choices=(*choices, off), played=len(choices), **kw)


def _hindsight(state: SmearState, event: Any, seat: int, search: Search) -> Figure:
    node, trump = node_of(state)
    before = search.searched
    values = {CARDS[c]: search.exact(node, trump, c) for c in search.moves(node, trump)}
    return _figure_from(state, event, seat, values, HINDSIGHT, searched=search.searched - before)


def _seen(state: SmearState, event: Any, seat: int, seq: int) -> Figure:
    """The others' hands dealt from the cards `seat` had not seen, sampled, each searched with hindsight."""
    mine = state.hands[seat]
    played = {c for t in state.tricks for c in t.cards} | {c for _, c, _ in state.trick}
    pool = [c for c in FULL_DECK if c not in mine and c not in played]
    others = [s for s in range(state.seats) if s != seat]
    sizes = [len(state.hands[s]) for s in others]
    count = math.factorial(len(pool)) // math.prod(math.factorial(n) for n in [*sizes, len(pool) - sum(sizes)])
    rng = random.Random(f"smear seen {seq} {seat}")
    rows: list[dict[str, float]] = []
    searched = 0

    def layout() -> list[frozenset[str]]:
        cards = rng.sample(pool, sum(sizes))
        hands: list[frozenset[str]] = [frozenset()] * state.seats
        hands[seat] = mine
        at = 0
        for s, n in zip(others, sizes, strict=True):
            hands[s] = frozenset(cards[at : at + n])
            at += n
        return hands

    for hands in islice(iter(layout, None), SAMPLED_LAYOUTS):
        dealt = list(_dealt(state))
        for s in others:  # what the layout gives a seat, with what it has played
            dealt[s] = (
                sum(1 << INDEX[c] for c in hands[s])
                | sum(1 << INDEX[c] for t in state.tricks for p, c, _ in t.plays if p == s)
                | sum(1 << INDEX[c] for p, c, _ in state.trick if p == s)
            )
        search = Search(state, seat, dealt)
        node, trump = node_of(state, hands)
        rows.append({CARDS[c]: search.exact(node, trump, c) for c in search.moves(node, trump)})
        searched += search.searched
    values = {c: sum(r[c] for r in rows) / len(rows) for c in rows[0]}
    best = max(values, key=lambda c: values[c])
    diffs = [r[best] - r[event["card"]] for r in rows] if event["card"] in values else [0.0]
    margin = 1.96 * _stdev(diffs) / math.sqrt(len(diffs))
    note = f"{len(rows)} of the {count:,} layouts of the other hands the unseen cards allow, drawn at random"
    exact = count <= len(rows) and count == 1
    return _figure_from(
        state,
        event,
        seat,
        values,
        SEEN,
        exact=exact,
        layouts=len(rows),
        of_layouts=count,
        margin=None if exact else margin,
        searched=searched,
        note=note,
    )


def _stdev(values: Sequence[float]) -> float:
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


REVIEWER: Reviewer[SmearState] = Reviewer(review=review, units=UNITS, thresholds=THRESHOLDS, about=ABOUT)

__all__ = ["REVIEWER", "STRENGTH", "Search", "node_of", "review"]
