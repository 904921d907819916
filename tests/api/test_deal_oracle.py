"""No answer to a recorder depends on a card the server has not dealt yet: refused batches are no oracle.

A recorder of a server-dealt game could once learn the deck from what a refused batch said: a batch
`[deal, play of a card, note]` was refused at the play when the card was not dealt to that seat and at
the note when it was, and nothing was written, so probe after probe read the deal, and a `seed` at the
head of such a probe ground through seeds until one dealt well. These tests play the prober for every
game, on both stores: at every point of a random game where the server is to deal, they send each
probe three times, each time with the cards still in the deck in another order, and require the
same answer (code, words, details) every time, and nothing written.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest

from events.errors import TablebookError
from events.store import GameRecord, Store
from projections.core import dealing, engine
from projections.core.recorder import Recorder
from projections.core.registry import available, rules_for
from projections.core.rules import GameRules
from projections.core.simulate import playout_choice
from projections.fairness import fairdeal
from tests.conftest import BOTH

#: both stores (tests/conftest.py `stores_of`):
#: the server seeds are each store's rows, and a refusal must look the same on both
STORES = BOTH

SERVER = {"dealing": "server"}


class Reordering(Recorder):
    """A recorder whose decks, while `order` is set, hold their undealt cards in the order `order` shuffles
    them to (the cards already dealt stay where they were): the same table, another deck."""

    order: random.Random | None = None

    def _deck(self, game: GameRecord, deal: dealing.DealState, made: Mapping[str, bytes]) -> list[str]:
        deck = super()._deck(game, deal, made)
        if self.order is None:
            return deck
        rest = deck[deal.taken :]
        self.order.shuffle(rest)
        return [*deck[: deal.taken], *rest]


def answer(recorder: Reordering, game_id: str, club_id: int, batch: Sequence[Any]) -> str:
    """What the recorder answers to `batch`: the refusal's code, words and details, or `accepted`."""
    try:
        recorder.append(game_id, list(batch), club_id=club_id, actor="key:prober")
    except TablebookError as refused:
        return repr((refused.code, refused.message, sorted(refused.details.items())))
    return "accepted"


def probes(
    rules: GameRules[Any], position: engine.Position[Any], chance: Sequence[dict[str, Any]]
) -> Iterator[list[Any]]:
    """Batches a prober sends where the server is to deal: each dealing event followed by what would be
    refused or not depending on the cards it gets, a seed before it, a dealing event for the wrong seat,
    and retracts reaching back past what a server-dealt game allows."""
    note = {"type": "note", "text": ""}
    seats = position.seats
    deal = position.deal
    for event in chance:
        yield [event, note]
        yield [event, {"type": "play", "seat": 1 % seats, "card": "AC"}, note]
        yield [event, {"type": "exchange_trump", "seat": 1 % seats}]
        yield [event, {"type": "discard", "seat": event.get("seat", 0), "card": "KS"}, note]
        yield [event, dict(event), note]
        yield [{"type": "seed", "seed": "grind 1"}, event, note]
        yield [note, event, {"type": "seed", "seed": "grind 2"}]
        if "seat" in event:
            yield [{**event, "seat": (event["seat"] + 1) % seats}]
        yield [{**event, "unknown_field": 1}]
    if deal is not None:
        reach = dealing.retract_reach(deal)
        if reach > 0:
            yield [{"type": "retract", "to_seq": reach - 1, "reason": "probe"}]
            yield [{"type": "retract", "to_seq": 0, "reason": "probe"}, {"type": "seed", "seed": "again"}]


def play_and_probe(store: Store, kind: str, seed: int, steps: int) -> int:
    """Play a random server-dealt game of `kind`, probing at every point where the server is to deal;
    the number of probes sent."""
    rules = rules_for(kind)
    club_id = store.ensure_club(f"oracle-{kind}-{seed}")
    recorder = Reordering(store)
    players = list(rules.demo_players)
    game = recorder.create_game(club_id=club_id, kind=kind, players=players, options=SERVER)
    rng = random.Random(seed)
    sent = 0
    for _ in range(steps):
        position = recorder.live(game.id, club_id).state
        if rules.is_terminal(position.game):
            break
        chance = dealing.server_chance_events(rules, position.game)
        if chance:
            for batch in probes(rules, position, chance):
                answers = []
                for order in range(3):
                    recorder.order = random.Random(order)
                    answers.append(answer(recorder, game.id, club_id, batch))
                    if answers[0] == "accepted":
                        break  # a legal event sent as a probe: appended, like any other
                recorder.order = None
                if answers[0] == "accepted":
                    break
                sent += 1
                assert len(set(answers)) == 1, (kind, batch, answers)
                assert store.get_game(game.id).seq == position.seq, (kind, batch)
        position = recorder.live(game.id, club_id).state
        if rules.is_terminal(position.game):
            break
        offered = [*map(dict, rules.legal_events(position.game)), *dealing.server_chance_events(rules, position.game)]
        chosen = dict(playout_choice(rules, position.game, offered, rng))
        recorder.append(game.id, [chosen], club_id=club_id, actor="key:recorder")
    return sent


@pytest.mark.parametrize("kind", available())
def test_a_refused_batch_says_the_same_whatever_the_deck_holds(store: Store, kind: str) -> None:
    # the rules are the same on both stores; PostgreSQL's seeds and refusals are its own rows, which the
    # game's first deals show as well as a whole game's (a third of the suite's time was these copies)
    steps = 40 if store.url.startswith("postgresql") else 160
    sent = play_and_probe(store, kind, seed=len(kind), steps=steps)
    assert sent >= 10, f"{kind}: only {sent} probes: the game never came to a deal"


@pytest.mark.parametrize("kind", available())
def test_a_dealing_event_is_legal_or_not_whatever_cards_it_gets(kind: str) -> None:
    """The stand-in deck decides for the real one (`engine._deal`): over random games of every kind, each
    dealing event the server could fill is accepted, or refused in the same words, for every order of the
    cards left in the deck, and never reaches the answer kept for a disagreement."""
    rules = rules_for(kind)
    players = list(rules.demo_players)
    options = rules.options_for(players, SERVER)
    rng = random.Random(99)
    genesis = "ab" * 32
    checked = 0
    for _game in range(4):
        position = engine.start(rules, players, options)
        secrets: dict[str, bytes] = {}

        def deck_of(
            deal: dealing.DealState, order: random.Random | None = None, secrets: dict[str, bytes] = secrets
        ) -> list[str]:
            deck = fairdeal.shuffle(
                secrets[deal.commitment], genesis, deal.hand, deal.seeds, fairdeal.canonical_deck(kind)
            )
            if order is None:
                return deck
            rest = deck[deal.taken :]
            order.shuffle(rest)
            return [*deck[: deal.taken], *rest]

        for _step in range(400):
            due = dealing.follow_up(rules, position.game, position.deal)
            if due.reveal is not None:
                event = dealing.revealed_event(due.reveal.hand, secrets[due.reveal.commitment])
                position = engine.apply(rules, position, event, position.seq + 1)
            if due.commit is not None:
                secret = rng.randbytes(32)
                commitment = fairdeal.commitment_of(secret)
                secrets[commitment] = secret
                position = engine.apply(
                    rules, position, dealing.committed_event(due.commit, commitment), position.seq + 1
                )
            if rules.is_terminal(position.game):
                break
            chance = dealing.server_chance_events(rules, position.game)
            for event in chance:
                outcomes = set()
                for order in range(5):

                    def reordered(d: dealing.DealState, o: int = order) -> list[str]:
                        return deck_of(d, random.Random(o))

                    if dealing.cut_ties(rules, position.game, position.deal, event, reordered):
                        continue  # a tied cut is never decided: the recorder cuts again with a seed of its own
                    try:
                        decision = engine.decide(rules, position, event, dealer=reordered)
                        outcomes.add(("accepted", decision.violation is None))
                    except TablebookError as refused:
                        assert "cannot be dealt now" not in refused.message, (kind, event)
                        outcomes.add((refused.code, refused.message))
                assert len(outcomes) == 1, (kind, event, outcomes)
                checked += 1
            offered = [*map(dict, rules.legal_events(position.game)), *chance]
            chosen = rng.choice(offered)
            while dealing.cut_ties(rules, position.game, position.deal, chosen, deck_of):
                seed = {"type": "seed", "seed": f"recut {position.seq}"}
                position = engine.apply(rules, position, engine.decide(rules, position, seed).event, position.seq + 1)
            decision = engine.decide(rules, position, chosen, dealer=deck_of)
            position = engine.apply(rules, position, decision.event, position.seq + 1)
    assert checked >= 20, f"{kind}: only {checked} dealing events checked"
