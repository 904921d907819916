"""Checks of a record: verify (the chain re-walked, the rules re-run), the audit (flagged plays,
retractions, claims against the computed score, notes) and a claim not recorded compared.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from api.service.base import Service
from api.service.documents import named_report
from events.errors import ImpossibleEventError, InvalidEventError
from projections.reading.audit import audit_game, compare_claim
from projections.reading.verify import verify_game
from projections.reading.visibility import Reader, sight_of


class Audits(Service):
    """The checks of a record."""

    def verify(self, reader: Reader, game_id: str) -> dict[str, Any]:
        """`{ok, events, head_hash, first_bad_seq, problems}`: the chain re-walked and the rules re-run over
        every stored row (also any past the head the game's row names: a forged row there is found).

        A reader not shown every card gets `head_hash: null` and each problem without its hashes (hashes
        over hidden cards, see `projections/reading/visibility.py`); that is decided at the head read now. A reader
        who sees everything needs no fold, so a game whose events no longer fold is still verified.
        """
        if reader.sees_everything:
            game = self.store.get_game(game_id, reader.club_id)
            return named_report(verify_game(game, self.store.iter_events(game_id)).to_dict(), game.players)
        live = self.recorder.live(game_id, reader.club_id)
        report = named_report(verify_game(live.game, self.store.iter_events(game_id)).to_dict(), live.game.players)
        if sight_of(reader, self.store, live).hashes_from is not None:
            report["head_hash"] = None
            report["problems"] = [{k: v for k, v in p.items() if "hash" not in k} for p in report["problems"]]
        return report

    def audit(self, reader: Reader, game_id: str) -> dict[str, Any]:
        """`{chain, violations, retractions, claims, notes, game_notes, score}` (auditors)."""
        reader.require("auditor")
        game = self.store.get_game(game_id, reader.club_id)
        return named_report(audit_game(game, self.store.read_events(game_id)), game.players)

    def compare_claim(
        self, reader: Reader, game_id: str, *, points: Mapping[str, float], hand: int | None = None
    ) -> dict[str, Any]:
        """A claim not recorded (a hand's points, or the totals) against the computed score (auditors).

        Raises:
            InvalidEventError: the points do not name every seat.
            ImpossibleEventError: a hand that has not begun.
        """
        reader.require("auditor")
        live = self.recorder.live(game_id, reader.club_id)
        seats = [str(s) for s in range(live.state.seats)]
        if sorted(points) != sorted(seats):
            raise InvalidEventError(f"points must name every seat: {', '.join(seats)}", field="points")
        if hand is not None and hand > live.state.hand:
            raise ImpossibleEventError(f"hand {hand} has not begun (hands 1 to {live.state.hand})", field="hand")
        claimed = {k: (int(v) if float(v).is_integer() else v) for k, v in points.items()}
        names = list(live.game.players)
        return named_report(compare_claim(live.rules.score(live.state.game), names, claimed, hand), names)
