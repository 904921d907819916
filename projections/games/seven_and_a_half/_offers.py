"""What the table pad's offer adds to Seven and a Half's `legal_events` (`projections/reading/offers.py`): the
flip of a seat's face-down cards in several hands (`RULES.complete_offers`), and under `record` the splits
at any stake (`RULES.disputed`) and the face-down hit asked for while the seat holds one
(`RULES.disputed_chances`)."""

from __future__ import annotations

from events.cards import sorted_cards
from projections.core.rules import Event
from projections.games.seven_and_a_half._state import PLAY, SevenAndAHalfState


def complete_offers(state: SevenAndAHalfState, offered: list[Event]) -> list[Event]:
    """A flip without `hand` turns every face-down card of the seat's unfinished hands: a decision of its
    own when those cards lie in more than one hand."""
    if state.phase != PLAY or not state.options.get("face_down_request"):
        return offered
    seat = state.turn
    assert seat is not None
    hands = state.hands[seat]
    holding = [i for i, h in enumerate(hands) if not h.finished and any(c in state.face_down for c in h.cards)]
    if len(holding) > 1:
        return [*offered, {"type": "flip", "seat": seat}]
    return offered


def disputed(state: SevenAndAHalfState) -> list[Event]:
    """Splits whatever their stake (a split hand staked above the limits under `record` has no legal one):
    `decide` finds the amounts each rule refuses."""
    if state.phase != PLAY or not state.options.get("splitting"):
        return []
    seat = state.turn
    assert seat is not None
    low = state.options["min_bet"]
    return [
        {"type": "split", "seat": seat, "hand": i, "amount": low}
        for i, h in enumerate(state.hands[seat])
        if not h.finished and len(h.cards) == 2 and all(c[0] in "JQK" for c in h.cards)  # the wild card is a J, Q or K
    ]


def disputed_chances(state: SevenAndAHalfState, unseen: set[str]) -> list[Event]:
    """The face-down hit asked for while the seat already holds a face-down card (`half.two_face_down`),
    with an example card of `unseen`: one for each of the seat's unfinished hands."""
    if state.phase != PLAY or not state.options.get("face_down_request") or not unseen:
        return []
    seat = state.turn
    if seat is None or seat == state.banker or not state.holds_face_down(seat):
        return []
    hands = state.hands[seat]
    card = sorted_cards(unseen)[0]
    return [
        {"type": "hit", "seat": seat, "card": card, "face_down": True, **({"hand": i} if len(hands) > 1 else {})}
        for i, h in enumerate(hands)
        if not h.finished
    ]
