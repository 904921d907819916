"""Replays: a hand frame by frame (`GET /v1/games/{id}/replay`, `tablebook replay`), and what the replay
page reads beside it (each hand's seqs, where the head is against a hand).

The frames are `projections/reading/replay.py`'s; here the game's head is read and the reader's sight
decided, with the hand's marks, in one query (`sight_of(..., hand=)`).
"""

from __future__ import annotations

from typing import Any

from api.service.base import Service
from api.service.documents import named_errors
from projections.reading.replay import replay_hand
from projections.reading.visibility import Reader, first_hidden_hand, held_back, live_hand, sight_of, viewpoint_for


class Replays(Service):
    """A game's hands, replayed."""

    def replay(self, reader: Reader, game_id: str, *, hand: int, seat: int | None = None) -> dict[str, Any]:
        """`{game, hand, viewpoint, frames}`: hand `hand` frame by frame, walked from the state before it
        (a snapshot, not event 1), with each frame that a later retract took back marked.

        Raises:
            NotFoundError: no such game, or no such hand.
            InvalidEventError / ForbiddenError: as `state`.
        """
        live = self.recorder.live(game_id, reader.club_id)
        sight = sight_of(reader, self.store, live, hand=hand)
        with named_errors(live.game.players):
            viewpoint = viewpoint_for(sight, seat, live.state.seats, hand)
        return replay_hand(self.recorder, live, sight, hand, viewpoint)

    def hand_progress(self, reader: Reader, game_id: str, hand: int) -> str:
        """Where the head is against hand `hand`: "to come", "playing", "over" (it is the head's hand, and
        ended), or "past" (the table has played on to a later hand)."""
        live = self.recorder.live(game_id, reader.club_id)
        at = live.state
        if at.hand > hand:
            return "past"
        if at.hand < hand:
            return "to come"
        return "playing" if live.rules.hand_in_progress(at.game) else "over"

    def hands(self, reader: Reader, game_id: str) -> dict[str, Any]:
        """`{game, head, live_hand, hands: [{hand, first_seq, last_seq, events, live}]}` at the head read now."""
        live, envelopes = self.recorder.read(game_id, reader.club_id)
        current = live_hand(live.rules, live.state)
        hidden_from = first_hidden_hand(live.rules, live.state)
        held = None if reader.sees_everything else held_back(self.store, live.game)
        if held is not None:  # a board still in play at another table reads as live
            hidden_from = held if hidden_from is None else min(hidden_from, held)
        spans: dict[int, dict[str, Any]] = {}
        for env in envelopes:
            span = spans.get(env["hand"])
            if span is None:
                spans[env["hand"]] = {"hand": env["hand"], "first_seq": env["seq"], "last_seq": env["seq"], "events": 1}
            else:
                span["last_seq"] = env["seq"]
                span["events"] += 1
        hands = [
            {**span, "live": hidden_from is not None and span["hand"] >= hidden_from}
            for _, span in sorted(spans.items())
        ]
        head = envelopes[-1]["seq"] if envelopes else 0
        return {"game": game_id, "head": head, "live_hand": current, "hands": hands}
