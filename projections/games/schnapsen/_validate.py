"""Schnapsen's checks of one kind of event each, which the package's `validate` calls once it has found whose
turn it is: a deal, a draw, a play (a marriage, a revoke), an exchange of the trump card or a close.

Each refusal names the seats and cards with the markers of `projections/core/phrases.py`.
"""

from __future__ import annotations

from events.cards import rank, suit
from events.errors import IllegalEventError, ImpossibleEventError, OutOfTurnError
from projections.core.phrases import card as card_marker
from projections.core.phrases import seat as seat_marker
from projections.core.rules import Event
from projections.games.schnapsen._moves import CARD_SET, allowed_follows, census
from projections.games.schnapsen._state import SchnapsenState

#: suits in words, for messages: "holds hearts and must follow K♥"
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def validate_deal(state: SchnapsenState, event: Event) -> None:
    if state.phase != "deal":
        raise OutOfTurnError("a hand is in progress; a new deal comes after it ends (or after hand_voided)")
    if event["dealer"] != state.next_dealer:
        raise ImpossibleEventError(
            f"{seat_marker(state.next_dealer)} deals this hand (the dealer alternates), "
            f"not {seat_marker(event['dealer'])}",
            field="dealer",
        )
    # its cards (of the deck, each named once) are the engine's check (`RULES.reveals`)


def validate_draw(state: SchnapsenState, seat: int, card: str) -> None:
    if state.phase != "draw":
        raise OutOfTurnError("no draw is due: draws follow a trick while the talon is open")
    if seat != state.draws_due[0]:
        order = "winner" if len(state.draws_due) == 2 else "loser"
        raise OutOfTurnError(
            f"{seat_marker(state.draws_due[0])} draws next (the trick's {order}), not {seat_marker(seat)}"
        )
    # The game's own card checks, not the engine's (`RULES.reveals` leaves `draw` out): the talon's
    # last draw must name the face-up trump card, a card already seen, which the shared rule refuses.
    if card not in CARD_SET:
        raise ImpossibleEventError(f"{card_marker(card)} is not in the Schnapsen deck")
    if state.talon == 1:
        if card != state.trump_card:
            trump = card_marker(state.trump_card or "")
            raise ImpossibleEventError(f"the talon's last card is the trump card {trump}, not {card_marker(card)}")
        return
    if card == state.trump_card:
        raise ImpossibleEventError(
            f"{card_marker(card)} lies face up at the bottom of the talon; it is drawn last ({state.talon} cards left)"
        )
    if any(card in cards for cards in census(state).places.values()):
        raise ImpossibleEventError(f"{card_marker(card)} has already been seen in this hand; it is not in the talon")


def validate_play(state: SchnapsenState, seat: int, card: str, marriage: bool) -> None:
    if card not in state.hands[seat]:
        raise ImpossibleEventError(f"{seat_marker(seat)} does not hold {card_marker(card)}")
    if marriage:
        if state.phase != "lead":
            raise ImpossibleEventError("a marriage is declared only by the player on lead, as they lead")
        if rank(card) not in "KQ":
            raise ImpossibleEventError(f"a marriage is declared by leading its K or Q, not {card_marker(card)}")
        partner = ("Q" if rank(card) == "K" else "K") + suit(card)
        if partner not in state.hands[seat]:
            raise ImpossibleEventError(
                f"no marriage: {seat_marker(seat)} does not hold {card_marker(partner)} with {card_marker(card)}"
            )
        if any(m.seat == seat and m.suit == suit(card) for m in state.marriages):
            raise ImpossibleEventError(
                f"{seat_marker(seat)} has already declared the {SUIT_NAMES[suit(card)]} marriage"
            )
    if state.phase == "follow" and card not in allowed_follows(state, seat):
        _raise_revoke(state, seat, card)


def _raise_revoke(state: SchnapsenState, seat: int, card: str) -> None:
    led = state.trick[0][1]
    held = state.hands[seat]
    same_suit = [c for c in held if suit(c) == suit(led)]
    why = "the talon is closed" if state.closed_by is not None else "the talon is exhausted"
    who, led_suit, led_card, played = seat_marker(seat), SUIT_NAMES[suit(led)], card_marker(led), card_marker(card)
    if same_suit and suit(card) != suit(led):
        raise IllegalEventError(
            "schnapsen.follow_suit", f"{why}: {who} holds {led_suit} and must follow {led_card}, not play {played}"
        )
    if same_suit:
        raise IllegalEventError(
            "schnapsen.head_trick",
            f"{why}: {who} must head {led_card} with a higher card of {led_suit}, not play {played}",
        )
    raise IllegalEventError(
        "schnapsen.trump_when_void",
        f"{why}: {who} holds no {led_suit} but holds trump, and must trump {led_card}, not play {played}",
    )


def validate_talon_move(state: SchnapsenState, seat: int, kind: str) -> None:
    if state.phase != "lead":
        raise OutOfTurnError(f"{kind} is allowed only to the player on lead, before leading")
    if state.closed_by is not None:
        raise ImpossibleEventError(f"the talon was closed by {seat_marker(state.closed_by)} at event {state.close_seq}")
    if state.talon < 2:
        raise ImpossibleEventError(f"{kind} needs 2 or more cards in the talon; {state.talon} left")
    if kind == "exchange_trump":
        unter = f"J{state.trump_suit}"
        if state.trump_card == unter:
            raise ImpossibleEventError(
                f"the face-up trump card is the Unter {card_marker(unter)} itself: nothing to exchange"
            )
        if unter not in state.hands[seat]:
            raise ImpossibleEventError(f"{seat_marker(seat)} does not hold the trump Unter {card_marker(unter)}")
