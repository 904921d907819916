"""The hand-facts read model: which situations happened in which hand, for search.

A projection that follows the global event order (`event.position`) from a
stored checkpoint (`projection_checkpoint`, name `hand_facts`) and writes one
`hand_fact` row per situation a game's `situations(event, result)` gives:
`{club_id, game_id, hand, seq, situation, seat}`. `GET /v1/games?has=sweep`
is answered from these rows.

- Incremental: `catch_up()` reads the events after the checkpoint in pages;
  each page's facts and the checkpoint's new position are written in one
  transaction, the checkpoint moved with `WHERE position = :old`, so two
  processes catching up at once never write a fact twice (the loser's
  transaction rolls back; the winner did the work). The API catches up
  before it answers a search that uses `has=` (when nothing is new, that is
  one indexed read), so a search sees every event committed below the
  log's horizon: on PostgreSQL every transaction that had begun before the
  oldest one still open on the server (any database of it) began, since
  the log reader never skips an event that commits late; a transaction
  left open elsewhere holds newer events back until it ends.
  On SQLite that is every committed event.
- Rebuild: `rebuild()` empties the table, puts the checkpoint at 0 and
  catches up: the same code on the same events in the same order, so the
  rows are the same as the incremental path's (`tablebook rebuild`).
- What is read: only the events a game's `situations` can tag, as each game
  declares beside it (`GameRules.situation_reads`: event types, and marks in
  the stored result or data text), and every retract: `READS`, one SQL filter
  that migration 0012's partial index `ix_event_hand_facts` has as its WHERE,
  so a rebuild walks that index instead of the whole log and decodes only
  those events (about one in seven). The filter's answer is written with each
  event as bit `FLAG` of `event.read_by` (migration 0016; registered here with
  the store's `READ_FLAGS`), so an append tests that bit, not the texts. The declarations are checked against the
  code by playing random games (tests/projections/test_situation_reads.py); a
  game without one (None) makes the read model read every event.
- The store's global order is gapless (the append lock on PostgreSQL, one
  writer on SQLite), so a reader never skips an event that commits late.
- Retractions: a `retract` at seq R back to seq T deletes the facts of the
  game's seqs T+1 to R-1 (retracted events do not count). Only game events
  have facts, and those are exactly what a retract takes back: a `note` or
  `score_claimed` in the range stays in force (`engine.takes_back`) but has
  no fact to keep.
- Whose fact: a fact is the event's `seat`'s, except a tag the game declares another seat's
  (`GameRules.fact_owners`: the result fact that names the seat it belongs to; a bid made or set
  comes on the hand's last play, but is the bidder's): the per-player search (`has=` with a player)
  and statistics count them there.
- Facts that name an earlier event: when a tag's plural is a list of
  `{seat, seq}` in the result (the `sweeps` of a round's end, which settle
  which table-clearing captures were sweeps), the fact is written at
  each listed seq and seat, once. Every other fact is written at the
  event's own seq, with the event's `seat` (None when it has none).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

import orjson

from events.codec import loads
from events.envelope import event_of
from events.errors import InvalidEventError, TablebookError
from events.store import Store
from events.store.log import LogFilter
from events.store.mapper import READ_FLAGS
from projections.core.registry import KINDS, rules_for
from projections.core.rules import EMPTY, GameRules
from projections.readmodels.pages import large_page

#: the checkpoint's name in `projection_checkpoint`
NAME = "hand_facts"

#: Every search tag each game declares (`GameRules.situation_tags`, which its `situations` gives); `has=`
#: accepts these.
SITUATIONS: dict[str, tuple[str, ...]] = {kind: tuple(rules_for(kind).situation_tags) for kind in KINDS}
KNOWN: frozenset[str] = frozenset(tag for tags in SITUATIONS.values() for tag in tags)


def _reads() -> LogFilter | None:
    """Every event a game's `situations` may tag, and the retracts (None: a game did not say, read all)."""
    types: set[str] = {"retract"}
    result_marks: set[str] = set()
    data_marks: set[str] = set()
    for kind in KINDS:
        reads = rules_for(kind).situation_reads
        if reads is None:
            return None
        types.update(reads.types)
        result_marks.update(reads.result_marks)
        data_marks.update(reads.data_marks)
    return LogFilter(tuple(sorted(types)), tuple(sorted(result_marks)), tuple(sorted(data_marks)), flag=FLAG)


#: the bit of `event.read_by` that says the hand facts read an event (migration 0016)
FLAG = 1
#: what the hand facts read of the log (the WHERE of migration 0016's `ix_event_hand_facts`)
READS: LogFilter | None = _reads()
READ_FLAGS.register(FLAG, READS)


#: one `hand_fact` row: (club_id, game_id, hand, seq, situation, seat)
FactRow = tuple[int, str, int, int, str, int | None]


@dataclass(frozen=True, slots=True)
class Fact:
    """One situation in one hand, at one seq; `once` for a fact that names an earlier event."""

    hand: int
    seq: int
    situation: str
    seat: int | None
    once: bool = False


def _seat(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def facts_of(rules: GameRules[Any], envelope: Mapping[str, Any]) -> list[Fact]:
    """The facts one stored envelope gives (pure: the envelope holds the event and its result), in the order of
    the game's tags."""
    result = envelope.get("result") or {}
    event = event_of(envelope)
    inserts: list[FactRow] = []
    once: list[FactRow] = []
    _facts(rules.situations, rules.fact_owners, event, result, envelope["hand"], envelope["seq"], 0, "", inserts, once)
    found = [Fact(*row[2:], once=False) for row in inserts] + [Fact(*row[2:], once=True) for row in once]
    # `_facts` keeps the two kinds apart, as a page writes them; a stable sort by tag puts them back in order
    order = {tag: n for n, tag in enumerate(rules.situations(event, result))}
    return sorted(found, key=lambda fact: order[fact.situation])


#: a game's `situations`
Situations = Callable[[Mapping[str, Any], Mapping[str, Any]], Sequence[str]]


def _facts(
    situations: Situations,
    owners: Mapping[str, str],
    event: Mapping[str, Any],
    result: Mapping[str, Any],
    hand: int,
    seq: int,
    club_id: int,
    game_id: str,
    inserts: list[FactRow],
    once: list[FactRow],
) -> None:
    """`facts_of` as the `hand_fact` rows of the game `game_id` of `club_id`, from the event and its decoded
    result, appended to `inserts` (a fact at the event's own seq) or `once` (a fact that names an earlier
    event): what a rebuild does for every event it reads (nearly every one gives a fact), so the rows are
    made where they are kept, with no tuple between. An event with no tag costs the game's `situations` and
    nothing more. The game's `situations` and `fact_owners` are passed in, looked up once a game by a
    rebuild, not once an event. (The event's `seat` is read before the tags, not only for a tag that is the
    event's own: nearly every event has one tag, its own, and the test a tag cost more than it spared.)"""
    tags = situations(event, result)
    if not tags:
        return
    seat = event.get("seat")
    if seat.__class__ is not int:  # `_seat`'s test, its call spared for the plain int almost every event has
        seat = _seat(seat)
    for tag in tags:
        refs = result.get(tag + "s")
        if (  # `refs` first: for almost every tag it is None
            refs
            and isinstance(refs, list)
            and all(isinstance(r, dict) and _seat(r.get("seq")) is not None for r in refs)
        ):
            once.extend((club_id, game_id, hand, r["seq"], tag, _seat(r.get("seat"))) for r in refs)
        elif tag in owners:
            inserts.append((club_id, game_id, hand, seq, tag, _seat(result.get(owners[tag]))))
        else:
            inserts.append((club_id, game_id, hand, seq, tag, seat))


def check_situations(names: Iterable[str]) -> list[str]:
    """The `has=` values, split at commas, checked against the known tags.

    Raises:
        InvalidEventError: a tag no game gives (the message lists the known ones).
    """
    wanted: list[str] = []
    for name in names:
        for part in name.split(","):
            tag = part.strip().lower()
            if not tag:
                continue
            if tag not in KNOWN:
                raise InvalidEventError(
                    f"has: unknown situation {tag!r}; known: {', '.join(sorted(KNOWN))}",
                    field="has",
                    known=sorted(KNOWN),
                )
            if tag not in wanted:
                wanted.append(tag)
    return wanted


Progress = Callable[[int], None]


class HandFacts:
    """The projection: catch up from the checkpoint, or rebuild from zero."""

    def __init__(self, store: Store, *, batch: int = 20_000) -> None:
        # the log on the synchronous standby when the store follows one (events/store/follow.py)
        self.store = store.follower
        #: events read per page (those `READS` admits): each page is one transaction
        self.batch = batch
        #: each game's `situations`, `fact_owners` and club (None: a game this server cannot read)
        self._games: dict[str, tuple[Situations, Mapping[str, str], int] | None] = {}

    def position(self) -> int:
        """The global position the read model has read up to."""
        return self.store.projection_position(NAME)

    def behind(self) -> int:
        """How many positions the read model is behind the log's head (0 when caught up)."""
        return max(0, self.store.head_position() - self.position())

    def catch_up(self, progress: Progress | None = None) -> int:
        """Read every event after the checkpoint that can give a fact; returns how many this call read.

        `progress` is called with the positions each committed page advanced the checkpoint by.
        """
        read = 0
        while True:
            # the checkpoint and the page in one read (on PostgreSQL one statement, which also moves the
            # checkpoint over a page that holds nothing for the hand facts: most appends)
            found = self.store.log.read_checkpointed(NAME, self.batch, READS)
            old, new, page = found.old, found.upto, found.rows
            if found.moved:
                if progress is not None:
                    progress(max(0, new - old))
                return read
            if new == old and not page:
                return read
            with large_page(len(page)):  # its facts made and written with the cyclic collector off
                deletes, inserts, once = self._changes(page)
                done = self.store.commit_hand_facts(NAME, old=old, new=new, deletes=deletes, inserts=inserts, once=once)
                count = len(page)
                del found, page, deletes, inserts, once  # freed while the collector is off (`pages.py`)
            if done:
                read += count
                if progress is not None:
                    progress(max(0, new - old))
            if count < self.batch:
                return read

    def rebuild(self, progress: Progress | None = None) -> int:
        """Empty the read model and read the whole log again; returns the events read."""
        self.store.reset_hand_facts(NAME)
        self._games.clear()
        return self.catch_up(progress)

    def _load_games(self, game_ids: Iterable[str]) -> None:
        """The rules and club of every game named that this instance does not know yet, in one read a page."""
        missing = set(game_ids).difference(self._games)  # a set's difference: no test a row in Python
        if not missing:
            return
        for game_id, (kind, club_id) in self.store.game_kinds(sorted(missing)).items():
            try:
                rules = rules_for(kind)
            except TablebookError:  # a game this server cannot read: it has no facts here
                self._games[game_id] = None
                continue
            self._games[game_id] = (rules.situations, rules.fact_owners, club_id)

    def _changes(
        self, page: Sequence[Sequence[Any]]
    ) -> tuple[list[tuple[str, int, int]], list[FactRow], list[FactRow]]:
        """The deletes and inserts of one page of `read_filtered` rows, in event order.

        Every row of the page is decoded and given to its game's `situations`, without asking first whether
        that game's own `situation_reads` admit it (a page holds the union of every game's reads): an event a
        game's reads leave out gives it no tag (the promise `tests/projections/test_situation_reads.py`
        checks), and almost every row the filter admits is one its own game reads (every one, in
        `python -m bench.ratings`'s games), so the test cost more than the decoding it spared.
        """
        self._load_games(map(itemgetter(1), page))
        games = self._games
        decode = orjson.loads  # `events.codec.loads` without the call around it: two for every event read
        deletes: list[tuple[str, int, int]] = []
        inserts: list[FactRow] = []
        once: list[FactRow] = []
        for _, game_id, seq, hand, kind, data, result, _ in page:
            if kind == "retract":
                above, below = loads(data)["to_seq"], seq
                deletes.append((game_id, above, below))
                inserts = [r for r in inserts if not (r[1] == game_id and above < r[3] < below)]
                once = [r for r in once if not (r[1] == game_id and above < r[3] < below)]
                continue
            game = games[game_id]
            if game is None:
                continue
            event = decode(data)  # `event_of` of its envelope, `{"type": kind, **data}`, without the copy
            event.setdefault("type", kind)
            _facts(game[0], game[1], event, decode(result) or EMPTY, hand, seq, game[2], game_id, inserts, once)
        return deletes, inserts, once
