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

import random
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, assert_never

from events.cards import deck, rank, suit
from events.errors import IllegalEventError, ImpossibleEventError, OutOfTurnError
from events.games.schnapsen import EVENTS, Deal, Play, SchnapsenEvent
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
    ScoreLine,
    ScoreSheet,
    Secret,
    SituationReads,
    ToAct,
    Viewpoint,
    Visibility,
    opt_seat,
    replace_at,
    seat_dict,
)
from projections.core.scores import deferred_reason
from projections.games.schnapsen import _offers
from projections.games.schnapsen import bot as bots
from projections.games.schnapsen._state import (
    CARD_POINTS,
    MATCH_POINTS,
    STRENGTH,
    TARGET,
    Marriage,
    SchnapsenState,
    beats,
)
from projections.games.schnapsen.dealing import DEALING_ORDER
from projections.games.schnapsen.duplicate import DUPLICATE
from projections.games.schnapsen.readmodels import RATING, STATISTICS
from projections.games.schnapsen.review import REVIEWER
from projections.games.schnapsen.table import SchnapsenTable
from projections.games.schnapsen.words import WORDS

CARDS: tuple[str, ...] = deck("JQKTA")
CARD_SET = frozenset(CARDS)
#: the draws due after a trick won by seat 0 or 1: the winner first, then the loser
DRAW_ORDER: tuple[tuple[int, ...], ...] = ((0, 1), (1, 0))
#: suits in words, for messages: "holds hearts and must follow K♥"
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}

OPTIONS: dict[str, OptionSpec] = {
    "first_dealer": OptionSpec(0, opt_seat, "the dealer of the first hand", seating=True),
    "enforcement": ENFORCEMENT,
    "dealing": DEALING,
}


# --------------------------------------------------------------------------- helpers


def to_act(state: SchnapsenState) -> tuple[int, ...]:
    """The seats whose event is due."""
    if state.phase == "lead":
        return (state.leader,)
    if state.phase == "follow":
        return (1 - state.leader,)
    if state.phase == "draw":
        return state.draws_due[:1]
    if state.phase == "deal":
        return (state.next_dealer,)
    return ()


def allowed_follows(state: SchnapsenState, seat: int) -> frozenset[str]:
    """The cards the follower may play: all of them unless the strict rules apply."""
    held = state.hands[seat]
    if not state.strict:
        return held
    led = state.trick[0][1]
    same_suit = frozenset(c for c in held if suit(c) == suit(led))
    if same_suit:
        higher = frozenset(c for c in same_suit if beats(c, led, state.trump_suit))
        return higher or same_suit
    trumps = frozenset(c for c in held if suit(c) == state.trump_suit)
    return trumps or held


def _game_points(opponent_points: int, opponent_tricks: int) -> int:
    """Rule 1: 1 if the loser has 33, 2 if fewer with a trick, 3 with no trick."""
    if opponent_points >= 33:
        return 1
    return 2 if opponent_tricks > 0 else 3


# --------------------------------------------------------------------------- interface


def initial_state(players: Sequence[str], options: Mapping[str, Any]) -> SchnapsenState:
    return SchnapsenState(seats=2, options=dict(options), next_dealer=options["first_dealer"])


def validate(state: SchnapsenState, event: Event) -> None:
    """Raises `ImpossibleEventError` / `OutOfTurnError` / `IllegalEventError`."""
    kind = event["type"]
    if kind == "hand_voided":
        return
    if kind == "deal":
        _validate_deal(state, event)
        return
    if state.phase == "deal":
        raise OutOfTurnError(f"no hand is in progress: a deal by {seat_marker(state.next_dealer)} is due")
    seat = event["seat"]
    if kind == "draw":
        _validate_draw(state, seat, event["card"])
        return
    if state.phase == "draw":
        raise OutOfTurnError(
            f"{seat_marker(state.draws_due[0])} must draw first: both draws come before the next {kind}"
        )
    expected = to_act(state)[0]
    if seat != expected:
        raise OutOfTurnError(f"it is {seat_marker(expected)}'s turn to {state.phase}, not {seat_marker(seat)}'s")
    if kind == "play":
        _validate_play(state, seat, event["card"], bool(event.get("marriage", False)))
    elif kind in ("exchange_trump", "close"):
        _validate_talon_move(state, seat, kind)
    else:  # pragma: no cover - the schema admits no other type
        raise ImpossibleEventError(f"unknown event {kind}")


def _validate_deal(state: SchnapsenState, event: Event) -> None:
    if state.phase != "deal":
        raise OutOfTurnError("a hand is in progress; a new deal comes after it ends (or after hand_voided)")
    if event["dealer"] != state.next_dealer:
        raise ImpossibleEventError(
            f"{seat_marker(state.next_dealer)} deals this hand (the dealer alternates), "
            f"not {seat_marker(event['dealer'])}",
            field="dealer",
        )
    # its cards (of the deck, each named once) are the engine's check (`RULES.reveals`)


def _validate_draw(state: SchnapsenState, seat: int, card: str) -> None:
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


def _validate_play(state: SchnapsenState, seat: int, card: str, marriage: bool) -> None:
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


def _validate_talon_move(state: SchnapsenState, seat: int, kind: str) -> None:
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


_new_object = object.__new__
_set_attr = object.__setattr__


def _emit(values: dict[str, Any]) -> SchnapsenState:
    """The new state whose fields are `values` (a copy of the old state's `__dict__`, changed)."""
    new: SchnapsenState = _new_object(SchnapsenState)
    _set_attr(new, "__dict__", values)
    return new


def evolve(state: SchnapsenState, event: SchnapsenEvent, seq: int) -> tuple[SchnapsenState, Facts]:
    """The fold step for the event whose seq is `seq`: no rule checks, no randomness."""
    # the hot path (issue 15): the commonest events first, each state copied once; a lead, a draw and a
    # follow set their fields in the copy of the state's `__dict__` (`fastreplace.copy_with`, without the
    # dict of changes in between: issue 34)
    if event["type"] == "play":
        if state.phase != "lead":
            return _evolve_follow(state, event, seq)
        if event.get("marriage"):
            return _evolve_marriage(state, event, seq)
        seat, card = event["seat"], event["card"]
        hands = state.hands
        held = hands[seat] - {card}
        values = state.__dict__.copy()
        values["phase"] = "follow"
        values["hands"] = (held, hands[1]) if seat == 0 else (hands[0], held)
        values["trick"] = ((seat, card),)
        return _emit(values), EMPTY
    elif event["type"] == "draw":
        seat, card = event["seat"], event["card"]
        hands = state.hands
        held = hands[seat] | {card}
        talon = state.talon - 1
        draws_due = state.draws_due[1:]
        values = state.__dict__.copy()
        values["hands"] = (held, hands[1]) if seat == 0 else (hands[0], held)
        values["talon"] = talon
        if card == state.trump_card:
            values["trump_card"] = None
        values["draws_due"] = draws_due
        values["phase"] = "draw" if draws_due else "lead"
        return _emit(values), {"talon": talon}
    elif event["type"] == "deal":
        return _evolve_deal(state, event)
    elif event["type"] == "exchange_trump":
        seat = event["seat"]
        unter = f"J{state.trump_suit}"
        assert state.trump_card is not None
        held = (state.hands[seat] - {unter}) | {state.trump_card}
        return (
            replace(state, hands=replace_at(state.hands, seat, held), trump_card=unter),
            {"took": state.trump_card, "gave": unter},
        )
    elif event["type"] == "close":
        seat = event["seat"]
        other = 1 - seat
        opponent_points, opponent_tricks = state.hand_points(other), state.tricks[other]
        return (
            replace(
                state,
                closed_by=seat,
                close_seq=seq,
                closed_opponent_points=opponent_points,
                closed_opponent_tricks=opponent_tricks,
            ),
            {"opponent_hand_points": opponent_points, "opponent_tricks": opponent_tricks},
        )
    elif event["type"] == "hand_voided":
        void = HandScore(state.hand, (0, 0), ())
        return (
            replace(
                state,
                phase="deal",
                draws_due=(),  # the cards stay where they lie (a led card on the table too) until the next deal
                results=state.results.append(void),
            ),
            {"hand_ended": True, "voided": True, "points": seat_dict((0, 0))},
        )
    else:
        assert_never(event)


#: what every deal resets: a fresh hand's talon, trick, draws, close, piles, points and marriages
NEW_HAND: dict[str, Any] = {
    "phase": "lead",
    "talon": 10,
    "trick": (),
    "draws_due": (),
    "closed_by": None,
    "close_seq": None,
    "closed_opponent_points": 0,
    "closed_opponent_tricks": 0,
    "won": ((), ()),
    "trick_points": (0, 0),
    "tricks": (0, 0),
    "marriages": (),
    "last_trick": None,
}


def _evolve_deal(state: SchnapsenState, event: Deal) -> tuple[SchnapsenState, Facts]:
    dealer = event["dealer"]
    dealt = event["hands"]
    trump_card = event["trump_card"]
    trump_suit = trump_card[1]
    after = copy_with(
        state,
        {
            **NEW_HAND,
            "hand": state.hand + 1,
            "dealer": dealer,
            "next_dealer": 1 - dealer,
            "hands": (frozenset(dealt[0]), frozenset(dealt[1])),
            "trump_suit": trump_suit,
            "trump_card": trump_card,
            "leader": 1 - dealer,
        },
    )
    return after, {"trump_suit": trump_suit}


def _evolve_marriage(state: SchnapsenState, event: Play, seq: int) -> tuple[SchnapsenState, Facts]:
    """A lead declaring a marriage: pending, or credited at once (and maybe ending the hand)."""
    seat, card = event["seat"], event["card"]
    hands = state.hands
    held = hands[seat] - {card}
    points = 40 if card[1] == state.trump_suit else 20
    credited = state.tricks[seat] > 0
    marriage = Marriage(seat, card[1], points, seq, credited)
    state = replace(
        state,
        phase="follow",
        hands=(held, hands[1]) if seat == 0 else (hands[0], held),
        trick=((seat, card),),
        marriages=(*state.marriages, marriage),
    )
    facts = {"marriage": {"suit": card[1], "points": points, "credited": credited}}
    if credited and state.hand_points(seat) >= TARGET:
        return _end_hand(state, facts, reacher=seat, decisive=seq)
    return state, facts


def _evolve_follow(state: SchnapsenState, event: Play, seq: int) -> tuple[SchnapsenState, Facts]:
    seat, card = event["seat"], event["card"]
    lead_seat, lead_card = state.trick[0]
    # beats(card, lead_card, trump), inline: the hot path
    if card[1] == lead_card[1]:
        winner = seat if STRENGTH[card[0]] > STRENGTH[lead_card[0]] else lead_seat
    else:
        winner = seat if card[1] == state.trump_suit else lead_seat
    points = CARD_POINTS[card[0]] + CARD_POINTS[lead_card[0]]
    facts: dict[str, Any] = {"trick_winner": winner, "trick_points": points}
    marriages = state.marriages
    credited = 0  # the winner's marriages, credited now or before
    if marriages:
        pending = 0  # `state.pending(winner)`, in the same pass
        for m in marriages:
            if m.seat == winner:
                credited += m.points
                if not m.credited:
                    pending += m.points
        if pending:
            facts["marriages_credited"] = pending
            marriages = tuple(
                replace(m, credited=True) if m.seat == winner and not m.credited else m for m in marriages
            )
    old_hands, old_won, old_points, old_tricks = state.hands, state.won, state.trick_points, state.tricks
    held = old_hands[seat] - {card}
    hands = (held, old_hands[1]) if seat == 0 else (old_hands[0], held)
    won_cards = (*old_won[winner], lead_card, card)
    winner_points = old_points[winner] + points
    if winner == 0:
        won = (won_cards, old_won[1])
        trick_points = (winner_points, old_points[1])
        tricks = (old_tricks[0] + 1, old_tricks[1])
    else:
        won = (old_won[0], won_cards)
        trick_points = (old_points[0], winner_points)
        tricks = (old_tricks[0], old_tricks[1] + 1)
    reached = winner_points + credited >= TARGET
    if reached:
        phase, draws_due = state.phase, state.draws_due
    elif state.closed_by is None and state.talon > 0:
        phase, draws_due = "draw", DRAW_ORDER[winner]
    else:
        phase, draws_due = "lead", state.draws_due
    values = state.__dict__.copy()
    values["hands"] = hands
    values["trick"] = ()
    values["won"] = won
    values["trick_points"] = trick_points
    values["tricks"] = tricks
    values["marriages"] = marriages
    values["leader"] = winner
    values["last_trick"] = (winner, (lead_card, card), points, seq, lead_seat)
    values["phase"] = phase
    values["draws_due"] = draws_due
    state = _emit(values)
    if reached:
        return _end_hand(state, facts, reacher=winner, decisive=seq)
    if phase == "lead" and not hands[0] and not hands[1]:
        return _end_hand(state, facts, reacher=None, decisive=seq)
    return state, facts


def _end_hand(
    state: SchnapsenState, facts: Facts, *, reacher: int | None, decisive: int
) -> tuple[SchnapsenState, Facts]:
    """Score the hand that just ended (rules 1-3) and move to the next deal; `facts` gains the hand's end."""
    hp = (state.hand_points(0), state.hand_points(1))
    winner, points, rule, reason = _hand_outcome(state, hp, reacher, decisive)
    events = [decisive]
    if state.close_seq is not None:
        events.append(state.close_seq)
    events.extend(m.seq for m in state.marriages if m.seat == winner and m.credited)
    line = ScoreLine(state.hand, winner, points, rule, reason, tuple(sorted(set(events))))
    gained = (points, 0) if winner == 0 else (0, points)
    result = HandScore(state.hand, gained, (line,))  # = hand_score(hand, 2, [line])
    to_go = state.to_go
    to_go = (to_go[0] - points, to_go[1]) if winner == 0 else (to_go[0], to_go[1] - points)
    over = to_go[winner] <= 0
    after = copy_with(
        state,
        {"phase": "over" if over else "deal", "draws_due": (), "results": state.results.append(result), "to_go": to_go},
    )
    ended = dict(facts)
    ended["hand_ended"] = True
    ended["hand_points"] = {"0": hp[0], "1": hp[1]}
    ended["points"] = {"0": gained[0], "1": gained[1]}
    ended["rule"] = rule
    return after, ended


def _hand_outcome(
    state: SchnapsenState, hp: tuple[int, int], reacher: int | None, decisive: int
) -> tuple[int, int, str, str]:
    """(winner, game points, rule id, reason) of a finished hand; `hp`: each seat's hand points.

    The reason names seats and cards with `projections.core.phrases` markers: the reader sees the names.
    It is written when first read (`deferred_reason`): a fold scores every hand and reads no reason.
    """
    if state.closed_by is None:
        if reacher is not None:
            loser = 1 - reacher
            lp, lt = hp[loser], state.tricks[loser]
            points = _game_points(lp, lt)
            reason = deferred_reason(_reached_reason, reacher, hp[reacher], decisive, lp, lt, points)
            return reacher, points, "schnapsen.reached_66", reason
        assert state.last_trick is not None
        last = state.last_trick[0]
        return last, 1, "schnapsen.last_trick", deferred_reason(_last_trick_reason, hp, last, decisive)
    closer, opponent = state.closed_by, 1 - state.closed_by
    op, ot = state.closed_opponent_points, state.closed_opponent_tricks
    if reacher == closer:
        points = _game_points(op, ot)
        reason = deferred_reason(_closer_made_reason, closer, state.close_seq, hp, decisive, op, ot, points)
        return closer, points, "schnapsen.closer_made", reason
    points = 3 if ot == 0 else 2
    reason = deferred_reason(
        _closer_failed_reason, closer, state.close_seq, hp, decisive, reacher == opponent, ot, points
    )
    return opponent, points, "schnapsen.closer_failed", reason


def _reached_reason(reacher: int, reached: int, decisive: int, lp: int, lt: int, points: int) -> str:
    return (
        f"{seat_marker(reacher)} reached {reached} hand points at event {decisive}; "
        f"{seat_marker(1 - reacher)} had {lp} hand points and {_tricks(lt)}: {_why(lp, lt)}, "
        f"{_game_point_text(points)}"
    )


def _last_trick_reason(hp: tuple[int, int], last: int, decisive: int) -> str:
    return (
        f"all ten tricks played and nobody reached 66 ({hp[0]} to {hp[1]}); "
        f"{seat_marker(last)} won the last trick at event {decisive}: {_game_point_text(1)}"
    )


def _closer_made_reason(
    closer: int, close_seq: int | None, hp: tuple[int, int], decisive: int, op: int, ot: int, points: int
) -> str:
    return (
        f"{seat_marker(closer)} closed the talon at event {close_seq} and reached {hp[closer]} "
        f"hand points at event {decisive}; when the talon was closed {seat_marker(1 - closer)} had {op} hand points "
        f"and {_tricks(ot)}: {_why(op, ot)}, {_game_point_text(points)}"
    )


def _closer_failed_reason(
    closer: int, close_seq: int | None, hp: tuple[int, int], decisive: int, opponent_reached: bool, ot: int, points: int
) -> str:
    opponent = 1 - closer
    how = (
        f"{seat_marker(opponent)} reached {hp[opponent]} hand points first at event {decisive}"
        if opponent_reached
        else f"all tricks were played and {seat_marker(closer)} had only {hp[closer]} hand points"
    )
    return (
        f"{seat_marker(closer)} closed the talon at event {close_seq} and failed: {how}; "
        f"{seat_marker(opponent)} had {_tricks(ot)} when the talon was closed: {_game_point_text(points)}"
    )


def _game_point_text(points: int) -> str:
    return "1 game point" if points == 1 else f"{points} game points"


def _tricks(n: int) -> str:
    return "no trick" if n == 0 else ("1 trick" if n == 1 else f"{n} tricks")


def _why(points: int, tricks: int) -> str:
    if points >= 33:
        return "33 or more"
    return "fewer than 33 with a trick" if tricks else "no trick"


def score(state: SchnapsenState) -> ScoreSheet:
    """Totals are match points still to go; the first at 0 or below wins."""
    winner = next((s for s in range(2) if state.to_go[s] <= 0), None)
    return ScoreSheet(state.to_go, state.results, state.phase == "over", winner)


def is_terminal(state: SchnapsenState) -> bool:
    return state.phase == "over"


def hand_in_progress(state: SchnapsenState) -> bool:
    return state.phase in ("lead", "follow", "draw")


def legal_events(state: SchnapsenState) -> list[dict[str, Any]]:
    """Every legal decision now (deals and draws are chance events), sorted."""
    if state.phase == "lead":
        seat = state.leader
        out: list[dict[str, Any]] = []
        if state.closed_by is None and state.talon >= 2:
            out.append({"type": "close", "seat": seat})
            if f"J{state.trump_suit}" in state.hands[seat] and state.trump_card != f"J{state.trump_suit}":
                out.append({"type": "exchange_trump", "seat": seat})
        declared = {m.suit for m in state.marriages if m.seat == seat}
        for card in sorted(state.hands[seat]):
            out.append({"type": "play", "seat": seat, "card": card})
            partner = ("Q" if rank(card) == "K" else "K") + suit(card)
            if rank(card) in "KQ" and partner in state.hands[seat] and suit(card) not in declared:
                out.append({"type": "play", "seat": seat, "card": card, "marriage": True})
        return out
    if state.phase == "follow":
        seat = 1 - state.leader
        return [{"type": "play", "seat": seat, "card": c} for c in sorted(allowed_follows(state, seat))]
    return []


def chance_events(state: SchnapsenState, rng: random.Random) -> list[dict[str, Any]]:
    """A deal from a shuffled deck, or the due draw of an unseen card."""
    if state.phase == "deal":
        cards = list(CARDS)
        rng.shuffle(cards)
        return [
            {"type": "deal", "dealer": state.next_dealer, "hands": [cards[0:5], cards[5:10]], "trump_card": cards[10]}
        ]
    if state.phase == "draw":
        seat = state.draws_due[0]
        if state.talon == 1:
            assert state.trump_card is not None
            card = state.trump_card
        else:
            unseen = sorted(CARD_SET.difference(*census(state).places.values()))
            card = rng.choice(unseen)
        return [{"type": "draw", "seat": seat, "card": card}]
    return []


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


def held(state: SchnapsenState) -> Mapping[int, frozenset[str]]:
    """Each seat's hand: the only cards one seat sees and the other does not."""
    return {0: state.hands[0], 1: state.hands[1]}


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


def census(state: SchnapsenState) -> Census:
    """The hands, the trick, the won piles and the face-up trump card; the talon unseen."""
    places: dict[str, tuple[str, ...]] = {
        "hand 0": tuple(state.hands[0]),
        "hand 1": tuple(state.hands[1]),
        "trick": tuple(c for _, c in state.trick),
        "won 0": state.won[0],
        "won 1": state.won[1],
        "trump card": (state.trump_card,) if state.trump_card else (),
    }
    unseen = state.talon - (1 if state.trump_card else 0)
    return Census(places, unseen, CARD_SET, held(state))


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
    # a card already seen, so `_validate_draw` keeps its own checks (the deck, the trump card, seen).
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
