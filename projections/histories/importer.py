"""Imports: a json, jsonl or text export back into a game, after checking everything.

json and jsonl carry every envelope with its hash. The importer checks the
header (format, game, players, options), then re-walks the chain from the
genesis record (game, seats, options, created_at: `events/codec.py`) and
re-runs the rules on every event, with the same code as `verify`
(`projections/reading/verify.py`): an edited, missing or reordered line, or an event
the rules refuse, is named by its line (jsonl) or its index (json), and
nothing is written. The envelopes are then written exactly as they were
(same `recorded_at`, `actor`, `result`, hashes), so the imported game has
the same head hash as the exported one. The header's and each envelope's shape are checked by
`projections/histories/checks.py` first.

A text history has no hashes: its events are decided again, one by one, as
an append would (`engine.decide`), and sealed into a new chain from the same
genesis record, with the import's time and actor.

A file of many games (the NDJSON of `GET /v1/export`, or jsonl exports one
after another) is read a game at a time (`read_games`): each bad game is
reported with its reason, the others are imported.

A game the club holds already is not imported again unless asked
(`existing_copy`, `import_or_find`): the same chain (genesis and head hash),
or the same genesis and the same events whatever their times and actors (a
text history, decided again at each import, gets a new chain every time), or
the same genesis and the first events of a club's game (an export taken before
the game went on). Asked (`copy`, or a bulk import without `skip_existing`),
it is stored as a *copy* (`copy_of`: the club's game): a record, not a second
result, which the ratings, the players' statistics and the standings skip.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from events.codec import FORMAT, canonical, genesis_hash, utc_now
from events.envelope import Envelope
from events.errors import TablebookError
from events.store import GameRecord, Head, Store
from projections.core import engine
from projections.core.recorder import head_of
from projections.core.registry import rules_for
from projections.histories.checks import GameHead, check_created, check_envelope, check_labels, check_name, game_head
from projections.histories.errors import BadImportError, located
from projections.histories.text import LABEL_TAGS
from projections.histories.text_reader import TextGame, kind_of, parse_text, seat_tag_names
from projections.reading.verify import verify_stream


@dataclass
class Imported:
    """A game read from a file and checked: ready to be written as it is."""

    kind: str
    players: list[str]
    options: dict[str, Any]
    created_at: str
    genesis: str
    envelopes: list[Envelope]
    head: Head
    format: str
    source: dict[str, Any] = field(default_factory=dict)
    #: the line of the game's header, in a file of many games
    line: int = 0
    #: the game's event, round and table (`GameRecord.labels`), carried by every format
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def same_chain(self) -> bool:
        """Is the head hash the exported one (always for json/jsonl; text gets new times)?"""
        return bool(self.source.get("head_hash")) and self.source.get("head_hash") == self.head.head_hash


@dataclass(frozen=True, slots=True)
class Outcome:
    """One game of a file of many: imported (`game`) or skipped (`reason`)."""

    source_id: str | None
    line: int
    game: GameRecord | None = None
    reason: str | None = None
    duplicate_of: str | None = None
    events: int = 0


# --------------------------------------------------------------------------- formats


def sniff(body: bytes) -> str:
    """`json`, `jsonl` or `text`, from the first characters of a file."""
    start = body.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if start == b"{":
        first, _, _rest = body.lstrip(b"\xef\xbb\xbf \t\r\n").partition(b"\n")
        try:
            doc = orjson.loads(first)
        except orjson.JSONDecodeError:
            return "json"  # a pretty-printed json export
        if isinstance(doc, dict) and "events" in doc and isinstance(doc["events"], list):
            return "json"
        return "jsonl"
    return "text"


def decode_text(body: bytes) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = body[: exc.start].count(b"\n") + 1
        raise BadImportError("the file is not UTF-8 text", line=line) from None


def _load(line: bytes, number: int) -> Any:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise BadImportError(f"not valid JSON: {exc}", line=number) from None


def verified(head: GameHead, envelopes: list[Envelope], places: Sequence[dict[str, Any]], fmt: str) -> Imported:
    """Re-walk the chain and re-run the rules (as `verify` does); the first problem names its place.

    `places[i]` says where envelope `i` is in the file (`{"line": n}` or `{"index": i}`).

    Raises:
        BadImportError: the first problem, at its line or index, with its seq.
    """
    report = verify_stream(head.kind, head.players, head.options, head.created_at, envelopes)
    genesis = genesis_hash(head.kind, len(head.players), head.options, head.created_at)
    if report.problems:
        problem = report.problems[0]
        seq = problem["seq"]
        index = min(max(seq - 1, 0), len(places) - 1) if places else None
        where = places[index] if index is not None else {}
        message = str(problem["message"])
        if problem["problem"] == "chain" and seq == 1:
            message += " (game, seats, options and created_at of the header are hashed there)"
        raise BadImportError(message, seq=seq, problem=problem["problem"], **where)
    head_hash = envelopes[-1]["hash"] if envelopes else genesis
    exported_seq, exported_hash = head.source.get("seq"), head.source.get("head_hash")
    if exported_seq is not None and exported_seq != len(envelopes):
        raise BadImportError(
            f"the header says the game has {exported_seq} events but the file holds {len(envelopes)}: "
            "it is truncated or has extra events",
            field="seq",
            **(places[-1] if places else {}),
        )
    if exported_hash is not None and exported_hash != head_hash:
        raise BadImportError(
            "the header's head_hash is not the hash of the last event",
            field="head_hash",
            **(places[-1] if places else {}),
        )
    return Imported(
        kind=head.kind,
        players=head.players,
        options=head.options,
        created_at=head.created_at,
        genesis=genesis,
        envelopes=envelopes,
        head=head_of(head.rules, report.state, head_hash),
        format=fmt,
        source=head.source,
        labels=head.labels,
    )


# --------------------------------------------------------------------------- the three formats


def from_json(body: bytes) -> Imported:
    """A json export (`{..., "events": [...]}`); errors name the event's index in `events`."""
    doc = _load(body, 1)
    if not isinstance(doc, dict) or not isinstance(doc.get("events"), list):
        raise BadImportError('expected a json export: {"format": "tablebook/1", ..., "events": [...]}')
    head = game_head(doc)
    envelopes = [check_envelope(env, index=i) for i, env in enumerate(doc["events"])]
    return verified(head, envelopes, [{"index": i} for i in range(len(envelopes))], "json")


def split_lines(body: bytes) -> Iterator[tuple[int, bytes]]:
    """The non-blank lines of a file with their numbers (1-based), without keeping a copy."""
    number, start = 0, 0
    while start < len(body):
        end = body.find(b"\n", start)
        if end < 0:
            end = len(body)
        number += 1
        line = body[start:end].strip()
        if number == 1:
            line = line.lstrip(b"\xef\xbb\xbf")
        if line:
            yield number, line
        start = end + 1


def from_jsonl(lines: Iterable[tuple[int, bytes]]) -> Imported:
    """One game's jsonl export; errors name the line. More than one game is refused."""
    games = list(read_games(lines, single=True))
    if not games:
        raise BadImportError("the file is empty", line=1)
    result = games[0]
    if isinstance(result, BadImportError):
        raise result
    return result


def from_text(text: str, *, actor: str, recorded_at: str | None = None) -> Imported:
    """A text hand history: every event decided again and sealed into a new chain.

    Raises:
        BadImportError: a line the grammar does not allow, a missing tag, an event the rules refuse.
    """
    parsed = parse_text(text)
    head = _text_head(parsed)
    rules, state = head.rules, engine.start(head.rules, head.players, head.options)
    genesis = genesis_hash(head.kind, len(head.players), head.options, head.created_at)
    when = recorded_at or utc_now()
    targets = {
        event["to_seq"]
        for _, event in parsed.events
        if event.get("type") == "retract" and isinstance(event.get("to_seq"), int)
    }
    replay = engine.Replay(rules, state, stored=True, keep=targets)
    envelopes: list[Envelope] = []
    prev = genesis
    for line, raw in parsed.events:
        seq = state.seq + 1
        try:
            decision = replay.push(raw)
        except TablebookError as exc:
            raise located(exc, line=line, seq=seq) from None
        state = replay.position
        envelope = engine.sealed(state, decision, recorded_at=when, actor=actor, prev_hash=prev)
        envelopes.append(envelope)
        prev = envelope["hash"]
    count = parsed.tags.get("Events")
    if count is not None and count.strip() != str(len(envelopes)):
        raise BadImportError(
            f"the Events tag says {count} events but the file holds {len(envelopes)}: it is truncated or has "
            "extra events",
            line=parsed.tag_lines["Events"],
        )
    return Imported(
        kind=head.kind,
        players=head.players,
        options=head.options,
        created_at=head.created_at,
        genesis=genesis,
        envelopes=envelopes,
        head=head_of(rules, state, prev),
        format="text",
        source=head.source,
        labels=head.labels,
    )


def _text_head(parsed: TextGame) -> GameHead:
    tags, lines = parsed.tags, parsed.tag_lines
    if tags.get("Redacted") is not None:
        raise BadImportError(
            "this history was redacted for a viewer key (a live hand's cards are hidden): it cannot be imported",
            line=lines["Redacted"],
        )
    fmt = tags.get("Format")
    if fmt is not None and fmt != FORMAT:
        raise BadImportError(f"Format: expected {FORMAT!r}, got {fmt!r}", line=lines["Format"])
    kind = kind_of(tags)
    if kind is None:
        raise BadImportError('the header has no [Game "..."] tag (e.g. [Game "Schnapsen"])', line=1)
    try:
        rules = rules_for(kind)
    except TablebookError as exc:
        raise BadImportError(exc.message, line=lines.get("Kind", lines.get("Game", 1))) from None
    tag_names = seat_tag_names(parsed)
    players = [
        check_name(seat, name, line=lines[tag_names[seat]] if seat in tag_names else lines.get("Players"))
        for seat, name in enumerate(parsed.seats())
    ]
    options = parsed.options()
    try:
        filled = rules.options_for(players, options)
    except TablebookError as exc:
        raise BadImportError(exc.message, line=lines.get("Options", lines["Game"])) from None
    created = tags.get("Created")
    if created is None:
        created = utc_now()  # a history typed by hand: the game is created now
    else:
        check_created(created, line=lines["Created"])
    source = {"id": tags.get("Id"), "club": tags.get("Club"), "head_hash": tags.get("HeadHash")}
    labels: dict[str, str] = {}
    for name, tag in LABEL_TAGS.items():
        if tag in tags:
            labels.update(check_labels({name: tags[tag]}, line=lines[tag]))
    return GameHead(rules.kind, rules, players, filled, created, {k: v for k, v in source.items() if v}, labels)


def read_file(body: bytes, *, actor: str, fmt: str | None = None) -> Imported:
    """One game from a json, jsonl or text export (the format sniffed unless given).

    Raises:
        BadImportError: the first thing wrong, at its line or index; nothing is written.
    """
    fmt = fmt or sniff(body)
    if fmt == "json":
        return from_json(body)
    if fmt == "jsonl":
        return from_jsonl(split_lines(body))
    if fmt == "text":
        return from_text(decode_text(body), actor=actor)
    raise BadImportError(f"format: expected json, jsonl or text, got {fmt!r}", field="format")


# --------------------------------------------------------------------------- many games


@dataclass
class _Reading:
    """The game being read from an NDJSON file."""

    line: int
    head: GameHead | None = None
    error: BadImportError | None = None
    envelopes: list[Envelope] = field(default_factory=list)
    places: list[dict[str, Any]] = field(default_factory=list)

    def fail(self, error: BadImportError) -> None:
        if self.error is None:
            self.error = error

    def finish(self) -> Imported | BadImportError:
        result: Imported | BadImportError
        if self.error is not None:
            result = self.error
        else:
            assert self.head is not None
            try:
                result = verified(self.head, self.envelopes, self.places, "jsonl")
            except BadImportError as exc:
                result = exc
        if isinstance(result, BadImportError):
            result.details.setdefault("game_line", self.line)
            if self.head is not None and self.head.source.get("id"):
                result.details.setdefault("source_id", self.head.source["id"])
        else:
            result.line = self.line
        return result


def read_games(lines: Iterable[tuple[int, bytes]], *, single: bool = False) -> Iterator[Imported | BadImportError]:
    """The games of an NDJSON file, one at a time: each checked game, or the error that sank it.

    A header line (with `"format"`) starts a game; envelope lines (with `"seq"`) follow; a
    `{"cursor"}` line closes it; a `{"next_cursor"}` line ends a bulk export's page. Memory
    holds one game. With `single`, a second game is an error (one-game imports).
    """
    current: _Reading | None = None
    headers = 0
    for number, line in lines:
        try:
            doc = _load(line, number)
        except BadImportError as exc:
            current = current or _Reading(number)
            current.fail(exc)
            continue
        if isinstance(doc, dict) and "format" in doc:
            headers += 1
            if single and headers > 1:
                raise BadImportError(
                    "a second game starts here: this route imports one game; use POST /v1/import/bulk "
                    "or `tablebook import` for a file of many",
                    line=number,
                )
            if current is not None:
                yield current.finish()
            current = _Reading(number)
            try:
                current.head = game_head(doc, line=number)
            except BadImportError as exc:
                current.fail(exc)
            continue
        if isinstance(doc, dict) and ("cursor" in doc or "next_cursor" in doc) and "seq" not in doc:
            if current is not None:
                yield current.finish()
            current = None
            continue
        if current is None:
            current = _Reading(number)
            current.fail(
                BadImportError(
                    'an event before any game header: a file starts with {"format": "tablebook/1", ...}',
                    line=number,
                )
            )
            continue
        if current.error is not None:
            continue
        if isinstance(doc, dict) and "error" in doc and "seq" not in doc:
            current.fail(BadImportError(f"the export stopped with an error: {doc['error']}", line=number))
            continue
        try:
            current.envelopes.append(check_envelope(doc, line=number))
            current.places.append({"line": number})
        except BadImportError as exc:
            current.fail(exc)
    if current is not None:
        yield current.finish()


def import_game(store: Store, club_id: int, game: Imported, *, copy_of: str | None = None) -> GameRecord:
    """Write a checked game, its labels (in no hash) and its events as a new game of the club, in one
    transaction; `copy_of`: the club's game it is a copy of (`existing_copy`), marked in the same row."""
    return store.import_game(
        club_id=club_id,
        kind=game.kind,
        players=game.players,
        options=game.options,
        created_at=game.created_at,
        genesis_hash=game.genesis,
        envelopes=game.envelopes,
        head=game.head,
        labels=game.labels or None,
        copy_of=copy_of,
    )


def _moves(envelopes: Iterable[Envelope]) -> list[tuple[Any, ...]]:
    """What was played, without when and by whose key (a text import decides the events again)."""
    return [(env["seq"], env["hand"], env["type"], canonical(env["data"])) for env in envelopes]


def existing_copy(store: Store, club_id: int, game: Imported) -> str | None:
    """The id of the club's game that this one is a record of, or None: the game a re-import duplicates.

    The same chain (genesis and head hash: a json or jsonl export imported again); or the same genesis
    and the same events (seq, hand, type and fields) whatever their times and actors: a text history
    is decided again with each import's time, so its chain is new each time; or the same genesis and
    events that are the *first* events of a club's game (an export taken before the game went on: a
    hand later, or a `retract` later). A genesis is a game's birth (kind, seats, options and
    `created_at` to the microsecond), so a game that shares it and all of the file's events is the
    same game, further on. The answer is an original, never a copy (a copy names its original).
    """
    same = store.find_same_chain(club_id, game.genesis, game.head.head_hash)
    if same:
        return _original(store, same)
    moves: list[tuple[Any, ...]] | None = None
    found: list[str] = []
    for game_id in store.find_same_chain(club_id, game.genesis, None):
        if store.get_game(game_id).seq < len(game.envelopes):
            continue
        moves = _moves(game.envelopes) if moves is None else moves
        if _moves(store.iter_events(game_id, upto=len(game.envelopes))) == moves:
            found.append(game_id)
    return _original(store, found) if found else None


def _original(store: Store, game_ids: Sequence[str]) -> str:
    """Of games that are one record (oldest first), the original: the first that is no copy, else the
    original the first copy names."""
    copies = store.players.copies(game_ids)
    for game_id in game_ids:
        if game_id not in copies:
            return game_id
    return copies[game_ids[0]]


def import_or_find(store: Store, club_id: int, game: Imported, *, copy: bool = False) -> tuple[GameRecord, bool]:
    """`(record, True)`: the game already in the club (`existing_copy`), unless `copy`;
    else `(record, False)`: the game written as a new game of the club, a copy (`copy_of`) of the club's
    game when it is one (a record, not a second result: ratings, statistics and standings skip it)."""
    found = existing_copy(store, club_id, game)
    if found is not None and not copy:
        return store.get_game(found), True
    return import_game(store, club_id, game, copy_of=found), False


def import_many(
    store: Store,
    club: int | Callable[[Imported], int],
    lines: Iterable[tuple[int, bytes]],
    *,
    skip_existing: bool = True,
) -> Iterator[Outcome]:
    """Import every good game of an NDJSON file; each bad one is an Outcome with its reason.

    `club` is the club id to import into, or a function giving it for each game (the CLI
    imports each game into the club its header names).
    """
    for item in read_games(lines):
        if isinstance(item, BadImportError):
            yield Outcome(item.details.get("source_id"), int(item.details.get("game_line") or 0), reason=item.message)
            continue
        source_id = item.source.get("id")
        try:
            club_id = club if isinstance(club, int) else club(item)
        except TablebookError as exc:
            yield Outcome(source_id, item.line, reason=exc.message)
            continue
        same = existing_copy(store, club_id, item)
        if same is not None and skip_existing:
            yield Outcome(source_id, item.line, reason=f"already in the club as {same}", duplicate_of=same)
            continue
        try:
            record = import_game(store, club_id, item, copy_of=same)
        except TablebookError as exc:
            yield Outcome(source_id, item.line, reason=exc.message)
            continue
        yield Outcome(source_id, item.line, game=record, events=len(item.envelopes))


def import_summary(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    imported = [o for o in outcomes if o.game is not None]
    return {
        "imported": len(imported),
        "skipped": len(outcomes) - len(imported),
        "events": sum(o.events for o in imported),
    }


def describe_source(game: Imported) -> Mapping[str, Any]:
    return {k: v for k, v in game.source.items() if k in ("id", "club", "head_hash")}
