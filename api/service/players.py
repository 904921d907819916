"""Players: a club's player records (add, find, rename, merge, erase), a player's page, the standings,
and the erasure of a name from every game; the ratings and hand-facts read models they read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from api.service.base import Service, own_club
from events.errors import InvalidEventError, NotFoundError
from events.store import PlayerRecord
from projections.core.registry import rules_for
from projections.histories.erasure import Erasure, erase_player
from projections.reading.visibility import Reader
from projections.readmodels import standings as player_pages
from projections.readmodels.hand_facts import HandFacts
from projections.readmodels.ratings import RatingsModel


class Players(Service):
    """A club's players."""

    def erase_player(
        self, name: str, replacement: str, *, club_id: int | None = None, dry_run: bool = False
    ) -> Erasure:
        """Replace a player's name in every game's registry row (of one club, or all), and erase the player
        records called so (exactly: their aliases go too); list the free text that mentions it. This
        process's cached states of those games are dropped."""
        report = erase_player(self.store, name, replacement, club_id=club_id, dry_run=dry_run)
        if not dry_run:
            for game_id in report.games:
                self.recorder.forget(game_id)
        return report

    def ratings(self) -> RatingsModel:
        """The ratings read model (for the CLI's progress bar while it catches up, and `rebuild`)."""
        return RatingsModel(self.store)

    def _caught_up(self) -> None:
        """Both read models the players' pages read, caught up with the log (one indexed read each when
        nothing is new), so a page shows every committed event below the log's horizon: on PostgreSQL a
        transaction left open elsewhere on the server holds newer events back until it ends (the log reader
        never skips an event that commits late; projections/readmodels/hand_facts.py)."""
        HandFacts(self.store).catch_up()
        RatingsModel(self.store).catch_up()

    def players(self, reader: Reader, *, name: str | None = None) -> list[PlayerRecord]:
        """The club's players (every club's for the operator), oldest first; with `name`, those with that
        name or alias, case-insensitively."""
        club_ids = [reader.club_id] if reader.club_id is not None else list(self.store.clubs().values())
        found: list[PlayerRecord] = []
        for club_id in club_ids:
            if name is None:
                found += self.store.players.list_players(club_id)
            else:
                found += self.store.players.find_players(club_id, name)
        return found

    def player(self, reader: Reader, ref: str) -> PlayerRecord:
        """A player of the reader's club by id, or by name or alias (case-insensitive) when that names one.

        Raises:
            NotFoundError: no such player there.
            InvalidEventError: a name that several players have (the message lists their ids).
        """
        try:
            found = self.store.players.get_player(ref, reader.club_id)
        except NotFoundError:
            pass
        else:
            if found.merged_into is not None:  # an old id still finds the player it was merged into
                return self.store.players.get_player(found.merged_into, reader.club_id)
            return found
        named = self.store.players.find_players(reader.club_id, ref)
        if not named:
            raise NotFoundError(f"no player {ref!r}")
        if len(named) > 1:
            ids = [p.id for p in named]
            raise InvalidEventError(
                f"{len(named)} players are called {ref!r}: name one by id ({', '.join(ids)})", field="player", ids=ids
            )
        return named[0]

    def create_player(self, reader: Reader, name: str, aliases: Sequence[str] = ()) -> PlayerRecord:
        """A new player of the reader's club (games that name them later find them by name or alias).

        Raises:
            ForbiddenError: not a recorder key.
        """
        reader.require("recorder")
        return self.store.players.create_player(own_club(reader), name, aliases)

    def rename_player(self, reader: Reader, ref: str, name: str, *, keep_alias: bool = True) -> PlayerRecord:
        """Rename a player: shown at once in all their games, in every process (the games' rows hold the copy).

        Raises:
            ForbiddenError: not a recorder key.
            NotFoundError: no such player.
        """
        reader.require("recorder")
        player = self.player(reader, ref)
        return self.store.players.rename(player.id, name, club_id=reader.club_id, keep_alias=keep_alias)

    def merge_players(self, reader: Reader, source: str, target: str) -> PlayerRecord:
        """Merge one player into another (their games and names become the target's); the ratings are
        rebuilt from the events, since the two players' results are now one player's.

        Raises:
            ForbiddenError: not a recorder key.
            NotFoundError: either player missing.
            InvalidEventError: the same player, or both sat in one game.
        """
        reader.require("recorder")
        merged = self.store.players.merge(
            self.player(reader, source).id, self.player(reader, target).id, club_id=reader.club_id
        )
        RatingsModel(self.store).rebuild()
        return merged

    def erase_player_record(self, reader: Reader, ref: str, *, dry_run: bool = False) -> tuple[PlayerRecord, Erasure]:
        """Erase a player: the name and aliases gone from the record and from every game that shows them,
        in one transaction (every process reads the new names with the game's row); the chains are
        untouched (events name seats). Free text mentioning the names is listed, not edited.

        Raises:
            ForbiddenError: not a recorder key.
            NotFoundError: no such player.
        """
        reader.require("recorder")
        player = self.player(reader, ref)
        report = Erasure()
        for name in player.names():
            for mention in erase_player(self.store, name, name, club_id=player.club_id, dry_run=True).mentions:
                if mention not in report.mentions:
                    report.mentions.append(mention)
        if dry_run:
            report.games = sorted({g for g, _ in self.store.players.seats_of(player.id)})
            return player, report
        report.games = self.store.players.erase(player.id, club_id=reader.club_id)
        for game_id in report.games:
            self.recorder.forget(game_id)
        return self.store.players.get_player(player.id), report

    def player_profile(self, reader: Reader, ref: str, *, games: int = 100) -> dict[str, Any]:
        """A player's page: statistics, ratings, the rating history explained change by change, their games.

        Raises:
            NotFoundError: no such player.
        """
        player = self.player(reader, ref)
        self._caught_up()
        return player_pages.profile(self.store, player, games=games)

    def standings(
        self,
        reader: Reader,
        kind: str,
        *,
        since: str | None = None,
        until: str | None = None,
        event: str | None = None,
        round: str | None = None,
    ) -> dict[str, Any]:
        """The club's leaderboard of one game over a date range or an event/round.

        Raises:
            UnknownGameError: an unknown kind.
            InvalidEventError: the operator without a club.
        """
        rules_for(kind)
        club_id = own_club(reader)
        self._caught_up()
        return player_pages.standings(
            self.store, club_id, kind, since=since, until=until, event=event, round_name=round
        )
