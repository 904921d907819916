"""Whole three-handed Gin games played by bots: the game's own invariants on top of the conformance suite.

Uniformly random play almost never knocks, so these games are played by
the game's `beginner` bot (`projections/games/gin_rummy_3/bot.py`: sensible with probability `greed`,
random otherwise), which reaches 100 in well under 9,000 events (a cautious bot, greed 0.5, may take near 3,000).
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.envelope import seal
from projections.core import engine
from projections.core.rules import SPECTATOR
from projections.core.simulate import play
from projections.games.gin_rummy_3 import RULES, GinState
from projections.games.gin_rummy_3.bot import beginner
from tests.projections.helpers import cards_in, check_census

PLAYERS = ["P0", "P1", "P2"]


def _envelopes(events: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    return [
        seal(seq=i, hand=0, event=e, result={}, violation=None, recorded_at="t", actor="test", prev_hash="")
        for i, e in enumerate(events, 1)
    ]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    greed=st.sampled_from([0.5, 0.8, 0.95]),
    options=st.sampled_from(
        [{}, {"gin_bonus": 20, "undercut_bonus": 0}, {"first_roles": {"box": 1, "captain": 2, "sitter": 0}}]
    ),
)
def test_bot_games_reach_100_by_the_rules(seed: int, greed: float, options: dict[str, Any]) -> None:
    rng = random.Random(seed)
    playout = play(RULES, PLAYERS, options, rng=rng, max_events=9000, keep_states=True, bot=beginner(greed))
    assert playout.finished, "a bot game did not reach 100 within 9000 events"
    positions: tuple[engine.Position[GinState], ...] = playout.states
    final = positions[-1]
    sheet = RULES.score(final.game)

    # every hand is in the sheet, with at most one scoring seat, and never the sitter
    assert [h.hand for h in sheet.hands] == list(range(1, final.game.hand + 1))
    totals = [0, 0, 0]
    previous = RULES.initial_state(PLAYERS, RULES.options_for(PLAYERS, options))
    roles_at_deal: dict[int, tuple[int | None, int | None, int | None]] = {}
    for state, event in zip((p.game for p in positions), playout.events, strict=True):
        if event["type"] == "deal":
            roles_at_deal[state.hand] = (state.box, state.captain, state.sitter)
            assert previous.dealing_roles == roles_at_deal[state.hand]
        elif state.hand:
            # within a hand and after it until the next deal, the shown roles are the hand's own
            assert (state.box, state.captain, state.sitter) == roles_at_deal[state.hand]
        assert state.phase not in ("draw", "discard", "offer") or state.stock >= 2
        previous = state
    for h in sheet.hands:
        box, captain, sitter = roles_at_deal[h.hand]
        assert sitter is not None and h.points[sitter] == 0
        assert sum(1 for p in h.points if p) <= 1
        assert all(p >= 0 for p in h.points)
        assert all(line.seat in (box, captain) for line in h.lines)
        before = max(totals)
        totals = [t + p for t, p in zip(totals, h.points, strict=True)]
        # the game does not go on after someone reached 100
        assert before < 100
    assert tuple(totals) == sheet.totals and max(totals) >= 100
    assert sheet.winner == totals.index(max(totals))

    # role rotation: read from each finished hand's facts
    for pos in positions:
        facts, state = pos.facts, pos.game
        if facts.get("hand_ended") and "box_won" in facts and state.phase != "over":
            assert state.dealing_roles == tuple(facts["next_roles"].values())
            assert RULES.view(state, None)["table"]["next_roles"] == facts["next_roles"]

    # the conformance checks: census, no leaks, replay
    for pos in positions:
        census = check_census(RULES, pos)
        for looker in [0, 1, 2, SPECTATOR]:
            shown = cards_in(RULES.view(pos.game, looker))
            for owner, private in census.private.items():
                if owner != looker:
                    assert not shown & set(private), f"seat {looker} sees seat {owner}'s cards at event {pos.seq}"
    initial = engine.start(RULES, PLAYERS, RULES.options_for(PLAYERS, options))
    assert engine.fold(RULES, initial, _envelopes(playout.events)) == final


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_uniform_random_play_offers_only_valid_events(seed: int) -> None:
    """Random play (what the conformance suite does) for a while: every offer passes validate."""
    playout = play(RULES, PLAYERS, {}, rng=random.Random(seed), max_events=1500, keep_states=True)
    for state in playout.states[::25]:
        check_census(RULES, state)
    assert len(playout.events) == 1500 or playout.finished
