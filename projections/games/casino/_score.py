"""Scoring a Casino round: one line per item won, naming the captures that won it.

Reasons name seats and cards with `projections.core.phrases` markers, rendered with the players' names.
A fold scores every round it passes, and reads none of the reasons: each line's text is written when it
is first read (`deferred_line`, by the `_..._reason` functions here), from the few values it names.
"""

from __future__ import annotations

from collections.abc import Sequence

from projections.core.phrases import card, seat
from projections.core.rules import ScoreLine
from projections.core.scores import deferred_line
from projections.games.casino._state import CasinoState

BIG_CASINO = "TD"
LITTLE_CASINO = "2S"
ACES = ("AC", "AD", "AH", "AS")


def sweeps_of(state: CasinoState) -> list[tuple[int, int]]:
    """The captures `(seat, seq)` that cleared the table, but the round's last capture."""
    last = state.last_capture[1] if state.last_capture else None
    return [(s, q) for s, q in state.cleared if q != last]


def round_lines(state: CasinoState) -> list[ScoreLine]:
    """The lines of the round in `state` from what each seat has captured so far.

    At the end of a round this is the round's score; during one, what it
    would score if it ended now (the view's `hand_points`). One pass over the
    piles counts the cards and spades and finds the scoring cards (a fold
    scores every round: issue 15).
    """
    hand, n = state.hand, state.seats
    lines: list[ScoreLine] = []
    won = state.won
    counts = [len(w) for w in won]
    spades = [0] * n
    #: who captured each scoring card, and at which seq: the first pile holding it
    taken: dict[str, tuple[int, int]] = {}
    for s, pile in enumerate(won):
        count = 0
        for c, q in pile:
            if c[1] == "S":
                count += 1
            if c in SCORING_CARDS and c not in taken:
                taken[c] = (s, q)
        spades[s] = count
    for rule, points, item, tally in (
        ("casino.most_cards", 3, "cards", counts),
        ("casino.most_spades", 1, "spades", spades),
    ):
        best = max(tally)
        if best == 0 or tally.count(best) > 1:
            continue
        s = tally.index(best)
        if item == "cards":
            seqs = sorted({q for _, q in won[s]})
        else:
            seqs = sorted({q for c, q in won[s] if c[1] == "S"})
        events = tuple(seqs)
        lines.append(
            deferred_line(
                hand,
                s,
                points,
                rule,
                _most_reason,
                item,
                points,
                s,
                tuple(tally),
                events,
                state.rest_seat,
                state.rest,
                events=events,
            )
        )
    if taken:
        for code, rule, points, name in _ITEMS:
            found = taken.get(code)
            if found is None:
                continue
            s, q = found
            from_rest = state.rest_seat == s and code in state.rest
            lines.append(
                deferred_line(hand, s, points, rule, _item_reason, name, points, s, code, q, from_rest, events=(q,))
            )
    if state.options.get("sweeps"):
        for s, q in sweeps_of(state):
            lines.append(deferred_line(hand, s, 1, "casino.sweep", _sweep_reason, s, q, events=(q,)))
    return lines


#: the cards that score by themselves, in the order of their lines
_ITEMS: tuple[tuple[str, str, int, str], ...] = (
    (BIG_CASINO, "casino.big_casino", 2, "big casino"),
    (LITTLE_CASINO, "casino.little_casino", 1, "little casino"),
    *((ace, "casino.ace", 1, "ace") for ace in ACES),
)
SCORING_CARDS = frozenset(card for card, *_ in _ITEMS)


def _most_reason(
    item: str,
    points: int,
    s: int,
    tally: tuple[int, ...],
    seqs: tuple[int, ...],
    rest_seat: int | None,
    rest: tuple[str, ...],
) -> str:
    """The reason of a most cards or most spades line: `s` captured the most."""
    others = ", ".join(f"{seat(o)} {tally[o]}" for o in range(len(tally)) if o != s)
    return (
        f"most {item}: {seat(s)} captured {tally[s]} {item} ({others}) in the captures at seq "
        f"{_seqs(seqs)}{_rest_note(rest_seat, rest, s, item)}: {points} point{'s' if points > 1 else ''}"
    )


def _item_reason(name: str, points: int, s: int, code: str, q: int, from_rest: bool) -> str:
    """The reason of a scoring card's line (big or little casino, an ace): who took it, and how."""
    how = (
        f"took {card(code)} with the cards left on the table, after their last capture at event {q}"
        if from_rest
        else f"captured {card(code)} at event {q}"
    )
    return f"{name}: {seat(s)} {how}: {points} point{'s' if points > 1 else ''}"


def _sweep_reason(s: int, q: int) -> str:
    return f"sweep: {seat(s)}'s capture at event {q} left the table empty: 1 point"


def _rest_note(rest_seat: int | None, rest: tuple[str, ...], seat: int, item: str) -> str:
    """How many of the counted cards came from the table's rest at the end of the round."""
    if rest_seat != seat:
        return ""
    n = sum(1 for c in rest if item == "cards" or c[1] == "S")
    if not n:
        return ""
    what = ("card" if item == "cards" else "spade") + ("s" if n > 1 else "")
    return f", {n} {what} of them left on the table and taken after the last capture"


def _seqs(seqs: Sequence[int]) -> str:
    return ", ".join(str(q) for q in seqs)
