"""What a seat sees of a Seven and a Half table: the view (`view`), the cards lying face down (`held`),
where every card is (`census`), the secrets of a deal and a face-down hit (`VISIBILITY`) and the cards
that come out of the unseen deck (`REVEALS`).
"""

from __future__ import annotations

from typing import Any

from projections.core.phrases import halves
from projections.core.rules import HIDDEN, Census, Event, Secret, Viewpoint, Visibility, hand_score, seat_dict
from projections.games.seven_and_a_half._cards import CARD_SET, CARDS
from projections.games.seven_and_a_half._moves import to_act
from projections.games.seven_and_a_half._state import BANKER, BETWEEN, PLAY, SevenAndAHalfState

#: The boolean variants the view shows. The wild card is left to the game's options: a card code in
#: the view would read as a card on the table.
VARIANTS = ("two_card_bonus", "pair_of_sevens", "face_down_request", "splitting")


def view(state: SevenAndAHalfState, viewpoint: Viewpoint) -> dict[str, Any]:
    """The table as `viewpoint` saw it: the cards `VISIBILITY.hidden_from` names (other seats'
    face-down cards) as "??"."""
    hidden = VISIBILITY.hidden_from(state, viewpoint)
    seats = []
    for s in range(state.seats):
        docs: list[dict[str, Any]] = []
        shown: list[str] = []
        for i, h in enumerate(state.hands[s]):
            cards = [HIDDEN if c in hidden else c for c in h.cards]
            shown.extend(cards)
            known = HIDDEN not in cards
            docs.append(
                {
                    "hand": i,
                    "cards": cards,
                    "stake": None if s == state.banker else h.stake,
                    "stake_seq": None if s == state.banker else h.stake_seq,
                    "status": h.status,
                    "total": state.total(h) if known else None,
                    "total_text": halves(state.total(h)) if known else None,
                }
            )
        seats.append({"seat": s, "banker": s == state.banker, "cards": shown, "card_count": len(shown), "hands": docs})
    stakes = {str(s): st[0] for s, st in enumerate(state.stakes) if st is not None}
    dealt = state.phase in (PLAY, BANKER) or (state.phase == BETWEEN and any(state.hands))
    return {
        "phase": state.phase,
        "to_act": to_act(state),
        "seats": seats,
        "table": {
            "banker": state.banker,
            "next_banker": state.next_banker,
            "order": list(state.order()),
            "turn": state.turn,
            "stakes": stakes,
            "banker_card_shown": dealt and not any(c in state.face_down for c in state.hands[state.banker][0].cards),
            "bank_taken_by": state.bank_taken_by,
            "min_bet": state.options["min_bet"],
            "max_bet": state.options["max_bet"],
            "variants": {name: state.options[name] for name in VARIANTS},
        },
        "hand_points": seat_dict(hand_score(state.hand, state.seats, state.lines).points),
    }


def census(state: SevenAndAHalfState) -> Census:
    """Every hand's cards on the table; the rest of the 40 cards unseen."""
    places = {f"seat {s} hand {i}": h.cards for s in range(state.seats) for i, h in enumerate(state.hands[s])}
    placed = sum(len(cards) for cards in places.values())
    return Census(places, len(CARDS) - placed, CARD_SET, held(state))


def held(state: SevenAndAHalfState) -> dict[int, frozenset[str]]:
    """Per seat, its cards lying face down: its dealt card (the banker's until its turn begins), its
    face-down hits; every card is shown at settlement."""
    face_down = state.face_down
    return {s: frozenset(c for h in state.hands[s] for c in h.cards if c in face_down) for s in range(state.seats)}


def _face_down_hit(event: Event) -> bool:
    return bool(event.get("face_down"))


#: What each seat may see: its own dealt card, and the card of its own face-down hit (every other hit
#: is dealt face up); `held` are the cards lying face down.
VISIBILITY: Visibility[SevenAndAHalfState] = Visibility(
    secrets={
        "deal": (Secret("cards", to="each_seat"),),
        "hit": (Secret("card", to="actor", when=_face_down_hit),),
    },
    held=held,
)

#: The cards that come out of the unseen deck: the engine checks each is a card of the 40-card deck
#: (no 8, 9, 10), named once, and not already in a hand (`census`). Every card of a hand is in some
#: seat's hands until the next hand's first stake, so that is exactly "already seen in this hand".
REVEALS: dict[str, tuple[str, ...]] = {"deal": ("cards",), "hit": ("card",)}
