"""Exports: one game in json, jsonl, text or csv, rendered once for the API and the CLI, and every game
of a club as NDJSON in constant memory; a viewer's live hands redacted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from api.service.base import Service
from events.envelope import Envelope
from events.errors import InvalidEventError
from events.store import GameRecord, tournaments
from projections.core.registry import rules_for
from projections.core.rules import GameRules
from projections.histories import export
from projections.reading.visibility import Reader, held_back, shown_envelopes, sight_over


@dataclass(frozen=True, slots=True)
class Export:
    """One game's export, rendered once for the API and the CLI."""

    game_id: str
    format: str
    #: the json document (json), else None
    document: dict[str, Any] | None
    #: the body of the other formats
    content: bytes

    @property
    def media_type(self) -> str:
        return export.MEDIA_TYPES[self.format]

    @property
    def filename(self) -> str:
        return f"{self.game_id}.{export.SUFFIXES[self.format]}"

    def body(self, *, indent: bool = False) -> bytes:
        """The bytes of the export; json indented (and ending with a line break) for a file or a terminal."""
        if self.document is None:
            return self.content
        if indent:
            return orjson.dumps(self.document, option=orjson.OPT_INDENT_2) + b"\n"
        return orjson.dumps(self.document, option=orjson.OPT_NON_STR_KEYS)


class Exports(Service):
    """A club's records, exported."""

    def export(self, reader: Reader, game_id: str, fmt: str = "json") -> Export:
        """The whole game in `fmt` (json, jsonl, text, csv, csv-excel), up to the head read now, as the reader
        may see it.

        The state at the head comes from `Recorder.read` (folded from a snapshot, not from event 1).

        Raises:
            InvalidEventError: an unknown format.
            NotFoundError: no such game.
        """
        if fmt not in export.FORMATS:
            raise InvalidEventError(f"format must be one of {', '.join(export.FORMATS)}", field="format")
        live, envelopes = self.recorder.read(game_id, reader.club_id)
        game, rules, state = live.game, live.rules, live.state
        held = None if reader.sees_everything else held_back(self.store, game)
        if held is not None:  # a board still in play at another table: the export stops before it
            envelopes = [env for env in envelopes if env["hand"] < held]
            state = self.recorder.fold_to(game, rules, envelopes[-1]["seq"] if envelopes else 0)
        shown = shown_envelopes(sight_over(reader, rules, state, envelopes, held=held), envelopes)
        head_hash = envelopes[-1]["hash"] if envelopes else game.genesis_hash
        club = self._club_name(reader, game)
        head = export.header(game, club, seq=len(envelopes), head_hash=head_hash, state=state, rules=rules)
        export.mark_redacted(head, shown)
        if held is not None:
            head.update(redacted=True, head_hash=None, withheld_from_hand=held)
        if fmt == "json":
            return Export(game_id, fmt, export.json_document(head, shown), b"")
        if fmt == "jsonl":
            return Export(game_id, fmt, None, b"".join(export.jsonl_lines(head, shown)))
        if fmt == "text":
            return Export(game_id, fmt, None, "".join(export.text_lines(head, rules, envelopes, shown)).encode())
        sheet = export.score_csv(game.players, rules.score(state.game), rules).encode()
        return Export(game_id, fmt, None, export.excel_csv(sheet) if fmt == export.EXCEL else sheet)

    def bulk_export(
        self,
        reader: Reader,
        *,
        kind: str | None = None,
        since: str | None = None,
        until: str | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        on_game: Callable[[GameRecord], None] | None = None,
    ) -> Iterator[bytes]:
        """NDJSON of the reader's games (every club's, for the operator), oldest first, in constant memory
        (`export.bulk_lines`); a viewer's live hands redacted.

        Raises (before the first line):
            InvalidEventError: a cursor of another kind.
        """
        if cursor is not None:
            export.decode_cursor(cursor)
        lines = export.bulk_lines(
            self.store,
            club_id=reader.club_id,
            kind=kind,
            since=since,
            until=until,
            cursor=cursor,
            limit=limit,
            redact=None if reader.sees_everything else _redactor(reader),
            on_game=on_game,
            position_of=self._head_at,
        )
        if reader.sees_everything:
            return lines
        return without_games(lines, tournaments.held_games(self.store.db))

    def _head_at(self, game: GameRecord, envelopes: Sequence[Envelope]) -> tuple[GameRules[Any], Any]:
        """A game's rules and its position after `envelopes` (its events up to `game.seq`), folded from the
        nearest snapshot rather than event 1."""
        rules = rules_for(game.kind)
        return rules, self.recorder.fold_to(game, rules, envelopes[-1]["seq"] if envelopes else 0)


def without_games(lines: Iterator[bytes], held: Mapping[str, int]) -> Iterator[bytes]:
    """A bulk export's NDJSON without the games of `held` (tables whose boards are still in play at another
    table: a reader not shown every card gets none of their lines, but their resume cursor), its closing count
    lessened by as many."""
    if not held:
        yield from lines
        return
    skipping = False
    left_out = 0
    for chunk in lines:
        kept = []
        for line in chunk.splitlines(keepends=True):
            if line.startswith(b'{"format"'):
                skipping = orjson.loads(line).get("id") in held
                left_out += skipping
            elif line.startswith(b'{"cursor"'):
                skipping = False
            elif line.startswith(b'{"next_cursor"'):
                doc = orjson.loads(line)
                doc["games"] = max(0, int(doc.get("games", 0)) - left_out)
                line = orjson.dumps(doc) + b"\n"
            if not skipping:
                kept.append(line)
        if kept:
            yield b"".join(kept)


def _redactor(reader: Reader) -> export.Redactor:
    """For a reader who is not shown every card: envelopes with the live hand's hidden cards replaced."""

    def redact(rules: GameRules[Any], state: Any, envelopes: list[Envelope]) -> list[Envelope]:
        return shown_envelopes(sight_over(reader, rules, state, envelopes), envelopes)

    return redact
