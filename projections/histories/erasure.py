"""Erasure of a player's name: the registry only, so that every chain stays valid.

Events name seats, never players, and the genesis record holds no name
(`events/codec.py`), so replacing a name in the `game` registry breaks no
hash. Free text (a note, a voided hand's or a retraction's reason) is hashed
as written: it is not edited, and the entries that mention the name are
listed so that the club can judge them (and append a correcting note).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from events.store import Store

#: event types whose data holds free text, and the field that holds it
FREE_TEXT = {"note": "text", "hand_voided": "reason", "retract": "reason"}


@dataclass
class Erasure:
    """What an erasure changed (or would change) and what it could not."""

    games: list[str] = field(default_factory=list)
    mentions: list[dict[str, Any]] = field(default_factory=list)


def erase_player(
    store: Store, name: str, replacement: str, *, club_id: int | None = None, dry_run: bool = False
) -> Erasure:
    """Replace `name` with `replacement` in every game (of a club) that names it, and erase the player
    records called `name` (exactly; their aliases with them: `PlayerBook.erase`); list the free text
    that mentions it (case-insensitively), in every game of that scope."""
    report = Erasure()
    erased: set[str] = set()
    clubs = [club_id] if club_id is not None else list(store.clubs().values())
    for club in clubs:  # the player records so named (exactly: their aliases go too), and their games
        for player in store.players.find_players(club, name):
            if name in player.names():
                if dry_run:
                    erased.update(game_id for game_id, _ in store.players.seats_of(player.id))
                else:
                    erased.update(store.players.erase(player.id, club_id=club, replacement=replacement))
    for game in store.games_with_player(name, club_id):
        players = [replacement if p == name else p for p in game.players]
        if not dry_run:
            store.set_players(game.id, players)
        report.games.append(game.id)
    report.games = sorted(erased | set(report.games))
    scope = None
    if club_id is not None:
        scope = [g.id for g in store.iter_games(club_id=club_id)]
    wanted = name.casefold()
    for game_id, env in store.iter_typed_events(list(FREE_TEXT), scope):
        text = env["data"].get(FREE_TEXT[env["type"]])
        if isinstance(text, str) and wanted in text.casefold():
            report.mentions.append({"game": game_id, "seq": env["seq"], "type": env["type"], "text": text})
    return report
