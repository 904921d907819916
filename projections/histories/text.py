"""The text hand history: written for people, like a PokerStars hand history or a PGN, and read back exactly.

The grammar is in `docs/hand-histories.md`. In short: a header of tag pairs (`[Event "Winter league"]`,
`[Game "Schnapsen"]`, `[Players "Anna, Ben"]`, `[Result "..."]`...), then each hand under a `Hand N`
heading: one line per event, in words (`words.py`), with the event itself in brackets at the line's end
(`Anna leads K♥ and shows the marriage in hearts (40)      [2. Anna: play KH marriage]`); the starting
cards of each deal sorted by suit; tricks under a `Trick N` heading with their winner; after the hand its
score lines in words and the running score. An import reads the tag pairs and the bracketed events
only: every other line is for people, and the importer recomputes it. (A file of the first version, with
each event at the start of its line and `=>` facts after it, is still read.)

This module writes it; `text_reader.py` reads it back.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

import orjson

from events.cards import FULL_DECK
from events.envelope import Envelope
from projections.core import engine
from projections.core.rules import EMPTY, GameRules, HandScore, ScoreSheet
from projections.histories import words
from projections.histories.notation import format_string, format_value

#: the labels a game may have, by their API name, and the tag each is written as
LABEL_TAGS = {"event": "Event", "round": "Round", "table": "Table"}
#: between the names of the Players tag
PLAYERS_SEPARATOR = ", "

#: the field of the actor (`Anna: play KH`) and the field a bare card code is (the grammar's shorthands); which
#: other fields name a seat (written with the player's name, read back as the seat number) and which hold
#: cards is each game's declaration (`GameRules.fields`)
ACTOR = "seat"
CARD = "card"
CARDS = frozenset(FULL_DECK)
#: a seat written by its number, where its name would not read back as that one seat
SEAT_REF = re.compile(r"#([0-9]+)")


# --------------------------------------------------------------------------- writing


@dataclass(frozen=True, slots=True)
class Names:
    """How seats are written: the player's name when it is unambiguous, else `#<seat>`."""

    players: tuple[str, ...]

    def token(self, seat: int) -> str:
        if not 0 <= seat < len(self.players):
            return f"#{seat}"
        name = self.players[seat]
        if self.players.count(name) > 1 or SEAT_REF.fullmatch(name) or not name.strip():
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
    bare_card = isinstance(card, str) and card in CARDS
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
