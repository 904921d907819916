"""Re-scoring a record: its score under other options (a club's house rules), from the record alone.

Clubs argue about house rules (a gin undercut bonus of 10 or 20, sweeps counted or not); a
re-score answers "what would this game have scored under the other rules" from the record alone.
The record is only read: no event, no snapshot, no registry row is written, so its head hash is
the same after any re-score.

How: the recorded events are replayed through the engine (`engine.decide`, then
`engine.apply`, as an append would take them), from a game started with the new options. That is
the one place of the rules, for both kinds of option a game declares (`OptionSpec.scoring_only`):

- *scoring* options (only the points change): every event is accepted again and every hand is
  scored again; the answer lists the score lines that changed, by how much and why, hand by hand.
  A scoring option can still move the end of a game (a gin bonus that takes a seat past 100 a hand
  earlier): the next event is then refused ("the game has ended") and the answer says so, as for a
  play option.
- *play* options (what is legal, or how play proceeds, changes): the events are replayed until the
  first one the new rules refuse; the answer says "diverges at seq N: rule R" and gives the score
  up to there, beside the recorded score at the same seq. Under `record` enforcement an event that
  the new rules call illegal is not refused (it would have been stored with a violation): it is
  listed in `violations` and the replay goes on.

Readings: a score line of one hand is matched with the other sheet's by its seat and the seqs it
names (a line keeps its events when only its points or its rule change); options a rule profile
names replace the game's, but never the seating options (`OptionSpec.seating`: who dealt first),
which are the record's. The rule of a divergence is the refused event's rule when it is illegal,
else the rule the responsible option governs (`OptionSpec.rule`), else `<game prefix>.<option>`.

Pure: a record in (its players, options, envelopes), a `Rescore` out; nothing here knows a reader or
the store. The use cases over the store (a game of a club, a season of games, what a viewer may be
shown of a live hand) are `api/service/rescore.py`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from events.envelope import event_of
from events.errors import IllegalEventError, InvalidEventError, TablebookError
from projections.core import engine, phrases
from projections.core.registry import rules_for
from projections.core.rules import GameRules, ScoreLine, ScoreSheet, seat_dict

Mode = Literal["scoring", "play"]


# --------------------------------------------------------------------------- options


def filled(rules: GameRules[Any], players: Sequence[str], options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The options with every default filled in: a record made before an option existed reads as its default.

    Raises:
        UnknownGameError: an option the game does not take, or a value out of range.
    """
    return rules.options_for(list(players), options)


def changed_options(
    rules: GameRules[Any], before: Mapping[str, Any], after: Mapping[str, Any]
) -> dict[str, tuple[Any, Any]]:
    """`{option: (recorded value, new value)}` for every option whose value differs, in declaration order."""
    return {name: (before.get(name), after.get(name)) for name in rules.options if before.get(name) != after.get(name)}


def mode_of(rules: GameRules[Any], changed: Iterable[str]) -> Mode:
    """`scoring` when every changed option only changes scoring (or none changed), else `play`."""
    return "scoring" if all(rules.options[name].scoring_only for name in changed) else "play"


def prefix_of(rules: GameRules[Any]) -> str:
    """The prefix of the game's rule ids (`gin`, `half`), read from its options' rules; else its kind."""
    for spec in rules.options.values():
        if spec.rule:
            return spec.rule.split(".", 1)[0]
    return rules.kind


# --------------------------------------------------------------------------- replaying


@dataclass(frozen=True, slots=True)
class Replayed:
    """Events replayed under some options: where the replay stopped and why."""

    #: the position after the last event accepted
    position: engine.Position[Any]
    #: the error of the first event refused, and that event's envelope (None: every event accepted)
    refused: TablebookError | None = None
    at: Mapping[str, Any] | None = None
    #: `(seq, rule, message)` of each event accepted with a violation (`record` enforcement)
    violations: tuple[tuple[int, str, str], ...] = ()


def replay(
    rules: GameRules[Any], players: Sequence[str], options: Mapping[str, Any], envelopes: Sequence[Mapping[str, Any]]
) -> Replayed:
    """The recorded events decided and applied again from a game started with `options`, until the first
    event refused; retracts restore the state at their `to_seq` as the write path does."""
    checked = engine.Replay(rules, engine.start(rules, list(players), options), keep=engine.retract_targets(envelopes))
    violations: list[tuple[int, str, str]] = []
    for env in envelopes:
        try:
            decision = checked.push(event_of(env))
        except TablebookError as refused:
            return Replayed(checked.position, refused, env, tuple(violations))
        if decision.violation is not None:
            violations.append((env["seq"], decision.violation["rule"], decision.violation["message"]))
    return Replayed(checked.position, None, None, tuple(violations))


def recorded_at(
    rules: GameRules[Any], players: Sequence[str], options: Mapping[str, Any], envelopes: Sequence[Mapping[str, Any]]
) -> engine.Position[Any]:
    """The record's own position after `envelopes` (the read path: `engine.fold`, no rule re-checked)."""
    return engine.fold(rules, engine.start(rules, list(players), options), envelopes)


# --------------------------------------------------------------------------- the answer


@dataclass(frozen=True, slots=True)
class Divergence:
    """The first recorded event the new rules refuse."""

    seq: int
    hand: int
    rule: str
    #: `illegal`, `impossible` or `invalid`
    code: str
    #: the refusal's message, with markers (`projections/core/phrases.py`)
    message: str
    #: the changed options it is put down to
    options: tuple[str, ...]

    def text(self) -> str:
        """`diverges at seq N: rule R`."""
        return f"diverges at seq {self.seq}: rule {self.rule}"

    def to_dict(self, names: Sequence[str]) -> dict[str, Any]:
        explained = phrases.explained(self.message, names)
        return {
            "seq": self.seq,
            "hand": self.hand,
            "rule": self.rule,
            "code": self.code,
            "options": list(self.options),
            "text": self.text(),
            "message": explained["reason"],
            "template": explained["template"],
            "fields": explained["fields"],
        }


@dataclass(frozen=True, slots=True)
class LineChange:
    """One score line that differs between the recorded and the re-scored sheet (None: not in that sheet)."""

    hand: int
    seat: int
    before: ScoreLine | None
    after: ScoreLine | None

    @property
    def change(self) -> int:
        """By how much the seat's points moved on this line."""
        return (self.after.points if self.after else 0) - (self.before.points if self.before else 0)

    @property
    def rule(self) -> str:
        line = self.after or self.before
        assert line is not None
        return line.rule

    def to_dict(self, names: Sequence[str]) -> dict[str, Any]:
        return {
            "hand": self.hand,
            "seat": self.seat,
            "rule": self.rule,
            "change": self.change,
            "before": None if self.before is None else self.before.to_dict(names),
            "after": None if self.after is None else self.after.to_dict(names),
        }


def line_changes(before: ScoreSheet, after: ScoreSheet) -> list[LineChange]:
    """Every line of every hand that is not the same in both sheets (points, rule or reason), in hand order.

    Lines are matched by seat and the seqs they name (the n-th such line of a hand with the n-th): a
    re-score keeps a line's events when its points or its rule change (a Seven and a Half stake paid
    double instead of single, a gin's deadwood not counted).
    """
    first = {h.hand: h for h in before.hands}
    second = {h.hand: h for h in after.hands}
    out: list[LineChange] = []
    for number in sorted(first.keys() | second.keys()):
        old = _keyed(first[number].lines if number in first else ())
        new = _keyed(second[number].lines if number in second else ())
        for key in [*old, *(k for k in new if k not in old)]:
            was, now = old.get(key), new.get(key)
            if was is None or now is None or _differ(was, now):
                out.append(LineChange(number, key[0], was, now))
    return out


def _differ(one: ScoreLine, other: ScoreLine) -> bool:
    return (one.points, one.rule, one.reason) != (other.points, other.rule, other.reason)


def _keyed(lines: Iterable[ScoreLine]) -> dict[tuple[int, tuple[int, ...], int], ScoreLine]:
    """A hand's lines by (seat, events, n): the n-th line of that seat naming those events."""
    seen: dict[tuple[int, tuple[int, ...]], int] = {}
    out: dict[tuple[int, tuple[int, ...], int], ScoreLine] = {}
    for line in lines:
        base = (line.seat, line.events)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out[(line.seat, line.events, n)] = line
    return out


@dataclass(frozen=True, slots=True)
class Rescore:
    """A recorded game scored again under other options: what changed, and where the rules part ways."""

    game_id: str
    kind: str
    players: tuple[str, ...]
    #: the options the game was recorded with, defaults filled in, and those of the re-score
    recorded_options: Mapping[str, Any]
    options: Mapping[str, Any]
    changed: Mapping[str, tuple[Any, Any]]
    mode: Mode
    #: the seq of the last recorded event read (the head; for a viewer, the last before the live hand) and
    #: the head's hash (the record is unchanged: the same after the re-score), None for a reader not shown
    #: the live hand (a hash over hidden cards would let one test guesses of them)
    head: int
    head_hash: str | None
    #: the last seq replayed under the new options (the head, or the seq before the divergence)
    upto: int
    #: the record's score at `upto`, and the re-score's
    recorded: ScoreSheet
    rescored: ScoreSheet
    divergence: Divergence | None = None
    violations: tuple[tuple[int, str, str], ...] = ()
    #: the rule profile asked for, if any
    profile: str | None = None
    lines: tuple[LineChange, ...] = field(default=())

    def difference(self) -> tuple[int, ...]:
        """The re-scored totals minus the recorded ones, seat by seat (both at `upto`)."""
        return tuple(b - a for a, b in zip(self.recorded.totals, self.rescored.totals, strict=True))

    def summary(self) -> str:
        """One sentence, with markers: what the re-score found."""
        shown = ", ".join(f"{name} {_value(new)}" for name, (_, new) in self.changed.items()) or "the same options"
        how = "scored again" if self.mode == "scoring" else "replayed"
        if self.divergence is not None:
            where = f"; {self.divergence.text()}, the score up to seq {self.upto} compared"
        else:
            where = ""
        moved = [f"{phrases.seat(s)} {d:+d}" for s, d in enumerate(self.difference()) if d]
        totals = ("totals move: " + ", ".join(moved)) if moved else "totals unchanged"
        changed = len(self.lines)
        hands = len({c.hand for c in self.lines})
        lines = (
            f"{changed} line{'s' * (changed != 1)} in {hands} hand{'s' * (hands != 1)} changed"
            if changed
            else "no line changed"
        )
        winner = self._winner_text()
        return f"{how} under {shown}{where}: {lines}; {totals}{winner}"

    def _winner_text(self) -> str:
        before, after = self.recorded.winner, self.rescored.winner
        if before == after:
            return "" if before is None else f"; {phrases.seat(before)} still wins"
        if after is None:
            return "; no winner yet" if not self.rescored.finished else "; no winner"
        return f"; {phrases.seat(after)} wins instead"

    def to_dict(self) -> dict[str, Any]:
        """The answer of `POST /v1/games/{id}/rescore`: every text rendered with the players' names (and
        its template and fields), every value by seat."""
        names = list(self.players)
        before, after = {h.hand: h for h in self.recorded.hands}, {h.hand: h for h in self.rescored.hands}
        hands = []
        for number in sorted(before.keys() | after.keys()):
            old, new = before.get(number), after.get(number)
            hands.append(
                {
                    "hand": number,
                    "recorded": None if old is None else seat_dict(old.points),
                    "rescored": None if new is None else seat_dict(new.points),
                    "changed": old is None or new is None or old.points != new.points,
                }
            )
        summary = phrases.explained(self.summary(), names)
        return {
            "game": self.game_id,
            "kind": self.kind,
            "players": names,
            "profile": self.profile,
            "mode": self.mode,
            "options": {
                "recorded": dict(self.recorded_options),
                "rescored": dict(self.options),
                "changed": {
                    name: {"from": old, "to": new, "kind": self.option_kind(name)}
                    for name, (old, new) in self.changed.items()
                },
            },
            "head": {"seq": self.head, "hash": self.head_hash},
            "upto": self.upto,
            "divergence": None if self.divergence is None else self.divergence.to_dict(names),
            "violations": [
                {"seq": seq, "rule": rule, **_message(message, names)} for seq, rule, message in self.violations
            ],
            "totals": {
                "recorded": seat_dict(self.recorded.totals),
                "rescored": seat_dict(self.rescored.totals),
                "difference": seat_dict(self.difference()),
            },
            "winner": {"recorded": self.recorded.winner, "rescored": self.rescored.winner},
            "finished": {"recorded": self.recorded.finished, "rescored": self.rescored.finished},
            "hands": hands,
            "lines": [change.to_dict(names) for change in self.lines],
            "summary": summary["reason"],
            "recorded": self.recorded.to_dict(names),
            "rescored": self.rescored.to_dict(names),
        }

    def option_kind(self, name: str) -> str:
        """`scoring` or `play`: the kind the game's declaration gives the option `name` (`OptionSpec.kind`)."""
        return rules_for(self.kind).options[name].kind


def _value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _message(text: str, names: Sequence[str]) -> dict[str, Any]:
    explained = phrases.explained(text, names)
    return {"message": explained["reason"], "template": explained["template"], "fields": explained["fields"]}


# --------------------------------------------------------------------------- the use case


def rescore_record(
    rules: GameRules[Any],
    *,
    game_id: str,
    players: Sequence[str],
    recorded_options: Mapping[str, Any],
    options: Mapping[str, Any],
    envelopes: Sequence[Mapping[str, Any]],
    head_hash: str | None,
    profile: str | None = None,
) -> Rescore:
    """A record (its players, options as stored, envelopes up to its head) scored again under `options`
    (complete: every option named, `filled`). Pure: reads nothing, writes nothing."""
    before = filled(rules, players, recorded_options)
    changed = changed_options(rules, before, options)
    mode = mode_of(rules, changed)
    replayed = replay(rules, players, options, envelopes)
    head = envelopes[-1]["seq"] if envelopes else 0
    divergence = None
    if replayed.refused is None:
        upto = head
        recorded = recorded_at(rules, players, before, envelopes)
    else:
        assert replayed.at is not None
        upto = replayed.position.seq
        recorded = recorded_at(rules, players, before, [e for e in envelopes if e["seq"] <= upto])
        divergence = _divergence(rules, players, before, changed, envelopes, replayed)
    old, new = rules.score(recorded.game), rules.score(replayed.position.game)
    return Rescore(
        game_id=game_id,
        kind=rules.kind,
        players=tuple(players),
        recorded_options=before,
        options=dict(options),
        changed=changed,
        mode=mode,
        head=head,
        head_hash=head_hash,
        upto=upto,
        recorded=old,
        rescored=new,
        divergence=divergence,
        violations=replayed.violations,
        profile=profile,
        lines=tuple(line_changes(old, new)),
    )


def _divergence(
    rules: GameRules[Any],
    players: Sequence[str],
    base: Mapping[str, Any],
    changed: Mapping[str, tuple[Any, Any]],
    envelopes: Sequence[Mapping[str, Any]],
    replayed: Replayed,
) -> Divergence:
    """The refused event, with the rule it breaks and the changed options it is put down to.

    An illegal event names its rule. Anything else (an event out of turn once the house rule moved the
    turn, an event after a game the new scoring ended) is put down to the changed options that, changed
    alone, are refused at the same seq; its rule is theirs (`OptionSpec.rule`).
    """
    refused, at = replayed.refused, replayed.at
    assert refused is not None and at is not None
    seq = at["seq"]
    names = tuple(changed)
    if isinstance(refused, IllegalEventError):
        blamed = tuple(n for n in names if rules.options[n].rule == refused.rule) or names
        return Divergence(seq, at["hand"], refused.rule, refused.code, refused.reason, blamed)
    if len(names) > 1:
        alone = tuple(
            n for n in names if replay(rules, players, {**base, n: changed[n][1]}, envelopes).position.seq == seq - 1
        )
        names = alone or names
    rule = next((rules.options[n].rule for n in names if rules.options[n].rule), "")
    if not rule:
        rule = f"{prefix_of(rules)}.{names[0]}" if names else f"{prefix_of(rules)}.{refused.code}"
    return Divergence(seq, at["hand"], rule, refused.code, refused.message, names)


def options_under(
    rules: GameRules[Any],
    players: Sequence[str],
    recorded: Mapping[str, Any],
    *,
    profile: Mapping[str, Any] | None = None,
    options: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The options of a re-score: the recorded ones, or a profile's for this game (the seating options kept
    from the record, every option the profile leaves out at its default), then `options` on top.

    Raises:
        InvalidEventError: `options` names a seating option (who sits where is the record's).
        UnknownGameError: an option the game does not take, or a value out of range.
    """
    own = filled(rules, players, recorded)
    base = dict(own)
    if profile is not None:
        base = {name: value for name, value in own.items() if rules.options[name].seating}
        base.update(profile)
    given = dict(options or {})
    for name, value in given.items():
        spec = rules.options.get(name)
        if spec is not None and spec.seating and value != own[name]:
            raise InvalidEventError(
                f"option {name!r} says who sits where or deals first: a re-score keeps the record's",
                field=f"options.{name}",
            )
    return filled(rules, players, {**base, **given})
