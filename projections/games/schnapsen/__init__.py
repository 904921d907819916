"""Schnapsen (Sixty-six) for two players, a match from 7 to 0.

Rule source: `rules/schnapsen.md` (from seed `001_20622d167cf398d6.txt`, the
Cardavia rules). Options: `first_dealer` (seat, default 0), `enforcement`.

Readings of the rule text (also in the issue note):

- Exchanging the trump card and closing are allowed on the first lead of a
  hand (the file's Decision), and only by the player on lead before leading,
  while the talon is open with 2 or more cards.
- A marriage's points are pending until its declarer has won a trick; when a
  trick credits them, the trick's points and the marriages are added first
  and the 66 check is made once.
- A hand ended by a marriage is scored as it stands; the led card stays on
  the table and counts for nobody.
- A voided hand scores 0 for both seats; the dealer still alternates.

`phase` values: `deal` (a deal is due), `lead`, `follow`, `draw` (draws are
due after a trick, winner first), `over` (the match has ended).

`table` fields: `dealer`, `leader`, `trump_suit`, `trump_card` (the card at
the bottom of the talon, or null once drawn), `trump_face_up` (false once
closed), `talon` (cards left, the bottom card included), `closed_by`,
`trick` (`[{seat, card}]`), `draws_due` (seats, in order), `marriages`
(`[{seat, suit, points, credited, seq}]`), `last_trick` (`{winner, cards,
plays: [{seat, card}], points, seq}` or null, lead first), `strict` (the
strict rules apply to the next follow). Each seat shows `cards` (or
`card_count`), `won` (cards won in tricks, seen by both players), `tricks`,
`trick_points`, `hand_points`, `pending`.

The match is kept in game points *to go*: each seat starts at 7 and the
first at 0 or below wins. The score sheet's `totals` are those points to go
and each hand's `points` the game points it won; the state's `match`
(`{target, to_go, game_points}`) says both, so that no reader takes "2 / 0"
for points won. Score reasons and messages name seats and cards with the
markers of `projections/core/phrases.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any

from events.errors import ImpossibleEventError, OutOfTurnError
from events.games.schnapsen import EVENTS, SchnapsenEvent
from projections.core.dealing import DEALING
from projections.core.phrases import seat as seat_marker
from projections.core.rules import (
    CHANCE,
    ENFORCEMENT,
    Event,
    FieldKind,
    GameRules,
    OptionSpec,
    Secret,
    SituationReads,
    ToAct,
    Viewpoint,
    Visibility,
    opt_seat,
    seat_dict,
)
from projections.games.schnapsen import _offers
from projections.games.schnapsen import bot as bots
from projections.games.schnapsen._evolve import DRAW_ORDER, NEW_HAND, evolve
from projections.games.schnapsen._moves import (
    CARD_SET,
    CARDS,
    allowed_follows,
    census,
    chance_events,
    held,
    legal_events,
    to_act,
)
from projections.games.schnapsen._outcome import score
from projections.games.schnapsen._state import MATCH_POINTS, STRENGTH, SchnapsenState
from projections.games.schnapsen._validate import (
    SUIT_NAMES,
    validate_deal,
    validate_draw,
    validate_play,
    validate_talon_move,
)
from projections.games.schnapsen.dealing import DEALING_ORDER
from projections.games.schnapsen.duplicate import DUPLICATE
from projections.games.schnapsen.readmodels import RATING, STATISTICS
from projections.games.schnapsen.review import REVIEWER
from projections.games.schnapsen.table import SchnapsenTable
from projections.games.schnapsen.words import WORDS

#: the rules' parts kept in private modules by concern (`_moves`, `_validate`'s checks, `_evolve`,
#: `_outcome`) are still this package's names
__all__ = [
    "CARDS",
    "CARD_SET",
    "DRAW_ORDER",
    "NEW_HAND",
    "RULES",
    "SUIT_NAMES",
    "SchnapsenState",
    "allowed_follows",
    "census",
    "chance_events",
    "evolve",
    "held",
    "legal_events",
    "score",
    "to_act",
    "validate",
]

OPTIONS: dict[str, OptionSpec] = {
    "first_dealer": OptionSpec(0, opt_seat, "the dealer of the first hand", seating=True),
    "enforcement": ENFORCEMENT,
    "dealing": DEALING,
}


# --------------------------------------------------------------------------- interface


def initial_state(players: Sequence[str], options: Mapping[str, Any]) -> SchnapsenState:
    return SchnapsenState(seats=2, options=dict(options), next_dealer=options["first_dealer"])


def validate(state: SchnapsenState, event: Event) -> None:
    """Raises `ImpossibleEventError` / `OutOfTurnError` / `IllegalEventError`."""
    kind = event["type"]
    if kind == "hand_voided":
        return
    if kind == "deal":
        validate_deal(state, event)
        return
    if state.phase == "deal":
        raise OutOfTurnError(f"no hand is in progress: a deal by {seat_marker(state.next_dealer)} is due")
    seat = event["seat"]
    if kind == "draw":
        validate_draw(state, seat, event["card"])
        return
    if state.phase == "draw":
        raise OutOfTurnError(
            f"{seat_marker(state.draws_due[0])} must draw first: both draws come before the next {kind}"
        )
    expected = to_act(state)[0]
    if seat != expected:
        raise OutOfTurnError(f"it is {seat_marker(expected)}'s turn to {state.phase}, not {seat_marker(seat)}'s")
    if kind == "play":
        validate_play(state, seat, event["card"], bool(event.get("marriage", False)))
    elif kind in ("exchange_trump", "close"):
        validate_talon_move(state, seat, kind)
    else:  # pragma: no cover - the schema admits no other type
        raise ImpossibleEventError(f"unknown event {kind}")


def is_terminal(state: SchnapsenState) -> bool:
    return state.phase == "over"


def hand_in_progress(state: SchnapsenState) -> bool:
    return state.phase in ("lead", "follow", "draw")


def view(state: SchnapsenState, seat: Viewpoint) -> dict[str, Any]:
    """The table as `seat` saw it: the other hand as a count only (`VISIBILITY`)."""
    seats = []
    for s in range(2):
        cards = sorted(state.hands[s], key=lambda c: (c[1], -STRENGTH[c[0]]))
        doc: dict[str, Any] = {"seat": s, **VISIBILITY.seat_cards(state, seat, s, cards)}
        doc.update(
            won=list(state.won[s]),
            tricks=state.tricks[s],
            trick_points=state.trick_points[s],
            hand_points=state.hand_points(s),
            pending=state.pending(s),
            dealer=s == state.dealer,
        )
        seats.append(doc)
    last = state.last_trick
    return {
        "phase": state.phase,
        "to_act": list(to_act(state)),
        "seats": seats,
        "table": {
            "dealer": state.dealer,
            "leader": state.leader if state.phase != "deal" else None,
            "trump_suit": state.trump_suit,
            "trump_card": state.trump_card,
            "trump_face_up": state.closed_by is None and state.trump_card is not None,
            "talon": state.talon,
            "closed_by": state.closed_by,
            "trick": [{"seat": s, "card": c} for s, c in state.trick],
            "draws_due": list(state.draws_due),
            "marriages": [
                {"seat": m.seat, "suit": m.suit, "points": m.points, "credited": m.credited, "seq": m.seq}
                for m in state.marriages
            ],
            "last_trick": None if last is None else _last_trick_doc(last),
            "strict": state.strict,
        },
        "hand_points": seat_dict((state.hand_points(0), state.hand_points(1))),
        "match": _match_doc(state),
    }


def _last_trick_doc(last: tuple[int, tuple[str, ...], int, int, int]) -> dict[str, Any]:
    """The last trick, with who played which card (`plays`, lead first) for a reader of the table."""
    winner, cards, points, seq, lead_seat = last
    return {
        "winner": winner,
        "cards": list(cards),
        "plays": [{"seat": lead_seat, "card": cards[0]}, {"seat": 1 - lead_seat, "card": cards[1]}],
        "points": points,
        "seq": seq,
    }


def _match_doc(state: SchnapsenState) -> dict[str, Any]:
    """The match as a card player keeps it: game points still to go (7 down to 0) beside those won.

    The score sheet's `totals` are the points to go; without a label a reader takes "2 / 0" for
    points won. `game_points` is what each seat has won so far (the score sheet's hands give what
    each hand won). Read from `to_go`, not from the hands: a snapshot's hands load only when asked.
    """
    return {
        "target": MATCH_POINTS,
        "to_go": seat_dict(state.to_go),
        "game_points": seat_dict([MATCH_POINTS - t for t in state.to_go]),
    }


#: What each seat may see: the other seat's hand, at the deal and in the view, and the card the other
#: seat draws (every draw, the talon's last one too, though that is the face-up trump card both saw).
VISIBILITY: Visibility[SchnapsenState] = Visibility(
    secrets={"deal": (Secret("hands", "each_seat"),), "draw": (Secret("card", "actor"),)},
    held=held,
)


#: the events `situations` can tag (a close, a trump exchange, a marriage play, a failed close's hand end)
SITUATION_READS = SituationReads(
    types=("close", "exchange_trump"), result_marks=('"schnapsen.closer_failed"',), data_marks=('"marriage"',)
)


def situations(event: Event, result: Mapping[str, Any]) -> list[str]:
    """Search tags: marriage, close, exchange, and the hand's scoring rule."""
    tags = []
    if event["type"] == "play" and event.get("marriage"):
        tags.append("marriage")
    if event["type"] == "close":
        tags.append("close")
    if event["type"] == "exchange_trump":
        tags.append("exchange")
    if result.get("rule") == "schnapsen.closer_failed":
        tags.append("failed_close")
    return tags


# --------------------------------------------------------------------------- the declaration


class Phase(StrEnum):
    """The state's `phase` values (the strings the state and the state document hold)."""

    DEAL = "deal"
    LEAD = "lead"
    FOLLOW = "follow"
    DRAW = "draw"
    OVER = "over"


#: the phases whose next event is a chance event: the deal, and the draws after a trick
CHANCE_PHASES = frozenset({Phase.DEAL, Phase.DRAW})


def next_to_act(state: SchnapsenState) -> ToAct:
    """The seat to lead or follow, CHANCE when a deal or a draw is due, () once the match is over."""
    return CHANCE if state.phase in CHANCE_PHASES else to_act(state)


SITUATION_TAGS: dict[str, str] = {
    "marriage": "a king or queen led with its partner declared as a marriage",
    "close": "a player closed the talon",
    "exchange": "a player exchanged the trump jack for the trump card",
    "failed_close": "the player who closed the talon failed to reach 66",
}

FIELDS: dict[str, dict[str, FieldKind]] = {
    "deal": {"dealer": "seat", "hands": "cards", "trump_card": "card"},
    "play": {"seat": "seat", "card": "card"},
    "draw": {"seat": "seat", "card": "card"},
    "exchange_trump": {"seat": "seat"},
    "close": {"seat": "seat"},
}


RULES: GameRules[SchnapsenState] = GameRules(
    kind="schnapsen",
    title="Schnapsen",
    player_counts=(2,),
    events=EVENTS,
    event_types=SchnapsenEvent,
    options=OPTIONS,
    initial_state=initial_state,
    validate=validate,
    evolve=evolve,
    score=score,
    legal_events=legal_events,
    chance_events=chance_events,
    view=view,
    table=SchnapsenTable,
    visibility=VISIBILITY,
    is_terminal=is_terminal,
    hand_in_progress=hand_in_progress,
    census=census,
    situations=situations,
    situation_reads=SITUATION_READS,
    demo_players=("Anna", "Ben"),
    phases=Phase,
    situation_tags=SITUATION_TAGS,
    fields=FIELDS,
    to_act=next_to_act,
    # The deal's cards come out of the unseen deck: each of the deck, named once (a deal starts the
    # hand, so nothing is seen yet). Not `draw`: the talon's last draw names the face-up trump card,
    # a card already seen, so `_validate.validate_draw` keeps its own checks (the deck, the trump card, seen).
    reveals={"deal": ("hands", "trump_card")},
    # the sheet's totals are game points still to go (7 down to 0), not points won
    units={"totals": "to_go"},
    bot=bots.bot,
    demo_situations=frozenset({"marriage"}),
    disputed=_offers.disputed,
    dealing_order=DEALING_ORDER,
    statistics=STATISTICS,
    rating=RATING,
    words=WORDS,
    duplicate=DUPLICATE,
    review=REVIEWER,
)
