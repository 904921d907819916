"""What may be appended next to a game: the table pad's offer (issue 18, `GET /v1/games/{id}/next`).

A scorer at the table taps what happens; the page must offer only what the record would take, so
the offer is worked out from the rules and every event in it has been through `engine.decide`,
exactly as `POST /v1/games/{id}/events` would decide it:

- `decisions`: events ready to send, each accepted with no violation (normalised as the write path
  stores them). Every game's `legal_events`, completed where it lists less than `validate` accepts
  (Gin's lay-offs: every melding of the defender's cards with every set of lay-offs, best first;
  Gin's knocks sorted best first; Seven and a Half's flip of every face-down card of a seat with
  several hands), and the chance events with nothing left to choose (Schnapsen's last draw, the
  face-up trump card).
- `ranges`: an event with an integer `amount` (a stake, a split, a bid) is offered once per choice
  of its other fields, with the smallest amount as the example and the bounds `min`, `max`: every
  value between is accepted (`legal_events` only samples a wide table's stakes).
- `reveal`: the chance event that may come (a deal, a draw from the stock, a hit, the cut), with
  what the scorer must enter (`fields`: how many cards, per seat) and the cards not yet seen.
- `flagged` (under `record` enforcement): the plays that would be stored with a violation, each
  with the rule it breaks and the reason in words; a stake outside the limits as a range.
- `common`: the events every game takes (`retract` with its bounds, `score_claimed`, `note`,
  `hand_voided` while a hand is in progress).

Visibility: the offer is computed on the true state and then shown from the reader's viewpoint
(`projections/reading/visibility.py`): a reader who may not see a seat's private cards gets none of that
seat's decisions (which cards it may play, whether it may knock or split, tell what it holds: the
seat is listed in `withheld`), no event naming a card hidden from it, examples of chance events
with `"??"` for their cards, and an unseen list that holds every card it does not see (a seat's
hidden hand is not told apart from the stock). A seat-scoped reader gets its own decisions.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

import orjson

from events.cards import sorted_cards
from events.errors import TablebookError
from events.schema import json_schema
from projections.core import dealing, engine, phrases
from projections.core.rules import CHANCE, HIDDEN, OMNISCIENT, SPECTATOR, Chance, Event, GameRules, Viewpoint
from projections.reading.visibility import sight_of, viewpoint_for

if TYPE_CHECKING:
    from api.service import Reader, Tablebook

#: the integer field an event's ranges are over
AMOUNT = "amount"
#: what each role may send (`Tablebook.append`): a viewer nothing, an auditor only corrections
SENDS = {"viewer": "nothing", "auditor": "corrections"}


# --------------------------------------------------------------------------- the use case


def next_for(service: Tablebook, reader: Reader, game_id: str, seat: int | None = None) -> dict[str, Any]:
    """`GET /v1/games/{id}/next`: the offer at the game's head (read now), from `seat` (everything when
    None), as the reader may see it. (`Tablebook.next` delegates here.)

    Raises:
        NotFoundError: no such game in the reader's club.
        InvalidEventError: a seat the game does not have (the message rendered with the players).
        ForbiddenError: a share link (the route is not one of a replay's).
    """
    from api.service import rendered_error  # here: the service may import this module

    live = service.recorder.live(game_id, reader.club_id)
    names = list(live.game.players)
    sight = sight_of(reader, service.store, live)
    try:
        viewpoint = viewpoint_for(sight, seat, live.state.seats, live.state.hand)
    except TablebookError as refused:
        if not phrases.has_marker(refused.message):
            raise
        raise rendered_error(refused, names) from None
    doc = offer(live.rules, live.state, viewpoint, names)
    return {"game": game_id, **doc, "sends": SENDS.get(reader.role, "events")}


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
    """Every string inside a field's value (a card, lists of cards, objects of them: Gin's lay-offs)."""
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


# --------------------------------------------------------------------------- the candidates, per game


def candidates(rules: GameRules[Any], state: Any, *, record: bool) -> list[Event]:
    """Every decision to put through `decide`: the game's `legal_events` with its completions, and under
    `record` the plays that break a rule (`decide` sorts them out)."""
    offered = list(rules.legal_events(state))
    complete = _COMPLETIONS.get(rules.kind)
    if complete is not None:
        offered = complete(state, offered)
    if record:
        disputed = _DISPUTED.get(rules.kind)
        if disputed is not None:
            offered += disputed(state)
    return offered


# Gin Rummy for three ---------------------------------------------------------


def _gin_complete(state: Any, offered: list[Event]) -> list[Event]:
    """Knocks best first (the lowest deadwood); in the lay-off, every melding with every lay-off set."""
    if state.phase == "lay_off":
        return gin_lay_offs(state)
    knocks = [e for e in offered if e["type"] == "knock"]
    if not knocks:
        return offered
    held = state.hands[state.turn]
    rest = [e for e in offered if e["type"] != "knock"]
    return rest + sorted(knocks, key=lambda e: (_gin_deadwood(held, e), len(e["melds"]), e["discard"]))


def _gin_deadwood(held: frozenset[str], knock: Mapping[str, Any]) -> int:
    from projections.games.gin_rummy_3._melds import deadwood_value

    melded = {c for meld in knock["melds"] for c in meld}
    return deadwood_value(held - melded - {knock["discard"]})


def gin_lay_offs(state: Any) -> list[Event]:
    """Every lay-out the defender may make: each arrangement of its own melds (maximal or not), with each
    set of its other cards laid off on the knocker's melds (each seeing the melds as extended before
    it), best first (the lowest count left)."""
    from projections.games.gin_rummy_3._melds import all_meldings, deadwood_value

    knock, seat = state.knock, state.turn
    scored: list[tuple[int, int, Event]] = []
    for melding in all_meldings(state.hands[seat]):
        for layoffs in layoff_sets(knock.melds, melding.deadwood):
            left = set(melding.deadwood) - {c for c, _ in layoffs}
            event = {
                "type": "lay_off",
                "seat": seat,
                "melds": [list(m) for m in melding.melds],
                "layoffs": [{"card": c, "meld": i} for c, i in layoffs],
            }
            scored.append((deadwood_value(left), -len(layoffs), event))
    scored.sort(key=lambda t: (t[0], t[1]))
    return [event for _, _, event in scored]


def layoff_sets(melds: Sequence[Sequence[str]], deadwood: Iterable[str]) -> list[list[tuple[str, int]]]:
    """Every set of lay-offs of `deadwood` cards onto `melds` (the empty one first), each in an order in
    which every card fits the meld as extended before it. The set of (card, meld) pairs decides the
    extended melds, so each set is walked once."""
    from projections.games.gin_rummy_3._melds import extend_meld

    found: dict[frozenset[tuple[str, int]], list[tuple[str, int]]] = {}

    def walk(extended: tuple[tuple[str, ...], ...], left: frozenset[str], chosen: list[tuple[str, int]]) -> None:
        key = frozenset(chosen)
        if key in found:
            return
        found[key] = chosen
        for card in sorted(left):
            for index, meld in enumerate(extended):
                grown = extend_meld(meld, card)
                if grown is not None:
                    walk((*extended[:index], grown, *extended[index + 1 :]), left - {card}, [*chosen, (card, index)])

    walk(tuple(tuple(m) for m in melds), frozenset(deadwood), [])
    return list(found.values())


def _gin_disputed(state: Any) -> list[Event]:
    """Knocks over ten: for each discard, every arrangement of the other cards whose deadwood is over 10
    (a lay-off after gin comes with the lay-offs, which `decide` flags)."""
    from projections.games.gin_rummy_3._melds import all_meldings, sort_cards
    from projections.games.gin_rummy_3._state import KNOCK_LIMIT

    if state.phase != "discard":
        return []
    seat = state.turn
    held = state.hands[seat]
    out: list[Event] = []
    for discard in sort_cards(held):
        for melding in all_meldings(held - {discard}):
            if melding.count > KNOCK_LIMIT:
                out.append(
                    {"type": "knock", "seat": seat, "discard": discard, "melds": [list(m) for m in melding.melds]}
                )
    return out


# Schnapsen and Smear: the cards a seat holds, whatever it must follow ---------


def _schnapsen_disputed(state: Any) -> list[Event]:
    if state.phase != "follow":
        return []
    seat = 1 - state.leader
    return [{"type": "play", "seat": seat, "card": c} for c in sorted_cards(state.hands[seat])]


def _smear_disputed(state: Any) -> list[Event]:
    if state.phase != "play":
        return []
    seat = (state.leader + len(state.trick)) % state.seats
    return [{"type": "play", "seat": seat, "card": c} for c in sorted_cards(state.hands[seat])]


# Casino: every move the cards allow, whether or not it keeps the build rules ---


def _casino_disputed(state: Any) -> list[Event]:
    """Every capture, build, increase and trail the table's arithmetic allows (`legal_events` without the
    ownership rules); `decide` says which rule each breaks."""
    from projections.games.casino._groups import packings, value_of

    if state.phase != "play":
        return []
    seat = state.to_play
    loose = tuple(c for c in state.loose if c[0] not in "JQK")
    values = tuple(value_of(c) or 0 for c in loose)
    out: list[Event] = []
    for card in sorted_cards(state.hands[seat]):
        out.append({"type": "trail", "seat": seat, "card": card})
        v = value_of(card)
        if v is None:
            out.extend(_casino_face_moves(state, seat, card))
            continue
        for ids in _subsets([b.id for b in state.builds if b.value == v]):
            for mask in packings(values, v, 0):
                taken = [c for i, c in enumerate(loose) if mask >> i & 1]
                if taken or ids:
                    out.append({"type": "capture", "seat": seat, "card": card, "take": [*taken, *ids]})
        for target in range(max(v, 2), 11):
            for ids in _subsets([b.id for b in state.builds if b.value == target]):
                for mask in packings((v, *values), target, 1):
                    onto = [c for i, c in enumerate(loose) if mask >> (i + 1) & 1]
                    if onto or ids:
                        out.append(
                            {"type": "build", "seat": seat, "card": card, "onto": [*onto, *ids], "value": target}
                        )
        for b in state.builds:
            if isinstance(b.value, int) and b.value + v <= 10:
                out.append({"type": "build", "seat": seat, "card": card, "onto": [b.id], "value": b.value + v})
    return out


def _casino_face_moves(state: Any, seat: int, card: str) -> list[Event]:
    r = card[0]
    same = [c for c in state.loose if c[0] == r]
    faces = [b.id for b in state.builds if b.value == r]
    takes: list[list[str]] = [[c] for c in same] + [[b] for b in faces] + [[c, b] for b in faces for c in same]
    if len(same) == 3:
        takes.append(same)
    out: list[Event] = [{"type": "capture", "seat": seat, "card": card, "take": t} for t in takes]
    out += [{"type": "build", "seat": seat, "card": card, "onto": [i], "value": r} for i in [*same, *faces]]
    return out


def _subsets(items: Sequence[str]) -> Iterator[tuple[str, ...]]:
    for k in range(len(items) + 1):
        yield from combinations(items, k)


# Seven and a Half --------------------------------------------------------------


def _half_complete(state: Any, offered: list[Event]) -> list[Event]:
    """A flip without `hand` turns every face-down card of the seat's unfinished hands: a decision of its
    own when those cards lie in more than one hand."""
    if state.phase != "play" or not state.options.get("face_down_request"):
        return offered
    seat = state.turn
    hands = state.hands[seat]
    holding = [i for i, h in enumerate(hands) if not h.finished and any(c in state.face_down for c in h.cards)]
    if len(holding) > 1:
        return [*offered, {"type": "flip", "seat": seat}]
    return offered


def disputed_chances(rules: GameRules[Any], state: Any, unseen: set[str]) -> list[Event]:
    """Chance events that break a rule, with an example card: under `record`, Seven and a Half's face-down
    hit asked for while the seat holds one (`half.two_face_down`). `decide` keeps those it flags."""
    if rules.kind != "seven-and-a-half" or state.options.get("enforcement") != "record":
        return []
    if state.phase != "play" or not state.options.get("face_down_request") or not unseen:
        return []
    seat = state.turn
    if seat == state.banker or not state.holds_face_down(seat):
        return []
    hands = state.hands[seat]
    card = sorted_cards(unseen)[0]
    return [
        {"type": "hit", "seat": seat, "card": card, "face_down": True, **({"hand": i} if len(hands) > 1 else {})}
        for i, h in enumerate(hands)
        if not h.finished
    ]


def _half_disputed(state: Any) -> list[Event]:
    """Splits whatever their stake (a split hand staked above the limits under `record` has no legal one):
    `decide` finds the amounts each rule refuses."""
    if state.phase != "play" or not state.options.get("splitting"):
        return []
    seat = state.turn
    low = state.options["min_bet"]
    return [
        {"type": "split", "seat": seat, "hand": i, AMOUNT: low}
        for i, h in enumerate(state.hands[seat])
        if not h.finished and len(h.cards) == 2 and all(c[0] in "JQK" for c in h.cards)  # the wild card is a J, Q or K
    ]


#: per game, what completes its `legal_events` into every decision `validate` accepts
_COMPLETIONS: dict[str, Callable[[Any, list[Event]], list[Event]]] = {
    "gin-rummy-3": _gin_complete,
    "seven-and-a-half": _half_complete,
}
#: per game, the plays that break a rule (for `record` enforcement's `flagged`)
_DISPUTED: dict[str, Callable[[Any], list[Event]]] = {
    "gin-rummy-3": _gin_disputed,
    "schnapsen": _schnapsen_disputed,
    "cutthroat-smear": _smear_disputed,
    "casino": _casino_disputed,
    "seven-and-a-half": _half_disputed,
}
