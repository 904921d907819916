"""The compiled Seven and a Half review (`_fastreview.c`) against the Python search it ports (`review.Banker`,
`review.Player`).

The review uses the compiled search where it was built; both must give every figure the same values to the
last bit and the same `searched` counts: over bot-played hands (every decision of a hand in turn, so that the
compiled search's stands kept from one decision of a hand to the next are used), and over random small pools
under every option that changes a total or a payoff. Under CI the package is installed with a compiler, so
the module must be there: a build that silently fell back to Python would pass every other test, only a
hundred times slower.
"""

from __future__ import annotations

import os
import random
from typing import Any

import pytest

from projections.core import engine, simulate
from projections.core.registry import rules_for
from projections.core.review import HandRecord, Turn
from projections.games.seven_and_a_half import review
from projections.games.seven_and_a_half._cards import BUST, CARDS, OPEN
from projections.games.seven_and_a_half.review import Counts, Table, banker_values, player_values

RULES = rules_for("seven-and-a-half")
FACES = [r + s for s in "CDHS" for r in "JQK"]

needs_compiled = pytest.mark.skipif(not review.COMPILED, reason="the compiled search was not built here")


def _bot_hands(options: dict[str, Any], seed: int, count: int) -> list[HandRecord[Any]]:
    """The first `count` finished hands of bot games (as `bench/review.py` plays them), with `options`."""
    players = list(RULES.demo_players)
    rng = random.Random(seed)
    out: list[HandRecord[Any]] = []
    while len(out) < count:
        played = simulate.play(RULES, players, options, rng=rng, bot=RULES.bot, max_events=1500)
        position = engine.start(RULES, players, RULES.options_for(players, options))
        turns: dict[int, list[Turn[Any]]] = {}
        for seq, event in enumerate(played.events, 1):
            before = position.game
            position = engine.apply(RULES, position, event, seq)
            if event["type"] not in engine.ENGINE_EVENTS:
                turns.setdefault(position.game.hand, []).append(Turn(seq, before, event, position.facts, position.game))
        for hand, hand_turns in sorted(turns.items()):
            if hand >= 1 and not RULES.hand_in_progress(hand_turns[-1].after) and len(out) < count:
                out.append(HandRecord(hand, tuple(hand_turns), RULES))
    return out


@needs_compiled
@pytest.mark.parametrize(
    ("options", "seed", "which"),
    [({}, 1, (1,)), ({"pair_of_sevens": True, "two_card_bonus": True}, 1, (1,))],
)
def test_both_searches_review_bot_hands_alike(
    options: dict[str, Any], seed: int, which: tuple[int, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    hands = _bot_hands(options, seed, max(which) + 1)
    figures = 0
    for i in which:
        with monkeypatch.context() as patch:  # the compiled review must not fall back to the Python search
            patch.setattr(review, "Banker", None)
            patch.setattr(review, "Player", None)
            fast = review.review(hands[i], None, compiled=True)
        slow = review.review(hands[i], None, compiled=False)
        assert fast == slow  # every value, text and `searched` count
        figures += sum(len(d.figures) for d in fast)
    assert figures


def _random_options(rng: random.Random) -> dict[str, Any]:
    return {
        "wild_card": rng.choice([None, *FACES]),
        "pair_of_sevens": rng.random() < 0.5,
        "two_card_bonus": rng.random() < 0.5,
    }


def _less(a: Counts, b: Counts) -> Counts:
    return tuple(x - y for x, y in zip(a, b, strict=True))


def _plus(a: Counts, b: Counts) -> Counts:
    return tuple(x + y for x, y in zip(a, b, strict=True))


def _both(call: Any, *args: Any) -> tuple[str, Any, Any]:
    """(compiled, Python) results of `call(*args, compiled=...)`, or the exception type each raised."""
    out: list[Any] = []
    for compiled in (True, False):
        try:
            out.append(call(*args, compiled=compiled))
        except ZeroDivisionError as e:
            out.append(type(e))
    return call.__name__, out[0], out[1]


@needs_compiled
@pytest.mark.parametrize("seed", range(4))
def test_both_searches_value_a_player_over_small_pools_alike(seed: int) -> None:
    """A player hand (a face-down card or none, a face-up card or two) with 8 to 11 cards it has not seen, and
    the banker having seen less (the player's face-down card, now and then another's); then the same hand
    after a hit or two, as its next decisions, whose stands the compiled search keeps from the first."""
    rng = random.Random(seed)
    for _ in range(4):
        options = _random_options(rng)
        table = Table(options)
        while True:
            deck = list(CARDS)
            rng.shuffle(deck)
            hidden_cards = deck[:1] if rng.random() < 0.8 else []
            shown_cards = deck[1 : 1 + rng.randint(0, 2)]
            hidden, shown = table.counts(hidden_cards), table.counts(shown_cards)
            if table.outcome(_plus(hidden, shown))[0] == OPEN:
                break
        rest = deck[3:]
        unseen = rest[: rng.randint(8, 11)]
        pool = table.counts(unseen)
        banker_pool = _plus(pool, table.counts([*hidden_cards, *rest[20 : 20 + rng.randint(0, 1)]]))
        stake = rng.randint(1, 10)
        for _hit in range(3):
            name, fast, slow = _both(player_values, table, stake, pool, banker_pool, hidden, shown)
            assert fast == slow, (name, options, hidden, shown, pool, banker_pool)
            drawn = rng.choice(unseen)
            unseen.remove(drawn)
            card = table.counts([drawn])
            if table.outcome(_plus(_plus(hidden, shown), card))[0] != OPEN:
                break
            shown, pool, banker_pool = _plus(shown, card), _less(pool, card), _less(banker_pool, card)


@needs_compiled
@pytest.mark.parametrize("seed", range(3))
def test_both_searches_value_the_banker_over_small_pools_alike(seed: int) -> None:
    """The banker on one to three cards against one to three player hands, face-down cards among them, with
    8 to 14 cards it has not seen."""
    rng = random.Random(100 + seed)
    checked = 0
    while checked < 8:
        options = _random_options(rng)
        table = Table(options)
        deck = list(CARDS)
        rng.shuffle(deck)
        mine = deck[: rng.randint(1, 3)]
        cards = table.counts(mine)
        if table.outcome(cards)[0] != OPEN:
            continue
        hands = []
        at = 3
        for _ in range(rng.randint(1, 3)):
            shown = table.counts(deck[at : at + rng.randint(1, 2)])
            at += 2
            if table.outcome(shown)[0] != BUST:
                hands.append((rng.randint(1, 10), shown, rng.random() < 0.5))
        unseen = deck[10 : 10 + rng.randint(8, 14)]
        pool = _plus(table.counts(unseen), cards)
        name, fast, slow = _both(banker_values, table, hands, pool, cards)
        assert fast == slow, (name, options, hands, pool, cards)
        checked += 1


def test_under_ci_the_compiled_review_is_built() -> None:
    if os.environ.get("CI", "").lower() not in ("1", "true", "yes"):
        pytest.skip("only CI promises a compiler at install time")
    assert review.COMPILED, "projections/games/seven_and_a_half/_fastreview.c was not built by `pip install -e .`"
