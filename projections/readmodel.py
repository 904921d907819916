"""The hand-facts read model: which situations happened in which hand, for search.

A projection that follows the global event order (`event.position`) from a
stored checkpoint (`projection_checkpoint`, name `hand_facts`) and writes one
`hand_fact` row per situation a game's `situations(event, result)` gives:
`{club_id, game_id, hand, seq, situation, seat}`. `GET /v1/games?has=sweep`
is answered from these rows.

- Incremental: `catch_up()` reads the events after the checkpoint in pages;
  each page's facts and the checkpoint's new position are written in one
  transaction, the checkpoint moved with `WHERE position = :old`, so two
  processes catching up at once never write a fact twice (the loser's
  transaction rolls back; the winner did the work). The API catches up
  before it answers a search that uses `has=` (when nothing is new, that is
  one indexed read), so a search always sees every committed event.
- Rebuild: `rebuild()` empties the table, puts the checkpoint at 0 and
  catches up: the same code on the same events in the same order, so the
  rows are the same as the incremental path's (`tablebook rebuild`).
- The store's global order is gapless (the append lock on PostgreSQL, one
  writer on SQLite), so a reader never skips an event that commits late.
- Retractions: a `retract` at seq R back to seq T deletes the facts of the
  game's seqs T+1 to R-1 (retracted events do not count). Only game events
  have facts, and those are exactly what a retract takes back: a `note` or
  `score_claimed` in the range stays in force (`engine.takes_back`) but has
  no fact to keep.
- Whose fact: a fact is the event's `seat`'s, except a tag of `OWNER_FACTS`, whose result names
  the seat it belongs to (Smear's `made_bid` / `failed_bid` come on the hand's last play, but are
  the bidder's): the per-player search (`has=` with a player) and statistics count them there.
- Facts that name an earlier event: when a tag's plural is a list of
  `{seat, seq}` in the result (Casino's `sweeps` at the round's end, which
  settle which table-clearing captures were sweeps), the fact is written at
  each listed seq and seat, once. Every other fact is written at the
  event's own seq, with the event's `seat` (None when it has none).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from events.envelope import Envelope, event_of
from events.errors import InvalidEventError, TablebookError
from events.store import Store
from projections.registry import KINDS, rules_for
from projections.rules import GameRules

#: the checkpoint's name in `projection_checkpoint`
NAME = "hand_facts"

#: Every search tag each game declares (`GameRules.situation_tags`, which its `situations` gives); `has=`
#: accepts these.
SITUATIONS: dict[str, tuple[str, ...]] = {kind: tuple(rules_for(kind).situation_tags) for kind in KINDS}
KNOWN: frozenset[str] = frozenset(tag for tags in SITUATIONS.values() for tag in tags)


#: tags whose seat is a result fact, not the event's seat: tag -> the result key naming the seat
OWNER_FACTS: dict[str, str] = {"made_bid": "bidder", "failed_bid": "bidder"}


@dataclass(frozen=True, slots=True)
class Fact:
    """One situation in one hand, at one seq; `once` for a fact that names an earlier event."""

    hand: int
    seq: int
    situation: str
    seat: int | None
    once: bool = False


def _seat(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def facts_of(rules: GameRules[Any], envelope: Mapping[str, Any]) -> list[Fact]:
    """The facts one stored envelope gives (pure: the envelope holds the event and its result)."""
    event = event_of(envelope)
    result = envelope.get("result") or {}
    seat = _seat(event.get("seat"))
    facts: list[Fact] = []
    for tag in rules.situations(event, result):
        refs = result.get(tag + "s")
        if (
            isinstance(refs, list)
            and refs
            and all(isinstance(r, dict) and _seat(r.get("seq")) is not None for r in refs)
        ):
            facts.extend(Fact(envelope["hand"], r["seq"], tag, _seat(r.get("seat")), once=True) for r in refs)
        else:
            owner = _seat(result.get(OWNER_FACTS[tag])) if tag in OWNER_FACTS else seat
            facts.append(Fact(envelope["hand"], envelope["seq"], tag, owner))
    return facts


def check_situations(names: Iterable[str]) -> list[str]:
    """The `has=` values, split at commas, checked against the known tags.

    Raises:
        InvalidEventError: a tag no game gives (the message lists the known ones).
    """
    wanted: list[str] = []
    for name in names:
        for part in name.split(","):
            tag = part.strip().lower()
            if not tag:
                continue
            if tag not in KNOWN:
                raise InvalidEventError(
                    f"has: unknown situation {tag!r}; known: {', '.join(sorted(KNOWN))}",
                    field="has",
                    known=sorted(KNOWN),
                )
            if tag not in wanted:
                wanted.append(tag)
    return wanted


Progress = Callable[[int], None]


class HandFacts:
    """The projection: catch up from the checkpoint, or rebuild from zero."""

    def __init__(self, store: Store, *, batch: int = 1000) -> None:
        # the log on the synchronous standby when the store follows one (events/store/follow.py)
        self.store = store.follower
        self.batch = batch
        self._games: dict[str, tuple[GameRules[Any] | None, int]] = {}

    def position(self) -> int:
        """The global position the read model has read up to."""
        return self.store.projection_position(NAME)

    def behind(self) -> int:
        """How many positions the read model is behind the log's head (0 when caught up)."""
        return max(0, self.store.head_position() - self.position())

    def catch_up(self, progress: Progress | None = None) -> int:
        """Read every event after the checkpoint; returns how many were read by this call.

        `progress` is called with the positions each committed page advanced the checkpoint by.
        """
        read = 0
        while True:
            old = self.position()
            page = self.store.read_positions(old, self.batch)
            if not page:
                return read
            deletes, inserts, once = self._changes(page)
            new = page[-1][0]
            if self.store.commit_hand_facts(NAME, old=old, new=new, deletes=deletes, inserts=inserts, once=once):
                read += len(page)
                if progress is not None:
                    progress(new - old)
            if len(page) < self.batch:
                return read

    def rebuild(self, progress: Progress | None = None) -> int:
        """Empty the read model and read the whole log again; returns the events read."""
        self.store.reset_hand_facts(NAME)
        self._games.clear()
        return self.catch_up(progress)

    def _game(self, game_id: str) -> tuple[GameRules[Any] | None, int]:
        return self._games[game_id]

    def _load_games(self, game_ids: Iterable[str]) -> None:
        missing = sorted({g for g in game_ids if g not in self._games})
        for game_id, (kind, club_id) in self.store.game_kinds(missing).items():
            try:
                rules: GameRules[Any] | None = rules_for(kind)
            except TablebookError:  # a game this server cannot read: it has no facts here
                rules = None
            self._games[game_id] = (rules, club_id)

    def _changes(
        self, page: Sequence[tuple[int, str, Envelope]]
    ) -> tuple[list[tuple[str, int, int]], list[dict[str, Any]], list[dict[str, Any]]]:
        """The deletes and inserts of one page, in event order."""
        self._load_games(game_id for _, game_id, _ in page)
        deletes: list[tuple[str, int, int]] = []
        inserts: list[dict[str, Any]] = []
        once: list[dict[str, Any]] = []
        for _, game_id, envelope in page:
            rules, club_id = self._game(game_id)
            if envelope["type"] == "retract":
                above, below = envelope["data"]["to_seq"], envelope["seq"]
                deletes.append((game_id, above, below))
                inserts = [r for r in inserts if not (r["game_id"] == game_id and above < r["seq"] < below)]
                once = [r for r in once if not (r["game_id"] == game_id and above < r["seq"] < below)]
                continue
            if rules is None:
                continue
            for fact in facts_of(rules, envelope):
                row = {
                    "club_id": club_id,
                    "game_id": game_id,
                    "hand": fact.hand,
                    "seq": fact.seq,
                    "situation": fact.situation,
                    "seat": fact.seat,
                }
                (once if fact.once else inserts).append(row)
        return deletes, inserts, once
