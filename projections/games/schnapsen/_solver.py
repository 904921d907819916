"""An exact Schnapsen solver: every card known (the hands and the talon's order), best play on both sides.

Once the talon's order is known, a Schnapsen hand is a game of perfect information: a minimax search
over it gives its value, the game points the hand is worth (+1 to +3 for seat 0, -1 to -3 for seat 1:
a hand always has a winner). Alpha-beta over those seven values, with a transposition table that
keeps bounds, solves a whole hand from its first lead.

A position is a tuple of small ints (`Node`): the hands as bitmasks of card indices (`suit * 5 +
strength`, J Q K T A), how many cards have left the talon and its bottom card, who closed it and the
opponent's figures at the close, the leader and the card led, each seat's hand points (tricks and
credited marriages) and pending marriages, which seats have won a trick, and the marriages declared.
The rules are the package's `RULES` (in `_moves`, `_evolve`, `_outcome`); a test holds the two together over
random positions, against a plain minimax through the game's own `legal_events` and `evolve`.

A settled position (the talon closed or used up) draws nothing more, so its value does not depend on the
talon's order: the solvers of one hand's orders share one table of them (`Solver(..., shared=first)`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

_Compiled: Any
try:  # the same search compiled (`_fastsolver.c`, built by `pip install`): over ten times faster
    from projections.games.schnapsen._fastsolver import Search as _Compiled
except ImportError:  # pragma: no cover - no compiler where the package was installed: the search below
    _Compiled = None

#: whether the compiled search was built (the review's figures are the same either way, only slower without)
COMPILED = _Compiled is not None

SUITS = "CDHS"
RANKS = "JQKTA"
POINTS = (2, 3, 4, 10, 11) * 4
SUIT_OF = tuple(i // 5 for i in range(20))
#: the cards of each suit, as a mask
SUIT_MASK = tuple(0b11111 << (5 * s) for s in range(4))
#: the cards of the same suit above each card
ABOVE = tuple(SUIT_MASK[i // 5] & ~((1 << (i + 1)) - 1) for i in range(20))
#: K and Q of each suit
KING = tuple(5 * s + 2 for s in range(4))
QUEEN = tuple(5 * s + 1 for s in range(4))
JACK = tuple(5 * s for s in range(4))
TARGET = 66
#: per 5-bit chunk of a mask (one suit): the cards' points, its cards (strength order), whether K and Q are in it
_CHUNK_POINTS = tuple(sum((2, 3, 4, 10, 11)[b] for b in range(5) if c >> b & 1) for c in range(32))
_CHUNK_CARDS = tuple(tuple(b for b in range(5) if c >> b & 1) for c in range(32))
#: the queens' bits (a hand holds a marriage when a queen's bit and the king's above it are both set)
_QUEENS_WITH_KINGS = (sum(1 << (5 * s + 1) for s in range(4)),)
_SUIT_CARDS = tuple(tuple(tuple(5 * s + b for b in _CHUNK_CARDS[c]) for c in range(32)) for s in range(4))
#: every card, weakest rank first across the suits (the jacks, then the queens, ...)
_BY_RANK = tuple(5 * s + b for b in range(5) for s in range(4))
#: per trump suit, the order a leader's cards are tried in: the other suits' cards strongest rank first across
#: the suits (the aces, then the tens, ...), then the trumps, strongest first
_LEAD_ORDER = tuple(
    tuple(5 * s + b for b in reversed(range(5)) for s in range(4) if s != t)
    + tuple(5 * t + b for b in reversed(range(5)))
    for t in range(4)
)

#: h0, h1, drawn, bottom, closer (-1: open), closer's opponent's hand points and trick (0/1) at the close,
#: leader, lead (-1: none yet), hand points 0 and 1, pending 0 and 1, tricks won (bit per seat),
#: marriages declared (bit seat * 4 + suit)
Node = tuple[int, int, int, int, int, int, int, int, int, int, int, int, int, int, int]
#: a move: a card index to play, MARRIAGE + card index to lead declaring a marriage, EXCHANGE or CLOSE
Move = int
MARRIAGE = 100
EXCHANGE = -1
CLOSE = -2
#: a child: a position, or the hand's value (an int) when the move ends it
Child = Node | int


def index(card: str) -> int:
    return SUITS.index(card[1]) * 5 + RANKS.index(card[0])


def code(i: int) -> str:
    return RANKS[i % 5] + SUITS[i // 5]


def mask(cards: Sequence[str] | frozenset[str]) -> int:
    out = 0
    for c in cards:
        out |= 1 << index(c)
    return out


def cards_of(m: int) -> list[int]:
    """The cards of a mask, by suit then strength."""
    sc = _SUIT_CARDS
    return [*sc[0][m & 31], *sc[1][m >> 5 & 31], *sc[2][m >> 10 & 31], *sc[3][m >> 15 & 31]]


def _by_rank(m: int) -> list[int]:
    """The cards of a mask, weakest rank first across the suits (the order a follower's discards are tried in)."""
    return [c for c in _BY_RANK if m >> c & 1]


def points_of(m: int) -> int:
    cp = _CHUNK_POINTS
    return cp[m & 31] + cp[m >> 5 & 31] + cp[m >> 10 & 31] + cp[m >> 15 & 31]


def _game_points(points: int, won: int) -> int:
    if points >= 33:
        return 1
    return 2 if won else 3


def cheapest(m: int, n: int) -> int:
    """The points of the `n` cheapest cards of a mask."""
    total = 0
    for c in _BY_RANK:
        if n <= 0:
            break
        if m >> c & 1:
            total += POINTS[c]
            n -= 1
    return total


def outcome(node: Node, reacher: int | None, last: int) -> int:
    """The hand's value for seat 0 once it has ended: `reacher` reached 66 (None: all tricks played, `last`
    won the last one). Rules 1-3 of `rules/schnapsen.md`."""
    closer = node[4]
    if closer < 0:
        if reacher is None:
            return 1 if last == 0 else -1
        loser_points = node[10] if reacher == 0 else node[9]
        g = _game_points(loser_points, node[13] >> (1 - reacher) & 1)
        return g if reacher == 0 else -g
    if reacher == closer:
        g = _game_points(node[5], node[6])
        return g if closer == 0 else -g
    g = 2 if node[6] else 3
    return g if closer == 1 else -g


class Solver:
    """The positions of one hand with one talon order, solved on demand and remembered.

    `order`: the talon's cards by index, top first, nine of them (the bottom card is the node's); `trump`
    the trump suit's index. `searched` counts the positions expanded. `compiled`: `value` searches in the
    compiled module where it was built (the moves, children and lines are always these methods'), else here.
    `shared`: another solver of the same hand (the same trump, any talon order), whose table of settled
    positions this one uses too (and searches where that one does, compiled or not).
    """

    def __init__(
        self, order: Sequence[int], trump: int, *, compiled: bool = True, shared: Solver | None = None
    ) -> None:
        if shared is not None and shared.trump != trump:
            raise ValueError("a shared solver must have the same trump suit")
        self.order = tuple(order)
        self.trump: int = trump
        self.trump_mask = SUIT_MASK[trump]
        #: node -> (the least it is worth, the most, the move that decided it), for the positions that may still
        #: draw a card (this order's own) and for the settled ones (shared)
        self.table: dict[Node, tuple[int, int, Move | None]] = {}
        self.settled: dict[Node, tuple[int, int, Move | None]] = shared.settled if shared is not None else {}
        self.expanded = 0
        if shared is not None:
            compiled = shared._compiled is not None
        self._compiled: Any = (
            _Compiled(self.order, trump, shared=shared._compiled if shared is not None else None)
            if compiled and _Compiled is not None
            else None
        )
        if self._compiled is not None:
            self.value = self._compiled.value  # type: ignore[method-assign]

    @property
    def searched(self) -> int:
        """The positions expanded so far, by either search."""
        return self.expanded + (self._compiled.searched if self._compiled is not None else 0)

    # ----------------------------------------------------------------------------------------- moves

    def moves(self, node: Node) -> list[Move]:
        """Every legal move at `node`, in the order a review lists them (and `line` picks among equals): a
        follower's cheapest winning cards first, then its cheapest others; a leader's marriages, then its cards,
        then the talon moves. The search tries them in `search_moves`' order."""
        h0, h1, drawn, _, closer, _, _, leader, lead = node[:9]
        if lead >= 0:
            return self._follows(node, cards_of)
        trump = self.trump
        sc = _SUIT_CARDS
        hand = h0 if leader == 0 else h1
        out = []
        declared = node[14] >> (4 * leader)
        for s in range(4):
            if hand >> (5 * s + 1) & 3 == 3 and not declared >> s & 1:
                out.append(MARRIAGE + KING[s])
                out.append(MARRIAGE + QUEEN[s])
        for s in (trump, *[x for x in range(4) if x != trump]):
            chunk = hand >> (5 * s) & 31
            if chunk:
                out.extend(reversed(sc[s][chunk]))
        if closer < 0 and drawn <= 8:
            if hand >> JACK[trump] & 1:
                out.append(EXCHANGE)
            out.append(CLOSE)
        return out

    def search_moves(self, node: Node) -> list[Move]:
        """The moves of `moves`, in the order the search tries them: a follower's cheapest winning cards first,
        then its others, weakest rank first; a leader's trump exchange, its marriages, its cards (the other
        suits' strongest ranks first, then the trumps), then the close."""
        h0, h1, drawn, _, closer, _, _, leader, lead = node[:9]
        if lead >= 0:
            return self._follows(node, _by_rank)
        trump = self.trump
        hand = h0 if leader == 0 else h1
        out = []
        talon = closer < 0 and drawn <= 8
        if talon and hand >> JACK[trump] & 1:
            out.append(EXCHANGE)
        declared = node[14] >> (4 * leader)
        for s in range(4):
            if hand >> (5 * s + 1) & 3 == 3 and not declared >> s & 1:
                out.append(MARRIAGE + KING[s])
                out.append(MARRIAGE + QUEEN[s])
        out.extend(c for c in _LEAD_ORDER[trump] if hand >> c & 1)
        if talon:
            out.append(CLOSE)
        return out

    def _follows(self, node: Node, others: Callable[[int], list[int]]) -> list[Move]:
        """A follower's legal cards at `node`: its cheapest winning cards of the suit led first, then (while
        the talon is open) its trumps and the rest, listed by `others`; once nothing is drawn, the suit led if
        it holds it (winning cards first), else its trumps, else any card (listed by `others`)."""
        h0, h1, drawn, _, closer, _, _, leader, lead = node[:9]
        trump = self.trump
        sc = _SUIT_CARDS
        hand = h1 if leader == 0 else h0
        led = lead // 5
        same = hand & SUIT_MASK[led]
        trumps = hand & self.trump_mask if led != trump else 0
        if closer >= 0 or drawn >= 10:
            if same:
                higher = same & ABOVE[lead]
                if higher:
                    return list(sc[led][higher >> (5 * led)] + sc[led][(same ^ higher) >> (5 * led)])
                return list(sc[led][same >> (5 * led)])
            if trumps:
                return list(sc[trump][trumps >> (5 * trump)])
            return others(hand)
        higher = same & ABOVE[lead]
        out = list(sc[led][higher >> (5 * led)]) if higher else []
        if trumps:
            out.extend(sc[trump][trumps >> (5 * trump)])
        out.extend(others(hand & ~higher & ~trumps))
        return out

    def child(self, node: Node, move: Move) -> Child:
        """The position after `move`, or the hand's value for seat 0 if the move ends the hand."""
        h0, h1, drawn, bottom, closer, op, ot, leader, lead, p0, p1, q0, q1, won, declared = node
        if move == EXCHANGE:
            jack = JACK[self.trump]
            swap = (1 << jack) | (1 << bottom)
            if leader == 0:
                h0 ^= swap
            else:
                h1 ^= swap
            return (h0, h1, drawn, jack, closer, op, ot, leader, lead, p0, p1, q0, q1, won, declared)
        if move == CLOSE:
            points, trick = (p1, won >> 1 & 1) if leader == 0 else (p0, won & 1)
            return (h0, h1, drawn, bottom, leader, points, trick, leader, lead, p0, p1, q0, q1, won, declared)
        if lead < 0:
            card = move
            if move >= MARRIAGE:
                card = move - MARRIAGE
                suit = SUIT_OF[card]
                declared |= 1 << (4 * leader + suit)
                value = 40 if suit == self.trump else 20
                if won >> leader & 1:
                    if leader == 0:
                        p0 += value
                    else:
                        p1 += value
                    if (p0 if leader == 0 else p1) >= TARGET:
                        ended = (h0, h1, drawn, bottom, closer, op, ot, leader, card, p0, p1, q0, q1, won, declared)
                        return outcome(ended, leader, leader)
                elif leader == 0:
                    q0 += value
                else:
                    q1 += value
            if leader == 0:
                h0 &= ~(1 << card)
            else:
                h1 &= ~(1 << card)
            return (h0, h1, drawn, bottom, closer, op, ot, leader, card, p0, p1, q0, q1, won, declared)
        # the follower plays `move`: the trick is decided
        card = move
        follower = 1 - leader
        if follower == 0:
            h0 &= ~(1 << card)
        else:
            h1 &= ~(1 << card)
        suit, led = SUIT_OF[card], SUIT_OF[lead]
        if suit == led:
            winner = follower if card > lead else leader
        else:
            winner = follower if suit == self.trump else leader
        points = POINTS[card] + POINTS[lead]
        if winner == 0:
            p0 += points + q0
            q0 = 0
            won |= 1
            reached = p0 >= TARGET
        else:
            p1 += points + q1
            q1 = 0
            won |= 2
            reached = p1 >= TARGET
        if reached:
            ended = (h0, h1, drawn, bottom, closer, op, ot, winner, -1, p0, p1, q0, q1, won, declared)
            return outcome(ended, winner, winner)
        if closer < 0 and drawn < 10:
            first = self.order[drawn]
            second = self.order[drawn + 1] if drawn < 8 else bottom
            if winner == 0:
                h0 |= 1 << first
                h1 |= 1 << second
            else:
                h1 |= 1 << first
                h0 |= 1 << second
            drawn += 2
            if drawn >= 10:
                bottom = -1
        elif not h0 and not h1:
            ended = (h0, h1, drawn, bottom, closer, op, ot, winner, -1, p0, p1, q0, q1, won, declared)
            return outcome(ended, None, winner)
        return (h0, h1, drawn, bottom, closer, op, ot, winner, -1, p0, p1, q0, q1, won, declared)

    # ----------------------------------------------------------------------------------------- search

    def bounds(self, node: Node) -> tuple[int, int]:
        """The least and the most the hand can still be worth for seat 0 at `node`, whatever is played.

        A closed hand ends one of two ways (the closer makes it, with the opponent's figures at the
        close, or fails); the closer who can no longer reach 66 has failed. In an open hand each seat's
        win is worth at most what the other's hand points and tricks still allow (rule 1; rule 3 uses the
        figures at a close, which can only be higher), or 2 or 3 if the other seat may still close and
        fail; once the talon is used up, a seat that cannot reach 66 can win only the last trick (1).
        """
        h0, h1, drawn, _, closer, op, ot, _, lead, p0, p1, q0, q1, won, declared = node
        if closer >= 0 or drawn >= 10:
            if lead < 0:
                cashed = self.cashes(node)
                if cashed is not None:
                    return cashed, cashed
            rest = points_of(h0 | h1) + (POINTS[lead] if lead >= 0 else 0)
            reach0 = p0 + q0 + rest + self.marriages_of(h0, declared)
            reach1 = p1 + q1 + rest + self.marriages_of(h1, declared >> 4)
            if closer >= 0:
                made = _game_points(op, ot)
                failed = 2 if ot else 3
                if (reach0 if closer == 0 else reach1) < TARGET:
                    return (-failed, -failed) if closer == 0 else (failed, failed)
                return (-failed, made) if closer == 0 else (-made, failed)
            high = 1 if reach0 < TARGET or p1 >= 33 else (2 if won & 2 else 3)
            low = 1 if reach1 < TARGET or p0 >= 33 else (2 if won & 1 else 3)
            return -low, high
        high = 1 if p1 >= 33 else (2 if won & 2 else 3)
        low = 1 if p0 >= 33 else (2 if won & 1 else 3)
        if drawn <= 8:  # the other seat may still close the talon and fail
            high = max(high, 2 if won & 1 else 3)
            low = max(low, 2 if won & 2 else 3)
        return -low, high

    def cashes(self, node: Node) -> int | None:
        """At a lead once no card is drawn: the hand's value if the leader reaches 66 leading only cards the
        opponent cannot beat, whatever it plays, else None.

        Those cards: with the opponent out of trumps, the leader's trumps and each card above all of the
        opponent's cards of its suit (the opponent must follow suit, or may play anything); else the trumps
        above all of the opponent's, and when they are as many as the opponent's trumps (each lead draws
        one), every card as above once they are led. The leader takes them and at least as many of the
        opponent's cheapest cards; the opponent wins no trick meanwhile, so its figures stay as they are and
        the leader's win is worth the most it can be.
        """
        leader = node[7]
        mine, theirs = (node[0], node[1]) if leader == 0 else (node[1], node[0])
        trump_mask = self.trump_mask
        their_trumps, my_trumps = theirs & trump_mask, mine & trump_mask
        sure = 0
        if their_trumps:
            sure = my_trumps & ABOVE[their_trumps.bit_length() - 1]
            if not sure:
                return None
        if not their_trumps or sure.bit_count() >= their_trumps.bit_count():
            sure = my_trumps
            for c in cards_of(mine & ~trump_mask):
                if not theirs & ABOVE[c]:
                    sure |= 1 << c
        n = sure.bit_count()
        if not n:
            return None
        reach = (node[9] + node[11] if leader == 0 else node[10] + node[12]) + points_of(sure) + cheapest(theirs, n)
        if reach < TARGET:
            return None
        return outcome(node, leader, leader)

    def marriages_of(self, hand: int, declared: int) -> int:
        """The most a seat's undeclared marriages in `hand` could still add (`declared`: its own bits)."""
        if not hand & _QUEENS_WITH_KINGS[0] & (hand >> 1):
            return 0
        total = 0
        for s in range(4):
            if hand >> (5 * s + 1) & 3 == 3 and not declared >> s & 1:
                total += 40 if s == self.trump else 20
        return total

    def value(self, node: Node, alpha: int = -4, beta: int = 4) -> int:
        """The hand's value for seat 0 at `node` with best play on both sides (exact inside (alpha, beta)).

        A position its bounds settle is not stored (they give the same again)."""
        table = self.settled if node[4] >= 0 or node[2] >= 10 else self.table
        found = table.get(node)
        if found is not None:
            low, high, hint = found
            if low >= beta:
                return low
            if high <= alpha:
                return high
            if low == high:
                return low
        else:
            low, high = self.bounds(node)
            hint = None
            if low == high or low >= beta or high <= alpha:
                return low if low >= beta or low == high else high
        if low > alpha:
            alpha = low
        if high < beta:
            beta = high
        self.expanded += 1
        first, last = alpha, beta
        lead = node[8]
        maximising = (node[7] if lead < 0 else 1 - node[7]) == 0
        child = self.child
        value = self.value
        moves = self.search_moves(node)
        if hint is not None and hint in moves and moves[0] != hint:
            moves.remove(hint)
            moves.insert(0, hint)
        best_move = moves[0]
        if maximising:
            best = -4
            for move in moves:
                after = child(node, move)
                v = after if isinstance(after, int) else value(after, alpha, beta)
                if v > best:
                    best, best_move = v, move
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
        else:
            best = 4
            for move in moves:
                after = child(node, move)
                v = after if isinstance(after, int) else value(after, alpha, beta)
                if v < best:
                    best, best_move = v, move
                    if v < beta:
                        beta = v
                        if alpha >= beta:
                            break
        if best <= first:
            table[node] = (low, best, best_move)
        elif best >= last:
            table[node] = (best, high, best_move)
        else:
            table[node] = (best, best, best_move)
        return best

    def solve(self, node: Node, guess: int = 1) -> int:
        """The exact value of `node`: zero-window searches (MTD(f)) from `guess`, narrowing the bounds."""
        low, high = -3, 3
        g = guess
        while low < high:
            beta = g if g > low else low + 1
            if beta == 0:
                beta = 1 if low < 0 else beta
            r = self.value(node, beta - 1, beta)
            if r < beta:
                high = r
                g = r
            else:
                low = r
                g = r + 1 if r < high else r
            if low < 0 < high and g == 0:
                g = 1 if r < 0 else -1
        return low

    def exact(self, after: Child, guess: int = 1) -> int:
        """The value of a child: the hand's value if it has ended, else the search's."""
        return after if isinstance(after, int) else self.solve(after, guess)

    def line(self, after: Child, plies: int) -> list[Move]:
        """The best play from `after` on (at most `plies` moves): a principal variation."""
        out: list[Move] = []
        node = after
        while not isinstance(node, int) and len(out) < plies:
            target = self.solve(node)
            for move in self.moves(node):
                nxt = self.child(node, move)
                if self.exact(nxt) == target:
                    out.append(move)
                    node = nxt
                    break
            else:  # pragma: no cover - some move always reaches the node's value
                break
        return out
