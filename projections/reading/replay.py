"""Replays: a hand as frames `{seq, event, state}`, one per event, to step through.

The caller picks the viewpoint (a seat, everything, or the public table), by
the rules of who may see what; each frame's event is redacted for that
viewpoint just as its state is. Each frame also says its event in words
(`text`, `projections/reading/notation.py`) and its violation's message rendered with
the players' names: the record keeps the rules' marked text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from events.envelope import Envelope, event_of
from events.errors import NotFoundError
from projections.core import engine, phrases
from projections.core.rules import OMNISCIENT, GameRules, Viewpoint
from projections.reading.notation import describe


def shown_event(rules: GameRules[Any], env: Mapping[str, Any], viewpoint: Viewpoint) -> dict[str, Any]:
    """The envelope's event as the viewpoint saw it: `{type, ...fields}`."""
    event = event_of(env)
    return dict(event if viewpoint is OMNISCIENT else rules.redact_event(event, viewpoint))


def shown_violation(violation: Mapping[str, Any], names: Sequence[str]) -> dict[str, Any]:
    """A stored violation for people: its message (marked, as the rules wrote it) rendered with the names,
    and its template and fields beside it, as a score line's reason."""
    explained = phrases.explained(violation["message"], names)
    return {
        **violation,
        "message": explained["reason"],
        "template": explained["template"],
        "fields": explained["fields"],
    }


def hand_frames(
    rules: GameRules[Any],
    initial: Any,
    envelopes: Sequence[Envelope],
    hand: int,
    viewpoint: Viewpoint,
    names: Sequence[str],
) -> list[dict[str, Any]]:
    """The frames of hand `hand`: every event recorded in it, with the table after it.

    Raises:
        NotFoundError: the game has no such hand.
    """
    retracted = engine.retracted_seqs(envelopes)
    frames: list[dict[str, Any]] = []
    for env, state in engine.walk(rules, initial, envelopes):
        if env["hand"] != hand:
            continue  # not break: a retract may bring play back into an earlier hand
        event = shown_event(rules, env, viewpoint)
        frame: dict[str, Any] = {
            "seq": env["seq"],
            "event": event,
            "result": env["result"],
            "text": describe(rules, event, env["result"], names),
            "actor": env["actor"],
            "recorded_at": env["recorded_at"],
            "state": engine.render_state(rules, state, viewpoint, names),
        }
        if "violation" in env:
            frame["violation"] = shown_violation(env["violation"], names)
        if env["seq"] in retracted:
            frame["retracted_by"] = retracted[env["seq"]]
        frames.append(frame)
    if not frames:
        last = envelopes[-1]["hand"] if envelopes else 0
        raise NotFoundError(
            f"hand {hand} is not in this game (its hands are 1 to {last})" if last else "this game has no hand yet"
        )
    return frames
