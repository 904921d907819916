"""Casino's hand review (`RULES.review`): what every capture, build and trail was worth, deal by deal.

The unit is the Casino point of the round, from the deciding seat's side. With hindsight every card of
the deal is known (the hands as dealt, the table as it lies): a search to the end of the deal, with the
game's own moves (`legal_events`, `evolve`), the deciding seat playing its best and every other seat
playing to keep its points down (minimax with two players, the "paranoid" reading with more). The
value at the deal's end is the round's count as the piles then stand (most cards, most spades, the
casinos, the aces, sweeps where they count), the table's cards counting for nobody: the next deal's
cards are not searched. On the round's last deal the search reaches the round's end, where the last
capturer takes the table, and the value is the round's score. A search that would pass `BUDGET`
positions stops at the end of the present round of turns instead (each seat playing once more), and
says so (`bounded`).

From what the seat could see: in the last deal of a two-player round every unseen card is in the
other hand, so the figure is the hindsight one; otherwise the layouts of the unseen cards are too many
to search in the time a review has, and only the hindsight figure is given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from projections.core.phrases import card as card_marker
from projections.core.phrases import cards as cards_marker
from projections.core.phrases import seat as seat_marker
from projections.core.review import HINDSIGHT, SEEN, Choice, Decision, Figure, HandRecord, Reviewer, Thresholds, Unit
from projections.games.casino._state import CasinoState

#: the positions one decision's search may expand before it is cut to the end of the round of turns
BUDGET = 8_000
SEQ = 1 << 40

UNITS = {"": Unit("point", "points", 2)}
THRESHOLDS = {"": Thresholds(1, 2, 3)}
ABOUT = {
    "unit": "the round's Casino points from the deciding seat's side, counted as the piles stand at the deal's end",
    "hindsight": (
        "every card of the deal known: a search to the deal's end with the game's own moves, the seat playing "
        "its best and every other seat against it; the round's last deal is searched to the round's end. "
        f"A search past {BUDGET:,} positions stops at the end of the round of turns, and says so"
    ),
    "seen": (
        "the hindsight figure in the last deal of a two-player round (every unseen card is then in the other "
        "hand); else not given"
    ),
}


class _Budget(Exception):
    """The search passed its budget."""


#: a pile's summary by the pile's identity (the fold shares a seat's pile between states until it grows)
_PILES: dict[int, tuple[tuple[Any, ...], tuple[int, int, tuple[str, ...]]]] = {}


def _pile(won: tuple[tuple[str, int], ...]) -> tuple[int, int, tuple[str, ...]]:
    found = _PILES.get(id(won))
    if found is not None and found[0] is won:
        return found[1]
    summary = (len(won), sum(1 for c, _ in won if c[1] == "S"), tuple(sorted(c for c, _ in won if c in _SCORING)))
    if len(_PILES) > 100_000:
        _PILES.clear()
    _PILES[id(won)] = (won, summary)
    return summary


def _key(state: CasinoState) -> tuple[Any, ...]:
    """What the rest of the deal and its count turn on, build ids left out (they only name the builds)."""
    builds = (
        tuple(sorted((str(b.value), tuple(sorted(b.cards)), b.multiple, b.owner) for b in state.builds))
        if state.builds
        else ()
    )
    piles = tuple([_pile(w) for w in state.won])
    last = state.last_capture[0] if state.last_capture else -1
    return (state.hands, state.to_play, tuple(sorted(state.loose)), builds, piles, last, len(state.cleared))


_SCORING = frozenset({"TD", "2S", "AC", "AD", "AH", "AS"})


def count(state: CasinoState, seat: int) -> int:
    """The seat's points as the piles stand (`_score.round_lines`' count, without its lines): most cards 3,
    most spades 1 (a tie: nobody), big casino 2, little casino 1, each ace 1, each sweep 1 where they count
    (every table-clearing capture so far; the round's last capture is never one, and is not yet known)."""
    cards = [len(w) for w in state.won]
    spades = [sum(1 for c, _ in w if c[1] == "S") for w in state.won]
    points = 0
    for tally, worth in ((cards, 3), (spades, 1)):
        best = max(tally)
        if best and tally[seat] == best and tally.count(best) == 1:
            points += worth
    for c, _ in state.won[seat]:
        if c in _SCORING:
            points += 2 if c == "TD" else 1
    if state.options.get("sweeps"):
        points += sum(1 for s, _ in state.cleared if s == seat)
    return points


def _order(event: Mapping[str, Any]) -> tuple[int, int]:
    """Captures first (the most cards first), then builds, then trails: the search's move order."""
    kind = event["type"]
    if kind == "capture":
        return (0, -len(event["take"]))
    return (1, 0) if kind == "build" else (2, 0)


class Search:
    """The rest of one deal, valued for `seat` with the others against it."""

    def __init__(self, rules: Any, seat: int) -> None:
        self.rules = rules
        self.seat = seat
        self.table: dict[tuple[Any, int], tuple[float, float]] = {}
        self.searched = 0
        self.limit: int | None = None
        self.budget = BUDGET

    def points(self, state: CasinoState, facts: Mapping[str, Any]) -> float:
        """The seat's points at the deal's end (the round's, when the round has ended)."""
        if facts.get("hand_ended"):
            return float(facts["points"][str(self.seat)])
        return float(count(state, self.seat))

    def value(self, state: CasinoState, alpha: float, beta: float, depth: int) -> float:
        key = (_key(state), depth if self.limit is not None else -1)
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
            low, high = -1.0, 99.0
        self.searched += 1
        if self.searched > self.budget:
            raise _Budget
        first, last = alpha, beta
        maximising = state.to_play == self.seat
        best = -1.0 if maximising else 99.0
        for event in sorted(self.rules.legal_events(state), key=_order):
            v = self.after(state, event, alpha, beta, depth + 1)
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

    def after(self, state: CasinoState, event: Mapping[str, Any], alpha: float, beta: float, depth: int) -> float:
        """The value after `event` (the deal's end, the search's bound, or the search from there)."""
        nxt, facts = self.rules.evolve(state, event, SEQ + depth)
        if nxt.phase != "play" or facts.get("hand_ended") or (self.limit is not None and depth >= self.limit):
            return self.points(nxt, facts)
        return self.value(nxt, alpha, beta, depth)

    def choices(self, state: CasinoState) -> dict[int, float]:
        """Each legal move's exact value (by its index in `legal_events`), within the budget, else bounded
        to the end of the round of turns (`limit` set)."""
        events = self.rules.legal_events(state)
        try:
            return {i: self.after(state, e, -1.0, 99.0, 0) for i, e in enumerate(events)}
        except _Budget:
            self.limit = state.seats
            self.table = {}
            self.budget = 10 * BUDGET
            return {i: self.after(state, e, -1.0, 99.0, 0) for i, e in enumerate(events)}


def _same(event: Mapping[str, Any], other: Mapping[str, Any]) -> bool:
    def norm(e: Mapping[str, Any]) -> tuple[Any, ...]:
        items = e.get("take", e.get("onto", ()))
        return (e["type"], e["card"], tuple(sorted(items)), str(e.get("value", "")).upper())

    return norm(event) == norm(other)


def words(state: CasinoState, event: Mapping[str, Any]) -> str:
    """A move in a player's words: `capturing 8♦ and 3♠ + 5♣ with 8♥`, `building 9 with 4♦ on 5♠`."""
    card = card_marker(event["card"])
    if event["type"] == "trail":
        return f"trailing {card}"
    items = event.get("take", event.get("onto", ()))
    loose = [i for i in items if not i.startswith("b")]
    builds = [b for b in (state.build(i) for i in items if i.startswith("b")) if b is not None]
    parts = []
    if loose:
        parts.append(cards_marker(loose))
    parts += [f"the build of {b.value} ({cards_marker(b.cards)})" for b in builds]
    what = " and ".join(parts)
    if event["type"] == "capture":
        return f"capturing {what} with {card}"
    return f"building {event['value']} with {card} on {what}"


def _points_text(value: float, seat: int) -> str:
    if value == int(value):
        n = int(value)
        return f"{seat_marker(seat)} counts {n} point{'s' if n != 1 else ''}"
    return f"{seat_marker(seat)} counts {value:.2f} points"


def review(hand: HandRecord[CasinoState], seat: int | None) -> list[Decision]:
    rules = hand.rules
    out: list[Decision] = []
    searches: dict[tuple[int, int], Search] = {}
    for turn in hand.turns:
        state, event = turn.before, turn.event
        if state.phase != "play" or event["type"] not in ("capture", "build", "trail"):
            continue
        acting = state.to_play
        if seat is not None and acting != seat:
            continue
        key = (acting, state.deals)
        search = searches.get(key)
        if search is None or search.limit is not None:
            search = searches[key] = Search(rules, acting)
        before = search.searched
        values = search.choices(state)
        events = rules.legal_events(state)
        figure = _figure(state, event, acting, events, values, search, search.searched - before)
        figures = [figure]
        note = ""
        if state.seats == 2 and state.deals == state.deals_in_round and not search.limit:
            figures.append(_seen_as(figure))
        else:
            note = "from what the seat could see only in the last deal of a two-player round"
        out.append(Decision(turn.seq, acting, tuple(figures), note))
    return out


def _figure(
    state: CasinoState,
    event: Mapping[str, Any],
    seat: int,
    events: Sequence[Mapping[str, Any]],
    values: Mapping[int, float],
    search: Search,
    searched: int,
) -> Figure:
    ranked = sorted(values, key=lambda i: -values[i])
    played = next((r for r, i in enumerate(ranked) if _same(events[i], event)), None)
    choices = [
        Choice(dict(events[i]), words(state, events[i]), values[i], _points_text(values[i], seat)) for i in ranked
    ]
    if played is None:  # a move the rules did not offer (record enforcement): listed, not valued
        choices.append(Choice(dict(event), words(state, event), float("-inf"), "against the rules"))
        played = len(choices) - 1
    last_deal = state.deals == state.deals_in_round
    if search.limit is not None:
        note = "the deal's end was past the search's budget: searched to the end of this round of turns only"
    elif last_deal:
        note = "the round's last deal: searched to the round's end"
    else:
        note = "searched to the deal's end, the piles counted as they then stand"
    return Figure(
        view=HINDSIGHT,
        choices=tuple(choices),
        played=played,
        exact=search.limit is None,
        bounded=search.limit is not None or not last_deal,
        searched=searched,
        note=note,
    )


def _seen_as(figure: Figure) -> Figure:
    """The hindsight figure as the seat's own: every unseen card is in the other hand."""
    return Figure(
        view=SEEN,
        choices=figure.choices,
        played=figure.played,
        exact=figure.exact,
        bounded=figure.bounded,
        searched=0,
        note="every card the seat had not seen is in the other hand: one layout",
    )


REVIEWER: Reviewer[CasinoState] = Reviewer(review=review, units=UNITS, thresholds=THRESHOLDS, about=ABOUT)

__all__ = ["REVIEWER", "Search", "review", "words"]
