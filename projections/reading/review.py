"""Hand review: every decision of a finished hand, what the choice made cost and the best one, in words.

The read of `GET /v1/games/{id}/review` and `tablebook review`. The hand's events in force are walked
from the record with the engine (`hand_record`: a retract drops what it took back), the game's own
reviewer values each decision (`GameRules.review`, `projections/core/review.py`, in the game's
package), and here, for every game alike, each decision is marked by what it cost against the game's
thresholds (?! an inaccuracy, ? a mistake, ?? a blunder, as lichess marks a move) and said in a
sentence a player reads ("Anna: leading 10♥ here cost 1 game point with hindsight: ..."), seats by
name and cards with their glyphs (`projections/core/phrases.py`).

Derived from the events alone: nothing is stored and the record is only read; a process remembers the
reviews it last made (`reviewed`, keyed by the events in force, so a correction is never served stale),
runs one search a hand at a time, and at most `SEARCHES_AT_ONCE` searches at once: a flood of reviews
gets 429 `busy` with Retry-After instead of every core of the server.
A hand still being played is never reviewed, for anyone (a review would tell the table what to play);
a viewer or a share link reviews only the hands it may see whole (`Sight.hides`).
"""

from __future__ import annotations

import math
import os
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from events.envelope import Envelope
from events.errors import BusyError, ForbiddenError, NotFoundError
from events.upcast import data_reshaped, upcast
from projections.core import engine, phrases
from projections.core.recorder import Live, Recorder
from projections.core.review import HINDSIGHT, SEEN, Decision, Figure, HandRecord, Reviewer, Turn, Unit
from projections.core.rules import GameRules
from projections.reading.notation import describe
from projections.reading.replay import hand_not_found
from projections.reading.visibility import Sight

#: the marks, from the mildest: an inaccuracy, a mistake, a blunder
MARKS = ("?!", "?", "??")
MARK_NAMES = {"?!": "inaccuracy", "?": "mistake", "??": "blunder"}
#: the seats' tallies of each mark
TALLIES = {"?!": "inaccuracies", "?": "mistakes", "??": "blunders"}
#: costs closer than this to a threshold count as reaching it (averages are sums of floats)
EPSILON = 1e-9
#: the reviews of this many (game, hand, seat, events in force) kept in memory (`reviewed`)
CACHED = 128
#: searches a process runs at once (the rest wait, up to `WAIT_SECONDS`): a review is seconds of CPU, so
#: a reader asking for many hands at once, or many readers, must not take every core of the server
SEARCHES_AT_ONCE = max(1, (os.cpu_count() or 1) - 1)
#: how long a review waits for a search slot before it is refused (429 `busy`, Retry-After)
WAIT_SECONDS = 2.0
#: what a refused reader is told to wait, in seconds
RETRY_AFTER = 2

_cache: OrderedDict[tuple[Any, ...], tuple[Decision, ...]] = OrderedDict()
_cache_lock = threading.Lock()
_searches = threading.BoundedSemaphore(SEARCHES_AT_ONCE)
#: the keys being searched now, each with the event its waiters wait on (one search a key: a page that
#: asks twice, or two readers of the same hand, share it)
_running: dict[tuple[Any, ...], threading.Event] = {}


def reviewed(rules: GameRules[Any], game: str, record: HandRecord[Any], seat: int | None) -> tuple[Decision, ...]:
    """The reviewer's decisions of `record`, remembered in this process: a Schnapsen hand's first lead alone
    can take a second to solve, and the replay page asks for the review of every finished hand it shows.

    The key is the game, the hand, the seat and the seqs of the hand's events in force: events are never
    changed, so those seqs fix what the reviewer is given, and a retract (which changes them) misses. Only
    the decisions are kept: the document, with the players' names as they are now, is made on every read.
    What is remembered is a pure function of the record, so no process's memory decides what a reader sees
    (`review_hand` reads the sight from the database on every request).

    Raises:
        BusyError: the process is already running `SEARCHES_AT_ONCE` searches and none ended within
            `WAIT_SECONDS` (429 with Retry-After: a flood of reviews is refused, not queued without end).
    """
    key = (rules.kind, game, record.hand, seat, tuple(t.seq for t in record.turns))
    while True:
        with _cache_lock:
            found = _cache.get(key)
            if found is not None:
                _cache.move_to_end(key)
                return found
            other = _running.get(key)
            if other is None:
                mine = _running[key] = threading.Event()
                break
        if not other.wait(WAIT_SECONDS):
            raise _busy()
    try:
        if not _searches.acquire(timeout=WAIT_SECONDS):
            raise _busy()
        try:
            assert rules.review is not None
            decisions = tuple(rules.review.review(record, seat))
        finally:
            _searches.release()
        with _cache_lock:
            _cache[key] = decisions
            while len(_cache) > CACHED:
                _cache.popitem(last=False)
        return decisions
    finally:
        with _cache_lock:
            del _running[key]
        mine.set()


def _busy() -> BusyError:
    return BusyError(
        f"the server is reviewing other hands ({SEARCHES_AT_ONCE} at once); ask again in {RETRY_AFTER} s",
        retry_after=RETRY_AFTER,
    )


def not_reviewable(hand: int) -> ForbiddenError:
    """The answer for a hand still being played (or, for a reader who may not see it whole, not over)."""
    return ForbiddenError(
        f"hand {hand} is still being played; a review shows finished hands only", hand=hand, live=True
    )


def hand_record(rules: GameRules[Any], initial: Any, envelopes: Sequence[Envelope], hand: int) -> HandRecord[Any]:
    """Hand `hand` as the record holds it: each of its game events still in force, with the game's state
    before and after it, walked with the engine from `initial` over `envelopes` (a retract drops the
    events it took back)."""
    reshaped = data_reshaped(rules.events)
    turns: list[Turn[Any]] = []
    before = initial.game
    for env, position in engine.walk(rules, initial, envelopes):
        kind = env["type"]
        if kind == "retract":
            to_seq = env["data"]["to_seq"]
            turns = [t for t in turns if t.seq <= to_seq]
        elif env["hand"] == hand and kind not in engine.ENGINE_EVENTS and kind not in engine.DEAL_EVENTS:
            event = {"type": kind, **env["data"]} if kind not in reshaped else upcast(env, rules.events).event
            turns.append(Turn(env["seq"], before, event, position.facts, position.game))
        before = position.game
    return HandRecord(hand, tuple(turns), rules)


def review_hand(recorder: Recorder, live: Live, sight: Sight, hand: int, seat: int | None) -> dict[str, Any]:
    """The review of hand `hand` (of `seat`'s decisions only, if given) as `sight`'s principal may read it;
    `sight` was read with the hand's marks (`sight_of(..., hand=)`).

    Raises:
        NotFoundError: the game has no such hand, or no reviewer.
        ForbiddenError: the hand is still being played, or hidden from this principal.
    """
    rules = live.rules
    if rules.review is None:
        raise NotFoundError(f"{rules.title} has no hand review yet")
    marks = sight.marks
    if marks.hand is None:
        raise hand_not_found(hand, live.state.hand if live.state.seq else 0)
    head = live.state
    if sight.hides(hand) or (head.hand == hand and rules.hand_in_progress(head.game)):
        raise not_reviewable(hand)
    first, last = marks.hand
    start, envelopes = recorder.span(live, marks.walk_from(first, last), last)
    record = hand_record(rules, start, envelopes, hand)
    if not record.turns:
        raise NotFoundError(f"every event of hand {hand} was taken back: there is nothing to review")
    if rules.hand_in_progress(record.turns[-1].after):
        raise not_reviewable(hand)  # begun and never finished: a hand a retract took the table back out of
    decisions = reviewed(rules, live.game.id, record, seat)
    return review_document(rules, record, decisions, live.game.players, seat, game=live.game.id)


# --------------------------------------------------------------------------- marks and sentences


def amount(unit: Unit, value: float) -> str:
    """`1 game point`, `2 game points`, `0.35 chips`: a cost or a value in its unit, never a float's repr."""
    if abs(value - round(value)) < EPSILON:
        n = round(value)
        return f"{n} {unit.one if abs(n) == 1 else unit.many}"
    return f"{value:.{max(unit.places, 1)}f} {unit.many}"


def valued(figure: Figure) -> bool:
    """Whether the choice played has a value: a play against the rules (stored under `record` enforcement)
    is listed with the figure's choices but not valued, and so has no cost and no mark."""
    return math.isfinite(figure.chosen.value) and math.isfinite(figure.best.value)


def mark_of(reviewer: Reviewer[Any], decision: Decision) -> tuple[str | None, Figure | None]:
    """The decision's mark and the figure it comes from: what the seat could see when there is such a
    figure, else hindsight. A sampled figure whose cost is within its margin is not marked."""
    figure = decision.figure(SEEN) or decision.figure(HINDSIGHT)
    if figure is None:
        return None, None
    if not valued(figure):
        return None, figure
    cost = figure.cost / (figure.scale or 1.0)
    if figure.margin is not None and figure.cost <= figure.margin:
        return None, figure
    limits = reviewer.thresholds.get(figure.unit) or reviewer.thresholds[""]
    for mark, limit in zip(reversed(MARKS), (limits.blunder, limits.mistake, limits.inaccuracy), strict=True):
        if cost + EPSILON >= limit:
            return mark, figure
    return None, figure


def label(view: str, seat: int) -> str:
    """How a figure is labelled in a sentence: `with hindsight`, `from what {seat:0} could see`."""
    return "with hindsight" if view == HINDSIGHT else f"from what {phrases.seat(seat)} could see"


def sentence(reviewer: Reviewer[Any], figure: Figure, seat: int) -> str:
    """The figure in a sentence, marked (rendered with the players' names by the caller)."""
    unit = _unit(reviewer, figure)
    played, best = figure.chosen, figure.best
    said = label(figure.view, seat)
    if not valued(figure):
        return f"{played.words} was against the rules: not valued"
    margin = f" (give or take {amount(unit, figure.margin)})" if figure.margin else ""
    if figure.cost <= EPSILON:
        ties = sum(1 for c in figure.choices if abs(c.value - played.value) <= EPSILON)
        how = "nothing else did better" if ties == len(figure.choices) else "the best choice"
        if ties > 1 and ties < len(figure.choices):
            how = "as good as the best"
        text = f"{played.words}: {how} {said}"
        if played.outcome:
            text += f" ({played.outcome})"
        return text
    text = f"{played.words} here cost {amount(unit, figure.cost)}{margin} {said}: {best.words} instead"
    if best.outcome:
        text += f", {best.outcome}"
    if played.outcome:
        text += f"; {played.words}, {played.outcome}"
    return text


def _unit(reviewer: Reviewer[Any], figure: Figure) -> Unit:
    return reviewer.units.get(figure.unit) or reviewer.units[""]


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _number(value: float) -> float | int | None:
    """A value for the JSON answer: an int when whole, else rounded to 4 places; None for no value."""
    if value != value or value in (float("inf"), float("-inf")):
        return None
    if abs(value - round(value)) < EPSILON:
        return round(value)
    return round(value, 4)


def _figure_doc(reviewer: Reviewer[Any], figure: Figure, seat: int, names: Sequence[str]) -> dict[str, Any]:
    def choice(c: Any) -> dict[str, Any]:
        return {
            "event": dict(c.event),
            "words": phrases.render(c.words, names),
            "value": _number(c.value),
            "at_most": c.at_most,
            "outcome": phrases.render(c.outcome, names),
        }

    return {
        "view": figure.view,
        "unit": figure.unit,
        "cost": _number(figure.cost) if valued(figure) else None,
        "exact": figure.exact,
        "bounded": figure.bounded,
        "layouts": figure.layouts,
        "of_layouts": figure.of_layouts,
        "margin": None if figure.margin is None else _number(figure.margin),
        "searched": figure.searched,
        "scale": _number(figure.scale),
        "note": phrases.render(figure.note, names),
        "sentence": _capital(phrases.render(sentence(reviewer, figure, seat), names)) + ".",
        "best": choice(figure.best),
        "played": choice(figure.chosen),
        "choices": [choice(c) for c in figure.choices],
    }


def review_document(
    rules: GameRules[Any],
    record: HandRecord[Any],
    decisions: Sequence[Decision],
    names: Sequence[str],
    seat: int | None,
    *,
    game: str | None = None,
) -> dict[str, Any]:
    """The answer of `GET /v1/games/{id}/review`: each decision with its mark, its sentence and its figures,
    and each seat's count of marks and what its marked decisions cost."""
    reviewer = rules.review
    assert reviewer is not None
    turns = {t.seq: t for t in record.turns}
    out: list[dict[str, Any]] = []
    seats: dict[int, dict[str, Any]] = {}
    for decision in decisions:
        turn = turns[decision.seq]
        mark, marked = mark_of(reviewer, decision)
        figures = {f.view: _figure_doc(reviewer, f, decision.seat, names) for f in decision.figures}
        note = phrases.render(decision.note, names)
        main = figures[marked.view] if marked is not None else None
        entry = {
            "seq": decision.seq,
            "seat": decision.seat,
            "player": phrases.who(decision.seat, names),
            "event": dict(turn.event),
            "text": describe(rules, turn.event, turn.facts, names),
            "mark": mark,
            "mark_name": MARK_NAMES.get(mark or ""),
            "mark_from": None if marked is None else marked.view,
            "cost": None if main is None else main["cost"],
            "unit": "" if marked is None else marked.unit,
            "sentence": phrases.who(decision.seat, names) + ": " + (main["sentence"] if main else _capital(note) + "."),
            "note": note,
            "hindsight": figures.get(HINDSIGHT),
            "seen": figures.get(SEEN),
        }
        out.append(entry)
        tally = seats.setdefault(
            decision.seat,
            {"seat": decision.seat, "player": phrases.who(decision.seat, names), "decisions": 0, "cost": {}},
        )
        tally["decisions"] += 1
        for name in TALLIES.values():
            tally.setdefault(name, 0)
        if mark is not None:
            tally[TALLIES[mark]] += 1
        if marked is not None and valued(marked):
            key = marked.unit
            tally["cost"][key] = _number(tally["cost"].get(key, 0) + marked.cost)
    return {
        "game": game,
        "kind": rules.kind,
        "hand": record.hand,
        "seat": seat,
        "units": {k: {"one": u.one, "many": u.many, "places": u.places} for k, u in reviewer.units.items()},
        "thresholds": {
            k: {"?!": t.inaccuracy, "?": t.mistake, "??": t.blunder} for k, t in reviewer.thresholds.items()
        },
        "about": dict(reviewer.about),
        "decisions": out,
        "seats": [seats[s] for s in sorted(seats)],
        "searched": sum(f["searched"] for d in out for f in (d["hindsight"], d["seen"]) if f),
    }


def marks_of(document: Mapping[str, Any]) -> dict[int, str]:
    """seq -> mark of each marked decision of a review document (what the replay page draws)."""
    return {d["seq"]: d["mark"] for d in document["decisions"] if d["mark"]}
