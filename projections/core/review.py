"""Hand review: what a game's reviewer is given, and what it answers.

A game declares its reviewer as `GameRules.review` (a `Reviewer`): pure functions over the game's own
state types, in the game's own package (`projections/games/<game>/review.py`). It is given a finished
hand as the record holds it (`HandRecord`: every event of the hand still in force, each with the
game's state before and after it) and answers, for each decision of that hand, what each choice open
to the seat was worth and which one was played (`Decision`, `Figure`, `Choice`), in the game's own unit.

Two kinds of figure, always told apart:

- `HINDSIGHT`: every card of the hand known, as a double-dummy solver sees a bridge deal (the cards
  the record shows; where the record does not say where an unseen card lay, the figure says how it
  averaged over the possibilities);
- `SEEN`: from what the seat could see at that moment, every layout of the cards it could not see
  that is consistent with what it saw weighed alike (all of them when `exact`, else a stated number
  drawn at random, with a 95% confidence `margin` on the cost).

A figure never hides a bound: `bounded` says the search stopped short of the hand's end (a deal's end
in Casino, a node budget), and `note` says how. The game-independent part (walking the record,
marks, sentences) is `projections/reading/review.py`; nothing here knows a game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

#: every card of the hand known
HINDSIGHT = "hindsight"
#: what the seat could see when it chose
SEEN = "seen"

#: a game's state (a `rules.BaseState`; not bound here, so that this module stays below `rules.py`)
S = TypeVar("S")


@dataclass(frozen=True, slots=True)
class Turn(Generic[S]):
    """One event of the hand in force: the game's state before it, the event, its facts, the state after."""

    seq: int
    before: S
    event: Mapping[str, Any]
    facts: Mapping[str, Any]
    after: S


@dataclass(frozen=True, slots=True)
class HandRecord(Generic[S]):
    """A finished hand as the record holds it: its events in force, in order (retracted ones left out)."""

    hand: int
    turns: tuple[Turn[S], ...]
    #: the game's `GameRules`, for a reviewer that searches with the game's own moves (`legal_events`,
    #: `evolve`): typed loosely, as this module stays below `rules.py`
    rules: Any = None


@dataclass(frozen=True, slots=True)
class Choice:
    """One choice open to the seat, as the review valued it.

    `event` is the event the choice would have been (as the record holds one); `words` the choice in a
    player's words, with `projections/core/phrases.py` markers (`"leading {card:TH}"`); `value` what it
    is worth to the seat in the figure's unit; `outcome` what follows it, marked, in words (`"{seat:0}
    wins 2 game points"`), or empty.
    """

    event: Mapping[str, Any]
    words: str
    value: float
    outcome: str = ""
    #: True when `value` is only the most the choice is worth (a search that needed no more to rank it
    #: below the best); False when it is exact
    at_most: bool = False


@dataclass(frozen=True, slots=True)
class Figure:
    """One valuation of a decision: every choice valued, best first, with the one played among them."""

    view: str
    #: the choices valued, best first (the played one among them)
    choices: tuple[Choice, ...]
    #: the index in `choices` of the choice played
    played: int
    #: every consistent layout searched to the end of what the figure values
    exact: bool = True
    #: the layouts of the unseen cards averaged (1: the one the record shows)
    layouts: int = 1
    #: how many consistent layouts there are (== `layouts` when every one was searched)
    of_layouts: int = 1
    #: the 95% confidence half-width of the cost when the layouts were sampled, else None
    margin: float | None = None
    #: positions searched for this figure
    searched: int = 0
    #: the search stopped at a stated bound (the deal's end, a budget): `note` says which
    bounded: bool = False
    #: the key of the reviewer's `units` this figure is in ("" for the game's own unit)
    unit: str = ""
    #: what the figure assumes, marked text (shown once with it), or empty
    note: str = ""
    #: what the thresholds are per (a Seven and a Half decision's cost is weighed per chip at stake): the
    #: decision is marked when its cost reaches `scale` times a threshold
    scale: float = 1.0

    @property
    def best(self) -> Choice:
        return self.choices[0]

    @property
    def chosen(self) -> Choice:
        return self.choices[self.played]

    @property
    def cost(self) -> float:
        """What the choice played cost against the best one (0 when it was as good)."""
        return max(0.0, self.best.value - self.chosen.value)


@dataclass(frozen=True, slots=True)
class Decision:
    """A decision of the hand reviewed: the seq of the event that made it, its seat, its figures.

    `figures` holds a `HINDSIGHT` figure, a `SEEN` figure, or both; `note` (marked) says why one is
    missing where the game could not give it (the talon still open, a decision it does not value).
    """

    seq: int
    seat: int
    figures: tuple[Figure, ...]
    note: str = ""

    def figure(self, view: str) -> Figure | None:
        return next((f for f in self.figures if f.view == view), None)


@dataclass(frozen=True, slots=True)
class Unit:
    """A unit a figure is in: `one` and `many` (`game point`, `game points`), and the decimals shown."""

    one: str
    many: str
    places: int = 0


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The costs, in one unit, from which a decision is marked ?! (inaccuracy), ? (mistake), ?? (blunder)."""

    inaccuracy: float
    mistake: float
    blunder: float


@dataclass(frozen=True, slots=True)
class Reviewer(Generic[S]):
    """A game's hand review: `review(hand, seat)` the decisions of `hand` (of `seat` only, or of every
    seat with None), with their figures; `units` and `thresholds` keyed by a figure's `unit` ("" for the
    game's own); `about`, what the game's figures mean (plain text, for the documentation and the API)."""

    review: Callable[[HandRecord[S], int | None], Sequence[Decision]]
    units: Mapping[str, Unit]
    thresholds: Mapping[str, Thresholds]
    about: Mapping[str, str] = field(default_factory=dict)
