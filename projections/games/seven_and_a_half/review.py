"""Seven and a Half's hand review (`RULES.review`): the expected chips of every hit and stand.

The unit is the chip, expected, from the deciding seat's side, and a decision is weighed against what
is at stake (its figure's `scale`: the hand's stake for a player, every stake still in play for the
banker). Only the figure from what the seat could see is given: the deck's order past the cards the
hand dealt is not in the record, so there is nothing to look back at with hindsight. It is exact: the
cards the seat had not seen are known in composition (the 40-card deck less every card it saw), and
every draw is averaged over them, card by card, to the end of the hand.

- The banker's hit or stand: each player hand still in play is settled against the banker's final
  hand by the rules (`_settle._verdict`), its face-down card averaged over the cards the banker had not
  seen; the banker's later choices are its best ones (an expectimax over its draws).
- A player's hit or stand: the player's later choices are its best ones too, and the banker plays its
  best against this hand alone, from what it sees (the hand's face-up cards; the banker's own draws and
  its face-down card are averaged over the cards the player had not seen, and the banker's choices
  over the cards the banker had not seen). The other players' hands are left out: their cards are as
  unknown to the player as the deck's, and the banker is not taken to answer them.

Splits, flips, stakes and face-down requests are not valued (a hit is valued as a face-up one).

The search below is the reference; where `_fastreview.c` was built (`COMPILED`), the review runs the same
search compiled (`Table.compiled`), a hundred times faster, to the same figures bit for bit and the same
`searched` counts. Its float sums are written as plain loops, not `sum()` (which compensates its rounding
from Python 3.12 on), so that the two add the same numbers in the same order on every Python.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from events.cards import rank
from projections.core.phrases import half as half_marker
from projections.core.phrases import seat as seat_marker
from projections.core.review import SEEN, Choice, Decision, Figure, HandRecord, Reviewer, Thresholds, Unit
from projections.games.seven_and_a_half._cards import (
    BUST,
    CARDS,
    OPEN,
    PAIR,
    PLAIN,
    TWO_CARD,
    is_pair_of_sevens,
    is_two_card,
    status_of,
    total,
)
from projections.games.seven_and_a_half._settle import _verdict
from projections.games.seven_and_a_half._state import BANKER, PLAY, SevenAndAHalfState

if TYPE_CHECKING:
    from projections.games.seven_and_a_half._fastreview import Hands

_Hands: Any
try:  # the same search compiled (`_fastreview.c`, built by `pip install`): a hundred times faster
    from projections.games.seven_and_a_half._fastreview import Hands as _Hands
except ImportError:  # pragma: no cover - no compiler where the package was installed: the search below
    _Hands = None

#: whether the compiled search was built (the review's figures are the same either way, only slower without)
COMPILED = _Hands is not None
#: the most chips at stake the compiled search takes (its row sums stay exact integers below it; `_fastreview.c`)
COMPILED_STAKES = 1 << 30

#: the card classes a total depends on: A, 2 to 7, a face card, the wild card
CLASSES = ("A", "2", "3", "4", "5", "6", "7", "F", "W")
FACE, WILD = 7, 8

UNITS = {"": Unit("chip", "chips", 2)}
#: per chip at stake: giving away 5% of the stake is an inaccuracy, 15% a mistake, 30% a blunder
THRESHOLDS = {"": Thresholds(0.05, 0.15, 0.3)}
ABOUT = {
    "unit": "chips, expected, from the deciding seat's side; marks are weighed per chip at stake",
    "hindsight": "not given: the deck's order past the cards the hand dealt is not in the record",
    "seen": (
        "exact: the cards the seat had not seen are known in composition, and every draw is averaged over "
        "them to the end of the hand, each side's later choices its best. For a player, the banker plays its "
        "best against that hand alone, from what the banker sees"
    ),
}

#: a hand or a pool of cards, in composition: how many of each class (`CLASSES`)
Counts = tuple[int, ...]
#: a finished (or standing) hand as settlement reads it: status, kind, total
Outcome = tuple[str, str, int]
EMPTY: Counts = (0,) * len(CLASSES)


class Table:
    """The hand's rules over card classes: totals, statuses and settlements, remembered."""

    def __init__(self, options: Any) -> None:
        self.wild: str | None = options.get("wild_card")
        self.pair_rule = bool(options.get("pair_of_sevens"))
        self.bonus = bool(options.get("two_card_bonus"))
        face = next(c for c in ("JC", "QC", "KC", "JD") if c != self.wild)
        self.cards = tuple(["AC", "2C", "3C", "4C", "5C", "6C", "7C", face, self.wild or face])
        self._classes: dict[str, int] = {}
        self._outcome: dict[Counts, Outcome] = {}
        self._payoff: dict[tuple[Outcome, Outcome], int] = {}
        self._added: dict[Counts, tuple[Counts, ...]] = {}
        self._graph: Graph | None = None
        self._compiled: Hands | None = None
        #: the compiled search's number of each hand of the graph and of each child of one (`compiled`)
        self.ids: dict[Counts, int] = {}

    def of(self, card: str) -> int:
        if card == self.wild:
            return WILD
        r = rank(card)
        return FACE if r in "JQK" else CLASSES.index(r)

    def counts(self, cards: Sequence[str]) -> Counts:
        classes = self._classes
        out = [0] * len(CLASSES)
        for c in cards:
            found = classes.get(c)
            if found is None:
                found = classes[c] = self.of(c)
            out[found] += 1
        return tuple(out)

    def outcome(self, hand: Counts) -> Outcome:
        """(status, kind, total) of a hand in composition (a pair and a two-card 7½ are two cards, any order)."""
        found = self._outcome.get(hand)
        if found is None:
            cards = [self.cards[c] for c, k in enumerate(hand) for _ in range(k)]
            status = status_of(cards, self.wild, self.pair_rule)
            if self.pair_rule and is_pair_of_sevens(cards):
                kind = PAIR
            elif self.bonus and is_two_card(cards):
                kind = TWO_CARD
            else:
                kind = PLAIN
            found = self._outcome[hand] = (status, kind, total(cards, self.wild))
        return found

    def added(self, hand: Counts) -> tuple[Counts, ...]:
        """The hand with one more card of each class, by class."""
        found = self._added.get(hand)
        if found is None:
            found = self._added[hand] = tuple((*hand[:c], hand[c] + 1, *hand[c + 1 :]) for c in range(len(CLASSES)))
        return found

    def graph(self) -> Graph:
        """Every hand a banker can hold and still take a card or stand, with its outcome and its children."""
        if self._graph is None:
            self._graph = Graph(self)
        return self._graph

    def compiled(self) -> Hands | None:
        """The graph for the compiled search, numbered (None where it was not built): its states first, in
        their order (largest first), then every child of one that is not one of them, by `ids`."""
        if _Hands is None:
            return None
        if self._compiled is None:
            graph = self.graph()
            hands = [hand for hand, _, _ in graph.states]
            ids = {hand: i for i, hand in enumerate(hands)}
            for _, _, children in graph.states:
                for child, _ in children:
                    if child not in ids:
                        ids[child] = len(hands)
                        hands.append(child)
            outcomes = sorted(graph.outcomes)
            number = {o: i for i, o in enumerate(outcomes)}
            compiled = _Hands(
                [k for hand in hands for k in hand],
                [number[self.outcome(hand)] for hand in hands],
                [ids[child] for _, _, children in graph.states for child, _ in children],
                [self.payoff(player, banker) for player in outcomes for banker in outcomes],
                [(o[0] == OPEN) | (o[0] == BUST) << 1 for o in outcomes],
                ids[EMPTY],
            )
            self.ids = ids  # before the search is shown: a thread that finds it finds its numbering too
            self._compiled = compiled
        return self._compiled

    def payoff(self, player: Outcome, banker: Outcome) -> int:
        """What the player wins per chip staked (a loss negative), both hands finished or standing."""
        key = (player, banker)
        found = self._payoff.get(key)
        if found is None:
            if player[0] == BUST:
                found = -1
            else:
                wins, multiple, _, _ = _verdict(player[1], banker[0], banker[1], player[2], banker[2])
                found = multiple if wins else -multiple
            self._payoff[key] = found
        return found


class Graph:
    """The hands a banker can come to hold before it busts, largest first: `(hand, outcome, children)`, each
    child `(the hand with one more card of that class, its outcome if that busts, else None)`; and every
    outcome any of them or their busts can have."""

    def __init__(self, table: Table) -> None:
        limits = table.counts(CARDS)
        found: dict[Counts, Outcome] = {}
        todo = [EMPTY]
        while todo:
            hand = todo.pop()
            if hand in found:
                continue
            outcome = found[hand] = table.outcome(hand)
            if outcome[0] == OPEN:
                for c, child in enumerate(table.added(hand)):
                    if child[c] <= limits[c] and table.outcome(child)[0] != BUST:
                        todo.append(child)
        states = []
        outcomes = set(found.values())
        for hand in sorted(found, key=lambda h: -sum(h)):
            children = []
            for child in table.added(hand):
                after = table.outcome(child)
                children.append((child, after if after[0] == BUST else None))
                outcomes.add(after)
            states.append((hand, found[hand], tuple(children)))
        self.states: tuple[tuple[Counts, Outcome, tuple[tuple[Counts, Outcome | None], ...]], ...] = tuple(states)
        self.outcomes = frozenset(outcomes)


def _less(pool: Counts, hand: Counts) -> Counts:
    return tuple(a - b for a, b in zip(pool, hand, strict=True))


class Banker:
    """The banker's best play, from what it sees, against player hands whose face-down card it averages.

    `hands`: per player hand still in play, (stake, its face-up cards in composition, whether a card of it
    lies face down); `pool`: the cards the banker has not seen, in composition, its own cards included
    (they are taken out as it holds them). Solved at once over every hand the banker can come to hold
    (`Table.graph`), the largest first, so that each hand's value is there when a smaller one asks.
    """

    def __init__(self, table: Table, hands: Sequence[tuple[int, Counts, bool]], pool: Counts) -> None:
        self.table = table
        self.pool = pool
        payoff = table.payoff
        graph = table.graph()
        #: per banker outcome: the banker's chips per unit of each hidden class's count, and the known part
        rows: dict[Outcome, tuple[tuple[float, ...], float]] = {}
        known_hands = [(stake, table.outcome(shown)) for stake, shown, hidden in hands if not hidden]
        hidden_hands = [
            (stake, tuple(table.outcome(h) for h in table.added(shown))) for stake, shown, hidden in hands if hidden
        ]
        for outcome in graph.outcomes:
            fixed = -float(sum(stake * payoff(known, outcome) for stake, known in known_hands))
            row = [0.0] * len(CLASSES)
            for stake, each in hidden_hands:
                for c in range(len(CLASSES)):
                    row[c] -= stake * payoff(each[c], outcome)
            rows[outcome] = (tuple(row), fixed)
        self.rows = rows
        self.stands: dict[Counts, bool] = {}
        self.values: dict[Counts, float] = {}
        self.searched = 0
        self._solve(graph)

    def stand_value(self, outcome: Outcome, left: Counts, n: int) -> float:
        row, fixed = self.rows[outcome]
        if not n:
            return fixed
        out = 0.0
        for r, k in zip(row, left, strict=True):
            if k:
                out += r * k
        return fixed + out / n

    def _solve(self, graph: Graph) -> None:
        pool = self.pool
        values, stands = self.values, self.stands
        stand_value = self.stand_value
        for hand, outcome, children in graph.states:
            left = tuple(a - b for a, b in zip(pool, hand, strict=True))
            if min(left) < 0:
                continue
            self.searched += 1
            n = sum(left)
            stand = stand_value(outcome, left, n)
            if outcome[0] != OPEN or not n:
                values[hand], stands[hand] = stand, True
                continue
            hit = 0.0
            for c, k in enumerate(left):
                if k:
                    child, bust = children[c]
                    if bust is None:
                        hit += k * values[child]
                    else:
                        after = (*left[:c], k - 1, *left[c + 1 :])
                        hit += k * stand_value(bust, after, n - 1)
            hit /= n
            values[hand], stands[hand] = max(stand, hit), stand >= hit

    def stand(self, cards: Counts) -> float:
        """The banker's expected chips standing on `cards`."""
        left = tuple(a - b for a, b in zip(self.pool, cards, strict=True))
        return self.stand_value(self.table.outcome(cards), left, sum(left))

    def hit(self, cards: Counts) -> float:
        """The banker's expected chips taking a card on `cards`, with its best play after."""
        left = tuple(a - b for a, b in zip(self.pool, cards, strict=True))
        n = sum(left)
        if not n:
            return self.stand(cards)
        out = 0.0
        for c, k in enumerate(left):
            if k:
                child = self.table.added(cards)[c]
                if child in self.values:
                    out += k * self.values[child]
                else:  # a bust
                    after = (*left[:c], k - 1, *left[c + 1 :])
                    out += k * self.stand_value(self.table.outcome(child), after, n - 1)
        return out / n


class Player:
    """A player hand's best play, against the banker's best play against it alone.

    `pool`: what the player has not seen (the banker's card and draws come out of it, and its own later
    hits); `banker_pool`: what the banker will not have seen of the table, the player's face-down card
    included (its later face-up hits are taken out as they come).
    """

    def __init__(self, table: Table, stake: int, pool: Counts, banker_pool: Counts) -> None:
        self.table = table
        self.stake = stake
        self.pool = pool
        self.banker_pool = banker_pool
        self._value: dict[tuple[Counts, Counts], float] = {}
        self.searched = 0

    def stand(self, hidden: Counts, shown: Counts) -> float:
        """The player's expected chips standing with `hidden` (its face-down cards) and `shown` (face up)."""
        table = self.table
        hand = tuple(a + b for a, b in zip(hidden, shown, strict=True))
        mine = table.outcome(hand)
        if mine[0] == BUST:
            return -float(self.stake)
        hits = _less(shown, self._shown)
        banker = Banker(table, [(1, shown, any(hidden))], _less(self.banker_pool, hits))
        pool = _less(self.pool, hits)
        payoff = table.payoff
        memo: dict[Counts, float] = {}

        def play(cards: Counts) -> float:
            found = memo.get(cards)
            if found is None:
                if banker.stands.get(cards, True):
                    found = float(payoff(mine, table.outcome(cards)))
                else:
                    left = _less(pool, cards)
                    n = sum(left)
                    after = table.added(cards)
                    found = 0.0
                    for c, k in enumerate(left):
                        if k:
                            found += k * play(after[c])
                    found /= n
                memo[cards] = found
            return found

        n = sum(pool)
        first = table.added(EMPTY)
        value = 0.0
        for c, k in enumerate(pool):
            if k:
                value += k * play(first[c])
        value /= n
        self.searched += len(memo) + banker.searched
        return self.stake * value

    def value(self, hidden: Counts, shown: Counts) -> float:
        """The player's expected chips with its best play from here."""
        key = (hidden, shown)
        found = self._value.get(key)
        if found is None:
            found = self.stand(hidden, shown)
            hand = tuple(a + b for a, b in zip(hidden, shown, strict=True))
            if self.table.outcome(hand)[0] == OPEN:
                found = max(found, self.hit(hidden, shown))
            self._value[key] = found
        return found

    def hit(self, hidden: Counts, shown: Counts) -> float:
        pool = _less(self.pool, _less(shown, self._shown))
        n = sum(pool)
        after = self.table.added(shown)
        out = 0.0
        for c, k in enumerate(pool):
            if k:
                out += k * self.value(hidden, after[c])
        return out / n

    def start(self, hidden: Counts, shown: Counts) -> tuple[float, float]:
        """(standing, taking a card) now, with `hidden` and `shown` the hand as it is."""
        self._shown = shown
        return self.stand(hidden, shown), self.hit(hidden, shown)


# --------------------------------------------------------------------------- the review


#: the tables of each set of options that matter to them (wild card, pair of sevens, two-card bonus)
_TABLES: dict[tuple[str | None, bool, bool], Table] = {}


def table_for(options: Mapping[str, Any]) -> Table:
    """The `Table` of these options, made once (its graph and remembered outcomes serve every review)."""
    key = (options.get("wild_card"), bool(options.get("pair_of_sevens")), bool(options.get("two_card_bonus")))
    found = _TABLES.get(key)
    if found is None:
        found = _TABLES[key] = Table(options)
    return found


def review(hand: HandRecord[SevenAndAHalfState], seat: int | None, *, compiled: bool = COMPILED) -> list[Decision]:
    """Every hit and stand of `hand` (of `seat` only, or of every seat with None), valued; `compiled=False`
    searches in Python (the reference) even where the compiled search was built."""
    out: list[Decision] = []
    for turn in hand.turns:
        state, event = turn.before, turn.event
        if state.phase not in (PLAY, BANKER) or event["type"] not in ("hit", "stand", "split", "flip"):
            continue
        acting = event["seat"]
        if seat is not None and acting != seat:
            continue
        if event["type"] in ("split", "flip"):
            out.append(Decision(turn.seq, acting, (), f"a {event['type']} is not valued"))
            continue
        if state.phase == BANKER:
            out.append(Decision(turn.seq, acting, (_banker_figure(state, event, compiled),)))
        else:
            out.append(Decision(turn.seq, acting, (_player_figure(state, event, compiled),)))
    return out


def _seen_by(state: SevenAndAHalfState, seat: int) -> list[str]:
    """Every card `seat` can see on the table: its own, and every other card lying face up."""
    down = state.face_down
    out: list[str] = []
    for s, hands in enumerate(state.hands):
        for h in hands:
            out.extend(c for c in h.cards if s == seat or c not in down)
    return out


def _pool(table: Table, seen: Sequence[str]) -> Counts:
    return _less(table.counts(CARDS), table.counts(seen))


def _figure(
    state: SevenAndAHalfState,
    event: Any,
    seat: int,
    stand: float,
    hit: float,
    scale: float,
    searched: int,
    note: str,
    cards: Sequence[str],
) -> Figure:
    now = total(list(cards), state.wild)
    stand_choice = Choice(
        {"type": "stand", "seat": seat, **({"hand": event["hand"]} if "hand" in event else {})},
        f"standing on {half_marker(now)}",
        stand,
        _chips_text(stand, seat),
    )
    hit_choice = Choice(
        {"type": "hit", "seat": seat, **({"hand": event["hand"]} if "hand" in event else {})},
        f"taking a card on {half_marker(now)}",
        hit,
        _chips_text(hit, seat),
    )
    ranked = sorted([stand_choice, hit_choice], key=lambda c: -c.value)
    played = 0 if ranked[0].event["type"] == event["type"] else 1
    return Figure(
        view=SEEN,
        choices=tuple(ranked),
        played=played,
        exact=True,
        layouts=1,
        of_layouts=1,
        searched=searched,
        note=note,
        scale=scale,
    )


def _chips_text(value: float, seat: int) -> str:
    return f"{seat_marker(seat)} can expect {value:+.2f} chips"


def banker_values(
    table: Table, hands: Sequence[tuple[int, Counts, bool]], pool: Counts, cards: Counts, compiled: bool = COMPILED
) -> tuple[float, float, int]:
    """(standing, taking a card, hands searched) for the banker holding `cards` (`Banker`'s arguments)."""
    fast = table.compiled() if compiled else None
    if fast is not None:
        ids = table.ids
        known = cards in ids and all(shown in ids for _, shown, _ in hands)
        if known and sum(abs(stake) for stake, _, _ in hands) <= COMPILED_STAKES:
            return fast.banker([(stake, ids[shown], hidden) for stake, shown, hidden in hands], pool, ids[cards])
    search = Banker(table, hands, pool)
    return search.stand(cards), search.hit(cards), search.searched


def player_values(
    table: Table,
    stake: int,
    pool: Counts,
    banker_pool: Counts,
    hidden: Counts,
    shown: Counts,
    compiled: bool = COMPILED,
) -> tuple[float, float, int]:
    """(standing, taking a card, hands searched) for a player hand (`Player`'s arguments, then `start`'s)."""
    fast = table.compiled() if compiled else None
    if fast is not None:
        ids = table.ids
        hand = tuple(a + b for a, b in zip(hidden, shown, strict=True))
        if hand in ids and shown in ids and abs(stake) <= COMPILED_STAKES:
            return fast.player(stake, pool, banker_pool, any(hidden), ids[shown], ids[hand])
    search = Player(table, stake, pool, banker_pool)
    stand, hit = search.start(hidden, shown)
    return stand, hit, search.searched


def _banker_figure(state: SevenAndAHalfState, event: Any, compiled: bool) -> Figure:
    table = table_for(state.options)
    banker = state.banker
    mine = list(state.hands[banker][0].cards)
    seen = _seen_by(state, banker)
    pool = _pool(table, [c for c in seen if c not in mine])  # its own cards are taken out as it holds them
    hands = []
    for s in state.order():
        for h in state.hands[s]:
            if h.status == BUST:
                continue
            shown = table.counts([c for c in h.cards if c not in state.face_down])
            hands.append((h.stake, shown, any(c in state.face_down for c in h.cards)))
    stand, hit, searched = banker_values(table, hands, pool, table.counts(mine), compiled)
    at_stake = float(sum(stake for stake, _, _ in hands)) or 1.0
    unseen = sum(pool) - len(mine)
    note = f"the {unseen} cards {seat_marker(banker)} had not seen, averaged by composition"
    return _figure(state, event, banker, stand, hit, at_stake, searched, note, mine)


def _player_figure(state: SevenAndAHalfState, event: Any, compiled: bool) -> Figure:
    table = table_for(state.options)
    seat = event["seat"]
    hand = state.hands[seat][event.get("hand", 0)]
    pool = _pool(table, _seen_by(state, seat))
    # the banker will see every card lying face up now (not the player's face-down one); its own card is
    # as unknown to the player as the deck, so it stays in both pools
    face_up = [
        c
        for s, hands in enumerate(state.hands)
        if s != state.banker
        for h in hands
        for c in h.cards
        if c not in state.face_down
    ]
    hidden = table.counts([c for c in hand.cards if c in state.face_down])
    shown = table.counts([c for c in hand.cards if c not in state.face_down])
    stand, hit, searched = player_values(table, hand.stake, pool, _pool(table, face_up), hidden, shown, compiled)
    note = (
        f"the {sum(pool)} cards {seat_marker(seat)} had not seen, averaged by composition; the banker plays its "
        "best against this hand alone"
    )
    return _figure(state, event, seat, stand, hit, float(hand.stake or 1), searched, note, hand.cards)


REVIEWER: Reviewer[SevenAndAHalfState] = Reviewer(review=review, units=UNITS, thresholds=THRESHOLDS, about=ABOUT)

__all__ = ["COMPILED", "REVIEWER", "Banker", "Player", "Table", "banker_values", "player_values", "review", "table_for"]
