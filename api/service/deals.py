"""Server deals: one game's commitments and revealed decks checked (`GET /v1/games/{id}/deals`), and the
club's fairness report over every revealed hand (`GET /v1/deals/report`, `tablebook deals report`).
"""

from __future__ import annotations

from typing import Any

from api.service.base import Service
from events.errors import ForbiddenError
from projections.core import dealing
from projections.core.registry import rules_for
from projections.fairness import fairdeal
from projections.fairness import report as deal_report
from projections.reading.visibility import Reader


class Deals(Service):
    """Server deals, checked."""

    def deals(self, reader: Reader, game_id: str) -> dict[str, Any]:
        """`{server_dealt, algorithm, genesis, ok, hands: [{hand, commitment, seeds, revealed, server_seed,
        verified, cards_checked, ...}], first_problem}`: each hand's commitment and, once revealed, whether
        its deck and every dealt card check (`projections/fairness/fairdeal.py`, as a player would run it).

        Only what the record already shows: a hand's server seed appears once its `deck_revealed` is in
        the record; a problem is named only for a revealed hand (its cards are no longer hidden).
        """
        live, envelopes = self.recorder.read(game_id, reader.club_id)
        game = live.game
        header = {"game": game.kind, "seats": len(game.players), "options": dict(game.options)}
        checked = fairdeal.verify_events(header, envelopes)
        revealed = {h for h, doc in checked.hands.items() if doc["revealed"]}
        problems = [
            p
            for p in checked.problems
            if reader.sees_everything or p.get("hand") in revealed or p.get("problem") in fairdeal.DEALT_AGAIN
        ]
        return {
            "game": game.id,
            "server_dealt": checked.server_dealt,
            "algorithm": fairdeal.ALGORITHM,
            "genesis": checked.genesis or game.genesis_hash,
            "ok": not problems,
            "hands": checked.to_dict()["hands"],
            "first_problem": problems[0] if problems else None,
        }

    def deals_report(self, reader: Reader, *, kind: str | None = None) -> dict[str, Any]:
        """The fairness report of the reader's club (every club for the operator): over every revealed
        server-dealt hand of each game kind, suit patterns of the seats' hands and each card's position in
        the deck, observed against the exact probabilities, with chi-square p-values (`deal_report`).

        Raises:
            ForbiddenError: a share link (it reads one game, not the club).
        """
        if reader.is_share:
            raise ForbiddenError("a share link reads one game; the club's deal report needs a key")
        if kind is not None:
            rules_for(kind)  # an unknown kind is refused, not an empty report
        tallies: dict[str, deal_report.KindTally] = {}
        for game in self.store.iter_games(club_id=reader.club_id, kind=kind):
            if not dealing.is_server_dealt(game.options):
                continue
            envelopes = self.store.read_events(game.id, upto=game.seq)
            deal_report.tally_game(tallies, game.id, game.kind, len(game.players), game.options, envelopes)
        return {"club": reader.club, "algorithm": fairdeal.ALGORITHM, **deal_report.report(tallies)}
