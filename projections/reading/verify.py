"""Verification: re-walk a game's hash chain and re-run its rules.

What someone holding the database could do (edit, delete, reorder or insert
a row, with the triggers dropped) breaks the chain at the first bad seq: a
hash that is not the hash of its row, a `prev_hash` that is not the hash of
the row before, or a gap in the seqs. The rules are run again on every event:
an event that its state refuses, or a stored `result` or `violation` that the
rules would not give, is a problem too.

Records outlive the code: the hash is checked over each envelope as stored, and the event is then
read in today's shape (`events.upcast`: the upcasts from the version its envelope records) before the
rules see it; a stored result is compared on the fields its version had.

The rules' prose is not re-checked word for word: a violation is compared by
its rule, and a result by its facts without their sentences (`PROSE_FACTS`).
The wording of reasons changes between versions (seats written as markers,
suits in words), and a record stored before must still verify; the stored
words themselves are covered by the hash chain like every other byte.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from events.codec import envelope_hash, genesis_hash
from events.common import DEAL_EVENTS
from events.envelope import Envelope
from events.errors import TablebookError
from events.store import GameRecord
from events.upcast import upcast
from projections.core import engine, phrases
from projections.core.registry import rules_for
from projections.core.rules import GameRules
from projections.fairness import fairdeal

#: result facts that are sentences for people, not facts a score depends on
PROSE_FACTS = frozenset({"audit_notes"})


def _rule_of(violation: Any) -> Any:
    return violation.get("rule") if isinstance(violation, Mapping) else violation


def _facts(result: Any, newer: frozenset[str] = frozenset()) -> Any:
    """The facts of a result that are compared: not its sentences, nor the fields added since the version
    the event was stored in (`newer`)."""
    if not isinstance(result, Mapping):
        return result
    return {key: value for key, value in result.items() if key not in PROSE_FACTS and key not in newer}


@dataclass
class Verification:
    """The answer of `verify`: `{ok, events, head_hash, problems}`."""

    events: int = 0
    head_hash: str = ""
    problems: list[dict[str, Any]] = field(default_factory=list)
    state: Any = None
    #: a server-dealt game's deal check (`projections/fairness/fairdeal.py`): each hand's commitment and outcome
    deals: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def first_bad_seq(self) -> int | None:
        return self.problems[0]["seq"] if self.problems else None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "ok": self.ok,
            "events": self.events,
            "head_hash": self.head_hash,
            "first_bad_seq": self.first_bad_seq,
            "problems": self.problems,
        }
        if self.deals is not None:
            out["deals"] = self.deals
        return out


def verify_stream(
    kind: str,
    players: list[str],
    options: Mapping[str, Any],
    created_at: str,
    envelopes: Iterable[Envelope],
    *,
    expected_head: tuple[int, str] | None = None,
) -> Verification:
    """Check a stream of envelopes from its genesis; never raises for bad data."""
    report = Verification()
    rules: GameRules[Any] = rules_for(kind)
    state = engine.start(rules, players, options)
    prev = genesis_hash(kind, len(players), options, created_at)
    listed = list(envelopes)
    targets = engine.retract_targets(e for e in listed if isinstance(e.get("data"), dict) and "to_seq" in e["data"])
    replay = engine.Replay(rules, state, stored=True, keep=targets)
    schemas = {**rules.events, **DEAL_EVENTS}
    expected_seq = 1
    broken = False

    def problem(seq: int, kind_: str, message: str) -> None:
        report.problems.append({"seq": seq, "problem": kind_, "message": message})

    for env in listed:
        seq = env.get("seq")
        report.events += 1
        if seq != expected_seq:
            problem(
                expected_seq,
                "missing" if isinstance(seq, int) and seq > expected_seq else "order",
                f"expected seq {expected_seq}, found seq {seq}: an event was deleted or reordered",
            )
            broken = True
            break
        if env.get("prev_hash") != prev:
            problem(
                seq,
                "chain",
                f"seq {seq}: prev_hash does not match the hash of seq {seq - 1}"
                if seq > 1
                else "seq 1: prev_hash does not match the game's genesis record",
            )
            broken = True
        if envelope_hash(env) != env.get("hash"):
            problem(seq, "hash", f"seq {seq}: the stored hash is not the hash of the row: it was edited")
            broken = True
        if broken:
            break
        prev = env["hash"]
        expected_seq += 1
        try:
            read = upcast(env, schemas)
            decision = replay.push(read.event)
            state = replay.position
        except TablebookError as refused:
            problem(
                seq, "rules", f"seq {seq}: the rules refuse this event now: {phrases.render(refused.message, players)}"
            )
            break
        except (KeyError, TypeError, ValueError, AssertionError) as crash:
            problem(seq, "rules", f"seq {seq}: the event cannot be replayed: {crash!r}")
            break
        if _rule_of(decision.violation) != _rule_of(env.get("violation")):
            problem(
                seq,
                "violation",
                f"seq {seq}: stored violation {env.get('violation')} but the rules give {decision.violation}",
            )
        if _facts(state.facts, read.new_result) != _facts(env.get("result"), read.new_result):
            problem(
                seq, "result", f"seq {seq}: stored result {env.get('result')} but the rules derive {dict(state.facts)}"
            )
        if state.hand != env.get("hand"):
            problem(seq, "hand", f"seq {seq}: stored hand {env.get('hand')} but the rules give {state.hand}")
    report.head_hash = prev
    report.state = state
    if expected_head is not None and not report.problems:
        head_seq, head_hash = expected_head
        if head_seq > report.events:
            problem(
                report.events + 1,
                "missing",
                f"the game's head is seq {head_seq} but only {report.events} events are stored",
            )
        elif head_seq < report.events:
            problem(
                head_seq + 1,
                "extra",
                f"seq {head_seq + 1} is stored beyond the game's recorded head (seq {head_seq}): a row was added",
            )
        elif head_hash != prev:
            problem(head_seq, "chain", "the game's recorded head hash does not match its last event")
    if options.get("dealing") == "server":
        check_deals(report, kind, players, options, listed)
    return report


def check_deals(
    report: Verification, kind: str, players: list[str], options: Mapping[str, Any], listed: list[Envelope]
) -> None:
    """A server-dealt game's deals checked (`projections/fairness/fairdeal.py`, the standalone checker): each revealed
    hand's commitment, deck and dealt cards; its problems join the report's, in seq order."""
    header = {"game": kind, "seats": len(players), "options": dict(options)}
    try:
        deals = fairdeal.verify_events(header, listed)
    except (KeyError, TypeError, ValueError, AttributeError) as crash:
        report.problems.append({"seq": 0, "problem": "deal", "message": f"the deals cannot be checked: {crash!r}"})
        return
    hands = deals.to_dict()
    report.deals = {"ok": deals.ok, "algorithm": hands["algorithm"], "hands": hands["hands"]}
    for found in deals.problems:
        details = {k: v for k, v in found.items() if k not in ("seq", "problem")}
        report.problems.append(
            {"seq": found["seq"], "problem": "deal", "check": found.get("problem", "order"), **details}
        )
    report.problems.sort(key=lambda p: p["seq"] if isinstance(p.get("seq"), int) else 0)


def verify_game(game: GameRecord, envelopes: Iterable[Envelope]) -> Verification:
    """Verify a stored game against its registry row."""
    return verify_stream(
        game.kind,
        list(game.players),
        game.options,
        game.created_at,
        envelopes,
        expected_head=(game.seq, game.head_hash),
    )
