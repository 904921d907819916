"""Replays: a hand as frames `{seq, event, state}`, one per event, to step through.

The caller picks the viewpoint (a seat, everything, or the public table), by
the rules of who may see what; each frame's event is redacted for that
viewpoint just as its state is. Each frame also says its event in words
(`text`, `projections/reading/notation.py`) and its violation's message rendered with
the players' names: the record keeps the rules' marked text.

`replay_hand` is the read of `GET /v1/games/{id}/replay` (and the CLI's `replay`), after the game's
row: the marks of the head were read with the reader's sight (one query: the hand's first and last
seq, where the hidden hands begin, every retract; `projections/reading/retracts.py`), then a start at
or before the hand and every event from there to the hand's last (two: a snapshot and the events).
Every frame a retract took back is marked from those retracts, and a viewer's frames inside a
retracted range show tables from the same walk: nothing is read again.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from events.envelope import Envelope, event_of
from events.errors import NotFoundError
from projections.core import engine, phrases
from projections.core.recorder import Live, Recorder
from projections.core.rules import OMNISCIENT, GameRules, Viewpoint
from projections.reading.notation import describe
from projections.reading.retracts import Marks, of_envelopes
from projections.reading.visibility import Sight, shown_frames


def hand_not_found(hand: int, last: int) -> NotFoundError:
    """The answer for a hand the game does not have, whose hands are 1 to `last` (0: none yet)."""
    return NotFoundError(
        f"hand {hand} is not in this game (its hands are 1 to {last})" if last else "this game has no hand yet"
    )


def replay_hand(recorder: Recorder, live: Live, sight: Sight, hand: int, viewpoint: Viewpoint) -> dict[str, Any]:
    """`{game, hand, viewpoint, units, frames}`: hand `hand` frame by frame from `viewpoint` (`viewpoint_for`),
    as the principal of `sight` may see it; `sight` was read with the hand's marks (`sight_of(..., hand=)`).

    Raises:
        NotFoundError: no event of that hand up to the head.
    """
    marks, rules, names = sight.marks, live.rules, live.game.players
    if marks.hand is None:
        raise hand_not_found(hand, live.state.hand if live.state.seq else 0)
    first, last = marks.hand
    corrected = bool(sight.corrections) and sight.hides(hand)
    start, envelopes = recorder.span(live, marks.walk_from(first, last, reaching=corrected), last)
    frames, kept = _walked(rules, start, envelopes, hand, viewpoint, names, marks, marks.targets() if corrected else ())

    def table_at(seq: int) -> dict[str, Any]:
        position = kept.get(seq)
        if position is None:  # not met on the walk (walk_from starts before every table a correction shows)
            position = recorder.fold_to(live.game, rules, seq)
        return engine.render_state(rules, position, viewpoint, names)

    frames = shown_frames(sight, hand, frames, table_at)  # a viewer never sees a live hand's retracted plays
    for frame in frames:
        if frame.get("redacted"):  # its words again, from what is left of it
            frame["text"] = describe(rules, frame["event"], frame["result"], names)
    return {
        "game": live.game.id,
        "hand": hand,
        "viewpoint": frames[0]["state"]["viewpoint"],
        "units": dict(rules.units),
        "frames": frames,
    }


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
    marks: Marks | None = None,
) -> list[dict[str, Any]]:
    """The frames of hand `hand`: every event recorded in it, with the table after it, each one a retract
    took back marked (by `marks`, the game's retracts; by default those among `envelopes`).

    Raises:
        NotFoundError: the game has no such hand.
    """
    return _walked(rules, initial, envelopes, hand, viewpoint, names, marks, ())[0]


def _walked(
    rules: GameRules[Any],
    initial: Any,
    envelopes: Sequence[Envelope],
    hand: int,
    viewpoint: Viewpoint,
    names: Sequence[str],
    marks: Marks | None,
    keep: Collection[int],
) -> tuple[list[dict[str, Any]], dict[int, Any]]:
    """`hand_frames`, and the positions at the seqs of `keep` met on the walk (the start's too)."""
    kept: dict[int, Any] = {initial.seq: initial} if initial.seq in keep else {}
    frames: list[dict[str, Any]] = []
    for env, state in engine.walk(rules, initial, envelopes):
        if env["seq"] in keep:
            kept[env["seq"]] = state
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
        frames.append(frame)
    if not frames:
        raise hand_not_found(hand, envelopes[-1]["hand"] if envelopes else 0)
    (of_envelopes(envelopes) if marks is None else marks).mark(frames)
    return frames, kept
