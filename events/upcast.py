"""Reading a stored event in today's shape: the version of its envelope, and the upcasts from it.

A stored envelope is never rewritten: its hash covers its bytes, and a club's archive must read the
same in ten years. When the shape of an event type changes, its `Shape` gets a higher `version` and
an `Upcast` from the one before (`events/schema.py`); an envelope records the version it was written
in as `v` (absent: version 1, every envelope written before versions were recorded). Readers check
the hash over the envelope as stored, then read it through `upcast`: the rules get the event in
today's shape, and the check of a stored `result` against the one the rules derive leaves out the
fields that were added after the envelope's version (`Upcasted.new_result`). This module knows no
rules: only the schemas.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from events.errors import InvalidEventError
from events.schema import EventSchemas, same_data

#: the envelope field that holds the version its event was written in
VERSION = "v"


def version_of(envelope: Mapping[str, Any]) -> int:
    """The version an envelope was written in (1 when it records none)."""
    found = envelope.get(VERSION, 1)
    return found if isinstance(found, int) and not isinstance(found, bool) else 1


@dataclass(frozen=True, slots=True)
class Upcasted:
    """A stored event read in today's shape."""

    #: `{"type", **data}` as today's rules take it
    event: dict[str, Any]
    #: the version it was stored in
    stored: int
    #: fields of the derived result added since that version: a stored result has none of them to compare
    new_result: frozenset[str]


def upcast(envelope: Mapping[str, Any], schemas: EventSchemas) -> Upcasted:
    """The event of `envelope` in today's shape (a type the schemas do not know is passed through as stored:
    the rules refuse it with their own words).

    Raises:
        InvalidEventError: the envelope was written in a version newer than this code knows.
    """
    kind = envelope["type"]
    data = dict(envelope["data"])
    shape = schemas.get(kind)
    stored = version_of(envelope)
    if shape is None:
        return Upcasted({"type": kind, **data}, stored, frozenset())
    if stored > shape.version:
        raise InvalidEventError(
            f"seq {envelope.get('seq')}: this {kind} was written in version {stored} of its shape, and this "
            f"server knows versions 1 to {shape.version}: upgrade it to read the record",
            field=VERSION,
        )
    new_result: set[str] = set()
    for step in shape.upcasts[stored - 1 :]:
        data = step.data(data)
        new_result.update(step.new_result)
    return Upcasted({"type": kind, **data}, stored, frozenset(new_result))


def current_version(kind: str, schemas: EventSchemas) -> int:
    """The version today's code writes an event of type `kind` in (1 for a type the schemas do not know)."""
    shape = schemas.get(kind)
    return 1 if shape is None else shape.version


#: id(schemas) -> (schemas, their reshaped types); a game's schemas live as long as the process
_reshaped: dict[int, tuple[EventSchemas, frozenset[str]]] = {}


def data_reshaped(schemas: EventSchemas) -> frozenset[str]:
    """The types of `schemas` whose data some upcast changes: a fold reads only their envelopes through
    `upcast` (the others' data is today's shape whatever their version). Worked out once per schemas."""
    known = _reshaped.get(id(schemas))
    if known is not None and known[0] is schemas:
        return known[1]
    found = frozenset(name for name, shape in schemas.items() if any(u.data is not same_data for u in shape.upcasts))
    _reshaped[id(schemas)] = (schemas, found)
    return found
