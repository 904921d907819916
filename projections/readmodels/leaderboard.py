"""What a leaderboard counts and how it orders: games won, then points, then the rating, then the name.

The standings page answers "who is leading" with the numbers it shows: each row's games won, games
played and points (in the game's own unit) beside the rating, ordered by those same columns so that a
reader can see why one player stands above another:

1. more games won (finished games whose winner was the player's seat);
2. then more points (the player's totals over those games: Schnapsen's *game points won*, not the game
   points still to go its sheet counts down; Seven and a Half's chips);
3. then the higher rating (`mu`, the number shown);
4. then the name, alphabetically (and the player id, so that the order is always the same).

`ORDER` says this in words for the API and the page. Points are read from the game registry's totals
(`points_won`), never by folding a game.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from events.errors import TablebookError
from events.store import Store
from projections.core import engine
from projections.core.registry import rules_for

#: the ordering, in words
ORDER = "games won, then points, then rating, then name"


@lru_cache(maxsize=16)
def _to_go_start(kind: str) -> int | None:
    """The total every seat starts at in a game that counts down (Schnapsen: 7 game points to go), else None."""
    try:
        rules = rules_for(kind)
    except TablebookError:  # a kind this version does not know: its totals are taken as they are
        return None
    if rules.units.get("totals") != "to_go":
        return None
    start = engine.start(rules, list(rules.demo_players), {})
    return int(rules.score(start.game).totals[0])


def points_won(kind: str, totals: Mapping[str, Any], seat: int) -> int:
    """A seat's points in a game, in the game's unit, more being better: its total, or for a game whose
    sheet counts down (Schnapsen's game points to go) the points won, the start less what is left."""
    total = int(totals.get(str(seat), 0) or 0)
    start = _to_go_start(kind)
    return total if start is None else start - total


def rank(store: Store, kind: str, table: list[dict[str, Any]], changes: Iterable[Mapping[str, Any]]) -> None:
    """Give each row of `table` (one player's rated results: `player_id`, `name`, `rating`) its `wins`,
    `games`, `points` and `place`, and sort it by `ORDER`. `changes` are the rating changes the rows were
    made of (each with `player_id`, `game_id`, `seat`)."""
    seats: dict[str, dict[str, int]] = {}
    for change in changes:
        seats.setdefault(change["player_id"], {})[change["game_id"]] = int(change["seat"])
    ids = sorted({game_id for played in seats.values() for game_id in played})
    games = {game.id: game for game in store.iter_games(ids=ids)} if ids else {}
    for row in table:
        played = {gid: seat for gid, seat in seats.get(row["player_id"], {}).items() if gid in games}
        row["games"] = len(played)
        row["wins"] = sum(
            1 for gid, seat in played.items() if games[gid].status == "finished" and games[gid].winner == seat
        )
        row["points"] = sum(points_won(kind, games[gid].totals, seat) for gid, seat in played.items())
    table.sort(key=lambda r: (-r["wins"], -r["points"], -r["rating"]["mu"], r["name"].casefold(), r["player_id"]))
    for place, row in enumerate(table, 1):
        row["place"] = place
