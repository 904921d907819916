"""A game's words for people, as the game declares them (`GameRules.words`), and what they are made with.

The text hand history (`projections/histories/`) writes each event in a card player's words: `Anna leads
K♥ and shows the marriage`. The words of a game's own events are the game's (`Words`, in its package:
`projections/games/<game>/words.py`); the histories add the common events' and name no game. These
lines are for people only: the history carries each event in its compact bracketed form beside them,
which is what an import reads, so a phrase may leave a field out or add a derived fact that helps a
reader (the trick's winner, a 7½ total), but it never has to be parsed back.

Values are in the game's units (`Units`, from `GameRules.units`): Seven and a Half totals in half points
(`7½`), stakes in chips, Schnapsen's totals as game points still to go. Seats are the players' names,
cards glyphs (`10♦`). A prose line never holds a square bracket: a name or a note's text is written
with `(`/`)` instead, so that the only `[` of a body line is the one that starts its event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from events.cards import RANKS, SUIT_SYMBOLS, pretty
from projections.core import phrases

HIDDEN = "??"
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def prose(text: str) -> str:
    """One line for people: whitespace runs as one space, square brackets as round ones."""
    return " ".join(text.split()).replace("[", "(").replace("]", ")")


def is_card(code: Any) -> bool:
    return isinstance(code, str) and len(code) == 2 and code[0] in RANKS and code[1] in SUIT_SYMBOLS


def card_text(code: Any) -> str:
    """A card's glyphs (`10♦`); a hidden card `??`; anything else as it is, for people."""
    if is_card(code):
        return pretty(str(code))
    if code in (None, "", "?", HIDDEN):
        return HIDDEN
    return prose(str(code))


def cards_text(codes: Any) -> str:
    if not isinstance(codes, list | tuple):
        return card_text(codes)
    return " ".join(card_text(c) for c in codes) if codes else "none"


def display_names(players: Sequence[str]) -> tuple[str, ...]:
    """The players' names as the words say them: on one line, without brackets; a name two seats share
    (or a blank one) with its seat, `Ruby (#1)`, as the bracketed events write it."""
    shown = [prose(name) for name in players]
    return tuple(f"{name} (#{seat})" if not name or shown.count(name) > 1 else name for seat, name in enumerate(shown))


class Declared(Protocol):
    """What a speaker reads of a game's declaration (`GameRules`)."""

    @property
    def units(self) -> Mapping[str, str]: ...

    @property
    def words(self) -> Words: ...


@dataclass(frozen=True, slots=True)
class Units:
    """How a game's values read: `units` maps a field (or `points`, `totals`) to `half`, `chips`, `to_go`."""

    units: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, rules: Declared) -> Units:
        return cls(dict(rules.units))

    def text(self, key: str, value: Any, *, signed: bool = False) -> str:
        """`value` of the field `key` in its unit: `phrases.value_text`, the one formatter of values."""
        return phrases.value_text(self.units.get(key, ""), value, signed=signed)


@dataclass(frozen=True, slots=True)
class Speaker:
    """What the phrases of one game need: its players' names, its units, its words."""

    players: tuple[str, ...]
    units: Units
    words: Words

    @classmethod
    def of(cls, rules: Declared, players: Sequence[str]) -> Speaker:
        return cls(display_names(players), Units.of(rules), rules.words)

    def who(self, seat: Any) -> str:
        if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(self.players):
            return self.players[seat]
        if isinstance(seat, str) and seat.isdigit():
            return self.who(int(seat))
        return f"seat {seat}"

    def value(self, key: str, value: Any, *, signed: bool = False) -> str:
        """A value in its unit; a seat (a fact the game declares a seat) as the player's name."""
        if self.units.units.get(key) == "seat":
            return self.who(value)
        return self.units.text(key, value, signed=signed)

    def per_seat(self, values: Mapping[str, Any] | Sequence[Any], key: str, *, signed: bool = False) -> str:
        """`Anna +3, Ben 0` from a per-seat object (`{"0": 3}`) or tuple."""
        items = values.items() if isinstance(values, Mapping) else enumerate(values)
        return ", ".join(f"{self.who(s)} {self.value(key, v, signed=signed)}" for s, v in items)

    def render(self, text: str) -> str:
        """A marked text of the rules (`{seat:1} closed the talon`) with the names, glyphs and units."""
        return prose(phrases.render(text, self.players))


#: the words of one event: `phrase(speaker, data, result)`
Phrase = Callable[[Speaker, Mapping[str, Any], Mapping[str, Any]], str]


@dataclass(frozen=True, slots=True)
class Words:
    """A game's words in the text hand history: its events' phrases, how its hands sort, its tricks."""

    #: the words of each of the game's own event types; one not named here (nor common to every game) is
    #: written plainly: its actor, its type and its fields
    phrases: Mapping[str, Phrase] = field(default_factory=lambda: MappingProxyType({}))
    #: the ranks high to low, as a dealt hand is shown sorted within each suit (Gin's ace is low)
    ranks: str = "AKQJT98765432"
    #: what the points of a hand's score lines count, for people (`game points`, `chips`)
    points: str = "points"
    #: a trick game's play, `trick_play(speaker, data, result, lead)` (`lead`: it opens a trick). Set, the
    #: game's plays are grouped under `Trick N` headings, each closed by the line `trick_end` gives
    trick_play: Callable[[Speaker, Mapping[str, Any], Mapping[str, Any], bool], str] | None = None
    #: `trick_end(speaker, result)`: the line after a trick's last card (who won it, what it was worth);
    #: None mid-trick
    trick_end: Callable[[Speaker, Mapping[str, Any]], str | None] | None = None


#: the words of a game that declares none: every event of its own written plainly
PLAIN = Words()


# --------------------------------------------------------------------------- what trick games share


def play_words(s: Speaker, d: Mapping[str, Any], lead: bool) -> str:
    """`Anna leads K♥`, `Ben plays 10♥`: a trick game's play."""
    verb = "leads" if lead else "plays"
    return f"{s.who(d.get('seat'))} {verb} {card_text(d.get('card'))}"


def trick_won(s: Speaker, result: Mapping[str, Any]) -> str | None:
    """`Anna wins the trick`, after a trick's last card (a game adds what it was worth); None mid-trick."""
    if "trick_winner" not in result:
        return None
    return f"{s.who(result['trick_winner'])} wins the trick"
