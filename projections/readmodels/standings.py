"""A player's page and a club's standings: statistics, ratings and their history, leaderboards.

Read from the read models only (`projections/readmodels/ratings/` for ratings, the hand facts of
`projections/readmodels/hand_facts.py` for the game's own statistics) and the registry (games, seats, totals):
nothing here folds a game. Names are looked up when shown, from the `player` rows (never cached), so
a renamed or erased player reads right at once everywhere.

Statistics per kind: `games` (sat in), `finished`, `wins` (the game's winner was the player's seat),
`points` (the sum of the player's final totals in finished games, in the game's own unit, more being
better: Schnapsen's game points *won*, not the game points still to go its sheet counts down;
`leaderboard.points_won`), and the game's own counts from the hand facts at the player's seat (`STATS`).

A *copy* (`GameRecord.copy_of`: a record the club had, imported again on purpose) is a record, not
a second result: the statistics count no game and no hand fact of it, and the ratings rate none of
its results (so the standings, made of the ratings, show none); a player's list of games shows it,
marked with the original's id (`copy_of`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from events.store import PlayerRecord, Store
from projections.core.registry import KINDS, rules_for
from projections.readmodels import leaderboard
from projections.readmodels.ratings import MODEL, POOLS, RATED, is_provisional, ordinal

#: each game's own statistics (`GameRules.statistics`): label -> situation tag (counted at the player's own seat)
STATS: dict[str, dict[str, str]] = {kind: dict(rules_for(kind).statistics) for kind in KINDS}

#: how a pool reads on a page (`Rating.pools`)
POOL_TITLES: dict[str, str] = {pool: title for rating in RATED.values() for pool, title in rating.pools.items()}

#: the side a pool rates, where a kind rates two (`Rating.roles`)
ROLES: dict[str, str] = {pool: role for rating in RATED.values() for pool, role in rating.roles.items()}


def rating_doc(mu: float, sigma: float, results: int) -> dict[str, Any]:
    """A rating as the API shows it: `mu`, `sigma`, `ordinal`, `provisional`, and `text` ("27.4?")."""
    provisional = is_provisional(sigma)
    return {
        "mu": round(mu, 3),
        "sigma": round(sigma, 3),
        "ordinal": round(ordinal(mu, sigma), 3),
        "provisional": provisional,
        "results": results,
        "text": f"{mu:.1f}{'?' if provisional else ''}",
    }


def statistics(store: Store, player_id: str) -> dict[str, dict[str, Any]]:
    """`{kind: {games, finished, wins, points, <the game's own counts>}}` of a player, copies left out."""
    out: dict[str, dict[str, Any]] = {}
    played = store.ratings.player_games(player_id)
    copies = store.players.copies(g["game_id"] for g in played)
    for game in played:
        if game["game_id"] in copies:
            continue
        row = out.setdefault(game["kind"], {"games": 0, "finished": 0, "wins": 0, "points": 0})
        row["games"] += 1
        if game["status"] == "finished":
            row["finished"] += 1
            row["wins"] += int(game["winner"] == game["seat"])
            row["points"] += leaderboard.points_won(game["kind"], game["totals"], game["seat"])
    counts = store.players.situation_counts(player_id)
    for kind, row in out.items():
        for label, tag in STATS.get(kind, {}).items():
            row[label] = counts.get(kind, {}).get(tag, 0)
    return out


def current_ratings(store: Store, player_id: str) -> dict[str, dict[str, Any]]:
    """`{pool: rating_doc}` of the pools the player has results in."""
    pools = [pool for kind_pools in POOLS.values() for pool in kind_pools]
    found = store.ratings.latest((player_id, pool) for pool in pools)
    return {pool: rating_doc(*found[(player_id, pool)]) for pool in pools if (player_id, pool) in found}


class Names:
    """Player ids -> names shown, read from the database when asked (one query per batch), never kept."""

    def __init__(self, store: Store, club_id: int) -> None:
        self.store = store
        self.club_id = club_id
        self._seen: dict[str, str] = {}

    def load(self, ids: Sequence[str]) -> None:
        missing = {i for i in ids if i not in self._seen}
        if missing:
            for record in self.store.players.list_players(self.club_id, include_gone=True):
                self._seen[record.id] = record.name

    def __call__(self, player_id: str) -> str:
        self.load([player_id])
        return self._seen.get(player_id, player_id)


def _side_text(opponents: Sequence[Mapping[str, Any]], names: Names) -> str:
    return " and ".join(f"{names(o['player_id'])} ({rating_doc(o['mu'], o['sigma'], 0)['text']})" for o in opponents)


def explain(change: Mapping[str, Any], names: Names) -> dict[str, Any]:
    """One rating change explained like a score line: the game, the opponents' ratings before, the
    expected and actual result, the change."""
    delta = change["mu_after"] - change["mu_before"]
    actual = change["actual"]
    outcome = (
        "won" if actual == 1 else ("lost" if actual == 0 else ("drew" if actual == 0.5 else f"scored {actual:.2f}"))
    )
    rating = RATED.get(change["kind"])
    where = f"hand {change['hand']}" if rating is not None and rating.per_hand else "the game"
    if change["pool"] in ROLES:
        where += f" as {ROLES[change['pool']]}"
    reason = (
        f"{names(change['player_id'])} {outcome} {where} against {_side_text(change['opponents'], names)}: "
        f"expected {change['expected']:.2f}, actual {actual:.2f}, "
        f"{change['mu_before']:.1f} → {change['mu_after']:.1f} ({delta:+.1f})"
    )
    return {
        "game_id": change["game_id"],
        "kind": change["kind"],
        "pool": change["pool"],
        "hand": change["hand"],
        "seq": change["seq"],
        "seat": change["seat"],
        "opponents": [{**o, "name": names(o["player_id"])} for o in change["opponents"]],
        "before": rating_doc(change["mu_before"], change["sigma_before"], 0),
        "after": rating_doc(change["mu_after"], change["sigma_after"], 0),
        "expected": round(change["expected"], 4),
        "actual": actual,
        "change": round(delta, 3),
        "reason": reason,
        "played_at": change.get("game_created_at"),
    }


def profile(store: Store, player: PlayerRecord, *, games: int = 100) -> dict[str, Any]:
    """A player's page: the record, statistics, current ratings, the explained history, their games."""
    names = Names(store, player.club_id)
    played = store.ratings.player_games(player.id)
    copies = store.players.copies(g["game_id"] for g in played[:games])
    return {
        "player": player.to_public(),
        "statistics": statistics(store, player.id),
        "ratings": current_ratings(store, player.id),
        "history": [explain(change, names) for change in store.ratings.history(player.id)],
        "games": [
            {
                "id": g["game_id"],
                "game": g["kind"],
                "seat": g["seat"],
                "players": g["players"],
                "status": g["status"],
                "winner": g["winner"],
                "won": g["status"] == "finished" and g["winner"] == g["seat"],
                "totals": g["totals"],
                "created_at": g["created_at"],
                "event": g["event"],
                "round": g["round"],
                "copy_of": copies.get(g["game_id"]),
            }
            for g in played[:games]
        ],
        "games_total": len(played),
    }


def standings(
    store: Store,
    club_id: int,
    kind: str,
    *,
    since: str | None = None,
    until: str | None = None,
    event: str | None = None,
    round_name: str | None = None,
) -> dict[str, Any]:
    """The leaderboard of a club's games of one kind in a range (creation time, event, round labels).

    Per pool, each player with results there: their rating after their last result in the range, the
    change over the range, results, games, wins, points, expected wins; ordered by the columns a page
    shows (`leaderboard.ORDER`: games won, then points, then rating, then name).
    """
    names = Names(store, club_id)
    pools: dict[str, Any] = {}
    for pool in POOLS[kind]:
        rows: dict[str, dict[str, Any]] = {}
        changes = store.ratings.changes_in(club_id, [pool], since=since, until=until, event=event, round=round_name)
        for change in changes:
            row = rows.setdefault(
                change["player_id"],
                {"start": change["mu_before"], "results": 0, "wins": 0.0, "expected": 0.0, "games": set()},
            )
            row["results"] += 1
            row["wins"] += change["actual"]
            row["expected"] += change["expected"]
            row["games"].add(change["game_id"])
            row["mu"], row["sigma"] = change["mu_after"], change["sigma_after"]
        table = []
        for player_id, row in rows.items():
            rating = rating_doc(row["mu"], row["sigma"], row["results"])
            table.append(
                {
                    "player_id": player_id,
                    "name": names(player_id),
                    "rating": rating,
                    "change": round(row["mu"] - row["start"], 3),
                    "results": row["results"],
                    "games": len(row["games"]),
                    "score": row["wins"],
                    "expected": round(row["expected"], 3),
                }
            )
        leaderboard.rank(store, kind, table, changes)  # wins, games, points, place: `leaderboard.ORDER`
        pools[pool] = {"title": POOL_TITLES[pool], "standings": table}
    return {
        "game": kind,
        "range": {"since": since, "until": until, "event": event, "round": round_name},
        "model": f"openskill {type(MODEL).__name__}",
        "order": leaderboard.ORDER,
        "pools": pools,
    }
