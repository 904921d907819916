"""Gin Rummy's hand review (`RULES.review`): deadwood at every draw, discard, knock and lay-off, and with
hindsight, whether knocking or waiting would have won more.

Two units. Deadwood (from what the seat could see; nothing is unknown in it but the next stock card):

- a discard or a knock: the deadwood of the ten cards kept, each arranged in its best melding, for every
  card the seat could have let go (a knock's declared melds, as the record holds them, for the one played);
- a draw (or the upcard offer): the deadwood left after the best discard, taking the pile's top card,
  or the stock's next card averaged over every card the seat had not seen (a pass is valued as a draw
  from the stock);
- the defender's lay-out: the deadwood it kept, beside the least its best melding and lay-offs leave
  (every arrangement to which no meld can be added, each with every lay-off that fits).

Gin points (with hindsight: every card known, the opponent's hand as it was), from the seat's side (its
points, or less the opponent's): at a turn where the seat could knock, knocking then (every discard that
allows it, the best melding, against the defender's best lay-out and lay-offs) beside what the hand
brought as it was played; and at every discard, the other discards that, with the cards the seat drew
afterwards, would have held gin before the hand ended (the gin bonus and the defender's deadwood then).
What waiting after a knock would have brought is not in the record.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

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
from projections.games.gin_rummy_3._melds import (
    _Solver,
    best_melding,
    candidate_melds,
    card_value,
    deadwood_value,
    maximal_meldings,
    sort_cards,
)
from projections.games.gin_rummy_3._state import CARD_SET, KNOCK_LIMIT, GinState
from projections.games.gin_rummy_3._table import greedy_layoffs

DEADWOOD = "deadwood"
UNITS = {"": Unit("point", "points", 0), DEADWOOD: Unit("point of deadwood", "points of deadwood", 2)}
THRESHOLDS = {"": Thresholds(5, 10, 20), DEADWOOD: Thresholds(2, 5, 10)}
ABOUT = {
    "unit": "Gin points from the seat's side (with hindsight), and points of deadwood (from what the seat saw)",
    "hindsight": (
        "the opponent's hand as it was: knocking at a turn where the seat could (its best melding, against the "
        "defender's best lay-out and lay-offs) beside what the hand brought as it was played, and the other "
        "discards that would have held gin with the cards the seat drew afterwards"
    ),
    "seen": (
        "the deadwood kept after every discard (each hand in its best melding), after a draw from the pile or "
        "from the stock (averaged over every card the seat had not seen), and after the defender's lay-out"
    ),
}


# --------------------------------------------------------------------------- deadwood


def after_discards(cards: Iterable[str]) -> dict[str, int]:
    """For each card of a hand, the least deadwood of the other cards."""
    solver = _Solver(cards)
    full = (1 << len(solver.cards)) - 1
    return {c: solver.best(full & ~(1 << i))[0] for i, c in enumerate(solver.cards)}


def _melds_with(card: str, hand: Iterable[str]) -> bool:
    """Whether `card` forms a meld with cards of `hand`."""
    cards = set(hand) | {card}
    return any(card in m for m in candidate_melds(cards))


def draw_values(hand: frozenset[str], unseen: Sequence[str]) -> float:
    """The least deadwood after a draw from the stock and the best discard, averaged over `unseen`."""
    solver = _Solver(hand)
    full = (1 << len(solver.cards)) - 1
    kept = solver.best(full)[0]  # the card drawn let go again
    without = min(solver.best(full & ~(1 << i))[0] for i in range(len(solver.cards)))
    total = 0
    for card in unseen:
        if _melds_with(card, hand):
            total += min(after_discards(hand | {card}).values())
        else:  # the card joins no meld: let it go, or keep it as deadwood for another card
            total += min(kept, without + card_value(card))
    return total / len(unseen) if unseen else float(kept)


def defence(melds: Sequence[tuple[str, ...]], cards: Iterable[str], gin: bool) -> int:
    """The least deadwood the defender can keep against the knocker's `melds` (no lay-off after a gin)."""
    best = None
    for melding in maximal_meldings(cards):
        dead = list(melding.deadwood)
        if not gin:
            for card, _ in greedy_layoffs(tuple(melds), tuple(dead)):
                dead.remove(card)
        count = deadwood_value(dead)
        best = count if best is None or count < best else best
    return best if best is not None else deadwood_value(cards)


def knock_points(state: GinState, kept: Iterable[str], defender: Iterable[str]) -> tuple[int, int, int]:
    """(the knocker's points, the defender's, the defender's deadwood) of a knock keeping `kept`, best melded."""
    melding = best_melding(kept)
    k = melding.count
    d = defence(melding.melds, defender, k == 0)
    options = state.options
    if k == 0:
        bonus = int(options.get("gin_bonus", 25))
        return (bonus if options.get("gin_scoring") == "flat" else bonus + d), 0, d
    if k < d:
        return d - k, 0, d
    return 0, int(options.get("undercut_bonus", 10)) + k - d, d


def gin_in(pool: Iterable[str]) -> frozenset[str] | None:
    """Ten of the cards that meld whole (a gin: one meld of 10, or two or three that make 10), or None."""
    melds = [frozenset(m) for m in candidate_melds(pool)]
    by_size: dict[int, list[frozenset[str]]] = {}
    for m in melds:
        by_size.setdefault(len(m), []).append(m)
    if by_size.get(10):
        return by_size[10][0]
    for a, b in ((3, 7), (4, 6), (5, 5)):
        for x in by_size.get(a, ()):
            for y in by_size.get(b, ()):
                if x.isdisjoint(y):
                    return x | y
    threes, fours = by_size.get(3, []), by_size.get(4, [])
    for f in fours:
        free = [t for t in threes if t.isdisjoint(f)]
        for i, x in enumerate(free):
            for y in free[i + 1 :]:
                if x.isdisjoint(y):
                    return f | x | y
    return None


# --------------------------------------------------------------------------- the hand's turns


def _later_draws(turns: Sequence[Turn[GinState]], start: int, seat: int) -> list[tuple[str, GinState]]:
    """The cards `seat` drew after turn `start`, each with the state after the draw (the opponent's hand then)."""
    out = []
    for turn in turns[start + 1 :]:
        if turn.event["type"] == "draw" and turn.event["seat"] == seat:
            out.append((turn.event["card"], turn.after))
    return out


def _net(points: Sequence[int], seat: int, opponent: int) -> int:
    return points[seat] - points[opponent]


def review(hand: HandRecord[GinState], seat: int | None) -> list[Decision]:
    turns = hand.turns
    if not turns:
        return []
    result = turns[-1].after.hand_points
    out: list[Decision] = []
    for i, turn in enumerate(turns):
        state, event = turn.before, turn.event
        kind = event["type"]
        acting = event.get("seat")
        if (
            acting is None
            or (seat is not None and acting != seat)
            or kind not in ("draw", "pass", "discard", "knock", "lay_off")
        ):
            continue
        if kind in ("draw", "pass"):
            if kind == "draw" and event["source"] == "stock" and (state.phase != "draw" or state.stock_only):
                continue  # no choice: the stock is the only source
            out.append(Decision(turn.seq, acting, (_draw_figure(state, event, acting, turns[:i]),)))
        elif kind in ("discard", "knock"):
            figures = [_discard_figure(state, event, acting)]
            hindsight = _hindsight(state, event, acting, turns, i, result)
            if hindsight is not None:
                figures.insert(0, hindsight)
            out.append(Decision(turn.seq, acting, tuple(figures)))
        else:
            out.append(Decision(turn.seq, acting, (_layout_figure(state, event, acting, turn.after),)))
    return out


def _deadwood_text(count: float) -> str:
    if count == int(count):
        return f"deadwood {int(count)}"
    return f"deadwood {count:.2f} on average"


def _figure(
    view: str, choices: list[Choice], played: int, *, unit: str = "", note: str = "", searched: int = 0
) -> Figure:
    chosen = choices[played]
    ranked = sorted(choices, key=lambda c: -c.value)
    return Figure(
        view=view,
        choices=tuple(ranked),
        played=ranked.index(chosen),
        unit=unit,
        note=note,
        searched=searched,
    )


def _discard_figure(state: GinState, event: Any, seat: int) -> Figure:
    held = state.hands[seat]
    values = after_discards(held)
    kept_back = state.taken if state.options.get("discard_taken_card", True) is False else None
    knocking = event["type"] == "knock"
    played_card = event["discard"] if knocking else event["card"]
    choices: list[Choice] = []
    played = 0
    for card in sort_cards(held):
        if card == kept_back:
            continue
        count = values[card]
        if knocking and card == played_card:
            declared = {c for m in event["melds"] for c in m}
            count = deadwood_value(held - {card} - declared)
        verb = "knocking with" if knocking and count <= KNOCK_LIMIT else "discarding"
        what = (
            {"type": "knock", "seat": seat, "discard": card}
            if verb == "knocking with"
            else {
                "type": "discard",
                "seat": seat,
                "card": card,
            }
        )
        if card == played_card:
            played = len(choices)
        words = (
            f"knocking and letting {card_marker(card)} go"
            if verb == "knocking with"
            else f"discarding {card_marker(card)}"
        )
        choices.append(Choice(what, words, -float(count), f"{seat_marker(seat)} keeps {_deadwood_text(count)}"))
    if played_card not in values or played_card == kept_back:  # against the rules (record enforcement)
        off = {"type": event["type"], "seat": seat, **({"discard": played_card} if knocking else {"card": played_card})}
        choices.append(Choice(off, f"discarding {card_marker(played_card)}", float("-inf"), "against the rules"))
        played = len(choices) - 1
    note = "each hand kept in its best melding" + (", the knock's as declared" if knocking else "")
    return _figure(SEEN, choices, played, unit=DEADWOOD, note=note, searched=len(values))


def _unseen(state: GinState, seat: int, history: Sequence[Turn[GinState]]) -> list[str]:
    """The cards `seat` had not seen: not in its hand, never discarded, not taken from the pile by the other."""
    seen = set(state.hands[seat]) | set(state.pile)
    for turn in history:
        kind = turn.event["type"]
        if kind == "discard":
            seen.add(turn.event["card"])
        elif kind == "knock":
            seen.add(turn.event["discard"])
        elif kind == "deal":
            seen.add(turn.event["upcard"])
        elif kind == "draw" and (turn.event["source"] == "discard" or turn.event["seat"] == seat):
            seen.add(turn.event["card"])
    return list(sort_cards(CARD_SET - seen))


def _draw_figure(state: GinState, event: Any, seat: int, history: Sequence[Turn[GinState]]) -> Figure:
    held = state.hands[seat]
    top = state.upcard if state.phase == "offer" else (state.pile[-1] if state.pile else None)
    unseen = _unseen(state, seat, history)
    stock = draw_values(held, unseen)
    choices = []
    took_top = event["type"] == "draw" and event["source"] == "discard"
    if top is not None:
        pile = min(after_discards(held | {top}).values())
        choices.append(
            Choice(
                {"type": "draw", "seat": seat, "source": "discard", "card": top},
                f"taking {card_marker(top)}",
                -float(pile),
                f"{seat_marker(seat)} keeps {_deadwood_text(pile)}",
            )
        )
    words = "passing" if state.phase == "offer" else "drawing from the stock"
    stock_event = (
        {"type": "pass", "seat": seat} if state.phase == "offer" else {"type": "draw", "seat": seat, "source": "stock"}
    )
    choices.append(Choice(stock_event, words, -stock, f"{seat_marker(seat)} keeps {_deadwood_text(stock)}"))
    note = f"the stock's next card averaged over the {len(unseen)} cards {seat_marker(seat)} had not seen"
    if state.phase == "offer":
        note += "; a pass is valued as a draw from the stock"
    return _figure(SEEN, choices, 0 if took_top else len(choices) - 1, unit=DEADWOOD, note=note, searched=len(unseen))


def _layout_figure(state: GinState, event: Any, seat: int, after: GinState) -> Figure:
    knock = state.knock
    assert knock is not None
    kept = after.layout.count if after.layout is not None else deadwood_value(state.hands[seat])
    best = defence(knock.melds, state.hands[seat], knock.gin)
    played = Choice(
        dict(event), "laying out as declared", -float(kept), f"{seat_marker(seat)} keeps {_deadwood_text(kept)}"
    )
    choices = [played]
    if best < kept:
        choices.append(
            Choice(
                {"type": "lay_off", "seat": seat},
                "laying out in the best melding with every lay-off that fits",
                -float(best),
                f"{seat_marker(seat)} keeps {_deadwood_text(best)}",
            )
        )
    note = "every arrangement to which no meld can be added, each with every lay-off that fits onto the knock"
    return _figure(SEEN, choices, 0, unit=DEADWOOD, note=note, searched=len(choices))


def _points_text(net: int, seat: int, opponent: int) -> str:
    if net > 0:
        return f"{seat_marker(seat)} scores {net}"
    if net < 0:
        return f"{seat_marker(opponent)} scores {-net}"
    return "nobody scores"


def _hindsight(
    state: GinState, event: Any, seat: int, turns: Sequence[Turn[GinState]], index: int, result: Sequence[int]
) -> Figure | None:
    """Knocking now beside what the hand brought, and the discards that would have held gin."""
    opponent = state.opponent(seat)
    held = state.hands[seat]
    defender = state.hands[opponent]
    knocking = event["type"] == "knock"
    played_card = event["discard"] if knocking else event["card"]
    actual = _net(result, seat, opponent)
    words = "knocking as declared" if knocking else f"discarding {card_marker(played_card)}"
    outcome = _points_text(actual, seat, opponent)
    if not knocking:
        outcome = "as the hand went on, " + outcome
    choices = [Choice(dict(event), words, float(actual), outcome)]
    values = after_discards(held)
    searched = len(values)
    for card in sort_cards(held):
        if values[card] > KNOCK_LIMIT or (knocking and card == played_card):
            continue
        mine, theirs, d = knock_points(state, held - {card}, defender)
        net = mine - theirs
        how = "goes gin" if values[card] == 0 else f"knocks with {values[card]}"
        choices.append(
            Choice(
                {"type": "knock", "seat": seat, "discard": card},
                f"knocking and letting {card_marker(card)} go",
                float(net),
                f"{seat_marker(seat)} {how} against {seat_marker(opponent)}'s {d}: {_points_text(net, seat, opponent)}",
            )
        )
        searched += 1
    if not knocking:
        draws = _later_draws(turns, index, seat)
        if draws and gin_in(held | {c for c, _ in draws}) is not None:
            for card in sort_cards(held):
                if card == played_card:
                    continue
                found = _first_gin(held - {card}, draws)
                searched += 1
                if found is None:
                    continue
                drawn, then = found
                bonus = int(state.options.get("gin_bonus", 25))
                d = best_melding(then.hands[opponent]).count
                net = bonus if state.options.get("gin_scoring") == "flat" else bonus + d
                choices.append(
                    Choice(
                        {"type": "discard", "seat": seat, "card": card},
                        f"discarding {card_marker(card)}",
                        float(net),
                        f"{cards_marker(drawn)} drawn later would have made gin against {seat_marker(opponent)}'s "
                        f"{d}: {_points_text(net, seat, opponent)}",
                    )
                )
    if len(choices) == 1:
        return None
    note = "the opponent's hand as it was; the cards drawn later as the record has them"
    if knocking:
        note += "; what waiting would have brought is not in the record"
    return _figure(HINDSIGHT, choices, 0, note=note, searched=searched)


def _first_gin(kept: frozenset[str], draws: Sequence[tuple[str, GinState]]) -> tuple[list[str], GinState] | None:
    """The drawn cards in the gin held at the first later turn at which `kept` and the draws so far hold one,
    and the state then."""
    pool = set(kept)
    drawn: list[str] = []
    for card, after in draws:
        pool.add(card)
        drawn.append(card)
        if len(pool) >= 10:
            gin = gin_in(pool)
            if gin is not None:
                return [c for c in drawn if c in gin], after
    return None


REVIEWER: Reviewer[GinState] = Reviewer(review=review, units=UNITS, thresholds=THRESHOLDS, about=ABOUT)

__all__ = ["REVIEWER", "after_discards", "defence", "draw_values", "gin_in", "knock_points", "review"]
