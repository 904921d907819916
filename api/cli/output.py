"""What `tablebook` prints: rich on a terminal, plain unwrapped lines anywhere else.

On a terminal, output has colour, tables have borders and long lines wrap at
its width. When stdout is a pipe or a file there is no colour, no markup code
and no width: every line is written whole (an id or a hash is never cut, so
`grep`, `cut` and `awk` see it), and a table is a header line then one
tab-separated line a row. `--json` writes one JSON document (orjson, as the
API answers it) and nothing else.

Also here, for the commands that read games: the rows of `tablebook list` and
`search`, and a replay frame for people (the event in card notation, one line
a seat, the table).

This module imports rich, orjson and `projections.core.phrases` (the marker language and the
value formatter, over `events.cards`) only, so `tablebook --help` stays fast (issue 14).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

import orjson
from rich.console import Console
from rich.table import Table
from rich.text import Text

from projections.core import phrases

#: a piece of a line: text, or (text, rich style) shown styled on a terminal only
Part = str | tuple[str, str]

#: how a hidden card is shown in frames (`projections.core.rules.HIDDEN`)
HIDDEN = phrases.HIDDEN_CARD


def one_line(text: str) -> str:
    """Every run of whitespace (a tab, a newline in a name) as one space: a line stays one line."""
    return " ".join(text.split())


class Output:
    """Lines, tables and JSON on one console (stdout), decided at each call: rich or plain."""

    def __init__(self, console: Console) -> None:
        self.console = console

    @property
    def plain(self) -> bool:
        """Not a terminal: plain lines, never wrapped, no colour."""
        return not self.console.is_terminal

    def line(self, *parts: Part) -> None:
        """One line made of parts; styles show on a terminal only, and no text is read as markup."""
        if self.plain:
            self.console.file.write("".join(p if isinstance(p, str) else p[0] for p in parts) + "\n")
        else:
            self.console.print(Text.assemble(*parts), highlight=False)

    def table(
        self,
        columns: Sequence[str],
        rows: Iterable[Sequence[str]],
        *,
        title: str | None = None,
        right: Collection[str] = (),
        whole: Collection[str] = ("id",),
    ) -> None:
        """A table: on a terminal with borders (`right` columns right-aligned, `whole` columns never
        wrapped or cut); else the title, a header line and one tab-separated line a row."""
        rows = [list(row) for row in rows]
        if self.plain:
            out = self.console.file
            if title:
                out.write(one_line(title) + "\n")
            out.write("\t".join(columns) + "\n")
            for row in rows:
                out.write("\t".join(one_line(cell) for cell in row) + "\n")
            return
        table = Table(
            title=title,
            title_justify="left",
            highlight=False,
            box=None,
            pad_edge=False,
            padding=(0, 2, 0, 0),
            header_style="bold underline",
        )
        for i, column in enumerate(columns):
            cells = [column, *(row[i] for row in rows)]
            # a `whole` column at its widest value; any other wraps between words, never inside a number
            widest = max(len(c) if column in whole else _longest_number(c) for c in cells)
            table.add_column(
                column,
                justify="right" if column in right else "left",
                no_wrap=column in whole,
                min_width=widest,
                overflow="fold",
            )
        for row in rows:
            # values by seat (`20/23/19`) may wrap between seats: `20 / 23 / 19` on a terminal
            shown = (
                cell if column in whole else _BY_SEAT.sub(" / ", cell)
                for column, cell in zip(columns, row, strict=False)
            )
            table.add_row(*(Text(cell) for cell in shown))
        self.console.print(table)

    def json(self, document: Any) -> None:
        """One JSON document, serialised as the API serialises its answers, and a newline."""
        body = orjson.dumps(document, option=orjson.OPT_NON_STR_KEYS) + b"\n"
        out = self.console.file
        out.flush()
        buffer = getattr(out, "buffer", None)
        if buffer is not None:
            buffer.write(body)
            buffer.flush()
        else:  # a text-only stream
            out.write(body.decode())
            out.flush()


#: a number as a table shows it (`-385`, `3½`, `1,000`), which a table never wraps inside
_NUMBER = re.compile(r"-?\d[\d½.,]*")
#: the slash between two seats' values (`20/23/19`)
_BY_SEAT = re.compile(r"(?<=[\d½])/(?=-?\d)")


def _longest_number(text: str) -> int:
    return max((len(m) for m in _NUMBER.findall(text)), default=0)


# --------------------------------------------------------------------------- values in words

#: which keys name a seat, a list of seats, a suit: one declaration for every reader (`projections/core/phrases.py`)
SEAT_KEYS = phrases.SEAT_KEYS
SEATS_KEYS = phrases.SEATS_KEYS
SUIT_KEYS = phrases.SUIT_KEYS
#: the game's units of its values (`GameRules.units`, the replay document's `units`): none by default
NO_UNITS: Mapping[str, str] = {}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_seat_key(key: str) -> bool:
    return phrases.is_seat_key(key)


def who(seat: Any, names: Sequence[str]) -> str:
    """The player of a seat, for people (`seat 5` for a seat the game does not have)."""
    if _is_int(seat) and 0 <= seat < len(names):
        return one_line(names[seat])
    return f"seat {seat}"


def label(key: str) -> str:
    return key.replace("_", " ")


def _is_card(value: Any) -> bool:
    return phrases.is_card(value)


def card_text(card: str) -> str:
    return phrases.card_text(card)


def cards_text(cards: Sequence[Any]) -> str:
    """`[Q♣ 10♦ K♦]`."""
    return "[" + " ".join(card_text(c) if _is_card(c) else value_text("", c, ()) for c in cards) + "]"


def _empty(value: Any) -> bool:
    """Nothing to show: null, false, empty, or an object of such values (variants all off)."""
    if isinstance(value, dict):
        return all(_empty(v) for v in value.values())
    return value is None or value is False or value == [] or value == ""


def _group(items: Sequence[str]) -> str:
    """One item as it is; several in parentheses, so that a list stays one entry of a line."""
    return items[0] if len(items) == 1 else "(" + ", ".join(items) + ")"


def seat_values(
    values: Mapping[str, Any], names: Sequence[str], key: str = "", units: Mapping[str, str] = NO_UNITS
) -> list[str]:
    """`["Anna 3", "Ben 0"]` from an object keyed by seat (`{"0": 3, "1": 0}`), in the unit of `key`."""
    return [f"{who(int(k), names)} {value_text(key, v, names, units)}" for k, v in values.items()]


def value_text(key: str, value: Any, names: Sequence[str], units: Mapping[str, str] = NO_UNITS) -> str:
    """A field's value in words: cards in notation, seats by name, numbers in the game's unit (`units`,
    `phrases.value_text`: `3½`, `5 chips`), text the rules wrote with markers rendered, objects and lists
    unpacked.

    `[K♥ Q♥]`, `Ben`, `(Anna, Ben)` (a list of seats), `(Anna 3, Ben 0)` (an object keyed by seat),
    `(winner Ben [Q♦ A♠] points 14)` (an object).
    """
    if value is True:
        return "yes"
    if _is_int(value):
        if is_seat_key(key) or units.get(key) == phrases.SEAT:
            return who(value, names)
        return phrases.value_text(units.get(key, ""), value)
    if isinstance(value, str):
        if _is_card(value):
            return card_text(value)
        return one_line(phrases.render(phrases.suit_text(key, value), names))
    if isinstance(value, list):
        if not value:
            return "[]"
        if phrases.is_seats_key(key) and all(_is_int(v) for v in value):
            return _group([who(v, names) for v in value])
        if all(_is_card(v) for v in value):
            return cards_text(value)
        if key == "hands" and all(isinstance(v, list) for v in value):  # a deal: seat by seat
            return _group([f"{who(s, names)} {value_text('cards', v, names)}" for s, v in enumerate(value)])
        if all(isinstance(v, dict) for v in value):
            return _group([object_text(v, names, units) for v in value])
        return " ".join(value_text(key, v, names, units) for v in value)
    if isinstance(value, dict):
        if value and all(isinstance(k, str) and k.isdigit() for k in value):  # keyed by seat
            return _group(seat_values(value, names, key, units))
        return object_text(value, names, units)
    return str(value)


def entry_text(key: str, value: Any, names: Sequence[str], units: Mapping[str, str] = NO_UNITS) -> str:
    """`talon 9`, `trump face up` (a true flag), `dealer Anna`, `total 3½`."""
    if value is True:
        return label(key)
    return f"{label(key)} {value_text(key, value, names, units)}"


def object_text(obj: Mapping[str, Any], names: Sequence[str], units: Mapping[str, str] = NO_UNITS) -> str:
    """An object of a table in words: `Ben Q♦` (a seat's card), `(winner Ben [Q♦ A♠] points 14)`."""
    parts: list[str] = []
    seated = _is_int(obj.get("seat"))
    if seated:
        parts.append(who(obj["seat"], names))
    #: a trick whose `plays` say who played which card: its bare `cards` would only say them again
    played = isinstance(obj.get("plays"), list) and all(isinstance(p, dict) and "card" in p for p in obj["plays"])
    for key, value in obj.items():
        if (key == "seat" and seated) or (key == "cards" and played):
            continue
        if _empty(value) or key == "seq" or key.endswith("_seq") or (key == "total" and "total_text" in obj):
            continue
        if key in ("card", "cards") and (_is_card(value) or isinstance(value, list)):
            parts.append(value_text(key, value, names, units))
        elif key == "total_text":
            parts.append(f"total {value}")
        else:
            parts.append(entry_text(key, value, names, units))
    if not parts:
        return "-"
    return " ".join(parts) if len(parts) == 1 or (seated and len(parts) == 2) else "(" + " ".join(parts) + ")"


# --------------------------------------------------------------------------- events and frames


def event_text(
    event: Mapping[str, Any], result: Mapping[str, Any], names: Sequence[str], units: Mapping[str, str] = NO_UNITS
) -> str:
    """One event for people: who, what, in card notation, then what the rules derived.

    `Anna play K♥ marriage  → trick winner Ben, trick points 14`. A replay frame carries this line made
    by the game's own declaration (`text`, `projections/reading/notation.py`); this is for an event without one.
    """
    words: list[str] = []
    if _is_int(event.get("seat")):
        words.append(who(event["seat"], names))
    words.append(label(str(event.get("type", "?"))))
    for key, value in event.items():
        if key == "type" or (key == "seat" and _is_int(value)) or _empty(value):
            continue
        if key == "card" and _is_card(value):
            words.append(card_text(value))
        elif key in ("text", "reason") and isinstance(value, str):
            words.append(f"{label(key)} {orjson.dumps(one_line(value)).decode()}")
        elif key in ("ref", "to_seq") and _is_int(value):
            words.append(f"{label(key)} seq {value}")
        else:
            words.append(entry_text(key, value, names, units))
    facts = [_fact_text(k, v, names, units) for k, v in result.items() if k != "audit_notes" and not _empty(v)]
    line = " ".join(words)
    return f"{line}  → {', '.join(facts)}" if facts else line


def _fact_text(key: str, value: Any, names: Sequence[str], units: Mapping[str, str]) -> str:
    """A derived fact: a sentence the rules wrote (with markers) as it reads; else `label value`."""
    if isinstance(value, str) and phrases.has_marker(value):
        return one_line(phrases.render(value, names))
    return entry_text(key, value, names, units)


def _seat_line(doc: Mapping[str, Any], names: Sequence[str], units: Mapping[str, str]) -> tuple[str, str, str]:
    """(name, cards, the rest) of a seat in a frame's state."""
    name = one_line(str(doc.get("name", who(doc.get("seat"), names))))
    if "cards" in doc:
        cards = cards_text(doc["cards"])
    else:
        cards = f"{doc.get('card_count', 0)} cards"
    rest: list[str] = []
    for key, value in doc.items():
        if key in ("seat", "name", "cards", "card_count") or _empty(value):
            continue
        if key.endswith("_count") and key.removesuffix("_count") in doc:
            continue
        if isinstance(value, list) and value and all(_is_card(v) for v in value):
            rest.append(f"{label(key)} {len(value)} card" + ("s" if len(value) > 1 else ""))
        else:
            rest.append(entry_text(key, value, names, units))
    return name, cards, ", ".join(rest)


def frame_lines(
    frame: Mapping[str, Any], names: Sequence[str], units: Mapping[str, str] = NO_UNITS
) -> list[list[Part]]:
    """A replay frame for people: the event, whose turn it is, a line per seat, the table, the points.

    `units`: the replay document's (the game's `GameRules.units`), so that every value reads in its unit.
    """
    lines: list[list[Part]] = []
    words = frame.get("text") or event_text(frame["event"], frame["result"], names, units)
    spoken = "  → ".join(one_line(part) for part in words.split("  → ", 1))  # a name's line break stays out
    head: list[Part] = [(f"{frame['seq']:>4}", "bold"), "  ", spoken]
    if "violation" in frame:
        violation = frame["violation"]
        message = one_line(phrases.render(str(violation.get("message", "")), names))
        head += ["  ", (f"(illegal: {violation.get('rule', '?')}: {message})", "red")]
    if "retracted_by" in frame:
        head += ["  ", (f"(retracted by seq {frame['retracted_by']})", "yellow")]
    lines.append(head)
    state = frame["state"]
    #: a `seat` unit is declared for facts (Smear's `game` fact names a seat; a seat's `game` is a count)
    units = {k: u for k, u in units.items() if u != phrases.SEAT}
    acting = ", ".join(who(s, names) for s in state.get("to_act", []))
    lines.append([f"      phase {state.get('phase', '?')}" + (f"; to act: {acting}" if acting else "")])
    seats = [_seat_line(doc, names, units) for doc in state.get("seats", [])]
    width = max((len(name) + len(cards) for name, cards, _ in seats), default=0)
    for name, cards, rest in seats:
        line: list[Part] = ["      ", (f"{name}:", "bold"), " ", cards]
        if rest:
            line += [" " * (width - len(name) - len(cards) + 2), rest]
        lines.append(line)
    table = [entry_text(k, v, names, units) for k, v in state.get("table", {}).items() if not _empty(v)]
    if table:
        lines.append(["      table: " + ", ".join(table)])
    points, totals = state.get("hand_points") or {}, state.get("totals") or {}
    if any(points.values()) or any(totals.values()):
        totals_label = "match" if units.get("totals") == phrases.TO_GO else "totals"
        said = [f"points: {', '.join(seat_values(points, names, 'points', units))}"] if points else []
        if totals:
            said.append(f"{totals_label}: {', '.join(seat_values(totals, names, 'totals', units))}")
            won = (state.get("match") or {}).get("game_points")
            if units.get("totals") == phrases.TO_GO and isinstance(won, dict):
                said[-1] += f" (game points won: {', '.join(seat_values(won, names))})"
        lines.append(["      " + "; ".join(said)])
    return lines


# --------------------------------------------------------------------------- games


GAME_COLUMNS = ("id", "game", "players", "status", "seq", "totals", "winner", "created")


def per_seat(values: Mapping[str, Any], unit: str = "") -> str:
    """`20/23/19`: a game's totals in seat order, in their unit: `4/0 to go` (Schnapsen), `3½/7`, `12/-12 chips`."""
    ordered = [values[k] for k in sorted(values, key=lambda k: int(k) if k.isdigit() else 0)]
    if unit == phrases.TO_GO:
        return "/".join(str(max(v, 0)) if _is_int(v) else str(v) for v in ordered) + " to go"
    shown = "/".join(phrases.value_text(phrases.HALF if unit == phrases.HALF else "", v) for v in ordered)
    return f"{shown} chips" if unit == phrases.CHIPS and ordered else shown


def game_row(game: Mapping[str, Any], *, short: bool = False, units: Mapping[str, str] = NO_UNITS) -> list[str]:
    """A game of `GET /v1/games` as a row of GAME_COLUMNS; `short`: created to the minute (a terminal);
    `units`: its game's (`GameRules.units`), so that its totals read in their unit."""
    players = game["players"]
    winner = game.get("winner")
    return [
        game["id"],
        game["game"],
        ", ".join(players),
        game["status"],
        str(game["seq"]),
        per_seat(game.get("totals") or {}, units.get("totals", "")),
        who(winner, players) if winner is not None else "",
        game["created_at"][:16].replace("T", " ") if short else game["created_at"],
    ]


def hit_text(hit: Mapping[str, Any], players: Sequence[str]) -> str:
    """`hand 2, seq 37: sweep (Ann)`."""
    seat = hit.get("seat")
    return f"hand {hit['hand']}, seq {hit['seq']}: {hit['situation']}" + (
        f" ({who(seat, players)})" if seat is not None else ""
    )
