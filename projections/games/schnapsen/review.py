"""Schnapsen's hand review (`RULES.review`): what every lead, follow, close and trump exchange was worth.

The unit is the game point, from the deciding seat's side: a choice worth +2 wins the hand for 2 game
points, one worth -1 loses it for 1. Both figures come from `_solver.Solver`, the exact search with
every card known:

- with hindsight: the hands as dealt and the talon in the order the record drew it. A hand that ended
  before the talon ran out leaves its last cards undrawn and their order unknown: a decision whose
  play could still reach them is valued over every order of them (up to `EXACT_ORDERS` orders), or
  over `SAMPLED_ORDERS` orders drawn at random, with a 95% confidence margin. Decisions after the
  close or after the talon ran out draw nothing more and are exact.
- from what the seat could see, once the talon is closed or used up (before, the opponent's hand and
  the talon's order are too many layouts to search in the time a review has): the seat's own cards,
  every card played, and what the opponent showed (the other half of a declared marriage, the trump
  card taken by an exchange or drawn last) are known; every way of giving the opponent the rest of its
  hand from the unseen cards is searched (up to `EXACT_LAYOUTS`), or `SAMPLED_LAYOUTS` of them drawn at
  random, and the values averaged (each layout solved with every card known, as a double-dummy
  average). Once the talon is used up the seat can work out the opponent's hand: one layout, exact.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from itertools import combinations, islice, permutations
from typing import Any

from events.cards import suit
from projections.core.phrases import card as card_marker
from projections.core.phrases import cards as cards_marker
from projections.core.phrases import seat as seat_marker
from projections.core.review import (
    HINDSIGHT,
    SEEN,
    Choice,
    Decision,
    Figure,
    HandRecord,
    Reviewer,
    Thresholds,
    Turn,
    Unit,
)
from projections.games.schnapsen import _solver as solver
from projections.games.schnapsen._solver import CLOSE, EXCHANGE, MARRIAGE, Move, Node, Solver
from projections.games.schnapsen._state import SchnapsenState

#: every order of the undrawn talon cards is searched up to this many orders (3 cards: 6 orders)
EXACT_ORDERS = 6
#: else this many orders drawn at random
SAMPLED_ORDERS = 8
#: every layout of the opponent's unseen cards is searched up to this many layouts
EXACT_LAYOUTS = 126
#: else this many layouts drawn at random
SAMPLED_LAYOUTS = 60
#: the plies of best play shown after a choice
LINE_PLIES = 6
ALL_CARDS = tuple(solver.code(i) for i in range(20))

UNITS = {"": Unit("game point", "game points", 2)}
#: 1 game point given away is an inaccuracy, 2 (a won hand lost, say) a mistake, 3 or more a blunder
THRESHOLDS = {"": Thresholds(1, 2, 3)}
ABOUT = {
    "unit": "game points (1 to 3 a hand) from the deciding seat's side: +2 wins the hand for 2, -1 loses it for 1",
    "hindsight": (
        "every card known: the hands as dealt and the talon in the order the record drew it, best play on both "
        "sides (an exact search). Where the hand ended before the talon ran out, its undrawn cards' order is "
        f"unknown: every order is searched up to {EXACT_ORDERS}, else {SAMPLED_ORDERS} orders drawn at random, "
        "with a 95% confidence margin"
    ),
    "seen": (
        "once the talon is closed or used up: the opponent's hand dealt every way the seen cards allow (up to "
        f"{EXACT_LAYOUTS} layouts, else {SAMPLED_LAYOUTS} drawn at random, with a 95% confidence margin), each "
        "solved with every card known, and the values averaged. Before that, only with hindsight"
    ),
}


def review(
    hand: HandRecord[SchnapsenState], seat: int | None, *, views: tuple[str, ...] = (HINDSIGHT, SEEN)
) -> list[Decision]:
    """Every decision of the hand (of `seat` only, if given), with its figures (of `views` only: the benchmark
    times the hindsight figures apart, as they have their own ceiling)."""
    turns = hand.turns
    deal = next((t for t in turns if t.event["type"] == "deal"), None)
    if deal is None:
        return []
    trump = solver.SUITS.index(deal.after.trump_suit or "C")
    orders, count, undrawn = _orders(deal, turns, hand.hand)
    # one table of the settled positions (nothing more drawn: the same at every order) for every search of the hand
    first = Solver(orders[0], trump)
    solvers = [first, *(Solver(order, trump, shared=first) for order in orders[1:])]
    seen_solver = Solver((0,) * 9, trump, shared=first)  # the talon is closed or used up: its order is never read
    out: list[Decision] = []
    for i, turn in enumerate(turns):
        state, event = turn.before, turn.event
        if state.phase not in ("lead", "follow") or event["type"] not in ("play", "close", "exchange_trump"):
            continue
        acting = state.leader if state.phase == "lead" else 1 - state.leader
        if seat is not None and acting != seat:
            continue
        figures = [_hindsight(state, event, acting, solvers, count, undrawn)] if HINDSIGHT in views else []
        note = ""
        if state.strict:
            if SEEN in views:
                figures.append(_seen(state, event, acting, turns[:i], seen_solver, turn.seq))
        else:
            note = "the talon is still open: only with hindsight (the unseen layouts are too many to search)"
        out.append(Decision(turn.seq, acting, tuple(figures), note))
    return out


# --------------------------------------------------------------------------- the talon's order


def _orders(
    deal: Turn[SchnapsenState], turns: Sequence[Turn[SchnapsenState]], number: int
) -> tuple[list[list[int]], int, int]:
    """The talon orders a hindsight figure averages (each nine card indices, top first), how many orders
    there are, and how many of the talon's cards the record never drew."""
    draws = [t.event["card"] for t in turns if t.event["type"] == "draw"]
    known = [solver.index(c) for c in draws[:9]]
    dealt = {c for h in deal.event["hands"] for c in h} | {deal.event["trump_card"]}
    unknown = [solver.index(c) for c in ALL_CARDS if c not in dealt and c not in draws]
    unknown = unknown[: 9 - len(known)]
    count = math.factorial(len(unknown))
    if count <= EXACT_ORDERS:
        return [known + list(p) for p in permutations(unknown)], count, len(unknown)
    rng = random.Random(f"schnapsen talon {number} {' '.join(draws)}")
    out = []
    for _ in range(SAMPLED_ORDERS):
        rest = list(unknown)
        rng.shuffle(rest)
        out.append(known + rest)
    return out, count, len(unknown)


# --------------------------------------------------------------------------- positions and moves


def node_of(state: SchnapsenState, hands: tuple[frozenset[str], frozenset[str]] | None = None) -> Node:
    """The solver's position for a decision of `state` (a lead or a follow), with `hands` instead of the state's."""
    h0, h1 = hands or (state.hands[0], state.hands[1])
    drawn = 10 - state.talon
    bottom = solver.index(state.trump_card) if state.trump_card and state.talon > 0 else -1
    closer = -1 if state.closed_by is None else state.closed_by
    won = (1 if state.tricks[0] else 0) | (2 if state.tricks[1] else 0)
    declared = 0
    for m in state.marriages:
        declared |= 1 << (4 * m.seat + solver.SUITS.index(m.suit))
    lead = solver.index(state.trick[0][1]) if state.trick else -1
    return (
        solver.mask(h0),
        solver.mask(h1),
        drawn,
        bottom,
        closer,
        state.closed_opponent_points,
        1 if state.closed_opponent_tricks else 0,
        state.leader,
        lead,
        state.hand_points(0),
        state.hand_points(1),
        state.pending(0),
        state.pending(1),
        won,
        declared,
    )


def event_of(state: SchnapsenState, seat: int, move: Move) -> dict[str, Any]:
    """The event a solver move is, as `legal_events` lists it."""
    if move == EXCHANGE:
        return {"type": "exchange_trump", "seat": seat}
    if move == CLOSE:
        return {"type": "close", "seat": seat}
    if move >= MARRIAGE:
        return {"type": "play", "seat": seat, "card": solver.code(move - MARRIAGE), "marriage": True}
    return {"type": "play", "seat": seat, "card": solver.code(move)}


def _same(event: Any, other: Any) -> bool:
    return bool(
        event["type"] == other["type"]
        and event.get("card") == other.get("card")
        and bool(event.get("marriage")) == bool(other.get("marriage"))
    )


def _words(state: SchnapsenState, move: Move) -> str:
    if move == EXCHANGE:
        jack = "J" + (state.trump_suit or "")
        return f"exchanging {card_marker(jack)} for {card_marker(state.trump_card or '')}"
    if move == CLOSE:
        return "closing the talon"
    if move >= MARRIAGE:
        c = solver.code(move - MARRIAGE)
        points = 40 if suit(c) == state.trump_suit else 20
        return f"leading {card_marker(c)} and declaring the marriage ({points})"
    c = solver.code(move)
    return f"leading {card_marker(c)}" if state.phase == "lead" else f"playing {card_marker(c)}"


def _points_text(value: float, seat: int) -> str:
    """`{seat:0} wins 2 game points`, or for an average `{seat:0} averages +0.75 game points`."""
    if value == int(value):
        n = abs(int(value))
        won = seat if value > 0 else 1 - seat
        return f"{seat_marker(won)} wins {n} game point{'s' if n != 1 else ''}"
    return f"{seat_marker(seat)} averages {value:+.2f} game points"


def _line_text(line: Sequence[Move]) -> str:
    cards = [solver.code(m % MARRIAGE) for m in line if m >= 0]
    return f" (best play then: {cards_marker(cards)})" if cards else ""


# --------------------------------------------------------------------------- the figures


def _valued(
    state: SchnapsenState,
    event: Any,
    seat: int,
    nodes: Sequence[tuple[Solver, Node]],
    *,
    view: str,
    exact: bool,
    of_layouts: int,
    note: str,
    lines: bool,
) -> Figure:
    """A figure from the values of every move at each of `nodes` (one per layout or order), averaged.

    One node: the best and the played move are valued exactly, every other one only as far as it takes to
    rank it (a zero-window search at the best value: as good, or at most a lower value). Several: every
    move exactly at each, so that the averages are exact.
    """
    sign = 1 if seat == 0 else -1
    first_solver, first_node = nodes[0]
    moves = first_solver.moves(first_node)
    played = next((j for j, m in enumerate(moves) if _same(event_of(state, seat, m), event)), None)
    if played is None:  # a play the record holds that the rules did not offer (record enforcement)
        return _off_list(event, view, note)
    searches = list({id(s): s for s, _ in nodes}.values())
    before = sum(s.searched for s in searches)
    bounded = [False] * len(moves)
    if len(nodes) == 1:
        values = [float(v) for v in _ranked_values(first_solver, first_node, moves, played, seat, bounded)]
    else:
        table: list[list[int]] = []
        for s, node in nodes:  # the search starts from each move's value at the order (or layout) before
            guesses = [sign * v for v in table[-1]] if table else [1] * len(moves)
            table.append([sign * s.exact(s.child(node, m), guesses[j]) for j, m in enumerate(moves)])
        values = [sum(row[j] for row in table) / len(table) for j in range(len(moves))]
    searched = sum(s.searched for s in searches) - before
    ranked = sorted(range(len(moves)), key=lambda j: (-values[j], bounded[j]))
    margin = None
    if len(nodes) > 1 and not exact:
        best = ranked[0]
        diffs = [row[best] - row[played] for row in table]
        margin = 1.96 * _stdev(diffs) / math.sqrt(len(diffs))
    choices = []
    for j in ranked:
        outcome = "" if bounded[j] else _points_text(values[j], seat)
        if lines and (j == played or j == ranked[0]):
            outcome += _line_text(first_solver.line(first_solver.child(first_node, moves[j]), LINE_PLIES))
        words = _words(state, moves[j])
        choices.append(Choice(event_of(state, seat, moves[j]), words, values[j], outcome, at_most=bounded[j]))
    return Figure(
        view=view,
        choices=tuple(choices),
        played=ranked.index(played),
        exact=exact,
        layouts=len(nodes),
        of_layouts=of_layouts,
        margin=margin,
        searched=searched,
        note=note,
    )


def _ranked_values(
    search: Solver, node: Node, moves: Sequence[Move], played: int, seat: int, bounded: list[bool]
) -> list[int]:
    """Each move's value for `seat`: the best and the played one exact, the others exact when as good as the
    best, else the most they are worth (`bounded[j]` set)."""
    sign = 1 if seat == 0 else -1
    best = search.solve(node)
    out = []
    for j, move in enumerate(moves):
        after = search.child(node, move)
        if isinstance(after, int):
            out.append(sign * after)
        elif j == played:
            out.append(sign * search.solve(after, best))
        elif seat == 0:
            r = search.value(after, best - 1, best)
            out.append(r)
            bounded[j] = r < best
        else:
            r = search.value(after, best, best + 1)
            out.append(-r)
            bounded[j] = r > best
    return out


def _off_list(event: Any, view: str, note: str) -> Figure:
    """A play against the rules (stored under record enforcement): not among the choices, not valued."""
    choice = Choice(dict(event), f"playing {card_marker(event.get('card', ''))}", float("-inf"), "against the rules")
    return Figure(view=view, choices=(choice,), played=0, exact=False, note=note)


def _stdev(values: Sequence[float]) -> float:
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


def _hindsight(
    state: SchnapsenState, event: Any, seat: int, solvers: Sequence[Solver], count: int, undrawn: int
) -> Figure:
    node = node_of(state)
    settled = node[4] >= 0 or node[2] >= 10  # closed or used up: no card is drawn again
    chosen = solvers[:1] if settled or len(solvers) == 1 else solvers
    exact = settled or len(chosen) == count
    note = ""
    if not settled and count > 1:
        how = (
            f"every one of their {count} orders"
            if exact
            else f"{len(chosen)} of their {count:,} orders, drawn at random"
        )
        note = f"the talon's last {undrawn} cards were never drawn: averaged over {how}"
    return _valued(
        state,
        event,
        seat,
        [(s, node) for s in chosen],
        view=HINDSIGHT,
        exact=exact,
        of_layouts=1 if settled else count,
        note=note,
        lines=len(chosen) == 1,
    )


def opponent_known(state: SchnapsenState, seat: int, history: Sequence[Turn[SchnapsenState]]) -> frozenset[str]:
    """The cards `seat` knows the opponent holds: the other half of its declared marriages, the trump card it
    took by an exchange, and the talon's last card if it drew it (the face-up trump card), still unplayed."""
    opponent = 1 - seat
    held = state.hands[opponent]
    known: set[str] = set()
    for m in state.marriages:
        if m.seat == opponent:
            known.update({"K" + m.suit, "Q" + m.suit})
    for turn in history:
        kind = turn.event["type"]
        if kind == "exchange_trump" and turn.event["seat"] == opponent and turn.before.trump_card:
            known.add(turn.before.trump_card)
        elif kind == "draw" and turn.event["seat"] == opponent and turn.before.talon == 1:
            known.add(turn.event["card"])
    return frozenset(known & held)


def layouts_of(
    state: SchnapsenState, seat: int, history: Sequence[Turn[SchnapsenState]]
) -> tuple[frozenset[str], list[str], int]:
    """(what the opponent is known to hold, the cards `seat` cannot place, how many of them the opponent holds)."""
    opponent = 1 - seat
    known = opponent_known(state, seat, history)
    placed = set(state.hands[seat]) | set(state.won[0]) | set(state.won[1]) | {c for _, c in state.trick} | known
    if state.trump_card and state.talon > 0:
        placed.add(state.trump_card)  # the bottom card of a closed talon, face down but seen
    pool = [c for c in ALL_CARDS if c not in placed]
    return known, pool, len(state.hands[opponent]) - len(known)


def _seen(
    state: SchnapsenState,
    event: Any,
    seat: int,
    history: Sequence[Turn[SchnapsenState]],
    search: Solver,
    seq: int,
) -> Figure:
    known, pool, slots = layouts_of(state, seat, history)
    count = math.comb(len(pool), slots)
    layouts: Iterator[tuple[str, ...]]
    if count <= EXACT_LAYOUTS:
        layouts = combinations(pool, slots)
        exact = True
    else:
        rng = random.Random(f"schnapsen seen {seq} {seat}")
        layouts = islice(iter(lambda: tuple(rng.sample(pool, slots)), None), SAMPLED_LAYOUTS)
        exact = False
    nodes = []
    for layout in layouts:
        theirs = known | frozenset(layout)
        hands = (state.hands[0], theirs) if seat == 0 else (theirs, state.hands[1])
        nodes.append((search, node_of(state, hands)))
    if count == 1:
        note = f"{seat_marker(seat)} can tell the opponent's hand from the cards seen: one layout"
    elif exact:
        note = f"every one of the {count} layouts of the opponent's hand the seen cards allow, averaged"
    else:
        note = f"{len(nodes)} of the {count:,} layouts of the opponent's hand the seen cards allow, drawn at random"
    return _valued(state, event, seat, nodes, view=SEEN, exact=exact, of_layouts=count, note=note, lines=count == 1)


#: the search for a test or a benchmark: the solver of one position, from a state (every card known)
def solve(state: SchnapsenState, order: Sequence[str]) -> tuple[Solver, Node]:
    """A solver over `state` with the talon's cards (top first, as many as are still to be drawn above the
    bottom card) and the position of `state` in it."""
    drawn = 10 - state.talon
    full = ([0] * drawn + [solver.index(c) for c in order] + [0] * 9)[:9]  # the talon's nine, drawn or not
    search = Solver(full, solver.SUITS.index(state.trump_suit or "C"))
    return search, node_of(state)


REVIEWER: Reviewer[SchnapsenState] = Reviewer(review=review, units=UNITS, thresholds=THRESHOLDS, about=ABOUT)

__all__ = ["REVIEWER", "layouts_of", "node_of", "review", "solve"]
