"""No person-facing text of the API says `seat N` or holds a marker: score reasons, audits, replays, errors.

For every registered game, whole games are played (the demo recorder's play, as `tablebook demo`
records them) and read back through the API; the rules write their reasons with markers
(`projections/core/phrases.py`), and the API must answer them rendered with the players' names, with the
template and fields beside them that render back to the same text. A refused event (a seat out of
turn, a card the seat does not hold) must be refused in words with the names too.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from api.service import Tablebook
from api.settings import Settings
from events.store import Store
from projections.core import phrases
from projections.core.recorder import Recorder
from projections.core.registry import available, rules_for
from projections.core.rules import GameRules
from projections.core.simulate import play
from tests.conftest import Club, make_club

#: "seat 3" with no name: what no person-facing text may say once the game (and so its names) is known
BARE_SEAT = re.compile(r"\bseat \d")
KINDS = available()
#: seeds of the recorded games of each kind: a few, so that most of a game's scoring rules show up
SEEDS = (1, 2, 3)


@pytest.fixture(scope="module")
def store(sqlite_url: str) -> Iterator[Store]:
    s = Store(sqlite_url)
    yield s
    s.dispose()


@pytest.fixture(scope="module")
def client(store: Store) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database_url=store.url), store)) as c:
        yield c


@pytest.fixture(scope="module")
def club(store: Store) -> Club:
    return make_club(store)


@pytest.fixture(scope="module")
def games(store: Store, club: Club) -> dict[str, list[str]]:
    """Per kind, the ids of games recorded whole, as `tablebook demo` records them."""
    service = Tablebook(Recorder(store))
    club_id = service.ensure_club(club.name)
    return {kind: [service.record_demo_game(club_id, kind, random.Random(seed)) for seed in SEEDS] for kind in KINDS}


def assert_for_people(text: str, where: str) -> None:
    """Text a person reads: no marker left, no bare `seat N`."""
    assert not phrases.has_marker(text), f"{where}: a marker left in {text!r}"
    assert not BARE_SEAT.search(text), f"{where}: a seat without its player's name in {text!r}"


def assert_explained(line: dict[str, Any], names: Sequence[str], where: str) -> None:
    """A score line of the API: its reason for people, and its template and fields rendering back to it."""
    assert_for_people(line["reason"], where)
    assert isinstance(line["template"], str) and isinstance(line["fields"], dict), where
    assert not phrases.has_marker(line["template"]), where
    assert phrases.fill(line["template"], line["fields"], names) == line["reason"], where


def score_lines(sheet: dict[str, Any]) -> list[dict[str, Any]]:
    return [line for hand in sheet["hands"] for line in hand["lines"]]


def players(client: TestClient, club: Club, game_id: str) -> list[str]:
    names: list[str] = client.get(f"/v1/games/{game_id}", headers=club.viewer).json()["players"]
    return names


@pytest.mark.parametrize("kind", KINDS)
def test_every_score_reason_names_the_players_and_renders_back_from_its_template(
    client: TestClient, club: Club, games: dict[str, list[str]], kind: str
) -> None:
    seen = 0
    for game_id in games[kind]:
        names = players(client, club, game_id)
        response = client.get(f"/v1/games/{game_id}/score", headers=club.viewer)
        assert response.status_code == 200, response.text
        for line in score_lines(response.json()):
            assert_explained(line, names, f"{kind} {game_id} {line['rule']}")
            seen += 1
    assert seen, f"{kind}: the recorded games have no score line at all"


@pytest.mark.parametrize("kind", KINDS)
def test_the_audit_renders_its_score_claims_and_messages(
    client: TestClient, club: Club, games: dict[str, list[str]], kind: str
) -> None:
    game_id = games[kind][0]
    names = players(client, club, game_id)
    claim = {"type": "score_claimed", "hand": 1, "points": {str(s): 99 for s in range(len(names))}}
    assert client.post(f"/v1/games/{game_id}/events", json={"events": [claim]}, headers=club.auditor).status_code == 201
    response = client.get(f"/v1/games/{game_id}/audit", headers=club.auditor)
    assert response.status_code == 200, response.text
    report = response.json()
    assert report["score"] is not None
    for line in score_lines(report["score"]):
        assert_explained(line, names, f"{kind} audit score {line['rule']}")
    assert report["claims"], "the claim just made is in the audit"
    for made in report["claims"]:
        assert_for_people(made["summary"], f"{kind} claim summary")
        assert not made["agrees"]
        for line in made["lines"]:
            assert_explained(line, names, f"{kind} claim line {line['rule']}")
    for violation in report["violations"]:
        assert_for_people(violation["message"], f"{kind} violation")
    for note in report["game_notes"]:
        assert_for_people(note["text"], f"{kind} game note")


@pytest.mark.parametrize("kind", KINDS)
def test_replay_frames_say_their_events_in_words(
    client: TestClient, club: Club, games: dict[str, list[str]], kind: str
) -> None:
    game_id = games[kind][0]
    response = client.get(f"/v1/games/{game_id}/replay", params={"hand": 1}, headers=club.viewer)
    assert response.status_code == 200, response.text
    document = response.json()
    assert document["units"] == dict(rules_for(kind).units)
    for frame in document["frames"]:
        assert_for_people(frame["text"], f"{kind} frame {frame['seq']}")
        assert frame["state"]["units"] == document["units"]


# --------------------------------------------------------------------------- refusals


def _probes(rules: GameRules[Any], position: Any, rng: random.Random) -> Iterator[dict[str, Any]]:
    """Events that the rules should refuse here: a legal decision made by another seat, or with a card
    that another seat holds (the rules' own words for either then name a seat or a card)."""
    offered = [dict(e) for e in rules.legal_events(position.game)]
    rng.shuffle(offered)
    seats = position.game.seats
    private = rules.census(position.game).private
    for event in offered[:3]:
        seat = event.get("seat")
        if not isinstance(seat, int):
            continue
        yield {**event, "seat": (seat + 1) % seats}
        if isinstance(event.get("card"), str):
            others = sorted(c for s, held in private.items() if s != seat for c in held)
            if others:
                yield {**event, "card": rng.choice(others)}


@pytest.mark.parametrize("kind", KINDS)
def test_a_refused_event_is_refused_in_words_with_the_names(client: TestClient, club: Club, kind: str) -> None:
    rules = rules_for(kind)
    names = list(rules.demo_players)
    rng = random.Random(17)
    playout = play(rules, names, {}, rng=rng, max_events=120, keep_states=True)
    refused = 0
    for at in sorted(rng.sample(range(len(playout.events)), min(6, len(playout.events)))):
        position = playout.states[at]
        for probe in _probes(rules, position, rng):
            created = client.post("/v1/games", json={"game": kind, "players": names}, headers=club.recorder)
            assert created.status_code == 201, created.text
            game_id = created.json()["id"]
            prefix = {"events": list(playout.events[: at + 1])}
            assert client.post(f"/v1/games/{game_id}/events", json=prefix, headers=club.recorder).status_code == 201
            answer = client.post(f"/v1/games/{game_id}/events", json={"events": [probe]}, headers=club.recorder)
            if answer.status_code == 201:
                continue  # another seat may make it too (two seats to act): nothing refused
            assert answer.status_code == 422, answer.text
            error = answer.json()["error"]
            assert_for_people(error["message"], f"{kind} refusal of {probe}")
            if "template" in error:
                assert phrases.fill(error["template"], error["fields"], names) == error["message"]
            refused += 1
    assert refused, f"{kind}: no probe was refused, so nothing was checked"


def test_a_refusal_keeps_its_class_code_rule_and_details(client: TestClient, club: Club) -> None:
    """Schnapsen: a card the seat does not hold is impossible; the answer says it with the names."""
    created = client.post("/v1/games", json={"game": "schnapsen", "players": ["Anna", "Ben"]}, headers=club.recorder)
    game_id = created.json()["id"]
    rules = rules_for("schnapsen")
    playout = play(rules, ["Anna", "Ben"], {}, rng=random.Random(5), max_events=1, keep_states=True)
    deal = playout.events[0]
    assert client.post(f"/v1/games/{game_id}/events", json={"events": [deal]}, headers=club.recorder).status_code == 201
    leader = rules.to_act(playout.states[0].game)
    assert isinstance(leader, tuple)
    seat = leader[0]
    other = sorted(rules.census(playout.states[0].game).private[1 - seat])[0]
    answer = client.post(
        f"/v1/games/{game_id}/events",
        json={"events": [{"type": "play", "seat": seat, "card": other}]},
        headers=club.recorder,
    )
    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert error["code"] == "impossible" and error["index"] == 0
    assert_for_people(error["message"], "schnapsen play of a card not held")
    assert ["Anna", "Ben"][seat] in error["message"]
