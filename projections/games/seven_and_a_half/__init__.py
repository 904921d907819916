"""Seven and a Half (Sette e mezzo, Siete y media) for 4 to 6 players: a banking game for stakes.

Rule source: `rules/seven-and-a-half.md` (from seed `003_113f008a8bb00635.txt`).
Options: `first_banker` (seat, default 0), `min_bet` and `max_bet` (integers
from 1 to 10**9, default 1 and 100, `min_bet` not above `max_bet`), the variants
`two_card_bonus`, `pair_of_sevens`, `face_down_request`, `splitting` (booleans,
default false) and `wild_card` (a J, Q or K card code, default null),
`enforcement`, and the house rule `bank_needs_win` (bool, default false; true:
only a player's 7½ that wins its stake takes the bank; a play option, since
the banker of the next hand decides who stakes and in which order). A record
made before it existed reads as its default.

Totals are kept in half points everywhere (½ = 1, 7½ = 15): `total` fields
and `banker_total` in results are half points; `total_text` shows them as
people write them ("6½"). `RULES.units` says so for every reader (`total`,
`banker_total`: `half`; amounts, stakes, points and totals: `chips`), and
every reason and message writes seats, cards, totals and amounts with the
markers of `projections.core.phrases` (`{half:13}` reads 6½, `{chips:5}` 5 chips).

Readings of the rule text:

- A hand begins with its first `bet` (the hand number increments there);
  every player but the banker stakes once, in any order, before the `deal`.
  A `deal` before every stake is in, a second stake, a stake by the banker,
  are impossible. Any integer amount from -10**9 to 10**9 is well formed
  (beyond: `invalid`); one outside `min_bet`..`max_bet` (zero or negative
  included) is `half.stake_limits` and, under `record`, is settled as placed.
- `legal_events` offers every stake amount when the limits allow at most
  `ALL_STAKES_UP_TO` of them (the default 1 to 100 does), else the limits
  themselves and the round amounts between (1, 2, 5, 10, 20, 50...): a
  bounded list, so that a table of 1 to 10**9 costs no more than the
  default one. `validate` still accepts every amount within the limits.
- Playing order with banker b: b-1, b-2, ..., then the banker. A seat acts
  only on its turn, which ends when all of its hands are finished; the
  banker's turn begins when every player's turn has ended, unless every
  player hand has bust: then the hand is settled at once.
- A hand finishes by itself on a bust, on exactly 7½, or (with
  `pair_of_sevens`) on exactly two 7s; a `stand` finishes it otherwise.
  Without `pair_of_sevens` two 7s make 14: a bust.
- Settlement, for each unbust player hand: the banker bust pays everyone
  (pair triple, two-card double); else a banker's pair of sevens wins every
  stake single; else a player's pair is paid triple; else a banker's
  two-card 7½ wins single; else a player's two-card 7½ is paid double; else
  the higher total wins single and the banker wins ties. A two-card 7½ (a 7
  and a J/Q/K, the wild card included) counts only with `two_card_bonus`.
- The bank passes, after settlement, to the first player in playing order
  with a hand finished at 7½ (any kind) or a pair of sevens, whatever the
  banker made (the file's Decision); with `bank_needs_win`, a 7½ only when
  it won its stake (a `half.bank_needs_win` line at 0 says why a 7½ that
  lost did not take it). A pair of sevens takes the bank either way: the
  house rule names only a 7½, and is read literally. A later `bank_passed` (only between
  hands, never to the banker due) overrides it. A voided hand scores zero
  and the same banker banks the next hand.
- Cards face down: every dealt card, the banker's included, and every
  `face_down` hit. The banker's card is turned when the banker's turn
  begins; a hand that busts, makes 7½ or a pair of sevens is shown; at
  settlement every card is shown. Without the option a player's dealt card
  stays down until then. With `face_down_request` a seat may hold one
  face-down card at a time across its hands (the dealt card is the first);
  a second is `half.two_face_down`. A `flip` needs the option, the seat's
  turn and an unfinished hand of that seat holding a face-down card
  (without `hand`: every face-down card of the seat in its unfinished
  hands). The banker never flips nor asks for a face-down card.
- Splitting: a player's unfinished hand of exactly two face cards (the wild
  card is one) splits in two; the split hand keeps its first card and its
  stake, the new hand (index = the seat's number of hands before) gets the
  second card and the new stake. A new stake below the split hand's is
  `half.split_stake` (checked first), outside the limits `half.stake_limits`.
  A face-down card stays face down in whichever hand it goes to.
- The wild card counts at the best of ½, 1..7 not above 7½, recomputed
  after every card; it busts only if bust at ½. It is a face card for the
  two-card rule and for splitting, never a 7.
- Score: `totals` are net chips per seat over the finished hands; a hand's
  points are its net chips. Each settled stake is two lines with opposite
  points, the player's and the banker's, with one sentence naming the
  hands, the seqs, who paid whom and how much. A bust's lines are written
  at the bust. Rule ids: `half.bust`, `half.banker_bust`, `half.higher`,
  `half.banker_wins`, `half.pair_of_sevens`, `half.two_card_bonus`,
  `half.banker_pair_of_sevens`, `half.banker_two_card`, and `half.bank_needs_win`
  (0 points: the house rule kept a losing 7½ from the bank).
- `session_closed` (only between hands) ends the game; there is no winner.

`phase` values: `between` (no hand in progress: the first stake,
`bank_passed` or `session_closed` may come), `stakes` (a hand has begun and
stakes are still due), `deal` (every stake is in: the banker deals),
`play` (a player's turn), `banker` (the banker's turn), `over` (the session
is closed).

`table` fields: `banker` (of the hand in progress or the last one),
`next_banker` (who banks the next hand), `order` (the players in playing
order), `turn` (the seat to act, or null), `stakes` (seat -> the stake it
placed for the hand in progress or the last one), `banker_card_shown`, `bank_taken_by` (the
seat that took the bank with 7½ at the last settlement, or null),
`min_bet`, `max_bet`, `variants` (the boolean variant options; the wild
card is read from the game's options, as a card code in the view would
read as a card on the table). Each seat shows
`banker`, `cards` (its cards in hand order, "??" for a card the viewer may
not see), `card_count`, and `hands` (`[{hand, cards, stake, stake_seq,
status, total, total_text}]`, status `open`, `stood`, `bust`,
`seven_and_a_half` or `pair_of_sevens`; `total` is null while a card of
the hand is hidden from the viewer). `hand_points`: the chips won and lost
so far in the hand in progress (busts), or by the last hand once settled.

Results (the envelope's `result`): a `bet` gives `stakes_due` (and `banker`
on a hand's first stake); the `deal` gives `turn`; a `hit` or `stand` gives
`hand`, `turn` and `total` (only when no card of that hand lies face down),
and on a hand it finishes `shown` with `bust`, `seven_and_a_half`,
`pair_of_sevens` or `two_card`; `banker_shows` when the banker's turn
begins; `split` gives `hand` and `new_hand`; `flip` gives `flipped`. The
event that settles a hand adds `hand_ended`, `points`, `next_banker`,
`bank_taken_by` (if a player took the bank), and `banker_total` (with
`banker_bust`) or `all_bust`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, assert_never

from events.errors import UnknownGameError
from events.games.seven_and_a_half import EVENTS, SevenAndAHalfEvent
from projections.core.fastreplace import replace
from projections.core.phrases import CHIPS, HALF
from projections.core.rules import (
    CHANCE,
    Event,
    Facts,
    FieldKind,
    GameRules,
    HandScore,
    ScoreSheet,
    SituationReads,
    ToAct,
    seat_dict,
)
from projections.games.seven_and_a_half import _offers
from projections.games.seven_and_a_half import bot as bots
from projections.games.seven_and_a_half._evolve import evolve_bet, evolve_deal, evolve_hit, evolve_split, evolve_stand
from projections.games.seven_and_a_half._moves import (
    ALL_STAKES_UP_TO,
    chance_events,
    legal_events,
    offered_stakes,
    to_act,
)
from projections.games.seven_and_a_half._options import OPTIONS
from projections.games.seven_and_a_half._state import (
    BANKER,
    BETWEEN,
    DEAL,
    OVER,
    PLAY,
    STAKES,
    Hand,
    SevenAndAHalfState,
)
from projections.games.seven_and_a_half._validate import validate
from projections.games.seven_and_a_half._view import REVEALS, VARIANTS, VISIBILITY, census, held, view
from projections.games.seven_and_a_half.dealing import DEALING_ORDER
from projections.games.seven_and_a_half.duplicate import DUPLICATE
from projections.games.seven_and_a_half.readmodels import RATING, STATISTICS
from projections.games.seven_and_a_half.review import REVIEWER
from projections.games.seven_and_a_half.table import SevenAndAHalfTable
from projections.games.seven_and_a_half.words import WORDS

#: the rules' parts kept in private modules by concern (`_options`, `_evolve`, `_moves`, `_view`, `_validate`)
#: are still this package's names
__all__ = [
    "ALL_STAKES_UP_TO",
    "OPTIONS",
    "REVEALS",
    "RULES",
    "VARIANTS",
    "VISIBILITY",
    "Hand",
    "SevenAndAHalfState",
    "census",
    "chance_events",
    "evolve",
    "held",
    "legal_events",
    "offered_stakes",
    "to_act",
    "validate",
    "view",
]


# --------------------------------------------------------------------------- interface


def initial_state(players: Sequence[str], options: Mapping[str, Any]) -> SevenAndAHalfState:
    """A session before its first hand.

    Raises:
        UnknownGameError: `min_bet` above `max_bet`.
    """
    if options["min_bet"] > options["max_bet"]:
        raise UnknownGameError(
            f"option 'min_bet' ({options['min_bet']}) must not be above 'max_bet' ({options['max_bet']})",
            field="options.min_bet",
        )
    seats = len(players)
    first = options["first_banker"]
    return SevenAndAHalfState(
        seats=seats,
        options=dict(options),
        banker=first,
        next_banker=first,
        stakes=(None,) * seats,
        hands=((),) * seats,
    )


def evolve(state: SevenAndAHalfState, event: SevenAndAHalfEvent, seq: int) -> tuple[SevenAndAHalfState, Facts]:
    """The fold step for the event whose seq is `seq`: the new state and the event's facts. No rule
    checks, no randomness."""
    if event["type"] == "hit":
        return evolve_hit(state, event, seq)
    elif event["type"] == "stand":
        return evolve_stand(state, event, seq)
    elif event["type"] == "bet":
        return evolve_bet(state, event, seq)
    elif event["type"] == "deal":
        return evolve_deal(state, event)
    elif event["type"] == "split":
        return evolve_split(state, event, seq)
    elif event["type"] == "flip":
        flipped = state.flippable(event["seat"], event.get("hand"))
        return replace(state, face_down=state.face_down - set(flipped)), {"flipped": flipped}
    elif event["type"] == "bank_passed":
        return replace(state, next_banker=event["to"]), {"next_banker": event["to"]}
    elif event["type"] == "session_closed":
        return replace(state, phase=OVER, turn=None), {"session_closed": True}
    elif event["type"] == "hand_voided":
        zeros = (0,) * state.seats
        voided = replace(
            state,
            phase=BETWEEN,
            next_banker=state.banker,
            stakes=(None,) * state.seats,
            hands=((),) * state.seats,
            turn=None,
            face_down=frozenset(),
            lines=(),
            results=state.results.append(HandScore(state.hand, zeros, ())),
            bank_taken_by=None,
        )
        return voided, {"hand_ended": True, "voided": True, "points": seat_dict(zeros), "next_banker": state.banker}
    else:
        assert_never(event)


# --------------------------------------------------------------------------- reading the state


def score(state: SevenAndAHalfState) -> ScoreSheet:
    """Totals are net chips over the finished hands; a session has no winner."""
    totals = state.results.totals(state.seats)
    return ScoreSheet(totals, state.results, state.phase == OVER, None)


def is_terminal(state: SevenAndAHalfState) -> bool:
    return state.phase == OVER


def hand_in_progress(state: SevenAndAHalfState) -> bool:
    return state.in_progress


#: the events `situations` can tag (a split, a bank passed, the session's close, a face-down hit, and the
#: results that name a bust, a 7½, a bonus or the bank taken)
SITUATION_READS = SituationReads(
    types=("split", "bank_passed", "session_closed"),
    result_marks=(
        '"bust"',
        '"banker_bust"',
        '"seven_and_a_half"',
        '"two_card"',
        '"pair_of_sevens"',
        '"all_bust"',
        '"bank_taken_by"',
    ),
    data_marks=('"face_down"',),
)


def situations(event: Event, result: Mapping[str, Any]) -> list[str]:
    """Search tags: bust, seven_and_a_half, two_card_bonus, pair_of_sevens, split, bank_passed..."""
    tags = []
    kind = event["type"]
    if result.get("bust"):
        tags.append("bust")
    if result.get("banker_bust"):
        tags.append("banker_bust")
    if result.get("seven_and_a_half"):
        tags.append("seven_and_a_half")
    if result.get("two_card"):
        tags.append("two_card_bonus")
    if result.get("pair_of_sevens"):
        tags.append("pair_of_sevens")
    if result.get("all_bust"):
        tags.append("all_bust")
    if kind == "split":
        tags.append("split")
    if kind == "hit" and event.get("face_down"):
        tags.append("face_down")
    if kind == "bank_passed" or result.get("bank_taken_by") is not None:
        tags.append("bank_passed")
    if kind == "session_closed":
        tags.append("session_closed")
    return tags


# --------------------------------------------------------------------------- the declaration


class Phase(StrEnum):
    """The state's `phase` values (the strings the state and the state document hold)."""

    BETWEEN = BETWEEN
    STAKES = STAKES
    DEAL = DEAL
    PLAY = PLAY
    BANKER = BANKER
    OVER = OVER


def next_to_act(state: SevenAndAHalfState) -> ToAct:
    """The seats to stake (any of them), the seat to play, CHANCE when the deal is due, () once closed.

    A player's or the banker's turn is a decision (stand, or ask for a card: the `hit` that follows
    is the chance event), so it names the seat.
    """
    return CHANCE if state.phase == Phase.DEAL else tuple(to_act(state))


SITUATION_TAGS: dict[str, str] = {
    "bust": "a hand went over 7½",
    "banker_bust": "the banker went over 7½",
    "all_bust": "every player hand bust, so the banker did not play",
    "seven_and_a_half": "a hand reached exactly 7½",
    "two_card_bonus": "a 7 and a face card as the first two cards (with `two_card_bonus`)",
    "pair_of_sevens": "a hand of two 7s (with `pair_of_sevens`)",
    "split": "a hand of two face cards was split",
    "face_down": "a card was asked for face down",
    "bank_passed": "the bank changed hands",
    "session_closed": "the session was closed",
}

FIELDS: dict[str, dict[str, FieldKind]] = {
    "bet": {"seat": "seat"},
    "deal": {"cards": "cards"},
    "hit": {"seat": "seat", "card": "card"},
    "stand": {"seat": "seat"},
    "split": {"seat": "seat"},
    "flip": {"seat": "seat"},
    "bank_passed": {"to": "seat"},
}


#: The unit of every value a person reads (`GameRules.units`, `phrases.value_text`): totals in half
#: points (`total` of a hit, a stand and a hand in the view, the settlement's `banker_total`), stakes and
#: payments in chips (a `bet`'s and a `split`'s `amount`, the view's `stake`, `stakes` and limits, the
#: points of score lines, hands and facts, the totals and the view's `hand_points`).
UNITS: dict[str, str] = {
    "total": HALF,
    "banker_total": HALF,
    "amount": CHIPS,
    "stake": CHIPS,
    "stakes": CHIPS,
    "min_bet": CHIPS,
    "max_bet": CHIPS,
    "points": CHIPS,
    "totals": CHIPS,
    "hand_points": CHIPS,
}


RULES: GameRules[SevenAndAHalfState] = GameRules(
    kind="seven-and-a-half",
    title="Seven and a Half",
    player_counts=(4, 5, 6),
    events=EVENTS,
    event_types=SevenAndAHalfEvent,
    options=OPTIONS,
    initial_state=initial_state,
    validate=validate,
    evolve=evolve,
    score=score,
    legal_events=legal_events,
    chance_events=chance_events,
    view=view,
    table=SevenAndAHalfTable,
    visibility=VISIBILITY,
    reveals=REVEALS,
    is_terminal=is_terminal,
    hand_in_progress=hand_in_progress,
    census=census,
    situations=situations,
    situation_reads=SITUATION_READS,
    demo_players=("Juan", "Ines", "Carlo", "Sara"),
    phases=Phase,
    situation_tags=SITUATION_TAGS,
    fields=FIELDS,
    to_act=next_to_act,
    units=UNITS,
    bot=bots.bot,
    demo_situations=frozenset({"seven_and_a_half", "bust"}),
    complete_offers=_offers.complete_offers,
    disputed=_offers.disputed,
    disputed_chances=_offers.disputed_chances,
    dealing_order=DEALING_ORDER,
    statistics=STATISTICS,
    rating=RATING,
    words=WORDS,
    duplicate=DUPLICATE,
    review=REVIEWER,
)
