"""Events in words and card notation, for people (the CLI, reports, the replay page's list).

Which fields of an event name a seat and which hold cards is the game's declaration
(`GameRules.fields`): a seat is written with the player's name, cards with suit symbols.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from events.cards import pretty
from projections.rules import HIDDEN, GameRules

#: the field of the actor, written first, and the field written bare after the type (`Anna play K♥`)
ACTOR = "seat"
CARD = "card"
#: fields quoted, as free text
_TEXT_FIELDS = frozenset({"text", "reason"})


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


def _plain(value: Any) -> str:
    if isinstance(value, list):
        return "[" + " ".join(_plain(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_plain(v)}" for k, v in value.items()) + "}"
    return str(value)


def _who(seat: Any, names: Sequence[str]) -> str:
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(names):
        return names[seat]
    return f"seat {seat}"


def describe(rules: GameRules[Any], event: Mapping[str, Any], result: Mapping[str, Any], names: Sequence[str]) -> str:
    """One line: who did what, in card notation, then the derived facts.

    >>> from projections.schnapsen import RULES
    >>> describe(RULES, {"type": "play", "seat": 0, "card": "KH", "marriage": True}, {}, ["Anna", "Ben"])
    'Anna play K♥ marriage'
    """
    kind = event["type"]
    seats = rules.seat_fields(kind)
    cards = rules.card_fields(kind)
    words = []
    if ACTOR in seats and ACTOR in event:
        words.append(_who(event[ACTOR], names))
    words.append(kind)
    for key, value in event.items():
        if key == "type" or (key == ACTOR and ACTOR in seats):
            continue
        if key in cards:
            words.append(_cards(value) if key == CARD else f"{key} {_cards(value)}")
        elif value is True:
            words.append(key)
        elif value is False or value is None:
            continue
        elif key in seats:
            words.append(f"{key} {_who(value, names)}")
        elif key in _TEXT_FIELDS:
            words.append(repr(value))
        else:
            words.append(f"{key} {_plain(value)}")
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
