"""Scoring a Casino round: one line per item won, naming the captures that won it.

Reasons name seats and cards with `projections.core.phrases` markers, rendered with the players' names.
"""

from __future__ import annotations

from collections.abc import Sequence

from projections.core.phrases import card, seat
from projections.core.rules import ScoreLine
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
        others = ", ".join(f"{seat(o)} {tally[o]}" for o in range(n) if o != s)
        reason = (
            f"most {item}: {seat(s)} captured {best} {item} ({others}) in the captures at seq "
            f"{_seqs(seqs)}{_rest_note(state, s, item)}: {points} point{'s' if points > 1 else ''}"
        )
        lines.append(ScoreLine(hand, s, points, rule, reason, tuple(seqs)))
    if taken:
        for code, rule, points, name in _ITEMS:
            found = taken.get(code)
            if found is None:
                continue
            s, q = found
            how = (
                f"took {card(code)} with the cards left on the table, after their last capture at event {q}"
                if state.rest_seat == s and code in state.rest
                else f"captured {card(code)} at event {q}"
            )
            reason = f"{name}: {seat(s)} {how}: {points} point{'s' if points > 1 else ''}"
            lines.append(ScoreLine(hand, s, points, rule, reason, (q,)))
    if state.options.get("sweeps"):
        for s, q in sweeps_of(state):
            reason = f"sweep: {seat(s)}'s capture at event {q} left the table empty: 1 point"
            lines.append(ScoreLine(hand, s, 1, "casino.sweep", reason, (q,)))
    return lines


#: the cards that score by themselves, in the order of their lines
_ITEMS: tuple[tuple[str, str, int, str], ...] = (
    (BIG_CASINO, "casino.big_casino", 2, "big casino"),
    (LITTLE_CASINO, "casino.little_casino", 1, "little casino"),
    *((ace, "casino.ace", 1, "ace") for ace in ACES),
)
SCORING_CARDS = frozenset(card for card, *_ in _ITEMS)


def _rest_note(state: CasinoState, seat: int, item: str) -> str:
    """How many of the counted cards came from the table's rest at the end of the round."""
    if state.rest_seat != seat:
        return ""
    n = sum(1 for c in state.rest if item == "cards" or c[1] == "S")
    if not n:
        return ""
    what = ("card" if item == "cards" else "spade") + ("s" if n > 1 else "")
    return f", {n} {what} of them left on the table and taken after the last capture"


def _seqs(seqs: Sequence[int]) -> str:
    return ", ".join(str(q) for q in seqs)
