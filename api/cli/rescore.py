"""`tablebook rescore GAME --option k=v`, `tablebook rescore-season`, `tablebook profiles ...`.

The same use cases as `POST /v1/games/{id}/rescore`, `POST /v1/rescore` and the `/v1/profiles` routes
(`api/service/rescore.py`, `api/service/profiles.py`), on the database of `--database` (or
`TABLEBOOK_DATABASE_URL`), for the operator who holds it. Nothing is written by a re-score.
`register(app)` adds them (`api/cli/__init__.py`, after the other commands).

A value given with `--option` is read as JSON when it is JSON (`true`, `20`, `null`, `"flat"`), else as
text (`flat`); a profile's option is named `game.option=value` (`gin-rummy-3.undercut_bonus=20`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

import orjson
import typer

from api.cli.common import DatabaseOption, JsonOption, out
from api.cli.common import fail as _fail
from api.cli.common import operator_of as _operator
from api.cli.common import service as _service
from events.errors import TablebookError

profiles_app = typer.Typer(help="Rule profiles: a club's house rules, per game.", no_args_is_help=True)

ClubOption = Annotated[str, typer.Option("--club", help="the club's name")]


def register(app: typer.Typer) -> None:
    """Add `rescore`, `rescore-season` and the `profiles` commands to the `tablebook` app."""
    app.command("rescore")(rescore)
    app.command("rescore-season")(rescore_season)
    app.add_typer(profiles_app, name="profiles")


def parse_value(text: str) -> Any:
    """`--option` values: JSON when they are JSON (`true`, `20`, `null`), else the text itself (`flat`)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return text


def parse_options(given: Sequence[str]) -> dict[str, Any]:
    """`k=v` pairs as options.

    Raises:
        typer.Exit: a pair without `=`.
    """
    options: dict[str, Any] = {}
    for pair in given:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            _fail(f"--option {pair!r}: write it as name=value")
        options[name.strip()] = parse_value(value.strip())
    return options


def parse_games(given: Sequence[str]) -> dict[str, dict[str, Any]]:
    """`game.option=value` pairs as a profile's options per game."""
    games: dict[str, dict[str, Any]] = {}
    for name, value in parse_options(given).items():
        kind, sep, option = name.partition(".")
        if not sep or not option:
            _fail(f"--option {name!r}: write it as game.option=value (gin-rummy-3.undercut_bonus=20)")
        games.setdefault(kind, {})[option] = value
    return games


def rescore(
    game: Annotated[str, typer.Argument(help="the game's id")],
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="name=value, on top of the game's")] = None,
    profile: Annotated[str | None, typer.Option("--profile", help="a rule profile of the game's club")] = None,
    as_json: JsonOption = False,
    database: DatabaseOption = None,
) -> None:
    """Score a recorded game under other options or a rule profile; nothing is written.

    Scoring-only options: every hand scored again, with the lines that change. Play options: the events
    replayed until the first the new rules refuse ("diverges at seq N: rule R"), the score up to there."""
    from api.service import OPERATOR

    service = _service(database)
    try:
        done = service.rescore(OPERATOR, game, options=parse_options(option or []), profile=profile)
    except TablebookError as exc:
        _fail(exc.message)
    document = done.to_dict()
    if as_json:
        out.json(document)
        return
    names = list(done.players)
    out.line((document["kind"], "bold"), f" {game}: ", document["summary"])
    for name, change in document["options"]["changed"].items():
        out.line(f"  {name}: {_shown(change['from'])} -> {_shown(change['to'])} ({change['kind']})")
    if document["divergence"] is not None:
        divergence = document["divergence"]
        out.line((divergence["text"], "yellow"), f": {divergence['message']}")
    rows = [
        [
            str(line["hand"]),
            names[line["seat"]],
            line["rule"],
            _signed(line["change"]),
            line["before"]["reason"] if line["before"] else "(none)",
            line["after"]["reason"] if line["after"] else "(none)",
        ]
        for line in document["lines"]
    ]
    if rows:
        out.table(["hand", "player", "rule", "change", "recorded", "re-scored"], rows, title="lines that change")
    totals = document["totals"]
    out.table(
        ["player", "recorded", "re-scored", "difference"],
        [
            [name, str(totals["recorded"][s]), str(totals["rescored"][s]), _signed(totals["difference"][s])]
            for s, name in ((str(i), n) for i, n in enumerate(names))
        ],
        title=f"totals at seq {document['upto']}",
        right=("recorded", "re-scored", "difference"),
    )


def rescore_season(
    club: ClubOption,
    profile: Annotated[str | None, typer.Option("--profile", help="the rule profile of side b")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="game.option=value, side b")] = None,
    against: Annotated[str | None, typer.Option("--against", help="a profile for side a (default: the record)")] = None,
    game: Annotated[str | None, typer.Option("--game", help="only this game kind")] = None,
    player: Annotated[str | None, typer.Option("--player", help="only games with this player")] = None,
    as_json: JsonOption = False,
    database: DatabaseOption = None,
) -> None:
    """A season: the club's games scored under a profile beside the record (or another profile); the
    wins of each player under both. `--json`: the NDJSON lines of POST /v1/rescore."""
    service = _service(database)
    reader = _operator(service, club)
    try:
        lines = service.rescore_season(
            reader,
            profile=profile,
            games=parse_games(option or []),
            against=against,
            kind=game,
            player=player,
        )
        listed = list(lines)
    except TablebookError as exc:
        _fail(exc.message)
    if as_json:
        for line in listed:
            out.json(line)
        return
    summary = listed[-1]["season"]
    a, b = summary["labels"]["a"], summary["labels"]["b"]
    rows = []
    for line in listed[:-1]:
        if "error" in line:
            rows.append([line["game"], line["kind"], "", "", line["error"]["message"]])
            continue
        rows.append(
            [
                line["game"],
                line["kind"],
                line["a"]["winner_name"] or "-",
                line["b"]["winner_name"] or "-",
                (line["b"]["divergence"] or {}).get("text", ""),
            ]
        )
    out.table(["game", "kind", f"winner ({a})", f"winner ({b})", "note"], rows, title=f"{summary['games']} games")
    out.table(
        ["player", "games", f"wins ({a})", f"wins ({b})"],
        [[p["player"], str(p["games"]), str(p["wins_a"]), str(p["wins_b"])] for p in summary["players"]],
        title="standings",
        right=("games", f"wins ({a})", f"wins ({b})"),
    )


@profiles_app.command("list")
def profiles_list(club: ClubOption, as_json: JsonOption = False, database: DatabaseOption = None) -> None:
    """The club's rule profiles (the built-in `default` first)."""

    service = _service(database)
    found = service.profiles(_operator(service, club))
    if as_json:
        out.json({"profiles": [p.to_dict() for p in found]})
        return
    out.table(["name", "options"], [[p.name, _games_text(p.games) or "(every option at its default)"] for p in found])


@profiles_app.command("show")
def profiles_show(
    name: Annotated[str, typer.Argument(help="the profile's name")],
    club: ClubOption,
    as_json: JsonOption = False,
    database: DatabaseOption = None,
) -> None:
    """One profile: the options it sets, and every game's house options under it."""

    service = _service(database)
    try:
        found = service.profile(_operator(service, club), name)
    except TablebookError as exc:
        _fail(exc.message)
    document = found.to_dict()
    if as_json:
        out.json(document)
        return
    out.line((found.name, "bold"), f": {_games_text(found.games) or 'every option at its default'}")
    for kind, options in document["rules"].items():
        out.line(f"  {kind}: " + ", ".join(f"{k}={_shown(v)}" for k, v in options.items()))


@profiles_app.command("set")
def profiles_set(
    name: Annotated[str, typer.Argument(help="the profile's name")],
    club: ClubOption,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="game.option=value")] = None,
    database: DatabaseOption = None,
) -> None:
    """Store a profile (or replace the club's profile of that name) with the options given."""

    service = _service(database)
    try:
        saved, created = service.save_profile(_operator(service, club), name, parse_games(option or []))
    except TablebookError as exc:
        _fail(exc.message)
    out.line(f"{'created' if created else 'replaced'} profile {saved.name}: {_games_text(saved.games) or 'defaults'}")


@profiles_app.command("delete")
def profiles_delete(
    name: Annotated[str, typer.Argument(help="the profile's name")], club: ClubOption, database: DatabaseOption = None
) -> None:
    """Remove a profile (games created with it keep their options)."""

    service = _service(database)
    try:
        service.delete_profile(_operator(service, club), name)
    except TablebookError as exc:
        _fail(exc.message)
    out.line(f"deleted profile {name}")


def _shown(value: Any) -> str:
    return orjson.dumps(value).decode() if not isinstance(value, str) else value


def _signed(value: int) -> str:
    return f"{value:+d}" if value else "0"


def _games_text(games: Any) -> str:
    return "; ".join(
        f"{kind}: " + ", ".join(f"{k}={_shown(v)}" for k, v in opts.items()) for kind, opts in games.items()
    )
