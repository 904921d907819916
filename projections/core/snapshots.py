"""Snapshots: folded states kept in the `snapshot` table, so that no read folds from event 1.

The table is a cache (DESIGN.md): a row is not hashed and not part of the record, and deleting every
row changes no answer, only how far a read folds. A row is keyed by game, seq and *version*: a hash
of the game module's source files, `projections/core/rules.py`, `projections/core/engine.py` and the codec
version, computed once per process (`version_of`). A changed rule module has another version, so it
never reads a state its predecessor folded.

Where snapshots are taken (`is_boundary`): at every hand boundary (the state right after a hand
ended: `hand_in_progress` was true before the event and is false after it) and at every seq that is
a multiple of `EVERY`, whichever comes first. They are written when a fold passes them (a cache
miss of the recorder, a state at a seq, a replay), in a separate short transaction; a row another
process wrote first is left as it is; none is written past the head the game's row names.

Where a fold starts (`Recorder._start`, the rule for retracts): a fold to seq `N` starts at the
newest snapshot `S <= N`, and then reads the events `(S, N]`. A `retract` at `R` in that span
restores the state at its `to_seq`: when `to_seq >= S` the fold meets that state on its way (`walk`
keeps it, the snapshot itself included); when `to_seq < S` it does not, so the fold starts again at
the newest snapshot at or below that `to_seq` (or at the initial state), and so on until no retract
of the span reaches below its start. A retract never reaches past an earlier one (`retract_floor`),
so this ends, and usually at once.

Encoding (`encode` / `decode`): never pickle (whoever holds the database could plant code). States
are frozen dataclasses of tuples, frozensets, mappings, ints, strs, None and nested dataclasses; they
are written as JSON (orjson) with tags: a dataclass is `{"__dc": "module:QualName", field: value...}`,
a tuple `{"__t": [...]}`, a list `[...]`, a frozenset `{"__fs": [...]}`, a set `{"__s": [...]}`, a
mapping proxy `{"__mp": [[key, value]...]}`, a dict `{"__d": [[key, value]...]}`, an enum member
`{"__e": "module:QualName", "v": value}`, and an object of a `projections` class that defines its own
`__reduce__` returning `(its class, args)` (an immutable container such as `HandLog`) is
`{"__r": "module:QualName", "a": [args...]}`. Decoding makes only dataclasses, enums and such classes
defined under the `projections` package (an allow-list by module prefix, checked with
`dataclasses.is_dataclass` or the class's own `__reduce__`); a dataclass is set field by field (no
`__init__`, no `__post_init__` runs). Anything else is refused (`SnapshotError`).

A set's members are written in the order of their JSON bytes (`_members`), not in the set's own: that
follows string hashing, salted per process (PYTHONHASHSEED), and the same state was a different text in
each process of the service. Decoding never depended on that order, so rows written before in another
order still read the same (the table is a cache keyed by the rules' version: nothing to upcast).

Hand histories (`HandLog`, projections/core/handlog.py) are stored once, not per snapshot: a long session
holds thousands of finished hands, and re-encoding them in every row made a snapshot megabytes of JSON
(~100 ms to read). When `encode` is given a `HandRows` sink (`write` does that), a `HandLog` is written
as a reference `{"__hl": [n, digest, totals]}` and each of its hands as one row of the `snapshot_hand`
table, `(idx, digest, prev, text)`: `text` is the hand in this codec, and `digest` a hash of `prev` (the
digest of the hand before it, "" for the first) and `text`, so the digest of the last hand names the
whole history, and the two histories of a game before and after a retract across a hand boundary
never mix. Rows are written once per hand and game version (a hand of a log decoded from a snapshot
is already there; a row another process wrote first is left alone). `decode` with a `Shelf` gives a
`HandLog` whose length and totals are in the reference, and whose hands are read only when someone
iterates or indexes it: the chain is then walked back from the digest and every row's digest checked.
A missing or wrong row is never used: the hands are then taken from a fold of the game from event 1
up to the snapshot's seq (and their rows written again).
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import importlib
import importlib.util
import logging
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import orjson
from sqlalchemy.exc import SQLAlchemyError

from projections.core import engine
from projections.core.handlog import EMPTY_LOG, HandLog, StoredHands
from projections.core.rules import GameRules, HandScore, S

if TYPE_CHECKING:
    from events.store import Store

#: bump when the encoding changes: every snapshot of the older codec is then never read
CODEC_VERSION = 2
#: a snapshot at least every EVERY events, even inside a long hand
EVERY = 500
#: decoded types must live in this package
ALLOWED_PREFIX = "projections"

_HERE = Path(__file__).resolve().parent

log = logging.getLogger(__name__)


class SnapshotError(ValueError):
    """A snapshot that cannot be encoded or decoded (it is then not used)."""


# --------------------------------------------------------------------------- the codec


def _name_of(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


#: the classes a snapshot holds as they are (exactly these: an enum of ints is tagged)
_LEAVES = frozenset({str, int, bool, float, type(None)})
#: a dataclass met by `_pack`: its tag and its field names, worked out once per class
_dataclasses: dict[type, tuple[str, tuple[str, ...]]] = {}


def _pack(value: Any, sink: HandRows | None = None) -> Any:
    """The JSON-able form of `value` (the tags of the module docstring).

    A first write of a game's snapshots encodes a state at every hand's end: the common classes (leaves,
    tuples, dataclasses already met) are told by their exact class first, and leaves in a tuple or a
    dataclass are taken without a call. Anything else goes through `_pack_other`, which tells them apart
    by `isinstance` in the order the tags need (an enum before an int, a dataclass before a tuple).
    """
    cls = type(value)
    if cls in _LEAVES:
        return value
    if cls is tuple:
        return {"__t": [v if type(v) in _LEAVES else _pack(v, sink) for v in value]}
    known = _dataclasses.get(cls)
    if known is not None:
        out: dict[str, Any] = {"__dc": known[0]}
        for name in known[1]:
            v = getattr(value, name)
            out[name] = v if type(v) in _LEAVES else _pack(v, sink)
        return out
    return _pack_other(value, sink)


def _pack_other(value: Any, sink: HandRows | None) -> Any:
    """`_pack` of a value whose class it did not tell at once."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, enum.Enum):
        return {"__e": _name_of(type(value)), "v": _pack(value.value, sink)}
    if isinstance(value, (int, float)):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = tuple(f.name for f in dataclasses.fields(value))
        _dataclasses[type(value)] = (_name_of(type(value)), names)
        out: dict[str, Any] = {"__dc": _name_of(type(value))}
        for name in names:
            out[name] = _pack(getattr(value, name), sink)
        return out
    if isinstance(value, tuple):
        return {"__t": [_pack(v, sink) for v in value]}
    if isinstance(value, list):
        return [_pack(v, sink) for v in value]
    if isinstance(value, frozenset):
        return {"__fs": _members(value, sink)}
    if isinstance(value, set):
        return {"__s": _members(value, sink)}
    if isinstance(value, MappingProxyType):
        return {"__mp": [[_pack(k, sink), _pack(v, sink)] for k, v in value.items()]}
    if isinstance(value, dict):
        return {"__d": [[_pack(k, sink), _pack(v, sink)] for k, v in value.items()]}
    if sink is not None and isinstance(value, HandLog):
        return sink.reference(value)
    cls = type(value)
    if _reducible(cls):
        reduced = value.__reduce__()
        if isinstance(reduced, tuple) and len(reduced) == 2 and reduced[0] is cls and isinstance(reduced[1], tuple):
            return {"__r": _name_of(cls), "a": [_pack(a, sink) for a in reduced[1]]}
    raise SnapshotError(f"a snapshot cannot hold a {cls.__name__}")


def _members(members: frozenset[Any] | set[Any], sink: HandRows | None) -> list[Any]:
    """The packed members of a set in a canonical order, that of their JSON bytes.

    A set iterates in an order that follows its members' hashes, and a str's hash is salted per process
    (PYTHONHASHSEED): written as iterated, one state was a different text in each process (issue 34).
    Two members that pack to the same bytes are written alike, so a tie needs no further key.
    """
    return sorted((_pack(v, sink) for v in members), key=orjson.dumps)


def _digest(prev: str, text: bytes) -> str:
    """The digest of a hand row: of the digest of the hand before it and of the hand's text."""
    return hashlib.sha256(prev.encode() + b"\0" + text).hexdigest()[:32]


class HandRows:
    """The `snapshot_hand` rows `(idx, digest, prev, text)` that a batch of snapshot texts names (`encode`)."""

    def __init__(self) -> None:
        self.rows: dict[tuple[int, str], tuple[int, str, str, str]] = {}
        #: (prev digest, id of a hand) -> (the hand, kept alive so its id is not reused; its digest)
        self._seen: dict[tuple[str, int], tuple[HandScore, str]] = {}

    def reference(self, log: HandLog) -> dict[str, Any]:
        """`{"__hl": [n, digest, totals]}` for a log, its hands added to the rows (those not stored already)."""
        base, tail = log.stored_part()
        idx, key = (base.n, base.key) if base is not None else (0, "")
        for hand in tail:
            seen = self._seen.get((key, id(hand)))
            if seen is not None and seen[0] is hand:
                digest = seen[1]
            else:
                text = orjson.dumps(_pack(hand))
                digest = _digest(key, text)
                self._seen[(key, id(hand))] = (hand, digest)
                self.rows[(idx, digest)] = (idx, digest, key, text.decode())
            idx, key = idx + 1, digest
        return {"__hl": [len(log), key, list(log.totals(0)) if len(log) else []]}


class Shelf:
    """Where the hands a snapshot names are read from: the `snapshot_hand` rows of a game and version.

    `seq` is the snapshot's: when its rows are missing or wrong, the hands are folded from event 1 to there.
    """

    def __init__(self, store: Store, game_id: str, version: str, seq: int) -> None:
        self.store = store
        self.game_id = game_id
        self.version = version
        self.seq = seq

    def log(self, n: int, key: str, totals: tuple[int, ...]) -> HandLog:
        return HandLog.stored(StoredHands(n, totals, key, self.load)) if n else EMPTY_LOG

    def load(self, stored: StoredHands) -> tuple[HandScore, ...]:
        """The hands of the chain that ends at `stored.key`, from the rows, or else from a fold."""
        found = self._read(stored)
        if found is not None:
            return found
        log.warning("hand rows of game %s up to hand %d missing: folding them", self.game_id, stored.n)
        return self._refold(stored)

    def _read(self, stored: StoredHands) -> tuple[HandScore, ...] | None:
        rows = {
            (idx, digest): (prev, text)
            for idx, digest, prev, text in self.store.read_snapshot_hands(self.game_id, self.version, stored.n)
        }
        texts: list[str] = []
        key = stored.key
        for idx in range(stored.n - 1, -1, -1):
            row = rows.get((idx, key))
            if row is None or _digest(row[0], row[1].encode()) != key:
                return None
            texts.append(row[1])
            key = row[0]
        if key != "":
            return None
        try:
            hands = tuple(decode(text) for text in reversed(texts))
        except SnapshotError:
            return None
        if not all(isinstance(h, HandScore) for h in hands):
            return None
        sums = [0] * len(stored.totals)
        for hand in hands:
            if len(hand.points) != len(sums):
                return None
            for seat, points in enumerate(hand.points):
                sums[seat] += points
        return hands if tuple(sums) == stored.totals else None

    def _refold(self, stored: StoredHands) -> tuple[HandScore, ...]:
        from projections.core.registry import rules_for

        game = self.store.get_game(self.game_id)
        rules = rules_for(game.kind)
        initial = engine.start(rules, list(game.players), game.options)
        state = engine.fold(rules, initial, self.store.read_events(self.game_id, 0, upto=self.seq))
        for candidate in _logs_in(state):
            if len(candidate) != stored.n or candidate.totals(0) != stored.totals:
                continue
            if HandRows().reference(candidate)["__hl"][1] != stored.key:
                continue
            try:  # the rows again, for the next reader (the snapshot row itself is there: left as it is)
                write(self.store, self.game_id, self.version, [(self.seq, state)])
            except (SnapshotError, SQLAlchemyError) as error:  # a cache: a failure to write is a slower read
                log.warning("hand rows of game %s not written again: %s", self.game_id, error)
            return tuple(candidate)
        raise SnapshotError(f"no history of {stored.n} hands at seq {self.seq} of game {self.game_id}")


def _logs_in(value: Any) -> Iterator[HandLog]:
    """Every `HandLog` in a state (nested dataclasses, tuples, lists, sets, mappings)."""
    if isinstance(value, HandLog):
        yield value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from _logs_in(getattr(value, f.name))
    elif isinstance(value, (tuple, list, frozenset, set)):
        for v in value:
            yield from _logs_in(v)
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _logs_in(v)


def _reducible(cls: type) -> bool:
    """A class of `projections` that rebuilds itself from its arguments (`__reduce__` -> `(cls, args)`)."""
    module = cls.__module__
    return (module == ALLOWED_PREFIX or module.startswith(ALLOWED_PREFIX + ".")) and "__reduce__" in cls.__dict__


_types: dict[str, type] = {}
_types_lock = threading.Lock()


def _allowed_type(name: str, kind: str) -> type:
    """The class `module:QualName`, if it is a dataclass (or an enum) defined under `projections`."""
    found = _types.get(name)
    if found is not None:
        return found
    module_name, _, qualname = name.partition(":")
    if not qualname or (module_name != ALLOWED_PREFIX and not module_name.startswith(ALLOWED_PREFIX + ".")):
        raise SnapshotError(f"a snapshot may not make {name!r}")
    try:
        target: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            if part.startswith("<"):
                raise SnapshotError(f"a snapshot may not make {name!r}")
            target = getattr(target, part)
    except (ImportError, AttributeError):
        raise SnapshotError(f"no type {name!r} to make") from None
    ok = isinstance(target, type) and target.__module__ == module_name
    if kind == "__dc":
        ok = ok and dataclasses.is_dataclass(target)
    elif kind == "__r":
        ok = ok and _reducible(target)
    else:
        ok = ok and issubclass(target, enum.Enum)
    if not ok:
        raise SnapshotError(f"a snapshot may not make {name!r}")
    allowed: type = target
    with _types_lock:
        _types[name] = allowed
    return allowed


def _unpack(value: Any, shelf: Shelf | None = None) -> Any:
    if isinstance(value, list):
        return [_unpack(v, shelf) for v in value]
    if not isinstance(value, dict):
        return value
    if "__dc" in value:
        cls = _allowed_type(value["__dc"], "__dc")
        names = [f.name for f in dataclasses.fields(cls)]
        if len(value) != len(names) + 1 or any(n not in value for n in names):
            raise SnapshotError(f"the fields of {value['__dc']} have changed")
        obj: Any = object.__new__(cls)
        for n in names:
            object.__setattr__(obj, n, _unpack(value[n], shelf))
        return obj
    if "__t" in value:
        return tuple(_unpack(v, shelf) for v in value["__t"])
    if "__fs" in value:
        return frozenset(_unpack(v, shelf) for v in value["__fs"])
    if "__s" in value:
        return {_unpack(v, shelf) for v in value["__s"]}
    if "__mp" in value:
        return MappingProxyType({_unpack(k, shelf): _unpack(v, shelf) for k, v in value["__mp"]})
    if "__d" in value:
        return {_unpack(k, shelf): _unpack(v, shelf) for k, v in value["__d"]}
    if "__r" in value:
        return _allowed_type(value["__r"], "__r")(*(_unpack(a, shelf) for a in value["a"]))
    if "__hl" in value:
        if shelf is None:
            raise SnapshotError("a snapshot that names stored hands, decoded without their shelf")
        n, key, totals = value["__hl"]
        if not (isinstance(n, int) and n >= 0 and isinstance(key, str) and isinstance(totals, list)):
            raise SnapshotError("a malformed hand history reference")
        return shelf.log(n, key, tuple(int(t) for t in totals))
    if "__e" in value:
        return _allowed_type(value["__e"], "__e")(_unpack(value["v"], shelf))
    raise SnapshotError("an untagged object in a snapshot")


def encode(state: Any, hands: HandRows | None = None) -> str:
    """The snapshot text of a state; with `hands`, each `HandLog` is a reference and its hands go there.

    Raises:
        SnapshotError: the state holds something the codec does not know.
    """
    try:
        return orjson.dumps(_pack(state, hands)).decode()
    except TypeError as error:  # orjson refuses an integer over 64 bits, say
        raise SnapshotError(str(error)) from None


def decode(text: str | bytes, shelf: Shelf | None = None) -> Any:
    """The state a snapshot text holds; its hand histories (if references) are read from `shelf` when used.

    Raises:
        SnapshotError: not a snapshot, or a type outside the allow-list, or references and no shelf.
    """
    try:
        return _unpack(orjson.loads(text), shelf)
    except (orjson.JSONDecodeError, TypeError, KeyError, ValueError, RecursionError) as error:
        raise SnapshotError(f"not a snapshot: {error}") from None


def write(store: Store, game_id: str, version: str, states: Sequence[tuple[int, Any]]) -> int:
    """Store snapshots `(seq, state)` and the hand rows they name (`Store.write_snapshots`); how many were new.

    Raises:
        SnapshotError: a state the codec does not know.
    """
    hands = HandRows()
    texts = [(seq, encode(state, hands)) for seq, state in states]
    return store.write_snapshots(game_id, version, texts, list(hands.rows.values()))


# --------------------------------------------------------------------------- versions


_versions: dict[str, str] = {}


def _source_files(module_name: str) -> list[Path]:
    try:
        spec = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return sorted(p for d in spec.submodule_search_locations for p in Path(d).rglob("*.py"))
    return [Path(spec.origin)] if spec.origin else []


def version_of(kind: str, rules: GameRules[Any] | None = None) -> str:
    """The code version of a game kind's snapshots (computed once per process).

    It hashes the game's module (`projections/<game>.py`, or every `.py` file of the package
    `projections/<game>/`, with `_` for `-`; and the package its `evolve` is defined in, if another),
    `projections/core/rules.py`, `scores.py`, `engine.py`, `dealing.py` (the deck state a position
    carries) and `CODEC_VERSION`.
    """
    found = _versions.get(kind)
    if found is not None:
        return found
    if rules is None:
        from projections.core.registry import rules_for

        rules = rules_for(kind)
    names = {f"{ALLOWED_PREFIX}.games.{kind.replace('-', '_')}", ".".join(rules.evolve.__module__.split(".")[:3])}
    files = {path for name in names for path in _source_files(name)}
    digest = hashlib.sha256(f"tablebook-snapshot/{CODEC_VERSION}\0{kind}\0".encode())
    for path in [*sorted(files), *(_HERE / name for name in ("rules.py", "scores.py", "engine.py", "dealing.py"))]:
        digest.update(str(path.relative_to(_HERE.parent)).encode() + b"\0" + path.read_bytes() + b"\0")
    version = digest.hexdigest()[:32]
    _versions[kind] = version
    return version


# --------------------------------------------------------------------------- folds


def is_boundary(rules: GameRules[Any], before: engine.Position[Any], after: engine.Position[Any]) -> bool:
    """Whether the position `after` (one event after `before`) is kept as a snapshot."""
    return after.seq % EVERY == 0 or (rules.hand_in_progress(before.game) and not rules.hand_in_progress(after.game))


def walk_from(
    rules: GameRules[S], start: engine.Position[S], envelopes: Sequence[Mapping[str, Any]]
) -> Iterator[tuple[Mapping[str, Any], engine.Position[S]]]:
    """`engine.walk` from any position (a snapshot): each envelope after `start` with the position after it.

    A retract in `envelopes` must restore `start` or a later position (see the module docstring).

    Raises:
        SnapshotError: a retract reaches below `start`.
    """
    below = lowest_target(envelopes, start.seq)
    if below is not None:
        raise SnapshotError(f"a retract to seq {below} reaches below the fold's start at seq {start.seq}")
    return engine.walk(rules, start, envelopes)


def fold_from(
    rules: GameRules[S],
    start: engine.Position[S],
    envelopes: Sequence[Mapping[str, Any]],
    boundaries: list[tuple[int, engine.Position[S]]] | None = None,
) -> engine.Position[S]:
    """The position after `envelopes` folded from `start`; the snapshots passed (`is_boundary`) are added to
    `boundaries`.

    Raises:
        SnapshotError: a retract reaches below `start`.
    """
    below = lowest_target(envelopes, start.seq)
    if below is not None:
        raise SnapshotError(f"a retract to seq {below} reaches below the fold's start at seq {start.seq}")
    return engine.fold(rules, start, envelopes, boundaries, EVERY)


def lowest_target(envelopes: Iterable[Mapping[str, Any]], start_seq: int) -> int | None:
    """The lowest `to_seq` below `start_seq` of a retract among `envelopes` (None: none reaches below it)."""
    return min(
        (env["data"]["to_seq"] for env in envelopes if env["type"] == "retract" and env["data"]["to_seq"] < start_seq),
        default=None,
    )
