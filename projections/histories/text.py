"""The text hand history: written for people, like a PokerStars hand history or a PGN, and read back exactly.

The grammar is in `docs/hand-history.md`. In short: a header of tag pairs (`[Event "Winter league"]`,
`[Game "Schnapsen"]`, `[Players "Anna, Ben"]`, `[Result "..."]`...), then each hand under a `Hand N`
heading: one line per event, in words (`words.py`), with the event itself in brackets at the line's end
(`Anna leads K♥ and shows the marriage in hearts (40)      [2. Anna: play KH marriage]`); the starting
cards of each deal sorted by suit; tricks under a `Trick N` heading with their winner; after the hand its
score lines in words and the running score. An import reads the tag pairs and the bracketed events
only: every other line is for people, and the importer recomputes it. (A file of the first version, with
each event at the start of its line and `=>` facts after it, is still read.)
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
from projections.core import engine, registry
from projections.core.rules import EMPTY, GameRules, HandScore, ScoreSheet
from projections.histories import words
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

#: the labels a game may have, by their API name, and the tag each is written as
LABEL_TAGS = {"event": "Event", "round": "Round", "table": "Table"}
#: between the names of the Players tag
PLAYERS_SEPARATOR = ", "

#: the field of the actor (`Anna: play KH`) and the field a bare card code is (the grammar's shorthands); which
#: other fields name a seat (written with the player's name, read back as the seat number) and which hold
#: cards is each game's declaration (`GameRules.fields`)
ACTOR = "seat"
CARD = "card"
_CARDS = frozenset(FULL_DECK)
_SEAT_REF = re.compile(r"#([0-9]+)")
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


#: the column the bracketed event of a body line starts at, when the words leave room
EVENT_COLUMN = 60


def event_line(words: str, seq: int, body: str, indent: int) -> str:
    """A body line: the words for people, then the event in its bracketed form, which an import reads."""
    left = " " * indent + words
    return f"{left.ljust(EVENT_COLUMN - 2)}  [{seq}. {body}]"


def score_lines(hand: HandScore, speaker: words.Speaker, rules: GameRules[Any]) -> list[str]:
    """`Score of hand 3: Anna +2 game points, Ben 0`, then one line per score line, in words."""
    unit = words.points_word(rules)
    head = ", ".join(f"{speaker.who(s)} {speaker.value('points', p, signed=True)}" for s, p in enumerate(hand.points))
    suffix = f" {unit}" if speaker.units.units.get("points") != "chips" else ""
    out = [f"  Score of hand {hand.hand}: {head}{suffix}" + ("" if hand.lines else " (no points)")]
    for line in hand.lines:
        seqs = ", ".join(str(q) for q in line.events)
        out.append(
            f"    {speaker.who(line.seat)} {speaker.value('points', line.points, signed=True)}: "
            f"{speaker.render(line.reason)}" + (f" (events {seqs})" if seqs else "")
        )
    return out


def totals_text(speaker: words.Speaker, totals: Sequence[Any]) -> str:
    """The totals as the game counts them (`Anna 4 to go, Ben 7 to go`; `Juan -79 chips, ...`)."""
    return ", ".join(f"{speaker.who(s)} {speaker.value('totals', t)}" for s, t in enumerate(totals))


def result_text(speaker: words.Speaker, sheet: ScoreSheet) -> str:
    """The Result tag: who won and the totals; `*` (as in PGN) while the game is in progress."""
    totals = totals_text(speaker, sheet.totals)
    if not sheet.finished:
        return f"* in progress: {totals}"
    if sheet.winner is None:
        return f"finished: {totals}"
    return f"{speaker.who(sheet.winner)} wins: {totals}"


def _tag(name: str, value: str) -> str:
    return f"[{name} {orjson.dumps(value).decode()}]"


def players_tag(players: Sequence[str]) -> str | None:
    """The Players tag (`Anna, Ben`) when it reads back as the same names, else None (Seat tags say them)."""
    text = PLAYERS_SEPARATOR.join(players)
    return text if split_players(text) == list(players) else None


def split_players(text: str) -> list[str]:
    return text.split(PLAYERS_SEPARATOR) if text else []


def header_tags(info: Mapping[str, Any], sheet: ScoreSheet | None, rules: GameRules[Any]) -> list[tuple[str, str]]:
    """The tag pairs of a game: the labels, Game, Club, Date, Players, Options, Result, then the record's."""
    players = list(info["players"])
    speaker = words.Speaker.of(rules, players)
    tags: list[tuple[str, str]] = [
        (tag, str(info[name])) for name, tag in LABEL_TAGS.items() if info.get(name) not in (None, "")
    ]
    tags.append(("Game", rules.title))
    if info.get("club"):
        tags.append(("Club", str(info["club"])))
    created = str(info["created_at"])
    tags.append(("Date", created[:10].replace("-", ".")))
    listed = players_tag(players)
    if listed is not None:
        tags.append(("Players", listed))
    options = format_value(dict(info["options"]))[1:-1]
    tags.append(("Options", options))
    if sheet is not None:
        tags.append(("Result", result_text(speaker, sheet)))
    tags.append(("Format", info.get("format", "tablebook/1")))
    tags.append(("Kind", rules.kind))
    if info.get("id"):
        tags.append(("Id", str(info["id"])))
    tags.append(("Created", created))
    if listed is None:
        tags += [(f"Seat{s}", name) for s, name in enumerate(players)]
    tags.append(("Status", str(info.get("status", ""))))
    tags.append(("Events", str(info.get("seq", 0))))
    if info.get("head_hash"):
        tags.append(("HeadHash", str(info["head_hash"])))
    if info.get("exported_at"):
        tags.append(("Exported", str(info["exported_at"])))
    if info.get("redacted"):
        tags.append(("Redacted", "a live hand's hidden cards are shown as ??; this file cannot be imported"))
    return tags


def _dealt(speaker: words.Speaker, data: Mapping[str, Any]) -> list[str]:
    """Each player's starting cards of a deal, sorted by suit; the table's, when the deal lays some out."""
    width = max((len(speaker.who(s)) for s in range(len(speaker.players))), default=4) + 1
    out: list[str] = []
    hands = data.get("hands", data.get("cards"))
    if isinstance(hands, list):
        hands = {str(s): cards for s, cards in enumerate(hands)}
    if isinstance(hands, Mapping):
        for seat in sorted(hands, key=lambda k: int(k) if str(k).isdigit() else 99):
            cards = hands[seat]
            cards = cards if isinstance(cards, list) else [cards]
            out.append(f"    {(speaker.who(seat) + ':').ljust(width)} {words.sorted_hand(speaker.words, cards)}")
    if isinstance(data.get("table"), list):
        out.append(f"    {'table:'.ljust(width)} {words.cards_text(data['table'])}")
    return out


def hand_facts(speaker: words.Speaker, result: Mapping[str, Any]) -> list[str]:
    """What a reader wants when a hand ends: hand points, the bid made or failed, the last cards taken."""
    out = []
    if isinstance(result.get("hand_points"), Mapping):
        out.append(f"  Hand points: {speaker.per_seat(result['hand_points'], 'hand_points')}")
    if "bidder" in result and "made" in result:
        made = "makes it" if result["made"] else "fails"
        out.append(f"  {speaker.who(result['bidder'])} bid {result.get('bid')} and {made}")
    rest = result.get("rest")
    if isinstance(rest, Mapping) and rest.get("cards"):
        out.append(f"  {speaker.who(rest.get('seat'))} takes the cards left: {words.cards_text(rest['cards'])}")
    if isinstance(result.get("sweeps"), list) and result["sweeps"]:
        out.append(f"  Sweeps: {words.prose(format_value(result['sweeps']))}")
    return out


@dataclass
class _Writer:
    """The running state of a text history being written: hands, tricks, running score."""

    rules: GameRules[Any]
    names: Names
    speaker: words.Speaker
    trick: int = 0
    in_trick: bool = False

    @property
    def trick_game(self) -> bool:
        """Whether the game's plays are grouped by trick, each with its winner (`Words.trick_play`)."""
        return self.speaker.words.trick_play is not None

    def new_hand(self) -> None:
        self.trick, self.in_trick = 0, False

    def event_lines(self, env: Mapping[str, Any], seen: Mapping[str, Any], remarks: Sequence[str]) -> list[str]:
        kind, data, result = seen["type"], seen["data"], seen.get("result") or {}
        out: list[str] = []
        lead = False
        if kind == "play" and self.trick_game:
            lead = not self.in_trick
            if lead:
                self.trick += 1
                self.in_trick = True
                out.append(f"  Trick {self.trick}")
        text = words.phrase(self.speaker, kind, data, result, lead=lead)
        if remarks:
            text += " (" + "; ".join(remarks) + ")"
        indent = 4 if kind == "play" and self.trick_game else 2
        out.append(event_line(text, env["seq"], event_body(self.rules, kind, data, self.names), indent))
        if kind == "deal":
            out += _dealt(self.speaker, data)
        ended = words.trick_end(self.speaker, result) if self.trick_game else None
        if ended is not None:
            out.append(f"    → {ended}")
            self.in_trick = False
        if kind == "retract":
            self.in_trick = False
        if result.get("hand_ended"):
            out += hand_facts(self.speaker, result)
        return out


def _remarks(
    env: Mapping[str, Any], seen: Mapping[str, Any], retracted: Mapping[int, int], speaker: words.Speaker
) -> list[str]:
    remarks = []
    if "violation" in env:
        violation = env["violation"]
        message = speaker.render(str(violation.get("message", violation.get("reason", ""))))
        remarks.append(f"against the rule {words.prose(str(violation.get('rule')))}: {message}")
    if env["seq"] in retracted:
        remarks.append(f"taken back by event {retracted[env['seq']]}")
    if seen.get("redacted"):
        remarks.append("hidden cards shown as ??")
    return remarks


def write_text(
    info: Mapping[str, Any],
    rules: GameRules[Any],
    envelopes: Sequence[Envelope],
    shown: Sequence[Envelope] | None = None,
) -> Iterator[str]:
    """The lines of a game's text hand history (without line ends).

    `envelopes` are the game's stored envelopes (folded for the score lines and the running score);
    `shown` are the same envelopes as the reader may see them (redacted), if different: the words and
    the bracketed events are written from those.
    """
    players = tuple(info["players"])
    names = Names(players)
    speaker = words.Speaker.of(rules, players)
    initial = engine.start(rules, list(players), dict(info["options"]))
    # the header's Result needs the end; the hands are then walked again (two folds, not every position kept)
    final = engine.fold(rules, initial, envelopes) if envelopes else initial
    sheet = rules.score(final.game)
    steps = engine.walk(rules, initial, envelopes)
    for name, value in header_tags(info, sheet, rules):
        yield _tag(name, value)
    scores = {h.hand: h for h in sheet.hands}
    last_of_hand: dict[int, int] = {env["hand"]: i for i, env in enumerate(envelopes)}
    retracted = engine.retracted_seqs(envelopes)
    display = shown if shown is not None else envelopes
    writer = _Writer(rules, names, speaker)
    for index, ((env, position), seen) in enumerate(zip(steps, display, strict=True)):
        hand = env["hand"]
        if index == 0 or envelopes[index - 1]["hand"] != hand:
            writer.new_hand()
            yield ""
            yield f"Hand {hand}" + (" (before the first deal)" if hand == 0 else "")
        yield from writer.event_lines(env, seen, _remarks(env, seen, retracted, speaker))
        if last_of_hand.get(hand) == index and hand in scores:
            yield from score_lines(scores[hand], speaker, rules)
            yield f"  Running score: {totals_text(speaker, rules.score(position.game).totals)}"
    yield ""
    yield f"Result: {result_text(speaker, sheet)}"


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
        elif token.kind == "word" and token.text in _CARDS and CARD not in fields:
            name, value = CARD, token.text
        else:
            value = True
        if name in fields or name in event:
            raise NotationError(f"the field {name!r} is given twice", token.column)
        fields[name] = value
    return {**fields, **event}
