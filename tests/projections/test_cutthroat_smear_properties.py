"""Property tests for Cutthroat Smear: whole games, recounted from their events by a second, naive count.

Uniformly random play never ends a Smear game (random bids of 3 and 4 fail
and every total sinks below zero), so whole games are played by the
game's `playout_bot` (bids what its best suit is worth, leads it, plays the rest
at random), with now and then a voided hand; uniformly random play is
checked over a bounded stretch.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from projections.core import engine
from projections.core.registry import rules_for
from projections.core.simulate import play
from projections.games.cutthroat_smear.bot import playout_bot
from tests.projections.helpers import check_census

K = "cutthroat-smear"
RULES = rules_for(K)
ORDER = "23456789TJQKA"
GAME = {"A": 4, "K": 3, "Q": 2, "J": 1, "T": 10}


def bot_game(players: int, first_dealer: int, seed: int, max_events: int = 4000) -> tuple[list[dict[str, Any]], Any]:
    rng = random.Random(seed)
    names = [f"P{i}" for i in range(players)]
    pos = engine.start(RULES, names, RULES.options_for(names, {"first_dealer": first_dealer}))
    events: list[dict[str, Any]] = []
    while not RULES.is_terminal(pos.game) and len(events) < max_events:
        offered = [*RULES.legal_events(pos.game), *RULES.chance_events(pos.game, rng)]
        chosen = playout_bot(pos.game, offered, rng, events)
        if RULES.hand_in_progress(pos.game) and rng.random() < 0.01:
            chosen = {"type": "hand_voided", "reason": "misdeal"}
        decision = engine.decide(RULES, pos, dict(chosen))
        assert decision.violation is None
        pos = engine.apply(RULES, pos, decision.event, pos.seq + 1)
        check_census(RULES, pos)
        events.append(decision.event)
    return events, pos


def recount(n: int, first_dealer: int, events: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The rule file's score, counted again from the events alone, as a scorer at the table would."""
    chunks: list[list[dict[str, Any]]] = []
    for e in events:
        if e["type"] == "deal":
            chunks.append([])
        if chunks:
            chunks[-1].append(e)
    totals, hands, dealer, winner = [0] * n, [], first_dealer, None
    for chunk in chunks:
        assert chunk[0]["dealer"] == dealer, "the deal passes left, except after a throw-in or a void"
        bids = [(e["seat"], e["amount"]) for e in chunk if e["type"] == "bid"]
        cards = [(e["seat"], e["card"]) for e in chunk if e["type"] == "play"]
        passes = sum(1 for e in chunk if e["type"] == "pass")
        if any(e["type"] == "hand_voided" for e in chunk) or (not bids and passes == n):
            hands.append([0] * n)
            continue
        if len(cards) < 6 * n:
            assert chunk is chunks[-1], "a hand in play ends only when six tricks are played"
            break
        bidder, amount = bids[-1]
        trump = cards[0][1][1]
        won = [0] * n
        trumps = [(ORDER.index(c[0]), s) for s, c in cards if c[1] == trump]
        won[max(trumps)[1]] += 1
        won[min(trumps)[1]] += 1
        game = [0] * n
        for t in range(6):
            trick = cards[t * n : (t + 1) * n]
            led = trick[0][1][1]
            taker = max(trick, key=lambda p: (p[1][1] == trump, p[1][1] == led, ORDER.index(p[1][0])))[0]
            game[taker] += sum(GAME.get(c[0], 0) for _, c in trick)
            if "J" + trump in [c for _, c in trick]:
                won[taker] += 1
        if game.count(max(game)) == 1:
            won[game.index(max(game))] += 1
        points = list(won)
        if won[bidder] < amount:
            points[bidder] = -amount
        before = totals[bidder]
        totals = [t + p for t, p in zip(totals, points, strict=True)]
        hands.append(points)
        dealer = (dealer + 1) % n
        if won[bidder] >= amount and (totals[bidder] >= 11 or (amount == 4 and before >= 1)):
            winner = bidder
            assert chunk is chunks[-1], "nothing is played after the game has ended"
    return {"totals": totals, "hands": hands, "winner": winner}


def sheet_of(pos: Any) -> dict[str, Any]:
    sheet = RULES.score(pos.game)
    return {"totals": list(sheet.totals), "hands": [list(h.points) for h in sheet.hands], "winner": sheet.winner}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.sampled_from([2, 3]), first_dealer=st.integers(0, 2), seed=st.integers(0, 2**32 - 1))
def test_a_game_ends_by_its_rule_and_scores_as_a_recount(players: int, first_dealer: int, seed: int) -> None:
    first_dealer %= players
    events, pos = bot_game(players, first_dealer, seed)
    assert RULES.is_terminal(pos.game), f"no end within {len(events)} events"
    sheet = RULES.score(pos.game)
    assert sheet_of(pos) == recount(players, first_dealer, events)
    assert sheet.totals == tuple(sum(h.points[s] for h in sheet.hands) for s in range(players))
    last = sheet.hands[-1]
    # the winner is the last hand's bidder, who made the bid
    assert pos.facts["bidder"] == sheet.winner and pos.facts["made"] is True
    assert [ln.rule for ln in last.lines if ln.seat == sheet.winner][-1] == "smear.bid_made"
    for hand in sheet.hands:
        rules = [ln.rule for ln in hand.lines]
        if "smear.bid_failed" in rules:
            failed = next(ln for ln in hand.lines if ln.rule == "smear.bid_failed")
            assert hand.points[failed.seat] == failed.points < 0
        assert sum(p for p in hand.points if p > 0) <= 4
        assert all(
            p >= 0 for s, p in enumerate(hand.points) if not any(ln.seat == s and ln.points < 0 for ln in hand.lines)
        )


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.sampled_from([2, 3]), seed=st.integers(0, 2**32 - 1))
def test_uniformly_random_play_scores_as_a_recount(players: int, seed: int) -> None:
    names = [f"P{i}" for i in range(players)]
    playout = play(RULES, names, {}, rng=random.Random(seed), max_events=600, keep_states=True)
    final = playout.states[-1]
    assert sheet_of(final) == recount(players, 0, list(playout.events))
    for pos in playout.states:
        state = pos.game
        if state.phase == "play":
            seat = RULES.view(state, None)["to_act"][0]
            offered = {e["card"] for e in RULES.legal_events(state)}
            held = state.hands[seat]
            if state.trick:
                led = state.trick[0][1][1]
                following = {c for c in held if c[1] == led}
                assert offered == (following | {c for c in held if c[1] == state.trump} if following else held)
            else:
                assert offered == held
