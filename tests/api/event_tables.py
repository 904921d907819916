"""Events played through the API for the tests of issue 33: a table game of an event driven by a bot."""

from __future__ import annotations

import random
from typing import Any

from fastapi.testclient import TestClient

from projections.core import dealing, engine
from projections.core.registry import rules_for
from projections.core.simulate import playout_choice
from tests.conftest import Club


class EventTable:
    """An event's table game, played through the API with the position folded from the answers (no `seed`
    of its own: a duplicate table's seeds are the board set's)."""

    def __init__(self, client: Any, club: Club, event: dict[str, Any], rnd: int, table: int) -> None:
        doc = event["rounds"][rnd - 1]["tables"][table - 1]
        self.client, self.club, self.kind = client, club, event["game"]
        self.id: str = doc["game_id"]
        self.players: list[str] = doc["players"]
        self.rules = rules_for(self.kind)
        self.options = dict(event["options"])
        self.envelopes: list[dict[str, Any]] = []
        self.position = engine.start(self.rules, self.players, self.options)
        self.catch_up()

    def catch_up(self) -> None:
        after = self.envelopes[-1]["seq"] if self.envelopes else 0
        new = self.client.get(f"/v1/games/{self.id}/events", params={"after": after}, headers=self.club.recorder)
        assert new.status_code == 200, new.text
        self.envelopes += new.json()["events"]
        self.position = engine.fold(self.rules, engine.start(self.rules, self.players, self.options), self.envelopes)

    @property
    def hand(self) -> int:
        return self.position.deal.hand if self.position.deal is not None else 0

    def step(self, rng: random.Random) -> None:
        game = self.position.game
        offered = [*map(dict, self.rules.legal_events(game)), *dealing.server_chance_events(self.rules, game)]
        event = dict(playout_choice(self.rules, game, offered, rng))
        response = self.client.post(f"/v1/games/{self.id}/events", json={"events": [event]}, headers=self.club.recorder)
        assert response.status_code == 201, response.text
        self.catch_up()

    def play_until(self, rng: random.Random, hand: int, limit: int = 4000) -> None:
        """Until the table's deck in play is hand `hand`'s (every hand before it finished), or the game ends."""
        for _ in range(limit):
            if self.rules.is_terminal(self.position.game) or (
                self.position.deal is not None and self.position.deal.hand >= hand
            ):
                return
            self.step(rng)
        raise AssertionError(f"{self.kind}: hand {hand} not reached")


def create_event(client: TestClient, club: Club, **body: Any) -> dict[str, Any]:
    response = client.post("/v1/events", json=body, headers=club.recorder)
    assert response.status_code == 201, response.text
    doc: dict[str, Any] = response.json()
    return doc


def start(client: TestClient, club: Club, event_id: str, rnd: int) -> dict[str, Any]:
    response = client.post(f"/v1/events/{event_id}/rounds/{rnd}/start", headers=club.recorder)
    assert response.status_code == 200, response.text
    doc: dict[str, Any] = response.json()
    return doc


def dealt(table: EventTable, hand: int) -> dict[str, Any]:
    """The cards of hand `hand`'s deal at a table (the recorder sees them)."""
    return next(env["data"] for env in table.envelopes if env["type"] == "deal" and env["hand"] == hand)


def cards_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value} if len(value) == 2 else set()
    if isinstance(value, dict):
        return {c for v in value.values() for c in cards_in(v)}
    if isinstance(value, list):
        return {c for v in value for c in cards_in(v)}
    return set()
