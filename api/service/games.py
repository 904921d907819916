"""Games: create one, read one, list and search a club's games (`/v1/games`, `tablebook list|search`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from api.service import profiles as rule_profiles
from api.service.base import Service, own_club
from api.service.documents import decode_cursor, encode_cursor, game_public
from events.store import GameRecord
from projections.reading.visibility import Reader
from projections.readmodels.hand_facts import HandFacts


class Games(Service):
    """The games of a club."""

    def create_game(
        self,
        reader: Reader,
        *,
        kind: str,
        players: Sequence[str],
        options: Mapping[str, Any] | None,
        labels: Mapping[str, str] | None = None,
        profile: str | None = None,
    ) -> dict[str, Any]:
        """A new game of the reader's club; its options echoed with defaults filled in; `labels` its event,
        round and table (registry metadata, in no hash, on the new row); with `profile`, the club's rule
        profile gives the options and `options` go on top.

        Raises:
            ForbiddenError: not a recorder key.
            NotFoundError: no such profile in the club.
            UnknownGameError: an unknown kind, a wrong player count, a bad option.
        """
        reader.require("recorder")
        club_id = own_club(reader)
        if profile is not None:
            options = rule_profiles.creation_options(self.store, club_id, kind, profile, options)
        game = self.recorder.create_game(club_id=club_id, kind=kind, players=players, options=options, labels=labels)
        return game_public(game)

    def game(self, reader: Reader, game_id: str) -> dict[str, Any]:
        """Metadata, status, head seq and totals of one game of the reader's club.

        Raises:
            NotFoundError: no such game there.
        """
        return game_public(self.store.get_game(game_id, reader.club_id))

    def games(
        self,
        reader: Reader,
        *,
        situations: Sequence[str] = (),
        limit: int = 50,
        cursor: str | None = None,
        **filters: Any,
    ) -> dict[str, Any]:
        """A page of games, newest first (`GET /v1/games`): the reader's club, or every club for the operator.

        With `situations`, the hand-facts read model catches up with the log first (one indexed read when
        nothing is new) and each game lists its `hits`. `filters`: kind, status, player (a name or alias,
        case-insensitive), player_id, winner, since, until, event, round. With a player, `has=` counts only
        that player's own situations (facts at the seat they held) and `hits` lists only those.

        Raises:
            InvalidEventError: a cursor this server did not give out.
        """
        before = decode_cursor(cursor) if cursor else None
        club_ids = [reader.club_id] if reader.club_id is not None else list(self.store.clubs().values())
        if situations:
            HandFacts(self.store).catch_up()
        found: list[GameRecord] = []
        name, player_id = filters.pop("player", None), filters.pop("player_id", None)
        players: list[str] | None = None
        for club_id in club_ids:
            ids = self.store.registry.player_ids(club_id, name, player_id)
            if ids is not None:
                players = [*(players or []), *ids]
            if situations:
                found += self.store.search_games(
                    club_id, situations=situations, limit=limit, before=before, player_ids=ids, **filters
                )
            else:
                found += self.store.list_games(
                    club_id, limit=limit, before=before, player_id=player_id, player=name, **filters
                )
        if len(club_ids) > 1:
            found.sort(key=lambda g: (g.created_at, g.id), reverse=True)  # newest first, as each club's page
            found = found[:limit]
        next_cursor = encode_cursor(found[-1]) if len(found) == limit else None
        if not situations:
            return {"games": [game_public(g) for g in found], "next_cursor": next_cursor}
        hits = self.store.hits([g.id for g in found], situations, player_ids=players)
        return {"games": [{**game_public(g), "hits": hits[g.id]} for g in found], "next_cursor": next_cursor}

    def hand_facts(self) -> HandFacts:
        """The read model behind search (for the CLI's progress bar while it catches up, and `rebuild`)."""
        return HandFacts(self.store)

    def count_games(self, reader: Reader) -> int:
        return self.store.count_games(club_id=reader.club_id)

    def game_ids(self) -> list[str]:
        """Every game's id, oldest first (the operator's `verify` of every game)."""
        return self.store.game_ids()
