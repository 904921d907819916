"""Comparing results: travellers, matchpoints, the difference score, and an event's standings. Pure.

A duplicate board is played at every table of its round with the same cards in the same seats, so a seat's
result is compared with the same seat's result at the other tables (the way duplicate bridge compares
North-South with North-South):

- a seat's *result* on a board is the game's (`Duplicate.result`: by default its hand points less the mean
  of the other seats'; Seven and a Half: its chips);
- *matchpoints*: 2 for each other table whose same seat did worse, 1 for each tie (a top is
  2 x (tables - 1));
- the *difference score* (cross-IMPs): for each other table, the difference of results turned into steps
  on the game's scale (`Duplicate.imps_of`, like duplicate bridge's IMP table), averaged over the other
  tables, to two decimals.

A board is compared only once every table of its round has finished it (it is revealed then: before, a
traveller would tell one table what the cards did at another). An event without boards compares games:
a win is 1, a shared win (no winner) 0.5 to each seat.

Standings order the players by the event's scoring, then by the tie-breaks in `TIE_BREAKS`, and every cell
carries the games, hands and score events it is made of.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from projections.core.duplicate import Duplicate
from projections.core.scores import HandScore

#: the event's scoring -> what the standings are ordered by, first to last; players equal on all of them share
#: the place (listed in the event's order)
TIE_BREAKS: Mapping[str, tuple[str, ...]] = {
    "matchpoints": ("matchpoint percentage", "difference score (IMPs) per board", "tops"),
    "imps": ("difference score (IMPs) per board", "matchpoint percentage", "tops"),
    "wins": ("wins", "points difference"),
}
SCORINGS = tuple(TIE_BREAKS)


@dataclass(frozen=True, slots=True)
class Played:
    """One table's hand on one board: who sat where, the hand's points (None: not played there)."""

    table: int
    game_id: str
    #: the event's players (their indices) by seat
    seats: tuple[int, ...]
    hand: HandScore | None


def traveller(
    duplicate: Duplicate, options: Mapping[str, Any], board: int, hand: int, rows: Sequence[Played]
) -> dict[str, Any]:
    """Board `board` (table hand `hand`) at every table, side by side, with each seat's matchpoints and
    difference score against the same seat at the other tables that played it."""
    played = [row for row in rows if row.hand is not None]
    results = {
        row.table: [duplicate.result(row.hand.points, s) for s in range(len(row.seats))]
        for row in played
        if row.hand is not None
    }
    out = []
    for row in rows:
        doc: dict[str, Any] = {"table": row.table, "game_id": row.game_id, "players": list(row.seats)}
        if row.hand is None:
            out.append({**doc, "played": False})
            continue
        mine = results[row.table]
        mps, imps = [], []
        for seat, result in enumerate(mine):
            others = [results[t][seat] for t in results if t != row.table and seat < len(results[t])]
            mps.append(2 * sum(result > o for o in others) + sum(result == o for o in others))
            steps = [duplicate.imps_of(result - o, options) for o in others]
            imps.append(round(sum(steps) / len(steps), 2) if steps else 0.0)
        out.append(
            {
                **doc,
                "played": True,
                "points": list(row.hand.points),
                "results": [round(r, 2) for r in mine],
                "matchpoints": mps,
                "imps": imps,
                "events": sorted({seq for line in row.hand.lines for seq in line.events}),
            }
        )
    return {"board": board, "hand": hand, "top": 2 * max(len(played) - 1, 0), "tables": out}


@dataclass(frozen=True, slots=True)
class GamePlayed:
    """A table's game in an event without boards: who sat where, its totals and winner (None: not over)."""

    round: int
    table: int
    game_id: str
    seats: tuple[int, ...]
    totals: tuple[int, ...]
    finished: bool
    winner: int | None


def standings(
    scoring: str, players: Sequence[str], travellers: Sequence[Mapping[str, Any]], games: Sequence[GamePlayed]
) -> dict[str, Any]:
    """The event's standings: a row a player, best first, each total explained by its cells (one a board,
    or a game, with the events behind it). `travellers` are the compared boards (each with its `round`)."""
    rows: list[dict[str, Any]] = [
        {
            "player": i,
            "name": name,
            "matchpoints": 0,
            "top": 0,
            "imps": 0.0,
            "tops": 0,
            "boards": 0,
            "wins": 0.0,
            "difference": 0.0,
            "games": 0,
            "cells": [],
        }
        for i, name in enumerate(players)
    ]
    for trav in travellers:
        for table in trav["tables"]:
            if not table["played"]:
                continue
            for seat, player in enumerate(table["players"]):
                row = rows[player]
                mp, imp = table["matchpoints"][seat], table["imps"][seat]
                row["matchpoints"] += mp
                row["top"] += trav["top"]
                row["imps"] += imp
                row["tops"] += int(trav["top"] > 0 and mp == trav["top"])
                row["boards"] += 1
                row["cells"].append(
                    {
                        "round": trav["round"],
                        "board": trav["board"],
                        "table": table["table"],
                        "game_id": table["game_id"],
                        "hand": trav["hand"],
                        "seat": seat,
                        "result": table["results"][seat],
                        "matchpoints": mp,
                        "top": trav["top"],
                        "imps": imp,
                        "events": table["events"],
                        "reason": f"board {trav['board']} at table {table['table']}, seat {seat}: result "
                        f"{table['results'][seat]:g}, {mp} of {trav['top']} matchpoints, {imp:+g} IMPs",
                    }
                )
    for game in games:
        if not game.finished:
            continue
        share = 1.0 / len(game.seats) if game.winner is None else 0.0
        for seat, player in enumerate(game.seats):
            row = rows[player]
            won = 1.0 if game.winner == seat else share
            others = [t for s, t in enumerate(game.totals) if s != seat]
            diff = game.totals[seat] - (sum(others) / len(others) if others else 0)
            row["wins"] += won
            row["difference"] += diff
            row["games"] += 1
            row["cells"].append(
                {
                    "round": game.round,
                    "table": game.table,
                    "game_id": game.game_id,
                    "seat": seat,
                    "win": won,
                    "difference": round(diff, 2),
                    "reason": f"round {game.round}, table {game.table}, seat {seat}: "
                    + ("won" if won == 1 else f"{won:g} of a win" if won else "lost")
                    + f", totals {game.totals[seat]} against {', '.join(str(t) for t in others)}",
                }
            )
    for row in rows:
        row["percentage"] = round(100 * row["matchpoints"] / row["top"], 2) if row["top"] else None
        row["imps_per_board"] = round(row["imps"] / row["boards"], 2) if row["boards"] else 0.0
        row["imps"] = round(row["imps"], 2)
        row["difference"] = round(row["difference"], 2)
    rows.sort(key=lambda row: _order(scoring, row))
    place = 0
    for index, row in enumerate(rows):
        if index == 0 or _order(scoring, row)[:-1] != _order(scoring, rows[index - 1])[:-1]:
            place = index + 1
        row["place"] = place
    return {"scoring": scoring, "tie_breaks": list(TIE_BREAKS[scoring]), "rows": rows}


def _order(scoring: str, row: Mapping[str, Any]) -> tuple[float, ...]:
    """The sort key of a standings row under `scoring` (smaller first), the event's order last."""
    pct = row["percentage"] if row["percentage"] is not None else -1.0
    if scoring == "matchpoints":
        return (-pct, -row["imps_per_board"], -row["tops"], row["player"])
    if scoring == "imps":
        return (-row["imps_per_board"], -pct, -row["tops"], row["player"])
    return (-row["wins"], -row["difference"], row["player"])
