"""`tablebook list` on an 80-column terminal: a table wraps between words and between seats' values, never
inside a number (`api/cli/output.py`, `Output.table`)."""

from __future__ import annotations

import io
import re

from rich.console import Console

from api.cli.output import GAME_COLUMNS, Output, game_row

UNITS = {"totals": "chips"}


def test_no_number_is_wrapped_inside_on_an_80_column_terminal() -> None:
    games = [
        {
            "id": f"g{n:012x}",
            "game": "seven-and-a-half",
            "players": ["Juan", "Inès", "Carlo", "Sara"],
            "status": "live",
            "seq": 1600 + n,
            "totals": {"0": -20, "1": -385, "2": -1187, "3": 1592},
            "winner": None,
            "created_at": "2026-12-03T12:29:00.000000Z",
        }
        for n in range(3)
    ]
    shown = io.StringIO()
    out = Output(Console(file=shown, width=80, force_terminal=True, color_system=None))
    out.table(
        GAME_COLUMNS, [game_row(g, short=True, units=UNITS) for g in games], right=("seq",), whole=("id", "created")
    )
    lines = shown.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 80
    text = "\n".join(lines)
    for number in ("-20", "-385", "-1187", "1592", "1600", "2026-12-03", "12:29"):
        assert number in text, (number, text)  # each one whole, on one line
    # the values of the seats wrap between them: every number on a line is a whole value of the game
    found = {int(n) for n in re.findall(r"(?<![\d:-])-?\d+(?![\d:-])", text)}
    assert {-20, -385, -1187, 1592} <= found and not found & {-38, 38, -118, 118, 159, 92}


def test_a_pipe_keeps_the_values_as_they_are() -> None:
    shown = io.StringIO()
    out = Output(Console(file=shown, width=80, force_terminal=False))
    game = {
        "id": "g1",
        "game": "casino",
        "players": ["Ann", "Ben", "Cho"],
        "status": "finished",
        "seq": 312,
        "totals": {"0": 20, "1": 23, "2": 19},
        "winner": 1,
        "created_at": "2026-12-03T12:29:00Z",
    }
    out.table(GAME_COLUMNS, [game_row(game)])
    assert "\t20/23/19\t" in shown.getvalue()
