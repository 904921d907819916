"""Every event type's shape is pinned with its version: a change to it comes with a new version.

`tests/data/event-shapes.json` holds, per game and event type, the version its schema declares, the
JSON Schema of its data, and the fields of the `result` the rules derive for it over a fixed corpus
(the golden records and the example games, decided again today). If the code changes any of them, this
test fails until the type's version is raised with an `Upcast` from the last one (`events/schema.py`),
a folder of records written before the change is added to `tests/data/records/`, and the file is
written again:

    python -m tests.api.test_event_versions --write

A type whose version is above 1 must have envelopes of an older version among the golden records, so
that its upcast is exercised by `tests/api/test_golden_records.py`.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from events.common import DEAL_EVENTS
from events.upcast import upcast, version_of
from projections.core import engine
from projections.core.registry import KINDS, rules_for

DATA = Path(__file__).resolve().parents[1] / "data"
SHAPES = DATA / "event-shapes.json"
RECORDS = DATA / "records"


def golden_envelopes() -> dict[str, list[tuple[dict[str, Any], list[dict[str, Any]]]]]:
    """kind -> [(header, envelopes)] of every json golden record."""
    out: dict[str, list[tuple[dict[str, Any], list[dict[str, Any]]]]] = defaultdict(list)
    for path in sorted(RECORDS.glob("*/*.json.gz")):
        doc = json.loads(gzip.decompress(path.read_bytes()))
        out[doc["game"]].append((doc, doc["events"]))
    return out


def result_fields() -> dict[str, dict[str, set[str]]]:
    """kind -> type -> the fields of the results today's rules derive over the corpus."""
    fields: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for kind, records in golden_envelopes().items():
        rules = rules_for(kind)
        schemas = {**rules.events, **DEAL_EVENTS}
        for header, envelopes in records:
            replay = engine.Replay(rules, engine.start(rules, header["players"], header["options"]), stored=True)
            for env in envelopes:
                replay.push(upcast(env, schemas).event)
                fields[kind][env["type"]].update(replay.position.facts)
    examples = DATA / "examples"
    for path in sorted(examples.glob("*.json")):
        doc = json.loads(path.read_text())
        rules = rules_for(doc["game"])
        replay = engine.Replay(
            rules, engine.start(rules, doc["players"], rules.options_for(doc["players"], doc["options"]))
        )
        for event in doc["events"]:
            replay.push(event)
            fields[doc["game"]][event["type"]].update(replay.position.facts)
    return fields


def shapes() -> dict[str, Any]:
    """What the file pins, computed from today's code."""
    derived = result_fields()
    out: dict[str, Any] = {}
    for kind in KINDS:
        rules = rules_for(kind)
        schemas = {**rules.events, **DEAL_EVENTS}
        out[kind] = {
            name: {
                "version": shape.version,
                "data": shape.json_schema(name),
                "result": sorted(derived[kind].get(name, set())),
            }
            for name, shape in sorted(schemas.items())
        }
    return out


def test_every_event_shape_is_the_one_pinned_with_its_version() -> None:
    pinned = json.loads(SHAPES.read_text())
    today = shapes()
    changed = [
        f"{kind} {name}: {part} changed (version {today[kind][name]['version']})"
        for kind in today
        for name in today[kind]
        for part in ("version", "data", "result")
        if pinned.get(kind, {}).get(name, {}).get(part) != today[kind][name][part]
    ]
    gone = [f"{kind} {name}: gone" for kind in pinned for name in pinned[kind] if name not in today.get(kind, {})]
    assert not changed + gone, (
        "an event's shape changed: raise its version with an Upcast, add records written before the change to "
        "tests/data/records/, then run `python -m tests.api.test_event_versions --write`:\n" + "\n".join(changed + gone)
    )


def test_every_type_of_a_later_version_has_golden_records_of_an_earlier_one() -> None:
    older: dict[str, set[str]] = defaultdict(set)
    for kind, records in golden_envelopes().items():
        schemas = {**rules_for(kind).events, **DEAL_EVENTS}
        for _, envelopes in records:
            for env in envelopes:
                shape = schemas.get(env["type"])
                if shape is not None and version_of(env) < shape.version:
                    older[kind].add(env["type"])
    for kind in KINDS:
        schemas = {**rules_for(kind).events, **DEAL_EVENTS}
        for name, shape in schemas.items():
            if shape.version > 1:
                assert name in older[kind], (
                    f"{kind} {name}: version {shape.version} has no golden record of an older one"
                )


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        SHAPES.write_text(json.dumps(shapes(), indent=1, sort_keys=True) + "\n")
        print(f"wrote {SHAPES}")
    else:
        print(json.dumps(shapes(), indent=1, sort_keys=True))
