"""A correction: a retract that takes back a result already rated re-derives every later rating from that point.

Every later rating may depend on the result taken back, so the changes from the first one it takes back (in the
rows' order, which is the log's) are re-derived, in the transaction of the page that holds the retract, from
each player's rating just before that point. The results are read back from the changes' own rows
(`matches_of_rows`: the event, the sides, the seats, the ranks) rather than from the log, and only a result with
a player whose rating the correction changed is rated again (the others' rows stand as they are: a retract in
one pool changes no other pool, nor the players never met); when few rows change they are updated in place and
the taken-back ones deleted (the others keep their ids and so their order), else all are written again from the
first. So the cost grows with the results after that point that it touches, not with the log; the rows are
those a rebuild from zero gives (tested), and `Correction` says what it did: each player whose rating it
changed, before and after. Rows this code cannot read back as whole results make the caller rebuild from zero.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from events.store.ratings import RatingRecorder, Rewrite
from projections.core.rating import Match
from projections.readmodels.ratings.changes import PRIOR, Base, ChangeRow, Ratings, rate

#: an event of the log as the ratings read it: its position, game, envelope, and whether it settles a result
Decoded = tuple[int, str, dict[str, Any], bool]


def voided(seq: int, retracts: Iterable[tuple[int, int]]) -> bool:
    """Whether a retract (seq R back to seq T) takes back the event at `seq`: T < seq < R."""
    return any(to_seq < seq < at for at, to_seq in retracts)


@dataclass(frozen=True, slots=True)
class PlayerCorrection:
    """One player's rating in one pool before a correction and after it."""

    player_id: str
    pool: str
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float


@dataclass(frozen=True, slots=True)
class Correction:
    """What one correction did: the retracts `(game_id, seq)` that took back rated results, how many results
    (events) it rated again, and the rating before and after of each player whose rating it changed (player id
    and pool order)."""

    retracts: tuple[tuple[str, int], ...]
    results: int
    players: tuple[PlayerCorrection, ...]

    def lines(self) -> list[str]:
        """The correction in words: what it took back, then one line per player whose rating it changed."""
        taken = ", ".join(f"the retract at seq {seq} of {game_id}" for game_id, seq in self.retracts)
        head = (
            f"ratings corrected after {taken}: {self.results} results rated again, {len(self.players)} ratings changed"
        )
        return [head] + [
            f"  {p.player_id} {p.pool}: {p.mu_before:.2f} ±{p.sigma_before:.2f} "
            f"-> {p.mu_after:.2f} ±{p.sigma_after:.2f}"
            for p in self.players
        ]


@dataclass(frozen=True, slots=True)
class Replay:
    """A correction ready to write: how the stored changes change, the rows the page's begin with, the report."""

    rewrite: Rewrite
    rows: list[ChangeRow]
    report: Correction
    #: every (player, pool) the correction read and left in the page's ratings (now looked up)
    keys: frozenset[tuple[str, str]]


def correction_of(
    recorder: RatingRecorder, page: Sequence[Decoded], ratings: Ratings, in_place: float
) -> Replay | Literal[False] | None:
    """The correction the page's retracts make, if one takes back a result already rated: every change
    from the first one taken back (in the rows' order, which is the log's) is re-derived from the rows
    themselves (`matches_of_rows`: the same results, their players and ranks), except the changes taken
    back, starting from each player's rating just before that first change. `ratings` (this page's
    working copy) gets each affected player's rating after it. None: no correction; False: the rows
    hold a result this code cannot read back (then the caller rebuilds from zero). A correction that changes at
    most the share `in_place` of the changes from its first one changes them in place (row by row); more, and
    it writes them all again from there (one delete, one bulk insert)."""
    voids: list[tuple[str, int, int]] = []
    first: int | None = None
    for _, game_id, env, _ in page:
        if env["type"] != "retract":
            continue
        found = recorder.first_taken_back(game_id, env["data"]["to_seq"], env["seq"])
        if found is not None:
            voids.append((game_id, int(env["data"]["to_seq"]), int(env["seq"])))
            first = found if first is None else min(first, found)
    if first is None:
        return None
    stored = recorder.changes_from(first)
    taken = [voided(row[5], [(at, to) for g, to, at in voids if g == row[1]]) for row in stored]
    kept = [row for row, gone in zip(stored, taken, strict=True) if not gone]
    keys = {(row[8], row[3]) for row in stored}
    #: the ratings as they stand from `first` on, re-derived; `dirty`: those that differ from the rows'
    replay: Ratings = dict(recorder.latest(keys, before=first))
    dirty = {(row[8], row[3]) for row, gone in zip(stored, taken, strict=True) if gone}
    rows: list[ChangeRow] = []  # every change from `first` on, as a rewrite from there writes them
    updates: list[tuple[Any, ...]] = []  # or only those that change, in place
    results = 0
    start, count = 0, len(kept)
    while start < count:  # one event's results at a time (its rows are together)
        event, end = kept[start], start + 1
        while end < count and kept[end][6] == event[6] and kept[end][1] == event[1]:
            end += 1
        group = kept[start:end]
        if any((row[8], row[3]) in dirty for row in group):
            matches = matches_of_rows(group)
            if matches is None:
                return False
            again: list[ChangeRow] = []
            for match, players, base in matches:
                again += rate(match, players, replay, base)
            for old, new in zip(group, again, strict=True):
                if old[9:16] != new[9:16]:
                    updates.append((*new[9:14], new[15], old[17]))
                    if old[11:13] != new[11:13]:
                        dirty.add((new[8], new[3]))
            rows += again
            results += 1
        else:  # no player of it has a rating other than the rows': its changes stand as they are
            for row in group:
                key = (row[8], row[3])
                replay[key] = (row[11], row[12], replay.get(key, PRIOR)[2] + 1)
                rows.append(row[:17])
        start = end
    deletes = [row[17] for row, gone in zip(stored, taken, strict=True) if gone]
    if len(deletes) + len(updates) <= len(stored) * in_place:
        rewrite, rows = Rewrite(deletes=deletes, updates=updates), []
    else:
        rewrite = Rewrite(replace_from=first)
    was = {(row[8], row[3]): (row[11], row[12]) for row in stored}  # each key's last before the correction
    report = []
    for key in sorted(keys):
        mu, sigma, _ = replay.get(key, PRIOR)
        if (mu, sigma) != was[key]:
            report.append(PlayerCorrection(key[0], key[1], *was[key], mu, sigma))
        if key in replay:
            ratings[key] = replay[key]
        else:
            ratings.pop(key, None)
    report_of = Correction(tuple((g, at) for g, _, at in voids), results, tuple(report))
    return Replay(rewrite, rows, report_of, frozenset(keys))


def matches_of_rows(rows: Sequence[ChangeRow]) -> list[tuple[Match, list[str], Base]] | None:
    """The rated results that stored `rating_change` rows (`CHANGE_COLUMNS` tuples, in order) were made from:
    each `(match, players by seat, base)` as `rate` takes them, so that rating them again gives the same rows
    from the same ratings. None when the rows do not split into whole results.

    `rate` writes a result's rows side after side, seat after seat, each with the seats of every other side
    (`opponents`) and its actual result against them; so a result is a run of rows of one event (game and
    position) whose first side is the first rows with the first row's opponents, and whose rows are that
    side's and its opponents'; a side is a run of rows with the same opponents; and the ranks follow from
    the actual results (a better rank has a higher one, a tie the same; openskill reads ranks by order only).
    """
    out: list[tuple[Match, list[str], Base]] = []
    start, count = 0, len(rows)
    while start < count:
        head = rows[start]
        game_id, hand, seq, position = head[1], head[4], head[5], head[6]
        sides: list[tuple[int, ...]] = []
        pools: list[str] = []
        actuals: list[float] = []
        players: dict[int, str] = {}
        size, at = 0, start
        while at < count and (not sides or at < start + size):
            row = rows[at]
            if row[1] != game_id or row[6] != position or row[4] != hand or row[5] != seq:
                return None
            opponents = row[15]
            end = at + 1
            while end < count and rows[end][15] == opponents and rows[end][1] == game_id and rows[end][6] == position:
                end += 1  # a side: the rows with the same opponents (the same seats, the same ratings before)
            against = opponents.count('"seat":')  # one per opponent: a JSON string holds no bare quote
            if not sides:
                size = end - at + against
            elif end - at + against != size:
                return None
            side = tuple(int(r[7]) for r in rows[at:end])
            sides.append(side)
            pools.append(row[3])
            actuals.append(float(row[14]))
            for r in rows[at:end]:
                players[int(r[7])] = r[8]
            at = end
        seats = [seat for side in sides for seat in side]
        if at != start + size or len(sides) < 2 or len(set(seats)) != size:
            return None
        order = sorted(set(actuals), reverse=True)
        ranks = tuple(order.index(a) for a in actuals)
        seated = [players.get(seat, "") for seat in range(max(seats) + 1)]
        match = Match(hand=int(hand), seq=int(seq), sides=tuple(sides), pools=tuple(pools), ranks=ranks)
        out.append((match, seated, (int(head[0]), str(game_id), str(head[2]), int(position), str(head[16]))))
        start = at
    return out
