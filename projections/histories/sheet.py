"""The score sheet as a scorer keeps it on paper (`format=sheet`): hands down, players across, totals at the bottom.

The line-by-line CSV (`format=csv`, `projections/histories/export.py`) has one row per score line, with its
rule and reason, for a program or an audit; this one has one row per hand and one column per player, each
cell that player's points in the hand (0 when they scored nothing), every hand there even when nobody scored
(a voided hand). The rows under the hands:

- `total`: each player's total as the game counts it (Seven and a Half: chips won or lost);
- in a game counted down (Schnapsen: game points still to go, from 7), `total` is the game points won and a
  `to go` row follows with what is left;
- `winner`: the winner's name in their column once the game is over (`live` in the first column while it is
  being played).

Names head the columns as the text history writes them (a name two seats share gets its seat: `Ruby (#1)`);
a cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`) gets a leading `'`. Numbers stay numbers
(negative chips too).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence

from projections.core.rules import ScoreSheet


def _text(value: str) -> str:
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def column_names(players: Sequence[str]) -> list[str]:
    """The players as the columns name them: a name two seats share (or a blank one) with its seat."""
    shown = [" ".join(str(name).split()) for name in players]
    return [f"{name} (#{seat})" if not name or shown.count(name) > 1 else name for seat, name in enumerate(shown)]


def sheet_csv(players: Sequence[str], sheet: ScoreSheet, units: Mapping[str, str] | None = None) -> str:
    """The score sheet as CSV: a `hand` column and one column per player, a row per hand, then the totals.

    `units` are the game's (`GameRules.units`): a game whose `totals` are `to_go` gets the game points won
    as its `total` row and a `to go` row under it.
    """
    seats = len(players)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["hand", *(_text(name) for name in column_names(players))])
    won = [0] * seats
    for hand in sheet.hands:
        points = [int(hand.points[seat]) if seat < len(hand.points) else 0 for seat in range(seats)]
        for seat, value in enumerate(points):
            won[seat] += value
        writer.writerow([hand.hand, *points])
    totals = [int(t) for t in sheet.totals]
    if (units or {}).get("totals") == "to_go":
        writer.writerow(["total", *won])
        writer.writerow(["to go", *(max(t, 0) for t in totals)])
    else:
        writer.writerow(["total", *totals])
    if sheet.finished:
        names = column_names(players)
        writer.writerow(["winner", *(_text(names[seat]) if seat == sheet.winner else "" for seat in range(seats))])
    else:
        writer.writerow(["live", *([""] * seats)])
    return out.getvalue()
