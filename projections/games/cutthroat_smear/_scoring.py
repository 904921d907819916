"""Tricks and the points of a Smear hand: High, Low, Jack, Game, and the bid.

Kept apart from the fold so that the counting, which a tournament director
checks line by line, reads on its own. Every function here is pure over the
played tricks. Reasons name seats and cards with `projections.core.phrases`
markers, rendered with the players' names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from projections.core.fastreplace import fast_init
from projections.core.phrases import card as card_marker
from projections.core.phrases import seat as seat_marker
from projections.core.rules import HandScore, ScoreLine, hand_score

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

    def credit(who: int, rule: str, reason: str, events: tuple[int, ...]) -> None:
        if who == bidder and not made:
            lines.append(
                ScoreLine(hand, who, 0, rule, f"{reason}; not counted: {seat_marker(who)}'s bid failed", events)
            )
        else:
            lines.append(ScoreLine(hand, who, 1, rule, reason, events))

    trump_name = SUIT_NAMES[trump]
    assert pts.top is not None and pts.low is not None, "the first lead is a trump"
    if pts.high is not None:
        hs, hc, hq = pts.high
        credit(
            hs,
            "smear.high",
            f"High: {seat_marker(hs)} played {card_marker(hc)} at event {hq}, the highest trump ({trump_name}) played",
            (hq,),
        )
    else:
        hs, hc, hq = pts.top
        lines.append(
            ScoreLine(
                hand,
                hs,
                0,
                "smear.high",
                f"High: no ace of trump ({trump_name}) was played; the highest trump was {card_marker(hc)}, played "
                f"by {seat_marker(hs)} at event {hq}: by the house rule high_point ace_only, nobody scores High",
                (hq,),
            )
        )
    ls, lc, lq = pts.low
    only = " (the only trump played: both High and Low)" if pts.low == pts.top and pts.high is not None else ""
    credit(
        ls,
        "smear.low",
        f"Low: {seat_marker(ls)} played {card_marker(lc)} at event {lq}, the lowest trump played{only}",
        (lq,),
    )
    if pts.jack is not None:
        (js, jc, jq), trick = pts.jack
        credit(
            trick.winner,
            "smear.jack",
            f"Jack: {seat_marker(js)} played {card_marker(jc)} at event {jq}; trick {trick.number}, which holds it, "
            f"was won by {seat_marker(trick.winner)} at event {trick.seq}",
            (jq, trick.seq),
        )
    counts = ", ".join(f"{seat_marker(s)}: {v}" for s, v in enumerate(pts.game_counts))
    if pts.game is not None:
        g = pts.game
        events = tuple([q for t in tricks if t.winner == g for _, c, q in t.plays if GAME_VALUE.get(c[0], 0)])
        credit(
            g,
            "smear.game",
            f"Game: {seat_marker(g)} won the most game value in tricks, {pts.game_counts[g]} ({counts})",
            events,
        )
    else:
        best = max(pts.game_counts)
        tied = [s for s in range(seats) if pts.game_counts[s] == best]
        why = (
            "nobody won any game value"
            if best == 0
            else f"{' and '.join(seat_marker(s) for s in tied)} tie with {best} game value"
        )
        for s in tied:
            lines.append(ScoreLine(hand, s, 0, "smear.game", f"Game: {why} ({counts}): a tie, nobody scores Game"))
    taken = ", ".join(pts.names(bidder)) or "none"
    if made:
        after = total_before + won[bidder]
        reason = (
            f"{seat_marker(bidder)} bid {amount} at event {bid_seq} and won {_points(won[bidder])} ({taken}): "
            f"the bid is made, all {won[bidder]} count"
        )
        if after >= TARGET:
            wins = True
            reason += f"; the new total is {after}, {TARGET} or more: {seat_marker(bidder)} wins the game"
        elif amount == 4 and total_before >= 1:
            wins = True
            reason += (
                f"; a made bid of 4 with a total of {total_before} before the hand: {seat_marker(bidder)} wins the game"
            )
        lines.append(ScoreLine(hand, bidder, 0, "smear.bid_made", reason, (bid_seq,)))
    else:
        lines.append(
            ScoreLine(
                hand,
                bidder,
                -amount,
                "smear.bid_failed",
                f"{seat_marker(bidder)} bid {amount} at event {bid_seq} but won only {_points(won[bidder])} ({taken}): "
                f"the bid failed, minus {amount}; the points won do not count",
                (bid_seq,),
            )
        )
    return HandResult(hand_score(hand, seats, lines), pts, won, made, wins)


def _points(n: int) -> str:
    return "1 point" if n == 1 else f"{n} points"
