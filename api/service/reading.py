"""Reads at a game's head: its events, its table at a seq, its score, what may come next, and the pages
of a live stream, each decided at the head in the database and shown as the reader may see it
(`projections/reading/visibility.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from api.service.base import Service
from api.service.documents import named_errors
from events.envelope import Envelope
from events.store import GameRecord
from events.store.notify import Subscription, notifier_for
from projections.core import engine
from projections.core.rules import GameRules, ScoreSheet
from projections.reading.offers import offer
from projections.reading.visibility import Reader, held_back, shown_envelopes, sight_of, viewpoint_for

#: what each role may send (`Tablebook.append`): a viewer nothing, an auditor only corrections
SENDS = {"viewer": "nothing", "auditor": "corrections"}


@dataclass(frozen=True, slots=True)
class Scored:
    """A game's score at its head: the game, its rules, the sheet (named: its `to_dict()` renders every
    reason with the game's players, `ScoreSheet.named`)."""

    game: GameRecord
    rules: GameRules[Any]
    sheet: ScoreSheet

    def to_dict(self) -> dict[str, Any]:
        """`GET /v1/games/{id}/score`: every reason rendered with the players, with its template and fields."""
        return self.sheet.to_dict(self.game.players)


class Reading(Service):
    """Reads of one game at its head."""

    def events(self, reader: Reader, game_id: str, *, after: int = 0, limit: int | None = None) -> dict[str, Any]:
        """`{events, head}`: envelopes after `after`, up to the head read now, as the reader may see them."""
        live, envelopes = self.recorder.read(game_id, reader.club_id, after, limit)
        return {"events": shown_envelopes(sight_of(reader, self.store, live), envelopes), "head": live.state.seq}

    def state(self, reader: Reader, game_id: str, *, at: int | None = None, seat: int | None = None) -> dict[str, Any]:
        """The table after event `at` (the head when None), from `seat` (everything when None), as the reader
        may see it.

        Raises:
            NotFoundError: no such game, or `at` beyond its head.
            InvalidEventError: a seat the game does not have.
            ForbiddenError: a share link asking for a hand still being played.
        """
        live, state = self.recorder.state_at(game_id, at, reader.club_id)
        names = live.game.players
        sight = sight_of(reader, self.store, live)
        shown = sight.table_seq(state.seq, state.hand)  # inside a retracted range of a hidden hand: its to_seq
        if shown != state.seq:
            state = self.recorder.fold_to(live.game, live.rules, shown)
        with named_errors(names):
            viewpoint = viewpoint_for(sight, seat, state.seats, state.hand)
        return engine.render_state(live.rules, state, viewpoint, names)

    def score(self, reader: Reader, game_id: str) -> Scored:
        """The score at the head, every point explained."""
        live = self.recorder.live(game_id, reader.club_id)
        sheet = live.rules.score(live.state.game)
        held = None if reader.sees_everything else held_back(self.store, live.game)
        if held is not None:  # a board still in play at another table: its lines name its cards (the totals stay)
            sheet = replace(sheet, hands=[h for h in sheet.hands if h.hand < held])
        return Scored(live.game, live.rules, sheet.named(live.game.players))

    def next(self, reader: Reader, game_id: str, *, seat: int | None = None) -> dict[str, Any]:
        """`GET /v1/games/{id}/next`: what may be appended next at the game's head (read now), from `seat`
        (everything when None), as the reader may see it (`projections/reading/offers.py`): the table pad's
        offer of decisions, amount ranges, the cards a deal or a draw needs, and the plays `record` would flag.

        Raises:
            NotFoundError: no such game in the reader's club.
            InvalidEventError: a seat the game does not have (the message rendered with the players).
            ForbiddenError: a share link (the route is not one of a replay's).
        """
        live = self.recorder.live(game_id, reader.club_id)
        names = list(live.game.players)
        sight = sight_of(reader, self.store, live)
        with named_errors(names):
            viewpoint = viewpoint_for(sight, seat, live.state.seats, live.state.hand)
        doc = offer(live.rules, live.state, viewpoint, names)
        return {"game": game_id, **doc, "sends": SENDS.get(reader.role, "events")}

    def subscribe(self, game_id: str) -> Subscription:
        """A live stream's wake-up: set whenever `game_id` is appended to, in any process (`events/store/notify.py`)."""
        return notifier_for(self.store).subscribe(game_id)

    def rows_after(self, game_id: str, after: int, limit: int = 500) -> list[Envelope]:
        """The stored rows after seq `after` (a live stream's next page), not yet bounded by any head: pass
        them through `shown_at_head` before anything of them is sent."""
        return self.store.read_events(game_id, after, limit)

    def shown_at_head(self, reader: Reader, game_id: str, rows: Sequence[Envelope]) -> tuple[bool, list[Envelope]]:
        """(whether any of `rows` is at or below the head read now, those rows as the reader may see them).

        The head is read after the rows (a head commits with its events), so a row past it (a forged one)
        is never shown, and what is hidden is decided at that head in the database.
        """
        live = self.recorder.live(game_id, reader.club_id)
        visible = [env for env in rows if env["seq"] <= live.state.seq]
        return bool(visible), shown_envelopes(sight_of(reader, self.store, live), visible)
