"""The table pad's offer (`projections/reading/offers.py`) against `engine.decide`, for random states of every game.

(a) Everything offered is accepted as offered: every decision with no violation, every amount of
every range, every reveal's example; under `record` every flagged play (and every amount of a
flagged range) is stored with a violation naming its rule.
(b) What `decide` accepts is offered: candidate events are made around each state (each offered
event with its seat, card, amount and list fields varied, and every event type of the game with
fields from the state), and each one `decide` accepts cleanly must be a decision (the same event up
to the order of its lists, or one leading to the same state), inside a range, or a reveal; each it
accepts with a violation must be flagged.
(c) Viewpoints: a viewer or another seat is shown no card that seat holds privately, and its unseen
list holds every such card (a hidden hand is not told apart from the stock).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import orjson
import pytest

from events.schema import json_schema
from projections.core import engine, simulate
from projections.core.registry import available, rules_for
from projections.core.rules import HIDDEN, OMNISCIENT, SPECTATOR, Event, GameRules
from projections.reading import offers

KINDS = available()
COMMON = frozenset({"score_claimed", "note", "retract", "hand_voided"})
#: options that open up every kind of decision (splits, face-down hits, a wide table's sampled stakes)
OPTIONS: dict[str, list[dict[str, Any]]] = {
    "seven-and-a-half": [
        {},
        {"splitting": True, "face_down_request": True, "wild_card": "KD"},
        {"min_bet": 5, "max_bet": 10**6, "splitting": True},
    ],
    "casino": [{}, {"target": 11}],
}
STATES_PER_GAME = 14


# --------------------------------------------------------------------------- random states


def _walk(rules: GameRules[Any], options: Mapping[str, Any], rng: random.Random, steps: int) -> Iterator[Any]:
    """Positions of a game played by picking at random from its own offer (flagged plays too, under
    `record`), so that states after a disputed play come up."""
    players = list(rules.demo_players)
    position = engine.start(rules, players, rules.options_for(players, options))
    for _ in range(steps):
        if rules.is_terminal(position.game):
            return
        yield position
        doc = offers.offer(rules, position, OMNISCIENT)
        choices: list[dict[str, Any]] = list(doc["decisions"])
        choices += [{**r["event"], r["field"]: rng.randint(r["min"], r["max"])} for r in doc["ranges"]]
        if doc["reveal"]:
            choices += [v["event"] for v in doc["reveal"]["events"]]
        if doc["flagged"] and (not choices or rng.random() < 0.3):  # a seat may have nothing but disputed plays
            choices = [f["event"] for f in doc["flagged"]]
        assert choices, f"{rules.kind}: nothing offered at seq {position.seq}"
        decision = engine.decide(rules, position, dict(rng.choice(choices)))
        position = engine.apply(rules, position, decision.event, position.seq + 1)


def _states(kind: str, enforcement: str, seed: int) -> list[Any]:
    """Random positions: stopped at random points of random legal games (`simulate.play`) and of games
    played from the offer itself."""
    rules = rules_for(kind)
    rng = random.Random(f"{kind}-{enforcement}-{seed}")
    out: list[Any] = []
    for options in OPTIONS.get(kind, [{}]):
        chosen = {**options, "enforcement": enforcement}
        played = simulate.play(rules, list(rules.demo_players), chosen, rng=rng, max_events=300, keep_states=True)
        out += _spread(rules, list(played.states), rng)
        out += _spread(rules, list(_walk(rules, chosen, rng, 250)), rng)
    return out


def _signature(rules: GameRules[Any], position: Any) -> tuple[Any, ...]:
    """What kind of moment a position is: its phase and the shapes of the events it allows."""
    events = [*rules.legal_events(position.game), *rules.chance_events(position.game, random.Random(0))]
    return (getattr(position.game, "phase", None), frozenset((e["type"], tuple(sorted(e))) for e in events))


def _spread(rules: GameRules[Any], positions: list[Any], rng: random.Random) -> list[Any]:
    """A few positions of each kind of moment (a lay-off, a seat with split hands: rare at random),
    and random others."""
    by_kind: dict[tuple[Any, ...], list[Any]] = {}
    for position in positions:
        by_kind.setdefault(_signature(rules, position), []).append(position)
    out = [rng.choice(group) for group in by_kind.values()]
    return out + rng.sample(positions, min(STATES_PER_GAME // 2, len(positions)))


# --------------------------------------------------------------------------- what counts as offered


def _canonical(value: Any) -> Any:
    """An event with the order of its lists taken out (melds, takes, lay-offs)."""
    if isinstance(value, Mapping):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        items = [_canonical(v) for v in value]
        return sorted(items, key=lambda v: orjson.dumps(v, option=orjson.OPT_SORT_KEYS))
    return value


def _key(event: Mapping[str, Any]) -> bytes:
    return orjson.dumps(_canonical(event), option=orjson.OPT_SORT_KEYS)


def _after(rules: GameRules[Any], position: Any, event: Mapping[str, Any]) -> Any:
    return engine.apply(rules, position, dict(event), position.seq + 1).game


class Offered:
    """One offer, with the questions the checks ask of it."""

    def __init__(self, rules: GameRules[Any], position: Any) -> None:
        self.rules, self.position = rules, position
        self.doc = offers.offer(rules, position, OMNISCIENT, rules.demo_players)
        self.keys = {_key(e) for e in self.doc["decisions"]}
        self.flagged = {_key(f["event"]) for f in self.doc["flagged"] if "field" not in f and not f.get("reveal")}
        self._states: list[Any] | None = None

    def _in_range(self, event: Mapping[str, Any], ranges: Sequence[Mapping[str, Any]]) -> bool:
        for r in ranges:
            field = r["field"]
            rest = {k: v for k, v in r["event"].items() if k != field}
            same = field in event and {k: v for k, v in event.items() if k != field} == rest
            if same and r["min"] <= event[field] <= r["max"]:
                return True
        return False

    def _in_reveal(self, event: Mapping[str, Any]) -> bool:
        reveal = self.doc["reveal"]
        if reveal is None:
            return False
        cards = self.rules.card_fields(event["type"])
        drawn = {k: v for k, v in event.items() if k in cards}
        after = None
        for variant in reveal["events"]:
            same = {**{k: v for k, v in variant["event"].items() if k not in cards}, **drawn}
            if same == event:
                return True
            if variant["event"]["type"] == event["type"] and offers.decided(self.rules, self.position, same):
                after = after or _after(self.rules, self.position, event)
                if _after(self.rules, self.position, same) == after:  # the same hit, `hand` left out
                    return True
        return False

    def covers(self, event: Mapping[str, Any]) -> bool:
        """A cleanly accepted event: offered up to list order, in a range, a reveal, or the same move."""
        if _key(event) in self.keys or self._in_range(event, self.doc["ranges"]) or self._in_reveal(event):
            return True
        if self._states is None:
            self._states = [_after(self.rules, self.position, e) for e in self.doc["decisions"]]
        return _after(self.rules, self.position, event) in self._states

    def flags(self, event: Mapping[str, Any]) -> bool:
        """An event accepted with a violation: flagged (up to list order), in a flagged range, or a flagged
        chance event (its cards to enter)."""
        ranges = [f for f in self.doc["flagged"] if "field" in f]
        if _key(event) in self.flagged or self._in_range(event, ranges):
            return True
        cards = self.rules.card_fields(event["type"])
        mine = {k: v for k, v in event.items() if k not in cards}
        chances = [f["event"] for f in self.doc["flagged"] if f.get("reveal")]
        if any({k: v for k, v in x.items() if k not in cards} == mine for x in chances):
            return True
        after = _after(self.rules, self.position, event)  # the same play (`marriage: false` spelt out)
        return any(
            _after(self.rules, self.position, f["event"]) == after for f in self.doc["flagged"] if "field" not in f
        )


# --------------------------------------------------------------------------- candidates around a state


def _domain(rules: GameRules[Any], position: Any, offered: Offered, kind: str, name: str, validator: Any) -> list[Any]:
    """Values of one field to try: seats, cards of the state (and a few unseen ones), amounts about
    the offered bounds, the field's choices."""
    state = position.game
    field_kind = rules.fields.get(kind, {}).get(name)
    if field_kind == "seat":
        return list(range(state.seats))
    census = rules.census(state)
    known = sorted({c for cards in census.places.values() for c in cards})
    cards = known + sorted(census.deck - set(known))[:4]
    if field_kind == "card":
        return cards
    schema = json_schema(validator)
    if field_kind == "cards" or schema.get("type") == "array":
        items = {
            i
            for e in offered.doc["decisions"]
            for v in e.values()
            if isinstance(v, list)
            for i in v
            if isinstance(i, str)
        }
        return [[]] + [[c] for c in sorted(items | set(known))]
    if "enum" in schema:
        return list(schema["enum"])
    if schema.get("type") == "boolean":
        return [True, False]
    if schema.get("type") == "integer" or "anyOf" in schema:
        amounts = {0, 1, 2, 3, 4, 5}
        for r in offered.doc["ranges"]:
            amounts |= {r["min"] - 1, r["min"], r["max"], r["max"] + 1}
        out: list[Any] = sorted(amounts)
        return out + (["J", "Q", "K"] if "anyOf" in schema else [])
    return []


def _type_candidates(
    rules: GameRules[Any], position: Any, offered: Offered, rng: random.Random
) -> Iterator[dict[str, Any]]:
    """Every event type of the game (but the chance ones that deal whole hands) with fields from the
    state: seat and card fields in full, every other field varied one at a time, each optional field
    added once with each value."""
    for kind, shape in rules.events.items():
        if kind in COMMON or kind in ("deal", "cut"):
            continue
        domains = {n: _domain(rules, position, offered, kind, n, v) for n, v in shape.required.items()}
        if any(not d for d in domains.values()):
            continue
        seats = [n for n in domains if rules.fields.get(kind, {}).get(n) == "seat"]
        singles = [n for n in domains if rules.fields.get(kind, {}).get(n) == "card"]
        base = {n: d[0] for n, d in domains.items()}
        pairs = [(s, c) for s in seats[:1] for c in singles[:1]]
        for seat_name, card_name in pairs:
            for seat in domains[seat_name]:
                for card in domains[card_name]:
                    yield {"type": kind, **base, seat_name: seat, card_name: card}
        for name, domain in domains.items():
            for value in domain:
                for seat in range(position.game.seats) if seats else [None]:
                    event = {"type": kind, **base, name: value}
                    if seat is not None and name not in seats:
                        event[seats[0]] = seat
                    yield event
        for name, validator in shape.optional.items():
            for value in _domain(rules, position, offered, kind, name, validator):
                for seat in range(position.game.seats) if seats else [None]:
                    event = {"type": kind, **base, name: value}
                    if seat is not None:
                        event[seats[0]] = seat
                    yield event


def _varied(
    rules: GameRules[Any], position: Any, offered: Offered, event: Mapping[str, Any]
) -> Iterator[dict[str, Any]]:
    """One offered event with each field varied: seats and cards over all, amounts about the bounds,
    each element of a list replaced by every card, or dropped."""
    census = rules.census(position.game)
    deck = sorted(census.deck)
    for name, value in event.items():
        if name == "type":
            continue
        kind = rules.fields.get(event["type"], {}).get(name)
        if kind == "seat":
            yield from ({**event, name: s} for s in range(position.game.seats))
        elif kind == "card":
            yield from ({**event, name: c} for c in deck)
        elif isinstance(value, int) and not isinstance(value, bool):
            yield from ({**event, name: value + d} for d in (-2, -1, 1, 2, 10))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                yield {**event, name: value[:i] + value[i + 1 :]}
                if isinstance(item, str):
                    yield from ({**event, name: [*value[:i], c, *value[i + 1 :]]} for c in deck)
                elif isinstance(item, list):
                    for j in range(len(item)):
                        for c in deck:
                            inner = [*item[:j], c, *item[j + 1 :]]
                            yield {**event, name: [*value[:i], inner, *value[i + 1 :]]}


def _candidates(rules: GameRules[Any], position: Any, offered: Offered, rng: random.Random) -> Iterator[dict[str, Any]]:
    legal = [*rules.legal_events(position.game), *offered.doc["decisions"]]
    legal += [r["event"] for r in offered.doc["ranges"]] + [f["event"] for f in offered.doc["flagged"]]
    for event in rng.sample(legal, min(6, len(legal))):
        yield from _varied(rules, position, offered, event)
    yield from _type_candidates(rules, position, offered, rng)


# --------------------------------------------------------------------------- (a) offered => accepted


def _accepted(rules: GameRules[Any], position: Any, event: Mapping[str, Any]) -> engine.Decision:
    decision = offers.decided(rules, position, event)
    assert decision is not None, f"{rules.kind} seq {position.seq}: offered but refused: {event}"
    return decision


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("enforcement", ["strict", "record"])
def test_every_offered_event_is_accepted_as_offered(kind: str, enforcement: str) -> None:
    rules = rules_for(kind)
    rng = random.Random(kind)
    for position in _states(kind, enforcement, 1):
        doc = offers.offer(rules, position, OMNISCIENT, rules.demo_players)
        for event in doc["decisions"]:
            decision = _accepted(rules, position, event)
            assert decision.violation is None and decision.event == event, (event, decision)
        for r in doc["ranges"]:
            assert r["min"] <= r["event"][r["field"]] <= r["max"]
            for amount in {r["min"], r["max"], rng.randint(r["min"], r["max"])}:
                assert _accepted(rules, position, {**r["event"], r["field"]: amount}).violation is None
        if doc["reveal"]:
            unseen = set(doc["reveal"]["unseen"])
            for variant in doc["reveal"]["events"]:
                assert _accepted(rules, position, variant["event"]).violation is None
                named = offers.cards_of(rules, variant["event"])
                assert named and named <= unseen, variant
        if enforcement == "strict":
            assert doc["flagged"] == [], doc["flagged"]
        for flag in doc["flagged"]:
            amounts = [flag["min"], flag["max"], rng.randint(flag["min"], flag["max"])] if "field" in flag else [None]
            for amount in amounts:
                event = flag["event"] if amount is None else {**flag["event"], flag["field"]: amount}
                decision = _accepted(rules, position, event)
                assert decision.violation is not None and decision.violation["rule"] == flag["rule"], (flag, decision)
            assert flag["reason"] and "{" not in flag["reason"], flag  # rendered, no marker left


# --------------------------------------------------------------------------- (b) accepted => offered


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("enforcement", ["strict", "record"])
def test_what_decide_accepts_is_offered(kind: str, enforcement: str) -> None:
    rules = rules_for(kind)
    rng = random.Random(f"b-{kind}")
    checked = 0
    for position in _states(kind, enforcement, 2):
        offered = Offered(rules, position)
        for raw in _candidates(rules, position, offered, rng):
            decision = offers.decided(rules, position, raw)
            if decision is None or decision.event["type"] in COMMON:
                continue
            checked += 1
            if decision.violation is None:
                assert offered.covers(decision.event), f"{kind} seq {position.seq}: accepted, not offered: {raw}"
            else:
                assert offered.flags(decision.event), (
                    f"{kind} seq {position.seq}: flagged by decide, not offered: {raw}"
                )
    assert checked > 50, checked


def test_the_common_events_are_offered_with_their_bounds() -> None:
    rules = rules_for("schnapsen")
    for position in _states("schnapsen", "strict", 3)[:6]:
        common = {c["event"]["type"]: c for c in offers.offer(rules, position)["common"]}
        if position.seq:
            retract = common["retract"]
            assert (retract["min"], retract["max"]) == (position.retract_floor, position.seq - 1)
            for to_seq in (retract["min"], retract["max"]):
                assert _accepted(rules, position, {**retract["event"], "to_seq": to_seq})
            assert offers.decided(rules, position, {**retract["event"], "to_seq": position.seq}) is None
        assert ("hand_voided" in common) == rules.hand_in_progress(position.game)
        for entry in common.values():
            assert _accepted(rules, position, entry["event"]).violation is None


# --------------------------------------------------------------------------- (c) viewpoints


def _shown_cards(doc: Mapping[str, Any]) -> set[str]:
    """Every string of the offer but its unseen list (cards, and harmless other strings)."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, Mapping):
            for k, v in value.items():
                if k not in ("unseen", "reason", "template", "fields"):
                    walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk({k: v for k, v in doc.items() if k != "common"})
    return found


@pytest.mark.parametrize("kind", KINDS)
def test_a_viewpoint_is_shown_no_card_another_seat_holds(kind: str) -> None:
    rules = rules_for(kind)
    seen_withheld = False
    for position in _states(kind, "record", 4):
        state = position.game
        held = rules.visibility.held(state)
        everything = offers.offer(rules, position, OMNISCIENT)
        for viewpoint in (SPECTATOR, *range(state.seats)):
            doc = offers.offer(rules, position, viewpoint)
            private = {c for s, cards in held.items() if s != viewpoint for c in cards}
            assert not _shown_cards(doc) & private, (viewpoint, doc)
            if doc["reveal"]:
                unseen = set(doc["reveal"]["unseen"])
                if private:  # a reader who may not see some cards is given no list that could name one
                    assert not unseen & private and doc["reveal"]["unseen_count"] >= len(private)
                own = held.get(viewpoint, frozenset())
                assert not own & unseen or not rules.hand_in_progress(state)
                for variant in doc["reveal"]["events"]:
                    assert HIDDEN in orjson.dumps(variant["event"]).decode()
            for event in doc["decisions"]:
                actor = event.get("seat")
                assert actor is None or actor == viewpoint or not held.get(actor), event
            seen_withheld |= bool(doc["withheld"])
            if viewpoint in everything["to_act"]:
                mine = [e for e in everything["decisions"] if e.get("seat") == viewpoint]
                assert [e for e in doc["decisions"] if e.get("seat") == viewpoint] == mine
    assert seen_withheld


def test_a_wide_table_offers_its_stakes_as_one_range_per_seat() -> None:
    rules = rules_for("seven-and-a-half")
    players = list(rules.demo_players)
    position = engine.start(rules, players, rules.options_for(players, {"min_bet": 5, "max_bet": 10**6}))
    doc = offers.offer(rules, position)
    assert not [e for e in doc["decisions"] if e["type"] == "bet"]
    bets = {r["event"]["seat"]: (r["min"], r["max"]) for r in doc["ranges"] if r["event"]["type"] == "bet"}
    assert bets == {s: (5, 10**6) for s in range(1, 4)}
    assert _accepted(rules, position, {"type": "bet", "seat": 1, "amount": 123_457}).violation is None


def test_record_enforcement_flags_stakes_outside_the_limits_as_ranges() -> None:
    rules = rules_for("seven-and-a-half")
    players = list(rules.demo_players)
    position = engine.start(
        rules, players, rules.options_for(players, {"min_bet": 5, "max_bet": 50, "enforcement": "record"})
    )
    flagged = [f for f in offers.offer(rules, position, OMNISCIENT, players)["flagged"] if f["event"]["seat"] == 1]
    assert {(f["min"], f["max"], f["rule"]) for f in flagged} == {
        (-(10**9), 4, "half.stake_limits"),
        (51, 10**9, "half.stake_limits"),
    }
    low = next(f for f in flagged if f["max"] == 4)
    assert low["event"]["amount"] == 4 and "Ines" in low["reason"] and "{" not in low["reason"]


def test_schnapsen_offers_the_last_draw_of_the_trump_card_as_a_decision() -> None:
    rules = rules_for("schnapsen")
    rng = random.Random(5)

    def never_close(state: Any, offered: Sequence[Event], rng: random.Random, history: Sequence[Event]) -> Event:
        return rng.choice([e for e in offered if e["type"] != "close"])

    played = simulate.play(rules, list(rules.demo_players), rng=rng, max_events=200, keep_states=True, bot=never_close)
    for position in played.states:
        state = position.game
        if state.phase == "draw" and state.talon == 1:
            doc = offers.offer(rules, position)
            assert doc["reveal"] is None and doc["decisions"] == [
                {"type": "draw", "seat": state.draws_due[0], "card": state.trump_card}
            ]
            return
    raise AssertionError("no last draw in this game")


def test_gin_offers_knocks_and_lay_offs_best_first() -> None:
    rules = rules_for("gin-rummy-3")
    from projections.games.gin_rummy_3._melds import deadwood_value

    seen = set()
    played = simulate.play(rules, list(rules.demo_players), rng=random.Random(7), max_events=400, keep_states=True)
    for position in played.states:
        state = position.game
        if state.phase not in ("discard", "lay_off"):
            continue
        doc = offers.offer(rules, position)
        kinds = {e["type"] for e in doc["decisions"]}
        if "knock" in kinds or "lay_off" in kinds:
            held = state.hands[state.turn]
            counts = []
            for e in doc["decisions"]:
                if e["type"] == "knock":
                    counts.append(deadwood_value(held - {e["discard"]} - {c for m in e["melds"] for c in m}))
                elif e["type"] == "lay_off":
                    laid = {c for m in e["melds"] for c in m} | {lo["card"] for lo in e["layoffs"]}
                    counts.append(deadwood_value(held - laid))
            assert counts == sorted(counts)
            seen |= kinds & {"knock", "lay_off"}
    assert seen == {"knock", "lay_off"}, "no knock or no lay-off in this game"


def test_a_flip_of_every_face_down_card_is_offered_when_they_lie_in_two_hands() -> None:
    rules = rules_for("seven-and-a-half")
    players = list(rules.demo_players)
    options = {"splitting": True, "face_down_request": True, "enforcement": "record"}
    position = engine.start(rules, players, rules.options_for(players, options))
    events: list[dict[str, Any]] = [
        *({"type": "bet", "seat": s, "amount": 10} for s in (1, 2, 3)),
        {"type": "deal", "cards": {"0": "2C", "1": "3C", "2": "4C", "3": "KD"}},
        {"type": "hit", "seat": 3, "card": "QD"},
        {"type": "split", "seat": 3, "hand": 0, "amount": 10},
        {"type": "hit", "seat": 3, "hand": 1, "card": "5S", "face_down": True},  # half.two_face_down
    ]
    for event in events:
        position = engine.apply(rules, position, engine.decide(rules, position, event).event, position.seq + 1)
    flips = [e for e in offers.offer(rules, position)["decisions"] if e["type"] == "flip"]
    assert flips == [
        {"type": "flip", "seat": 3, "hand": 0},
        {"type": "flip", "seat": 3, "hand": 1},
        {"type": "flip", "seat": 3},
    ]
    after = {i: _after(rules, position, e) for i, e in enumerate(flips)}
    assert after[2] not in (after[0], after[1])
