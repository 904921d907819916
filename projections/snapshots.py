"""Snapshots: folded states kept in the `snapshot` table, so that no read folds from event 1.

The table is a cache (DESIGN.md): a row is not hashed and not part of the record, and deleting every
row changes no answer, only how far a read folds. A row is keyed by game, seq and *version*: a hash
of the game module's source files, `projections/rules.py`, `projections/engine.py` and the codec
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
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import importlib
import importlib.util
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

import orjson

from projections import engine
from projections.rules import GameRules, S

#: bump when the encoding changes: every snapshot of the older codec is then never read
CODEC_VERSION = 1
#: a snapshot at least every EVERY events, even inside a long hand
EVERY = 500
#: decoded types must live in this package
ALLOWED_PREFIX = "projections"

_HERE = Path(__file__).resolve().parent


class SnapshotError(ValueError):
    """A snapshot that cannot be encoded or decoded (it is then not used)."""


# --------------------------------------------------------------------------- the codec


def _name_of(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _pack(value: Any) -> Any:
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, enum.Enum):
        return {"__e": _name_of(type(value)), "v": _pack(value.value)}
    if isinstance(value, (int, float)):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {"__dc": _name_of(type(value))}
        for f in dataclasses.fields(value):
            out[f.name] = _pack(getattr(value, f.name))
        return out
    if isinstance(value, tuple):
        return {"__t": [_pack(v) for v in value]}
    if isinstance(value, list):
        return [_pack(v) for v in value]
    if isinstance(value, frozenset):
        return {"__fs": [_pack(v) for v in value]}
    if isinstance(value, set):
        return {"__s": [_pack(v) for v in value]}
    if isinstance(value, MappingProxyType):
        return {"__mp": [[_pack(k), _pack(v)] for k, v in value.items()]}
    if isinstance(value, dict):
        return {"__d": [[_pack(k), _pack(v)] for k, v in value.items()]}
    cls = type(value)
    if _reducible(cls):
        reduced = value.__reduce__()
        if isinstance(reduced, tuple) and len(reduced) == 2 and reduced[0] is cls and isinstance(reduced[1], tuple):
            return {"__r": _name_of(cls), "a": [_pack(a) for a in reduced[1]]}
    raise SnapshotError(f"a snapshot cannot hold a {cls.__name__}")


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


def _unpack(value: Any) -> Any:
    if isinstance(value, list):
        return [_unpack(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__dc" in value:
        cls = _allowed_type(value["__dc"], "__dc")
        names = [f.name for f in dataclasses.fields(cls)]
        if len(value) != len(names) + 1 or any(n not in value for n in names):
            raise SnapshotError(f"the fields of {value['__dc']} have changed")
        obj: Any = object.__new__(cls)
        for n in names:
            object.__setattr__(obj, n, _unpack(value[n]))
        return obj
    if "__t" in value:
        return tuple(_unpack(v) for v in value["__t"])
    if "__fs" in value:
        return frozenset(_unpack(v) for v in value["__fs"])
    if "__s" in value:
        return {_unpack(v) for v in value["__s"]}
    if "__mp" in value:
        return MappingProxyType({_unpack(k): _unpack(v) for k, v in value["__mp"]})
    if "__d" in value:
        return {_unpack(k): _unpack(v) for k, v in value["__d"]}
    if "__r" in value:
        return _allowed_type(value["__r"], "__r")(*(_unpack(a) for a in value["a"]))
    if "__e" in value:
        return _allowed_type(value["__e"], "__e")(_unpack(value["v"]))
    raise SnapshotError("an untagged object in a snapshot")


def encode(state: Any) -> str:
    """The snapshot text of a state.

    Raises:
        SnapshotError: the state holds something the codec does not know.
    """
    try:
        return orjson.dumps(_pack(state)).decode()
    except TypeError as error:  # orjson refuses an integer over 64 bits, say
        raise SnapshotError(str(error)) from None


def decode(text: str | bytes) -> Any:
    """The state a snapshot text holds.

    Raises:
        SnapshotError: not a snapshot, or a type outside the allow-list.
    """
    try:
        return _unpack(orjson.loads(text))
    except (orjson.JSONDecodeError, TypeError, KeyError, RecursionError) as error:
        raise SnapshotError(f"not a snapshot: {error}") from None


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
    `projections/rules.py`, `projections/engine.py` and `CODEC_VERSION`.
    """
    found = _versions.get(kind)
    if found is not None:
        return found
    if rules is None:
        from projections.registry import rules_for

        rules = rules_for(kind)
    names = {f"{ALLOWED_PREFIX}.{kind.replace('-', '_')}", ".".join(rules.evolve.__module__.split(".")[:2])}
    files = {path for name in names for path in _source_files(name)}
    digest = hashlib.sha256(f"tablebook-snapshot/{CODEC_VERSION}\0{kind}\0".encode())
    for path in [*sorted(files), _HERE / "rules.py", _HERE / "engine.py"]:
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
    """The position after `envelopes` folded from `start`; the snapshots passed are added to `boundaries`."""
    state = start
    for _, after in walk_from(rules, start, envelopes):
        if boundaries is not None and is_boundary(rules, state, after):
            boundaries.append((after.seq, after))
        state = after
    return state


def lowest_target(envelopes: Iterable[Mapping[str, Any]], start_seq: int) -> int | None:
    """The lowest `to_seq` below `start_seq` of a retract among `envelopes` (None: none reaches below it)."""
    return min(
        (env["data"]["to_seq"] for env in envelopes if env["type"] == "retract" and env["data"]["to_seq"] < start_seq),
        default=None,
    )
