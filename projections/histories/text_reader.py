"""The text hand history read back (`text.py` writes it; the grammar is in `docs/hand-histories.md`).

`parse_text` reads the tag pairs and the bracketed events only (`[12. Anna: play KH]`, after a line's
words): every other line is for people, and the importer recomputes it. A file of the first version,
with each event at the start of its line and `=>` facts after it, is still read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from events.errors import UnknownGameError
from projections.core import registry
from projections.core.rules import GameRules
from projections.histories.errors import BadImportError
from projections.histories.notation import (
    NotationError,
    Reader,
    Token,
    string_value,
    tokenize,
    word_value,
)
from projections.histories.text import ACTOR, CARD, CARDS, SEAT_REF, split_players

_TAG = re.compile(r'\s*\[([A-Za-z][A-Za-z0-9_]*)\s+("(?:[^"\\]|\\.)*")\s*\]\s*')
_EVENT = re.compile(r"\s*([0-9]+)\.(?=\s|$)")
#: an event in brackets, after a body line's words: `[12. Anna: play KH]` (the words hold no `[`)
_BRACKETED = re.compile(r"\[([0-9]+)\.(?=\s|\])")
#: a tag pair's start: `[` and no digit (an event in brackets starts with its seq)
_TAG_START = re.compile(r"\[(?![0-9])")
_SEAT_TAG = re.compile(r"Seat([0-9]+)")
#: the most digits a seq, a `#<seat>` or a `Seat<n>` tag is read with (a seq is at most 2**31 - 1): Python
#: refuses to convert more than 4,300 digits, and nothing here needs more than 10
MAX_DIGITS = 10


@dataclass
class TextGame:
    """What a text hand history says: its tag pairs and its events, each with its line number."""

    tags: dict[str, str] = field(default_factory=dict)
    tag_lines: dict[str, int] = field(default_factory=dict)
    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)

    def seats(self) -> list[str]:
        """The players by seat, from `Seat0`, `Seat1`... (contiguous from 0).

        Raises:
            BadImportError: no Seat tags, a gap, or a count that disagrees with `Seats`.
        """
        found = seat_tags(self)
        if not found and "Players" in self.tags:
            return split_players(self.tags["Players"])
        if not found:
            raise BadImportError(
                'the header names no players: expected [Players "Anna, Ben"] or [Seat0 "name"], [Seat1 "name"]...'
            )
        if sorted(found) != list(range(len(found))):
            missing = next(s for s in range(len(found) + 1) if s not in found)  # never a range up to a huge seat
            raise BadImportError(f"the header has no Seat{missing} tag (seats are numbered 0, 1, 2...)")
        seats = self.tags.get("Seats")
        if seats is not None and seats.strip() != str(len(found)):
            raise BadImportError(
                f"the Seats tag says {seats} but {len(found)} Seat tags follow", line=self.tag_lines["Seats"]
            )
        return [found[s] for s in range(len(found))]

    def options(self) -> dict[str, Any]:
        """The `Options` tag read as `key=value` pairs ({} when there is none)."""
        text = self.tags.get("Options", "").strip()
        if not text:
            return {}
        try:
            tokens = list(tokenize("{" + text + "}"))
            reader = Reader(tokens, len(text) + 2)
            value = reader.value()
            if reader.peek() is not None:
                raise NotationError("unexpected text after the options", 0)
        except NotationError as exc:
            raise BadImportError(f"the Options tag cannot be read: {exc}", line=self.tag_lines["Options"]) from None
        assert isinstance(value, dict)
        return value


def small_number(digits: str, what: str, line: int) -> int:
    """ASCII `digits` as an int, refused with its line when longer than MAX_DIGITS.

    Raises:
        BadImportError: more than MAX_DIGITS digits.
    """
    if len(digits) > MAX_DIGITS:
        raise BadImportError(f"{what} has {len(digits):,} digits: at most {MAX_DIGITS} are read", line=line)
    return int(digits)


def seat_tags(game: TextGame) -> dict[int, str]:
    """The players the `Seat<n>` tags name, by seat number.

    Raises:
        BadImportError: a Seat tag whose number has more than MAX_DIGITS digits, at its line.
    """
    return {seat: game.tags[name] for seat, name in seat_tag_names(game).items()}


def seat_tag_names(game: TextGame) -> dict[int, str]:
    """The name of each `Seat<n>` tag (`Seat0`...), by seat number: where to find its value and its line.

    Raises:
        BadImportError: a Seat tag whose number has more than MAX_DIGITS digits, at its line.
    """
    found: dict[int, str] = {}
    for name in game.tags:
        match = _SEAT_TAG.fullmatch(name)
        if match:
            found[small_number(match.group(1), f"the tag {name[:20]}...", game.tag_lines[name])] = name
    return found


def parse_text(text: str, rules: GameRules[Any] | None = None) -> TextGame:
    """Read a text hand history: its tags and its events (not yet checked against any rule).

    Which fields of an event are seats, written as names, is the declaration of the game (`rules`, else
    the game the `Game` tag names; for a game this server does not know, a field any game declares a seat
    of that event type).

    Raises:
        BadImportError: a line that is none of the forms of the grammar, with its line number.
    """
    game = TextGame()
    seat_fields: Callable[[str], frozenset[str]] | None = rules.seat_fields if rules is not None else None
    in_header = True
    #: the file writes its events in brackets after words (its first event says): then a line without
    #: brackets is words for people, even one that starts like `1. ` (a player called "1. FC")
    bracketed = False
    # lines end at "\n" only: a JSON string may hold U+2028 or U+0085 unescaped, which splitlines() would cut
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        line = line.lstrip("\ufeff") if number == 1 else line
        stripped = line.strip()
        bracket = None if _TAG_START.match(stripped) else _BRACKETED.search(line)
        if not stripped or (bracket is None and stripped[0] in ";%"):  # a comment (a name may start so)
            continue
        if in_header and _TAG_START.match(stripped):
            _read_tag(game, line, number)
            continue
        if _TAG_START.match(stripped):
            raise BadImportError("a tag pair after the first hand: tags belong in the header", line=number)
        in_header = False
        bracketed = bracketed or (bracket is not None and not game.events)
        if bracket is None and (bracketed or _EVENT.match(line) is None):
            if "[" in line:
                raise BadImportError(
                    "cannot read the event of this line: expected it in brackets, as [<seq>. <event>], at the "
                    "line's end",
                    line=number,
                )
            continue  # words for people: headings, dealt cards, a trick's winner, score lines
        if seat_fields is None:
            seat_fields = declared_seat_fields(kind_of(game.tags))
        game.events.append((number, _read_event(game, line, number, seat_fields, bracket)))
    return game


def _read_tag(game: TextGame, line: str, number: int) -> None:
    match = _TAG.fullmatch(line)
    if match is None:
        raise BadImportError('a bad tag pair: expected [Name "value"]', line=number)
    name = match.group(1)
    if name in game.tags:
        raise BadImportError(f"the tag {name} is given twice", line=number)
    try:
        value = orjson.loads(match.group(2))
    except orjson.JSONDecodeError:
        raise BadImportError(f"the value of the tag {name} is not a proper string", line=number) from None
    game.tags[name] = value
    game.tag_lines[name] = number


def _resolve_seat(token: Token, value: Any, players: Sequence[str], number: int, field_name: str) -> Any:
    """A seat written as a name or `#<seat>` becomes its number; an integer stays as it is."""
    if not isinstance(value, str):
        return value
    ref = SEAT_REF.fullmatch(value) if token.kind == "word" else None
    if ref:
        return small_number(ref.group(1), f"{field_name}: the seat {value[:20]}...", number)
    matches = [s for s, name in enumerate(players) if name == value]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise BadImportError(
            f"{field_name}: {value!r} is not a player of this game (the header's Seat tags name "
            f"{', '.join(players) or 'nobody'}); write a seat as its player's name or as #<seat>",
            line=number,
        )
    raise BadImportError(f"{field_name}: {value!r} names more than one seat; write #<seat>", line=number)


def _players(game: TextGame) -> list[str]:
    found = seat_tags(game)
    if not found and "Players" in game.tags:
        return split_players(game.tags["Players"])
    return [found[s] for s in sorted(found)]


def kind_of(tags: Mapping[str, str]) -> str | None:
    """The game kind a header names: its `Kind` tag, else its `Game` tag as a kind or as a game's title
    (`Schnapsen`, `Seven and a Half`, case aside); None when there is neither."""
    if "Kind" in tags:
        return tags["Kind"]
    game = tags.get("Game")
    if game is None:
        return None
    for known in registry.available():
        if game.strip().casefold() in (known, registry.rules_for(known).title.casefold()):
            return known
    return game


def declared_seat_fields(kind: str | None) -> Callable[[str], frozenset[str]]:
    """The seat fields of an event type as the game `kind` declares them (`GameRules.seat_fields`).

    For a kind this server does not know (the import refuses it once the file is read), the fields any
    known game declares a seat of that event type, so that the lines read as they would for that game.
    """
    try:
        return registry.rules_for(kind or "").seat_fields
    except UnknownGameError:
        games = [registry.rules_for(known) for known in registry.available()]

        def any_game(event_type: str) -> frozenset[str]:
            return frozenset().union(*(rules.seat_fields(event_type) for rules in games))

        return any_game


def _read_event(
    game: TextGame,
    line: str,
    number: int,
    seat_fields: Callable[[str], frozenset[str]],
    bracket: re.Match[str] | None = None,
) -> dict[str, Any]:
    """One event: `[<seq>. [<seat>:] <type> <card>? <flag>... <key>=<value>...]` after a line's words, or
    the same without brackets at the line's start (then `=>` or `;` ends what is read)."""
    head = bracket if bracket is not None else _EVENT.match(line)
    assert head is not None
    seq = small_number(head.group(1), "the seq", number)
    expected = len(game.events) + 1
    if seq != expected:
        raise BadImportError(f"expected the event with seq {expected}, found seq {seq}", line=number, seq=seq)
    players = _players(game)
    try:
        tokens = _bracketed_tokens(line, head.end()) if bracket is not None else _line_tokens(line, head.end())
        return _event_of(tokens, len(line), players, number, seat_fields)
    except NotationError as exc:
        raise BadImportError(f"column {exc.column + 1}: {exc}", line=number, seq=seq) from None


def _line_tokens(line: str, start: int) -> list[Token]:
    """The tokens of an unbracketed event, up to a `=>` or `;` (what follows is for people)."""
    tokens = []
    for token in tokenize(line, start):
        if token.kind == "punct" and token.text in ("=>", ";"):
            break
        tokens.append(token)
    return tokens


def _bracketed_tokens(line: str, start: int) -> list[Token]:
    """The tokens of a bracketed event, up to its closing `]`; nothing but spaces or a comment may follow.

    Raises:
        NotationError: no closing bracket, or text after it.
    """
    tokens: list[Token] = []
    depth = 0
    stream = tokenize(line, start)
    for token in stream:
        if token.kind == "punct" and token.text in ("[", "{"):
            depth += 1
        elif token.kind == "punct" and token.text in ("]", "}"):
            if depth == 0 and token.text == "]":
                rest = line[token.column + 1 :].strip()
                if rest and not rest.startswith(";"):
                    raise NotationError(f"unexpected text after the event: {rest[:20]!r}", token.column + 1)
                return tokens
            depth -= 1
        tokens.append(token)
    raise NotationError("missing ']' at the end of the event", len(line))


def _event_of(
    tokens: list[Token], end: int, players: Sequence[str], number: int, seat_fields: Callable[[str], frozenset[str]]
) -> dict[str, Any]:
    reader = Reader(tokens, end)
    event: dict[str, Any] = {}
    if len(tokens) >= 2 and tokens[1].kind == "punct" and tokens[1].text == ":":
        actor = reader.next("the seat")
        reader.next("':'")
        if actor.kind == "punct":
            raise NotationError(f"expected a seat before ':', found {actor.text!r}", actor.column)
        value = string_value(actor) if actor.kind == "string" else word_value(actor.text, actor.column)
        event[ACTOR] = _resolve_seat(actor, value, players, number, ACTOR)
    kind = reader.next("the event type")
    if kind.kind != "word":
        raise NotationError(f"expected the event type, found {kind.text!r}", kind.column)
    fields: dict[str, Any] = {"type": kind.text}
    seats = seat_fields(kind.text)
    while reader.peek() is not None:
        token = reader.next("a field")
        if token.kind == "punct":
            raise NotationError(f"expected a field, found {token.text!r}", token.column)
        name = string_value(token) if token.kind == "string" else token.text
        follower = reader.peek()
        if follower is not None and follower.kind == "punct" and follower.text == "=":
            reader.next("'='")
            start = reader.peek()
            value = reader.value()
            if name in seats and start is not None and start.kind in ("word", "string"):
                value = _resolve_seat(start, value, players, number, name)
        elif token.kind == "word" and token.text in CARDS and CARD not in fields:
            name, value = CARD, token.text
        else:
            value = True
        if name in fields or name in event:
            raise NotationError(f"the field {name!r} is given twice", token.column)
        fields[name] = value
    return {**fields, **event}
