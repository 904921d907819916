"""Imports: one game from a json, jsonl or text export, or each game of an NDJSON file, checked (chain,
rules) and written as a new game of the club (`POST /v1/import`, `/v1/import/bulk`, `tablebook import`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from api.service.base import Service, own_club
from api.service.documents import game_public
from events.store import GameRecord
from projections.histories import importer
from projections.reading.visibility import Reader


@dataclass(frozen=True, slots=True)
class ImportResult:
    """A single-file import: what was read, and the game written (or the club's copy of it)."""

    format: str
    checked: importer.Imported
    game: GameRecord
    duplicate: bool

    def to_public(self) -> dict[str, Any]:
        """The answer of `POST /v1/import`."""
        head_hash = self.game.head_hash if self.duplicate else self.checked.head.head_hash
        same = self.checked.source.get("head_hash") == head_hash if self.duplicate else self.checked.same_chain
        return {
            "game": game_public(self.game),
            "duplicate_of": self.game.id if self.duplicate else None,
            "copy_of": None if self.duplicate else self.game.copy_of,
            "format": self.format,
            "events": len(self.checked.envelopes),
            "head_hash": head_hash,
            "same_head_hash": same,
            "source": dict(importer.describe_source(self.checked)),
        }

    def outcome(self) -> importer.Outcome:
        """The same import as one outcome of a file of many (the CLI prints those)."""
        source_id = self.checked.source.get("id")
        if self.duplicate:
            return importer.Outcome(
                source_id, 0, reason=f"already in the club as {self.game.id}", duplicate_of=self.game.id
            )
        return importer.Outcome(source_id, 0, game=self.game, events=len(self.checked.envelopes))


#: the club of an import: an id, or a function of the game read (the CLI: the club its header names)
ClubChoice = int | Callable[[importer.Imported], int]


class Imports(Service):
    """Records brought in."""

    def import_file(
        self,
        reader: Reader,
        body: bytes,
        *,
        fmt: str | None = None,
        copy: bool = False,
        club: ClubChoice | None = None,
    ) -> ImportResult:
        """One game from a json, jsonl or text export, checked (chain, rules) and written as a new game of the
        club (the reader's, unless `club`), in one transaction; or the club's game it already is, unless `copy`.

        Raises:
            ForbiddenError: not a recorder key.
            BadImportError: the first thing wrong in the file; nothing is written.
        """
        reader.require("recorder")
        fmt = fmt or importer.sniff(body)
        checked = importer.read_file(body, actor=reader.actor, fmt=fmt)
        club_id = self._import_club(reader, club, checked)
        record, duplicate = importer.import_or_find(self.store, club_id, checked, copy=copy)
        return ImportResult(fmt, checked, record, duplicate)

    def import_lines(
        self,
        reader: Reader,
        lines: Iterable[tuple[int, bytes]],
        *,
        skip_existing: bool = True,
        club: ClubChoice | None = None,
    ) -> Iterator[importer.Outcome]:
        """Each game of an NDJSON file (`(line number, line)`s) checked and imported on its own: a bad game is
        an outcome with its reason, the rest are imported."""
        reader.require("recorder")
        choice: ClubChoice = club if club is not None else own_club(reader)
        return importer.import_many(self.store, choice, lines, skip_existing=skip_existing)

    def import_bulk(self, reader: Reader, body: bytes, *, skip_existing: bool = True) -> dict[str, Any]:
        """`{imported, skipped, summary}` for the NDJSON file `body` (`POST /v1/import/bulk`)."""
        outcomes = list(self.import_lines(reader, importer.split_lines(body), skip_existing=skip_existing))
        return {
            "imported": [
                {"id": o.game.id, "source_id": o.source_id, "events": o.events} for o in outcomes if o.game is not None
            ],
            "skipped": [
                {"source_id": o.source_id, "line": o.line or None, "reason": o.reason, "duplicate_of": o.duplicate_of}
                for o in outcomes
                if o.game is None
            ],
            "summary": importer.import_summary(outcomes),
        }

    def _import_club(self, reader: Reader, club: ClubChoice | None, checked: importer.Imported) -> int:
        if club is None:
            return own_club(reader)
        return club if isinstance(club, int) else club(checked)
