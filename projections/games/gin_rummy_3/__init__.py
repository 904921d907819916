"""Gin Rummy for three players: the box against the captain, a sitter out, game to 100.

Rule source: `rules/gin-rummy-3.md` (from seed `002_b5302193840c3a24.txt`).
Options: `first_roles` (`{box, captain, sitter}`, replaces the cut; default
none), `gin_bonus` (25 or 20, default 25), `undercut_bonus` (0 to 100,
default 10), `enforcement`, and the house rules (rules "House rules"; a
record made before them reads as their defaults): `gin_scoring`
(`"bonus_plus_deadwood"`, default, or `"flat"`: a gin scores the gin bonus
alone; scoring only, like the two bonuses) and `discard_taken_card` (bool,
default true; false: the card just taken from the discard pile may not be
discarded at once, `gin.discard_taken_card`, illegal; a play option).

Readings of the rule text:

- The cut: `cards[i]` is seat i's card; the highest rank (K high, A low) is in
  the box, the middle one captain, the lowest sitter; two equal ranks make
  the cut impossible. The cut cards go back: they are not "seen" in hand 1.
- A `deal` names exactly the box's and the captain's seats in `hands`
  (anything else is impossible); the box deals, so no dealer field.
- Upcard offer: the captain, then the box, may take the upcard (`draw` from
  `discard`) or `pass`; a stock draw, a discard or a knock then is
  impossible. After two passes the captain's first draw must be from the
  stock. After a taken upcard the taker discards (or knocks) and the other
  player continues, as in any turn.
- A knock comes instead of the discard of a turn (after the draw), the
  discarded card is named in the event and goes onto the pile; its `melds`
  are the record. A meld that is not a meld, a card not held, a card twice
  or the discard inside a meld is impossible; declared deadwood over 10 is
  `gin.knock_over_ten`, scored as declared under `record`.
- Lay-off: the defender's melds must be melds of its own cards; each lay-off
  names a card the defender holds outside its melds and a knocker's meld
  index; it must fit the meld as extended by the lay-offs before it
  (impossible otherwise). After a gin any lay-off is `gin.layoff_after_gin`
  (checked after the fit checks); under `record` it is applied as played.
- Scoring: K is the knocker's declared deadwood, D the defender's cards in
  neither its melds nor its lay-offs. Gin (K = 0): gin bonus + D to the
  knocker; K < D: D - K to the knocker; K >= D (not gin): undercut bonus +
  (K - D) to the defender. The seat that scores "wins" the hand (also when
  an undercut is worth 0 with `undercut_bonus` 0), which decides the roles
  of the next hand (the state keeps the hand's own roles until that deal,
  in `next_roles`); the sitter's points are always 0.
- `discard_taken_card: false`: the card taken from the pile (the upcard
  too) may not be the turn's discard, nor a knock's `discard` (a knock
  discards as a turn does); stored as played under `record`. With `gin_scoring:
  "flat"` the gin's `gin.gin_deadwood` line is written at 0, saying why.
- Drawn hand: checked after each `discard` (a knock is never drawn); with 31
  cards dealt to the stock, the hand is drawn by the discard that follows the
  29th stock draw. It scores 0 for all seats (one zero-point line says why);
  roles stay and the box deals again. A voided hand: the same.
- The game ends after the hand in which a seat reaches 100; only one seat
  scores per hand, so that seat is the winner.
- The sitter sees only the public table (as a spectator): its advice to the
  captain is not modelled, so no view shows it the captain's cards.

`phase` values: `cut` (the cut is due), `deal` (the box deals), `offer` (the
upcard offer of a hand's first turn), `draw`, `discard` (the player has
drawn: discard or knock), `lay_off` (the defender lays out after a knock),
`over` (the game has ended).

`table` fields: `box`, `captain`, `sitter` (seats: the roles of the hand in
progress, or of the hand just ended until the next deal, so that a frame of a
hand's end shows the roles it was played with), `next_roles` (`{box, captain,
sitter}` of the deal that is due, in phase `deal`, else null), `cut` (`{seat:
card}` until the first deal, else null), `pile` (the discard pile, bottom to
top; the upcard is its first card), `pile_top`, `stock` (cards left),
`passes` (in the upcard offer), `stock_only` (the captain must draw from the
stock), `knock` (`{seat, discard, melds, deadwood, count, gin, seq}` or null;
`melds` one list per meld, in the knock event's order), `layout` (the
defender's `{seat, melds, layoffs: [{card, meld, onto}], extended, deadwood,
count, seq}` or null; a lay-off's `meld` is the index of the knocker's meld
in `knock.melds`, from 0 as in the event, `onto` that meld's cards when the
card joined it (with the lay-offs before it), `extended[meld]` the meld with
all its lay-offs), `last_hand` (`{hand,
points}` of the last finished hand, or null). Each seat shows `role` (in the
hand shown), and `cards` (its own, or everyone's once laid out face up) or
`card_count`; the knocker's and the defender's cards stay as laid down until
the next deal.

Result facts (the envelope's `result`): `cut` and `deal` give the roles;
`draw` the `stock` left (and `upcard: true` when the upcard is taken);
`discard` the `stock`, and `hand_ended`, `drawn`, `points` for a drawn hand;
`knock` gives `melds` (the declared melds, one list each, in the event's
order: the numbering lay-offs use), `deadwood` (declared count),
`deadwood_cards`, `gin` and `better_melding`; `lay_off` gives `hand_ended`,
`points`, `layoffs` (`[{card, meld, onto}]` as in the state), `rule`, `outcome`
(`gin`, `knock` or `undercut`), `scorer`, `knocker_deadwood`,
`defender_deadwood`, `box_won` and `next_roles`. Search tags
(`situations`): `knock` (every knock, gins too), `gin`, `better_melding`,
`undercut`, `layoff`, `drawn_hand`, `upcard`.

`legal_events` offers, besides take/pass/draw-from-pile and every discard,
a knock for every discard and *every* arrangement of disjoint melds (maximal
or not) that leaves 10 or less, and for the lay-off every maximal meld
arrangement of the defender's cards without lay-offs and with the greedy
lay-offs it allows (none after a gin); see `_table.py`.

The meld arithmetic (`best_melding`, `better_melding`, `all_meldings`,
`maximal_meldings`) is in `_melds.py` and exported here; the bots are in
`bot.py`: `RULES.bot` with table sense, and `RULES.playout_bot`, a beginner that
knocks when it can (uniformly random play hardly ever knocks). The `knock` event's result carries
`better_melding`: null, or `{melds, deadwood, count, declared_count}` when
another arrangement of the knocker's 10 cards had less deadwood than the
declared one (for the audit's note "a better melding existed").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, assert_never

from events.cards import RANKS
from events.errors import IllegalEventError, ImpossibleEventError, OutOfTurnError
from events.games.gin_rummy_3 import EVENTS, Cut, Deal, Discard, Draw, GinEvent, LayOff
from events.games.gin_rummy_3 import Knock as KnockEvent
from projections.core.fastreplace import copy_with, replace
from projections.core.phrases import card as card_text
from projections.core.phrases import cards as cards_text
from projections.core.phrases import seat as player
from projections.core.rules import (
    CHANCE,
    Event,
    Facts,
    FieldKind,
    GameRules,
    HandScore,
    ScoreSheet,
    ToAct,
    hand_score,
    replace_at,
    seat_dict,
)
from projections.games.gin_rummy_3 import _offers
from projections.games.gin_rummy_3 import bot as bots
from projections.games.gin_rummy_3._melds import (
    Melding,
    all_meldings,
    best_melding,
    better_melding,
    deadwood_value,
    extend_meld,
    layoff_steps,
    maximal_meldings,
    meld_kind,
    ordered_meld,
    sort_cards,
)
from projections.games.gin_rummy_3._score import drawn_hand_line, hand_lines
from projections.games.gin_rummy_3._state import (
    DRAWN_AT,
    GAME_TARGET,
    KNOCK_LIMIT,
    OPTIONS,
    STOCK_AFTER_DEAL,
    GinState,
    Knock,
    Layout,
    roles_of,
    to_act,
)
from projections.games.gin_rummy_3._table import (
    REVEALS,
    SITUATION_READS,
    VISIBILITY,
    census,
    chance_events,
    legal_events,
    situations,
    view,
)
from projections.games.gin_rummy_3.dealing import DEALING_ORDER
from projections.games.gin_rummy_3.duplicate import DUPLICATE
from projections.games.gin_rummy_3.readmodels import RATING, STATISTICS
from projections.games.gin_rummy_3.review import REVIEWER
from projections.games.gin_rummy_3.table import GinTable
from projections.games.gin_rummy_3.words import WORDS

__all__ = [
    "OPTIONS",
    "RULES",
    "GinState",
    "Melding",
    "all_meldings",
    "best_melding",
    "better_melding",
    "maximal_meldings",
]


# --------------------------------------------------------------------------- interface


def initial_state(players: Sequence[str], options: Mapping[str, Any]) -> GinState:
    roles = roles_of(options)
    if roles is None:
        return GinState(seats=3, options=dict(options))
    return GinState(
        seats=3,
        options=dict(options),
        phase="deal",
        box=roles["box"],
        captain=roles["captain"],
        sitter=roles["sitter"],
    )


def validate(state: GinState, event: Event) -> None:
    """Raises `ImpossibleEventError` / `OutOfTurnError` / `IllegalEventError`."""
    kind = event["type"]
    if kind == "hand_voided":
        return
    if kind == "cut":
        _validate_cut(state, event["cards"])
        return
    if kind == "deal":
        _validate_deal(state, event)
        return
    if state.phase == "cut":
        raise OutOfTurnError("no hand is in progress: the cut for the roles comes first")
    if state.phase == "deal":
        roles = state.dealing_roles
        box = "the box" if roles is None else f"the box, {player(roles[0])},"
        raise OutOfTurnError(f"no hand is in progress: a deal by {box} is due")
    seat = event["seat"]
    assert state.turn is not None
    if seat != state.turn:
        what = {"offer": "to take or pass the upcard", "lay_off": "to lay off"}.get(state.phase, f"to {state.phase}")
        raise OutOfTurnError(f"it is {player(state.turn)}'s turn {what}, not {player(seat)}'s")
    if kind == "pass":
        if state.phase != "offer":
            raise OutOfTurnError("pass is only for the upcard offer of a hand's first turn")
    elif kind == "draw":
        _validate_draw(state, seat, event["source"], event["card"])
    elif kind == "discard":
        _expect_discard_phase(state, seat, kind)
        _expect_held(state, seat, event["card"])
        _check_taken_card(state, seat, event["card"])
    elif kind == "knock":
        _validate_knock(state, seat, event["discard"], event["melds"])
        _check_taken_card(state, seat, event["discard"])
    elif kind == "lay_off":
        _validate_lay_off(state, seat, event["melds"], event["layoffs"])
    else:  # pragma: no cover - the schema admits no other type
        raise ImpossibleEventError(f"unknown event {kind}")


def _validate_cut(state: GinState, cards: Sequence[str]) -> None:
    if state.options.get("first_roles"):
        raise ImpossibleEventError("the option first_roles sets the roles of the first hand: no cut is made")
    if state.phase != "cut":
        raise OutOfTurnError("the cut has already been made")
    ranks = [c[0] for c in cards]
    if len(set(ranks)) != 3:
        raise ImpossibleEventError(
            f"the cut {cards_text(cards)} needs three different ranks to rank the seats (K high, A low)"
        )


def _validate_deal(state: GinState, event: Event) -> None:
    if state.phase == "cut":
        raise OutOfTurnError("the first deal needs a cut before it (or the option first_roles)")
    if state.phase != "deal":
        raise OutOfTurnError("a hand is in progress; a new deal comes after it ends (or after hand_voided)")
    named = sorted(int(s) for s in event["hands"])
    roles = state.dealing_roles
    assert roles is not None
    box, captain, _ = roles
    if named != sorted((box, captain)):
        given = " and ".join(player(s) for s in named) or "nobody"
        raise ImpossibleEventError(
            f"the deal gives 10 cards each to the box, {player(box)}, and the captain, {player(captain)}, "
            f"not to {given}",
            field="hands",
        )


def _validate_draw(state: GinState, seat: int, source: str, card: str) -> None:
    if state.phase == "offer":
        if source == "stock":
            raise ImpossibleEventError(
                f"during the upcard offer {player(seat)} may take the upcard {card_text(state.upcard or '')} or "
                "pass, not draw from the stock"
            )
    elif state.phase in ("discard", "lay_off"):
        raise OutOfTurnError(
            f"{player(seat)} has drawn and must discard or knock"
            if state.phase == "discard" or state.knock is None
            else f"the play has ended with {player(state.knock.seat)}'s knock"
        )
    elif source == "discard" and state.stock_only:
        raise ImpossibleEventError(
            f"both players passed the upcard {card_text(state.upcard or '')}: {player(seat)} must draw from the stock"
        )
    if source == "discard":
        top = state.pile[-1] if state.pile else None
        if card != top:
            shown = "empty" if top is None else card_text(top)
            raise ImpossibleEventError(f"the top of the discard pile is {shown}, not {card_text(card)}")
        return
    # A stock draw's card must not have been seen in the hand. Not a `reveals` declaration: that applies to
    # every `draw`, and a draw from the discard pile names its top card, which the table has seen.
    if card in state.seen:
        raise ImpossibleEventError(f"{card_text(card)} has already been seen in this hand; it is not in the stock")


def _expect_discard_phase(state: GinState, seat: int, kind: str) -> None:
    if state.phase == "offer":
        raise OutOfTurnError(
            f"{player(seat)} must take the upcard {card_text(state.upcard or '')} or pass before it may {kind}"
        )
    if state.phase == "draw":
        raise OutOfTurnError(f"{player(seat)} must draw before it may {kind}")
    if state.phase != "discard":
        raise OutOfTurnError(f"the play has ended: no {kind} now")


def _expect_held(state: GinState, seat: int, card: str) -> None:
    if card not in state.hands[seat]:
        raise ImpossibleEventError(f"{player(seat)} does not hold {card_text(card)}")


def _check_taken_card(state: GinState, seat: int, card: str) -> None:
    """The house rule `discard_taken_card: false`: the card just taken from the pile is not discarded at once."""
    if card == state.taken and state.options.get("discard_taken_card", True) is False:
        raise IllegalEventError(
            "gin.discard_taken_card",
            f"{player(seat)} took {card_text(card)} from the discard pile and may not discard it at once "
            "(house rule discard_taken_card off)",
        )


def _check_melds(state: GinState, seat: int, melds: Sequence[Sequence[str]], taken: set[str]) -> None:
    """Each meld a meld of cards `seat` holds, no card twice (`taken` collects them)."""
    for meld in melds:
        if meld_kind(meld) is None:
            raise ImpossibleEventError(
                f"{cards_text(meld) if meld else 'an empty list'} is not a meld (a set of 3 or 4 of one rank, "
                "or a run of 3 or more of one suit, ace low)"
            )
        for card in meld:
            _expect_held(state, seat, card)
            if card in taken:
                raise ImpossibleEventError(f"{card_text(card)} is laid out twice")
            taken.add(card)


def _validate_knock(state: GinState, seat: int, discard: str, melds: Sequence[Sequence[str]]) -> None:
    _expect_discard_phase(state, seat, "knock")
    _expect_held(state, seat, discard)
    taken = {discard}
    for meld in melds:
        if discard in meld:
            raise ImpossibleEventError(f"{card_text(discard)} is the knock's discard; it cannot also be in a meld")
    _check_melds(state, seat, melds, taken)
    deadwood = sort_cards(state.hands[seat] - taken)
    count = deadwood_value(deadwood)
    if count > KNOCK_LIMIT:
        raise IllegalEventError(
            "gin.knock_over_ten",
            f"{player(seat)} knocks with declared deadwood {cards_text(deadwood)} = {count}, over {KNOCK_LIMIT}",
        )


def _validate_lay_off(
    state: GinState, seat: int, melds: Sequence[Sequence[str]], layoffs: Sequence[Mapping[str, Any]]
) -> None:
    knock = state.knock
    if state.phase != "lay_off" or knock is None:
        raise OutOfTurnError("a lay_off comes only after a knock, from the other player")
    taken: set[str] = set()
    _check_melds(state, seat, melds, taken)
    extended = list(knock.melds)
    for layoff in layoffs:
        card, index = layoff["card"], layoff["meld"]
        _expect_held(state, seat, card)
        if card in taken:
            raise ImpossibleEventError(
                f"{card_text(card)} is in {player(seat)}'s own melds or laid off already; it is laid off once"
            )
        if index >= len(extended):
            raise ImpossibleEventError(
                f"the knock at event {knock.seq} declared {len(extended)} melds (meld 0 to {len(extended) - 1}, in the "
                f"knock's order); there is no meld {index}"
            )
        grown = extend_meld(extended[index], card)
        if grown is None:
            raise ImpossibleEventError(
                f"{card_text(card)} does not fit the knocker's meld {index} ({cards_text(extended[index])})"
            )
        extended[index] = grown
        taken.add(card)
    if knock.gin and layoffs:
        laid = cards_text(lo["card"] for lo in layoffs)
        raise IllegalEventError(
            "gin.layoff_after_gin",
            f"{player(knock.seat)} went gin at event {knock.seq}: {player(seat)} may not lay off {laid}",
        )


_new_object = object.__new__
_set_attr = object.__setattr__


def evolve(state: GinState, event: GinEvent, seq: int) -> tuple[GinState, Facts]:
    """The fold step for the event whose seq is `seq`: no rule checks, no randomness."""
    if event["type"] == "draw":
        return _evolve_draw(state, event)
    elif event["type"] == "discard":
        return _evolve_discard(state, event, seq)
    elif event["type"] == "pass":
        if state.passes == 0:
            return copy_with(state, {"passes": 1, "turn": state.box}), {"offer_to": state.box}
        return copy_with(state, {"passes": 2, "phase": "draw", "turn": state.captain}), {"stock_only": True}
    elif event["type"] == "knock":
        return _evolve_knock(state, event, seq)
    elif event["type"] == "lay_off":
        return _evolve_lay_off(state, event, seq)
    elif event["type"] == "deal":
        return _evolve_deal(state, event, seq)
    elif event["type"] == "cut":
        return _evolve_cut(state, event)
    elif event["type"] == "hand_voided":
        void = HandScore(state.hand, (0, 0, 0), ())
        return (
            replace(state, phase="deal", turn=None, results=state.results.append(void), hand_points=(0, 0, 0)),
            {"hand_ended": True, "voided": True, "points": seat_dict((0, 0, 0))},
        )
    else:
        assert_never(event)


def _evolve_cut(state: GinState, event: Cut) -> tuple[GinState, Facts]:
    cards = event["cards"]
    order = sorted(range(3), key=lambda s: RANKS.index(cards[s][0]), reverse=True)
    box, captain, sitter = order
    return (
        replace(state, phase="deal", box=box, captain=captain, sitter=sitter, cut=tuple(cards)),
        {"box": box, "captain": captain, "sitter": sitter},
    )


def _evolve_deal(state: GinState, event: Deal, seq: int) -> tuple[GinState, Facts]:
    hands = [frozenset[str]() for _ in range(3)]
    for key, cards in event["hands"].items():
        hands[int(key)] = frozenset(cards)
    upcard = event["upcard"]
    roles = state.dealing_roles
    assert roles is not None
    box, captain, sitter = roles
    after = replace(
        state,
        hand=state.hand + 1,
        phase="offer",
        box=box,
        captain=captain,
        sitter=sitter,
        next_roles=None,
        cut=(),
        hands=tuple(hands),
        pile=(upcard,),
        upcard=upcard,
        stock=STOCK_AFTER_DEAL,
        seen=frozenset().union(*hands, {upcard}),
        turn=captain,
        passes=0,
        knock=None,
        layout=None,
        revealed=frozenset(),
        deal_seq=seq,
        hand_points=(0, 0, 0),
    )
    return after, {"box": box, "captain": captain, "sitter": sitter, "stock": STOCK_AFTER_DEAL}


def _evolve_draw(state: GinState, event: Draw) -> tuple[GinState, Facts]:
    # the hot path (with the discard): the copy is built inline, one copy of the state's `__dict__`
    # (`fastreplace.copy_with` without its call)
    seat, card = event["seat"], event["card"]
    hands = list(state.hands)
    hands[seat] = hands[seat] | {card}
    stock = state.stock
    values = state.__dict__.copy()
    values["phase"] = "discard"
    values["hands"] = tuple(hands)
    values["passes"] = 0
    facts: dict[str, Any]
    if event["source"] == "discard":
        values["pile"] = state.pile[:-1]
        values["taken"] = card
        facts = {"stock": stock}
        if state.phase == "offer":
            facts["upcard"] = True
    else:
        values["taken"] = None
        values["stock"] = stock - 1
        values["seen"] = state.seen | {card}
        facts = {"stock": stock - 1}
    after: GinState = _new_object(GinState)
    _set_attr(after, "__dict__", values)
    return after, facts


def _evolve_discard(state: GinState, event: Discard, seq: int) -> tuple[GinState, Facts]:
    seat, card = event["seat"], event["card"]
    hands = list(state.hands)
    hands[seat] = hands[seat] - {card}
    stock = state.stock
    if stock > DRAWN_AT:
        values = state.__dict__.copy()
        values["phase"] = "draw"
        values["turn"] = state.captain if seat == state.box else state.box
        values["hands"] = tuple(hands)
        values["pile"] = (*state.pile, card)
        after: GinState = _new_object(GinState)
        _set_attr(after, "__dict__", values)
        return after, {"stock": stock}
    line = drawn_hand_line(state, seat, card, seq)
    result = hand_score(state.hand, 3, [line])
    after = replace(
        state,
        hands=tuple(hands),
        pile=(*state.pile, card),
        phase="deal",
        turn=None,
        results=state.results.append(result),
        hand_points=(0, 0, 0),
    )
    return after, {"stock": stock, "hand_ended": True, "drawn": True, "points": seat_dict(result.points)}


def _evolve_knock(state: GinState, event: KnockEvent, seq: int) -> tuple[GinState, Facts]:
    seat, discard = event["seat"], event["discard"]
    held = state.hands[seat] - {discard}
    melds = tuple(ordered_meld(m) for m in event["melds"])
    in_melds = {c for m in melds for c in m}
    deadwood = sort_cards(held - in_melds)
    knock = Knock(seat, discard, melds, deadwood, deadwood_value(deadwood), seq)
    better = better_melding(held, melds)
    facts: dict[str, Any] = {
        "melds": [list(m) for m in melds],
        "deadwood": knock.count,
        "deadwood_cards": list(deadwood),
        "gin": knock.gin,
        "better_melding": None if better is None else {**better.to_dict(), "declared_count": knock.count},
    }
    if better is not None:
        shown = " + ".join(cards_text(m) for m in better.melds)
        facts["audit_notes"] = [
            f"{player(seat)} knocked declaring deadwood {knock.count}, but a better melding existed: "
            f"{shown}, deadwood {better.count}"
        ]
    after = replace(
        state,
        phase="lay_off",
        hands=replace_at(state.hands, seat, held),
        pile=(*state.pile, discard),
        turn=state.opponent(seat),
        knock=knock,
        revealed=frozenset({seat}),
    )
    return after, facts


def _evolve_lay_off(state: GinState, event: LayOff, seq: int) -> tuple[GinState, Facts]:
    knock = state.knock
    assert knock is not None
    seat = event["seat"]
    melds = tuple(ordered_meld(m) for m in event["melds"])
    extended = list(knock.melds)
    layoffs: list[tuple[str, int]] = []
    for lo in event["layoffs"]:
        card, index = lo["card"], lo["meld"]
        layoffs.append((card, index))
        grown = extend_meld(extended[index], card) if index < len(extended) else None
        if grown is not None:
            extended[index] = grown
    out = {c for m in melds for c in m} | {c for c, _ in layoffs}
    deadwood = sort_cards(state.hands[seat] - out)
    layout = Layout(seat, melds, tuple(layoffs), tuple(extended), deadwood, deadwood_value(deadwood), seq)
    state = replace(state, layout=layout, revealed=frozenset({knock.seat, seat}), turn=None)
    lines = hand_lines(state, knock, layout)
    result = hand_score(state.hand, 3, lines)
    scorer = lines[0].seat
    totals = tuple(t + p for t, p in zip(state.totals, result.points, strict=True))
    box_won = scorer == state.box
    assert state.box is not None and state.captain is not None and state.sitter is not None
    if box_won:
        roles = (state.box, state.sitter, state.captain)
    else:
        roles = (state.captain, state.sitter, state.box)
    over = totals[scorer] >= GAME_TARGET
    # the shown roles stay the hand's own until the next deal (a replay frame of the hand's end shows
    # who knocked as the captain or the box); the deal takes `next_roles`
    after = replace(
        state,
        phase="over" if over else "deal",
        next_roles=roles,
        results=state.results.append(result),
        totals=totals,
        hand_points=result.points,
    )
    return after, {
        "hand_ended": True,
        "points": seat_dict(result.points),
        "layoffs": [{"card": c, "meld": i, "onto": list(m)} for c, i, m in layoff_steps(knock.melds, layout.layoffs)],
        "rule": lines[0].rule,
        "outcome": "gin" if knock.gin else ("knock" if scorer == knock.seat else "undercut"),
        "scorer": scorer,
        "knocker_deadwood": knock.count,
        "defender_deadwood": layout.count,
        "box_won": box_won,
        "next_roles": {"box": roles[0], "captain": roles[1], "sitter": roles[2]},
    }


def score(state: GinState) -> ScoreSheet:
    """Totals are cumulative points; the game ends after the hand in which a seat reaches 100."""
    winner = max(range(3), key=lambda s: state.totals[s]) if state.phase == "over" else None
    return ScoreSheet(state.totals, state.results, state.phase == "over", winner)


def is_terminal(state: GinState) -> bool:
    return state.phase == "over"


def hand_in_progress(state: GinState) -> bool:
    return state.phase in ("offer", "draw", "discard", "lay_off")


# --------------------------------------------------------------------------- the declaration


class Phase(StrEnum):
    """The state's `phase` values (the strings the state and the state document hold)."""

    CUT = "cut"
    DEAL = "deal"
    OFFER = "offer"
    DRAW = "draw"
    DISCARD = "discard"
    LAY_OFF = "lay_off"
    OVER = "over"


def next_to_act(state: GinState) -> ToAct:
    """The seat whose decision is due; CHANCE for the cut, the deal, and a draw that can only be from
    the stock (both players passed the upcard); () once the game is over.

    Any other draw is a decision (the pile's top card, or the stock) and names the seat.
    """
    if state.phase in (Phase.CUT, Phase.DEAL) or state.stock_only:
        return CHANCE
    return to_act(state)


SITUATION_TAGS: dict[str, str] = {
    "knock": "a knock (gin included)",
    "gin": "a knock with no deadwood",
    "undercut": "the defender's count was at or below the knocker's",
    "better_melding": "the knocker declared a worse melding than the hand allowed",
    "layoff": "the defender laid off cards on the knocker's melds",
    "drawn_hand": "the stock ran down and the hand was drawn",
    "upcard": "the upcard was taken in the offer",
}

FIELDS: dict[str, dict[str, FieldKind]] = {
    "cut": {"cards": "cards"},
    "deal": {"hands": "cards", "upcard": "card"},
    "draw": {"seat": "seat", "card": "card"},
    "discard": {"seat": "seat", "card": "card"},
    "pass": {"seat": "seat"},
    "knock": {"seat": "seat", "discard": "card", "melds": "cards"},
    "lay_off": {"seat": "seat", "melds": "cards", "layoffs": "cards"},
}


RULES: GameRules[GinState] = GameRules(
    kind="gin-rummy-3",
    title="Gin Rummy for three",
    player_counts=(3,),
    events=EVENTS,
    event_types=GinEvent,
    options=OPTIONS,
    initial_state=initial_state,
    validate=validate,
    evolve=evolve,
    score=score,
    legal_events=legal_events,
    chance_events=chance_events,
    view=view,
    table=GinTable,
    visibility=VISIBILITY,
    reveals=REVEALS,
    is_terminal=is_terminal,
    hand_in_progress=hand_in_progress,
    census=census,
    situations=situations,
    situation_reads=SITUATION_READS,
    demo_players=("Ben", "Jo", "Ida"),
    phases=Phase,
    situation_tags=SITUATION_TAGS,
    fields=FIELDS,
    to_act=next_to_act,
    bot=bots.bot,
    playout_bot=bots.playout_bot,
    demo_situations=frozenset({"gin", "undercut"}),
    complete_offers=_offers.complete_offers,
    disputed=_offers.disputed,
    dealing_order=DEALING_ORDER,
    statistics=STATISTICS,
    rating=RATING,
    words=WORDS,
    duplicate=DUPLICATE,
    review=REVIEWER,
)
