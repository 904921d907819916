"""The one mapping between envelopes and `event` rows.

A row keeps `data`, `result` and `violation` as canonical JSON text: the bytes hashed are the bytes
kept (`events/store/tables.py`). An envelope from `events.envelope.seal` carries those texts already (it
encoded each payload once and hashed those same bytes), and they are written as they are; any other
envelope (an import of a verified export, a test's) is encoded here, with the same canonical codec, so
its hash, computed over the decoded envelope, covers exactly the stored text too.

A row also says which read models read it (`read_by`, migration 0016): bits decided here, when the row is
written, by the read models' own filters (`ReadFlags`), so that the partial indexes the reads walk test
one small integer on insert instead of twenty substrings of the JSON texts. They are not part of the
envelope and not hashed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from events.codec import dumps, loads
from events.envelope import Envelope, SealedEnvelope
from events.store.base import EVENTS

#: the `event` columns an envelope is written to, in the order of `row_values`
EVENT_FIELDS = (
    "game_id",
    "seq",
    "hand",
    "type",
    "v",
    "data",
    "result",
    "violation",
    "recorded_at",
    "actor",
    "prev_hash",
    "hash",
    "read_by",
)

#: the columns an envelope is read back from, in the order `envelope_from_values` takes them
ENVELOPE_COLUMNS = (
    EVENTS.c.seq,
    EVENTS.c.hand,
    EVENTS.c.type,
    EVENTS.c.v,
    EVENTS.c.data,
    EVENTS.c.recorded_at,
    EVENTS.c.actor,
    EVENTS.c.result,
    EVENTS.c.violation,
    EVENTS.c.prev_hash,
    EVENTS.c.hash,
)
#: the same columns as SQL text, for the raw statements
ENVELOPE_SQL = ", ".join(column.name for column in ENVELOPE_COLUMNS)
#: the columns a fold reads of each event (`fold_envelope_from_values`): what `engine.fold` takes of an envelope,
#: and the hash of the event whose seq is the statement's first parameter (the head's: NULL on every other row)
FOLD_SQL = "seq, type, v, data, CASE WHEN seq = ? THEN hash END"


def payload_texts(env: Envelope) -> tuple[str, str, str | None]:
    """The stored texts of `data`, `result`, `violation`: those `seal` hashed, or encoded now."""
    if isinstance(env, SealedEnvelope):
        return env.texts
    return dumps(env["data"]), dumps(env["result"]), dumps(env["violation"]) if "violation" in env else None


class ReadFilter(Protocol):
    """What `ReadFlags` asks of a read model's filter: `events.store.log.LogFilter` (named here by its shape,
    the log reader being built on this module)."""

    @property
    def types(self) -> tuple[str, ...]: ...
    @property
    def result_marks(self) -> tuple[str, ...]: ...
    @property
    def data_marks(self) -> tuple[str, ...]: ...
    @property
    def first_events(self) -> bool: ...
    @property
    def flag(self) -> int: ...


#: a test of one event's stored values: `(type, seq, data text, result text) -> bits`
FlagTest = Callable[[str, int, str, str], int]


def _searcher(marks: Iterable[str]) -> Callable[[str], object] | None:
    """Whether a text holds any of `marks` (one scan, plain substrings); None when there are none."""
    found = sorted(set(marks))
    return re.compile("|".join(re.escape(mark) for mark in found)).search if found else None


class ReadFlags:
    """The bits of `event.read_by`: which read models' filters admit an event, decided when it is written.

    Each bit is one read model's `LogFilter` (the bits are the schema's, migration 0016: `BITS`), told
    here by the read model itself (`register`, when `projections/readmodels` is imported). A row gets bits
    only when every bit has its filter: a writer that knows none of them, or not all, writes NULL, and the
    reads test that row's texts as before, so a missing registration makes a read slower, never wrong.
    The answer is `LogFilter.admits` for each filter (the same substrings as the SQL), made cheap: one
    scan of each text for every mark of every filter, and a filter's own scan only when one was found.
    """

    #: the bits migration 0016 defines (1: the hand facts, 2: the ratings)
    BITS = (1, 2)

    def __init__(self) -> None:
        self._filters: dict[int, ReadFilter | None] = {}
        #: the test of every bit (`of`), None while a bit has no filter: `row_values` calls it directly
        self.test: FlagTest | None = None

    def register(self, flag: int, only: ReadFilter | None) -> None:
        """Bit `flag` is set for the events `only` admits (None: for every event).

        Raises:
            ValueError: `flag` is not one of `BITS`, or `only` says another.
        """
        if flag not in self.BITS or (only is not None and only.flag != flag):
            raise ValueError(f"read flag {flag}: not one of {self.BITS} or not the filter's own ({only!r})")
        self._filters[flag] = only
        self.test = self._compile() if set(self._filters) == set(self.BITS) else None

    def of(self, kind: str, seq: int, data: str, result: str) -> int | None:
        """The bits of an event with these stored values; None while a bit has no filter."""
        test = self.test
        return None if test is None else test(kind, seq, data, result)

    def _compile(self) -> FlagTest:
        always = first = 0
        by_type: dict[str, int] = {}
        in_result: list[tuple[int, Callable[[str], object]]] = []
        in_data: list[tuple[int, Callable[[str], object]]] = []
        for flag, only in self._filters.items():
            if only is None:
                always |= flag
                continue
            for kind in only.types:
                by_type[kind] = by_type.get(kind, 0) | flag
            if only.first_events:
                first |= flag
            if (search := _searcher(only.result_marks)) is not None:
                in_result.append((flag, search))
            if (search := _searcher(only.data_marks)) is not None:
                in_data.append((flag, search))
        any_result = _searcher(m for f in self._filters.values() if f is not None for m in f.result_marks)
        any_data = _searcher(m for f in self._filters.values() if f is not None for m in f.data_marks)

        def test(kind: str, seq: int, data: str, result: str) -> int:
            bits = always | by_type.get(kind, 0)
            if seq == 1:
                bits |= first
            if any_result is not None and any_result(result):
                for flag, search in in_result:
                    if not bits & flag and search(result):
                        bits |= flag
            if any_data is not None and any_data(data):
                for flag, search in in_data:
                    if not bits & flag and search(data):
                        bits |= flag
            return bits

        return test


#: this process's read flags (every writer's rows): the read models register their filters on import
READ_FLAGS = ReadFlags()


def row_values(game_id: str, env: Envelope) -> tuple[Any, ...]:
    """The values of an envelope's `event` row, in `EVENT_FIELDS` order.

    Called once a row of every append: `payload_texts` and `ReadFlags.of` are inlined (two Python calls of the
    row's 1.1 us, measured on Schnapsen and Seven and a Half)."""
    data, result, violation = env.texts if isinstance(env, SealedEnvelope) else payload_texts(env)
    kind, seq = env["type"], env["seq"]
    test = READ_FLAGS.test
    return (
        game_id,
        seq,
        env["hand"],
        kind,
        env.get("v"),
        data,
        result,
        violation,
        env["recorded_at"],
        env["actor"],
        env["prev_hash"],
        env["hash"],
        None if test is None else test(kind, seq, data, result),
    )


def event_row(game_id: str, env: Envelope) -> dict[str, Any]:
    """The `event` table row of an envelope, as a mapping (for Core inserts)."""
    return dict(zip(EVENT_FIELDS, row_values(game_id, env), strict=True))


def envelope_from_values(row: Sequence[Any]) -> Envelope:
    """The envelope of the `ENVELOPE_COLUMNS` of a row: the exact dict that was hashed, keys in seal's order."""
    seq, hand, kind, version, data, recorded_at, actor, result, violation, prev_hash, hash_ = row
    envelope: Envelope
    if version is None:  # a row written before versions were recorded: version 1, and no `v` was hashed
        envelope = {
            "seq": seq,
            "hand": hand,
            "type": kind,
            "data": loads(data),
            "recorded_at": recorded_at,
            "actor": actor,
            "result": loads(result),
            "prev_hash": prev_hash,
        }
    else:
        envelope = {
            "seq": seq,
            "hand": hand,
            "type": kind,
            "v": version,
            "data": loads(data),
            "recorded_at": recorded_at,
            "actor": actor,
            "result": loads(result),
            "prev_hash": prev_hash,
        }
    if violation is not None:
        envelope["violation"] = loads(violation)
    envelope["hash"] = hash_
    return envelope


def envelope_from_row(row: Any) -> Envelope:
    """A stored row (a Core row with the `ENVELOPE_COLUMNS`, by name) back into its envelope."""
    return envelope_from_values(
        (
            row.seq,
            row.hand,
            row.type,
            row.v,
            row.data,
            row.recorded_at,
            row.actor,
            row.result,
            row.violation,
            row.prev_hash,
            row.hash,
        )
    )


def fold_envelope_from_values(row: Sequence[Any]) -> Envelope:
    """The part of an envelope a fold reads, from the `FOLD_SQL` columns of a row: `seq`, `type`, `data` and,
    when recorded, the version `v` (`events.upcast` reads an older version's data in today's shape); the
    head's hash, the row's last column, is the reader's to take (`EventRecorder.read_for_fold`).

    A fold (`engine.fold`, the recorder's load of a game's state) reads no hash, time, actor nor stored
    result: those columns are left in the database (a whole row's read and decode, `envelope_from_values`,
    cost about twice what these four do), and the one `data` text decoded is the one the ceiling decodes.
    """
    seq, kind, version, data, _ = row
    if version is None:
        return {"seq": seq, "type": kind, "data": loads(data)}
    return {"seq": seq, "type": kind, "v": version, "data": loads(data)}
