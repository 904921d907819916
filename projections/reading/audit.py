"""Audits: read the record to settle a dispute.

The audit of a game holds the chain check, every illegal event stored under
`record` enforcement, every retraction (who, when, why, what), every
`score_claimed` compared with the computed points of its hand and the score
lines that explain the computed figure, the notes, and the game's own notes
(facts an event's result flags with `audit_notes`, e.g. a better Gin melding).

A `retract` takes back game events only (`engine.takes_back`): a claim or a note appended in the
range it corrects stays in force and in the audit, which says it was made before the correction
(`before_retract`, the retract's seq, and a sentence in the claim's `summary` / the note's `remark`);
the retraction lists them as `kept`. People read the rules' texts (score reasons, violation messages,
game notes) rendered with the players' names (`projections/core/phrases.py`); a note's text is the
auditor's own words and is shown as written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from events.envelope import Envelope
from events.store import GameRecord
from projections.core import engine, phrases
from projections.core.recorder import initial_state_of
from projections.core.rules import ScoreLine, ScoreSheet, seat_dict
from projections.reading.verify import verify_game


def name_seats(text: str, names: Sequence[str]) -> str:
    """The rules' marked text for people (`phrases.render`): kept for the callers that still import it
    from here (the text history, the CSV, the CLI); new code calls `phrases.render`."""
    return phrases.render(text, names)


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
                f"{line.rule} ({phrases.render(line.reason, names)}, seqs {', '.join(map(str, line.events))})"
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
        "lines": [line.to_dict(names) | {"hand": line.hand} for line in lines],
    }


def before_correction(retract_seq: int, to_seq: int) -> str:
    """What the audit says of a claim or note appended in a retracted range: it still counts."""
    return f"made before the retract at seq {retract_seq} (back to seq {to_seq}); still in force"


def audit_game(game: GameRecord, envelopes: Sequence[Envelope]) -> dict[str, Any]:
    """The whole audit document of DESIGN.md."""
    rules, initial = initial_state_of(game)
    names = list(game.players)
    chain = verify_game(game, envelopes)
    state = chain.state if chain.ok else _fold_anyway(rules, initial, envelopes)
    sheet = rules.score(state.game) if state is not None else None
    retracted = engine.retracted_seqs(envelopes)
    kept = engine.made_before(envelopes)
    targets = {env["seq"]: env["data"]["to_seq"] for env in envelopes if env["type"] == "retract"}
    violations, retractions, claims, notes, game_notes = [], [], [], [], []
    for env in envelopes:
        seq, data = env["seq"], env["data"]
        if "violation" in env:
            violations.append(_violation(env, names, seq in retracted))
        if env["type"] == "retract":
            retractions.append(_retraction(env, retracted, kept))
        elif env["type"] == "score_claimed" and sheet is not None:
            claim = compare_claim(sheet, names, data["points"], data["hand"])
            claims.append({"seq": seq, **claim, "retracted": False, **_kept(claim, "summary", seq, kept, targets)})
        elif env["type"] == "note":
            note = {
                "seq": seq,
                "text": data["text"],
                "ref": data.get("ref"),
                "actor": env["actor"],
                "recorded_at": env["recorded_at"],
                "retracted": False,
            }
            notes.append({**note, **_kept(note, "remark", seq, kept, targets)})
        for text in env["result"].get("audit_notes", ()):
            game_notes.append(
                {"seq": seq, "hand": env["hand"], "text": phrases.render(text, names), "retracted": seq in retracted}
            )
    return {
        "game": game.id,
        "chain": {"ok": chain.ok, "events": chain.events, "head_hash": chain.head_hash, "problems": chain.problems},
        "violations": violations,
        "retractions": retractions,
        "claims": claims,
        "notes": notes,
        "game_notes": game_notes,
        "score": sheet.to_dict(names) if sheet is not None else None,
    }


def _violation(env: Envelope, names: Sequence[str], retracted: bool) -> dict[str, Any]:
    """A stored violation, its message (marked, as the rules wrote it) rendered for people."""
    return {
        "seq": env["seq"],
        "hand": env["hand"],
        "type": env["type"],
        "rule": env["violation"]["rule"],
        "message": phrases.render(env["violation"]["message"], names),
        "retracted": retracted,
    }


def _retraction(env: Envelope, retracted: Mapping[int, int], kept: Mapping[int, int]) -> dict[str, Any]:
    """A retract: who, when, why, the game events it took back and the claims and notes it left in force."""
    seq = env["seq"]
    return {
        "seq": seq,
        "to_seq": env["data"]["to_seq"],
        "reason": env["data"]["reason"],
        "actor": env["actor"],
        "recorded_at": env["recorded_at"],
        "retracted": [s for s, by in retracted.items() if by == seq],
        "kept": [s for s, by in kept.items() if by == seq],
    }


def _kept(
    entry: Mapping[str, Any], field: str, seq: int, kept: Mapping[int, int], targets: Mapping[int, int]
) -> dict[str, Any]:
    """`before_retract` (the seq of the retract whose range holds this claim or note, else None) and, when
    there is one, the entry's `field` (a claim's summary, a note's remark) saying it was made before it."""
    by = kept.get(seq)
    if by is None:
        return {"before_retract": None}
    sentence = before_correction(by, targets[by])
    text = entry.get(field)
    return {"before_retract": by, field: f"{text.rstrip('.')}. M{sentence[1:]}." if text else sentence}


def _fold_anyway(rules: Any, initial: Any, envelopes: Sequence[Envelope]) -> Any:
    """A best-effort fold of a damaged stream (None if it cannot be folded)."""
    try:
        return engine.fold(rules, initial, envelopes)
    except Exception:
        return None
