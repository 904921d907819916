"""Seven and a Half's moves: whose event is due (`to_act`), every legal decision (`legal_events`, the stakes
as `offered_stakes`), and the chance events (a deal, a hit of an unseen card).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from projections.games.seven_and_a_half._cards import CARD_SET, CARDS, is_face
from projections.games.seven_and_a_half._state import BANKER, BETWEEN, DEAL, PLAY, STAKES, SevenAndAHalfState


def to_act(state: SevenAndAHalfState) -> list[int]:
    """The seats whose event is due (any of them, while stakes are placed)."""
    if state.phase == BETWEEN:
        return list(state.order(state.next_banker))
    if state.phase == STAKES:
        return [s for s in state.order() if state.stakes[s] is None]
    if state.phase == DEAL:
        return [state.banker]
    if state.phase in (PLAY, BANKER):
        assert state.turn is not None
        return [state.turn]
    return []


def _sort_key(event: Mapping[str, Any]) -> tuple[Any, ...]:
    return (
        event["type"],
        event.get("seat", -1),
        event.get("hand", -1),
        event.get("amount", 0),
        event.get("to", -1),
    )


#: limits that allow at most this many stake amounts have every one offered; wider ones a sample
ALL_STAKES_UP_TO = 100


def offered_stakes(low: int, high: int) -> list[int]:
    """The stake amounts offered from `low` to `high`: every one, or the limits and the round amounts between.

    At most `ALL_STAKES_UP_TO` amounts, or 2 + 3 per power of ten (32 for 1 to 10**9), so that
    `legal_events` stays cheap whatever the table's limits (enumerating 1 to 10**6 took 19 s).
    """
    if high - low < ALL_STAKES_UP_TO:
        return list(range(low, high + 1))
    round_amounts = (m * 10**k for k in range(len(str(high))) for m in (1, 2, 5))
    return sorted({low, high, *(a for a in round_amounts if low < a < high)})


def legal_events(state: SevenAndAHalfState) -> list[dict[str, Any]]:
    """Every legal decision now (deals and hits are chance events), sorted; stakes as `offered_stakes`."""
    low, high = state.limits
    out: list[dict[str, Any]] = []
    if state.phase in (BETWEEN, STAKES):
        stakes = offered_stakes(low, high)
        for s in to_act(state):
            out.extend({"type": "bet", "seat": s, "amount": a} for a in stakes)
        if state.phase == BETWEEN:
            out.extend({"type": "bank_passed", "to": s} for s in range(state.seats) if s != state.next_banker)
            out.append({"type": "session_closed"})
    elif state.phase == PLAY:
        assert state.turn is not None
        seat = state.turn
        hands = state.hands[seat]
        for i, h in enumerate(hands):
            if h.finished:
                continue
            tag = {"hand": i} if len(hands) > 1 else {}
            out.append({"type": "stand", "seat": seat, **tag})
            if state.options["splitting"] and len(h.cards) == 2 and all(is_face(c) for c in h.cards):
                out.extend(
                    {"type": "split", "seat": seat, "hand": i, "amount": a}
                    for a in offered_stakes(max(h.stake, low), high)
                )
            if state.options["face_down_request"] and state.flippable(seat, i):
                out.append({"type": "flip", "seat": seat, **tag})
    elif state.phase == BANKER:
        out.append({"type": "stand", "seat": state.banker})
    return sorted(out, key=_sort_key)


def chance_events(state: SevenAndAHalfState, rng: random.Random) -> list[dict[str, Any]]:
    """A deal from a shuffled deck, or a hit of an unseen card (face down too, where allowed)."""
    if state.phase == DEAL:
        cards = list(CARDS)
        rng.shuffle(cards)
        return [{"type": "deal", "cards": {str(s): cards[s] for s in range(state.seats)}}]
    if state.phase not in (PLAY, BANKER):
        return []
    assert state.turn is not None
    seat = state.turn
    unseen = sorted(CARD_SET - state.seen)
    if not unseen:
        return []
    hands = state.hands[seat]
    may_hide = state.options["face_down_request"] and seat != state.banker and not state.holds_face_down(seat)
    out: list[dict[str, Any]] = []
    for i, h in enumerate(hands):
        if h.finished:
            continue
        tag = {"hand": i} if len(hands) > 1 else {}
        out.append({"type": "hit", "seat": seat, "card": rng.choice(unseen), **tag})
        if may_hide:
            out.append({"type": "hit", "seat": seat, "card": rng.choice(unseen), "face_down": True, **tag})
    return out
