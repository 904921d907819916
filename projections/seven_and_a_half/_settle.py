"""Settling stakes: every settled stake is two score lines, the player's and the banker's.

Both lines carry the same sentence, which names the hands compared, the seqs
they were decided at, who paid whom and how much; their points are opposite,
so every hand's points sum to zero across the table.

Settlement runs once per hand for every player hand (issue 15): the banker's
side of the comparison (its kind, its description) is worked out once per
settlement, not once per stake, and the sentence is one f-string.
"""

from __future__ import annotations

from projections.rules import ScoreLine
from projections.seven_and_a_half._cards import (
    BUST,
    PAIR,
    PAIR_OF_SEVENS,
    PLAIN,
    TWO_CARD,
    halves,
    is_two_card,
    total,
)
from projections.seven_and_a_half._state import Hand, SevenAndAHalfState, positional_maker

#: `ScoreLine(hand, seat, points, rule, reason, events)`, made directly
_line = positional_maker(ScoreLine)

#: `halves(n)` for the totals a hand can reach (a bust is at most 7 + 7 in half points)
_HALVES: dict[int, str] = {n: halves(n) for n in range(64)}


def half_text(points: int) -> str:
    """`halves(points)`, looked up for the usual totals."""
    found = _HALVES.get(points)
    return halves(points) if found is None else found


def who(state: SevenAndAHalfState, seat: int, index: int) -> str:
    """`seat 2`, or `seat 2's hand 1` once the seat has split."""
    return f"seat {seat}" if len(state.hands[seat]) == 1 else f"seat {seat}'s hand {index}"


def describe(state: SevenAndAHalfState, hand: Hand) -> str:
    """A finished hand for people: `bust with 8`, `6½`, `a two-card 7½ (7S JD)`, ..."""
    if hand.status == BUST:
        return f"bust with {half_text(state.total(hand))}"
    kind = state.kind(hand)
    if kind == PAIR:
        return f"a pair of sevens ({' '.join(hand.cards)})"
    if kind == TWO_CARD:
        return f"a two-card 7½ ({' '.join(hand.cards)})"
    return half_text(state.total(hand))


def _seqs(events: tuple[int, ...]) -> tuple[int, ...]:
    """The positive seqs, each once, in order."""
    return tuple(sorted({e for e in events if e > 0}))


def _pair(
    state: SevenAndAHalfState, seat: int, amount: int, rule: str, reason: str, events: tuple[int, ...]
) -> tuple[ScoreLine, ScoreLine]:
    """The player's line (+amount: the player wins it) and the banker's (the opposite); `events` as `_seqs` gives."""
    return (
        _line(state.hand, seat, amount, rule, reason, events),
        _line(state.hand, state.banker, -amount, rule, reason, events),
    )


def bust_lines(state: SevenAndAHalfState, seat: int, index: int, hand: Hand) -> tuple[ScoreLine, ScoreLine]:
    """A player's bust loses its stake at once, whatever the banker does afterwards.

    `state` may be the state before the bust: only its hand number, banker and the seat's number of
    hands are read, and the bust changes none of them.
    """
    b = state.banker
    reason = (
        f"{who(state, seat, index)} bust with {half_text(state.total(hand))} at seq {hand.end_seq}: "
        f"seat {seat} pays {hand.stake} to the banker, seat {b}"
    )
    stake_seq, end_seq = hand.stake_seq, hand.end_seq
    events = (stake_seq, end_seq) if 0 < stake_seq < end_seq else _seqs((stake_seq, end_seq))
    return _pair(state, seat, -hand.stake, "half.bust", reason, events)


def _verdict(kind: str, bank_status: str, bank_kind: str, mine: int, theirs: int) -> tuple[bool, int, str, str]:
    """(does the player win, stake multiple, rule id, note) for an unbust player hand of `kind` and
    total `mine` against the banker's hand (`bank_status`, `bank_kind`, total `theirs`)."""
    if bank_status == BUST:
        if kind == PAIR:
            return True, 3, "half.pair_of_sevens", " (a pair of sevens is paid triple)"
        if kind == TWO_CARD:
            return True, 2, "half.two_card_bonus", " (a two-card 7½ is paid double)"
        return True, 1, "half.banker_bust", ""
    if bank_kind == PAIR:
        return False, 1, "half.banker_pair_of_sevens", " (the banker's pair of sevens wins every stake)"
    if kind == PAIR:
        return True, 3, "half.pair_of_sevens", " (a pair of sevens is paid triple)"
    if bank_kind == TWO_CARD:
        note = " (two two-card 7½s tie: the banker wins)" if kind == TWO_CARD else ""
        return False, 1, "half.banker_two_card", note
    if kind == TWO_CARD:
        return True, 2, "half.two_card_bonus", " (a two-card 7½ is paid double)"
    if mine > theirs:
        return True, 1, "half.higher", ""
    return False, 1, "half.banker_wins", " (the banker wins ties)" if mine == theirs else ""


class Settlement:
    """The banker's side of one settlement, worked out once: its hand, kind, total and description.

    `hands`: the table's hands after the event that settles (`state.hands` by default); only the
    hand number, banker and options are read from `state`.
    """

    __slots__ = ("against", "b", "bank", "bank_kind", "bank_total", "bonus", "hands", "state", "wild")

    def __init__(self, state: SevenAndAHalfState, hands: tuple[tuple[Hand, ...], ...] | None = None) -> None:
        self.state = state
        self.b = state.banker
        self.wild = state.wild
        self.bonus = bool(state.options.get("two_card_bonus"))
        hands = self.hands = state.hands if hands is None else hands
        bank = self.bank = hands[state.banker][0]
        self.bank_kind = state.kind(bank)
        self.bank_total = state.total(bank)
        self.against = f" against the banker's {describe(state, bank)} at seq {bank.end_seq}: "

    def lines(self, seat: int, index: int, hand: Hand) -> tuple[ScoreLine, ScoreLine]:
        """An unbust player hand against the banker's finished hand."""
        state, bank, b = self.state, self.bank, self.b
        cards = hand.cards
        if hand.status == PAIR_OF_SEVENS:  # as `state.kind`
            kind = PAIR
        elif self.bonus and is_two_card(cards):
            kind = TWO_CARD
        else:
            kind = PLAIN
        mine = total(cards, self.wild)
        if kind == PAIR:
            text = f"a pair of sevens ({' '.join(cards)})"
        elif kind == TWO_CARD:
            text = f"a two-card 7½ ({' '.join(cards)})"
        else:
            text = half_text(mine)
        wins, multiple, rule, note = _verdict(kind, bank.status, self.bank_kind, mine, self.bank_total)
        amount = hand.stake * multiple
        name = f"seat {seat}" if len(self.hands[seat]) == 1 else f"seat {seat}'s hand {index}"
        if wins:
            reason = (
                f"{name}: {text} at seq {hand.end_seq}{self.against}"
                f"the banker, seat {b}, pays {amount} to seat {seat}{note}"
            )
        else:
            reason = (
                f"{name}: {text} at seq {hand.end_seq}{self.against}"
                f"seat {seat} pays {amount} to the banker, seat {b}{note}"
            )
            amount = -amount
        stake_seq, end_seq, bank_seq = hand.stake_seq, hand.end_seq, bank.end_seq
        if 0 < stake_seq < end_seq < bank_seq:
            events: tuple[int, ...] = (stake_seq, end_seq, bank_seq)
        else:
            events = _seqs((stake_seq, end_seq, bank_seq))
        number = state.hand
        return (
            _line(number, seat, amount, rule, reason, events),
            _line(number, b, -amount, rule, reason, events),
        )


def settle_lines(state: SevenAndAHalfState, seat: int, index: int, hand: Hand) -> tuple[ScoreLine, ScoreLine]:
    """An unbust player hand against the banker's finished hand."""
    return Settlement(state).lines(seat, index, hand)
