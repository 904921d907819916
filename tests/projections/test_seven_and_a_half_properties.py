"""Seven and a Half, random sessions: every settled hand checked against the rule file by a separate oracle.

The oracle below is written from the rule text, not from the module: it
recomputes each hand's net chips, who takes the bank, and the ledger's shape
(two opposite lines per settled stake) from the cards on the table.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from projections.core.phrases import has_marker, render, seat
from projections.core.registry import rules_for
from projections.core.rules import Event
from projections.core.simulate import play
from projections.games.seven_and_a_half import SevenAndAHalfState

KIND = "seven-and-a-half"
RULES = rules_for(KIND)

HALF_POINTS: dict[str, int] = {"A": 2, "J": 1, "Q": 1, "K": 1, **{str(n): 2 * n for n in range(2, 8)}}


def oracle_total(cards: tuple[str, ...], wild: str | None) -> int:
    """Half points; the wild card tries ½ and 1..7 and keeps the best total not above 7½."""
    plain = sum(HALF_POINTS[c[0]] for c in cards if c != wild)
    if wild not in cards:
        return plain
    totals: list[int] = [plain + v for v in (1, 2, 4, 6, 8, 10, 12, 14)]
    fitting = [t for t in totals if t <= 15]
    return max(fitting) if fitting else min(totals)


def oracle_net(state: SevenAndAHalfState) -> tuple[list[int], int | None]:
    """Net chips per seat of the hand just settled, and who takes the bank (None: nobody)."""
    opts = state.options
    wild = opts["wild_card"]
    b = state.banker
    n = state.seats
    order = [(b - k) % n for k in range(1, n)]

    def pair(cards: tuple[str, ...]) -> bool:
        return bool(opts["pair_of_sevens"]) and len(cards) == 2 and cards[0][0] == cards[1][0] == "7"

    def two_card(cards: tuple[str, ...]) -> bool:
        ranks = sorted(c[0] for c in cards)
        return bool(opts["two_card_bonus"]) and len(cards) == 2 and ranks[0] == "7" and ranks[1] in "JKQ"

    def bust(cards: tuple[str, ...]) -> bool:
        return not pair(cards) and oracle_total(cards, wild) > 15

    net = [0] * n
    bank = state.hands[b][0].cards
    players = [(s, h.cards, h.stake) for s in order for h in state.hands[s]]
    everyone_bust = all(bust(cards) for _, cards, _ in players)
    for s, cards, stake in players:
        if bust(cards):
            won = -stake
        elif bust(bank):
            won = stake * (3 if pair(cards) else 2 if two_card(cards) else 1)
        elif pair(bank):
            won = -stake
        elif pair(cards):
            won = 3 * stake
        elif two_card(bank):
            won = -stake
        elif two_card(cards):
            won = 2 * stake
        elif oracle_total(cards, wild) > oracle_total(bank, wild):
            won = stake
        else:
            won = -stake
        net[s] += won
        net[b] -= won
    assert not everyone_bust or len(bank) == 1, "the banker played although every player had bust"
    taker = next(
        (s for s, cards, _ in players if pair(cards) or (not bust(cards) and oracle_total(cards, wild) == 15)), None
    )
    return net, taker


def rarely_closing(state: Any, offered: Sequence[Event], rng: random.Random, history: Sequence[Event]) -> Event:
    """Uniform among the offered events, but `session_closed` only 1 time in 50, so sessions run long."""
    playing = [e for e in offered if e["type"] != "session_closed"]
    if len(playing) < len(offered) and rng.random() < 0.02:
        return {"type": "session_closed"}
    return rng.choice(playing or list(offered))


OPTION_SETS = st.fixed_dictionaries(
    {
        "max_bet": st.integers(1, 4),
        "two_card_bonus": st.booleans(),
        "pair_of_sevens": st.booleans(),
        "face_down_request": st.booleans(),
        "splitting": st.booleans(),
        "wild_card": st.sampled_from([None, "KD", "JS", "QH"]),
    }
)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(4, 6), options=OPTION_SETS, first=st.integers(0, 5))
def test_random_sessions_settle_by_the_rules(seed: int, seats: int, options: dict[str, Any], first: int) -> None:
    options = {**options, "first_banker": first % seats}
    players = [f"P{i}" for i in range(seats)]
    rng = random.Random(seed)
    playout = play(RULES, players, options, rng=rng, max_events=500, keep_states=True, bot=rarely_closing)
    begun = 0
    expected_banker = first % seats
    for event, position in zip(playout.events, playout.states, strict=True):
        state, facts = position.game, position.facts
        if event["type"] == "bet":
            assert event["seat"] != state.banker
            if facts.get("banker") is not None:
                begun += 1
                assert state.banker == expected_banker and state.hand == begun
        if event["type"] == "bank_passed":
            expected_banker = event["to"]
        if not facts.get("hand_ended"):
            continue
        hand = RULES.score(state).hands[-1]
        assert hand.hand == state.hand and sum(hand.points) == 0
        if facts.get("voided"):
            assert hand.points == (0,) * seats and state.next_banker == state.banker
            expected_banker = state.banker
            continue
        net, taker = oracle_net(state)
        assert list(hand.points) == net, (event, state.hands)
        assert facts.get("bank_taken_by") == taker
        expected_banker = state.banker if taker is None else taker
        assert state.next_banker == expected_banker
        lines = hand.lines
        assert len(lines) == 2 * sum(len(state.hands[s]) for s in range(seats) if s != state.banker)
        for mine, bank in zip(lines[::2], lines[1::2], strict=True):
            assert bank.seat == state.banker != mine.seat
            assert mine.points == -bank.points and mine.reason == bank.reason and mine.rule == bank.rule
            # the reason names both seats as markers; rendered, their players' names, the values in units
            assert seat(mine.seat) in mine.reason and seat(state.banker) in mine.reason
            shown = render(mine.reason, players)
            assert players[mine.seat] in shown and players[state.banker] in shown
            assert not has_marker(shown) and not re.search(r"seat \d", shown)
            assert re.search(r"pays \d+ chips? to", shown)
            assert all(type(p) is int for p in (mine.points, bank.points))
    final = playout.states[-1].game
    sheet = RULES.score(final)
    assert [h.hand for h in sheet.hands] == list(range(1, len(sheet.hands) + 1))
    assert all(sum(h.points) == 0 for h in sheet.hands)
    assert sheet.totals == tuple(sum(h.points[s] for h in sheet.hands) for s in range(seats))
    assert sum(sheet.totals) == 0 and sheet.winner is None
    assert playout.finished == (playout.events[-1]["type"] == "session_closed") == sheet.finished


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_sessions_at_the_default_limits_keep_dealing_hands(seed: int) -> None:
    """With 100 stake amounts on offer a random session still plays hand after hand."""
    playout = play(RULES, ["A", "B", "C", "D"], {}, rng=random.Random(seed), max_events=1500, keep_states=True)
    assert playout.finished or len(RULES.score(playout.states[-1].game).hands) >= 40
