"""The game-agnostic driver: decide, apply and fold any game's events.

Writes go through `decide` (shape, common events, the game's `validate`,
enforcement) and then `apply`; replays only `apply` (via `fold`). The common
events of `rules/README.md` live here: `score_claimed` and `note` change no
table state, `retract` restores the state at `to_seq`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from events.envelope import Envelope, seal
from events.errors import IllegalEventError, ImpossibleEventError, InvalidEventError
from events.schema import parse_event
from projections.fastreplace import replace
from projections.rules import EMPTY, OMNISCIENT, SPECTATOR, BaseState, Event, GameRules, S, Viewpoint, seat_dict

#: Events the engine handles itself; the game handles everything else.
ENGINE_EVENTS = frozenset({"score_claimed", "note", "retract"})
#: Accepted after the game has ended.
AFTER_END = ENGINE_EVENTS


@dataclass(frozen=True, slots=True)
class Decision:
    """An event that may be appended: normalised, with its violation if any."""

    event: dict[str, Any]
    violation: dict[str, str] | None


def decide(rules: GameRules[S], state: S, raw: Any) -> Decision:
    """Check one incoming event against the state.

    Raises:
        InvalidEventError: the event is not well-formed.
        ImpossibleEventError: it cannot happen (always, whatever the enforcement).
        IllegalEventError: against a rule, under `strict` enforcement.
    """
    event = parse_event(raw, rules.events, state.seats)
    kind = event["type"]
    if kind == "score_claimed":
        if not 1 <= event["hand"] <= state.hand:
            raise ImpossibleEventError(
                f"score_claimed names hand {event['hand']}, but hands 1 to {state.hand} have begun"
                if state.hand
                else "score_claimed before any hand has begun",
                field="hand",
            )
        return Decision(event, None)
    if kind == "note":
        ref = event.get("ref")
        if ref is not None and ref > state.seq:
            raise ImpossibleEventError(f"note refers to seq {ref}, but the game is at seq {state.seq}", field="ref")
        return Decision(event, None)
    if kind == "retract":
        to_seq = event["to_seq"]
        if to_seq >= state.seq:
            raise ImpossibleEventError(
                f"retract to seq {to_seq} retracts nothing: the game is at seq {state.seq}", field="to_seq"
            )
        if to_seq < state.retract_floor:
            raise ImpossibleEventError(
                f"retract to seq {to_seq} would reach back past the retract at seq {state.retract_floor}",
                field="to_seq",
            )
        return Decision(event, None)
    if rules.is_terminal(state):
        raise ImpossibleEventError(f"the game has ended; only score_claimed, note and retract are accepted, not {kind}")
    if kind == "hand_voided" and not rules.hand_in_progress(state):
        raise ImpossibleEventError("hand_voided is accepted only while a hand is in progress")
    try:
        rules.validate(state, event)
    except IllegalEventError as breach:
        if state.options.get("enforcement") != "record":
            raise
        return Decision(event, {"rule": breach.rule, "message": breach.reason})
    return Decision(event, None)


def is_legal(rules: GameRules[S], state: S, event: Any) -> bool:
    """Would `event` be accepted now with no violation, whatever the enforcement? (`GameRules.is_legal`)

    The write path's own check (`decide`), answered as a bool: no enumeration of `legal_events`, so
    it also holds for the amounts `legal_events` only samples, and for chance events (a deal is legal
    when its cards are). An event out of shape, impossible, or against a rule is not legal.
    """
    try:
        return decide(rules, state, event).violation is None
    except (InvalidEventError, ImpossibleEventError, IllegalEventError):
        return False


def sealed(state: BaseState, decision: Decision, *, recorded_at: str, actor: str, prev_hash: str) -> Envelope:
    """The envelope of a decided event, given the state after it (its seq, hand and derived facts)."""
    return seal(
        seq=state.seq,
        hand=state.hand,
        event=decision.event,
        result=state.facts,
        violation=decision.violation,
        recorded_at=recorded_at,
        actor=actor,
        prev_hash=prev_hash,
    )


def apply(rules: GameRules[S], state: S, event: Event, seq: int) -> S:
    """Fold one (already decided) event that is not a `retract`; `seq` is its seq."""
    kind = event["type"]
    if kind in ENGINE_EVENTS:
        assert kind != "retract", "a retract is folded by fold() or restore()"
        return replace(state, seq=seq, facts=EMPTY)
    if state.seq != seq - 1:
        state = replace(state, seq=seq - 1)
    after = rules.evolve(state, event)
    assert after.seq == seq, f"{rules.kind}.evolve must advance seq to {seq}"
    if rules.is_terminal(after) and not rules.is_terminal(state):
        after = _ended(rules, after)
    return after


def _ended(rules: GameRules[S], after: S) -> S:
    """`after`, the state in which the game has just ended, with the end's facts: winner and totals."""
    sheet = rules.score(after)
    facts = dict(after.facts)
    facts["game_ended"] = True
    facts["winner"] = sheet.winner
    facts["totals"] = seat_dict(sheet.totals)
    return replace(after, facts=facts)


def restore(state_at_target: S, retract_seq: int) -> S:
    """The state after a `retract` at `retract_seq`: the state at its `to_seq`."""
    return replace(state_at_target, seq=retract_seq, retract_floor=retract_seq, facts=EMPTY)


def retract_targets(envelopes: Iterable[Mapping[str, Any]]) -> set[int]:
    """The `to_seq` of every retract in the stream: the states a fold must keep."""
    return {env["data"]["to_seq"] for env in envelopes if env["type"] == "retract"}


def walk(
    rules: GameRules[S], initial: S, envelopes: Sequence[Mapping[str, Any]]
) -> Iterator[tuple[Mapping[str, Any], S]]:
    """Each stored envelope with the state after it, in order, honouring retractions.

    The same steps as `apply` for each envelope, with the per-event work trimmed (issue 15): the game
    is asked `is_terminal` once per event (whether it had ended before the event is the answer kept
    from the event before), and the event is built from the envelope inline.
    """
    targets = retract_targets(envelopes)
    kept: dict[int, S] = {0: initial} if 0 in targets else {}
    evolve, is_terminal = rules.evolve, rules.is_terminal
    state = initial
    #: is_terminal(state), or None when not known yet
    over: bool | None = None
    for env in envelopes:
        seq = env["seq"]
        kind = env["type"]
        if kind == "retract":
            state = restore(kept[env["data"]["to_seq"]], seq)
            over = None
        elif kind in ENGINE_EVENTS:
            state = replace(state, seq=seq, facts=EMPTY)
        else:
            if state.seq != seq - 1:
                state = replace(state, seq=seq - 1)
            if over is None:
                over = is_terminal(state)
            after = evolve(state, {"type": kind, **env["data"]})
            assert after.seq == seq, f"{rules.kind}.evolve must advance seq to {seq}"
            ended = is_terminal(after)
            if ended and not over:
                after = _ended(rules, after)
            state, over = after, ended
        if seq in targets:
            kept[seq] = state
        yield env, state


def fold(rules: GameRules[S], initial: S, envelopes: Sequence[Mapping[str, Any]]) -> S:
    """The state after the stored envelopes, in order, honouring retractions."""
    last = initial
    for _, last in walk(rules, initial, envelopes):  # noqa: B007 - the loop runs for its last value
        pass
    return last


def retracted_seqs(envelopes: Iterable[Mapping[str, Any]]) -> dict[int, int]:
    """Every retracted seq, mapped to the seq of the retract that took it back."""
    out: dict[int, int] = {}
    for env in envelopes:
        if env["type"] == "retract":
            for seq in range(env["data"]["to_seq"] + 1, env["seq"]):
                out.setdefault(seq, env["seq"])
    return out


def fold_events(rules: GameRules[S], initial: S, events: Iterable[Event]) -> S:
    """Fold plain events (no envelopes), numbering them 1, 2, 3... Retracts are refused."""
    state = initial
    for seq, event in enumerate(events, start=1):
        if event["type"] == "retract":
            raise InvalidEventError("fold_events cannot fold a retract; use fold() on envelopes")
        state = apply(rules, state, event, seq)
    return state


def render_state(rules: GameRules[S], state: S, viewpoint: Viewpoint, names: Sequence[str]) -> dict[str, Any]:
    """The state document of DESIGN.md: `{game, seq, hand, phase, to_act, seats, table, hand_points, totals}`."""
    seen = rules.view(state, viewpoint)
    for seat_doc in seen.get("seats", []):
        seat_doc["name"] = names[seat_doc["seat"]] if seat_doc["seat"] < len(names) else None
    sheet = rules.score(state)
    return {
        "game": rules.kind,
        "seq": state.seq,
        "hand": state.hand,
        "viewpoint": "all" if viewpoint is OMNISCIENT else ("public" if viewpoint == SPECTATOR else viewpoint),
        **seen,
        "totals": seat_dict(sheet.totals),
        "finished": sheet.finished,
        "winner": sheet.winner,
    }
