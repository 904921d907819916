"""Settling stakes: every settled stake is two score lines, the player's and the banker's.

Both lines carry the same sentence, which names the hands compared, the seqs
they were decided at, who paid whom and how much; their points are opposite,
so every hand's points sum to zero across the table.
"""

from __future__ import annotations

from projections.rules import ScoreLine
from projections.seven_and_a_half._cards import BUST, PAIR, TWO_CARD, halves
from projections.seven_and_a_half._state import Hand, SevenAndAHalfState


def who(state: SevenAndAHalfState, seat: int, index: int) -> str:
    """`seat 2`, or `seat 2's hand 1` once the seat has split."""
    return f"seat {seat}" if len(state.hands[seat]) == 1 else f"seat {seat}'s hand {index}"


def describe(state: SevenAndAHalfState, hand: Hand) -> str:
    """A finished hand for people: `bust with 8`, `6½`, `a two-card 7½ (7S JD)`, ..."""
    points = halves(state.total(hand))
    if hand.status == BUST:
        return f"bust with {points}"
    kind = state.kind(hand)
    if kind == PAIR:
        return f"a pair of sevens ({' '.join(hand.cards)})"
    if kind == TWO_CARD:
        return f"a two-card 7½ ({' '.join(hand.cards)})"
    return points


def _pair(
    state: SevenAndAHalfState, seat: int, amount: int, rule: str, reason: str, events: tuple[int, ...]
) -> tuple[ScoreLine, ScoreLine]:
    """The player's line (+amount: the player wins it) and the banker's (the opposite)."""
    events = tuple(sorted({e for e in events if e > 0}))
    return (
        ScoreLine(state.hand, seat, amount, rule, reason, events),
        ScoreLine(state.hand, state.banker, -amount, rule, reason, events),
    )


def bust_lines(state: SevenAndAHalfState, seat: int, index: int, hand: Hand) -> tuple[ScoreLine, ScoreLine]:
    """A player's bust loses its stake at once, whatever the banker does afterwards."""
    b = state.banker
    reason = (
        f"{who(state, seat, index)} bust with {halves(state.total(hand))} at seq {hand.end_seq}: "
        f"seat {seat} pays {hand.stake} to the banker, seat {b}"
    )
    return _pair(state, seat, -hand.stake, "half.bust", reason, (hand.stake_seq, hand.end_seq))


def _verdict(state: SevenAndAHalfState, hand: Hand, bank: Hand) -> tuple[bool, int, str, str]:
    """(does the player win, stake multiple, rule id, note) for an unbust player hand."""
    kind, bank_kind = state.kind(hand), state.kind(bank)
    if bank.status == BUST:
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
    mine, theirs = state.total(hand), state.total(bank)
    if mine > theirs:
        return True, 1, "half.higher", ""
    return False, 1, "half.banker_wins", " (the banker wins ties)" if mine == theirs else ""


def settle_lines(state: SevenAndAHalfState, seat: int, index: int, hand: Hand) -> tuple[ScoreLine, ScoreLine]:
    """An unbust player hand against the banker's finished hand."""
    b = state.banker
    bank = state.hands[b][0]
    wins, multiple, rule, note = _verdict(state, hand, bank)
    amount = hand.stake * multiple
    compared = (
        f"{who(state, seat, index)}: {describe(state, hand)} at seq {hand.end_seq} "
        f"against the banker's {describe(state, bank)} at seq {bank.end_seq}"
    )
    if wins:
        reason = f"{compared}: the banker, seat {b}, pays {amount} to seat {seat}{note}"
    else:
        reason = f"{compared}: seat {seat} pays {amount} to the banker, seat {b}{note}"
    return _pair(state, seat, amount if wins else -amount, rule, reason, (hand.stake_seq, hand.end_seq, bank.end_seq))
