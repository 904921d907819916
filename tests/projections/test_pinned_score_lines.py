"""Every score line of a few recorded random games, pinned: what a faster fold must not change (issue 34).

`tests/data/score_lines.json` holds, for each game kind, a few games played at random through
`legal_events` (`simulate.play`, seeded; a few by the game's bot, with negative seeds), and what the
rules made of them when the file was written: every score line of the final sheet (hand, seat, points,
rule, the reason as the rules wrote it, the events it names), the same sheet rendered with the players'
names (the wire's `template` and `fields` too), each event's derived facts (the envelope's stored
`result`) and the digest of the final position's snapshot text (its sets sorted). The test replays the
stored events (so a change to the simulator or a bot changes nothing here) both ways a reader folds
them, event by event (`engine.apply`, the recorder's way) and in one `engine.fold` (a rebuild's), and
compares everything, byte for byte where bytes are stored.

The file is written once, before a change that must not alter any of it, by

    .venv/bin/python -m tests.projections.test_pinned_score_lines --write

and never rewritten to make this test pass: a difference is a changed answer.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from events.codec import canonical, plain
from projections.core import engine, snapshots
from projections.core.registry import available, rules_for
from projections.core.simulate import demo_playout, play

DATA = Path(__file__).resolve().parents[1] / "data" / "score_lines.json"
#: the seeds of the games kept per kind, played with the default options
SEEDS = (1, 2, 3)
#: more games, with house rules or seeds that reach lines the games above do not (a tie for Game, say)
MORE: tuple[tuple[str, int, dict[str, Any]], ...] = (
    ("casino", 4, {"sweeps": True, "trail_only_when_forced": True}),
    ("cutthroat-smear", 4, {"high_point": "ace_only", "dealer_bids_after_passes": False}),
    ("cutthroat-smear", 5, {"high_point": "ace_only"}),
    *(("cutthroat-smear", seed, {}) for seed in range(6, 14)),
    ("gin-rummy-3", 4, {"gin_scoring": "flat", "discard_taken_card": False}),
    *(("schnapsen", seed, {}) for seed in range(4, 8)),
    (
        "seven-and-a-half",
        4,
        {"two_card_bonus": True, "wild_card": "KD", "pair_of_sevens": True, "splitting": True, "bank_needs_win": True},
    ),
    ("seven-and-a-half", 5, {"face_down_request": True, "max_bet": 5}),
)
#: games the game's own bot plays (`demo_playout`: until it shows the game's demo situations), for the
#: lines random play hardly reaches (a gin)
BOT_GAMES: tuple[tuple[str, int, dict[str, Any]], ...] = (
    ("gin-rummy-3", 1, {}),
    ("gin-rummy-3", 2, {"gin_scoring": "flat"}),
)
#: events a kept game holds at most (a Seven and a Half session may run long)
MOST = 300


def _players(kind: str) -> list[str]:
    return [f"P{i}" for i in range(rules_for(kind).player_counts[0])]


def _canonical(value: Any) -> bytes:
    """The bytes a value is stored as (mappings as objects, tuples as arrays, keys sorted)."""
    return canonical(plain(value))


def _snapshot_digest(position: Any) -> str:
    """The digest of a position's snapshot text, its sets' items sorted (a set's order changes from one
    process to the next with string hashing; nothing else in the text may, not even a mapping's order)."""

    def settled(value: Any) -> Any:
        if isinstance(value, list):
            return [settled(v) for v in value]
        if not isinstance(value, dict):
            return value
        out = {k: settled(v) for k, v in value.items()}
        for tag in ("__fs", "__s"):
            if tag in out:
                out[tag] = sorted(out[tag], key=canonical)
        return out

    text = settled(orjson.loads(snapshots.encode(position)))
    return hashlib.sha256(orjson.dumps(text)).hexdigest()  # keys in the snapshot's order


def _answers(kind: str, options: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """What the rules make of `events`, folded event by event: the pinned items (module docstring)."""
    rules = rules_for(kind)
    names = _players(kind)
    position = engine.start(rules, names, rules.options_for(names, options))
    facts = []
    for seq, event in enumerate(events, 1):
        position = engine.apply(rules, position, dict(event), seq)
        facts.append(orjson.loads(_canonical(position.facts)))
    sheet = rules.score(position.game)
    return {
        "sheet": sheet.to_dict(),
        "named_sheet": sheet.to_dict(names),
        "facts": facts,
        "snapshot_sha256": _snapshot_digest(position),
    }


def _folded(kind: str, options: dict[str, Any], events: list[dict[str, Any]]) -> Any:
    """The position `engine.fold` reaches over the events as stored envelopes (a rebuild's path)."""
    rules = rules_for(kind)
    names = _players(kind)
    initial = engine.start(rules, names, rules.options_for(names, options))
    envelopes = [
        {"seq": seq, "type": e["type"], "data": {k: v for k, v in e.items() if k != "type"}}
        for seq, e in enumerate(events, 1)
    ]
    return engine.fold(rules, initial, envelopes)


def _games() -> list[dict[str, Any]]:
    """The games the file keeps: `SEEDS` random playouts of every kind, then `MORE`."""
    games = []
    cases = [(kind, seed, {}) for kind in available() for seed in SEEDS] + list(MORE)
    cases += [(kind, -seed, options) for kind, seed, options in BOT_GAMES]  # a bot game's seed is negated
    for kind, seed, options in cases:
        if seed > 0:
            playout = play(rules_for(kind), _players(kind), options, rng=random.Random(seed), max_events=MOST)
        else:
            playout = demo_playout(rules_for(kind), _players(kind), options, rng=random.Random(-seed), max_events=MOST)
        events = [dict(e) for e in playout.events]
        games.append(
            {"kind": kind, "seed": seed, "options": options, "events": events, **_answers(kind, options, events)}
        )
    return games


def _pinned() -> list[dict[str, Any]]:
    games: list[dict[str, Any]] = json.loads(DATA.read_text())
    return games


@pytest.mark.parametrize(
    "game",
    _pinned() if DATA.exists() else [],
    ids=lambda g: f"{g['kind']}-{g['seed']}{'-house' if g['options'] else ''}",
)
def test_the_rules_make_what_they_made_of_the_pinned_games(game: dict[str, Any]) -> None:
    kind, options, events = game["kind"], game["options"], game["events"]
    answers = _answers(kind, options, events)
    for seq, (now, then) in enumerate(zip(answers["facts"], game["facts"], strict=True), 1):
        assert now == then, f"{kind} seed {game['seed']}: the facts of seq {seq} changed"
    assert answers["sheet"] == game["sheet"]
    assert answers["named_sheet"] == game["named_sheet"]
    assert answers["snapshot_sha256"] == game["snapshot_sha256"]
    rules = rules_for(kind)
    folded = _folded(kind, options, events)
    assert _canonical(folded.facts) == _canonical(game["facts"][-1])
    assert _canonical(rules.score(folded.game).to_dict()) == _canonical(game["sheet"])
    assert _snapshot_digest(folded) == game["snapshot_sha256"]


def test_every_kind_is_pinned_with_score_lines() -> None:
    games = _pinned()
    assert {g["kind"] for g in games} == set(available())
    for kind in available():
        assert any(h["lines"] for g in games if g["kind"] == kind for h in g["sheet"]["hands"]), kind


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(f"usage: {sys.argv[0]} --write   (rewrites {DATA}: only before a change that must not alter it)")
    DATA.write_text("[\n" + ",\n".join(json.dumps(g, ensure_ascii=False) for g in _games()) + "\n]\n")  # a game a line
    print(f"wrote {DATA}")
