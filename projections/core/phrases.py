"""Person-facing text as templates: seats, cards and values marked in the text, rendered per reader.

A game's rules write score reasons, error and violation messages with markers instead of bare
numbers and codes: `f"{seat(1)} closed the talon"` is the text `"{seat:1} closed the talon"`. The
marked text is what the rules return and what the record stores; whoever shows it to a person
renders it with the game's player names and card glyphs (`render`), and the API also gives the
template and its fields (`structure`) so that a client can render its own. One marker syntax, so
that no reader guesses at "seat 1" with a regular expression.

Markers: `{seat:N}`, `{card:TD}`, `{cards:TD AS}` (space-separated, maybe empty), `{half:N}` (a
value in half points, `7` is 3½), `{chips:N}`. Braces never occur otherwise in a rule's text; free
text from users (notes, retract reasons) is never parsed as a template.

Written by hand: this is a dozen lines of regular expression over our own markers, which no
template library (string.Template, Jinja) renders per reader with structured fields.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from events.cards import FULL_DECK, SUIT_SYMBOLS, pretty

#: `{kind:value}`, value without braces
_MARKER = re.compile(r"\{(seat|card|cards|half|chips):([^{}]*)\}")
HIDDEN_CARD = "??"
_DECK = frozenset(FULL_DECK)


def seat(number: int) -> str:
    """A seat, shown with its player's name."""
    return f"{{seat:{number}}}"


def card(code: str) -> str:
    """A card, shown with its suit glyph (`10♦`)."""
    return f"{{card:{code}}}"


def cards(codes: Iterable[str]) -> str:
    """Cards, shown with glyphs and spaces."""
    return f"{{cards:{' '.join(codes)}}}"


def half(value: int) -> str:
    """A Seven and a Half value kept in half points (7 is shown 3½)."""
    return f"{{half:{value}}}"


def chips(amount: int) -> str:
    """An amount of chips ("5 chips")."""
    return f"{{chips:{amount}}}"


def halves(value: int) -> str:
    """Half points in the game's own unit: 7 is `3½`, 15 is `7½`, 1 is `½`, -3 is `-1½`.

    >>> [halves(v) for v in (15, 14, 1, 0, -3)]
    ['7½', '7', '½', '0', '-1½']
    """
    sign = "-" if value < 0 else ""
    whole, rest = divmod(abs(value), 2)
    if not rest:
        return f"{sign}{whole}"
    return f"{sign}{whole if whole else ''}½"


def chip_text(amount: int) -> str:
    """`1 chip`, `5 chips`, `-2 chips`."""
    return f"{amount} chip" if abs(amount) == 1 else f"{amount} chips"


#: the units a game declares for its values (`GameRules.units`): half points, chips, game points to go,
#: and a seat (a fact whose name does not say it names a seat: Smear's `high`, `jack`)
HALF = "half"
CHIPS = "chips"
TO_GO = "to_go"
SEAT = "seat"


def value_text(unit: str, value: Any, *, signed: bool = False) -> str:
    """One value in its unit, the one formatter of every number a person reads (`GameRules.units`).

    `half` as `halves` (`3½`), `chips` as `chip_text` (`5 chips`), `to_go` as game points still to go
    (a total at or below 0 has none to go: the game is won), `seat` as `seat N` (a reader with the names
    writes the player's: `who`), anything else as the number. `signed`
    writes a gain with `+` (a hand's points). A list is each of its values; any other value as `str`.

    >>> [value_text("half", 7), value_text("chips", 3, signed=True), value_text("to_go", -2), value_text("", 4)]
    ['3½', '+3 chips', '0 to go', '4']
    """
    if isinstance(value, list | tuple):
        return "[" + " ".join(value_text(unit, v, signed=signed) for v in value) + "]"
    if isinstance(value, bool) or not isinstance(value, int):
        return str(value)
    if unit == TO_GO:
        return f"{max(value, 0)} to go"
    if unit == SEAT:
        return who(value, None)
    sign = "+" if signed and value > 0 else ""
    if unit == HALF:
        return sign + halves(value)
    if unit == CHIPS:
        return sign + chip_text(value)
    return f"{sign}{value}"


#: the fields and facts that name a seat, wherever they occur (an event's declared `GameRules.fields` say
#: it for events; facts and table entries are not declared): shown with the player's name
SEAT_KEYS = frozenset(
    {
        "seat",
        "dealer",
        "leader",
        "bidder",
        "banker",
        "next_banker",
        "captain",
        "sitter",
        "box",
        "owner",
        "turn",
        "to",
        "from",
        "knocker",
        "scorer",
        "closer",
        "first_to_speak",
    }
)
#: the fields and facts that hold a list of seats
SEATS_KEYS = frozenset({"to_act", "order", "draws_due", "seats", "winners"})


#: the fields and facts that may hold a suit letter: shown as its symbol
SUIT_KEYS = frozenset({"trump", "trump_suit", "suit", "lead_suit", "led_suit"})


def suit_text(key: str, value: str) -> str:
    """A suit letter of a suit field as its symbol (`trump D` reads `trump ♦`); any other text as it is."""
    return SUIT_SYMBOLS[value] if key in SUIT_KEYS and value in SUIT_SYMBOLS else value


def is_seat_key(key: str) -> bool:
    """Whether a fact or table entry called `key` names a seat (`trick_winner`, `won_by`, `dealer`...)."""
    return key in SEAT_KEYS or key.endswith(("winner", "_by", "_to"))


def is_seats_key(key: str) -> bool:
    """Whether a fact or table entry called `key` holds a list of seats (`to_act`, `stakes_due`...)."""
    return key in SEATS_KEYS or key.endswith("_due")


def who(number: int, names: Sequence[str] | None) -> str:
    """A seat by its player's name (`seat N` without names, or for a seat the game does not have)."""
    return _who(str(number), names)


def card_text(code: str) -> str:
    """One card for a person: `10♦`, `??` for a hidden one."""
    return _card_text(code)


def cards_text(codes: Iterable[str]) -> str:
    """Cards for a person, space-separated: `10♦ A♠`."""
    return " ".join(_card_text(c) for c in codes)


def is_card(value: Any) -> bool:
    """A card code (or the hidden card) as the record holds it."""
    return isinstance(value, str) and (value in _DECK or value == HIDDEN_CARD)


def _card_text(code: str) -> str:
    """A card's glyphs; a code that is no card (never in our own markers) as it is, so rendering never fails."""
    if code in ("", "?", "??"):
        return HIDDEN_CARD
    return pretty(code) if code in _DECK else code


def _who(number: str, names: Sequence[str] | None) -> str:
    if names is not None and number.isdigit() and int(number) < len(names):
        return names[int(number)]
    return f"seat {number}"


def _shown(kind: str, value: str, names: Sequence[str] | None) -> str:
    if kind == "seat":
        return _who(value, names)
    if kind == "card":
        return _card_text(value)
    if kind == "cards":
        return " ".join(_card_text(c) for c in value.split())
    if kind == "half":
        return halves(int(value))
    return chip_text(int(value))


def render(text: str, names: Sequence[str] | None = None) -> str:
    """The text for a person: seats as the players' names, cards as glyphs, values in their units.

    Without names (a log line, an error raised before the game is known) a seat reads `seat N`.

    >>> render("{seat:1} captured {card:TD} with {cards:TH TS}: total {half:15}", ["Anna", "Ben"])
    'Ben captured 10♦ with 10♥ 10♠: total 7½'
    """
    if "{" not in text:
        return text
    return _MARKER.sub(lambda m: _shown(m.group(1), m.group(2), names), text)


def _field(kind: str, value: str) -> Any:
    if kind == "seat" or kind in ("half", "chips"):
        return int(value)
    if kind == "cards":
        return value.split()
    return value


def structure(text: str) -> tuple[str, dict[str, Any]]:
    """The template and its fields: `{seat}`, `{card}`, then `{seat_2}`... for repeats.

    >>> structure("{seat:1} beat {seat:0} with {card:AS}")
    ('{seat} beat {seat_2} with {card}', {'seat': 1, 'seat_2': 0, 'card': 'AS'})
    """
    fields: dict[str, Any] = {}
    counts: dict[str, int] = {}

    def name(match: re.Match[str]) -> str:
        kind = match.group(1)
        counts[kind] = counts.get(kind, 0) + 1
        key = kind if counts[kind] == 1 else f"{kind}_{counts[kind]}"
        fields[key] = _field(kind, match.group(2))
        return "{" + key + "}"

    return _MARKER.sub(name, text), fields


#: a placeholder of a template (`structure`): `{seat}`, `{card_2}`
_PLACEHOLDER = re.compile(r"\{(seat|card|cards|half|chips)(?:_[0-9]+)?\}")


def _marker_value(kind: str, value: Any) -> str:
    return " ".join(value) if kind == "cards" else str(value)


def fill(template: str, fields: Mapping[str, Any], names: Sequence[str] | None = None) -> str:
    """A template and its fields (`structure`) rendered as `render` renders the marked text: what a client
    does with the API's `template` and `fields` (tests check it gives the API's `reason`).

    >>> fill("{seat} beat {seat_2} with {card}", {"seat": 1, "seat_2": 0, "card": "AS"}, ["Anna", "Ben"])
    'Ben beat Anna with A♠'
    """

    def marker(match: re.Match[str]) -> str:
        key = match.group(0)[1:-1]
        if key not in fields:
            return match.group(0)
        return "{" + match.group(1) + ":" + _marker_value(match.group(1), fields[key]) + "}"

    return render(_PLACEHOLDER.sub(marker, template), names)


def explained(text: str, names: Sequence[str] | None) -> dict[str, Any]:
    """`{"reason", "template", "fields"}` for the API: the rendered text and what it was made of."""
    template, fields = structure(text)
    return {"reason": render(text, names), "template": template, "fields": fields}


def has_marker(text: str) -> bool:
    """Whether `text` still holds a marker (a test checks rendered text never does)."""
    return _MARKER.search(text) is not None
