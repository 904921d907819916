"""Movements: who sits at which table, in which seat, in each round of an event, and who sits out. Pure.

Players are numbers, their order in the event (its seeding). A round is a `Seating`: its tables, each the
players by seat (seat 0 first), and those who sit the round out. Every movement states the most times two
players meet (`Plan.most_meetings`, a function of the players, the table size and the rounds, never of
the seating it made) and keeps it; `tests/projections/test_movements.py` checks both, and that nobody sits
out twice before everybody has sat out once (no player sits out more than once more than another).

- `round-robin`, tables of two: the circle method (Berger's tables). With an odd number a "bye" takes the
  circle's fixed place, and whoever meets it sits out. Every pair meets once in n - 1 rounds (n even; n
  with the bye), each player sits out once in that cycle, and a second cycle swaps the seats.
- `swiss`, tables of two, paired round by round from the standings (`swiss_round`): the Monrad rule.
  Players are ranked by the standings (their score, then the tie-breaks, then their order in the event).
  With an odd number the lowest-ranked of those who have sat out least sits out. Then the best-ranked
  player without an opponent plays the best-ranked one below them whom they have not met, the next one
  when the others could not then be paired (a search over every pairing, so a rematch comes only when no
  pairing avoids it). Seat 0 goes to whoever has had it less (the better-ranked on a tie).
- `groups`, tables of three or more (Gin and Smear for three, Casino, Seven and a Half): each round the
  players seated (all but n mod k, who sit out by the same rule as above) are split into tables of k among
  whom no two have met in the current block of `block` rounds, preferring tables of players who have never
  met. By the Hajnal-Szemeredi theorem such a split exists while each player has met at most p/k - 1 of the
  p seated players, which holds for 1 + (p/k - 1) // (k - 1) rounds; the search is exhaustive, so in each
  block nobody meets anybody twice, and over R rounds nobody meets anybody more than ceil(R / block)
  times. Seats rotate: at each table, seat 0 goes to whoever has sat there least, then seat 1, and so on.
  Tables of two may use it too (its block is then p/2 rounds: Dirac's theorem).
- `free`: no seating planned; the event's tables are the games attached to it.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from math import ceil

METHODS = ("round-robin", "swiss", "groups", "free")
#: swaps a search for one round's tables makes at most, and in a row without progress, before it restarts
STEPS = 4_000
STALL = 200
#: steps of the search for a Swiss round's pairing
SWISS_BUDGET = 200_000
#: searches (restarts) before a constraint is given up for the next one (the last is never given up inside a
#: block in the tests)
ATTEMPTS = 40

Pair = frozenset[int]


@dataclass(frozen=True, slots=True)
class Seating:
    """One round: its tables (each the players by seat, seat 0 first) and those who sit it out."""

    tables: tuple[tuple[int, ...], ...]
    sit_out: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Plan:
    """A movement's rounds for `players` players at tables of `seats`, and what it promises."""

    method: str
    players: int
    seats: int
    rounds: tuple[Seating, ...]
    #: the most times any two players meet over these rounds, as the movement states it
    most_meetings: int
    #: the rule, in words
    rule: str = ""


@dataclass
class History:
    """What a movement has seated so far: meetings, sit-outs, seats."""

    players: int
    seats: int
    met: Counter[Pair] = field(default_factory=Counter)
    #: the meetings of the current block (`groups`, `swiss`)
    block_met: set[Pair] = field(default_factory=set)
    sat_out: Counter[int] = field(default_factory=Counter)
    last_out: dict[int, int] = field(default_factory=dict)
    seat_count: Counter[tuple[int, int]] = field(default_factory=Counter)
    rounds: int = 0

    def add(self, seating: Seating) -> None:
        for table in seating.tables:
            for seat, player in enumerate(table):
                self.seat_count[(player, seat)] += 1
            for i, a in enumerate(table):
                for b in table[i + 1 :]:
                    pair = frozenset((a, b))
                    self.met[pair] += 1
                    self.block_met.add(pair)
        for player in seating.sit_out:
            self.sat_out[player] += 1
            self.last_out[player] = self.rounds
        self.rounds += 1


def seated_per_round(players: int, seats: int) -> int:
    """How many play in a round: every player but `players mod seats`."""
    return seats * (players // seats)


def block_length(players: int, seats: int) -> int:
    """The rounds of a block in which no two players can be kept from meeting twice (`groups`, `swiss`):
    1 + (p/k - 1) // (k - 1) for p players seated at tables of k (at least 1)."""
    tables = players // seats
    if tables < 1:
        return 1
    return 1 + (tables - 1) // (seats - 1)


def bound(method: str, players: int, seats: int, rounds: int) -> int:
    """The most times two players meet over `rounds` rounds of `method`, as the movement promises it."""
    if rounds <= 0 or method == "free":
        return 0
    if method == "round-robin":
        cycle = players - 1 if players % 2 == 0 else players
        return ceil(rounds / max(cycle, 1))
    return ceil(rounds / block_length(players, seats))


def sit_outs(history: History, count: int, ranking: Sequence[int]) -> tuple[int, ...]:
    """`count` players to sit out: of those who have sat out least, the last in `ranking` (the lowest-ranked,
    or for a planned movement those who sat out longest ago), so that no one sits out twice before every
    player has sat out once."""
    if count <= 0:
        return ()
    place = {player: i for i, player in enumerate(ranking)}
    order = sorted(ranking, key=lambda p: (history.sat_out[p], history.last_out.get(p, -1), -place[p]))
    return tuple(sorted(order[:count], key=place.__getitem__))


# --------------------------------------------------------------------------- round robin


def round_robin(players: int, rounds: int | None = None) -> Plan:
    """The circle method for tables of two: `rounds` rounds (a whole cycle when None)."""
    n = players if players % 2 == 0 else players + 1
    cycle = n - 1
    total = cycle if rounds is None else rounds
    fixed = n - 1  # the circle's fixed place: the last player, or the bye
    out = []
    for r in range(total):
        turn = r % cycle
        swap = (r // cycle) % 2 == 1
        pairs: list[tuple[int, int]] = []
        pairs.append((fixed, turn) if turn % 2 == 0 else (turn, fixed))
        for i in range(1, n // 2):
            a, b = (turn + i) % cycle, (turn - i) % cycle
            pairs.append((a, b) if i % 2 == 1 else (b, a))
        tables, sit = [], []
        for a, b in pairs:
            if players % 2 == 1 and fixed in (a, b):
                sit.append(b if a == fixed else a)
                continue
            tables.append((b, a) if swap else (a, b))
        out.append(Seating(tuple(sorted(tables, key=min)), tuple(sit)))
    rule = f"round robin by the circle method: every pair meets once in {cycle} rounds" + (
        ", and whoever meets the bye sits out" if players % 2 else ""
    )
    return Plan("round-robin", players, 2, tuple(out), bound("round-robin", players, 2, total), rule)


# --------------------------------------------------------------------------- tables without repeats


def _tables(
    pool: Sequence[int],
    seats: int,
    hard: Sequence[Callable[[int, int], bool]],
    weight: Callable[[int, int], int],
    salt: str,
) -> list[tuple[int, ...]] | None:
    """`pool` split into tables of `seats` whose players are pairwise allowed by the first constraint of `hard`
    that a search satisfies (None: none found), with the least `weight` (earlier meetings) among them.

    The search is a min-conflicts local search (as for the social golfer problem): from the players in order,
    it swaps two players of different tables, the swap that most lowers (the pairs not allowed, the weight),
    sideways moves taken at random, restarting from a seeded shuffle when it stalls. Seeded by `salt`, so an
    event's rounds are the same every time they are made.
    """
    rng = random.Random(salt)
    players = list(pool)
    for level, allowed in enumerate(hard):
        for attempt in range(ATTEMPTS if level == len(hard) - 1 else 3):
            if attempt:
                rng.shuffle(players)
            found = _settle(players, seats, allowed, weight, rng)
            if found is not None:
                return found
    return None


def _settle(
    players: Sequence[int],
    seats: int,
    allowed: Callable[[int, int], bool],
    weight: Callable[[int, int], int],
    rng: random.Random,
) -> list[tuple[int, ...]] | None:
    tables = [list(players[i : i + seats]) for i in range(0, len(players), seats)]
    where = {p: t for t, table in enumerate(tables) for p in table}

    def cost(p: int, table: Sequence[int]) -> tuple[int, int]:
        bad = heavy = 0
        for q in table:
            if q != p:
                bad += not allowed(p, q)
                heavy += weight(p, q)
        return bad, heavy

    def conflicted() -> list[int]:
        return [p for table in tables for p in table if cost(p, table)[0]]

    stall = 0
    for _ in range(STEPS):
        bad = conflicted()
        if not bad:
            break
        x = rng.choice(bad)
        a = where[x]
        best: tuple[int, int] | None = None
        moves: list[int] = []
        for y in players:
            b = where[y]
            if b == a:
                continue
            rest_a = [p for p in tables[a] if p != x]
            rest_b = [p for p in tables[b] if p != y]
            before = _plus(cost(x, rest_a), cost(y, rest_b))
            after = _plus(cost(x, rest_b), cost(y, rest_a))
            delta = (after[0] - before[0], after[1] - before[1])
            if best is None or delta < best:
                best, moves = delta, [y]
            elif delta == best:
                moves.append(y)
        if best is None:
            return None
        if best >= (0, 0):
            stall += 1
            if stall > STALL:
                return None
        else:
            stall = 0
        y = rng.choice(moves)
        b = where[y]
        tables[a][tables[a].index(x)], tables[b][tables[b].index(y)] = y, x
        where[x], where[y] = b, a
    if conflicted():
        return None
    return [tuple(table) for table in tables]


def _plus(one: tuple[int, int], two: tuple[int, int]) -> tuple[int, int]:
    return one[0] + two[0], one[1] + two[1]


def _table_seats(history: History, table: Sequence[int], rank: Mapping[int, int]) -> tuple[int, ...]:
    """A table's players by seat: seat 0 to whoever has sat there least, then seat 1... (the better-ranked on
    a tie)."""
    left = sorted(table, key=rank.__getitem__)
    out = []
    for seat in range(len(table)):
        best = min(left, key=lambda p: (history.seat_count[(p, seat)], rank[p]))
        out.append(best)
        left.remove(best)
    return tuple(out)


def next_round(history: History, ranking: Sequence[int] | None = None) -> Seating:
    """One more round for `history` (`groups`; `swiss` with tables of two): the sit-outs, then tables among whom
    nobody has met in the current block, preferring players who have never met (`ranking`, best first: who
    sits out, and the order of the search; the players' order when None).

    Raises:
        RuntimeError: no seating found within the search's budget (it does not happen inside a block).
    """
    n, k = history.players, history.seats
    order = list(ranking) if ranking is not None else list(range(n))
    if history.rounds and history.rounds % block_length(n, k) == 0:
        history.block_met = set()  # a new block
    out = sit_outs(history, n - seated_per_round(n, k), order)
    pool = [p for p in order if p not in out]
    rank = {p: i for i, p in enumerate(order)}

    def never(a: int, b: int) -> bool:
        return frozenset((a, b)) not in history.met

    def in_block(a: int, b: int) -> bool:
        return frozenset((a, b)) not in history.block_met

    def weight(a: int, b: int) -> int:
        return history.met[frozenset((a, b))]

    tables = _tables(pool, k, (never, in_block), weight, f"{n}:{k}:{history.rounds}")
    if tables is None:
        raise RuntimeError(f"no seating of {len(pool)} players at tables of {k} keeps this block's promise")
    seated = [_table_seats(history, table, rank) for table in tables]
    return Seating(tuple(sorted(seated, key=lambda t: min(rank[p] for p in t))), out)


def groups(players: int, seats: int, rounds: int) -> Plan:
    """Tables of `seats` for `rounds` rounds, nobody meeting twice within a block (see the module's docstring)."""
    history = History(players, seats)
    out = []
    for _ in range(rounds):
        seating = next_round(history)
        history.add(seating)
        out.append(seating)
    block = block_length(players, seats)
    rule = (
        f"tables of {seats}: in each block of {block} round{'s' if block > 1 else ''} nobody meets anybody twice, "
        "players who have never met are seated together first, and seat 0 goes to whoever has sat there least"
    )
    return Plan("groups", players, seats, tuple(out), bound("groups", players, seats, rounds), rule)


# --------------------------------------------------------------------------- swiss


SWISS_RULE = (
    "Swiss, by the Monrad rule: players ranked by the standings; with an odd number the lowest-ranked of those "
    "who have sat out least sits out; the best-ranked player without an opponent plays the best-ranked one "
    "below them whom they have not met (a rematch only when no pairing avoids it); seat 0 to whoever has had "
    "it less"
)


def swiss_round(history: History, ranking: Sequence[int]) -> Seating:
    """The next Swiss round for tables of two, `ranking` the players best first (the Monrad rule: see the
    module's docstring)."""
    n = history.players
    if history.rounds and history.rounds % block_length(n, 2) == 0:
        history.block_met = set()
    out = sit_outs(history, n % 2, ranking)
    pool = [p for p in ranking if p not in out]
    rank = {p: i for i, p in enumerate(ranking)}

    def pair(allowed: Callable[[int, int], bool]) -> list[tuple[int, int]] | None:
        visits = 0

        def search(left: list[int]) -> list[tuple[int, int]] | None:
            nonlocal visits
            if not left:
                return []
            visits += 1
            if visits > SWISS_BUDGET:
                return None
            top, rest = left[0], left[1:]
            for i, other in enumerate(rest):
                if allowed(top, other):
                    found = search(rest[:i] + rest[i + 1 :])
                    if found is not None:
                        return [(top, other), *found]
            return None

        return search(pool)

    pairs = pair(lambda a, b: frozenset((a, b)) not in history.met) or pair(
        lambda a, b: frozenset((a, b)) not in history.block_met
    )
    if pairs is None:
        raise RuntimeError(f"no Swiss pairing of {len(pool)} players keeps this block's promise")
    tables = []
    for a, b in pairs:
        first = (history.seat_count[(a, 0)], rank[a]) <= (history.seat_count[(b, 0)], rank[b])
        tables.append((a, b) if first else (b, a))
    return Seating(tuple(tables), out)


def plan(method: str, players: int, seats: int, rounds: int) -> Plan:
    """The rounds planned at an event's start: every round of `round-robin` and `groups`; `swiss` plans its
    first round by the event's order (later ones come from the standings, `swiss_round`); `free` none.

    Raises:
        ValueError: an unknown method, or one that does not fit the table size.
    """
    if method not in METHODS:
        raise ValueError(f"movement must be one of {', '.join(METHODS)}")
    if method in ("round-robin", "swiss") and seats != 2:
        raise ValueError(f"a {method} movement seats two players at a table; use groups for tables of {seats}")
    if method != "free" and players < seats:
        raise ValueError(f"{players} players cannot fill a table of {seats}")
    if method == "round-robin":
        return round_robin(players, rounds)
    if method == "groups":
        return groups(players, seats, rounds)
    if method == "swiss":
        first = swiss_round(History(players, 2), list(range(players)))
        return Plan("swiss", players, 2, (first,), bound("swiss", players, 2, rounds), SWISS_RULE)
    return Plan("free", players, seats, (), 0, "free: the tables are the games attached to the event")


def history_of(players: int, seats: int, seatings: Sequence[Seating]) -> History:
    """The history of the rounds played so far (a Swiss round is paired on it)."""
    history = History(players, seats)
    for seating in seatings:
        if history.rounds and history.rounds % block_length(players, seats) == 0:
            history.block_met = set()
        history.add(seating)
    return history


def meetings(seatings: Sequence[Seating]) -> Counter[Pair]:
    """How often each pair met over `seatings`."""
    met: Counter[Pair] = Counter()
    for seating in seatings:
        for table in seating.tables:
            for i, a in enumerate(table):
                for b in table[i + 1 :]:
                    met[frozenset((a, b))] += 1
    return met
