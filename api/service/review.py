"""Hand review (`GET /v1/games/{id}/review`, `tablebook review`): every decision of a finished hand, what
the choice made cost and the best one, with hindsight and from what the seat could see.

The review is `projections/reading/review.py`'s, from the game's own reviewer (`GameRules.review`);
here the game's head is read and the reader's sight decided, with the hand's marks, in one query
(`sight_of(..., hand=)`), as for a replay. Nothing is written: a review reads the record only.
"""

from __future__ import annotations

from typing import Any

from api.service.base import Service
from api.service.documents import named_errors
from projections.reading.review import review_hand
from projections.reading.visibility import Reader, sight_of, viewpoint_for


class Reviews(Service):
    """A finished hand's decisions, reviewed."""

    def review(self, reader: Reader, game_id: str, *, hand: int, seat: int | None = None) -> dict[str, Any]:
        """`{game, kind, hand, seat, units, thresholds, about, decisions, seats, searched}`: each decision of
        hand `hand` (of `seat` only, if given) with its mark, its sentence and its figures.

        Raises:
            NotFoundError: no such game, or no such hand.
            InvalidEventError: a seat the game does not have.
            ForbiddenError: the hand is still being played (for anyone), or not over for a viewer or a
                share link.
        """
        live = self.recorder.live(game_id, reader.club_id)
        sight = sight_of(reader, self.store, live, hand=hand)
        with named_errors(live.game.players):
            viewpoint_for(sight, seat, live.state.seats, hand)  # the seat's range; a share link's live hand
            return review_hand(self.recorder, live, sight, hand, seat)
