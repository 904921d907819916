"""`dataclasses.replace`, made cheap for the frozen, slotted states a fold copies on every event.

`dataclasses.replace` walks `fields()` and calls `__init__`, which sets each field through
`object.__setattr__`: about two thirds of a fold went there. For a frozen dataclass with slots, no
`__post_init__` and only init fields (every game state), `replace` here runs a function generated
once per class that builds the copy directly, field by field, with the same result: a new object,
equal to what `dataclasses.replace` returns, the original untouched. A frozen dataclass without slots
(the game states, since issue 15) is copied with one copy of its `__dict__`, at C speed whatever the
number of fields. Any other class goes to `dataclasses.replace`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

T = TypeVar("T")

_MISSING: Any = object()
_replacers: dict[type, Callable[..., Any]] = {}
#: names the generated function uses itself
_RESERVED = frozenset({"obj", "new", "replace", "_M", "_new", "_set", "_cls"})


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of the dataclass instance `obj` with `changes` applied (as `dataclasses.replace`)."""
    cls = type(obj)
    replacer = _replacers.get(cls)
    if replacer is None:
        replacer = _replacers[cls] = _make_replacer(cls)
    result: T = replacer(obj, **changes)
    return result


def _make_replacer(cls: type) -> Callable[..., Any]:
    fields = dataclasses.fields(cls)
    if _dict_eligible(cls, fields):
        return _dict_replacer(cls, frozenset(f.name for f in fields))
    eligible = (
        "__slots__" in cls.__dict__
        and not hasattr(cls, "__post_init__")
        and all(f.init and f._field_type is dataclasses._FIELD for f in fields)  # type: ignore[attr-defined]
        and all(f.name.isidentifier() and f.name not in _RESERVED for f in fields)
    )
    if not eligible:
        return dataclasses.replace
    names = [f.name for f in fields]
    lines = [f"def replace(obj, /, *, {', '.join(f'{n}=_M' for n in names)}):", "    new = _new(_cls)"]
    lines += [f"    _set(new, {n!r}, obj.{n} if {n} is _M else {n})" for n in names]
    lines.append("    return new")
    namespace: dict[str, Any] = {"_M": _MISSING, "_new": object.__new__, "_set": object.__setattr__, "_cls": cls}
    exec("\n".join(lines), namespace)
    replacer: Callable[..., Any] = namespace["replace"]
    return replacer


def _dict_eligible(cls: type, fields: tuple[dataclasses.Field[Any], ...]) -> bool:
    """A frozen dataclass without slots whose every attribute is an init field in its `__dict__`."""
    params = getattr(cls, "__dataclass_params__", None)
    return (
        params is not None
        and params.frozen
        and not any("__slots__" in c.__dict__ for c in cls.__mro__ if c is not object)
        and not hasattr(cls, "__post_init__")
        and all(f.init and f._field_type is dataclasses._FIELD for f in fields)  # type: ignore[attr-defined]
    )


_new_object = object.__new__
_set_attr = object.__setattr__


def copy_with(obj: T, changes: Mapping[str, Any]) -> T:
    """A copy of a frozen dataclass without slots with `changes` set: one C-level copy of its `__dict__`.

    The names are trusted, not checked: for a fold's hot paths, whose field names are the game
    module's own (`replace` checks them); the changes come in a dict a fold step has gathered, so
    they are not packed into keywords and out again.
    """
    new: T = _new_object(type(obj))
    values = obj.__dict__.copy()
    values.update(changes)
    _set_attr(new, "__dict__", values)
    return new


def _dict_replacer(cls: type, names: frozenset[str]) -> Callable[..., Any]:
    """The copy of a frozen dataclass without slots: one C-level dict copy, whatever its width.

    The states the folds copy on every event are such classes: copying a 27-field state this way costs
    about what setting three slots does.
    """

    def replace(obj: Any, /, **changes: Any) -> Any:
        if not changes.keys() <= names:
            raise TypeError(f"{cls.__name__} has no field {sorted(changes.keys() - names)[0]!r}")
        return copy_with(obj, changes)

    return replace


def fast_init(cls: type[T]) -> type[T]:
    """Give the frozen, slotted dataclass `cls` an `__init__` that sets each slot through its own descriptor.

    A frozen dataclass's generated `__init__` sets every field with `object.__setattr__` (the frozen class's
    own `__setattr__` refuses), about twice what setting the slot directly costs; a fold makes such objects
    at every trick or hand end (score lines, tricks, marriages). The `__init__` given here takes the same
    arguments (positional or by name, with the same defaults) and builds the same object: equal, same repr
    and hash. Only for a class whose fields are all init fields with a plain default or none, with no
    `__post_init__`; applied after `@dataclass(frozen=True, slots=True)`, whose class it returns.
    """
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    params = getattr(cls, "__dataclass_params__", None)
    assert params is not None and params.frozen and "__slots__" in cls.__dict__, cls
    assert not hasattr(cls, "__post_init__"), cls
    namespace: dict[str, Any] = {}
    args = []
    for f in fields:
        assert f.init and not f.kw_only and f.default_factory is dataclasses.MISSING, (cls, f.name)
        assert f.name.isidentifier() and not f.name.startswith("_"), (cls, f.name)
        namespace[f"_set_{f.name}"] = cls.__dict__[f.name].__set__
        if f.default is dataclasses.MISSING:
            args.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            args.append(f"{f.name}=_default_{f.name}")
    lines = [f"def __init__(self, {', '.join(args)}):"] + [f"    _set_{f.name}(self, {f.name})" for f in fields]
    if not fields:
        lines.append("    pass")
    exec("\n".join(lines), namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    setattr(cls, "__init__", init)  # noqa: B010 - a method of a class made elsewhere, set once
    return cls
