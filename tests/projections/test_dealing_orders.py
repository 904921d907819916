"""The standalone checker's copy of the deal (`projections/fairness/fairdeal.py`) against the games' own.

`fairdeal.py` is a file a player copies and runs with nothing but the Python standard library, so it
keeps its own shuffle and its own table of each game's dealing order (`TAKES`, `named_cards`). The
server deals from the core's shuffle (`projections/core/shuffle.py`) and each game's declared
`DealingOrder` (`GameRules.dealing_order`). These tests hold the two to each other: the same shuffle,
the same decks, the same dealing events with the same card fields as the games declare (and as their
`reveals` say), and, over random server-dealt games of every kind, every dealing event takes from the
deck exactly the cards `fairdeal.named_cards` lists, in that order.
"""

from __future__ import annotations

import contextlib
import random
from typing import Any

import pytest

from events.codec import genesis_hash
from events.errors import TablebookError
from projections.core import dealing, engine, shuffle
from projections.core.dealing_order import DealingOrder
from projections.core.registry import available, rules_for
from projections.fairness import fairdeal

SERVER = {"dealing": "server"}
CREATED = "2026-12-03T10:00:00.000000Z"


def _order(kind: str) -> DealingOrder:
    order = rules_for(kind).dealing_order
    assert order is not None, f"{kind} declares no dealing order"
    return order


def test_the_core_shuffle_is_fairdeals() -> None:
    """The test vectors of `rules/server-deal.md`, and random seeds, hands and seed strings, give one deck."""
    for seed, genesis, hand, seeds, game, expected in fairdeal.VECTORS:
        deck = shuffle.shuffle(bytes.fromhex(seed), genesis, hand, seeds, _order(game).deck)
        assert " ".join(deck) == expected
    rng = random.Random(29)
    for _ in range(60):
        kind = rng.choice(available())
        secret = rng.randbytes(32)
        genesis = rng.randbytes(32).hex()
        seeds = [f"{rng.choice(['-', '0', '1'])}:{rng.random()}" for _ in range(rng.randrange(3))]
        hand = rng.randrange(40)
        deck = _order(kind).deck
        assert shuffle.shuffle(secret, genesis, hand, seeds, deck) == fairdeal.shuffle(
            secret, genesis, hand, seeds, fairdeal.canonical_deck(kind)
        )
        assert shuffle.commitment_of(secret) == fairdeal.commitment_of(secret)
    for data in ({"seed": "x"}, {"seed": "table four", "seat": 2}, {"seed": "", "seat": 0}):
        assert shuffle.seed_string(data) == fairdeal.seed_string(data)


@pytest.mark.parametrize("kind", available())
def test_fairdeals_table_is_the_games_dealing_order(kind: str) -> None:
    """The same unshuffled deck, the same dealing events with the same card fields in the same order; each
    event the game's `reveals` names is one of them, with the fields it names."""
    rules = rules_for(kind)
    order = _order(kind)
    assert list(order.deck) == fairdeal.canonical_deck(kind) == shuffle.canonical(order.deck)
    assert dict(fairdeal.TAKES[kind]) == dict(order.takes)
    for event_type, fields in rules.reveals.items():
        assert order.takes.get(event_type) == fields, event_type
    assert set(order.takes) <= set(rules.events)


def _banker(envelopes: list[dict[str, Any]]) -> int | None:
    """The banker as `fairdeal` follows it: the last result that names one."""
    for env in reversed(envelopes):
        banker = (env.get("result") or {}).get("banker")
        if isinstance(banker, int):
            return banker
    return None


class Table:
    """A server-dealt game decided and applied as the recorder would, its envelopes kept (a retract too)."""

    def __init__(self, kind: str, rng: random.Random) -> None:
        self.kind, self.rules, self.rng = kind, rules_for(kind), rng
        self.players = list(self.rules.demo_players)
        self.options = self.rules.options_for(self.players, SERVER)
        self.genesis = genesis_hash(kind, len(self.players), self.options, CREATED)
        self.replay = engine.Replay(self.rules, engine.start(self.rules, self.players, self.options))
        self.envelopes: list[dict[str, Any]] = []
        self.secrets: dict[str, bytes] = {}

    def deck_of(self, deal: dealing.DealState) -> list[str]:
        return dealing.deck_of(self.rules, self.secrets[deal.commitment], self.genesis, deal)

    def push(self, raw: dict[str, Any], *, dealer: dealing.Dealer | None = None, server: bool = False) -> None:
        """Decide and apply `raw`; the server's own events as stored ones."""
        if server:
            decision = engine.decide(self.rules, self.replay.position, raw, stored=True)
            self.replay.apply(decision.event)
        else:
            decision = self.replay.push(raw, dealer=dealer)
        sealed = engine.sealed(self.replay.position, decision, recorded_at=CREATED, actor="t", prev_hash=self.genesis)
        self.envelopes.append(dict(sealed))

    def server_events(self) -> None:
        """The reveal of a finished hand's deck, a deck for the hand now due."""
        position = self.replay.position
        due = dealing.follow_up(self.rules, position.game, position.deal)
        if due.reveal is not None:
            self.push(dealing.revealed_event(due.reveal.hand, self.secrets[due.reveal.commitment]), server=True)
        if due.commit is not None:
            secret = self.rng.randbytes(32)
            self.secrets[shuffle.commitment_of(secret)] = secret
            self.push(dealing.committed_event(due.commit, shuffle.commitment_of(secret)), server=True)

    def detour(self) -> bool:
        """Now and then a seed, a retract as far back as a server deal allows, or a voided hand."""
        position, roll = self.replay.position, self.rng.random()
        deal = position.deal
        if deal is not None and not deal.taken and not deal.opened and not deal.revealed and roll < 0.1:
            self.push({"type": "seed", "seed": f"luck {self.rng.randrange(100)}", "seat": 0})
            return True
        if roll > 0.99 and self.rules.hand_in_progress(position.game):
            self.push({"type": "hand_voided", "reason": "misdeal"})
            return True
        reach = max(dealing.retract_reach(deal), 1)
        if roll > 0.96 and reach < position.seq:
            with contextlib.suppress(TablebookError):
                self.push({"type": "retract", "to_seq": self.rng.randrange(reach, position.seq), "reason": "again"})
            return True
        return False


@pytest.mark.parametrize("kind", available())
def test_every_dealing_event_takes_the_cards_fairdeal_names_in_order(kind: str) -> None:
    """Random server-dealt games (seeds, re-cuts, retracts, voided hands): each event the declared order deals
    takes from the deck the very cards `fairdeal.named_cards` lists, in its order (none, for an event whose
    card is not the deck's: the face-up trump of Schnapsen's last draw), and the finished record passes
    `fairdeal.verify_events` with every one of those cards checked."""
    rng = random.Random(len(kind) * 7)
    dealt_events = 0
    for _game in range(3):
        table = Table(kind, rng)
        rules, named_total = table.rules, 0
        for _step in range(300):
            table.server_events()
            if rules.is_terminal(table.replay.position.game):
                break
            if table.detour():
                continue
            game = table.replay.position.game
            chosen = rng.choice([*map(dict, rules.legal_events(game)), *dealing.server_chance_events(rules, game)])
            recut = 0
            while dealing.cut_ties(
                rules, table.replay.position.game, table.replay.position.deal, chosen, table.deck_of
            ):
                recut += 1
                table.push({"type": "seed", "seed": dealing.RECUT.format(n=recut)}, server=True)
            before = table.replay.position
            if not dealing.takes(kind, chosen):
                table.push(chosen)
                continue
            assert before.deal is not None
            deck, start = table.deck_of(before.deal), before.deal.taken
            table.push(chosen, dealer=table.deck_of)
            event = {"type": table.envelopes[-1]["type"], **table.envelopes[-1]["data"]}
            banker = _banker(table.envelopes)
            named = [card for _, card in fairdeal.named_cards(kind, len(table.players), event["type"], event, banker)]
            count = dealing.taken_by(rules, before.game, event)
            after = table.replay.position.deal
            assert after is not None and after.taken == start + count
            if count:
                assert named == deck[start : start + count], (kind, event)
            else:  # a card that is not the deck's (the face-up trump): one card, not dealt from the deck
                assert len(named) == 1 and named[0] not in deck[start:], (kind, event)
            named_total += len(named)
            dealt_events += 1
        last = table.replay.position.deal
        if last is not None and not last.revealed:  # show the last deck, as the game's end would
            table.push(dealing.revealed_event(last.hand, table.secrets[last.commitment]), server=True)
        header = {"game": kind, "options": table.options, "players": table.players}
        report = fairdeal.verify_events(header, table.envelopes)
        assert report.ok, report.problems[:3]
        assert sum(doc["cards_checked"] for doc in report.hands.values()) == named_total, kind
    assert dealt_events >= 10, f"{kind}: only {dealt_events} dealing events"
