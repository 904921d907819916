"""Read models that follow the log from the synchronous standby, their rows and checkpoints on the primary.

A read model (the hand facts, the ratings) reads the whole global order (`events/store/log.py`) and
writes a few rows: the reading is the load, and a replica can carry it. `Store.follow_from(log)` gives
the store a `follower`: the same database for every write and for the read model's own rows and
checkpoint, whose reads of the *log* go to a `FollowedLog`, and so do the reads of what the log's
events need (a game's kind, club and seats, its retracts, a hand's earlier events), which must come
from the node that showed the events (an imported game's row commits with its events: on a standby it
can be visible a moment before the primary sees it): the follower's parts are the `Followed*`
classes below, which the `Store` facade puts together. `projections/readmodels/hand_facts.py` and
`projections/readmodels/ratings/` take `store.follower`; with no follow configured it is the store itself.

Which node (docs/replication.md, "Read models across a failover"): only the **synchronous standby** or
the primary. An asynchronous standby may show an event the promoted node never had (its commit was
waiting for the synchronous standby when the primary died); the synchronous standby is the node Patroni
promotes, so what it showed survives. `SyncStandby` asks Patroni's REST API (`GET /cluster` on any
node) which member is the synchronous standby, and checks with the primary itself that its
`synchronous_standby_names` names that member (a stale answer from a cut-off node is not followed).
No synchronous standby (a failover under way), or Patroni unreachable: the primary.

Never behind what it already read: before a page is read from a node, that node must hold the event
at the cursor (the checkpoint's position; and when this process read that event itself, the same game
and seq there). A node that does not (a standby that has not replayed it yet, a node that was rewound)
is not read this time: the page comes from the primary, or, if the primary does not show it either
(its commit is still waiting for the standby), nothing is read and the read model waits. Reading past a
cursor a node does not hold is what would skip or repeat events (log.py's cursor falls back to the
event before it). Then, from a node that holds the cursor, log.py's argument holds: it returns only
events whose transactions it has seen end, and the nodes replay one history of WAL.

`tail_on_primary` (the default): when the standby has nothing more, the rest of the page is read from
the primary (from the standby's last event, which the primary must hold too): a search or a player's
page that catches its read model up first still sees every acknowledged append below the primary's
horizon (a transaction left open on the server holds newer ones back until it ends), though the standby
replays it a moment after the acknowledgement. The bulk of a catch-up, and a rebuild, is read on the
standby.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from events.envelope import Envelope
from events.store.base import Database, HoldsDatabase, make_engine
from events.store.log import CheckpointPage, LogFilter, LogReader
from events.store.players import PlayerBook
from events.store.ratings import RatingRecorder
from events.store.recorder import EventRecorder
from events.store.registry import Registry

log = logging.getLogger(__name__)

PRIMARY = "primary"
STANDBY = "standby"
#: how often the followed node is asked again (Patroni's view, the primary's synchronous_standby_names)
RECHECK_SECONDS = 2.0
#: how long the cursor may be missing from every node before it is logged as an error
LOST_AFTER_SECONDS = 10.0

Row = TypeVar("Row", bound=Sequence[Any])
T = TypeVar("T")


def node_url(template: str, host: str, port: int) -> str:
    """`template` (a database URL, perhaps multi-host) pointing at one node: `host:port`, no libpq host list."""
    url = make_url(template)
    url = url.difference_update_query(["host", "hostaddr", "port", "target_session_attrs"])
    return url.set(host=host, port=port).render_as_string(hide_password=False)


def sync_url_for(template: str, read_urls: Sequence[str]) -> Callable[[str, int], str]:
    """The URL of the node at `host:port`: the one of `read_urls` there if any, else `template` pointed there."""

    def url_for(host: str, port: int) -> str:
        for url in read_urls:
            parsed = make_url(url)
            if parsed.host == host and parsed.port == port:
                return url
        return node_url(template, host, port)

    return url_for


class SyncStandby:
    """Which node a read model follows: the one Patroni names the synchronous standby, confirmed on the primary.

    `patroni` are the base URLs of the nodes' REST APIs (`http://10.0.0.1:8008`); `url_for(host, port)`
    is the database URL of a member.
    """

    def __init__(self, patroni: Sequence[str], url_for: Callable[[str, int], str], *, timeout: float = 1.0) -> None:
        self.patroni = [p.rstrip("/") for p in patroni]
        self.url_for = url_for
        self.timeout = timeout
        #: the Patroni asked first: the last that answered (a dead node's API is not waited for each time)
        self._answered = 0

    def members(self) -> list[Mapping[str, Any]]:
        """The cluster's members as the first Patroni that answers sees them (none: none answered)."""
        for turn in range(len(self.patroni)):
            api = self.patroni[(self._answered + turn) % len(self.patroni)]
            try:
                with urllib.request.urlopen(f"{api}/cluster", timeout=self.timeout) as answer:
                    found = json.loads(answer.read())
            except (OSError, ValueError):
                continue
            members = found.get("members") if isinstance(found, dict) else None
            if isinstance(members, list):
                self._answered = (self._answered + turn) % len(self.patroni)
                return [m for m in members if isinstance(m, dict)]
        return []

    def pick(self, primary: HoldsDatabase) -> tuple[str, str] | None:
        """`(member name, database URL)` of the synchronous standby, or None: follow the primary."""
        for member in self.members():
            if member.get("role") != "sync_standby" or member.get("state") not in ("running", "streaming"):
                continue
            name, host, port = member.get("name"), member.get("host"), member.get("port")
            if not isinstance(name, str) or not isinstance(host, str) or not isinstance(port, int):
                continue
            if not self.named_on_primary(primary, name):
                log.info("Patroni names %s the synchronous standby, the primary does not: following the primary", name)
                return None
            return name, self.url_for(host, port)
        return None

    @staticmethod
    def named_on_primary(primary: HoldsDatabase, name: str) -> bool:
        """Whether the primary's `synchronous_standby_names` names `name` (its commits wait for that node)."""
        try:
            rows = primary.db.rows("SELECT current_setting('synchronous_standby_names'), pg_is_in_recovery()", ())
        except SQLAlchemyError:
            return False
        names, in_recovery = rows[0]
        return not in_recovery and name in re.findall(r"[A-Za-z0-9_.$-]+", str(names or ""))


class FollowedLog(LogReader):
    """The log reader a read model follows: the synchronous standby's (see the module docstring), else the primary's.

    `primary` is the primary's database (the `Store`, or any holder of its `Database`); `pick()` names
    the node to follow now (`(name, url)`, or None for the primary); it is asked again every `recheck`
    seconds and after a node failed. `read_from` counts the events read on each side.
    """

    def __init__(
        self,
        primary: HoldsDatabase,
        pick: Callable[[], tuple[str, str] | None],
        *,
        tail_on_primary: bool = True,
        recheck: float = RECHECK_SECONDS,
        durability: str | None = None,
    ) -> None:
        super().__init__(primary.db)
        #: the primary's own log reader (this one reads the followed node, or the primary when it must)
        self.primary = LogReader(primary.db)
        self.pick = pick
        self.tail_on_primary = tail_on_primary
        self.recheck = recheck
        self.durability = durability
        self.read_from = {STANDBY: 0, PRIMARY: 0}
        #: how often a standby did not hold the cursor and the page came from the primary (or waited)
        self.behind = 0
        self._lock = threading.Lock()
        self._nodes: dict[str, Database] = {}  # url -> the node's database (its own engine)
        self._current: tuple[str, Database] | None = None  # (name, database) followed now
        self._checked = 0.0  # monotonic time of the last pick
        #: per thread, the node its last page came from: the other reads the page's events need go there
        self._where = threading.local()
        #: (position, game_id, seq) of the last event this process read: the cursor's identity
        self._last: tuple[int, str, int] | None = None
        self._missing_since: float | None = None
        self._parts: dict[int, _Parts] = {}

    # ------------------------------------------------------------------ which node

    def followed(self) -> str:
        """The name of the node followed now (`primary` when none)."""
        current = self._node()
        return PRIMARY if current is None else current[0]

    def _node(self) -> tuple[str, Database] | None:
        now = time.monotonic()
        with self._lock:
            if now - self._checked < self.recheck:
                return self._current
            self._checked = now
        try:
            picked = self.pick()
        except Exception as error:  # Patroni down, say: the primary meanwhile
            log.warning("which node to follow: %s; following the primary", error)
            picked = None
        with self._lock:
            if picked is None:
                self._current = None
            else:
                name, url = picked
                db = self._nodes.get(url)
                if db is None:
                    db = self._nodes[url] = Database(make_engine(url, self.durability))
                if self._current is None or self._current[0] != name:
                    log.info("read models follow %s", name)
                self._current = (name, db)
            return self._current

    def _drop(self, error: Exception) -> None:
        """The followed node failed: the primary until the next pick (which is at once)."""
        with self._lock:
            if self._current is not None:
                log.warning("the followed node %s failed, the primary meanwhile: %s", self._current[0], error)
                self._current[1].engine.dispose()
            self._current = None
            self._checked = 0.0

    # ------------------------------------------------------------------ the cursor

    def holds(self, db: Database, after: int) -> bool:
        """Whether `db` shows the event at position `after` (the cursor), the same one this process read there."""
        if after <= 0:
            return True
        rows = db.rows(db.sql("SELECT game_id, seq FROM event WHERE position = ?"), (after,))
        if not rows:
            return False
        last = self._last
        return last is None or last[0] != after or (str(rows[0][0]), int(rows[0][1])) == last[1:]

    def _page(self, read: Callable[[LogReader, int, int], list[Row]], after: int, limit: int) -> list[Row]:
        """A page of the log after `after`, from the followed node if it holds the cursor, else the primary."""
        rows: list[Row] = []
        held = False  # whether a node showed the cursor's event
        current = self._node()
        if current is not None:
            try:
                if self.holds(current[1], after):
                    held = True
                    rows = read(LogReader(current[1]), after, limit)
                    self.read_from[STANDBY] += len(rows)
                    self._where.db = current[1]
                    if len(rows) >= limit or not self.tail_on_primary:
                        return self._kept(rows, missing=False, after=after)
                else:
                    self.behind += 1
            except SQLAlchemyError as error:
                self._drop(error)
                rows = []
        start = int(rows[-1][0]) if rows else after
        if not self.holds(self.primary.db, start):
            # the primary does not show the cursor's event yet (its commit waits for the standby), or
            # lost it: read nothing rather than skip or repeat
            return self._kept(rows, missing=not held and not rows, after=after)
        tail = read(self.primary, start, limit - len(rows))
        self.read_from[PRIMARY] += len(tail)
        if tail:
            self._where.db = self.primary.db
        return self._kept(rows + tail, missing=False, after=after)

    def _kept(self, rows: list[Row], *, missing: bool, after: int) -> list[Row]:
        """Remember the last event read (the next cursor's identity); say so when the cursor stays missing."""
        if rows:
            position, game_id, third = rows[-1][0], rows[-1][1], rows[-1][2]
            seq = third["seq"] if isinstance(third, dict) else third
            self._last = (int(position), str(game_id), int(seq))
            self._missing_since = None
        elif missing:
            now = time.monotonic()
            if self._missing_since is None:
                self._missing_since = now
            elif now - self._missing_since > LOST_AFTER_SECONDS:
                log.error(
                    "the event at the read model's checkpoint (position %d) is on no node for %.0f s: "
                    "lost in a failover? `tablebook rebuild` reads the log again",
                    after,
                    now - self._missing_since,
                )
                self._missing_since = now
        return rows

    # ------------------------------------------------------------------ the log reader's reads

    def read_positions(self, after: int = 0, limit: int = 1000) -> list[tuple[int, str, Envelope]]:
        if not self.horizon:  # SQLite (no replicas), or the test-only plain order: the primary's reader
            return self.primary.read_positions(after, limit)
        return self._page(lambda reader, a, n: reader.read_positions(a, n), after, limit)

    def read_texts(self, after: int = 0, limit: int = 1000) -> list[tuple[Any, ...]]:
        if not self.horizon:
            return self.primary.read_texts(after, limit)
        return self._page(lambda reader, a, n: reader.read_texts(a, n), after, limit)

    def read_filtered(self, after: int, limit: int, only: LogFilter | None) -> tuple[int, list[tuple[Any, ...]]]:
        """`LogReader.read_filtered` on the followed node when it holds the cursor's event, its tail (a page
        that is not full) read on to the primary's head; else the primary's page; nothing while no node
        shows the cursor's event. `upto`, where the checkpoint may go, is always a position of the node
        whose page it ends: no event below it was left unread."""
        if not self.horizon:
            return self.primary.read_filtered(after, limit, only)
        current = self._node()
        held = False
        if current is not None:
            try:
                if self.holds(current[1], after):
                    held = True
                    upto, rows = LogReader(current[1]).read_filtered(after, limit, only)
                    self.read_from[STANDBY] += len(rows)
                    self._where.db = current[1]
                    if len(rows) >= limit or not self.tail_on_primary or not self.holds(self.primary.db, upto):
                        self._kept(rows, missing=False, after=after)
                        self._mark(current[1], upto, rows)
                        return upto, rows
                    upto, tail = self.primary.read_filtered(upto, limit - len(rows), only)
                    self.read_from[PRIMARY] += len(tail)
                    if tail:
                        self._where.db = self.primary.db
                    self._kept(rows + tail, missing=False, after=after)
                    self._mark(self.primary.db, upto, rows + tail)
                    return upto, rows + tail
                self.behind += 1
            except SQLAlchemyError as error:
                self._drop(error)
        if not self.holds(self.primary.db, after):
            # the primary does not show the cursor's event yet (its commit waits for the standby), or
            # lost it: read nothing rather than skip or repeat
            self._kept([], missing=not held, after=after)
            return after, []
        upto, rows = self.primary.read_filtered(after, limit, only)
        self.read_from[PRIMARY] += len(rows)
        self._where.db = self.primary.db
        self._kept(rows, missing=False, after=after)
        self._mark(self.primary.db, upto, rows)
        return upto, rows

    def read_checkpointed(self, name: str, limit: int, only: LogFilter | None) -> CheckpointPage:
        """The checkpoint read on the primary (where the read models write it), then `read_filtered` from it: two
        statements, never `LogReader`'s one, whose page would come from the primary alone and whose move of the
        checkpoint a standby cannot make."""
        old = self.primary.checkpoint(name)
        upto, rows = self.read_filtered(old, limit, only)
        return CheckpointPage(old, upto, rows)

    def _mark(self, db: Database, upto: int, rows: Sequence[tuple[Any, ...]]) -> None:
        """Remember which event stands at `upto` on the node that gave the page, when the page's last row
        is not it (a filtered page moves the checkpoint past events it leaves out): the next page's
        `holds` then knows the cursor's event, and refuses a rewound node that holds another one there."""
        if upto <= 0 or (rows and int(rows[-1][0]) == upto):
            return
        found = db.rows(db.sql("SELECT game_id, seq FROM event WHERE position = ?"), (upto,))
        if found:
            self._last = (upto, str(found[0][0]), int(found[0][1]))

    def head_position(self) -> int:
        current = self._node()
        if current is not None:
            try:
                return LogReader(current[1]).head_position()
            except SQLAlchemyError as error:
                self._drop(error)
        return self.primary.head_position()

    # ------------------------------------------------------------------ what the events need, from their node

    def events_read(self, read: Callable[[_Parts], T]) -> T:
        """`read(parts)` on the node the last page came from; on the primary if that node fails."""
        db: Database = getattr(self._where, "db", self.primary.db)
        if db is not self.primary.db:
            try:
                return read(self._parts_of(db))
            except SQLAlchemyError as error:
                self._drop(error)
                self._where.db = self.primary.db
        return read(self._parts_of(self.primary.db))

    def _parts_of(self, db: Database) -> _Parts:
        found = self._parts.get(id(db))
        if found is None or found.db is not db:
            found = self._parts[id(db)] = _Parts(db)
        return found

    def dispose(self) -> None:
        with self._lock:
            for db in self._nodes.values():
                db.engine.dispose()
            self._nodes.clear()
            self._current = None
            self._checked = 0.0


class _Parts:
    """The store's parts over one node's database, for the reads a page's events need."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.registry = Registry(db)
        self.recorder = EventRecorder(db, self.registry)
        self.ratings = RatingRecorder(db)


class FollowedRegistry(Registry):
    """The registry of a follower store: a game's kind and club read on the node the log's page came from."""

    def __init__(self, db: Database, log: FollowedLog) -> None:
        super().__init__(db)
        self._log = log

    def game_kinds(self, game_ids: Sequence[str]) -> dict[str, tuple[str, int]]:
        return self._log.events_read(lambda parts: parts.registry.game_kinds(game_ids))


class FollowedRecorder(EventRecorder):
    """The event recorder of a follower store: a game's events and a hand's seqs read on the page's node."""

    def __init__(self, db: Database, registry: Registry, log: FollowedLog) -> None:
        super().__init__(db, registry)
        self._log = log

    def hand_seqs(self, game_id: str, hand: int, upto: int) -> tuple[int, int] | None:
        return self._log.events_read(lambda parts: parts.recorder.hand_seqs(game_id, hand, upto))

    def read_events(
        self, game_id: str, after: int = 0, limit: int | None = None, *, upto: int | None = None
    ) -> list[Envelope]:
        return self._log.events_read(lambda parts: parts.recorder.read_events(game_id, after, limit, upto=upto))

    def read_for_fold(self, game_id: str, after: int, upto: int) -> tuple[list[Envelope], str | None]:
        return self._log.events_read(lambda parts: parts.recorder.read_for_fold(game_id, after, upto))


class FollowedPlayers(PlayerBook):
    """The player book of a follower store: the seats of the page's games read on the page's node."""

    def __init__(self, db: Database, log: FollowedLog) -> None:
        super().__init__(db)
        self._log = log

    def game_seats(self, game_ids: Sequence[str]) -> dict[str, list[str]]:
        return self._log.events_read(lambda parts: parts.registry.players.game_seats(game_ids))

    def rated_seats(self, game_ids: Sequence[str]) -> dict[str, list[str]]:
        return self._log.events_read(lambda parts: parts.registry.players.rated_seats(game_ids))

    def rated_games(self, game_ids: Sequence[str]) -> dict[str, tuple[str, int, list[str]]]:
        return self._log.events_read(lambda parts: parts.registry.players.rated_games(game_ids))


class FollowedRatings(RatingRecorder):
    """The ratings' rows of a follower store, written on the primary; the games' retracts read on the page's node."""

    def __init__(self, db: Database, log: FollowedLog) -> None:
        super().__init__(db)
        self._log = log

    def retracts_of(self, game_ids: Sequence[str]) -> dict[str, list[tuple[int, int]]]:
        return self._log.events_read(lambda parts: parts.ratings.retracts_of(game_ids))


def sync_standby_log(
    primary: HoldsDatabase,
    patroni: Sequence[str],
    read_urls: Sequence[str] = (),
    *,
    tail_on_primary: bool = True,
    durability: str | None = None,
) -> FollowedLog:
    """The log on the synchronous standby Patroni names (`patroni`: its REST APIs), for `primary.follow_from`.

    A member's database URL is the one of `read_urls` at its host and port, else the primary's URL
    pointed there.
    """
    url = primary.db.engine.url.render_as_string(hide_password=False)
    standby = SyncStandby(patroni, sync_url_for(url, read_urls))
    return FollowedLog(primary, lambda: standby.pick(primary), tail_on_primary=tail_on_primary, durability=durability)
