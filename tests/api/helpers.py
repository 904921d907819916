"""Helpers the API's tests and others share: not a test module, so test modules import from here."""

from __future__ import annotations

import random
from typing import Any

from fastapi.testclient import TestClient

from events.store import Store
from projections.core.recorder import Recorder
from projections.core.registry import rules_for
from projections.core.rules import SPECTATOR
from projections.core.simulate import play
from tests.conftest import Club, new_game
from tests.projections.helpers import PLAYERS, cards_in


# random games, and the cards no spectator saw: the leak tests (test_replays_audits.py, reliability/test_isolation.py)
def simulate(kind: str, seed: int, max_events: int = 1500) -> tuple[list[dict[str, Any]], list[Any]]:
    rules = rules_for(kind)
    playout = play(rules, PLAYERS[kind], {}, rng=random.Random(seed), max_events=max_events, keep_states=True)
    return list(playout.events), list(playout.states)


def never_public_cards(kind: str, states: list[Any]) -> set[str]:
    """Cards held privately at the head that no spectator view of this hand ever showed."""
    rules = rules_for(kind)
    head = states[-1]
    private = set().union(*rules.census(head.game).private.values())
    public: set[str] = set()
    for state in states:
        if state.hand == head.hand:
            public |= cards_in(rules.view(state.game, SPECTATOR))
    return private - public


# a hand cut in two, all a viewer reads and the hashes over hidden cards (test_hidden.py, test_hidden_processes.py)
def playout(kind: str, seed: int = 5) -> tuple[list[dict[str, Any]], list[Any]]:
    result = play(rules_for(kind), PLAYERS[kind], {}, rng=random.Random(seed), max_events=2500, keep_states=True)
    return list(result.events), list(result.states)


def hand_cut(kind: str, hand: int, seed: int = 5) -> tuple[list[dict[str, Any]], list[Any], int, int]:
    """Events of a random game, the index just after hand `hand - 1` is over, and a cut in the middle of `hand`
    where some seat holds a private card."""
    rules = rules_for(kind)
    for attempt in range(40):
        events, states = playout(kind, seed + attempt)
        over = [i for i, s in enumerate(states) if s.hand == hand - 1 and not rules.hand_in_progress(s.game) and i]
        inside = [
            i
            for i, s in enumerate(states)
            if s.hand == hand and rules.hand_in_progress(s.game) and any(rules.census(s.game).private.values())
        ]
        if over and inside:
            return events, states, over[0], inside[len(inside) // 2]
    raise AssertionError(f"no game of {kind} reached hand {hand}")


def viewer_reads(
    client: TestClient, headers: dict[str, str], game_id: str, seats: int, head: int, hand: int
) -> dict[str, Any]:
    """Every GET a reader can make of a game, answer by request."""
    out: dict[str, Any] = {}
    paths: list[tuple[str, dict[str, Any]]] = [
        ("", {}),
        ("/events", {}),
        ("/hands", {}),
        ("/score", {}),
        ("/verify", {}),
        ("/stream", {"follow": "false"}),
        ("/replay", {"hand": hand}),
        *[("/replay", {"hand": hand, "seat": s}) for s in range(seats)],
        *[("/state", {"seat": s}) for s in range(seats)],
        *[("/state", {"at": at}) for at in range(max(1, head - 5), head + 1)],
        *[("/export", {"format": f}) for f in ("json", "jsonl", "text", "csv")],
    ]
    for path, params in paths:
        response = client.get(f"/v1/games/{game_id}{path}", headers=headers, params=params)
        out[f"{path} {sorted(params.items())}"] = (response.status_code, response.text)
    response = client.get("/v1/export", headers=headers)
    out["/v1/export"] = (response.status_code, response.text)
    return out


def secret_hashes(store: Store, game_id: str, first_hidden_seq: int) -> set[str]:
    """Every stored hash computed over a hidden card: the first hidden event's and each later one's."""
    return {env["hash"] for env in store.read_events(game_id) if env["seq"] >= first_hidden_seq}


# scripted Schnapsen events, and searches by situation (test_search.py, test_players.py)
DEAL = {
    "type": "deal",
    "dealer": 1,
    "hands": [["KH", "QH", "TD", "AC", "JS"], ["TS", "AD", "KC", "QS", "JD"]],
    "trump_card": "JH",
}
MARRIAGE = {"type": "play", "seat": 0, "card": "KH", "marriage": True}
CLOSE = {"type": "close", "seat": 0}


def append(client: TestClient, club: Club, game_id: str, events: list[dict[str, Any]]) -> None:
    for start in range(0, len(events), 250):
        response = client.post(
            f"/v1/games/{game_id}/events", json={"events": events[start : start + 250]}, headers=club.recorder
        )
        assert response.status_code == 201, response.text


def search(client: TestClient, club: Club, query: str) -> dict[str, Any]:
    response = client.get(f"/v1/games?{query}", headers=club.viewer)
    assert response.status_code == 200, response.text
    page: dict[str, Any] = response.json()
    return page


def schnapsen(client: TestClient, club: Club, players: list[str], events: list[dict[str, Any]]) -> str:
    game_id: str = new_game(client, club, players=players, options={"first_dealer": 1})["id"]
    append(client, club, game_id, events)
    return game_id


# share links (test_share.py, test_share_routes.py)
def share(client: TestClient, club: Club, game_id: str, role: str = "recorder") -> dict[str, Any]:
    response = client.post(f"/v1/games/{game_id}/share", headers=getattr(club, role))
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# hand review (test_review.py, test_cli_review.py)
def gin_in_hand_2(store: Store, club: Club) -> tuple[str, list[dict[str, Any]]]:
    """A Gin Rummy game (the cheapest to review) recorded up to the middle of hand 2: its id, the events of hand 1."""
    kind = "gin-rummy-3"
    rules = rules_for(kind)
    playout = play(rules, PLAYERS[kind], {}, rng=random.Random(4), keep_states=True, bot=rules.bot)
    first = next(i for i, s in enumerate(playout.states) if s.hand == 2)
    cut = first + 4
    assert rules.hand_in_progress(playout.states[cut - 1].game)
    recorder = Recorder(store)
    club_id = store.ensure_club(club.name)
    game = recorder.create_game(club_id=club_id, kind=kind, players=PLAYERS[kind], options={})
    recorder.append(game.id, list(playout.events[:cut]), club_id=club_id, actor="test")
    return game.id, list(playout.events[:first])
