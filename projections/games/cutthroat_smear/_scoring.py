"""Tricks and the points of a Smear hand: High, Low, Jack, Game, and the bid.

Kept apart from the fold so that the counting, which a tournament director
checks line by line, reads on its own. Every function here is pure over the
played tricks. Reasons name seats and cards with `projections.core.phrases`
markers, rendered with the players' names, and are written when first read
(`deferred_line`): a fold scores every hand it passes and reads none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from projections.core.fastreplace import fast_init
from projections.core.phrases import card as card_marker
from projections.core.phrases import seat as seat_marker
from projections.core.rules import HandScore, ScoreLine, hand_score
from projections.core.scores import deferred_line

#: Rank order within a suit, low to high: A is high, 2 is low.
STRENGTH = {r: i for i, r in enumerate("23456789TJQKA")}
#: The *game* value of a card: what the Game point counts.
GAME_VALUE = {"A": 4, "K": 3, "Q": 2, "J": 1, "T": 10}
#: A bidder who makes the bid with a new total of this much or more wins.
TARGET = 11
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}

#: One card on the table: (seat, card, seq of its `play`).
Play = tuple[int, str, int]


@fast_init
@dataclass(frozen=True, slots=True)
class Trick:
    """A finished trick: its number in the hand (1-6), its plays in order, its winner."""

    number: int
    plays: tuple[Play, ...]
    winner: int

    @property
    def seq(self) -> int:
        """The seq of the play that completed the trick."""
        return self.plays[-1][2]

    @property
    def cards(self) -> tuple[str, ...]:
        return tuple(card for _, card, _ in self.plays)


def trick_winner(plays: Sequence[Play], trump: str) -> int:
    """The seat of the highest trump, or if none, of the highest card of the suit led.

    One pass, no key functions (issue 15: this runs at the end of every trick). A card's suit is
    `card[1]` and its rank `card[0]` (`events.cards`); the first of equal strengths wins, as `max` does.
    """
    led = plays[0][1][1]
    best_seat = -1
    best = -1
    trumped = False
    for seat, card, _ in plays:
        s = card[1]
        if s == trump:
            strength = STRENGTH[card[0]]
            if not trumped or strength > best:
                best_seat, best, trumped = seat, strength, True
        elif not trumped and s == led:
            strength = STRENGTH[card[0]]
            if strength > best:
                best_seat, best = seat, strength
    return best_seat


def game_value(cards: Sequence[str]) -> int:
    get = GAME_VALUE.get
    return sum([get(c[0], 0) for c in cards])


@fast_init
@dataclass(frozen=True, slots=True)
class Points:
    """Who took High, Low, Jack and Game (so far, or at the end of the hand)."""

    high: Play | None
    low: Play | None
    #: (the jack's play, the trick that holds it) when the jack of trump was taken
    jack: tuple[Play, Trick] | None
    game: int | None
    game_counts: tuple[int, ...]
    #: the highest trump played, High or not (under `high_point: "ace_only"` only an ace of trump is High)
    top: Play | None = None

    def won(self, seats: int) -> tuple[int, ...]:
        """The points each seat took, before the bid is settled."""
        out = [0] * seats
        for play in (self.high, self.low):
            if play is not None:
                out[play[0]] += 1
        if self.jack is not None:
            out[self.jack[1].winner] += 1
        if self.game is not None:
            out[self.game] += 1
        return tuple(out)

    def names(self, seat: int) -> list[str]:
        """The names of the points `seat` took, in table order."""
        out = []
        if self.high is not None and self.high[0] == seat:
            out.append("High")
        if self.low is not None and self.low[0] == seat:
            out.append("Low")
        if self.jack is not None and self.jack[1].winner == seat:
            out.append("Jack")
        if self.game == seat:
            out.append("Game")
        return out


def count_points(
    seats: int, tricks: Sequence[Trick], trump: str | None, loose: Sequence[Play] = (), *, ace_only: bool = False
) -> Points:
    """High, Low, Jack and Game over the finished `tricks`.

    `loose` are the plays of a trick still on the table: they count for High
    and Low (they have been played) but for nobody's Jack or Game yet.
    `ace_only` is the house rule `high_point: "ace_only"`: High only for a
    played ace of trump (no ace played, no High point).
    """
    # one pass over the plays (issue 15): High and Low as `max`/`min` would pick them (the first of
    # equal strengths), the last play of the jack of trump, the game value each seat won
    high: Play | None = None
    low: Play | None = None
    high_s = low_s = 0
    jack = None
    jack_card = f"J{trump}"
    get = GAME_VALUE.get
    counts = [0] * seats
    for t in tricks:
        value = 0
        for p in t.plays:
            c = p[1]
            value += get(c[0], 0)
            if trump is not None and c[1] == trump:
                strength = STRENGTH[c[0]]
                if high is None or strength > high_s:
                    high, high_s = p, strength
                if low is None or strength < low_s:
                    low, low_s = p, strength
            if c == jack_card:
                jack = (p, t)
        counts[t.winner] += value
    if trump is not None:
        for p in loose:
            c = p[1]
            if c[1] == trump:
                strength = STRENGTH[c[0]]
                if high is None or strength > high_s:
                    high, high_s = p, strength
                if low is None or strength < low_s:
                    low, low_s = p, strength
    best = max(counts)
    leaders = [s for s in range(seats) if counts[s] == best]
    game = leaders[0] if len(leaders) == 1 else None
    top = high
    if ace_only and high is not None and high[1][0] != "A":
        high = None
    return Points(high, low, jack, game, tuple(counts), top)


@fast_init
@dataclass(frozen=True, slots=True)
class HandResult:
    """A finished hand: its score lines and the facts a reader needs."""

    score: HandScore
    points: Points
    won: tuple[int, ...]
    made: bool
    #: the bidder made the bid and so wins the game (End of the game)
    wins: bool


def score_hand(
    hand: int,
    seats: int,
    tricks: Sequence[Trick],
    trump: str,
    bid: tuple[int, int, int],
    total_before: int,
    *,
    ace_only: bool = False,
) -> HandResult:
    """The lines of a played-out hand: one per point, then the bidder's made/failed line.

    `bid` is (bidder, amount, seq of the bid); `total_before` the bidder's
    total before this hand, which decides whether a made bid ends the game.
    `ace_only`: the house rule `high_point: "ace_only"` (`count_points`); with
    no ace of trump played, a `smear.high` line at 0 says nobody took High.
    """
    bidder, amount, bid_seq = bid
    pts = count_points(seats, tricks, trump, ace_only=ace_only)
    won = pts.won(seats)
    made = won[bidder] >= amount
    wins = False
    lines: list[ScoreLine] = []

    def credit(who: int, rule: str, events: tuple[int, ...], render: Callable[..., str], *args: object) -> None:
        if who == bidder and not made:
            lines.append(deferred_line(hand, who, 0, rule, _not_counted, who, render, *args, events=events))
        else:
            lines.append(deferred_line(hand, who, 1, rule, render, *args, events=events))

    trump_name = SUIT_NAMES[trump]
    assert pts.top is not None and pts.low is not None, "the first lead is a trump"
    if pts.high is not None:
        hs, hc, hq = pts.high
        credit(hs, "smear.high", (hq,), _high_reason, hs, hc, hq, trump_name)
    else:
        hs, hc, hq = pts.top
        lines.append(deferred_line(hand, hs, 0, "smear.high", _no_high_reason, hs, hc, hq, trump_name, events=(hq,)))
    ls, lc, lq = pts.low
    credit(ls, "smear.low", (lq,), _low_reason, ls, lc, lq, pts.low == pts.top and pts.high is not None)
    if pts.jack is not None:
        (js, jc, jq), trick = pts.jack
        credit(trick.winner, "smear.jack", (jq, trick.seq), _jack_reason, js, jc, jq, trick)
    if pts.game is not None:
        g = pts.game
        events = tuple([q for t in tricks if t.winner == g for _, c, q in t.plays if GAME_VALUE.get(c[0], 0)])
        credit(g, "smear.game", events, _game_reason, g, pts.game_counts)
    else:
        best = max(pts.game_counts)
        for s in range(seats):
            if pts.game_counts[s] == best:
                lines.append(deferred_line(hand, s, 0, "smear.game", _game_tie_reason, pts.game_counts))
    if made:
        after = total_before + won[bidder]
        ending = "target" if after >= TARGET else "four" if amount == 4 and total_before >= 1 else ""
        wins = bool(ending)
        lines.append(
            deferred_line(
                hand,
                bidder,
                0,
                "smear.bid_made",
                _made_reason,
                bid,
                pts,
                won[bidder],
                total_before,
                ending,
                events=(bid_seq,),
            )
        )
    else:
        lines.append(
            deferred_line(
                hand, bidder, -amount, "smear.bid_failed", _failed_reason, bid, pts, won[bidder], events=(bid_seq,)
            )
        )
    return HandResult(hand_score(hand, seats, lines), pts, won, made, wins)


# The reasons of a hand's lines, written when first read (`deferred_line`): a fold scores every hand and
# reads none of them (issue 34).


def _not_counted(who: int, render: Callable[..., str], *args: object) -> str:
    """A point the bidder took in a hand whose bid failed: its reason, and why it does not count."""
    return f"{render(*args)}; not counted: {seat_marker(who)}'s bid failed"


def _high_reason(s: int, c: str, q: int, trump_name: str) -> str:
    return f"High: {seat_marker(s)} played {card_marker(c)} at event {q}, the highest trump ({trump_name}) played"


def _no_high_reason(s: int, c: str, q: int, trump_name: str) -> str:
    return (
        f"High: no ace of trump ({trump_name}) was played; the highest trump was {card_marker(c)}, played "
        f"by {seat_marker(s)} at event {q}: by the house rule high_point ace_only, nobody scores High"
    )


def _low_reason(s: int, c: str, q: int, also_high: bool) -> str:
    only = " (the only trump played: both High and Low)" if also_high else ""
    return f"Low: {seat_marker(s)} played {card_marker(c)} at event {q}, the lowest trump played{only}"


def _jack_reason(s: int, c: str, q: int, trick: Trick) -> str:
    return (
        f"Jack: {seat_marker(s)} played {card_marker(c)} at event {q}; trick {trick.number}, which holds it, "
        f"was won by {seat_marker(trick.winner)} at event {trick.seq}"
    )


def _game_counts(counts: Sequence[int]) -> str:
    return ", ".join(f"{seat_marker(s)}: {v}" for s, v in enumerate(counts))


def _game_reason(g: int, counts: Sequence[int]) -> str:
    return f"Game: {seat_marker(g)} won the most game value in tricks, {counts[g]} ({_game_counts(counts)})"


def _game_tie_reason(counts: Sequence[int]) -> str:
    best = max(counts)
    tied = [s for s, v in enumerate(counts) if v == best]
    why = (
        "nobody won any game value"
        if best == 0
        else f"{' and '.join(seat_marker(s) for s in tied)} tie with {best} game value"
    )
    return f"Game: {why} ({_game_counts(counts)}): a tie, nobody scores Game"


def _made_reason(bid: tuple[int, int, int], pts: Points, won: int, total_before: int, ending: str) -> str:
    """The bidder made the bid; `ending`: "target" (the new total reaches it), "four" (a made bid of 4
    after scoring before) or "" (the game goes on)."""
    bidder, amount, bid_seq = bid
    taken = ", ".join(pts.names(bidder)) or "none"
    reason = (
        f"{seat_marker(bidder)} bid {amount} at event {bid_seq} and won {_points(won)} ({taken}): "
        f"the bid is made, all {won} count"
    )
    if ending == "target":
        reason += f"; the new total is {total_before + won}, {TARGET} or more: {seat_marker(bidder)} wins the game"
    elif ending == "four":
        reason += (
            f"; a made bid of 4 with a total of {total_before} before the hand: {seat_marker(bidder)} wins the game"
        )
    return reason


def _failed_reason(bid: tuple[int, int, int], pts: Points, won: int) -> str:
    bidder, amount, bid_seq = bid
    taken = ", ".join(pts.names(bidder)) or "none"
    return (
        f"{seat_marker(bidder)} bid {amount} at event {bid_seq} but won only {_points(won)} ({taken}): "
        f"the bid failed, minus {amount}; the points won do not count"
    )


def _points(n: int) -> str:
    return "1 point" if n == 1 else f"{n} points"
