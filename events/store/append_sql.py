"""The SQL of the event recorder's appends and reads (`events/store/recorder.py`), with `?` placeholders (each
statement turned into the driver's style by `Database.sql` when the recorder is made).

Apart from the recorder so that the statements, and how their parameters line up (`check_of`, `BASE_END`,
`NO_CHECK`), are read in one place: the one-event statements of PostgreSQL and their checked forms, SQLite's head
moves, the group commit's batch statement, and the reads of a stream.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Integer, SmallInteger

from events.envelope import Envelope
from events.store.base import EVENTS
from events.store.mapper import ENVELOPE_SQL, EVENT_FIELDS, FOLD_SQL
from events.store.notify import CHANNEL
from events.store.registry import KeyRecord
from events.store.seeds import INSERT as INSERT_SEED

#: the placeholder of each `event` column, cast to the column's type (text for a VARCHAR: its length is checked by
#: the INSERT's own assignment, as for a plain INSERT's parameter), for `move_head_and_insert`
EVENT_CASTS = tuple(
    "?::" + ("smallint" if isinstance(t, SmallInteger) else "integer" if isinstance(t, Integer) else "text")
    for t in (EVENTS.c[name].type for name in EVENT_FIELDS)
)


SQL = {
    "move_head": "UPDATE game SET seq = ?, hand = ?, status = ?, totals = ?, winner = ?, head_hash = ?, "
    "updated_at = ? WHERE id = ? AND seq = ?",
    # SQLite: the head moved with its status left out of the SET when it is unchanged (the same values, `status`
    # last, and `AND status = ?` in the WHERE): SQLite rewrites the entry of every index whose column an UPDATE
    # sets, whatever the value, and `ix_game_status` cost a quarter of the head's UPDATE (5 of 21 us an append)
    "move_head_same_status": "UPDATE game SET seq = ?, hand = ?, totals = ?, winner = ?, head_hash = ?, "
    "updated_at = ? WHERE id = ? AND seq = ? AND status = ?",
    "head_seq": "SELECT seq FROM game WHERE id = ?",
    # the lock an UPDATE of the head takes (not FOR UPDATE: a foreign key check of another connection, a
    # snapshot row of this game written meanwhile, takes FOR KEY SHARE, which FOR UPDATE would block)
    "lock_head": "SELECT seq FROM game WHERE id = ? FOR NO KEY UPDATE",
    "insert_event": f"INSERT INTO event ({', '.join(EVENT_FIELDS)}) VALUES ({', '.join(['?'] * len(EVENT_FIELDS))})",
    "find_request": "SELECT body_hash, first_seq, last_seq FROM append_request WHERE game_id = ? "
    "AND idempotency_key = ?",
    "insert_request": "INSERT INTO append_request (game_id, idempotency_key, body_hash, first_seq, last_seq, "
    "created_at) VALUES (?, ?, ?, ?, ?, ?)",
    "read_events": f"SELECT {ENVELOPE_SQL} FROM event WHERE game_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?",
    "read_for_fold": f"SELECT {FOLD_SQL} FROM event WHERE game_id = ? AND seq > ? AND seq <= ? ORDER BY seq",
    # SQLite, without statistics, would take MIN(seq) from the (game_id, seq) key and walk the whole game
    # from seq 1 (1.3 ms at 10,000 events); the hand index finds it among the last hands' rows
    "first_seq_from_hand": "SELECT MIN(seq) FROM event {by_hand} WHERE game_id = ? AND hand >= ? AND seq <= ?",
    "retracts": "SELECT seq, data FROM event WHERE game_id = ? AND seq > ? AND seq <= ? AND type = 'retract' "
    "ORDER BY seq",
    "hand_seqs": "SELECT MIN(seq), MAX(seq) FROM event WHERE game_id = ? AND hand = ? AND seq <= ?",
    # what a reader's view of a game turns on, in one round trip (projections/reading/retracts.py): a hand's
    # first and last seq, the first seq of the hands from a hidden one on, and every retract
    "reading_marks": "SELECT 0, MIN(seq), MAX(seq), NULL FROM event WHERE game_id = ? AND hand = ? AND seq <= ? "
    "UNION ALL SELECT 1, MIN(seq), NULL, NULL FROM event {by_hand} WHERE game_id = ? AND hand >= ? AND seq <= ? "
    "UNION ALL SELECT 2, seq, NULL, data FROM event WHERE game_id = ? AND seq > 0 AND seq <= ? "
    "AND type = 'retract' ORDER BY 1, 2",
    "insert_seed": INSERT_SEED,
    # PostgreSQL: an append of one event in one statement (`_append_in_one`): the head moved, and the row inserted
    # only if it was (each value cast to its column's type: a parameter of a SELECT has none of its own)
    "move_head_and_insert": "WITH moved AS (UPDATE game SET seq = ?, hand = ?, status = ?, totals = ?, winner = ?, "
    "head_hash = ?, updated_at = ? WHERE id = ? AND seq = ? RETURNING id) "
    f"INSERT INTO event ({', '.join(EVENT_FIELDS)}) SELECT {', '.join(EVENT_CASTS)} FROM moved",
}


def key_still(key_id: str, key_hash: str, role: str, club: str) -> str:
    """The condition that an API key is still the row a process read on an earlier request (a `KeyRecord`): the same
    hash, not revoked, the same role, of the game's club under the same name; what `api.auth` checks of the row
    it reads (`Registry.find_key_and_game`), checked by the statement that appends (`append_checked`)."""
    return (
        "EXISTS (SELECT 1 FROM api_key JOIN club ON club.id = api_key.club_id "
        f"WHERE api_key.id = {key_id} AND api_key.key_hash = {key_hash} AND api_key.revoked_at IS NULL "
        f"AND api_key.role = {role} AND api_key.club_id = game.club_id AND club.name = {club})"
    )


#: PostgreSQL, `append_checked`: `move_head_and_insert` that moves the head only if the game's row is still the one
#: the event was decided on (its seq, its head's hash, its club) and the key still `key_still`; parameters: those of
#: `move_head_and_insert` with the check's (`check_of`) after the base seq
SQL["move_head_and_insert_checked"] = SQL["move_head_and_insert"].replace(
    " RETURNING id)", f" AND head_hash = ? AND club_id = ? AND {key_still('?', '?', '?', '?')} RETURNING id)", 1
)
#: SQLite, `append_checked`: the head's UPDATE (`move_head_same_status`, then `move_head`) only if the game's row is
#: still the one the event was decided on and the key still `key_still`; parameters: the UPDATE's, then `check_of`'s
_CHECKED_HEAD = f" AND head_hash = ? AND club_id = ? AND {key_still('?', '?', '?', '?')}"
SQL["move_head_same_status_checked"] = SQL["move_head_same_status"] + _CHECKED_HEAD
SQL["move_head_checked"] = SQL["move_head"] + _CHECKED_HEAD
#: PostgreSQL, group commit (`events/store/group_commit.py`): the heads of a batch of single-event appends to
#: distinct games moved and their events inserted in one statement, from one array a column (`unnest`: the same
#: text whatever the batch's size, prepared once). The games' rows are locked first, in the order of their ids
#: (`locked`; see the module docstring of group_commit.py on deadlocks); a head moves only if it is at its
#: append's base, and only a moved game's event is inserted. Answers the moved games (and sends their NOTIFYs).
_HEAD_ARRAYS = ("integer", "integer", "text", "text", "integer", "text", "text", "text", "integer")
_HEAD_NAMES = ("new_seq", "new_hand", "new_status", "new_totals", "new_winner", "new_head_hash", "new_updated_at")
#: a member's check (`check_of`; all NULL: an append whose key was read in its own request, written as before)
_CHECK_NAMES = ("k_base_hash", "k_club_id", "k_id", "k_hash", "k_role", "k_club")
_CHECK_TYPES = ("text", "integer", "text", "text", "text", "text")
_INPUT_NAMES = (*_HEAD_NAMES, "id", "base_seq", *(f"e_{name}" for name in EVENT_FIELDS), "payload", *_CHECK_NAMES)
_INPUT_TYPES = (*_HEAD_ARRAYS, *(cast.removeprefix("?::") for cast in EVENT_CASTS), "text", *_CHECK_TYPES)
_CHECKED = (
    "(input.k_id IS NULL OR (game.head_hash = input.k_base_hash AND game.club_id = input.k_club_id AND "
    f"{key_still('input.k_id', 'input.k_hash', 'input.k_role', 'input.k_club')}))"
)
MOVE_HEADS_AND_INSERT = (
    "WITH input AS MATERIALIZED (SELECT * FROM unnest("
    + ", ".join(f"?::{kind}[]" for kind in _INPUT_TYPES)
    + f") AS input({', '.join(_INPUT_NAMES)})), "
    "locked AS MATERIALIZED (SELECT game.id FROM game JOIN input ON game.id = input.id "
    "ORDER BY game.id FOR NO KEY UPDATE OF game), "
    "moved AS (UPDATE game SET seq = new_seq, hand = new_hand, status = new_status, totals = new_totals, "
    "winner = new_winner, head_hash = new_head_hash, updated_at = new_updated_at FROM input JOIN locked "
    "ON locked.id = input.id WHERE game.id = input.id AND game.seq = input.base_seq "
    f"AND {_CHECKED} RETURNING game.id), "
    f"inserted AS (INSERT INTO event ({', '.join(EVENT_FIELDS)}) "
    f"SELECT {', '.join(f'input.e_{name}' for name in EVENT_FIELDS)} FROM input JOIN moved ON moved.id = input.id) "
    "SELECT moved.id{notify} FROM moved JOIN input ON input.id = moved.id"
)
#: the server's answers after which a batch has certainly rolled back, and each member may write alone: a data
#: error (22: a value one member's column refuses), an integrity error (23: one member's row collides), a
#: transaction rollback (40: a deadlock, 40P01), the statement cancelled (57014)
BATCH_REFUSALS = ("22", "23", "40")

#: PostgreSQL: the statements that move the head also send the append's NOTIFY (`events/store/notify.py`), which
#: PostgreSQL delivers when the transaction commits and never if it rolls back: the wake-up of the other
#: processes' streams comes after the commit, with no statement of its own (the payload is the last parameter)
NOTIFYING = {
    "move_head": f"{SQL['move_head']} RETURNING pg_notify('{CHANNEL}', CAST(? AS text))",
    "move_head_and_insert": f"{SQL['move_head_and_insert']} RETURNING pg_notify('{CHANNEL}', CAST(? AS text))",
    "move_head_and_insert_checked": f"{SQL['move_head_and_insert_checked']} "
    f"RETURNING pg_notify('{CHANNEL}', CAST(? AS text))",
}
#: a `Pending` append's check columns in a batch when it has none
NO_CHECK = (None,) * len(_CHECK_NAMES)
#: where the check's parameters go in `move_head_and_insert_checked`'s: after the head's 7, the game id and base seq
BASE_END = len(_HEAD_NAMES) + 2


def check_of(envelope: Envelope, key: KeyRecord) -> tuple[Any, ...]:
    """`append_checked`'s check of one event by `key`, in the order of `_CHECK_NAMES`: the hash the event chains to
    (the game's head hash it was decided on), the key's club, id, hash, role and club name."""
    return (envelope["prev_hash"], key.club_id, key.id, key.key_hash, key.role, key.club)
