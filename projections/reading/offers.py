"""What may be appended next to a game: the table pad's offer (`GET /v1/games/{id}/next`).

A scorer at the table taps what happens; the page must offer only what the record would take, so
the offer is worked out from the rules and every event in it has been through `engine.decide`,
exactly as `POST /v1/games/{id}/events` would decide it:

- `decisions`: events ready to send, each accepted with no violation (normalised as the write path
  stores them). Every game's `legal_events`, completed by the game where it lists less than
  `validate` accepts and put in the order to offer (`GameRules.complete_offers`: a defender's every
  lay-out with every set of lay-offs, best first), and the chance events with nothing left to
  choose (a last draw of the face-up trump card).
- `ranges`: an event with an integer `amount` (a stake, a split, a bid) is offered once per choice
  of its other fields, with the smallest amount as the example and the bounds `min`, `max`: every
  value between is accepted (`legal_events` only samples a wide table's stakes).
- `reveal`: the chance event that may come (a deal, a draw from the stock, a hit, the cut), with
  what the scorer must enter (`fields`: how many cards, per seat) and the cards not yet seen.
- `flagged` (under `record` enforcement): the plays that would be stored with a violation (the game's
  `GameRules.disputed` and `disputed_chances` name the candidates), each with the rule it breaks and
  the reason in words; a stake outside the limits as a range.
- `common`: the events every game takes (`retract` with its bounds, `score_claimed`, `note`,
  `hand_voided` while a hand is in progress).

Visibility: the offer is computed on the true state and then shown from the reader's viewpoint, which
the use case decides (`api/service/reading.py`, by `projections/reading/visibility.py`): a reader who
may not see a seat's private cards gets none of that seat's decisions (which cards it may play,
whether it may knock or split, tell what it holds: the seat is listed in `withheld`), no event naming
a card hidden from it, examples of chance events with `"??"` for their cards, and an unseen list that
holds every card it does not see (a seat's hidden hand is not told apart from the stock). A
seat-scoped reader gets its own decisions.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import orjson

from events.cards import sorted_cards
from events.errors import TablebookError
from events.schema import json_schema
from projections.core import dealing, engine, phrases
from projections.core.rules import CHANCE, HIDDEN, OMNISCIENT, SPECTATOR, Chance, Event, GameRules, Viewpoint

#: the integer field an event's ranges are over
AMOUNT = "amount"


def offer(
    rules: GameRules[Any],
    position: engine.Position[Any],
    viewpoint: Viewpoint = OMNISCIENT,
    names: Sequence[str] = (),
) -> dict[str, Any]:
    """The offer at `position`, shown from `viewpoint` (module docstring): `{seq, hand, phase, viewpoint,
    to_act, chance, finished, enforcement, decisions, ranges, reveal, flagged, withheld, common}`."""
    state = position.game
    record = state.options.get("enforcement") == "record"
    made = _Offer(rules, position, record)
    made.collect()
    shown = _Sight(rules, state, viewpoint)
    to_act = rules.to_act(state)
    return {
        "seq": position.seq,
        "hand": state.hand,
        "phase": getattr(state, "phase", None),
        "viewpoint": _viewpoint_name(viewpoint),
        "to_act": [] if isinstance(to_act, Chance) else list(to_act),
        "chance": to_act is CHANCE,
        "finished": rules.is_terminal(state),
        "enforcement": state.options.get("enforcement", "strict"),
        "decisions": [e for e in made.decisions if shown.sees(e)],
        "ranges": [r for r in made.ranges if shown.sees(r["event"])],
        "reveal": made.reveal(shown),
        "flagged": [_named(f, names, shown) for f in made.flagged if shown.sees(f["event"])],
        "withheld": sorted(shown.withheld),
        "common": common_events(rules, position),
    }


def _viewpoint_name(viewpoint: Viewpoint) -> Any:
    """As the state document names it (`engine.render_state`)."""
    return "all" if viewpoint is OMNISCIENT else ("public" if viewpoint == SPECTATOR else viewpoint)


def _named(flag: dict[str, Any], names: Sequence[str], shown: _Sight) -> dict[str, Any]:
    """A flagged play with its reason in words (the players' names, card glyphs) and its template; a
    flagged chance event (`reveal`) with its example cards as the viewpoint may see them."""
    out = {k: v for k, v in flag.items() if k != "message"}
    if flag.get("reveal"):
        out["event"] = shown.example(shown.rules, flag["event"])
    out.update(phrases.explained(flag["message"], names))
    return out


# --------------------------------------------------------------------------- what decide says


def key_of(event: Mapping[str, Any]) -> bytes:
    """One event's identity for de-duplication: its canonical JSON."""
    return orjson.dumps(event, option=orjson.OPT_SORT_KEYS)


def decided(rules: GameRules[Any], position: engine.Position[Any], raw: Mapping[str, Any]) -> engine.Decision | None:
    """`engine.decide`'s answer, or None when the event is refused (out of shape, impossible, illegal)."""
    try:
        return engine.decide(rules, position, dict(raw))
    except TablebookError:
        return None


def _cards_in(value: Any) -> Iterator[str]:
    """Every string inside a field's value (a card, lists of cards, objects of them: lay-offs)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _cards_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _cards_in(item)


def cards_of(rules: GameRules[Any], event: Mapping[str, Any]) -> set[str]:
    """The cards an event names (its card fields: `GameRules.fields`)."""
    return {c for f in rules.card_fields(event["type"]) if f in event for c in _cards_in(event[f])}


class _Offer:
    """The offer on the true state, before any viewpoint: built by `collect`."""

    def __init__(self, rules: GameRules[Any], position: engine.Position[Any], record: bool) -> None:
        self.rules, self.position, self.record = rules, position, record
        self.state = position.game
        self.decisions: list[dict[str, Any]] = []
        self.ranges: list[dict[str, Any]] = []
        self.flagged: list[dict[str, Any]] = []
        self.chances: list[dict[str, Any]] = []
        self._seen: set[bytes] = set()

    def collect(self) -> None:
        """Decide every candidate once: clean ones are decisions (amounts grouped into ranges), those
        with a violation flagged (under `record`), the chance events reveals (or decisions when forced)."""
        if self.rules.is_terminal(self.state):
            return
        amounts: dict[bytes, list[engine.Decision]] = {}
        for raw in candidates(self.rules, self.state, record=self.record):
            decision = self._decide(raw)
            if decision is None:
                continue
            event = decision.event
            if isinstance(event.get(AMOUNT), int):
                amounts.setdefault(key_of({k: v for k, v in event.items() if k != AMOUNT}), []).append(decision)
            elif decision.violation is not None:
                self.flagged.append({"event": event, **decision.violation})
            else:
                self.decisions.append(event)
        for group in amounts.values():
            self._range(group)
        self._chance()

    def _decide(self, raw: Mapping[str, Any]) -> engine.Decision | None:
        decision = decided(self.rules, self.position, raw)
        if decision is None:
            return None
        key = key_of(decision.event)
        if key in self._seen:
            return None
        self._seen.add(key)
        return decision

    def _range(self, group: list[engine.Decision]) -> None:
        """One range of amounts (the offered ones are samples that include both bounds), and under
        `record` the amounts beyond it (or every amount, when none is legal) that would be stored with
        a violation, as ranges of one rule each."""
        clean = [d.event for d in group if d.violation is None]
        template = (clean or [d.event for d in group])[0]
        if clean:
            low = min(e[AMOUNT] for e in clean)
            high = max(e[AMOUNT] for e in clean)
            example = next(e for e in clean if e[AMOUNT] == low)
            self.ranges.append({"event": example, "field": AMOUNT, "min": low, "max": high})
        if not self.record:
            return
        floor, ceiling = amount_bounds(self.rules, template["type"])
        spans = [(floor, low - 1, low), (high + 1, ceiling, high)] if clean else [(floor, ceiling, template[AMOUNT])]
        for a, b, near in spans:
            if a <= b:
                self.flagged.extend(self._flagged_spans(template, a, b, near))

    def _violation(self, template: Mapping[str, Any], amount: int) -> tuple[dict[str, Any], dict[str, str]] | None:
        decision = decided(self.rules, self.position, {**template, AMOUNT: amount})
        if decision is None or decision.violation is None:
            return None
        return decision.event, decision.violation

    def _flagged_spans(self, template: Mapping[str, Any], a: int, b: int, near: int) -> list[dict[str, Any]]:
        """The amounts from `a` to `b` stored with a violation, as spans of one rule each (found by bisection
        where the rule changes: the rules' bounds are thresholds), each with its example amount the one
        nearest `near` (the legal range's bound beside it)."""
        first, last = self._violation(template, a), self._violation(template, b)
        rule_a = first[1]["rule"] if first else None
        rule_b = last[1]["rule"] if last else None
        if rule_a == rule_b:
            if first is None or last is None:
                return []
            shown = self._violation(template, min(max(near, a), b)) or first
            return [{"event": shown[0], **shown[1], "field": AMOUNT, "min": a, "max": b}]
        lo, hi = a, b  # rule(lo) == rule_a != rule(hi)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            found = self._violation(template, mid)
            if (found[1]["rule"] if found else None) == rule_a:
                lo = mid
            else:
                hi = mid
        return self._flagged_spans(template, a, lo, near) + self._flagged_spans(template, hi, b, near)

    def _chance(self) -> None:
        """The chance events that may come: forced ones (every card already known) are decisions; in a
        server-dealt game every one is a decision, sent without its cards (the server deals them)."""
        if dealing.is_server_dealt(self.state.options):
            self.decisions.extend(dealing.server_chance_events(self.rules, self.state))
            return
        unseen = set(unseen_cards(self.rules, self.state, OMNISCIENT))
        rng = random.Random(self.position.seq)
        for raw in [*self.rules.chance_events(self.state, rng), *disputed_chances(self.rules, self.state, unseen)]:
            decision = self._decide(raw)
            if decision is None:
                continue
            event = decision.event
            named = cards_of(self.rules, event)
            if decision.violation is not None:
                self.flagged.append(
                    {"event": event, **decision.violation, "reveal": True, "entry": entry_fields(self.rules, event)}
                )
            elif named and not named & unseen:
                self.decisions.append(event)
            else:
                self.chances.append(event)

    def reveal(self, shown: _Sight) -> dict[str, Any] | None:
        """`{type, fields, unseen, event, events}` of the chance events, as the viewpoint may see them."""
        if not self.chances:
            return None
        examples = [shown.example(self.rules, e) for e in self.chances]
        first = self.chances[0]
        unseen = unseen_cards(self.rules, self.state, shown.viewpoint)
        # a reader who may not see some cards gets no list: "every card but those you have seen" is no
        # secret, but no answer to such a reader names a hidden card at all, not even among the stock's
        listed = unseen if shown.everything or not shown.hidden else []
        return {
            "type": first["type"],
            "fields": entry_fields(self.rules, first),
            "unseen": listed,
            "unseen_count": len(unseen),
            "event": examples[0],
            "events": [
                {"event": x, "fields": entry_fields(self.rules, e)} for x, e in zip(examples, self.chances, strict=True)
            ],
        }


def amount_bounds(rules: GameRules[Any], kind: str) -> tuple[int, int]:
    """The bounds of an event's `amount` as its schema takes it (beyond them it is out of shape)."""
    shape = rules.events[kind]
    validator = shape.required.get(AMOUNT) or shape.optional[AMOUNT]
    schema = json_schema(validator)
    return int(schema["minimum"]), int(schema["maximum"])


def entry_fields(rules: GameRules[Any], event: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """What a scorer enters for each card field of a chance event: `{"shape": "card"}`, `{"shape":
    "cards", "count"}`, or per seat (`"seat_cards"`: a list by seat; `"seat_map"`: an object keyed by
    seat, of card lists, or of one card each with `count` 1) with its `seats`."""
    out: dict[str, dict[str, Any]] = {}
    for name in sorted(rules.card_fields(event["type"])):
        if name not in event:
            continue
        value = event[name]
        if isinstance(value, str):
            out[name] = {"shape": "card", "count": 1}
        elif isinstance(value, Mapping):
            counts = {1 if isinstance(v, str) else len(v) for v in value.values()}
            out[name] = {"shape": "seat_map", "seats": sorted(int(s) for s in value), "count": max(counts, default=0)}
        elif value and not isinstance(value[0], str):
            out[name] = {"shape": "seat_cards", "seats": list(range(len(value))), "count": max(len(v) for v in value)}
        else:
            out[name] = {"shape": "cards", "count": len(value)}
    return out


def unseen_cards(rules: GameRules[Any], state: Any, viewpoint: Viewpoint) -> list[str]:
    """The cards `viewpoint` has not seen in the hand: the deck at the start of one; else the deck less
    every card in a known place that it may see (another seat's private cards count as unseen)."""
    census = rules.census(state)
    if not rules.hand_in_progress(state):
        return sorted_cards(census.deck)
    hidden = rules.visibility.hidden_from(state, viewpoint)
    seen = {c for cards in census.places.values() for c in cards} - hidden
    return sorted_cards(census.deck - seen)


class _Sight:
    """What one viewpoint may be shown of an offer (module docstring)."""

    def __init__(self, rules: GameRules[Any], state: Any, viewpoint: Viewpoint) -> None:
        self.viewpoint = viewpoint
        self.rules = rules
        self.everything = viewpoint is OMNISCIENT
        self.hidden = rules.visibility.hidden_from(state, viewpoint)
        held = rules.visibility.held(state)
        #: the seats whose private cards this viewpoint does not see
        self.private = {s for s, cards in held.items() if cards and s != viewpoint}
        self.withheld: set[int] = set()

    def sees(self, event: Mapping[str, Any]) -> bool:
        if self.everything:
            return True
        actor = event.get("seat")
        if isinstance(actor, int) and actor in self.private:
            self.withheld.add(actor)
            return False
        return not cards_of(self.rules, event) & self.hidden

    def example(self, rules: GameRules[Any], event: dict[str, Any]) -> dict[str, Any]:
        """A chance event's example: its cards as drawn at random from the unseen ones, or `"??"` for a
        viewpoint that does not see everything (a real card would tell it where that card is not)."""
        if self.everything:
            return event
        fields = rules.card_fields(event["type"])
        return {k: _hide(v) if k in fields else v for k, v in event.items()}


def _hide(value: Any) -> Any:
    if isinstance(value, str):
        return HIDDEN
    if isinstance(value, Mapping):
        return {k: _hide(v) for k, v in value.items()}
    return [_hide(v) for v in value]


# --------------------------------------------------------------------------- the common events


def common_events(rules: GameRules[Any], position: engine.Position[Any]) -> list[dict[str, Any]]:
    """The events every game takes, ready to send with their bounds: `retract` (to a seq from the retract
    floor to the one before the head), `score_claimed` (a hand begun), `note`, and `hand_voided` while a
    hand is in progress. Free text (`reason`, `text`) is the scorer's; the examples carry a placeholder."""
    state = position.game
    out: list[dict[str, Any]] = []
    if position.seq > position.retract_floor:
        out.append(
            {
                "event": {"type": "retract", "to_seq": position.seq - 1, "reason": ""},
                "field": "to_seq",
                "min": position.retract_floor,
                "max": position.seq - 1,
            }
        )
    if state.hand >= 1:
        points = {str(s): 0 for s in range(state.seats)}
        out.append(
            {
                "event": {"type": "score_claimed", "hand": state.hand, "points": points},
                "field": "hand",
                "min": 1,
                "max": state.hand,
            }
        )
    out.append({"event": {"type": "note", "text": "note"}, "field": "text"})
    deal = position.deal
    if dealing.is_server_dealt(state.options) and deal is not None and not deal.revealed and not deal.taken:
        # a server-dealt hand's deck takes any seat's randomness until its first card is dealt
        out.append({"event": {"type": "seed", "seed": "your words"}, "field": "seed"})
    if not rules.is_terminal(state) and rules.hand_in_progress(state):
        out.append({"event": {"type": "hand_voided", "reason": ""}, "field": "reason"})
    return out


# --------------------------------------------------------------------------- the candidates


def candidates(rules: GameRules[Any], state: Any, *, record: bool) -> list[Event]:
    """Every decision to put through `decide`: the game's `legal_events` as the game completes them
    (`GameRules.complete_offers`), and under `record` the plays that break a rule (`GameRules.disputed`;
    `decide` sorts them out)."""
    offered = rules.complete_offers(state, list(rules.legal_events(state)))
    if record:
        offered += rules.disputed(state)
    return offered


def disputed_chances(rules: GameRules[Any], state: Any, unseen: set[str]) -> list[Event]:
    """Chance events that break a rule, with an example card, under `record` (`GameRules.disputed_chances`:
    a face-down card asked for while the seat holds one). `decide` keeps those it flags."""
    if state.options.get("enforcement") != "record":
        return []
    return rules.disputed_chances(state, unseen)
