"""The text hand history: written for people, in the spirit of PGN and PBN, and read back exactly.

The grammar is in `docs/hand-history.md`. In short: a header of tag pairs
(`[Game "schnapsen"]`), then each hand under a `Hand N` heading, one line per
event (`  12. Anna: play KH marriage  => trick_winner=Ben trick_points=14`),
and after each hand its score lines. Only the tag pairs and the part of an
event line before `=>` or `;` are read back; headings, derived facts, score
lines and comments are for people, and an importer recomputes them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

import orjson

from events.cards import FULL_DECK
from events.envelope import Envelope
from events.errors import UnknownGameError
from projections import engine, registry
from projections.audit import name_seats
from projections.histories.errors import BadImportError
from projections.histories.notation import (
    NotationError,
    Reader,
    Token,
    format_string,
    format_value,
    string_value,
    tokenize,
    word_value,
)
from projections.rules import EMPTY, GameRules, HandScore, ScoreSheet

#: the field of the actor (`Anna: play KH`) and the field a bare card code is (the grammar's shorthands); which
#: other fields name a seat (written with the player's name, read back as the seat number) and which hold
#: cards is each game's declaration (`GameRules.fields`)
ACTOR = "seat"
CARD = "card"
#: result fields that name a seat, shown with the player's name
_NAMED_FACTS = re.compile(
    r"(winner|_by|_to|^scorer|^bidder|^dealer|^banker|^next_banker|^box|^captain|^sitter|^first_to_speak)$"
)
_CARDS = frozenset(FULL_DECK)
_SEAT_REF = re.compile(r"#([0-9]+)")
_TAG = re.compile(r'\s*\[([A-Za-z][A-Za-z0-9_]*)\s+("(?:[^"\\]|\\.)*")\s*\]\s*')
_EVENT = re.compile(r"\s*([0-9]+)\.(?=\s|$)")
_SEAT_TAG = re.compile(r"Seat([0-9]+)")
#: the most digits a seq, a `#<seat>` or a `Seat<n>` tag is read with (a seq is at most 2**31 - 1): Python
#: refuses to convert more than 4,300 digits, and nothing here needs more than 10
MAX_DIGITS = 10

#: the tags a text export starts with, in this order (others may follow; unknown tags are kept, not read)
TAG_ORDER = ("Format", "Game", "Title", "Club", "Id", "Created", "Seats")


# --------------------------------------------------------------------------- writing


@dataclass(frozen=True, slots=True)
class Names:
    """How seats are written: the player's name when it is unambiguous, else `#<seat>`."""

    players: tuple[str, ...]

    def token(self, seat: int) -> str:
        if not 0 <= seat < len(self.players):
            return f"#{seat}"
        name = self.players[seat]
        if self.players.count(name) > 1 or _SEAT_REF.fullmatch(name) or not name.strip():
            return f"#{seat}"
        return format_string(name)

    def plain(self, seat: Any) -> str:
        """The name for people, on one line (a name may hold a newline; it is not read back from here)."""
        if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(self.players):
            return one_line(self.players[seat])
        return f"seat {seat}"


def one_line(text: str) -> str:
    """Every run of whitespace (newlines, U+2028...) as one space: for the lines that are not read back."""
    return " ".join(text.split())


def _is_seat(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def event_body(rules: GameRules[Any], event_type: str, data: Mapping[str, Any], names: Names) -> str:
    """`Anna: play KH marriage`: the part of an event line that is read back.

    The event type's declared seat fields (`rules.seat_fields`) are written with the player's name; its
    `seat` is the actor before the type and its `card`, when it is declared a card, is written bare after it.
    """
    seat_fields = rules.seat_fields(event_type)
    words: list[str] = []
    actor = data.get(ACTOR) if ACTOR in seat_fields else None
    has_actor = _is_seat(actor)
    if _is_seat(actor):
        words.append(names.token(actor) + ":")
    words.append(event_type)
    card = data.get(CARD) if rules.fields.get(event_type, EMPTY).get(CARD) == "card" else None
    bare_card = isinstance(card, str) and card in _CARDS
    if isinstance(card, str) and bare_card:
        words.append(card)
    for key, value in data.items():
        if (key == ACTOR and has_actor) or (key == CARD and bare_card):
            continue
        if value is True:
            words.append(format_string(key))
        elif key in seat_fields and _is_seat(value):
            words.append(f"{format_string(key)}={names.token(value)}")
        else:
            words.append(f"{format_string(key)}={format_value(value)}")
    return " ".join(words)


def facts_text(result: Mapping[str, Any], names: Names) -> str:
    """The derived facts of an event, for people (`trick_winner=Ben trick_points=14`)."""
    words = []
    for key, value in result.items():
        if key == "audit_notes":
            continue
        if value is True:
            words.append(format_string(key))
        elif _is_seat(value) and _NAMED_FACTS.search(key):
            words.append(f"{format_string(key)}={format_string(names.plain(value))}")
        else:
            words.append(f"{format_string(key)}={format_value(value)}")
    return " ".join(words)


def _points(value: int | float) -> str:
    return f"{value:+d}" if isinstance(value, int) and value else str(value)


def score_lines(hand: HandScore, names: Names) -> list[str]:
    """`Score hand 3: Anna +2, Ben 0` and one `- ` line per score line."""
    head = ", ".join(f"{names.plain(s)} {_points(p)}" for s, p in enumerate(hand.points))
    out = [f"Score hand {hand.hand}: {head}" + ("" if hand.lines else " (no points)")]
    for line in hand.lines:
        seqs = ", ".join(str(q) for q in line.events)
        reason = one_line(name_seats(line.reason, names.players))
        out.append(
            f"  - {names.plain(line.seat)} {_points(line.points)} {line.rule}: {reason}"
            + (f" (seqs {seqs})" if seqs else "")
        )
    return out


def _tag(name: str, value: str) -> str:
    return f"[{name} {orjson.dumps(value).decode()}]"


def header_tags(info: Mapping[str, Any], sheet: ScoreSheet | None, title: str) -> list[tuple[str, str]]:
    """The tag pairs of a game: what an import needs (Format, Game, Created, Seat<n>, Options) and more."""
    players = list(info["players"])
    names = Names(tuple(players))
    tags: list[tuple[str, str]] = [
        ("Format", info.get("format", "tablebook/1")),
        ("Game", info["game"]),
        ("Title", title),
    ]
    if info.get("club"):
        tags.append(("Club", str(info["club"])))
    if info.get("id"):
        tags.append(("Id", str(info["id"])))
    tags.append(("Created", info["created_at"]))
    tags.append(("Seats", str(len(players))))
    tags += [(f"Seat{s}", name) for s, name in enumerate(players)]
    options = format_value(dict(info["options"]))[1:-1]
    tags.append(("Options", options))
    tags.append(("Status", str(info.get("status", ""))))
    if sheet is not None:
        tags.append(("Totals", ", ".join(f"{names.plain(s)} {t}" for s, t in enumerate(sheet.totals))))
        if sheet.winner is not None:
            tags.append(("Winner", names.plain(sheet.winner)))
    tags.append(("Events", str(info.get("seq", 0))))
    if info.get("head_hash"):
        tags.append(("HeadHash", str(info["head_hash"])))
    if info.get("exported_at"):
        tags.append(("Exported", str(info["exported_at"])))
    if info.get("redacted"):
        tags.append(("Redacted", "a live hand's hidden cards are shown as ??; this file cannot be imported"))
    return tags


def write_text(
    info: Mapping[str, Any],
    rules: GameRules[Any],
    envelopes: Sequence[Envelope],
    shown: Sequence[Envelope] | None = None,
) -> Iterator[str]:
    """The lines of a game's text hand history (without line ends).

    `envelopes` are the game's stored envelopes (folded for the score lines);
    `shown` are the same envelopes as the reader may see them (redacted), if different.
    """
    players = tuple(info["players"])
    names = Names(players)
    initial = engine.start(rules, list(players), dict(info["options"]))
    final = engine.fold(rules, initial, envelopes) if envelopes else initial
    sheet = rules.score(final.game)
    for name, value in header_tags(info, sheet, rules.title):
        yield _tag(name, value)
    scores = {h.hand: h for h in sheet.hands}
    last_of_hand: dict[int, int] = {env["hand"]: i for i, env in enumerate(envelopes)}
    retracted = engine.retracted_seqs(envelopes)
    display = shown if shown is not None else envelopes
    current: int | None = None
    for index, (env, seen) in enumerate(zip(envelopes, display, strict=True)):
        if env["hand"] != current:
            if current is not None and last_of_hand.get(current) == index - 1 and current in scores:
                yield from score_lines(scores[current], names)
            current = env["hand"]
            yield ""
            yield f"Hand {current}" + (" (before the first deal)" if current == 0 else "")
        line = f"{env['seq']:>4}. {event_body(rules, seen['type'], seen['data'], names)}"
        facts = facts_text(env.get("result") or {}, names)
        if facts:
            line += f"  => {facts}"
        remarks = []
        if "violation" in env:
            violation = env["violation"]
            remarks.append(one_line(f"illegal {violation.get('rule')}: {violation.get('message')}"))
        if env["seq"] in retracted:
            remarks.append(f"retracted by seq {retracted[env['seq']]}")
        if seen.get("redacted"):
            remarks.append("redacted")
        if remarks:
            line += "  ; " + "; ".join(remarks)
        yield line
    if current is not None and current in scores and last_of_hand.get(current) == len(envelopes) - 1:
        yield from score_lines(scores[current], names)
    yield ""
    totals = ", ".join(f"{names.plain(s)} {t}" for s, t in enumerate(sheet.totals))
    state = "finished" if sheet.finished else "live"
    winner = f"; winner {names.plain(sheet.winner)}" if sheet.winner is not None else ""
    yield f"Score totals: {totals} ({state}{winner})"


# --------------------------------------------------------------------------- reading


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
        if not found:
            raise BadImportError('the header names no players: expected [Seat0 "name"], [Seat1 "name"]...')
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
    previous = ""  # the kind of the last non-blank body line
    # lines end at "\n" only: a JSON string may hold U+2028 or U+0085 unescaped, which splitlines() would cut
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        line = line.lstrip("\ufeff") if number == 1 else line
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith(";") or stripped.startswith("%"):
            continue
        if stripped.startswith("["):
            if not in_header:
                raise BadImportError("a tag pair after the first hand: tags belong in the header", line=number)
            _read_tag(game, line, number)
            continue
        in_header = False
        if _EVENT.match(line):
            if seat_fields is None:
                seat_fields = declared_seat_fields(game.tags.get("Game"))
            game.events.append((number, _read_event(game, line, number, seat_fields)))
            previous = "event"
        elif re.match(r"Hand(\s|$)", stripped):
            if not re.fullmatch(r"Hand [0-9]+( .*)?", stripped):
                raise BadImportError(f"a bad hand heading {stripped!r}: expected 'Hand <number>'", line=number)
            previous = "hand"
        elif re.match(r"Score(\s|$)", stripped):
            previous = "score"
        elif stripped.startswith("- ") or stripped == "-":
            if previous != "score":
                raise BadImportError("a score line ('- ...') that follows no 'Score' line", line=number)
        else:
            shown = stripped if len(stripped) <= 40 else stripped[:40] + "..."
            raise BadImportError(
                f"cannot read {shown!r}: expected a tag pair, an event line ('<seq>. ...'), a 'Hand' heading, "
                "a 'Score' line or a comment (';')",
                line=number,
            )
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
    ref = _SEAT_REF.fullmatch(value) if token.kind == "word" else None
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
    return [found[s] for s in sorted(found)]


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


def _read_event(game: TextGame, line: str, number: int, seat_fields: Callable[[str], frozenset[str]]) -> dict[str, Any]:
    """One event line: `<seq>. [<seat>:] <type> <card>? <flag>... <key>=<value>...`."""
    head = _EVENT.match(line)
    assert head is not None
    seq = small_number(head.group(1), "the seq", number)
    expected = len(game.events) + 1
    if seq != expected:
        raise BadImportError(f"expected the event with seq {expected}, found seq {seq}", line=number, seq=seq)
    players = _players(game)
    try:
        tokens = []
        for token in tokenize(line, head.end()):
            if token.kind == "punct" and token.text in ("=>", ";"):
                break
            tokens.append(token)
        return _event_of(tokens, len(line), players, number, seat_fields)
    except NotationError as exc:
        raise BadImportError(f"column {exc.column + 1}: {exc}", line=number, seq=seq) from None


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
        elif token.kind == "word" and token.text in _CARDS and CARD not in fields:
            name, value = CARD, token.text
        else:
            value = True
        if name in fields or name in event:
            raise NotationError(f"the field {name!r} is given twice", token.column)
        fields[name] = value
    return {**fields, **event}
