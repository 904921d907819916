"""Casino (Cassino) for 2, 3 or 4 players, rounds until a seat reaches the target.

Rule source: `rules/casino.md` (from seed `000_f6e1c9482d5f69cc.txt`).
Options: `first_dealer` (seat, default 0), `target` (1 to 1,000, default 21), `sweeps`
(bool, default false: a sweep scores 1 only when true; scoring only), `enforcement`, and the
house rule `trail_only_when_forced` (bool, default false; a play option): when true, a player who
can capture or build may not trail (`casino.trail_when_able`, illegal). A record made before the
option existed reads as its default.

A round is one hand: its first `deal` (with `table`) opens it, the later
deals of the round (without `table`) continue it; the deck runs out after 6,
4 or 3 deals for 2, 3 or 4 players, and that deal's result says
`"last_deal": true`. `totals` are cumulative round points.

Readings of the rule text:

- A build's `value` that is an integer out of 2 to 10 (11, 1, 0...) is
  *impossible*, like a build over 10; only a value that is not an integer
  nor J/Q/K is *invalid*. An empty `take`/`onto`, an item named twice or an
  item not on the table is *impossible*.
- A number build: every build in `onto` must have the build's value, the
  played card and the loose cards must split into groups of the value. A
  number build is *multiple* when it holds two or more groups (so any new
  build that takes in an existing build is multiple). An increase is `onto`
  = one number build of value u with `value` = u + the card; anything else
  is read as a new build (and is impossible if it does not split).
- Increasing a multiple build (illegal, stored under `record`) folds as
  played: the build keeps its id and becomes a single build of the new value.
- A face build is a J/Q/K played onto exactly one item: a loose card of its
  rank (new id) or a face build of its rank (same id). A face build is never
  multiple and is never increased. A face card captures one loose card of its
  rank, all three when exactly three lie loose on the table, its face build,
  or its face build with one loose card of its rank.
- Illegal plays are checked in this order: `trail_with_build`,
  `increase_multiple_build`, `build_without_capturing_card` (rule 1, for the
  new or changed build), `keep_capturing_card` (for the mover's other builds,
  those the move neither takes nor builds on), then `trail_when_able`.
- `trail_only_when_forced`: "able to capture or build" reads as: some
  capture, build or increase is legal for the player now (one that breaks
  no other rule: what `legal_events` offers), with any card held, not only
  with the card trailed.
- Play starts left of the dealer after every deal of a round.
- A capture that leaves the table empty says `"table_cleared": true` in its
  result; it is a sweep unless it proves the round's last capture. The
  round's last play gives the definitive `sweeps` (`[{seat, seq}]`) in its
  result, with `rest` (`{seat, cards}`: the cards and builds left on the
  table, to the last capturer, `seat` null when nobody captured and those
  cards count for nobody). The `sweep` search tag comes from those end
  facts, not from the capture: a capture that cleared the table may prove
  the round's last capture (only trails after it), which is no sweep. The
  round's last play is tagged `sweep` when `sweeps` is not empty, and the
  read model (`projections/readmodels/hand_facts.py`) writes one fact per listed sweep,
  at the capture's seq and seat.
- A tie for most cards or most spades gives the item to nobody and writes
  no line. A voided round scores 0 for every seat and has no lines; the
  same dealer deals the next round.
- The game ends after a round in which a seat has reached `target` and the
  highest total is held by one seat alone; that seat wins.

`phase` values: `deal` (a deal is due: the first of a round, or the next one
when every hand is empty), `play`, `over` (the game has ended).

`table` fields: `dealer`, `deal` (deals made in this round; after a round
played out, that round's last deal), `deals` (deals in a round), `last_deal`
(the deck is used up), `stock` (cards not dealt), `loose` (loose cards in
the order they came to the table), `builds` (`[{id, value, cards, multiple,
owner, seq, groups}]`, `seq` = the event that made or last changed it,
`groups` its cards in the groups of the value it was built in: one group
for a single or a face build), `last_capture` (`{seat, seq, card, took}`:
the card played and the cards it took, or null), `rest` (at the end of a
round: `{seat, cards}` or null), `target`, `sweeps_score`. Each seat shows
`cards` (or `card_count`), `captured` (the cards it captured this round,
public), `captured_count`, `spades`, `builds` (ids it owns), `dealer`.
`hand_points` are the points of the round so far (final at its end).

Score reasons and messages name seats and cards with the markers of
`projections/core/phrases.py`, rendered with the players' names.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, assert_never

from events.errors import IllegalEventError, ImpossibleEventError, OutOfTurnError
from events.games.casino import EVENTS, CasinoEvent, Deal
from projections.core.dealing import DEALING
from projections.core.fastreplace import copy_with, replace
from projections.core.phrases import card as card_marker
from projections.core.phrases import seat as seat_marker
from projections.core.rules import (
    CHANCE,
    EMPTY,
    ENFORCEMENT,
    Census,
    Event,
    Facts,
    FieldKind,
    GameRules,
    HandScore,
    OptionSpec,
    ScoreSheet,
    Secret,
    SituationReads,
    ToAct,
    Viewpoint,
    Visibility,
    hand_score,
    opt_bool,
    opt_int,
    opt_seat,
    seat_dict,
)
from projections.games.casino import _offers
from projections.games.casino import bot as bots
from projections.games.casino._groups import VALUES, partition
from projections.games.casino._legal import legal_events
from projections.games.casino._moves import BuildMove, build_check, capture_check
from projections.games.casino._moves import breach as _breach
from projections.games.casino._score import round_lines, sweeps_of
from projections.games.casino._state import CARD_SET, CARDS, FACES, Build, CasinoState
from projections.games.casino.dealing import DEALING_ORDER
from projections.games.casino.duplicate import DUPLICATE
from projections.games.casino.readmodels import RATING, STATISTICS
from projections.games.casino.review import REVIEWER
from projections.games.casino.table import CasinoTable
from projections.games.casino.words import WORDS

__all__ = ["RULES", "CasinoState"]

_new_object = object.__new__
_set_attr = object.__setattr__

#: the highest `target`: a round scores at most 11 points (and the sweeps), so even this is 90 rounds or more
MAX_TARGET = 1000
DECK_SIZE = len(CARDS)

OPTIONS: dict[str, OptionSpec] = {
    "first_dealer": OptionSpec(0, opt_seat, "the dealer of the first round (the lowest cut)", seating=True),
    "target": OptionSpec(
        21,
        opt_int(1, MAX_TARGET),
        f"the game ends after a round in which a seat reaches this total, 1 to {MAX_TARGET:,} (default 21)",
    ),
    "sweeps": OptionSpec(False, opt_bool, "a sweep scores 1 point", scoring_only=True, rule="casino.sweep"),
    # house rule (rules "House rules"): the seed's "if you cannot capture or build, you must trail instead"
    "trail_only_when_forced": OptionSpec(
        False,
        opt_bool,
        "house rule: a player who can capture or build may not trail (casino.trail_when_able, illegal); "
        "default false: a player who owns no build may always trail",
        rule="casino.trail_when_able",
    ),
    "enforcement": ENFORCEMENT,
    "dealing": DEALING,
}


# --------------------------------------------------------------------------- interface


def initial_state(players: Sequence[str], options: Mapping[str, Any]) -> CasinoState:
    n = len(players)
    return CasinoState(
        seats=n,
        options=dict(options),
        next_dealer=options["first_dealer"],
        hands=tuple(frozenset() for _ in range(n)),
        won=tuple(() for _ in range(n)),
        totals=(0,) * n,
    )


def to_act(state: CasinoState) -> tuple[int, ...]:
    if state.phase == "play":
        return (state.to_play,)
    if state.phase == "deal":
        return (_dealer_due(state),)
    return ()


def _dealer_due(state: CasinoState) -> int:
    """The round's dealer within a round; the next dealer between rounds."""
    if state.in_round:
        assert state.dealer is not None
        return state.dealer
    return state.next_dealer


def validate(state: CasinoState, event: Event) -> None:
    """Raises `ImpossibleEventError` / `OutOfTurnError` / `IllegalEventError`."""
    kind = event["type"]
    if kind == "hand_voided":
        return
    if kind == "deal":
        _validate_deal(state, event)
        return
    if state.phase != "play":
        raise OutOfTurnError(f"no card is played now: a deal by {seat_marker(_dealer_due(state))} is due")
    seat, card = event["seat"], event["card"]
    if seat != state.to_play:
        raise OutOfTurnError(f"it is {seat_marker(state.to_play)}'s turn, not {seat_marker(seat)}'s")
    if card not in state.hands[seat]:
        raise ImpossibleEventError(f"{seat_marker(seat)} does not hold {card_marker(card)}", field="card")
    breach: tuple[str, str] | None
    if kind == "capture":
        _, builds = capture_check(state, card, event["take"])
        breach = _breach(state, seat, card, consumed=frozenset(b.id for b in builds))
    elif kind == "build":
        move = build_check(state, card, event["onto"], event["value"])
        increased = move.target if move.kind == "increase" else None
        breach = _breach(state, seat, card, consumed=move.consumed, new_value=move.value, increased=increased)
    elif kind == "trail":
        breach = _breach(state, seat, card, trail=True)
    else:  # pragma: no cover - the schema admits no other type
        raise ImpossibleEventError(f"unknown event {kind}")
    if breach is not None:
        raise IllegalEventError(*breach)
    if kind == "trail" and state.options.get("trail_only_when_forced"):
        able = next((e for e in legal_events(state) if e["type"] != "trail"), None)
        if able is not None:
            raise IllegalEventError(
                "casino.trail_when_able",
                f"{seat_marker(seat)} may not trail {card_marker(card)}: they can {able['type']} with "
                f"{card_marker(able['card'])} (house rule: trail only when no capture or build is possible)",
            )


def _validate_deal(state: CasinoState, event: Event) -> None:
    """The deal's turn, dealer and `table`.

    Its cards (each named once, none already seen in the round) are checked by the engine (`reveals`).
    """
    if state.phase != "deal":
        raise OutOfTurnError(f"{seat_marker(state.to_play)} is to play; the next deal comes when every hand is empty")
    due = _dealer_due(state)
    if event["dealer"] != due:
        why = "the round's dealer deals all its deals" if state.in_round else "the deal passes to the left"
        raise ImpossibleEventError(
            f"{seat_marker(due)} deals now ({why}), not {seat_marker(event['dealer'])}", field="dealer"
        )
    table = event.get("table")
    if state.in_round and table is not None:
        raise ImpossibleEventError(
            f"this is deal {state.deals + 1} of the round: only the first deal lays cards on the table", field="table"
        )
    if not state.in_round and table is None:
        raise ImpossibleEventError("the first deal of a round lays 4 cards on the table: `table` is missing")


def evolve(state: CasinoState, event: CasinoEvent, seq: int) -> tuple[CasinoState, Facts]:
    """The fold step for the event at `seq`: no rule checks, no randomness."""
    # one copy of the state per play: its fields copied once, the move's changes, the hand and the turn set in
    # the copy (the fold's hot path: `fastreplace.copy_with`, without the dict of changes in between)
    values: dict[str, Any]
    facts: Facts
    if event["type"] == "trail":
        seat, card = event["seat"], event["card"]
        values = state.__dict__.copy()
        values["loose"] = (*state.loose, card)
        facts = EMPTY
    elif event["type"] == "capture":
        seat, card = event["seat"], event["card"]
        values = state.__dict__.copy()
        facts = _capture(state, values, seat, card, event["take"], seq)
    elif event["type"] == "build":
        seat, card = event["seat"], event["card"]
        values = state.__dict__.copy()
        facts = _build(state, values, seat, card, event["onto"], event["value"], seq)
    elif event["type"] == "deal":
        return _evolve_deal(state, event)
    elif event["type"] == "hand_voided":
        return _evolve_void(state)
    else:
        assert_never(event)
    held = list(state.hands)
    held[seat] -= {card}
    values["hands"] = hands = tuple(held)
    values["to_play"] = (seat + 1) % state.seats
    if not any(hands):
        if len(state.seen) == DECK_SIZE:
            return _end_round(state, values, facts)
        values["phase"] = "deal"
    after: CasinoState = _new_object(CasinoState)
    _set_attr(after, "__dict__", values)
    return after, facts


def _evolve_deal(state: CasinoState, event: Deal) -> tuple[CasinoState, Facts]:
    hands = tuple([frozenset(h) for h in event["hands"]])
    dealer = event["dealer"]
    n = state.seats
    changes: dict[str, Any]
    if not state.in_round:
        table = tuple(event["table"])
        seen = frozenset(table).union(*hands)
        changes = {
            "hand": state.hand + 1,
            "dealer": dealer,
            "loose": table,
            "builds": (),
            "build_count": 0,
            "won": ((),) * n,
            "cleared": (),
            "last_capture": None,
            "last_captured": (),
            "rest": (),
            "rest_seat": None,
        }
    else:
        seen = state.seen.union(*hands)
        changes = {}
    deals = state.deals + 1
    stock = DECK_SIZE - len(seen)
    changes["phase"] = "play"
    changes["seen"] = seen
    changes["deals"] = deals
    changes["hands"] = hands
    changes["to_play"] = (dealer + 1) % n
    return copy_with(state, changes), {"deal": deals, "last_deal": stock == 0, "stock": stock}


def _evolve_void(state: CasinoState) -> tuple[CasinoState, Facts]:
    """A voided round counts for nothing; the same dealer deals the next one."""
    n = state.seats
    zero = (0,) * n
    voided = replace(
        state,
        phase="deal",
        next_dealer=state.dealer if state.dealer is not None else state.next_dealer,
        deals=0,
        hands=tuple(frozenset() for _ in range(n)),
        seen=frozenset(),
        loose=(),
        builds=(),
        won=tuple(() for _ in range(n)),
        cleared=(),
        last_capture=None,
        last_captured=(),
        rest=(),
        rest_seat=None,
        results=state.results.append(HandScore(state.hand, zero, ())),
    )
    return voided, {"hand_ended": True, "voided": True, "points": seat_dict(zero)}


def _capture(state: CasinoState, values: dict[str, Any], seat: int, card: str, take: Sequence[str], seq: int) -> Facts:
    """Sets in `values` (the copy's fields) what a capture changes; returns its facts."""
    items = set(take)
    table = state.loose
    taken = [c for c in table if c in items]
    loose = tuple([c for c in table if c not in items]) if taken else table
    builds = state.builds
    gone: list[Build] = []
    cards = [card, *taken]
    if builds:
        gone = [b for b in builds if b.id in items]
        if gone:
            builds = tuple([b for b in builds if b.id not in items])
            for b in gone:
                cards += b.cards
    won = list(state.won)
    won[seat] += tuple([(c, seq) for c in cards])
    values["won"] = tuple(won)
    values["loose"] = loose
    values["builds"] = builds
    values["last_capture"] = (seat, seq)
    values["last_captured"] = tuple(cards)
    facts: dict[str, Any] = {"captured": cards}
    if gone:
        facts["builds"] = [b.id for b in gone]
    if len(taken) == 3 and card[0] in FACES:
        facts["three_faces"] = True
    if not loose and not builds:
        facts["table_cleared"] = True
        values["cleared"] = (*state.cleared, (seat, seq))
    return facts


def _build(
    state: CasinoState, values: dict[str, Any], seat: int, card: str, onto: Sequence[str], value: int | str, seq: int
) -> Facts:
    """Sets in `values` (the copy's fields) what a build changes; returns its facts."""
    move = _read_build(state, card, onto, value)
    if move.target is not None:
        old = move.target
        changed = Build(old.id, value, (*old.cards, card), False, seat, seq)  # one group: `group_list`
        values["builds"] = tuple([changed if b.id == old.id else b for b in state.builds])
        facts = {"build": old.id, "value": value, "cards": list(changed.cards), "multiple": False}
        facts["increased" if move.kind == "increase" else "face_added"] = True
        return facts
    used = set(onto)
    count = state.build_count + 1
    cards = (*move.loose, *(c for b in move.builds for c in b.cards), card)
    groups = _groups_of(move, card) if move.multiple else ()
    new = Build(f"b{count}", value, cards, move.multiple, seat, seq, groups)
    facts = {"build": new.id, "value": value, "cards": list(cards), "multiple": move.multiple}
    if move.builds:
        facts["replaced"] = [b.id for b in move.builds]
    values["loose"] = tuple([c for c in state.loose if c not in used])
    values["builds"] = (*(b for b in state.builds if b.id not in used), new)
    values["build_count"] = count
    return facts


def _groups_of(move: BuildMove, card: str) -> tuple[tuple[str, ...], ...]:
    """A new multiple build's groups: those of the builds it takes in, then its loose cards and the
    played card split into groups of the value (for the table a reader sees, not for the rules)."""
    taken = tuple(g for b in move.builds for g in b.group_list)
    assert isinstance(move.value, int)
    split = partition((*move.loose, card), move.value) if move.loose else [(card,)]
    return (*taken, *(split or [(*move.loose, card)]))


def _read_build(state: CasinoState, card: str, onto: Sequence[str], value: int | str) -> BuildMove:
    """`build_check`'s reading of a build already decided, for the fold: the same move, without its checks.

    The fold only replays events that `decide` accepted, so what `build_check` verifies (items named
    once, on the table, splitting into groups of the value) holds; `build_check` re-verified it on
    every build (issue 15). A build that is not on the table still goes to `build_check`, which says why.
    """
    loose: list[str] = []
    builds: list[Build] = []
    for item in onto:
        if item.startswith("b"):
            found = state.build(item)
            if found is None:
                return build_check(state, card, onto, value)
            builds.append(found)
        else:
            loose.append(item)
    r = card[0]
    if r in FACES:
        if builds:
            return BuildMove("face_add", r, (), tuple(builds), builds[0], False)
        return BuildMove("new", r, tuple(loose), (), None, False)
    cv = VALUES[r]
    assert isinstance(value, int)
    if len(onto) == 1 and builds and not builds[0].is_face and builds[0].value == value - cv:
        return BuildMove("increase", value, (), tuple(builds), builds[0], False)
    multiple = bool(builds) or cv + sum([VALUES.get(c[0], 0) for c in loose]) > value
    return BuildMove("new", value, tuple(loose), tuple(builds), None, multiple)


def _end_round(state: CasinoState, values: dict[str, Any], facts: Facts) -> tuple[CasinoState, Facts]:
    """The last card is played (`values`: the fields after it, `facts` its facts): the table goes to the last
    capturer; score the round.

    Two states: the one the round's lines are read from, then the one after the round.
    """
    rest = values["loose"] + tuple([c for b in values["builds"] for c in b.cards])
    n = state.seats
    won = values["won"]
    last_capture = values["last_capture"]
    rest_seat = None
    if last_capture is not None:
        rest_seat, at = last_capture
        won = (*won[:rest_seat], (*won[rest_seat], *((c, at) for c in rest)), *won[rest_seat + 1 :])
    values["loose"] = ()
    values["builds"] = ()
    values["won"] = won
    values["rest"] = rest
    values["rest_seat"] = rest_seat
    state = _new_object(CasinoState)
    _set_attr(state, "__dict__", values)
    result = hand_score(state.hand, n, round_lines(state))
    totals = tuple(t + p for t, p in zip(state.totals, result.points, strict=True))
    best = max(totals)
    leaders = [s for s in range(n) if totals[s] == best]
    over = best >= state.options["target"] and len(leaders) == 1
    assert state.dealer is not None
    ended = {
        **facts,
        "hand_ended": True,
        "points": seat_dict(result.points),
        "rest": {"seat": rest_seat, "cards": list(rest)},
        "sweeps": [{"seat": s, "seq": q} for s, q in sweeps_of(state)],
    }
    after = copy_with(
        state,
        {
            "phase": "over" if over else "deal",
            "deals": 0,
            "next_dealer": (state.dealer + 1) % n,
            "results": state.results.append(result),
            "totals": totals,
            "winner": leaders[0] if over else None,
        },
    )
    return after, ended


def score(state: CasinoState) -> ScoreSheet:
    """Totals are cumulative round points; the game ends by `_end_round`'s rule."""
    return ScoreSheet(state.totals, state.results, state.phase == "over", state.winner)


def is_terminal(state: CasinoState) -> bool:
    return state.phase == "over"


def hand_in_progress(state: CasinoState) -> bool:
    return state.in_round


def chance_events(state: CasinoState, rng: random.Random) -> list[dict[str, Any]]:
    """The due deal, from the cards not yet dealt in this round, shuffled."""
    if state.phase != "deal":
        return []
    cards = sorted(CARD_SET - state.seen) if state.in_round else list(CARDS)
    rng.shuffle(cards)
    n = state.seats
    event: dict[str, Any] = {
        "type": "deal",
        "dealer": _dealer_due(state),
        "hands": [cards[4 * s : 4 * s + 4] for s in range(n)],
    }
    if not state.in_round:
        event["table"] = cards[4 * n : 4 * n + 4]
    return [event]


def _held(state: CasinoState) -> dict[int, frozenset[str]]:
    """The cards each seat holds: seen by that seat alone (every played card is seen by all)."""
    return dict(enumerate(state.hands))


#: a deal's hands are each seen by their own seat; the table and every played card by all
VISIBILITY: Visibility[CasinoState] = Visibility(secrets={"deal": (Secret("hands", "each_seat"),)}, held=_held)


def view(state: CasinoState, seat: Viewpoint) -> dict[str, Any]:
    """The table as `seat` saw it: the other hands as counts only (`VISIBILITY`)."""
    seats = []
    for s in range(state.seats):
        doc: dict[str, Any] = {"seat": s, **VISIBILITY.seat_cards(state, seat, s, sorted(state.hands[s]))}
        pile = [c for c, _ in state.won[s]]
        doc.update(
            captured=pile,
            captured_count=len(pile),
            spades=sum(1 for c in pile if c[1] == "S"),
            builds=[b.id for b in state.owned(s)],
            dealer=s == state.dealer,
        )
        seats.append(doc)
    last = state.last_capture
    ended = not state.in_round and state.hand > 0
    points = hand_score(state.hand, state.seats, round_lines(state)).points if state.hand else (0,) * state.seats
    return {
        "phase": state.phase,
        "to_act": list(to_act(state)),
        "seats": seats,
        "table": {
            "dealer": state.dealer,
            "deal": _deal_shown(state),
            "deals": state.deals_in_round,
            "last_deal": state.in_round and len(state.seen) == DECK_SIZE,
            "stock": DECK_SIZE - len(state.seen) if state.in_round else 0,
            "loose": list(state.loose),
            "builds": [b.to_dict() for b in state.builds],
            "last_capture": None if last is None else _last_capture_doc(state, last),
            "rest": {"seat": state.rest_seat, "cards": list(state.rest)} if ended and state.rest else None,
            "target": state.options["target"],
            "sweeps_score": state.options["sweeps"],
        },
        "hand_points": seat_dict(points),
    }


def _deal_shown(state: CasinoState) -> int:
    """The deal of the round shown: within a round the deals made; after a round played to its last card
    that round's deal count ("deal 4 of 4", not "0 of 4"); 0 before a round or after a voided one."""
    if state.in_round or len(state.seen) != DECK_SIZE:
        return state.deals
    return state.deals_in_round


def _last_capture_doc(state: CasinoState, last: tuple[int, int]) -> dict[str, Any]:
    """The last capture: who played which card (`card`) and took what (`took`), at which seq."""
    captured = state.last_captured
    return {"seat": last[0], "seq": last[1], "card": captured[0] if captured else None, "took": list(captured[1:])}


#: the events `situations` can tag (a build; a capture of three faces or of builds; a round's end naming sweeps)
SITUATION_READS = SituationReads(types=("build",), result_marks=('"sweeps"', '"three_faces"', '"builds"'))


def situations(event: Event, result: Mapping[str, Any]) -> list[str]:
    """Search tags: sweep, three_faces, build_captured, build, multiple_build, increase, face_build.

    `sweep` is given by the round's last play when its `sweeps` (the round's end facts) name
    any: only then is it known which table-clearing captures were sweeps.
    """
    tags = []
    kind = event["type"]
    if result.get("sweeps"):
        tags.append("sweep")
    if kind == "capture":
        if result.get("three_faces"):
            tags.append("three_faces")
        if result.get("builds"):
            tags.append("build_captured")
    elif kind == "build":
        tags.append("build")
        if result.get("multiple"):
            tags.append("multiple_build")
        if result.get("increased"):
            tags.append("increase")
        if isinstance(event.get("value"), str):
            tags.append("face_build")
    return tags


def census(state: CasinoState) -> Census:
    """The hands, the table (loose and built), the captured piles; the undealt rest unseen."""
    places: dict[str, tuple[str, ...]] = {}
    for s in range(state.seats):
        places[f"hand {s}"] = tuple(state.hands[s])
        places[f"won {s}"] = tuple(c for c, _ in state.won[s])
    places["table"] = state.loose
    for b in state.builds:
        places[f"build {b.id}"] = b.cards
    if state.rest_seat is None:
        places["counted for nobody"] = state.rest
    unseen = DECK_SIZE - len(state.seen)
    return Census(places, unseen, CARD_SET, VISIBILITY.held(state))


# --------------------------------------------------------------------------- the declaration


class Phase(StrEnum):
    """The state's `phase` values (the strings the state and the state document hold)."""

    DEAL = "deal"
    PLAY = "play"
    OVER = "over"


def next_to_act(state: CasinoState) -> ToAct:
    """The seat to play, CHANCE when a deal is due, () once the game is over."""
    return CHANCE if state.phase == Phase.DEAL else to_act(state)


SITUATION_TAGS: dict[str, str] = {
    "sweep": "a capture that cleared the table (scored with the `sweeps` option), written at its seq",
    "three_faces": "a face card captured the other three of its rank from the table",
    "build_captured": "a capture that took a build",
    "build": "a build was made",
    "multiple_build": "a build of several groups of the same value",
    "increase": "a build was increased to a higher value",
    "face_build": "a build of face cards",
}

FIELDS: dict[str, dict[str, FieldKind]] = {
    "deal": {"dealer": "seat", "hands": "cards", "table": "cards"},
    "capture": {"seat": "seat", "card": "card", "take": "cards"},
    "build": {"seat": "seat", "card": "card", "onto": "cards"},
    "trail": {"seat": "seat", "card": "card"},
}


RULES: GameRules[CasinoState] = GameRules(
    kind="casino",
    title="Casino",
    player_counts=(2, 3, 4),
    events=EVENTS,
    event_types=CasinoEvent,
    options=OPTIONS,
    initial_state=initial_state,
    validate=validate,
    evolve=evolve,
    score=score,
    legal_events=legal_events,
    chance_events=chance_events,
    view=view,
    table=CasinoTable,
    visibility=VISIBILITY,
    is_terminal=is_terminal,
    hand_in_progress=hand_in_progress,
    census=census,
    situations=situations,
    situation_reads=SITUATION_READS,
    demo_players=("Ann", "Ben", "Cho"),
    phases=Phase,
    situation_tags=SITUATION_TAGS,
    fields=FIELDS,
    to_act=next_to_act,
    # a deal's cards come out of the unseen deck: each once, none already seen in the round (`engine.check_revealed`)
    reveals={"deal": ("hands", "table")},
    bot=bots.bot,
    demo_situations=frozenset({"sweep", "build"}),
    disputed=_offers.disputed,
    dealing_order=DEALING_ORDER,
    statistics=STATISTICS,
    rating=RATING,
    words=WORDS,
    duplicate=DUPLICATE,
    review=REVIEWER,
)
