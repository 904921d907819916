"""Exports of a game: json and jsonl (re-importable, every envelope with its hash), text, csv; bulk NDJSON.

- json: `{"format": "tablebook/1", "id", "game", "club", "players", "seats",
  "options", "created_at", "updated_at", "status", "seq", "hand", "totals",
  "winner", "head_hash", "exported_at", "event"?, "round"?, "table"?, "events": [envelopes]}`
  (the labels only when the game has them);
- jsonl: the same header (without `events`) on the first line, then one
  envelope a line;
- text: the hand history of `projections/histories/text.py`, each score claim followed by whether it agrees
  with the computed score (`projections/histories/claims.py`);
- csv: the score sheet, one row per score line, in the game's units (`score_csv`); `csv-excel`
  the same for Excel, UTF-8 with a byte-order mark (`excel_csv`); `sheet` (served by the export route) the score
  sheet as a scorer keeps it, hands down and players across (`projections/histories/sheet.py`).

A header's `seq` and `head_hash` are those of its last envelope, so an
importer can tell a truncated file from a whole one. An export in which a
viewer's live-hand cards were hidden carries `"redacted": true` (and its
envelopes too) and cannot be imported: its hashes no longer match.
"""

from __future__ import annotations

import base64
import csv
import io
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import orjson

from events.codec import FORMAT, utc_now
from events.envelope import Envelope
from events.errors import InvalidEventError, TablebookError
from events.schema import unstorable
from events.store import GameRecord, Store
from projections.core import engine, phrases
from projections.core.recorder import head_of
from projections.core.registry import rules_for
from projections.core.rules import GameRules, ScoreSheet, seat_dict
from projections.histories import words
from projections.histories.claims import flag_claims
from projections.histories.text import write_text

#: `csv-excel`: the csv for Excel, with a byte-order mark (`excel_csv`)
EXCEL = "csv-excel"
FORMATS = ("json", "jsonl", "text", "csv", EXCEL)
MEDIA_TYPES = {
    "json": "application/json",
    "jsonl": "application/x-ndjson",
    "text": "text/plain; charset=utf-8",
    "csv": "text/csv; charset=utf-8",
    EXCEL: "text/csv; charset=utf-8",
}
SUFFIXES = {"json": "json", "jsonl": "jsonl", "text": "txt", "csv": "csv", EXCEL: "csv"}
#: events read at once while a game is streamed (memory is bounded by this page)
PAGE = 1000

#: A viewer's redaction: (rules, the state at the head, envelopes up to the head) -> envelopes as shown.
Redactor = Callable[[GameRules[Any], Any, list[Envelope]], list[Envelope]]


def header(
    game: GameRecord,
    club: str | None,
    *,
    seq: int | None = None,
    head_hash: str | None = None,
    state: Any = None,
    rules: GameRules[Any] | None = None,
    redacted: bool = False,
) -> dict[str, Any]:
    """A game's export header; `seq`/`head_hash`/`state` give the head of the events exported."""
    doc: dict[str, Any] = {
        "format": FORMAT,
        "id": game.id,
        "game": game.kind,
        "club": club,
        "players": list(game.players),
        "seats": len(game.players),
        "options": dict(game.options),
        "created_at": game.created_at,
        "updated_at": game.updated_at,
        "status": game.status,
        "seq": game.seq if seq is None else seq,
        "hand": game.hand,
        "totals": game.totals,
        "winner": game.winner,
        "head_hash": game.head_hash if head_hash is None else head_hash,
        "exported_at": utc_now(),
        **game.labels(),
    }
    if state is not None and rules is not None:
        head = head_of(rules, state, doc["head_hash"])
        doc.update(status=head.status, hand=head.hand, totals=dict(head.totals), winner=head.winner)
    if redacted:
        doc["redacted"] = True
    return doc


def mark_redacted(head: dict[str, Any], shown: Sequence[Envelope]) -> None:
    """Mark a header whose envelopes were redacted for a reader: `redacted: true`, and no head hash when
    the envelopes' hashes were withheld (they are hashes over hidden cards: see `projections/reading/visibility.py`)."""
    if any(env.get("redacted") or env.get("withheld") for env in shown):
        head["redacted"] = True
    if any("hash" in env and env["hash"] is None for env in shown):
        head["head_hash"] = None
        head["redacted"] = True


def snapshot(game: GameRecord, envelopes: Sequence[Envelope]) -> tuple[GameRules[Any], Any]:
    """The rules and the folded state after `envelopes` (a consistent head for the header)."""
    rules = rules_for(game.kind)
    initial = engine.start(rules, list(game.players), game.options)
    return rules, engine.fold(rules, initial, envelopes) if envelopes else initial


def json_document(head: Mapping[str, Any], envelopes: Sequence[Envelope]) -> dict[str, Any]:
    return {**head, "events": list(envelopes)}


def jsonl_lines(head: Mapping[str, Any], envelopes: Sequence[Envelope]) -> Iterator[bytes]:
    yield orjson.dumps(head) + b"\n"
    for env in envelopes:
        yield orjson.dumps(env) + b"\n"


def text_lines(
    head: Mapping[str, Any], rules: GameRules[Any], envelopes: Sequence[Envelope], shown: Sequence[Envelope]
) -> Iterator[str]:
    for line in flag_claims(write_text(head, rules, envelopes, shown), head, rules, envelopes):
        yield line + "\n"


def _cell(text: str) -> str:
    """Text a spreadsheet would run as a formula (`=`, `+`, `-`, `@`) gets a leading `'`."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


#: the csv's value columns by what a game's points count (`words.points_word`): the line's, the seat's sum so far
VALUE_COLUMNS = {"chips": ("chips", "running_chips"), "game points": ("game_points", "game_points_won")}


def csv_columns(rules: GameRules[Any] | None) -> tuple[str, ...]:
    """`hand, player, points, running_total, rule, reason, seqs`, the value columns named in the game's unit
    (Seven and a Half: `chips, running_chips`; Schnapsen: `game_points, game_points_won, to_go`)."""
    word = words.points_word(rules) if rules is not None else "points"
    points, running = VALUE_COLUMNS.get(word, ("points", "running_total"))
    to_go = ("to_go",) if rules is not None and words.Units.of(rules).units.get("totals") == "to_go" else ()
    return ("hand", "player", points, running, *to_go, "rule", "reason", "seqs")


def score_csv(players: Sequence[str], sheet: ScoreSheet, rules: GameRules[Any] | None = None) -> str:
    """The score sheet as CSV (`csv_columns`): one row per score line, in the game's units.

    `player` is the name (a name two seats share gets its seat: `Ruby (#1)`); the value columns are
    numbers in the game's unit, named so (`chips`; Schnapsen's `game_points` with `game_points_won`
    so far and `to_go`, the game points still to go); `reason` is the rule's text rendered with the
    names, card glyphs and values in their units (`bust with 8½`). A hand without lines (voided,
    thrown in) has one row without a player. The last rows (hand `totals`) give each seat's total as
    the game counts it (Schnapsen: to go, beside the game points won).
    """
    speaker = words.Speaker.of(rules, players) if rules is not None else None
    names = speaker.players if speaker is not None else words.display_names(players)
    columns = csv_columns(rules)
    to_go = "to_go" in columns
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(columns)
    running = [0] * len(players)
    target = _to_go_target(sheet) if to_go else 0
    for hand in sheet.hands:
        if not hand.lines:
            writer.writerow((hand.hand, "", 0, "", *([""] if to_go else []), "", "no points in this hand", ""))
        for line in hand.lines:
            running[line.seat] += line.points
            left = [max(target - running[line.seat], 0)] if to_go else []
            reason = phrases.render(" ".join(line.reason.split()), names)
            writer.writerow(
                (
                    hand.hand,
                    _cell(names[line.seat]),
                    line.points,
                    running[line.seat],
                    *left,
                    line.rule,
                    _cell(reason),
                    " ".join(str(q) for q in line.events),
                )
            )
    totals = seat_dict(sheet.totals)
    state = "finished" if sheet.finished else "live"
    for seat, name in enumerate(names):
        won = " (winner)" if sheet.winner == seat else ""
        row: tuple[Any, ...]
        if to_go:
            row = (
                "totals",
                _cell(name),
                running[seat],
                running[seat],
                totals[str(seat)],
                "totals",
                f"{state}{won}",
                "",
            )
        else:
            row = ("totals", _cell(name), totals[str(seat)], running[seat], "totals", f"{state}{won}", "")
        writer.writerow(row)
    return out.getvalue()


def _to_go_target(sheet: ScoreSheet) -> int:
    """The game points a to-go game starts each seat at (Schnapsen: 7), from its sheet: a seat still to go
    has `to go + won`; the winner's to go stops at 0, so it is read from a seat that has not reached it."""
    won = [sum(h.points[s] for h in sheet.hands) for s in range(len(sheet.totals))]
    starts = [t + w for t, w in zip(sheet.totals, won, strict=True) if t > 0]
    return max(starts) if starts else max((t + w for t, w in zip(sheet.totals, won, strict=True)), default=0)


#: the byte-order mark Excel needs to read a CSV as UTF-8 (without it, `½` and `Inès` are garbled)
BOM = "\ufeff"


def excel_csv(content: bytes) -> bytes:
    """The csv export for Excel (`format=csv-excel`): the same rows, UTF-8 with a byte-order mark, CRLF.

    No `sep=,` line: Excel reads such a file in the system's code page and ignores the mark.
    """
    text = content.decode("utf-8")
    return (BOM + text.removeprefix(BOM)).encode("utf-8")


# --------------------------------------------------------------------------- bulk


def encode_cursor(game: GameRecord) -> str:
    """The bulk export's resume point: after this game (oldest first by `(created_at, id)`)."""
    return base64.urlsafe_b64encode(f"export|{game.created_at}|{game.id}".encode()).decode()


def decode_cursor(cursor: str) -> tuple[str, str]:
    """Raises: InvalidEventError: not a cursor of `GET /v1/export`."""
    try:
        kind, created, gid = base64.urlsafe_b64decode(cursor.encode()).decode().split("|", 2)
    except (ValueError, UnicodeDecodeError):
        raise InvalidEventError("cursor: not a cursor of GET /v1/export", field="cursor") from None
    if kind != "export" or not created or not gid or unstorable(created) or unstorable(gid):  # a NUL: PostgreSQL
        raise InvalidEventError("cursor: not a cursor of GET /v1/export", field="cursor")
    return created, gid


def game_events(store: Store, game: GameRecord) -> Iterator[Envelope]:
    """A game's envelopes up to its registry head (`game.seq`), in pages: a consistent snapshot."""
    after = 0
    while after < game.seq:
        page = store.read_events(game.id, after, min(PAGE, game.seq - after))
        if not page:
            return
        yield from page
        after = page[-1]["seq"]


def bulk_lines(
    store: Store,
    *,
    club_id: int | None,
    kind: str | None = None,
    ids: Sequence[str] | None = None,
    since: str | None = None,
    until: str | None = None,
    cursor: str | None = None,
    limit: int | None = None,
    redact: Redactor | None = None,
    on_game: Callable[[GameRecord], None] | None = None,
    position_of: Callable[[GameRecord, Sequence[Envelope]], tuple[GameRules[Any], Any]] = snapshot,
) -> Iterator[bytes]:
    """NDJSON of many games, oldest first, in constant memory.

    `position_of(game, envelopes)` gives a live game's rules and its position after `envelopes` (its events up to
    the registry's head), which `redact` decides at: by default a fold from event 1 (`snapshot`); the
    service passes the recorder's, which starts at the nearest snapshot.

    For each game: its jsonl export (the header line, then one envelope a line), then
    `{"cursor": c, "after": id}`: pass `c` as `cursor` to resume after that game. The
    last line is `{"next_cursor": c | null, "games": n}` (null: nothing more matched).
    With `redact`, each live game is read whole (to know its live hand) and its hidden
    cards are replaced; other games are streamed a page of events at a time. An error in the middle
    (the response has begun) ends the stream with an `{"error": {...}}` line.
    """
    after = decode_cursor(cursor) if cursor else None
    clubs: dict[int, str] = {}
    count = 0
    last: GameRecord | None = None
    more = False
    games = store.iter_games(club_id=club_id, kind=kind, ids=ids, since=since, until=until, after=after)
    try:
        for game in games:
            if limit is not None and count >= limit:
                more = True
                break
            if game.club_id not in clubs:
                clubs[game.club_id] = store.club_name(game.club_id)
            club = clubs[game.club_id]
            if redact is not None and game.status == "live":
                envelopes = list(game_events(store, game))
                rules, state = position_of(game, envelopes)
                shown = redact(rules, state, envelopes)
                head = header(game, club, state=state, rules=rules)
                mark_redacted(head, shown)
                yield from jsonl_lines(head, shown)
            else:
                yield orjson.dumps(header(game, club)) + b"\n"
                chunk: list[bytes] = []
                for env in game_events(store, game):
                    chunk.append(orjson.dumps(env))
                    if len(chunk) >= 200:
                        yield b"\n".join(chunk) + b"\n"
                        chunk = []
                if chunk:
                    yield b"\n".join(chunk) + b"\n"
            count += 1
            last = game
            yield orjson.dumps({"cursor": encode_cursor(game), "after": game.id}) + b"\n"
            if on_game is not None:
                on_game(game)
    except TablebookError as exc:
        yield orjson.dumps({"error": exc.to_dict()}) + b"\n"
        return
    next_cursor = encode_cursor(last) if more and last is not None else None
    yield orjson.dumps({"next_cursor": next_cursor, "games": count}) + b"\n"
