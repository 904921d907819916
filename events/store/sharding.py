"""How each table would be placed on Citus, sharded by club (docs/sharding.md); tests/events/test_sharding.py.

Every table of `SQLModel.metadata` is declared here, as one of:

- distributed by `club_id` (`DISTRIBUTED`), co-located with `game` (`colocate_with => 'game'`): every
  primary key and unique key contains `club_id`, so each is enforced inside one shard;
- a reference table (`REFERENCE`): small, copied to every node, its keys unconstrained (clubs, and the
  credentials looked up before the club is known);
- local to the coordinator (`LOCAL`): bookkeeping of one deployment, never joined with club data.

`PENDING` names, for the distributed tables whose keys do not contain `club_id` yet, each such key
and what the sharding migration makes of it (docs/sharding.md, "The migration"). The lint test checks
that the list is exactly today's gaps: it may shrink, and a new table or key that is not shardable
fails `make test` until it is (or is declared here, with its plan).
"""

from __future__ import annotations

#: the distribution column of every distributed table
DISTRIBUTION_COLUMN = "club_id"

#: replicated to every node: small, read by key before a club is known; and the plans of club events (an
#: evening's rounds, tables and board sets: tens of rows an evening, read beside any of its tables' games)
REFERENCE = frozenset(
    {"club", "api_key", "share_token", "tournament", "tournament_round", "tournament_table", "board_set", "board"}
)

#: on the coordinator only
LOCAL = frozenset({"projection_checkpoint"})

#: sharded by club_id, co-located with `game`
DISTRIBUTED = frozenset(
    {
        "game",
        "event",
        "append_request",
        "snapshot",
        "snapshot_hand",
        "server_seed",
        "hand_fact",
        "rule_profile",
        "player",
        "game_player",
        "rating_change",
    }
)

#: (table, key columns today) -> the key after the sharding migration (which adds `club_id` where missing)
PENDING: dict[tuple[str, tuple[str, ...]], tuple[str, ...]] = {
    ("game", ("id",)): ("club_id", "id"),
    ("event", ("position",)): ("club_id", "position"),
    ("event", ("game_id", "seq")): ("club_id", "game_id", "seq"),
    ("append_request", ("game_id", "idempotency_key")): ("club_id", "game_id", "idempotency_key"),
    ("snapshot", ("game_id", "version", "seq")): ("club_id", "game_id", "version", "seq"),
    ("snapshot_hand", ("game_id", "version", "idx", "digest")): ("club_id", "game_id", "version", "idx", "digest"),
    ("server_seed", ("game_id", "commitment")): ("club_id", "game_id", "commitment"),
    ("hand_fact", ("id",)): ("club_id", "id"),
    ("player", ("id",)): ("club_id", "id"),
    ("game_player", ("game_id", "seat")): ("club_id", "game_id", "seat"),
    ("rating_change", ("id",)): ("club_id", "id"),
}

#: foreign keys Citus would refuse today (between distributed tables without `club_id`, or from a reference
#: table to a distributed one) -> what the migration makes of each
PENDING_FOREIGN_KEYS: dict[tuple[str, tuple[str, ...], str], str] = {
    ("event", ("game_id",), "game"): "(club_id, game_id) -> game (club_id, id)",
    ("append_request", ("game_id",), "game"): "(club_id, game_id) -> game (club_id, id)",
    ("server_seed", ("game_id",), "game"): "(club_id, game_id) -> game (club_id, id)",
    ("game_player", ("game_id",), "game"): "(club_id, game_id) -> game (club_id, id)",
    ("game_player", ("player_id",), "player"): "(club_id, player_id) -> player (club_id, id)",
    ("share_token", ("game_id",), "game"): "dropped: checked by the service when a token is made and read",
}
