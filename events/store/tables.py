"""The database tables (SQLModel), shared by the store and the migrations.

JSON payloads are stored as canonical JSON *text*, not a JSON column type:
the bytes hashed are then exactly the bytes kept, on SQLite and PostgreSQL
alike. Timestamps are ISO 8601 text for the same reason (they are hashed).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import BigInteger, Column, Index, Integer, SmallInteger, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

#: BIGINT on PostgreSQL; INTEGER on SQLite, where only INTEGER PRIMARY KEY autoincrements.
BigId = BigInteger().with_variant(Integer(), "sqlite")


class Club(SQLModel, table=True):
    """A card club: the owner of keys and games."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_column=Column(Text, unique=True, nullable=False))
    created_at: str = Field(sa_column=Column(Text, nullable=False))


class ApiKey(SQLModel, table=True):
    """An API key: only the sha256 of its secret is kept."""

    __tablename__ = "api_key"

    id: str = Field(primary_key=True, max_length=32)
    club_id: int = Field(foreign_key="club.id", index=True)
    role: str = Field(max_length=16)
    key_hash: str = Field(max_length=64)
    label: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    created_at: str = Field(sa_column=Column(Text, nullable=False))
    revoked_at: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class Game(SQLModel, table=True):
    """The stream registry, plus the head of each stream (updated with every append)."""

    id: str = Field(primary_key=True, max_length=32)
    club_id: int = Field(foreign_key="club.id", index=True)
    kind: str = Field(max_length=32, index=True)
    players: str = Field(sa_column=Column(Text, nullable=False))
    options: str = Field(sa_column=Column(Text, nullable=False))
    created_at: str = Field(sa_column=Column(Text, nullable=False, index=True))
    updated_at: str = Field(sa_column=Column(Text, nullable=False))
    genesis_hash: str = Field(max_length=64)
    seq: int = Field(default=0)
    hand: int = Field(default=0)
    status: str = Field(default="live", max_length=16, index=True)
    totals: str = Field(sa_column=Column(Text, nullable=False))
    winner: int | None = Field(default=None)
    head_hash: str = Field(max_length=64)
    #: optional labels given at creation (migration 0007): in no hash, like the players' names
    event_name: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    round_name: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    table_name: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    #: an import of a record the club holds already, stored on purpose (migration 0011): the original's id.
    #: A copy is a record, not a second result: ratings, statistics and standings skip it
    copy_of: str | None = Field(default=None, sa_column=Column(String(32), nullable=True))


class Event(SQLModel, table=True):
    """One appended event: never updated, never deleted (database triggers)."""

    __table_args__ = (
        UniqueConstraint("game_id", "seq", name="uq_event_game_seq"),
        # where a game's hidden hands begin (projections/reading/visibility.py): the first seq of a hand or a later one
        Index("ix_event_game_hand_seq", "game_id", "hand", "seq"),
    )

    position: int | None = Field(default=None, sa_column=Column(BigId, primary_key=True, autoincrement=True))
    game_id: str = Field(foreign_key="game.id", max_length=32)
    seq: int
    hand: int
    type: str = Field(max_length=32)
    #: the version of its type's shape it was written in (events/upcast.py); NULL: version 1, a row written
    #: before versions were recorded
    v: int | None = Field(default=None)
    data: str = Field(sa_column=Column(Text, nullable=False))
    result: str = Field(sa_column=Column(Text, nullable=False))
    violation: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    recorded_at: str = Field(sa_column=Column(Text, nullable=False))
    actor: str = Field(max_length=64)
    prev_hash: str = Field(max_length=64)
    hash: str = Field(max_length=64)
    #: which read models read it, decided when it was written (migration 0016; `events/store/mapper.py`
    #: `ReadFlags`): not hashed, never part of the envelope; NULL: not decided, the reads test the texts
    read_by: int | None = Field(default=None, sa_column=Column(SmallInteger, nullable=True))


#: What migration 0006 adds on PostgreSQL only, outside the models: `event.xact_id` (the transaction
#: id the log reader orders by, filled by its default, never named by a statement) and its index.
#: SQLite has no such column; `include_object` keeps schema comparisons (autogenerate, the
#: migration tests) from reporting them.
POSTGRES_ONLY = {("column", "xact_id"), ("index", "ix_event_xact_position")}


#: What migration 0012 adds outside the models: the read models' partial indexes on `event` (their
#: WHERE is the read's own SQL text, `events/store/log.py` `LogFilter`, over `read_by` since migration
#: 0016; on PostgreSQL over `xact_id`).
READ_MODEL_INDEXES = {("index", "ix_event_hand_facts"), ("index", "ix_event_ratings"), ("index", "ix_event_retracts")}


def include_object(obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any) -> bool:
    """Alembic's `include_object` hook: everything but the objects of `POSTGRES_ONLY` and `READ_MODEL_INDEXES`."""
    table = getattr(getattr(obj, "table", None), "name", None)
    return not (table == "event" and ((type_, name) in POSTGRES_ONLY or (type_, name) in READ_MODEL_INDEXES))


class AppendRequest(SQLModel, table=True):
    """An append made with an Idempotency-Key: a retry returns its events."""

    __tablename__ = "append_request"

    game_id: str = Field(primary_key=True, foreign_key="game.id", max_length=32)
    idempotency_key: str = Field(primary_key=True, max_length=200)
    body_hash: str = Field(max_length=64)
    first_seq: int
    last_seq: int
    created_at: str = Field(sa_column=Column(Text, nullable=False))


class HandFact(SQLModel, table=True):
    """Read model for search: a situation that happened in a hand (`sweep`, `gin`, `bust`...).

    Kept up to date from the global event order by a projection with a stored
    checkpoint; disposable: `tablebook rebuild` makes it again from zero.
    """

    __tablename__ = "hand_fact"

    id: int | None = Field(default=None, sa_column=Column(BigId, primary_key=True, autoincrement=True))
    club_id: int = Field(index=True)
    game_id: str = Field(max_length=32, index=True)
    hand: int
    seq: int
    situation: str = Field(max_length=32, index=True)
    seat: int | None = Field(default=None)


class ProjectionCheckpoint(SQLModel, table=True):
    """How far (global `position`) a read model has read the event log."""

    __tablename__ = "projection_checkpoint"

    name: str = Field(primary_key=True, max_length=64)
    position: int = Field(default=0, sa_column=Column(BigId, nullable=False, server_default="0"))
    updated_at: str = Field(sa_column=Column(Text, nullable=False))


class ShareToken(SQLModel, table=True):
    """A read-only link to one game's finished hands; only its hash is kept; revocable."""

    __tablename__ = "share_token"

    id: str = Field(primary_key=True, max_length=32)
    club_id: int = Field(foreign_key="club.id", index=True)
    game_id: str = Field(foreign_key="game.id", max_length=32, index=True)
    token_hash: str = Field(max_length=64)
    created_by: str = Field(max_length=64)
    created_at: str = Field(sa_column=Column(Text, nullable=False))
    revoked_at: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class Snapshot(SQLModel, table=True):
    """A cache of folded states (`projections/core/snapshots.py`): not hashed, not part of the record.

    A row is the state after event `seq` of a game, encoded by the game's code of `version`; a changed
    rule module has another version and never reads it. Deleting every row loses nothing.
    """

    game_id: str = Field(primary_key=True, max_length=32)
    version: str = Field(primary_key=True, max_length=64)
    seq: int = Field(primary_key=True)
    state: str = Field(sa_column=Column(Text, nullable=False))
    created_at: str = Field(sa_column=Column(Text, nullable=False))


class SnapshotHand(SQLModel, table=True):
    """A finished hand's score kept once for every snapshot that holds it (`projections/core/snapshots.py`): a cache.

    Rows form chains: `digest` is a hash of `prev` (the digest of the hand before, "" for the first) and
    `hand` (its text), so a snapshot names the whole history of its hands by the last digest, and
    hands of two branches of a game (before and after a retract) never mix. Deleting rows loses nothing.
    """

    __tablename__ = "snapshot_hand"

    game_id: str = Field(primary_key=True, max_length=32)
    version: str = Field(primary_key=True, max_length=64)
    idx: int = Field(primary_key=True)
    digest: str = Field(primary_key=True, max_length=64)
    prev: str = Field(sa_column=Column(String(64), nullable=False))
    hand: str = Field(sa_column=Column(Text, nullable=False))
    created_at: str = Field(sa_column=Column(Text, nullable=False))


#: the longest rule profile name: a label in a list, not a description
MAX_PROFILE_NAME = 80


class RuleProfile(SQLModel, table=True):
    """A club's named house rules: option values per game kind (migration 0009)."""

    __tablename__ = "rule_profile"

    club_id: int = Field(primary_key=True, foreign_key="club.id")
    name: str = Field(primary_key=True, max_length=MAX_PROFILE_NAME)
    #: canonical JSON `{kind: {option: value}}`
    options: str = Field(sa_column=Column(Text, nullable=False))
    created_at: str = Field(sa_column=Column(Text, nullable=False))
    updated_at: str = Field(sa_column=Column(Text, nullable=False))


class ServerSeed(SQLModel, table=True):
    """The secret of each server-dealt deck (`rules/server-deal.md`): 32 bytes from `secrets`, in hex.

    Keyed by the game and the deck's `commitment` (sha256 of the seed), which the `deck_committed`
    event names; the `deck_revealed` event publishes it when the hand is over. Written in the same
    transaction as its `deck_committed`, so a commitment is never stored without its secret (nor the
    other way round), and a hand in progress is still dealt and revealed after a restart. No route,
    export or log reads this table: only the write side's dealer and the reveal (`events/store/seeds.py`).
    """

    __tablename__ = "server_seed"

    game_id: str = Field(primary_key=True, foreign_key="game.id", max_length=32)
    commitment: str = Field(primary_key=True, max_length=64)
    hand: int
    seed: str = Field(max_length=64)
    created_at: str = Field(sa_column=Column(Text, nullable=False))


class Player(SQLModel, table=True):
    """A club's player (migration 0010): an id, the name shown, and other names it is known by.

    Games' seats refer to players through `game_player`; `game.players` keeps display copies of the
    names, rewritten in the same transaction as a rename, merge or erasure (so every process reads
    the new name with the game's row, which it reads on every request). `merged_into` names the
    player this one was merged into (its games moved there); `erased_at` is set by an erasure,
    which also empties `name` and `aliases`. Nothing here is in a hash.
    """

    __tablename__ = "player"

    id: str = Field(primary_key=True, max_length=32)
    club_id: int = Field(foreign_key="club.id", index=True)
    name: str = Field(sa_column=Column(Text, nullable=False))
    #: canonical JSON list of other names ("Ben K."), matched case-insensitively like the name
    aliases: str = Field(sa_column=Column(Text, nullable=False, server_default="[]"))
    created_at: str = Field(sa_column=Column(Text, nullable=False))
    merged_into: str | None = Field(default=None, sa_column=Column(String(32), nullable=True))
    erased_at: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class GamePlayer(SQLModel, table=True):
    """Which player sat in which seat of a game (migration 0010)."""

    __tablename__ = "game_player"

    game_id: str = Field(primary_key=True, foreign_key="game.id", max_length=32)
    seat: int = Field(primary_key=True)
    player_id: str = Field(foreign_key="player.id", max_length=32, index=True)


class RatingChange(SQLModel, table=True):
    """Read model (`projections/readmodels/ratings/`): one player's rating change in one rated result.

    A result is a game's end (Schnapsen, Casino, Smear), a Gin hand (the box against captain and
    sitter) or a Seven and a Half hand (each punter against the banker: one row per pair and side).
    `pool` is the rating it changes (`schnapsen`, `casino`, `cutthroat_smear`, `gin_rummy_3`,
    `seven_and_a_half.banker`, `seven_and_a_half.punter`). Disposable: `tablebook rebuild` makes it
    again from the events.
    """

    __tablename__ = "rating_change"
    __table_args__ = (Index("ix_rating_change_player_pool", "player_id", "pool", "id"),)

    id: int | None = Field(default=None, sa_column=Column(BigId, primary_key=True, autoincrement=True))
    club_id: int = Field(index=True)
    game_id: str = Field(max_length=32, index=True)
    kind: str = Field(max_length=32)
    pool: str = Field(max_length=48)
    hand: int
    seq: int
    position: int = Field(sa_column=Column(BigId, nullable=False))
    seat: int
    player_id: str = Field(max_length=32)
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    #: the win probability the model gave this player's side before the result, and what happened (1, 0.5, 0)
    expected: float
    actual: float
    #: canonical JSON `[{seat, player_id, mu, sigma}]`: the opponents' ratings before
    opponents: str = Field(sa_column=Column(Text, nullable=False))
    recorded_at: str = Field(sa_column=Column(Text, nullable=False))


# --------------------------------------------------------------------------- events: club evenings and tournaments


class Tournament(SQLModel, table=True):
    """An event of a club: a club evening or a tournament, with its players, its game, its movement and, when it
    plays duplicate, its boards (migration 0015). Called `tournament` so that it is never taken for the `event`
    table of the record; the API calls it an event (`/v1/events`)."""

    __tablename__ = "tournament"

    id: str = Field(primary_key=True, max_length=32)
    club_id: int = Field(foreign_key="club.id", index=True)
    name: str = Field(sa_column=Column(Text, nullable=False))
    #: the game every table plays
    kind: str = Field(max_length=32)
    #: `evening` (a club evening) or `tournament`
    category: str = Field(max_length=16)
    #: canonical JSON list of the players' names, in the event's order (its seeding)
    players: str = Field(sa_column=Column(Text, nullable=False))
    #: players at a table
    seats: int
    #: `round-robin`, `swiss`, `groups` or `free` (projections/tournaments/movements.py)
    movement: str = Field(max_length=16)
    rounds: int
    #: canonical JSON of the options every table's game is created with
    options: str = Field(sa_column=Column(Text, nullable=False))
    #: boards a round plays (duplicate); 0: no duplicate boards, each table deals its own
    boards: int = Field(default=0)
    #: what orders the standings: `matchpoints`, `imps` or `wins`
    scoring: str = Field(max_length=16)
    created_at: str = Field(sa_column=Column(Text, nullable=False))
    created_by: str = Field(max_length=64)
    #: an imported event: the id it had where it was recorded
    source_id: str | None = Field(default=None, sa_column=Column(String(32), nullable=True))


class TournamentRound(SQLModel, table=True):
    """A round of an event: who sits out, and when it was started and closed."""

    __tablename__ = "tournament_round"

    tournament_id: str = Field(primary_key=True, foreign_key="tournament.id", max_length=32)
    number: int = Field(primary_key=True)
    #: canonical JSON list of the indices (in the event's players) of those who sit this round out
    sit_out: str = Field(sa_column=Column(Text, nullable=False))
    started_at: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    closed_at: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class TournamentTable(SQLModel, table=True):
    """A table of a round: its players by seat and its game (none until the round starts), and how far it has
    played (`done_through`: its hands finished, up to that hand; the boards every table finished are revealed)."""

    __tablename__ = "tournament_table"

    tournament_id: str = Field(primary_key=True, foreign_key="tournament.id", max_length=32)
    round: int = Field(primary_key=True)
    number: int = Field(primary_key=True)
    #: canonical JSON list of the indices (in the event's players) of the players, seat 0 first
    players: str = Field(sa_column=Column(Text, nullable=False))
    game_id: str | None = Field(default=None, sa_column=Column(String(32), nullable=True, unique=True))
    done_through: int = Field(default=-1)
    #: the table has played every board it will (its game ended, or the round was closed)
    finished: bool = Field(default=False)


class BoardSet(SQLModel, table=True):
    """An event's duplicate boards (projections/core/boards.py): the public genesis and commitment, the secret
    the boards' seeds come from (never shown: like `server_seed`, read by the dealer and the reveal only), and
    the seeds added to the set before its first board was dealt."""

    __tablename__ = "board_set"

    tournament_id: str = Field(primary_key=True, foreign_key="tournament.id", max_length=32)
    genesis: str = Field(max_length=64)
    commitment: str = Field(max_length=64)
    count: int
    #: 32 bytes in hex; NULL for an imported set, whose boards are dealt by no server here
    secret: str | None = Field(default=None, sa_column=Column(String(64), nullable=True))
    #: canonical JSON list of the seeds as the shuffle reads them (`-:text`)
    seeds: str = Field(sa_column=Column(Text, nullable=False))
    created_at: str = Field(sa_column=Column(Text, nullable=False))
    #: the first board was dealt: the seeds are final
    sealed_at: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class DuplicateBoard(SQLModel, table=True):
    """One board of a set: its round and the table hand that plays it, its commitment, and once every table
    of its round has finished it, its revealed seed."""

    __tablename__ = "board"

    tournament_id: str = Field(primary_key=True, foreign_key="tournament.id", max_length=32)
    number: int = Field(primary_key=True)
    round: int
    hand: int
    commitment: str = Field(max_length=64)
    revealed_at: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    seed: str | None = Field(default=None, sa_column=Column(String(64), nullable=True))
