"""The game interface every game module implements, and what they share.

A game is a *decider* (STYLE.md): pure functions over an immutable state.
Each game module builds one `GameRules` record of its functions; the engine
(`projections/core/engine.py`) drives every game through it, so the same code
serves validation, replay, scoring, audit and simulation.

Conventions every game keeps:

- The game's state is a frozen dataclass deriving from `BaseState`: the
  seats, the options and `hand`, the hand in progress or the last one begun.
  The engine's bookkeeping is not in it (issue 15): the engine wraps the
  game's state in a `Position` with the seq of the last event folded, that
  event's derived facts (the envelope's `result`) and the retract floor.
- `evolve(state, event, seq)` applies the event whose seq is `seq` and
  returns the game's new state and the event's derived facts; it matches the
  game's typed event union exhaustively (`assert_never`).
- `validate` raises `ImpossibleEventError` (or `OutOfTurnError`) for what
  cannot happen, checking all of that *before* raising `IllegalEventError`
  for a breach of a rule (an event that is both is refused as impossible).
- `evolve` never checks rules and never draws a random number.
- The common events `score_claimed`, `note` and `retract` are handled by the
  engine; games handle their own events and `hand_voided`. The rules every
  game shares (`rules/README.md`: a card named twice, a card already seen,
  `hand_voided` only during a hand) are checked by the engine from the
  declaration (`reveals`, `census`), before the game's `validate`.
- What each seat may see is declared once (`Visibility`): the event fields
  whose cards only some seats see, and the cards each seat holds privately.
  `GameRules.redact_event` is derived from it, the game's `view` hides what
  `Visibility.hidden_from` names, and the conformance suite checks both.
- `legal_events` lists decisions only, sorted, and stays cheap: an amount from
  a wide range (a Seven and a Half stake) may be offered as a bounded sample
  whose ends are the range's, though `validate` accepts any amount within
  it. `chance_events` completes the events that reveal a card (a deal, a
  draw from the stock, a hit) with cards drawn at random from those not yet
  seen, for simulation.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Final, Generic, Literal, TypeVar

from events.errors import UnknownGameError
from events.schema import EventSchemas
from projections.core import phrases
from projections.core.dealing_order import DealingOrder
from projections.core.duplicate import Duplicate
from projections.core.rating import Rating
from projections.core.review import Reviewer

# the score types every game builds (`projections/core/scores.py`), named with the rest of the interface
from projections.core.scores import HandScore as HandScore
from projections.core.scores import NamedScoreSheet as NamedScoreSheet
from projections.core.scores import ScoreLine as ScoreLine
from projections.core.scores import ScoreSheet as ScoreSheet
from projections.core.scores import cumulative_totals as cumulative_totals
from projections.core.scores import hand_score as hand_score
from projections.core.scores import replace_at as replace_at
from projections.core.scores import seat_dict as seat_dict
from projections.core.speech import PLAIN, Words

Event = Mapping[str, Any]


#: Who looks at the table: a seat number, `OMNISCIENT` (everything, for an
#: auditor) or `SPECTATOR` (the public table only).
Viewpoint = int | None
OMNISCIENT: Viewpoint = None
SPECTATOR: Viewpoint = -1

#: Placeholder for a card the viewer may not see, in redacted events.
HIDDEN = "??"

EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, kw_only=True)
class BaseState:
    """Fields every game's state has, which the engine reads (not writes).

    States are frozen dataclasses *without* slots (and so are the game states deriving from this):
    `fastreplace.replace` then copies one with a single C-level copy of its `__dict__`, which is what
    keeps a fold's one copy per event cheap however many fields a state has (issue 15).
    """

    seats: int
    options: Mapping[str, Any]
    #: the hand in progress, or the last one begun (0 before the first)
    hand: int = 0


#: An event's derived facts: what `evolve` found (a trick won by, a hand ended...), stored as the
#: envelope's `result`.
Facts = Mapping[str, Any]


S = TypeVar("S", bound=BaseState)


# --------------------------------------------------------------------------- options


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One game option: its default and a check that returns the value or raises.

    What a re-score (`api/service/rescore.py`) and a rule profile (`api/service/profiles.py`) read:
    `scoring_only` says whether the same events may simply be scored again under another value, or must
    be replayed under the new rules until the first one they refuse; `rule` names the rule the option
    governs, so a divergence can say "rule R"; `seating` marks the options that say who sits where or
    deals first, which belong to one game at one table and never to a club's house rules.
    """

    default: Any
    check: Callable[[Any, int], Any]
    help: str = ""
    #: True for an option that changes only how hands are scored, never which events are legal nor
    #: what a seat may see (Casino's sweeps, Seven and a Half's two-card bonus): a game recorded under
    #: one value may be rescored under another from the same events.
    scoring_only: bool = False
    #: the id of the rule this option governs (a score line's rule or an illegal play's), "" for none
    rule: str = ""
    #: who sits where or deals first (`first_dealer`, `first_roles`...): kept from the record by a
    #: re-score, never set by a rule profile
    seating: bool = False

    @property
    def kind(self) -> Literal["scoring", "play"]:
        """`scoring` for an option that only changes the points; `play` for one that changes what is legal
        or how play proceeds."""
        return "scoring" if self.scoring_only else "play"


def opt_seat(value: Any, seats: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < seats:
        raise ValueError(f"must be a seat number from 0 to {seats - 1}")
    return value


def opt_int(minimum: int, maximum: int) -> Callable[[Any, int], int]:
    """An integer option from `minimum` to `maximum`.

    Every integer option has an upper bound (docs/api.md, "Bounds"): an unbounded one once took
    2**64, which no store can hold (a 500), and a huge table limit made `legal_events` crawl.
    """

    def check(value: Any, seats: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError("must be an integer")
        if not minimum <= value <= maximum:
            raise ValueError(f"must be an integer from {minimum:,} to {maximum:,}")
        return value

    return check


def opt_bool(value: Any, seats: int) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def opt_choice(*choices: Any) -> Callable[[Any, int], Any]:
    def check(value: Any, seats: int) -> Any:
        for choice in choices:
            if type(value) is type(choice) and value == choice:
                return value
        raise ValueError("must be one of " + ", ".join(repr(c) for c in choices))

    return check


ENFORCEMENT = OptionSpec(
    "strict",
    opt_choice("strict", "record"),
    "strict: illegal events are rejected; record: stored with a violation",
)


# --------------------------------------------------------------------------- who acts next


@dataclass(frozen=True, slots=True)
class Chance:
    """The marker `to_act` gives when the next event reveals cards (a deal, a draw from the stock, a
    hit...) and no seat has a decision: the simulator's `chance_events` completes it. Compare with
    `is CHANCE` (there is one)."""

    def __repr__(self) -> str:
        return "CHANCE"


CHANCE: Final = Chance()

#: What `to_act(state)` answers: the seats whose decision is due (any of them; `()` once the game has
#: ended), or CHANCE.
ToAct = tuple[int, ...] | Chance

#: How a reader renders one field of an event: a seat number (written with the player's name), one
#: card code, or a list of card codes.
FieldKind = Literal["seat", "card", "cards"]


def normalize_options(specs: Mapping[str, OptionSpec], options: Mapping[str, Any] | None, seats: int) -> dict[str, Any]:
    """The options with defaults filled in, every value checked.

    Raises:
        UnknownGameError: an option the game does not list, or a value out of range.
    """
    given = dict(options or {})
    unknown = sorted(set(given) - set(specs))
    if unknown:
        raise UnknownGameError(
            f"unknown option {unknown[0]!r}; this game takes: {', '.join(sorted(specs))}",
            field=f"options.{unknown[0]}",
        )
    out: dict[str, Any] = {}
    for name, spec in specs.items():
        if name in given:
            try:
                out[name] = spec.check(given[name], seats)
            except ValueError as exc:
                raise UnknownGameError(f"option {name!r} {exc}", field=f"options.{name}") from None
        else:
            out[name] = spec.default
    return out


@dataclass(frozen=True, slots=True)
class Census:
    """Where every card of the current hand is, for conservation and leak checks.

    `places` names each known location (`"hand 0"`, `"trick"`, `"won 1"`,
    `"table"`...) with its cards; `unseen` counts the cards not yet named by
    any event (a talon, a stock, the undealt rest). During a hand, the places
    hold no card twice and `len(all placed) + unseen == deck_size`.
    `private[seat]` is what that seat holds that no other seat may see.
    """

    places: Mapping[str, Sequence[str]]
    unseen: int
    deck: frozenset[str]
    private: Mapping[int, frozenset[str]]


# --------------------------------------------------------------------------- what each seat may see


def _always(event: Event) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class Secret:
    """A card field of one event type whose cards only some seats see; the others see `HIDDEN`.

    `to` says who sees them: `"each_seat"`, a field holding each seat's cards (a list indexed by seat,
    or an object keyed by seat numbers as strings; each entry a card or a list of cards), each entry
    seen by its own seat only (a deal); `"actor"`, the card or cards seen only by the seat the event's
    `seat` field names (a draw from the stock, a face-down hit). `when` narrows a secret to the events
    it holds for (a Gin draw is secret only from the stock).
    """

    field: str
    to: Literal["each_seat", "actor"]
    when: Callable[[Event], bool] = _always


@dataclass(frozen=True, slots=True)
class Visibility(Generic[S]):
    """What each seat may see, stated once per game (issue 15).

    Events: `secrets`, per event type, the card fields some seats may not see; `GameRules.redact_event`
    is derived from it. States: `held(state)`, the cards each seat holds that no other seat may see;
    the game's `view` hides exactly `hidden_from(state, viewpoint)` (a hand with `seat_cards`), and
    `census().private` is `held`.
    The conformance suite checks both sides against this for every game: no view and no redacted
    event shows a viewer a card another seat holds privately, unless the table had already seen it.
    """

    secrets: Mapping[str, tuple[Secret, ...]]
    held: Callable[[S], Mapping[int, frozenset[str]]]

    def hidden_from(self, state: S, viewpoint: Viewpoint) -> frozenset[str]:
        """The cards `viewpoint` may not see in `state`: every other seat's privately held cards."""
        if viewpoint is OMNISCIENT:
            return frozenset()
        hidden: set[str] = set()
        for seat, cards in self.held(state).items():
            if seat != viewpoint:
                hidden.update(cards)
        return frozenset(hidden)

    def seat_cards(self, state: S, viewpoint: Viewpoint, seat: int, cards: Sequence[str]) -> dict[str, Any]:
        """A seat's hand in a view: `{"cards": [...]}` for a viewer who may see it (the seat itself, an
        auditor, anyone once the seat holds nothing privately: a hand laid out face up), else
        `{"card_count": n}`, an empty hand included, so that the document's shape tells nothing."""
        if viewpoint is OMNISCIENT or viewpoint == seat or seat not in self.held(state):
            return {"cards": list(cards)}
        return {"card_count": len(cards)}

    def redact(self, event: Event, viewpoint: Viewpoint) -> Event:
        """`event` as `viewpoint` saw it: each secret card it may not see replaced by `HIDDEN`."""
        if viewpoint is OMNISCIENT:
            return event
        secrets = self.secrets.get(event["type"])
        if not secrets:
            return event
        out: dict[str, Any] | None = None
        for secret in secrets:
            if secret.field not in event or not secret.when(event):
                continue
            value = event[secret.field]
            if secret.to == "actor":
                if event.get("seat") == viewpoint:
                    continue
                hidden: Any = _hide(value)
            elif isinstance(value, Mapping):
                hidden = {k: v if k == str(viewpoint) else _hide(v) for k, v in value.items()}
            else:
                hidden = [v if s == viewpoint else _hide(v) for s, v in enumerate(value)]
            if out is None:
                out = dict(event)
            out[secret.field] = hidden
        return event if out is None else out


def _hide(value: Any) -> Any:
    """A card as `HIDDEN`, or a list of cards as as many `HIDDEN`."""
    if isinstance(value, str):
        return HIDDEN
    return [HIDDEN] * len(value)


# --------------------------------------------------------------------------- what situations read


#: a mark: one quoted JSON key or string value, as the canonical stored text spells it (`"sweeps"`)
_MARK_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


@dataclass(frozen=True, slots=True)
class SituationReads:
    """Which stored events can give a game's `situations` a tag: a superset the log reader filters on.

    An event may give a tag only if its type is one of `types`, or its stored `result` text holds one
    of `result_marks`, or its stored `data` text holds one of `data_marks` (each mark a quoted key or
    string value, `'"sweeps"'`, matched as a plain substring of the canonical JSON). The hand-facts read
    model reads only such events (`projections/readmodels/hand_facts.py`: in SQL, over a partial index), so a
    rebuild skips the plays and draws that give nothing without decoding them. It is a promise about
    `situations`, kept beside it in each game, and checked by playing random legal games
    (tests/projections/test_situation_reads.py): every event `situations` tags must be admitted.
    """

    types: tuple[str, ...] = ()
    result_marks: tuple[str, ...] = ()
    data_marks: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for mark in (*self.result_marks, *self.data_marks):
            if len(mark) < 3 or mark[0] != '"' or mark[-1] != '"' or not set(mark[1:-1]) <= _MARK_CHARS:
                raise ValueError(f"situation mark {mark!r}: a quoted key or value of letters, digits, _ . -")

    def admits(self, kind: str, data: str, result: str) -> bool:
        """Whether an event of type `kind` with these stored texts may give a tag (the SQL filter's twin)."""
        return (
            kind in self.types
            or any(mark in result for mark in self.result_marks)
            or any(mark in data for mark in self.data_marks)
        )


# --------------------------------------------------------------------------- bots


#: A bot, `bot(state, offered, rng, history) -> event`: one of `offered` (the game's `legal_events` with
#: its completed `chance_events`, as `simulate.next_options` offers them), never an event of its own, so
#: it can only play what the rules allow; a chance event is taken as offered (its cards stay the
#: simulator's random ones). `history` is the game's events so far, for what a player remembers (the
#: card it just took); `rng` gives variety among equally good choices.
Bot = Callable[[S, Sequence[Event], random.Random, Sequence[Event]], Event]


# --------------------------------------------------------------------------- the record of functions


@dataclass(frozen=True, slots=True)
class GameRules(Generic[S]):
    """One game's rules, as a record of pure functions (the decider shape), and its declaration.

    The declaration (kind, title, player counts, demo players, options, phases, situation tags, the
    seat- and card-valued fields of its events) is made here once; the registry, the read model,
    the CLI, the hand histories, docs/events.md and the tests read it.
    """

    kind: str
    title: str
    player_counts: tuple[int, ...]
    events: EventSchemas
    #: the game's typed events: the union of one TypedDict per event type it folds (its own and
    #: `hand_voided`), checked against `events` by the conformance suite, which `evolve` matches
    #: exhaustively
    event_types: object
    options: Mapping[str, OptionSpec]
    #: the players of `tablebook demo` and of the tests' recorded games (a count of `player_counts`)
    demo_players: tuple[str, ...]
    #: the values of the state document's `phase`, as the game's `Phase(StrEnum)`
    phases: type[StrEnum]
    #: every tag `situations` may give, with one line saying what it marks (the search's `has=`)
    situation_tags: Mapping[str, str]
    #: per event type, the fields a reader renders as a seat, a card or cards (`{"play": {"seat": "seat",
    #: "card": "card"}}`); a field not named here is a plain value
    fields: Mapping[str, Mapping[str, FieldKind]]
    initial_state: Callable[[Sequence[str], Mapping[str, Any]], S]
    validate: Callable[[S, Event], None]
    #: `evolve(state, event, seq) -> (state, facts)`: the fold step for the event whose seq is `seq`
    evolve: Callable[[S, Any, int], tuple[S, Facts]]
    score: Callable[[S], ScoreSheet]
    legal_events: Callable[[S], Sequence[Event]]
    chance_events: Callable[[S, random.Random], Sequence[Event]]
    view: Callable[[S, Viewpoint], dict[str, Any]]
    #: what each seat may see: the event redaction is derived from it, the view hides what it names
    visibility: Visibility[S]
    is_terminal: Callable[[S], bool]
    hand_in_progress: Callable[[S], bool]
    census: Callable[[S], Census]
    #: the seats whose decision is due, or CHANCE when only a chance event (a deal, a draw...) can come
    to_act: Callable[[S], ToAct]
    #: per event type, the card fields whose cards come out of the unseen deck (a deal, a draw from the
    #: stock, a hit): the engine checks every card there is named once and not seen before in the hand
    reveals: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: EMPTY)
    #: the shape of the `table` entry of `view`'s document, as a TypedDict whose fields may carry a
    #: description as a string in `Annotated[type, "..."]` (the API's schema is made from it,
    #: `api/state_models.py`); None: the table is documented as whatever `view` gives
    table: type | None = None
    #: Situations a hand's events show (`sweep`, `marriage`, `gin`...), for search.
    situations: Callable[[Event, Mapping[str, Any]], Sequence[str]] = field(default=lambda e, r: ())
    #: Which stored events `situations` can tag (`SituationReads`); None: any event may, and the hand
    #: facts read every event of the log.
    situation_reads: SituationReads | None = None
    #: the unit of each value a person reads that is not a plain count (`phrases.value_text`): event
    #: fields and result facts by name (Seven and a Half `{"total": "half", "stake": "chips"}`), and the
    #: reserved keys `"points"` (a score line's and a hand's points) and `"totals"` (the sheet's totals:
    #: Schnapsen's are `"to_go"`, game points still to go). Units: `half`, `chips`, `to_go`, and `seat` for
    #: a fact that names a seat though its name does not say so (Smear's `high`); a key not named here is a
    #: plain number (or a seat, when its name says so: `phrases.is_seat_key`).
    units: Mapping[str, str] = field(default_factory=lambda: EMPTY)
    # -- bots, simulation, offers, fairness report
    #: the game's bot, a player with table sense (`Bot`): it plays the demo games (`tablebook demo`,
    #: `simulate.demo_playout`) and whatever a test wants played as at a club. None: no bot yet, and a
    #: demo game is played as a random playout
    bot: Bot[S] | None = None
    #: the bot random playouts (`simulate.play`, the property tests, the OpenAPI examples) use instead of
    #: a uniform pick, for a game that uniformly random play would never end (Gin hardly ever knocks;
    #: random Smear bids sink every total below zero): a weaker player than `bot` that still plays at
    #: random now and then, so that every legal line comes up. None: uniform
    playout_bot: Bot[S] | None = None
    #: the situation tags (of `situation_tags`) a demo game should show, so that the demo data shows
    #: every feature: `simulate.demo_playout` plays bot games until one has them all
    demo_situations: frozenset[str] = frozenset()
    #: the table pad's offer (`projections/reading/offers.py`) starts from `legal_events`, completed here
    #: into every decision `validate` accepts where the game lists less (Gin's lay-offs, Seven and a
    #: Half's flip of several hands), in the order offered: `complete_offers(state, offered)`
    complete_offers: Callable[[S, list[Event]], list[Event]] = field(default=lambda state, offered: offered)
    #: under `record` enforcement, the plays that break a rule, for the offer's `flagged` (`decide` says
    #: which rule each breaks; a superset is fine): `disputed(state)`
    disputed: Callable[[S], list[Event]] = field(default=lambda state: [])
    #: the chance events that break a rule, each with an example card of `unseen` (Seven and a Half's
    #: face-down hit asked for while the seat holds one): `disputed_chances(state, unseen)`
    disputed_chances: Callable[[S, set[str]], list[Event]] = field(default=lambda state, unseen: [])
    # -- dealing, read models, hand histories
    #: the order a server deals the game's cards in (`DealingOrder`, `rules/server-deal.md`); None: no event
    #: takes a card from a server's deck
    dealing_order: DealingOrder | None = None
    #: the game's own counts on a player's page: label -> situation tag, counted at the player's own seat
    statistics: Mapping[str, str] = field(default_factory=lambda: EMPTY)
    #: the tags whose hand fact is the seat a result fact names, not the event's `seat`: tag -> that fact
    #: (Smear's `made_bid` comes on the hand's last play, but it is the `bidder`'s)
    fact_owners: Mapping[str, str] = field(default_factory=lambda: EMPTY)
    #: how the game's results are rated (`Rating`: pools, matches); None: they are not
    rating: Rating[Any] | None = None
    #: the game's words in a text hand history (`Words`)
    words: Words = PLAIN
    # -- duplicate boards
    #: what "the same deal" means at every table of a duplicate event, a seat's result on a board and the steps
    #: of the difference score (`projections/core/duplicate.py`, from the game's `duplicate.py`). None: the game
    #: is not played with duplicate boards
    duplicate: Duplicate | None = None
    # -- hand review
    #: the game's hand review (`projections/core/review.py`, from the game's `review.py`): what each choice of
    #: a finished hand was worth, with hindsight and from what the seat could see. None: not reviewed
    review: Reviewer[Any] | None = None

    def unit(self, key: str) -> str:
        """The unit of the field, fact, `"points"` or `"totals"` named `key` ("" for a plain number)."""
        return self.units.get(key, "")

    def value_text(self, key: str, value: Any, *, signed: bool = False) -> str:
        """A value of `key` as a person reads it, in the game's own unit (`phrases.value_text`)."""
        return phrases.value_text(self.unit(key), value, signed=signed)

    def options_for(self, players: Sequence[str], options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Check the player count and fill in default options.

        Raises:
            UnknownGameError: wrong number of players, or a bad option.
        """
        if len(players) not in self.player_counts:
            counts = " or ".join(str(n) for n in self.player_counts)
            raise UnknownGameError(f"{self.title} is played by {counts} players, got {len(players)}", field="players")
        return normalize_options(self.options, options, len(players))

    def redact_event(self, event: Event, viewpoint: Viewpoint) -> Event:
        """`event` as `viewpoint` saw it, from the game's `visibility`."""
        return self.visibility.redact(event, viewpoint)

    def seat_fields(self, event_type: str) -> frozenset[str]:
        """The fields of an event type that name a seat."""
        return frozenset(f for f, k in self.fields.get(event_type, EMPTY).items() if k == "seat")

    def card_fields(self, event_type: str) -> frozenset[str]:
        """The fields of an event type that hold a card or cards."""
        return frozenset(f for f, k in self.fields.get(event_type, EMPTY).items() if k != "seat")
