"""`tablebook review GAME [--hand N] [--seat K]`: a finished hand's decisions, what each cost, the best one.

The document of `GET /v1/games/{id}/review` (`--json`), or for people: one line a decision (its mark,
who, the event, the sentence of the figure it is marked by) and under it the other figure's sentence,
then each seat's count of marks. Without `--hand`, the game's last finished hand.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from api.cli.common import DatabaseOption, DocumentOption, out
from api.cli.common import fail as _fail
from api.cli.common import service as _service
from events.errors import TablebookError

#: how each mark is shown on a terminal
STYLES = {"?!": "yellow", "?": "dark_orange", "??": "red"}


def register(app: typer.Typer) -> None:
    """Add `review` to the `tablebook` app."""
    app.command()(review)


def last_finished(hands: dict[str, Any]) -> int | None:
    """The number of the game's last hand that is over (a `hands` document of the replay page), or None."""
    done = [h["hand"] for h in hands["hands"] if h["hand"] >= 1 and not h["live"]]
    live = hands.get("live_hand")
    done = [h for h in done if h != live]
    return max(done) if done else None


def review(
    game: Annotated[str, typer.Argument(help="the game's id")],
    hand: Annotated[int | None, typer.Option(min=1, help="the hand to review (default: the last one over)")] = None,
    seat: Annotated[int | None, typer.Option(min=0, help="review this seat's decisions only")] = None,
    as_json: DocumentOption = False,
    database: DatabaseOption = None,
) -> None:
    """Review a finished hand: for every decision, the best choice and what the one made cost.

    With hindsight (every card known) and, where the game can compute it, from what the seat could see;
    each decision marked ?! (inaccuracy), ? (mistake) or ?? (blunder) by the game's thresholds.
    `--json`: the document of GET /v1/games/{id}/review."""
    from api.service import OPERATOR

    service = _service(database)
    try:
        if hand is None:
            hand = last_finished(service.hands(OPERATOR, game))
            if hand is None:
                _fail("this game has no finished hand to review yet")
        document = service.review(OPERATOR, game, hand=hand, seat=seat)
    except TablebookError as exc:
        _fail(exc.message)
    if as_json:
        out.json(document)
        return
    who = f", {document['decisions'][0]['player']}'s decisions" if seat is not None and document["decisions"] else ""
    out.line((f"Review of hand {hand}", "bold"), f" of {game} ({document['kind']}{who})")
    for decision in document["decisions"]:
        mark = decision["mark"] or "  "
        mark_part: Any = (f"{mark:<2}", STYLES[mark]) if decision["mark"] else mark
        out.line(mark_part, f" event {decision['seq']}: {decision['sentence']}")
        for view in ("hindsight", "seen"):
            figure = decision[view]
            if figure is not None and view != decision["mark_from"]:
                out.line(f"     also {figure['sentence']}")
    out.line(("seats", "bold"))
    for tally in document["seats"]:
        costs = ", ".join(
            f"{_amount(value, document['units'].get(key, document['units']['']))}"
            for key, value in tally["cost"].items()
        )
        out.line(
            f"  {tally['player']}: {tally['decisions']} decisions, {tally['inaccuracies']} ?!, "
            f"{tally['mistakes']} ?, {tally['blunders']} ??" + (f"; given away {costs}" if costs else "")
        )


def _amount(value: float, unit: dict[str, Any]) -> str:
    if value == int(value):
        n = int(value)
        return f"{n} {unit['one'] if abs(n) == 1 else unit['many']}"
    return f"{value:.{max(int(unit['places']), 1)}f} {unit['many']}"
