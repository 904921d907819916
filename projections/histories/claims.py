"""Score claims against the computed score, said where the text hand history writes the claim.

A `score_claimed` event records what the table's own sheet says a hand was worth. The audit compares every
claim with the score the rules compute; the text history says so too, on the line under the claim, so that
a reader of the history sees a disagreement where it was made:

    Score claimed for hand 1: Anna 0, Ben 2                   [12. score_claimed hand=1 points={0=0 1=2}]
      ⚠ The claim does not agree with the score the rules count for hand 1: Anna 0, Ben 3

A claim that agrees gets `✓ agrees with the score the rules count`; one about a hand not finished when the
history was written says it cannot be checked yet. The line is words only (no bracketed event), which an
import reads past (docs/hand-histories.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from events.envelope import Envelope
from projections.core import engine
from projections.core.rules import GameRules, ScoreSheet


def _names(players: Sequence[str]) -> list[str]:
    """Names as the words of a history may hold them: one line, no square brackets."""
    shown = [" ".join(str(p).split()).replace("[", "(").replace("]", ")") for p in players]
    return [f"{name} (#{seat})" if not name or shown.count(name) > 1 else name for seat, name in enumerate(shown)]


def claim_sentence(sheet: ScoreSheet, players: Sequence[str], hand: Any, claimed: Mapping[str, Any]) -> str:
    """Whether a claim of `hand` agrees with `sheet`, in one sentence."""
    names = _names(players)
    scored = sheet.hand(hand) if isinstance(hand, int) else None
    if scored is None:
        return f"Hand {hand} was not finished: the claim cannot be checked against the rules' score yet"
    computed = [int(p) for p in scored.points]
    said = ", ".join(f"{name} {computed[seat]}" for seat, name in enumerate(names))
    if all(claimed.get(str(seat)) == computed[seat] for seat in range(len(names))):
        return f"✓ agrees with the score the rules count for hand {hand}"
    return f"⚠ The claim does not agree with the score the rules count for hand {hand}: {said}"


def flag_claims(
    lines: Iterable[str], head: Mapping[str, Any], rules: GameRules[Any], envelopes: Sequence[Envelope]
) -> Iterator[str]:
    """The text history's `lines`, each claim's line followed by a line saying whether it agrees."""
    claims = {env["seq"]: env for env in envelopes if env["type"] == "score_claimed"}
    if not claims:
        yield from lines
        return
    state = engine.fold(rules, engine.start(rules, list(head["players"]), dict(head["options"])), envelopes)
    sheet = rules.score(state.game)
    for line in lines:
        yield line
        at = line.find("[")
        parts = line[at:].split(" ", 2) if at >= 0 else []
        seq = parts[0][1:-1] if parts else ""
        env = claims.get(int(seq)) if len(parts) > 1 and parts[1] == "score_claimed" and seq.isdigit() else None
        if env is not None:
            data = env["data"]
            yield "    " + claim_sentence(sheet, head["players"], data.get("hand"), data.get("points") or {})
