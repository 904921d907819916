"""Events in words and card notation, for people (the CLI, reports, the replay frames' `text`).

Which fields of an event name a seat and which hold cards is the game's declaration
(`GameRules.fields`): a seat is written with the player's name, cards with suit symbols. Values
whose unit is not a plain count (Seven and a Half's half points, chips, Schnapsen's points to go)
are written in the game's own unit (`GameRules.units`, `phrases.value_text`), and text the rules
wrote with markers (a fact such as "{seat:1} captured {card:TD}") is rendered with the names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from projections.core import phrases
from projections.core.rules import GameRules

#: the field of the actor, written first, and the field written bare after the type (`Anna play K♥`)
ACTOR = "seat"
CARD = "card"
#: fields quoted, as free text (a note, a retract's reason): never read as a template
_TEXT_FIELDS = frozenset({"text", "reason"})
#: facts that are bookkeeping for other readers, not words for a person
_SKIPPED_FACTS = frozenset({"audit_notes"})


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _label(key: str) -> str:
    return key.replace("_", " ")


def _seat_keyed(value: Any) -> bool:
    return isinstance(value, Mapping) and bool(value) and all(isinstance(k, str) and k.isdigit() for k in value)


def _group(items: Sequence[str]) -> str:
    """One item as it is; several in parentheses, so that a list stays one entry of the line."""
    return items[0] if len(items) == 1 else "(" + ", ".join(items) + ")"


#: the card fields whose list of lists is one list per seat (a deal's hands); any other (a knock's
#: melds) is groups of one seat's cards
_PER_SEAT = frozenset({"hands"})


def _placed(value: Mapping[str, Any], names: Sequence[str]) -> str:
    """A card placed on a meld (a Gin lay-off): `5♠ on meld 2`, melds counted from 1 as the page draws
    them; with the meld it joined when the facts give it: `5♠ on meld 2 (6♠ 7♠ 8♠ 9♠)`."""
    words = phrases.card_text(str(value.get("card")))
    if _is_int(value.get("meld")):
        words += f" on meld {value['meld'] + 1}"
    if isinstance(value.get("onto"), list):
        words += " (" + " ".join(phrases.card_text(c) for c in value["onto"]) + ")"
    return words


def _cards(value: Any, names: Sequence[str], key: str = "") -> str:
    """A card field's value: a card, a list of cards, groups of cards (melds), cards placed on melds, or
    per seat (a deal's hands) with the names."""
    if isinstance(value, str):
        return phrases.card_text(value)
    if _seat_keyed(value):
        return _group([f"{phrases.who(int(k), names)} {_cards(v, names)}" for k, v in value.items()])
    if isinstance(value, Mapping) and "card" in value:
        return _placed(value, names)
    if isinstance(value, list):
        if value and all(isinstance(v, list) for v in value):
            if key in _PER_SEAT:
                return _group([f"{phrases.who(s, names)} {_cards(v, names)}" for s, v in enumerate(value)])
            return " ".join(_cards(v, names) for v in value)
        if value and all(isinstance(v, Mapping) for v in value):
            return ", ".join(_cards(v, names) for v in value)
        return "[" + " ".join(_cards(v, names) for v in value) + "]"
    return str(value)


def value_words(rules: GameRules[Any], key: str, value: Any, names: Sequence[str]) -> str:
    """A field's or fact's value in words: seats by name, cards in glyphs, numbers in the game's unit,
    marked text rendered, lists and objects unpacked (`(Anna 3½, Ben 5)` for an object keyed by seat)."""
    if _is_int(value):
        if phrases.is_seat_key(key) or rules.unit(key) == phrases.SEAT:
            return phrases.who(value, names)
        return rules.value_text(key, value)
    if isinstance(value, str):
        if phrases.is_card(value):
            return phrases.card_text(value)
        return phrases.render(phrases.suit_text(key, value), names)
    if isinstance(value, list):
        if value and phrases.is_seats_key(key) and all(_is_int(v) for v in value):
            return _group([phrases.who(v, names) for v in value])
        if value and all(phrases.is_card(v) for v in value):
            return _cards(value, names)
        return "[" + " ".join(value_words(rules, key, v, names) for v in value) + "]"
    if isinstance(value, Mapping):
        if _seat_keyed(value):
            per_seat = [f"{phrases.who(int(k), names)} {value_words(rules, key, v, names)}" for k, v in value.items()]
            return _group(per_seat)
        entries = [_entry(rules, k, v, names) for k, v in value.items() if v is not None and v is not False]
        return "(" + " ".join(entries) + ")"
    return str(value)


def _entry(rules: GameRules[Any], key: str, value: Any, names: Sequence[str]) -> str:
    """`points 20`, `credited` (a true flag)."""
    return _label(key) if value is True else f"{_label(key)} {value_words(rules, key, value, names)}"


def _event_words(rules: GameRules[Any], event: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    kind = event["type"]
    seats = rules.seat_fields(kind)
    cards = rules.card_fields(kind)
    words = []
    actor = _is_int(event.get(ACTOR))
    if actor:
        words.append(phrases.who(event[ACTOR], names))
    words.append(_label(kind))
    for key, value in event.items():
        if key == "type" or (key == ACTOR and actor):
            continue
        if value is False or value is None or value == [] or value == {} or (key == "hand" and value == 0):
            continue  # nothing said, or a seat's first (and, unless it split, only) hand
        if key in cards:
            shown = _cards(value, names, key)
            words.append(shown if key in (CARD, "layoffs") else f"{_label(key)} {shown}")
        elif value is True:
            words.append(_label(key))
        elif key in seats and _is_int(value):
            words.append(f"{_label(key)} {phrases.who(value, names)}")
        elif key in _TEXT_FIELDS and isinstance(value, str):
            words.append(f"“{' '.join(value.split())}”")
        else:
            words.append(f"{_label(key)} {value_words(rules, key, value, names)}")
    return words


def _fact_words(rules: GameRules[Any], result: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    facts = []
    for key, value in result.items():
        if key in _SKIPPED_FACTS or value is False or value is None or value == [] or value == {}:
            continue
        if key == "hand" and value == 0:
            continue  # a seat's first hand: said only once a split gives it another
        if key == "layoffs" and isinstance(value, list):
            facts.append(_cards(value, names))
        elif value is True:
            facts.append(_label(key))
        elif isinstance(value, str) and phrases.has_marker(value):
            facts.append(phrases.render(value, names))  # a sentence the rules wrote: it says what it is
        else:
            facts.append(f"{_label(key)} {value_words(rules, key, value, names)}")
    return facts


def describe(rules: GameRules[Any], event: Mapping[str, Any], result: Mapping[str, Any], names: Sequence[str]) -> str:
    """One line: who did what, in card notation, then the derived facts.

    >>> from projections.games.schnapsen import RULES
    >>> describe(RULES, {"type": "play", "seat": 0, "card": "KH", "marriage": True}, {}, ["Anna", "Ben"])
    'Anna play K♥ marriage'
    >>> describe(RULES, {"type": "close", "seat": 1}, {"trump_suit": "H", "trick_winner": 0}, ["Anna", "Ben"])
    'Ben close  → trump suit ♥, trick winner Anna'
    """
    line = " ".join(_event_words(rules, event, names))
    facts = _fact_words(rules, result, names)
    return f"{line}  → {', '.join(facts)}" if facts else line
