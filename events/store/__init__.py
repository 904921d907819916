"""The append-only event store, the same code on SQLite and PostgreSQL, split along eventsourcing's seams.

- `recorder.py`, the event recorder: append a batch on an expected seq, once per Idempotency-Key;
  read a stream. No global lock: appends to different games run in parallel on PostgreSQL, and there
  `group_commit.py` writes single-event appends to different games that arrive together in one transaction
  (on SQLite `turn_commit.py`: the appends of one turn of the event loop). Its parts: `append_sql.py` (its
  statements), `heads.py` (what an append passes around), `turns.py` (one append at a time per game),
  `one_statement.py` (PostgreSQL's one-statement writes), `single_writer.py` (SQLite's checked appends),
  `stream_reads.py` (a stream's reads).
- `log.py`, the log reader: every game's events in one global order that a follower reads without
  ever skipping an event that commits late (transaction ids on PostgreSQL; why, in its docstring).
- `tracking.py`, the tracking recorder: read models' rows with their checkpoints (`ratings.py`: the
  ratings' rows).
- `registry.py`: clubs, API keys, games (the stream registry and each stream's head); `players.py`
  the club's players, `shares.py` share tokens, `profiles.py` rule profiles, `seeds.py` the server
  seeds of server-dealt decks.
- `snapshots.py`: the snapshot cache (disposable).
- `mapper.py`: envelopes <-> `event` rows, the payloads encoded once and stored as the hashed bytes.
- `base.py`: the `Database` handle every part is built on (the engine, durability, raw SQL helpers),
  the table handles; `dialect.py`: everything that differs between SQLite and PostgreSQL, in one place;
  `tables.py`: the SQLModel tables.
- `notify.py`: wakes a game's live streams when it moves (LISTEN/NOTIFY; in-process on SQLite).
- `follow.py`: read models that read the log on the synchronous standby (`Store.follow_from`).
- `replicas.py`: which store a read goes to (the primary or a replica, with read-your-writes).

Each part takes the `Database` it works on (and the other parts it needs), never this facade: the
modules that are handed "a store" by their callers (`shares`, `profiles`, `notify`, `follow`) ask only
for something that holds a `Database` (`base.HoldsDatabase`). Only `replicas.py`, which chooses between
whole stores, names `Store`.

`Store` is the facade the service layer and the tests hold: it makes one engine and the parts over
it, and exposes each part's methods under the names they always had. New code may take the part it
needs (`store.recorder`, `store.log`, ...) instead.
"""

from __future__ import annotations

from sqlalchemy import Engine

from events.store.base import (
    CLUBS,
    DEFAULT_URL,
    DURABILITY_MODES,
    EVENTS,
    GAMES,
    KEYS,
    MAX_POSITION,
    MAX_SEQ,
    REQUESTS,
    Database,
    durability_from,
    make_engine,
    new_id,
    shown_url,
)
from events.store.dialect import Dialect
from events.store.follow import (
    FollowedLog,
    FollowedPlayers,
    FollowedRatings,
    FollowedRecorder,
    FollowedRegistry,
    SyncStandby,
)
from events.store.log import LogReader
from events.store.mapper import envelope_from_row, event_row
from events.store.players import PlayerBook, PlayerRecord
from events.store.ratings import RatingRecorder
from events.store.recorder import DuplicateRequest, EventRecorder, Head, HeldHead, PriorRequest, commit_delay_from
from events.store.registry import GameRecord, KeyRecord, Registry
from events.store.seeds import SeedRow, SeedVault
from events.store.snapshots import SnapshotCache
from events.store.tracking import TrackingRecorder

__all__ = [
    "CLUBS",
    "DEFAULT_URL",
    "DURABILITY_MODES",
    "EVENTS",
    "GAMES",
    "KEYS",
    "MAX_POSITION",
    "MAX_SEQ",
    "REQUESTS",
    "Database",
    "Dialect",
    "DuplicateRequest",
    "EventRecorder",
    "FollowedLog",
    "GameRecord",
    "Head",
    "HeldHead",
    "KeyRecord",
    "LogReader",
    "PlayerBook",
    "PlayerRecord",
    "PriorRequest",
    "RatingRecorder",
    "Registry",
    "SeedRow",
    "SeedVault",
    "SnapshotCache",
    "Store",
    "SyncStandby",
    "TrackingRecorder",
    "commit_delay_from",
    "durability_from",
    "envelope_from_row",
    "event_row",
    "make_engine",
    "new_id",
    "shown_url",
]


class Store:
    """One database: the registry, the event recorder, the log reader, the tracking recorder, the snapshot cache."""

    def __init__(
        self, url: str = DEFAULT_URL, engine: Engine | None = None, *, followed: FollowedLog | None = None
    ) -> None:
        self.url = url
        self.engine = engine or make_engine(url)
        self.db = Database(self.engine)
        #: `"sqlite"` or `"postgresql"`; the store's parts ask `db.dialect` (`events/store/dialect.py`) instead
        self.dialect: str = self.db.dialect.name
        #: the parts; a follower store (`followed`: see `follow_from`) reads the log, and what its events
        #: need, through the followed log, and writes its rows and checkpoints here (events/store/follow.py)
        self.registry: Registry
        self.recorder: EventRecorder
        self.log: LogReader
        #: the club's players (`events/store/players.py`) and the ratings read model's rows
        self.players: PlayerBook
        self.ratings: RatingRecorder
        if followed is None:
            self.registry = Registry(self.db)
            self.recorder = EventRecorder(self.db, self.registry)
            self.log = LogReader(self.db)
            self.players = self.registry.players
            self.ratings = RatingRecorder(self.db)
        else:
            self.registry = FollowedRegistry(self.db, followed)
            self.recorder = FollowedRecorder(self.db, self.registry, followed)
            self.log = followed
            self.players = FollowedPlayers(self.db, followed)
            self.ratings = FollowedRatings(self.db, followed)
        self.tracking = TrackingRecorder(self.db)
        self.snapshots = SnapshotCache(self.db)
        #: the server seeds of server-dealt decks: read by the write side only (projections/core/recorder.py)
        self.seeds = SeedVault(self.db)
        #: the store the read models (hand facts, ratings) run on: this one, or after `follow_from` the same
        #: database with its log read on the synchronous standby (events/store/follow.py)
        self.follower: Store = self
        self._followed: FollowedLog | None = None

        registry, recorder, log, tracking, snapshots = (
            self.registry,
            self.recorder,
            self.log,
            self.tracking,
            self.snapshots,
        )
        # the registry
        self.ensure_club = registry.ensure_club
        self.club_name = registry.club_name
        self.clubs = registry.clubs
        self.add_key = registry.add_key
        self.find_key = registry.find_key
        self.find_key_and_game = registry.find_key_and_game
        self.list_keys = registry.list_keys
        self.revoke_key = registry.revoke_key
        self.create_game = registry.create_game
        self.get_game = registry.get_game
        self.list_games = registry.list_games
        self.game_ids = registry.game_ids
        self.set_players = registry.set_players
        self.iter_games = registry.iter_games
        self.count_games = registry.count_games
        self.find_same_chain = registry.find_same_chain
        self.games_with_player = registry.games_with_player
        self.game_kinds = registry.game_kinds
        # the event recorder
        self.append = recorder.append
        self.import_game = recorder.import_game
        self.find_request = recorder.find_request
        self.read_events = recorder.read_events
        self.read_for_fold = recorder.read_for_fold
        self.iter_events = recorder.iter_events
        self.first_seq_from_hand = recorder.first_seq_from_hand
        self.retracts = recorder.retracts
        self.hand_seqs = recorder.hand_seqs
        # the log reader
        self.read_positions = log.read_positions
        self.head_position = log.head_position
        self.iter_typed_events = log.iter_typed_events
        # the tracking recorder (read models)
        self.projection_position = tracking.projection_position
        self.commit_hand_facts = tracking.commit_hand_facts
        self.reset_hand_facts = tracking.reset_hand_facts
        self.hand_fact_rows = tracking.hand_fact_rows
        self.hits = tracking.hits
        self.search_games = tracking.search_games
        # the snapshot cache
        self.read_snapshot = snapshots.read_snapshot
        self.write_snapshots = snapshots.write_snapshots
        self.delete_snapshots = snapshots.delete_snapshots
        self.delete_snapshot_hands = snapshots.delete_snapshot_hands
        self.read_snapshot_hands = snapshots.read_snapshot_hands
        self.snapshot_seqs = snapshots.snapshot_seqs

    def follow_from(self, followed: FollowedLog) -> None:
        """Read models on this store read the log through `followed` (the synchronous standby's, else this
        store's); their rows and checkpoints are still written here (events/store/follow.py)."""
        self._followed = followed
        self.follower = Store(self.url, engine=self.engine, followed=followed)

    def dispose(self) -> None:
        """Close every pooled connection (the followed nodes' too), and the one the appends keep (SQLite)."""
        if self._followed is not None:
            self._followed.dispose()
        self.db.drop_writer_connection()
        if self.follower is not self:
            self.follower.db.drop_writer_connection()
        self.engine.dispose()
