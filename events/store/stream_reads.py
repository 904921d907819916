"""The event recorder's reads of one game's stream (`EventRecorder`, which mixes them in): envelopes in seq order,
what a fold reads, a hand's seqs, the retracts, an earlier Idempotency-Key.

Apart from the recorder's writes for size; the statements are `append_sql.SQL`'s.
"""

from __future__ import annotations

from collections.abc import Iterator

from events.codec import loads
from events.envelope import Envelope
from events.store.base import MAX_SEQ, Database, clamp
from events.store.heads import PriorRequest
from events.store.mapper import envelope_from_values, fold_envelope_from_values


class StreamReads:
    """Reads of one game's stream, in seq order."""

    db: Database
    _sql: dict[str, str]

    def find_request(self, game_id: str, key: str) -> PriorRequest | None:
        """The earlier append made with this Idempotency-Key, if any."""
        rows = self.db.rows(self._sql["find_request"], (game_id, key))
        return PriorRequest(rows[0][0], rows[0][1], rows[0][2]) if rows else None

    def read_events(
        self, game_id: str, after: int = 0, limit: int | None = None, *, upto: int | None = None
    ) -> list[Envelope]:
        """A game's envelopes with `after < seq <= upto`, in seq order, at most `limit` of them.

        `upto` is the head a reader decided visibility at: events appended since are left for its next read.
        """
        if after >= MAX_SEQ or (limit is not None and limit <= 0):
            return []  # nothing is above the largest seq; and SQLite refuses integers over 64 bits
        limit = min(limit, MAX_SEQ) if limit is not None else MAX_SEQ
        upto = MAX_SEQ if upto is None else clamp(upto)
        rows = self.db.rows(self._sql["read_events"], (game_id, max(after, -1), upto, limit))
        return [envelope_from_values(row) for row in rows]

    def read_for_fold(self, game_id: str, after: int, upto: int) -> tuple[list[Envelope], str | None]:
        """What a fold of a game's events with `after < seq <= upto` reads: each event's `seq`, `type`, `v` and
        `data` (`mapper.fold_envelope_from_values`), in seq order, and the hash of the event at `upto` (None
        when there is none): the state a load folds, and the head hash its next append chains to.

        The envelopes are partial, for `engine.fold` only: no hash, time, actor nor stored result is read.
        """
        if after >= MAX_SEQ:
            return [], None
        upto = clamp(upto)
        rows = self.db.rows(self._sql["read_for_fold"], (upto, game_id, max(after, -1), upto))
        return [fold_envelope_from_values(row) for row in rows], rows[-1][4] if rows else None

    def iter_events(self, game_id: str, batch: int = 1000, *, upto: int | None = None) -> Iterator[Envelope]:
        """A game's envelopes in seq order (up to seq `upto`), read in pages (constant memory)."""
        after = 0
        while True:
            page = self.read_events(game_id, after, batch, upto=upto)
            yield from page
            if len(page) < batch:
                return
            after = page[-1]["seq"]

    def first_seq_from_hand(self, game_id: str, hand: int, upto: int) -> int | None:
        """The lowest seq at or below `upto` recorded in hand `hand` or a later one (None: there is none).

        A hand above the head's hand is one that was begun and then retracted; see `projections/reading/visibility.py`.
        """
        rows = self.db.rows(self._sql["first_seq_from_hand"], (game_id, clamp(hand), clamp(upto)))
        return None if not rows or rows[0][0] is None else int(rows[0][0])

    def retracts(self, game_id: str, after: int = 0, upto: int | None = None) -> list[tuple[int, int]]:
        """`(seq, to_seq)` of every retract with `after < seq <= upto`, in seq order."""
        upper = MAX_SEQ if upto is None else clamp(upto)
        rows = self.db.rows(self._sql["retracts"], (game_id, clamp(after), upper))
        return [(int(seq), int(loads(data)["to_seq"])) for seq, data in rows]

    def hand_seqs(self, game_id: str, hand: int, upto: int) -> tuple[int, int] | None:
        """The lowest and highest seq at or below `upto` recorded in hand `hand` (None: there is none)."""
        rows = self.db.rows(self._sql["hand_seqs"], (game_id, clamp(hand), clamp(upto)))
        return None if not rows or rows[0][0] is None else (int(rows[0][0]), int(rows[0][1]))

    def reading_marks(
        self, game_id: str, upto: int, *, hand: int | None = None, from_hand: int | None = None
    ) -> tuple[tuple[int, int] | None, int | None, list[tuple[int, int]]]:
        """`hand_seqs(hand)`, `first_seq_from_hand(from_hand)` and `retracts()` up to `upto`, in one query: (the
        first and last seq of hand `hand`, the lowest seq of hand `from_hand` or a later one, `(seq, to_seq)` of
        every retract). A hand not asked for (None) answers None."""
        asked = (game_id, clamp(-1 if hand is None else hand), clamp(upto))
        hidden = (game_id, clamp(MAX_SEQ if from_hand is None else from_hand), clamp(upto))
        rows = self.db.rows(self._sql["reading_marks"], (*asked, *hidden, game_id, clamp(upto)))
        span: tuple[int, int] | None = None
        first: int | None = None
        retracts: list[tuple[int, int]] = []
        for part, low, high, data in rows:
            if part == 0 and low is not None:
                span = (int(low), int(high))
            elif part == 1 and low is not None:
                first = int(low)
            elif part == 2:
                retracts.append((int(low), int(loads(data)["to_seq"])))
        return span, first, retracts
