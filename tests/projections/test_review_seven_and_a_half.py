"""Seven and a Half's hand review: a stand worked out by hand, and the expected chips of the review's
class-by-class expectimax against a plain one over the actual cards."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest

from projections.core import engine
from projections.core.registry import rules_for
from projections.core.review import SEEN
from projections.games.seven_and_a_half._cards import BUST, CARDS, OPEN, status_of, total
from projections.games.seven_and_a_half._settle import _verdict
from projections.games.seven_and_a_half.review import Table, review
from tests.projections.review_helpers import record

RULES = rules_for("seven-and-a-half")
PLAYERS = ["Juan", "Ines", "Carlo", "Sara"]
FACES = [r + s for s in "CDHS" for r in "JQK"]


def test_standing_on_five_is_right_when_every_card_left_busts_it() -> None:
    """Carlo (seat 1) holds 5: taking a card looks natural on 5, but every ½, ace and 2 is gone (Sara and
    Ines bust showing them), so any card busts him: a hit loses his 10 chips for sure, while standing wins
    whenever the banker's draws bust it."""
    events: list[dict[str, Any]] = [{"type": "bet", "seat": s, "amount": 10} for s in (3, 2, 1)]
    events.append({"type": "deal", "cards": {"0": "3S", "1": "5C", "2": "AH", "3": "AC"}})
    events += [{"type": "hit", "seat": 3, "card": c} for c in [*FACES, "2S"]]  # 7, then 9: bust, all shown
    events += [{"type": "hit", "seat": 2, "card": c} for c in ("AS", "AD", "2C", "2D", "2H")]  # 9: bust
    events += [{"type": "stand", "seat": 1}, {"type": "hit", "seat": 0, "card": "4S"}]
    hand = record(RULES, PLAYERS, events, 1)
    (decision,) = [d for d in review(hand, 1)]
    figure = decision.figure(SEEN)
    assert figure is not None and figure.exact
    values = {c.event["type"]: c.value for c in figure.choices}
    assert values["hit"] == -10.0  # every card left (3s to 7s) takes 5 over 7½
    assert values["stand"] > values["hit"]
    assert figure.chosen.event["type"] == "stand" and figure.cost == 0
    turn = next(t for t in hand.turns if t.seq == decision.seq)
    assert values["stand"] == pytest.approx(brute_stand(turn.before, 1), abs=1e-9)


# --------------------------------------------------------------------------- a plain expectimax over cards


def _payoff(options: Any, player: tuple[str, ...], banker: tuple[str, ...]) -> int:
    table = Table(options)
    wild = options.get("wild_card")
    if status_of(list(player), wild, bool(options.get("pair_of_sevens"))) == BUST:
        return -1
    mine, theirs = table.outcome(table.counts(player)), table.outcome(table.counts(banker))
    wins, multiple, _, _ = _verdict(mine[1], theirs[0], theirs[1], total(list(player), wild), total(list(banker), wild))
    return multiple if wins else -multiple


def _finished(options: Any, cards: tuple[str, ...]) -> bool:
    return status_of(list(cards), options.get("wild_card"), bool(options.get("pair_of_sevens"))) != OPEN


def brute_stand(state: Any, seat: int) -> float:
    """A player's expected chips standing, by the review's model written plainly over the actual cards."""
    options = state.options
    hand = state.hands[seat][0]
    down = state.face_down
    seen = {c for s, hs in enumerate(state.hands) for h in hs for c in h.cards if s == seat or c not in down}
    unseen = frozenset(CARDS) - seen
    hidden = tuple(c for c in hand.cards if c in down)
    shown = tuple(c for c in hand.cards if c not in down)
    belief = unseen | frozenset(hidden)  # what the banker has not seen

    def banker_stand(cards: tuple[str, ...]) -> float:
        if not hidden:
            return -float(_payoff(options, hand.cards, cards))
        left = sorted(belief - set(cards))
        return -sum(_payoff(options, (*shown, h), cards) for h in left) / len(left)

    @cache
    def banker_value(cards: tuple[str, ...]) -> float:
        stand = banker_stand(cards)
        if _finished(options, cards):
            return stand
        left = sorted(belief - set(cards))
        return max(stand, sum(banker_value(tuple(sorted((*cards, c)))) for c in left) / len(left))

    def stands(cards: tuple[str, ...]) -> bool:
        if _finished(options, cards):
            return True
        left = sorted(belief - set(cards))
        return banker_stand(cards) >= sum(banker_value(tuple(sorted((*cards, c)))) for c in left) / len(left)

    @cache
    def z(cards: tuple[str, ...]) -> float:
        if stands(cards):
            return float(_payoff(options, hand.cards, cards))
        left = sorted(unseen - set(cards))
        return sum(z(tuple(sorted((*cards, c)))) for c in left) / len(left)

    return hand.stake * sum(z((b,)) for b in sorted(unseen)) / len(unseen)


def brute_banker(state: Any) -> tuple[float, float]:
    """The banker's expected chips standing and taking a card, plainly over the actual cards."""
    options = state.options
    b = state.banker
    down = state.face_down
    mine = state.hands[b][0].cards
    seen = {c for s, hs in enumerate(state.hands) for h in hs for c in h.cards if s == b or c not in down}
    unseen = frozenset(CARDS) - seen
    hands = [h for s in state.order() for h in state.hands[s] if h.status != BUST]

    def stand(cards: tuple[str, ...]) -> float:
        left = sorted(unseen - set(cards))
        out = 0.0
        for h in hands:
            shown = tuple(c for c in h.cards if c not in down)
            if len(shown) < len(h.cards):
                out -= h.stake * sum(_payoff(options, (*shown, x), cards) for x in left) / len(left)
            else:
                out -= h.stake * _payoff(options, h.cards, cards)
        return out

    @cache
    def value(cards: tuple[str, ...]) -> float:
        s = stand(cards)
        if _finished(options, cards):
            return s
        left = sorted(unseen - set(cards))
        return max(s, sum(value(tuple(sorted((*cards, c)))) for c in left) / len(left))

    left = sorted(unseen - set(mine))
    return stand(tuple(mine)), sum(value(tuple(sorted((*mine, c)))) for c in left) / len(left)


#: what Carlo (seat 2) shows before he busts: every ace and two but the one Sara holds and the one she busts on
LOW = ("AS", "AD", "AH", "2C", "2D", "2H")


def _random_hand(rng: random.Random, options: dict[str, Any]) -> list[dict[str, Any]]:
    """A hand where Sara (seat 3) shows every face card and Carlo (seat 2) every ace and two before they bust, so
    that what is left (3s to 7s) is small enough for the plain expectimax; Ines and the banker play at random."""
    deck = [c for c in CARDS if c not in FACES and c not in LOW and c != "AC"]
    rng.shuffle(deck)
    events: list[dict[str, Any]] = [{"type": "bet", "seat": s, "amount": rng.randint(1, 10)} for s in (3, 2, 1)]
    events.append({"type": "deal", "cards": {"0": deck.pop(), "1": deck.pop(), "2": LOW[0], "3": "AC"}})
    events += [{"type": "hit", "seat": 3, "card": c} for c in [*FACES, deck.pop()]]
    events += [{"type": "hit", "seat": 2, "card": c} for c in LOW[1:]]  # 1+1+1+2+2 = 7, then 9: bust
    return events


@pytest.mark.parametrize("seed", range(4))
def test_the_review_agrees_with_a_plain_expectimax_over_the_cards(seed: int) -> None:
    rng = random.Random(seed)
    options = {"two_card_bonus": seed == 1}
    events = _random_hand(rng, options)
    position = engine.start(RULES, PLAYERS, RULES.options_for(PLAYERS, options))
    for seq, event in enumerate(events, 1):
        position = engine.apply(RULES, position, event, seq)
    deck = [c for c in CARDS if c not in position.game.seen]
    rng.shuffle(deck)
    while RULES.hand_in_progress(position.game):
        state = position.game
        seat = state.turn
        hand = state.hands[seat][0]
        if rng.random() < 0.5 and deck:
            event: dict[str, Any] = {"type": "hit", "seat": seat, "card": deck.pop()}
        else:
            event = {"type": "stand", "seat": seat}
        events.append(event)
        position = engine.apply(RULES, position, event, len(events))
        assert hand is not None
    hand = record(RULES, PLAYERS, events, 1, options)
    checked = 0
    # Ines's and the banker's decisions: the busts that show the cards are decided while the pool is large
    for decision in [*review(hand, 1), *review(hand, 0)]:
        turn = next(t for t in hand.turns if t.seq == decision.seq)
        figure = decision.figure(SEEN)
        assert figure is not None
        values = {c.event["type"]: c.value for c in figure.choices}
        state = turn.before
        if state.phase == "banker":
            stand, hit = brute_banker(state)
            assert values["stand"] == pytest.approx(stand, abs=1e-9)
            assert values["hit"] == pytest.approx(hit, abs=1e-9)
        else:
            assert values["stand"] == pytest.approx(brute_stand(state, turn.event["seat"]), abs=1e-9)
        checked += 1
    assert checked
