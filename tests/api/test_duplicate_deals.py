"""Every game deals the same board alike at every table of a round, in the parts the game declares
(`GameRules.duplicate`): Casino, Gin Rummy for three, Seven and a Half and Cutthroat Smear at tables of
three or four (Schnapsen: tests/api/test_tournaments.py)."""

from __future__ import annotations

import random

import pytest
from fastapi.testclient import TestClient

from projections.core.registry import rules_for
from tests.api.event_tables import EventTable, create_event, start
from tests.conftest import Club

#: the game, the players at a table
GAMES = [("casino", 3), ("gin-rummy-3", 3), ("seven-and-a-half", 4), ("cutthroat-smear", 3)]


@pytest.mark.parametrize(("kind", "seats"), GAMES)
def test_each_table_gets_the_same_deal(client: TestClient, club: Club, kind: str, seats: int) -> None:
    players = [f"P{i}" for i in range(2 * seats)]
    event = create_event(
        client, club, name=kind, game=kind, players=players, movement="groups", seats=seats, rounds=1, boards=1
    )
    event = start(client, club, event["id"], 1)
    tables = [EventTable(client, club, event, 1, t["table"]) for t in event["rounds"][0]["tables"]]
    assert len(tables) == 2
    deals = []
    for number, table in enumerate(tables):
        rng = random.Random(number)
        while not any(env["type"] == "deal" and env["hand"] == 1 for env in table.envelopes):
            table.step(rng)
        deals.append([env["data"] for env in table.envelopes if env["type"] in ("cut", "deal")])
    assert deals[0] == deals[1]  # the cut (Gin) and the first deal, card for card, seat for seat
    duplicate = rules_for(kind).duplicate
    assert duplicate is not None and duplicate.same
    deck = [f"c{i}" for i in range(40 if kind == "seven-and-a-half" else 52)]
    parts = duplicate.parts(deck, seats, 1)
    assert [card for _, cards in parts for card in cards] == deck[: sum(len(c) for _, c in parts)]
    assert len({what for what, _ in parts}) == len(parts)  # each part named once
