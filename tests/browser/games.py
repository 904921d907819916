"""Recorded games for the browser tests: one of each kind, simulated and written through the Recorder.

The Cutthroat Smear game is recorded under `record` enforcement with one
illegal play (a follow-suit breach, stored with its violation) and one
retraction, so the page's event list has both to mark. The Schnapsen
"live" game stops in the middle of its second hand, for the live and the
share-link tests. The shared example games (tests/data/examples) are
recorded as they are, for the tests that need a moment a random game may
not have (a Gin lay-off).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from events.errors import TablebookError
from events.store import Store
from projections.core import engine
from projections.core.recorder import Recorder
from projections.core.registry import available, rules_for
from projections.core.rules import GameRules
from projections.core.simulate import next_options, play, playout_choice
from tests.projections.helpers import load_example

PLAYERS = {kind: list(rules_for(kind).demo_players) for kind in available()}
KINDS = tuple(PLAYERS)
#: simulated events per game at most (Seven and a Half sessions never end by themselves)
MAX_EVENTS = {"seven-and-a-half": 160, "gin-rummy-3": 400}
#: the shared example games recorded for the browser tests (tests/data/examples): in Gin's, four lay-offs
#: put cards on a knocker's melds
EXAMPLES = ("gin-rummy-3-9001.json",)


@dataclass
class Recorded:
    """A recorded game: its id, kind, players, and the envelopes stored."""

    id: str
    kind: str
    players: list[str]
    envelopes: list[dict[str, Any]] = field(default_factory=list)

    def hands(self) -> list[int]:
        return sorted({env["hand"] for env in self.envelopes if env["hand"] > 0})

    def seqs_of(self, hand: int) -> list[int]:
        return [env["seq"] for env in self.envelopes if env["hand"] == hand]


def _append(recorder: Recorder, game_id: str, club_id: int, events: Sequence[Mapping[str, Any]]) -> None:
    for start in range(0, len(events), 300):
        recorder.append(game_id, list(events[start : start + 300]), club_id=club_id, actor="test")


def _continue(rules: GameRules[Any], state: Any, rng: random.Random, count: int) -> tuple[Any, list[dict[str, Any]]]:
    """Play `count` more simulated events from `state` (a random playout's choices: `simulate.playout_choice`)."""
    events: list[dict[str, Any]] = []
    while not rules.is_terminal(state.game) and len(events) < count:
        offered = next_options(rules, state.game, rng)
        chosen = playout_choice(rules, state.game, offered, rng, events)
        decision = engine.decide(rules, state, dict(chosen))
        state = engine.apply(rules, state, decision.event, state.seq + 1)
        events.append(decision.event)
    return state, events


def _illegal_play(rules: GameRules[Any], state: Any) -> dict[str, Any] | None:
    """A play by the seat to act that the rules flag as illegal (not impossible), if there is one."""
    seen = rules.view(state.game, None)
    for seat in seen.get("to_act", []):
        for card in seen["seats"][seat].get("cards", []):
            event = {"type": "play", "seat": seat, "card": card}
            try:
                decision = engine.decide(rules, state, event)
            except TablebookError:
                continue
            if decision.violation is not None:
                return decision.event
    return None


def record_plain(store: Store, club_id: int, kind: str, seed: int = 7, max_events: int | None = None) -> Recorded:
    """A simulated game of `kind`, recorded as played."""
    rules = rules_for(kind)
    limit = max_events or MAX_EVENTS.get(kind, 1500)
    playout = play(rules, PLAYERS[kind], {}, rng=random.Random(seed), max_events=limit)
    recorder = Recorder(store)
    game = recorder.create_game(club_id=club_id, kind=kind, players=PLAYERS[kind], options={})
    _append(recorder, game.id, club_id, playout.events)
    return Recorded(game.id, kind, PLAYERS[kind], store.read_events(game.id))


def record_flawed_smear(store: Store, club_id: int, seed: int = 5) -> Recorded:
    """Smear under `record`: an illegal play stored with its violation, later a retraction, then play on."""
    kind = "cutthroat-smear"
    rules = rules_for(kind)
    rng = random.Random(seed)
    recorder = Recorder(store)
    game = recorder.create_game(club_id=club_id, kind=kind, players=PLAYERS[kind], options={"enforcement": "record"})
    state = recorder.live(game.id).state
    events: list[dict[str, Any]] = []
    flawed = False
    while not flawed:
        illegal = _illegal_play(rules, state) if state.hand >= 2 else None
        if illegal is not None:
            events.append(illegal)
            state = engine.apply(rules, state, illegal, state.seq + 1)
            flawed = True
            continue
        state, more = _continue(rules, state, rng, 1)
        assert more, "the game ended before an illegal play was possible"
        events.extend(more)
    state, more = _continue(rules, state, rng, 4)
    events.extend(more)
    _append(recorder, game.id, club_id, events)
    head = recorder.live(game.id).state.seq
    recorder.append(
        game.id,
        [{"type": "retract", "to_seq": head - 2, "reason": "two cards played out of turn"}],
        club_id=club_id,
        actor="test",
    )
    _, rest = _continue(rules, recorder.live(game.id).state, rng, 2000)
    _append(recorder, game.id, club_id, rest)
    return Recorded(game.id, kind, PLAYERS[kind], store.read_events(game.id))


def record_live_schnapsen(store: Store, club_id: int, seed: int = 3) -> tuple[Recorded, list[dict[str, Any]]]:
    """A Schnapsen match stopped in the middle of hand 2, and the events that would come next."""
    kind = "schnapsen"
    rules = rules_for(kind)
    playout = play(rules, PLAYERS[kind], {}, rng=random.Random(seed), keep_states=True)
    cut = next(i for i, s in enumerate(playout.states) if s.hand == 2) + 6
    recorder = Recorder(store)
    game = recorder.create_game(club_id=club_id, kind=kind, players=PLAYERS[kind], options={})
    _append(recorder, game.id, club_id, playout.events[:cut])
    assert rules.hand_in_progress(recorder.live(game.id).state.game)
    return Recorded(game.id, kind, PLAYERS[kind], store.read_events(game.id)), list(playout.events[cut:])


def record_noted_retract(store: Store, club_id: int, seed: int = 11) -> Recorded:
    """Schnapsen with a note and a score claim made inside a range that a later retract takes back.

    Hand 1 is played to its 8th event; then two plays, a note disputing the hand (with its `ref`), a
    score claim, two more events; then a retract back to the 8th event of the hand; then play on. The
    retract takes back the four game events only: the note and the claim stay in force.
    """
    kind = "schnapsen"
    rules = rules_for(kind)
    rng = random.Random(seed)
    recorder = Recorder(store)
    game = recorder.create_game(club_id=club_id, kind=kind, players=PLAYERS[kind], options={})
    state = recorder.live(game.id).state
    state, before = _continue(rules, state, rng, 8)
    _append(recorder, game.id, club_id, before)
    to_seq = state.seq
    state, two = _continue(rules, state, rng, 2)
    _append(recorder, game.id, club_id, two)
    points = {str(s): 0 for s in range(len(PLAYERS[kind]))}
    engine_events = [
        {"type": "note", "text": "Ben disputes the trick just played", "ref": state.seq},
        {"type": "score_claimed", "hand": 1, "points": {**points, "1": 2}},
    ]
    _append(recorder, game.id, club_id, engine_events)
    _, more = _continue(rules, recorder.live(game.id).state, rng, 2)
    _append(recorder, game.id, club_id, more)
    retract = {"type": "retract", "to_seq": to_seq, "reason": "the trick was misrecorded"}
    recorder.append(game.id, [retract], club_id=club_id, actor="test")
    _, rest = _continue(rules, recorder.live(game.id).state, rng, 10)
    _append(recorder, game.id, club_id, rest)
    return Recorded(game.id, kind, PLAYERS[kind], store.read_events(game.id))


def record_example(store: Store, club_id: int, name: str) -> Recorded:
    """A shared example game (tests/data/examples/`name`): its players and options, its events as they are."""
    example = load_example(name)
    kind, players = example["game"], list(example["players"])
    recorder = Recorder(store)
    game = recorder.create_game(club_id=club_id, kind=kind, players=players, options=example["options"])
    _append(recorder, game.id, club_id, example["events"])
    return Recorded(game.id, kind, players, store.read_events(game.id))
