"""Settling stakes: every settled stake is two score lines, the player's and the banker's.

Both lines carry the same sentence, which names the hands compared, the seqs
they were decided at, who paid whom and how much; their points are opposite,
so every hand's points sum to zero across the table.

The sentences are written with the markers of `projections.core.phrases`: seats
`{seat:N}` (shown with the players' names), cards, totals in half points
`{half:N}` (shown `6½`) and amounts `{chips:N}` (shown `5 chips`).

Settlement runs once per hand for every player hand (issue 15): the banker's
side of the comparison is worked out once per settlement, not once per stake,
and the points are summed as the lines are made. A fold settles every hand it
passes and reads none of the sentences: each is written when first read
(`deferred_reason`, by the `_..._reason` functions here, from the hands it
names), and a stake's two lines share it (issue 34).
"""

from __future__ import annotations

from projections.core.phrases import cards, chips, half
from projections.core.phrases import seat as player
from projections.core.rules import ScoreLine
from projections.core.scores import deferred_reason
from projections.games.seven_and_a_half._cards import (
    BUST,
    PAIR,
    PAIR_OF_SEVENS,
    PLAIN,
    SEVEN_AND_A_HALF,
    TWO_CARD,
    is_two_card,
    total,
)
from projections.games.seven_and_a_half._state import ORDERS, Hand, SevenAndAHalfState, positional_maker

#: `ScoreLine(hand, seat, points, rule, reason, events)`, made directly
_line = positional_maker(ScoreLine)

#: `half(n)`, the marker of a total in half points, for the totals a hand can reach (a bust is at most
#: 7 + 7 in half points)
_HALVES: dict[int, str] = {n: half(n) for n in range(64)}


def half_text(points: int) -> str:
    """`half(points)` (shown `6½`), looked up for the usual totals."""
    found = _HALVES.get(points)
    return half(points) if found is None else found


def who(state: SevenAndAHalfState, seat: int, index: int) -> str:
    """`{seat:2}`, or `{seat:2}'s hand 1` once the seat has split (the event's `hand` numbering, from 0)."""
    return _who(seat, index, len(state.hands[seat]))


def _who(seat: int, index: int, hands: int) -> str:
    """`who` of a seat that holds `hands` hands."""
    return player(seat) if hands == 1 else f"{player(seat)}'s hand {index}"


def describe(state: SevenAndAHalfState, hand: Hand) -> str:
    """A finished hand for people: `bust with {half:16}`, `{half:13}`, `a two-card 7½ ({cards:7S JD})`, ..."""
    kind = PLAIN if hand.status == BUST else state.kind(hand)  # a bust's kind is not read (`_described`)
    return _described(hand, kind, state.total(hand))


def _described(hand: Hand, kind: str, points: int) -> str:
    """`describe` of a hand whose kind (`SevenAndAHalfState.kind`, unread for a bust) and total are known."""
    if hand.status == BUST:
        return f"bust with {half_text(points)}"
    if kind == PAIR:
        return f"a pair of sevens ({cards(hand.cards)})"
    if kind == TWO_CARD:
        return f"a two-card 7½ ({cards(hand.cards)})"
    return half_text(points)


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
    reason = deferred_reason(_bust_reason, seat, index, len(state.hands[seat]), hand, state.total(hand), b)
    stake_seq, end_seq = hand.stake_seq, hand.end_seq
    events = (stake_seq, end_seq) if 0 < stake_seq < end_seq else _seqs((stake_seq, end_seq))
    return _pair(state, seat, -hand.stake, "half.bust", reason, events)


def _bust_reason(seat: int, index: int, hands: int, hand: Hand, points: int, banker: int) -> str:
    return (
        f"{_who(seat, index, hands)} bust with {half_text(points)} at event {hand.end_seq}: "
        f"{player(seat)} pays {chips(hand.stake)} to the banker, {player(banker)}"
    )


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


def settle(
    state: SevenAndAHalfState, hands: tuple[tuple[Hand, ...], ...], lines: list[ScoreLine], points: list[int]
) -> tuple[int | None, Hand | None, int]:
    """Settle every unbust player hand, in playing order, against the banker's finished hand.

    `hands`: the table's hands after the event that settles; only the hand number, banker, seats and
    options are read from `state`. The two lines of each settled stake are appended to `lines` and
    added to `points` (per seat). Returns the first player in playing order whose hand finished at 7½
    or with a pair of sevens (who takes the bank; with the house rule `bank_needs_win` a 7½ only when it
    won, and a 7½ that lost gets a `half.bank_needs_win` line at 0 saying why it did not) or None, the
    banker's hand (None when every player hand bust: the banker did not play) and its total. The banker's
    side is worked out once, at the first unbust hand.
    """
    b = state.banker
    number = state.hand
    options = state.options
    wild = options.get("wild_card")
    bonus = bool(options.get("two_card_bonus"))
    needs_win = bool(options.get("bank_needs_win"))
    taker: int | None = None
    bank: Hand | None = None
    bank_total = bank_seq = 0
    bank_status = bank_kind = ""
    for seat in ORDERS[state.seats][b]:
        seat_hands = hands[seat]
        for index, hand in enumerate(seat_hands):
            status = hand.status
            if status == BUST:
                continue
            if bank is None:
                bank = hands[b][0]
                bank_status, bank_seq = bank.status, bank.end_seq
                bank_kind = state.kind(bank)
                bank_total = total(bank.cards, wild)
            held = hand.cards
            mine = total(held, wild)
            if status == PAIR_OF_SEVENS:  # as `state.kind`
                kind = PAIR
            elif bonus and is_two_card(held):
                kind = TWO_CARD
            else:
                kind = PLAIN
            if kind == PLAIN and bank_kind == PLAIN and bank_status != BUST:  # `_verdict`'s last case
                wins = mine > bank_total
                multiple, note = 1, ""
                if wins:
                    rule = "half.higher"
                else:
                    rule = "half.banker_wins"
                    if mine == bank_total:
                        note = " (the banker wins ties)"
            else:
                wins, multiple, rule, note = _verdict(kind, bank_status, bank_kind, mine, bank_total)
            amount = hand.stake * multiple
            reason = deferred_reason(
                _stake_reason, seat, index, len(seat_hands), hand, kind, mine, bank, bank_kind, bank_total, b, amount,
                wins, note,
            )  # fmt: skip
            if not wins:
                amount = -amount
            stake_seq, end_seq = hand.stake_seq, hand.end_seq
            if 0 < stake_seq < end_seq < bank_seq:
                events: tuple[int, ...] = (stake_seq, end_seq, bank_seq)
            else:
                events = _seqs((stake_seq, end_seq, bank_seq))
            lines.append(_line(number, seat, amount, rule, reason, events))
            lines.append(_line(number, b, -amount, rule, reason, events))
            points[seat] += amount
            points[b] -= amount
            if status == SEVEN_AND_A_HALF and not wins and needs_win:
                needs = deferred_reason(_bank_needs_win_reason, seat, index, len(seat_hands), hand.end_seq)
                lines.append(_line(number, seat, 0, "half.bank_needs_win", needs, events))
            elif taker is None and status in (SEVEN_AND_A_HALF, PAIR_OF_SEVENS):
                taker = seat
    return taker, bank, bank_total


def _stake_reason(
    seat: int,
    index: int,
    hands: int,
    hand: Hand,
    kind: str,
    mine: int,
    bank: Hand,
    bank_kind: str,
    bank_total: int,
    banker: int,
    amount: int,
    wins: bool,
    note: str,
) -> str:
    """A settled stake's sentence: the hands compared, at which events, who pays whom how much."""
    mark = player(seat)
    head = (
        f"{_who(seat, index, hands)}: {_described(hand, kind, mine)} at event {hand.end_seq} against the banker's "
        f"{_described(bank, bank_kind, bank_total)} at event {bank.end_seq}: "
    )
    if wins:
        return f"{head}the banker, {player(banker)}, pays {chips(amount)} to {mark}{note}"
    return f"{head}{mark} pays {chips(amount)} to the banker, {player(banker)}{note}"


def _bank_needs_win_reason(seat: int, index: int, hands: int, end_seq: int) -> str:
    return (
        f"{_who(seat, index, hands)}: {half(15)} at event {end_seq} did not win, so it does not take the bank "
        "(house rule bank_needs_win: only a 7½ that wins takes the bank)"
    )
