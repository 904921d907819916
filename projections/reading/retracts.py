"""A game's retracts as its readers meet them: read once a request, and what each one marks.

A `retract` takes back the game events of its range (`to_seq` < seq < the retract's seq; a note or a
claim in the range stays in force, `engine.takes_back`) and puts the table back as it was at `to_seq`.
Ranges never overlap: no retract reaches back past another (`Position.retract_floor`). Three readings
turn on the retracts:

- a replay marks each frame that a retract took back (`retracted_by`), whether the retract came inside
  the hand or later (a retract from the next hand back into this one), `Marks.mark`;
- a replay walks from a position that every retract it meets can return to: just before the hand's
  first event, or earlier when one of them reaches further back (`Marks.walk_from`);
- a reader not shown every card sees each event of a hidden hand inside a retracted range as the
  table after the correction (`Sight.corrections`, `projections/reading/visibility.py`).

Here they are read, once a request and in one query, together with what else those readings turn on
(`read_marks`: the first and last seq of the hand replayed, and where the hidden hands begin), and
here they are marked; no other module reads a game's retracts for a reader. A record already at hand
(an export's envelopes) gives its own (`of_envelopes`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

from events.store import Store
from projections.core.engine import corrected_by, takes_back

#: `(seq, to_seq)` of a retract
Retract = tuple[int, int]


def covering(seq: int, retracts: Iterable[Retract]) -> int | None:
    """The seq of the one retract among `retracts` whose range holds event `seq`, or None."""
    return corrected_by(seq, retracts)


@dataclass(frozen=True, slots=True)
class Marks:
    """The retracts of a game up to one head, with the seqs a read of that head turns on."""

    #: `(seq, to_seq)` of every retract up to the head, in seq order
    retracts: tuple[Retract, ...] = ()
    #: the first and last seq of the hand asked for (None: none asked, or no event of it up to the head)
    hand: tuple[int, int] | None = None
    #: the lowest seq of the first hidden hand or a later one (None: none asked, or none recorded)
    hidden_seq: int | None = None

    def covering(self, seq: int) -> int | None:
        """The seq of the retract whose range holds event `seq` (whatever its type), or None."""
        return covering(seq, self.retracts)

    def taken_back_by(self, seq: int, kind: str) -> int | None:
        """The seq of the retract that took back event `seq` of type `kind` (None: it is in force)."""
        return self.covering(seq) if takes_back(kind) else None

    def after(self, seq: int) -> tuple[Retract, ...]:
        """The retracts after seq `seq`."""
        return tuple(r for r in self.retracts if r[0] > seq)

    def walk_from(self, first: int, last: int, *, reaching: bool = False) -> int:
        """Where a walk over the events `first` to `last` starts: just before `first`, or at the `to_seq`
        of a retract among them (or, `reaching`, of a later one whose range holds one of them: its table is
        shown instead) that restores an earlier position, so that `engine.walk` meets every position it
        returns to."""
        start = first - 1
        for seq, to_seq in self.retracts:
            inside = start < seq <= last
            if to_seq < start and (inside or (reaching and seq > last and to_seq < last)):
                start = to_seq
        return max(start, 0)

    def targets(self) -> frozenset[int]:
        """The `to_seq` of every retract: the positions whose tables a correction shows."""
        return frozenset(to_seq for _, to_seq in self.retracts)

    def mark(self, frames: Iterable[MutableMapping[str, Any]]) -> None:
        """Mark each frame `{seq, event, ...}` that a retract took back with `retracted_by`, its seq."""
        for frame in frames:
            by = self.taken_back_by(frame["seq"], frame["event"]["type"])
            if by is not None:
                frame["retracted_by"] = by


#: the marks of a read that turned on none
NO_MARKS = Marks()


def read_marks(
    store: Store, game_id: str, head: int, *, hand: int | None = None, hidden_from: int | None = None
) -> Marks:
    """The game's marks at seq `head` (one query): its retracts, the first and last seq of hand `hand`, and
    the lowest seq of hand `hidden_from` or a later one."""
    span, hidden_seq, retracts = store.recorder.reading_marks(game_id, head, hand=hand, from_hand=hidden_from)
    return Marks(tuple(retracts), span, hidden_seq)


def of_envelopes(envelopes: Iterable[Mapping[str, Any]]) -> Marks:
    """The marks of a record at hand: the retracts among its envelopes."""
    return Marks(tuple((env["seq"], int(env["data"]["to_seq"])) for env in envelopes if env["type"] == "retract"))
