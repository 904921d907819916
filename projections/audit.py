"""Audits: read the record to settle a dispute.

The audit of a game holds the chain check, every illegal event stored under
`record` enforcement, every retraction (who, when, why, what), every
`score_claimed` compared with the computed points of its hand and the score
lines that explain the computed figure, the notes, and the game's own notes
(facts an event's result flags with `audit_notes`, e.g. a better Gin melding).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from events.envelope import Envelope
from events.store import GameRecord
from projections import engine
from projections.recorder import initial_state_of
from projections.rules import ScoreLine, ScoreSheet, seat_dict
from projections.verify import verify_game

#: "seat 3" in a sentence (a note's text too): ASCII digits, a few of them (`\d+` took "seat ٣" and any length)
_SEAT = re.compile(r"\bseat ([0-9]{1,3})\b")


def name_seats(text: str, names: Sequence[str]) -> str:
    """`seat 1` becomes `Ben (seat 1)` in a sentence, for people."""

    def named(match: re.Match[str]) -> str:
        seat = int(match.group(1))
        return f"{names[seat]} (seat {seat})" if seat < len(names) else match.group(0)

    return _SEAT.sub(named, text)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def compare_claim(
    sheet: ScoreSheet, names: Sequence[str], claimed: Mapping[str, float], hand: int | None
) -> dict[str, Any]:
    """A claim (a hand's points, or the totals when `hand` is None) against the computed score."""
    seats = len(names)
    if hand is None:
        computed: dict[str, Any] | None = seat_dict(sheet.totals)
        lines: list[ScoreLine] = list(sheet.lines)
        what = "the totals"
    else:
        scored = sheet.hand(hand)
        computed = seat_dict(scored.points) if scored else None
        lines = list(scored.lines) if scored else []
        what = f"hand {hand}"
    if computed is None:
        return {
            "hand": hand,
            "claimed": dict(claimed),
            "computed": None,
            "agrees": False,
            "summary": f"{what} is not finished: there is no computed score to compare with yet",
            "lines": [],
        }
    differences = [str(s) for s in range(seats) if claimed.get(str(s)) != computed[str(s)]]
    if not differences:
        summary = f"{what}: the claim agrees with the computed score"
    else:
        parts = [f"claimed {_number(claimed[s])} for {names[int(s)]}, computed {computed[s]}" for s in differences]
        summary = f"{what}: " + "; ".join(parts)
        if hand is not None:
            reasons = [
                f"{line.rule} ({name_seats(line.reason, names)}, seqs {', '.join(map(str, line.events))})"
                for line in lines
            ]
            summary += ". " + ("Computed from: " + "; ".join(reasons) if reasons else "No line scores this hand.")
        else:
            per_hand = ", ".join(f"hand {h.hand} " + "/".join(str(p) for p in h.points) for h in sheet.hands)
            summary += f". Hands as computed: {per_hand}" if per_hand else ". No hand has been scored."
    return {
        "hand": hand,
        "claimed": dict(claimed),
        "computed": computed,
        "agrees": not differences,
        "summary": summary,
        "lines": [line.to_dict() | {"hand": line.hand} for line in lines],
    }


def audit_game(game: GameRecord, envelopes: Sequence[Envelope]) -> dict[str, Any]:
    """The whole audit document of DESIGN.md."""
    rules, initial = initial_state_of(game)
    names = list(game.players)
    chain = verify_game(game, envelopes)
    state = chain.state if chain.ok else _fold_anyway(rules, initial, envelopes)
    sheet = rules.score(state.game) if state is not None else None
    retracted = engine.retracted_seqs(envelopes)
    violations, retractions, claims, notes, game_notes = [], [], [], [], []
    for env in envelopes:
        seq, data = env["seq"], env["data"]
        if "violation" in env:
            violations.append(
                {
                    "seq": seq,
                    "hand": env["hand"],
                    "type": env["type"],
                    "rule": env["violation"]["rule"],
                    "message": name_seats(env["violation"]["message"], names),
                    "retracted": seq in retracted,
                }
            )
        if env["type"] == "retract":
            retractions.append(
                {
                    "seq": seq,
                    "to_seq": data["to_seq"],
                    "reason": data["reason"],
                    "actor": env["actor"],
                    "recorded_at": env["recorded_at"],
                    "retracted": [s for s, by in retracted.items() if by == seq],
                }
            )
        elif env["type"] == "score_claimed" and sheet is not None:
            claim = compare_claim(sheet, names, data["points"], data["hand"])
            claims.append({"seq": seq, **claim, "retracted": seq in retracted})
        elif env["type"] == "note":
            notes.append(
                {
                    "seq": seq,
                    "text": data["text"],
                    "ref": data.get("ref"),
                    "actor": env["actor"],
                    "recorded_at": env["recorded_at"],
                    "retracted": seq in retracted,
                }
            )
        for text in env["result"].get("audit_notes", ()):
            game_notes.append(
                {"seq": seq, "hand": env["hand"], "text": name_seats(text, names), "retracted": seq in retracted}
            )
    return {
        "game": game.id,
        "chain": {"ok": chain.ok, "events": chain.events, "head_hash": chain.head_hash, "problems": chain.problems},
        "violations": violations,
        "retractions": retractions,
        "claims": claims,
        "notes": notes,
        "game_notes": game_notes,
        "score": sheet.to_dict() if sheet is not None else None,
    }


def _fold_anyway(rules: Any, initial: Any, envelopes: Sequence[Envelope]) -> Any:
    """A best-effort fold of a damaged stream (None if it cannot be folded)."""
    try:
        return engine.fold(rules, initial, envelopes)
    except Exception:
        return None
