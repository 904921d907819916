"""`tablebook verify-deal` and `tablebook deals report`: server deals checked, one record or a club's."""

from __future__ import annotations

from typing import Annotated

import typer

from api.cli.common import DatabaseOption, DocumentOption, known_kind, out
from api.cli.common import fail as _fail
from api.cli.common import operator_of as _operator_of
from api.cli.common import service as _service

deals_app = typer.Typer(help="Server deals: the club's fairness report.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    """Add `verify-deal` and the `deals` group to the `tablebook` app."""
    app.command("verify-deal")(verify_deal)
    deals_app.command("report")(deals_report)
    app.add_typer(deals_app, name="deals")


def verify_deal(
    file: Annotated[str, typer.Argument(help="an exported record: json or jsonl (tablebook export --format json)")],
    as_json: DocumentOption = False,
) -> None:
    """Check a server-dealt record's deals: each revealed hand's commitment, its recomputed deck and every
    dealt, drawn and hit card in order (`projections/fairness/fairdeal.py`, which runs without Tablebook too:
    docs/server-deal.md). Exit status 1 names the first hand and card that does not match."""
    from projections.fairness import fairdeal

    try:
        with open(file, "rb") as handle:
            report = fairdeal.verify_file(handle.read())
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        _fail(f"cannot read {file}: {exc}", 2)
    if as_json:
        out.json(report.to_dict())
    else:
        for text in fairdeal.render(report).splitlines():
            out.line(text)
    if not report.ok:
        raise typer.Exit(1)


def deals_report(
    club: Annotated[str | None, typer.Option(help="one club (default: every club)")] = None,
    kind: Annotated[
        str | None,
        typer.Option("--game", callback=known_kind, metavar="KIND", help="one game kind (default: every kind)"),
    ] = None,
    as_json: DocumentOption = False,
    database: DatabaseOption = None,
) -> None:
    """The fairness report of server deals (GET /v1/deals/report): suit patterns of the seats' hands and
    each card's position in the deck, against the exact probabilities, with chi-square p-values."""
    service = _service(database)
    report = service.deals_report(_operator_of(service, club), kind=kind)
    if as_json:
        out.json(report)
        return
    if not report["kinds"]:
        out.line("no revealed server-dealt hand")
    for doc in report["kinds"]:
        out.line((doc["game"], "bold"), f"  {doc['hands']} hands of {doc['games']} games")
        patterns = doc["patterns"]
        if patterns:
            rows = [
                [r["pattern"], str(r["observed"]), f"{r['expected']:.1f}", f"{r['probability']:.4f}"]
                for r in patterns["rows"]
                if r["observed"] or r["expected"] >= 0.5
            ]
            out.table(["pattern", "observed", "expected", "probability"], rows, title="suit patterns of a seat's hand")
            out.line(
                f"  patterns: chi-square {patterns['chi_square']:.2f}, df {patterns['df']}, p {_p(patterns['p_value'])}"
            )
        positions = doc["positions"]
        if positions:
            rough = " (rough: fewer than 5 expected per cell)" if positions["rough"] else ""
            out.line(
                f"  card positions: chi-square {positions['chi_square']:.1f}, df {positions['df']}, "
                f"p {_p(positions['p_value'])}{rough}"
            )
        if doc["recorders"]:
            out.table(
                ["recorder", "hands dealt", "voided", "dealt cards taken back", "dealt again"],
                [
                    [
                        r["actor"],
                        str(r["hands_dealt"]),
                        str(r["hands_voided"]),
                        str(r["retracts_of_dealt_cards"]),
                        str(r["hands_dealt_again"]),
                    ]
                    for r in doc["recorders"]
                ],
                title="re-deals by recorder (voids deal a new deck; a correction deals the same cards again)",
            )


def _p(value: float | None) -> str:
    return "n/a (too few hands)" if value is None else f"{value:.4f}"
