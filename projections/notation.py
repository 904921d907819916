"""Events in words and card notation, for people (the CLI, reports, the replay page's list)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from events.cards import pretty
from projections.rules import HIDDEN

_CARD_FIELDS = {"card", "trump_card", "upcard", "discard", "cards", "hands", "table", "take", "onto", "melds"}


def _cards(value: Any) -> str:
    if isinstance(value, str):
        if value == HIDDEN:
            return "??"
        return pretty(value) if len(value) == 2 and value[1] in "CDHS" else value
    if isinstance(value, list):
        return "[" + " ".join(_cards(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_cards(v)}" for k, v in value.items()) + "}"
    return str(value)


def _who(seat: Any, names: Sequence[str]) -> str:
    if isinstance(seat, int) and 0 <= seat < len(names):
        return names[seat]
    return f"seat {seat}"


def describe(event: Mapping[str, Any], result: Mapping[str, Any], names: Sequence[str]) -> str:
    """One line: who did what, in card notation, then the derived facts.

    >>> describe({"type": "play", "seat": 0, "card": "KH", "marriage": True}, {}, ["Anna", "Ben"])
    'Anna play K♥ marriage'
    """
    kind = event["type"]
    words = []
    if "seat" in event:
        words.append(_who(event["seat"], names))
    words.append(kind)
    for key, value in event.items():
        if key in ("type", "seat"):
            continue
        if key in _CARD_FIELDS:
            words.append(_cards(value) if key in ("card",) else f"{key} {_cards(value)}")
        elif value is True:
            words.append(key)
        elif value is False or value is None:
            continue
        elif key in ("dealer", "to", "ref") and isinstance(value, int):
            words.append(f"{key} {_who(value, names) if key != 'ref' else value}")
        elif key == "text" or key == "reason":
            words.append(repr(value))
        else:
            words.append(f"{key} {_cards(value)}")
    facts = []
    for key, value in result.items():
        if key in ("audit_notes",):
            continue
        if key.endswith("winner") and isinstance(value, int):
            facts.append(f"{key.replace('_', ' ')} {_who(value, names)}")
        elif value is True:
            facts.append(key.replace("_", " "))
        else:
            facts.append(f"{key.replace('_', ' ')} {_cards(value)}")
    line = " ".join(words)
    return f"{line}  → {', '.join(facts)}" if facts else line
