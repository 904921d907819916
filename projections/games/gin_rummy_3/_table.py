"""What the table shows and what may come next: legal and chance events, views, census, tags.

`legal_events` enumerates (documented in `legal_events` itself):

- upcard offer: take the upcard, pass;
- draw: take the top of the discard pile (a stock draw is a chance event);
- discard: every held card; and for every discard after which the other 10
  cards can be melded to deadwood 10 or less, one knock for *every*
  arrangement of disjoint melds of those 10 cards with deadwood 10 or less
  (not only the maximal ones: leaving a meld unlaid is a legal, if poor,
  declaration, and listing them all makes random bots knock more often);
- lay-off: for every maximal meld arrangement of the defender's cards, the
  variant without lay-offs and (unless the knocker went gin) the variant
  that lays off greedily every deadwood card that fits, each lay-off seeing
  the knocker's melds as extended by the ones before it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from events.cards import FULL_DECK, RANKS, SUITS
from projections.core.rules import Census, Event, Secret, SituationReads, Viewpoint, Visibility, seat_dict
from projections.games.gin_rummy_3._melds import (
    all_meldings,
    extend_meld,
    layoff_steps,
    maximal_meldings,
    min_deadwood_after_discard,
    sort_cards,
)
from projections.games.gin_rummy_3._state import CARD_SET, HAND_SIZE, KNOCK_LIMIT, GinState, to_act


def legal_events(state: GinState) -> list[dict[str, Any]]:
    """Every legal decision now (the cut, deals and stock draws are chance events), in a stable order."""
    seat = state.turn
    if state.phase == "offer":
        assert seat is not None and state.upcard is not None
        return [
            {"type": "draw", "seat": seat, "source": "discard", "card": state.upcard},
            {"type": "pass", "seat": seat},
        ]
    if state.phase == "draw":
        assert seat is not None
        if state.stock_only:
            return []
        return [{"type": "draw", "seat": seat, "source": "discard", "card": state.pile[-1]}]
    if state.phase == "discard":
        assert seat is not None
        held = state.hands[seat]
        # the house rule `discard_taken_card: false`: the card just taken from the pile stays this turn
        kept = state.taken if state.options.get("discard_taken_card", True) is False else None
        out: list[dict[str, Any]] = [
            {"type": "discard", "seat": seat, "card": c} for c in sort_cards(held) if c != kept
        ]
        for discard, best in min_deadwood_after_discard(held).items():
            if best > KNOCK_LIMIT or discard == kept:
                continue
            for melding in all_meldings(held - {discard}, KNOCK_LIMIT):
                out.append(
                    {"type": "knock", "seat": seat, "discard": discard, "melds": [list(m) for m in melding.melds]}
                )
        return out
    if state.phase == "lay_off":
        return _lay_off_events(state)
    return []


def _lay_off_events(state: GinState) -> list[dict[str, Any]]:
    knock, seat = state.knock, state.turn
    assert knock is not None and seat is not None
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for melding in maximal_meldings(state.hands[seat]):
        variants = [[]] if knock.gin else [[], greedy_layoffs(knock.melds, melding.deadwood)]
        for layoffs in variants:
            event = {
                "type": "lay_off",
                "seat": seat,
                "melds": [list(m) for m in melding.melds],
                "layoffs": [{"card": c, "meld": i} for c, i in layoffs],
            }
            key = repr(event)
            if key not in seen:
                seen.add(key)
                out.append(event)
    return out


def greedy_layoffs(melds: tuple[tuple[str, ...], ...], deadwood: tuple[str, ...]) -> list[tuple[str, int]]:
    """Lay off deadwood cards onto the melds while any fits (each seeing the melds as extended)."""
    extended = list(melds)
    left = list(deadwood)
    out: list[tuple[str, int]] = []
    progress = True
    while progress:
        progress = False
        for card in left:
            for index, meld in enumerate(extended):
                grown = extend_meld(meld, card)
                if grown is not None:
                    extended[index] = grown
                    out.append((card, index))
                    left.remove(card)
                    progress = True
                    break
            if progress:
                break
    return out


def chance_events(state: GinState, rng: random.Random) -> list[dict[str, Any]]:
    """The cut (three different ranks), a deal from a shuffled deck, or a stock draw of an unseen card."""
    if state.phase == "cut":
        ranks = rng.sample(RANKS, 3)
        return [{"type": "cut", "cards": [r + rng.choice(SUITS) for r in ranks]}]
    if state.phase == "deal":
        roles = state.dealing_roles
        assert roles is not None
        box, captain, _ = roles
        cards = list(FULL_DECK)
        rng.shuffle(cards)
        hands = {str(captain): cards[:HAND_SIZE], str(box): cards[HAND_SIZE : 2 * HAND_SIZE]}
        return [{"type": "deal", "hands": hands, "upcard": cards[2 * HAND_SIZE]}]
    if state.phase == "draw":
        unseen = sort_cards(CARD_SET - state.seen)
        return [{"type": "draw", "seat": state.turn, "source": "stock", "card": rng.choice(unseen)}]
    return []


def _knock_doc(state: GinState) -> dict[str, Any] | None:
    k = state.knock
    if k is None:
        return None
    return {
        "seat": k.seat,
        "discard": k.discard,
        "melds": [list(m) for m in k.melds],
        "deadwood": list(k.deadwood),
        "count": k.count,
        "gin": k.gin,
        "seq": k.seq,
    }


def _layout_doc(state: GinState) -> dict[str, Any] | None:
    lay, knock = state.layout, state.knock
    if lay is None or knock is None:
        return None
    return {
        "seat": lay.seat,
        "melds": [list(m) for m in lay.melds],
        # `meld`: the index of the knocker's meld in `knock.melds` (the event's numbering, from 0), which
        # `extended` keeps; `onto`: that meld's cards when the card joined it
        "layoffs": [{"card": c, "meld": i, "onto": list(m)} for c, i, m in layoff_steps(knock.melds, lay.layoffs)],
        "extended": [list(m) for m in lay.extended],
        "deadwood": list(lay.deadwood),
        "count": lay.count,
        "seq": lay.seq,
    }


def _next_roles_doc(state: GinState) -> dict[str, int] | None:
    """`{box, captain, sitter}` of the deal that is due (phase `deal`), else null."""
    roles = state.dealing_roles if state.phase == "deal" else None
    return None if roles is None else dict(zip(("box", "captain", "sitter"), roles, strict=True))


def view(state: GinState, seat: Viewpoint) -> dict[str, Any]:
    """The table as `seat` saw it: other hands as counts until they are laid out face up."""
    seats = []
    for s in range(3):
        doc: dict[str, Any] = {"seat": s, "role": state.role(s)}
        doc.update(VISIBILITY.seat_cards(state, seat, s, sort_cards(state.hands[s])))
        seats.append(doc)
    last = state.results[-1] if state.results else None
    return {
        "phase": state.phase,
        "to_act": list(to_act(state)),
        "seats": seats,
        "table": {
            "box": state.box,
            "captain": state.captain,
            "sitter": state.sitter,
            "next_roles": _next_roles_doc(state),
            "cut": {str(s): c for s, c in enumerate(state.cut)} if state.cut else None,
            "pile": list(state.pile),
            "pile_top": state.pile[-1] if state.pile else None,
            "stock": state.stock,
            "passes": state.passes if state.phase in ("offer", "draw") else 0,
            "stock_only": state.stock_only,
            "knock": _knock_doc(state),
            "layout": _layout_doc(state),
            "last_hand": None if last is None else {"hand": last.hand, "points": seat_dict(last.points)},
        },
        "hand_points": seat_dict(state.hand_points),
    }


def held(state: GinState) -> dict[int, frozenset[str]]:
    """The cards each seat holds that no other seat sees: every hand not laid out face up (the knocker's
    after its knock, both after the lay-off). The sitter's hand is empty during a hand."""
    revealed = state.revealed
    return {s: state.hands[s] for s in range(3) if s not in revealed}


def _from_stock(event: Event) -> bool:
    return bool(event["source"] == "stock")


#: What each seat sees: at the deal its own 10 cards, of a draw from the stock only the drawer the card
#: (a draw from the discard pile takes the face-up top card, which everyone saw).
VISIBILITY: Visibility[GinState] = Visibility(
    secrets={
        "deal": (Secret("hands", to="each_seat"),),
        "draw": (Secret("card", to="actor", when=_from_stock),),
    },
    held=held,
)

#: The events whose cards come out of the unseen deck, checked by the engine (`engine.check_revealed`):
#: the cut (its cards go back before the deal) and the deal. Not `draw`: a draw from the discard pile names
#: the pile's top card, already seen, so the stock draw's check stays in `validate`.
REVEALS: dict[str, tuple[str, ...]] = {"cut": ("cards",), "deal": ("hands", "upcard")}


def census(state: GinState) -> Census:
    """The hands, the discard pile; the stock unseen. Cards laid out face up are no longer private."""
    if state.hand == 0:
        return Census({}, len(CARD_SET), CARD_SET, held(state))
    places: dict[str, tuple[str, ...]] = {f"hand {s}": tuple(state.hands[s]) for s in range(3)}
    places["pile"] = state.pile
    return Census(places, state.stock, CARD_SET, held(state))


#: the events `situations` can tag (a knock, a lay-off, a drawn hand's discard, the upcard taken)
SITUATION_READS = SituationReads(types=("knock", "lay_off"), result_marks=('"drawn"', '"upcard"'))


def situations(event: Event, result: Mapping[str, Any]) -> list[str]:
    """Search tags: `knock` (every knock, gin too), `gin`, `undercut`, `drawn_hand`, `layoff`,
    `better_melding` (the knocker declared worse than it could), `upcard` (the upcard taken)."""
    kind = event["type"]
    tags: list[str] = []
    if kind == "knock":
        tags.append("knock")
        if result.get("gin"):
            tags.append("gin")
        if result.get("better_melding"):
            tags.append("better_melding")
    elif kind == "lay_off":
        if event.get("layoffs"):
            tags.append("layoff")
        if result.get("outcome") == "undercut":
            tags.append("undercut")
    elif kind == "discard" and result.get("drawn"):
        tags.append("drawn_hand")
    elif kind == "draw" and event.get("source") == "discard" and result.get("upcard"):
        tags.append("upcard")
    return tags
