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
from collections.abc import Iterable, Sequence
from typing import Any

from events.cards import pretty

#: `{kind:value}`, value without braces
_MARKER = re.compile(r"\{(seat|card|cards|half|chips):([^{}]*)\}")
HIDDEN_CARD = "??"


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


def _card_text(code: str) -> str:
    return HIDDEN_CARD if code in ("", "?", "??") else pretty(code)


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


def explained(text: str, names: Sequence[str] | None) -> dict[str, Any]:
    """`{"reason", "template", "fields"}` for the API: the rendered text and what it was made of."""
    template, fields = structure(text)
    return {"reason": render(text, names), "template": template, "fields": fields}


def has_marker(text: str) -> bool:
    """Whether `text` still holds a marker (a test checks rendered text never does)."""
    return _MARKER.search(text) is not None
