"""A server-dealt game played through the API, for the tests of server deals (rules/server-deal.md)."""

from __future__ import annotations

import random
from typing import Any

from fastapi.testclient import TestClient

from events.store import Store
from projections.core import dealing, engine
from projections.core.registry import rules_for
from projections.core.simulate import playout_choice
from tests.conftest import Club

SERVER = {"dealing": "server"}


class Table:
    """A server-dealt game played through the API, with the position folded from the answers."""

    def __init__(self, client: TestClient, club: Club, kind: str, options: dict[str, Any] | None = None) -> None:
        self.client, self.club, self.kind = client, club, kind
        self.rules = rules_for(kind)
        players = list(self.rules.demo_players)
        body = {"game": kind, "players": players, "options": {**SERVER, **(options or {})}}
        response = client.post("/v1/games", json=body, headers=club.recorder)
        assert response.status_code == 201, response.text
        self.id = response.json()["id"]
        assert response.json()["seq"] == 1  # the first deck is committed with the game
        self.position = engine.start(self.rules, players, self.rules.options_for(players, body["options"]))
        self.envelopes: list[dict[str, Any]] = []
        self.catch_up()

    def catch_up(self) -> None:
        after = self.envelopes[-1]["seq"] if self.envelopes else 0
        new = self.client.get(f"/v1/games/{self.id}/events", params={"after": after}, headers=self.club.recorder)
        assert new.status_code == 200, new.text
        self.take(new.json()["events"])

    def take(self, envelopes: list[dict[str, Any]]) -> None:
        self.envelopes += envelopes
        self.position = engine.fold(self.rules, engine.start(self.rules, *self._start()), self.envelopes)

    def _start(self) -> tuple[list[str], dict[str, Any]]:
        return list(self.rules.demo_players), dict(self.position.options)

    def send(self, *events: dict[str, Any], key: dict[str, str] | None = None) -> Any:
        return self.client.post(
            f"/v1/games/{self.id}/events", json={"events": list(events)}, headers=key or self.club.recorder
        )

    def append(self, *events: dict[str, Any]) -> list[dict[str, Any]]:
        response = self.send(*events)
        assert response.status_code == 201, response.text
        stored: list[dict[str, Any]] = response.json()["events"]
        self.take(stored)
        return stored

    def offered(self) -> list[dict[str, Any]]:
        game = self.position.game
        return [*map(dict, self.rules.legal_events(game)), *dealing.server_chance_events(self.rules, game)]

    def step(self, rng: random.Random) -> list[dict[str, Any]]:
        offered = self.offered()
        assert offered, f"{self.kind}: nothing to do at seq {self.position.seq}"
        deal = self.position.deal
        if deal is not None and not deal.taken and not deal.revealed and rng.random() < 0.3:
            return self.append({"type": "seed", "seed": f"luck {rng.randrange(1000)}", "seat": 0})
        return self.append(dict(playout_choice(self.rules, self.position.game, offered, rng)))

    def play(self, rng: random.Random, events: int) -> None:
        for _ in range(events):
            if self.rules.is_terminal(self.position.game):
                return
            self.step(rng)

    def play_to_hand(self, rng: random.Random, hand: int, *, cards_taken: bool = True, or_end: bool = False) -> None:
        """Until hand `hand`'s deck has given cards (or, without `cards_taken`, is committed); with `or_end`, or
        until the game ends before it (a made bid of 4 ends Cutthroat Smear after any hand but the first)."""
        for _ in range(3000):
            if or_end and self.rules.is_terminal(self.position.game):
                return
            deal = self.position.deal
            if (
                deal is not None
                and deal.hand == hand
                and not deal.revealed
                and (not cards_taken or (deal.taken and self.rules.hand_in_progress(self.position.game)))
            ):
                return
            self.step(rng)
        raise AssertionError(f"{self.kind}: hand {hand} never came")

    def export(self, fmt: str = "json") -> bytes:
        response = self.client.get(f"/v1/games/{self.id}/export", params={"format": fmt}, headers=self.club.recorder)
        assert response.status_code == 200, response.text
        return response.content


def server_seeds(store: Store, game_id: str) -> dict[str, str]:
    """commitment -> seed hex, as the store keeps them."""
    rows = store.db.rows(store.db.sql("SELECT commitment, seed FROM server_seed WHERE game_id = ?"), (game_id,))
    return {c: s for c, s in rows}
