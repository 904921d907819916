"""A server-dealt hand is dealt once, from the deck committed for it, and a hand dealt again shows.

On both stores: a seed after a deck has dealt is refused even after a retract put the cards back (the
same cards are dealt again), a retract never abandons a committed deck nor reopens a revealed one, a
void reveals the deck at once, and `/deals`, the fairness report and the standalone checker show
every re-deal (and the shapes a record made before these rules could hold, as problems).
"""

from __future__ import annotations

import random
from typing import Any

from fastapi.testclient import TestClient

from events.store import Store
from projections.core import dealing, engine
from projections.core.registry import rules_for
from projections.fairness import fairdeal
from tests.api.server_tables import Table, server_seeds
from tests.conftest import BOTH, Club, error_of

#: both stores (tests/conftest.py `stores_of`):
#: the server seeds and their commitments are each store's rows
STORES = BOTH

NOTE = {"type": "note", "text": "n"}


def seq_of(client: TestClient, club: Club, game_id: str) -> int:
    seq: int = client.get(f"/v1/games/{game_id}", headers=club.recorder).json()["seq"]
    return seq


def test_a_seed_before_a_deal_in_one_batch_commits_both_and_a_probe_after_it_writes_nothing(
    client: TestClient, club: Club
) -> None:

    table = Table(client, club, "schnapsen")
    refused = table.send({"type": "seed", "seed": "try 1"}, {"type": "deal", "dealer": 0}, NOTE)
    body = error_of(refused, 422, "invalid")
    assert body["index"] == 2 and "ends its batch" in body["message"]
    assert seq_of(client, club, table.id) == 1
    stored = table.append({"type": "seed", "seed": "try 2"}, {"type": "deal", "dealer": 0})
    assert [env["type"] for env in stored] == ["seed", "deal"]
    assert error_of(table.send({"type": "seed", "seed": "late"}), 422, "impossible")
    assert seq_of(client, club, table.id) == 3


def test_a_retract_of_a_deal_deals_the_same_cards_again_and_takes_no_new_seed(client: TestClient, club: Club) -> None:
    table = Table(client, club, "schnapsen")
    table.append({"type": "seed", "seed": "ours", "seat": 0})
    first = table.append({"type": "deal", "dealer": 0})[0]
    assert first["seq"] == 3
    # back before the seed: the deck's seeds are final once it has dealt
    error = error_of(table.send({"type": "retract", "to_seq": 1, "reason": "misdeal"}), 422, "impossible")
    assert error["field"] == "to_seq" and "final" in error["message"]
    # back before the deck's commitment: never
    error = error_of(table.send({"type": "retract", "to_seq": 0, "reason": "again"}), 422, "impossible")
    assert "abandoned" in error["message"] or "final" in error["message"]
    table.append({"type": "retract", "to_seq": 2, "reason": "misdeal"})
    error = error_of(table.send({"type": "seed", "seed": "again"}), 422, "impossible")
    assert "final" in error["message"] and "hand_voided" in error["message"]
    again = table.append({"type": "deal", "dealer": 0})[0]
    assert again["data"]["hands"] == first["data"]["hands"]
    assert again["data"]["trump_card"] == first["data"]["trump_card"]
    deals = client.get(f"/v1/games/{table.id}/deals", headers=club.viewer).json()
    hand = deals["hands"][0]
    assert hand["cards_taken_back"] == 11 and hand["retracts"] == [4]


def test_a_retract_never_reaches_past_the_first_deck_even_before_a_card(client: TestClient, club: Club) -> None:
    table = Table(client, club, "cutthroat-smear")
    table.append({"type": "seed", "seed": "a"})
    error_of(table.send({"type": "retract", "to_seq": 0, "reason": "start over"}), 422, "impossible")
    table.append({"type": "retract", "to_seq": 1, "reason": "the seed was a typo"})  # no card dealt: fine
    table.append({"type": "seed", "seed": "b"})
    table.append({"type": "deal", "dealer": 0})
    report = fairdeal.verify_file(table.export())
    assert report.hands[1]["seeds"] == ["-:b"]


def test_a_finished_hand_is_not_reopened_and_a_viewer_never_gets_a_live_seed(
    client: TestClient, club: Club, store: Store
) -> None:
    table = Table(client, club, "cutthroat-smear")
    table.play_to_hand(random.Random(3), 2)
    reveal = next(env for env in table.envelopes if env["type"] == "deck_revealed" and env["data"]["hand"] == 1)
    error = error_of(table.send({"type": "retract", "to_seq": reveal["seq"] - 2, "reason": "fix"}), 422, "impossible")
    assert error["field"] == "to_seq"
    live = table.position.deal
    assert live is not None and live.hand == 2
    viewer = client.get(f"/v1/games/{table.id}/events", headers=club.viewer).json()["events"]
    live_seed = server_seeds(store, table.id)[live.commitment]
    assert live_seed not in str(viewer)
    assert all(env["data"].get("server_seed") != live_seed for env in viewer)


def test_a_void_reveals_the_deck_and_shows_in_deals_and_in_the_report(client: TestClient, club: Club) -> None:
    table = Table(client, club, "casino")
    table.append({"type": "deal", "dealer": 0})
    voided = table.append({"type": "hand_voided", "reason": "a card was seen"})
    assert [env["type"] for env in voided] == ["hand_voided", "deck_revealed", "deck_committed"]
    assert voided[1]["data"]["hand"] == 1 and voided[2]["data"]["hand"] == 2
    deals = client.get(f"/v1/games/{table.id}/deals", headers=club.viewer).json()
    assert deals["ok"] and deals["hands"][0]["voided_at"] == voided[0]["seq"] and deals["hands"][0]["verified"]
    report = client.get("/v1/deals/report", headers=club.viewer).json()
    (kind,) = report["kinds"]
    (recorder,) = kind["recorders"]
    assert recorder["actor"].startswith("key:")
    assert (recorder["hands_dealt"], recorder["hands_voided"], recorder["hands_dealt_again"]) == (1, 1, 0)


# --------------------------------------------------------------------------- records made before these rules


def old_record(kind: str, steps: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Envelopes of a server-dealt record with the dealing events filled from real shuffles, the way a
    server without these rules would have written them (only what `fairdeal.py` reads)."""
    rules = rules_for(kind)
    players = list(rules.demo_players)
    position = engine.start(rules, players, rules.options_for(players, {"dealing": "server"}))
    genesis = "cd" * 32
    secrets: dict[str, bytes] = {}
    envelopes: list[dict[str, Any]] = [{"seq": 0, "prev_hash": genesis}]
    replay = engine.Replay(rules, position)
    for kind_of, data in steps:
        seq = position.seq + 1
        if kind_of == "commit":
            secret = bytes([data["hand"]] * 32)
            secrets[fairdeal.commitment_of(secret)] = secret
            event = dealing.committed_event(data["hand"], fairdeal.commitment_of(secret))
        elif kind_of == "reveal":
            assert position.deal is not None
            event = dealing.revealed_event(position.deal.hand, secrets[position.deal.commitment])
        else:
            event = {"type": kind_of, **data}
        if event["type"] == "retract":  # as an older server took it, without today's reach
            position = replay.apply(event)
        else:
            decided = engine.decide(
                rules,
                position,
                event,
                stored=event["type"] in engine.DEAL_EVENTS,
                dealer=lambda d: fairdeal.shuffle(
                    secrets[d.commitment], genesis, d.hand, d.seeds, fairdeal.canonical_deck(kind)
                ),
            )
            position = replay.apply(decided.event)
            event = decided.event
        envelopes.append(
            {
                "seq": seq,
                "hand": position.hand,
                "type": event["type"],
                "actor": "key:old",
                "data": {k: v for k, v in event.items() if k != "type"},
            }
        )
    envelopes[1]["prev_hash"] = genesis
    return envelopes[1:]


def problems(kind: str, envelopes: list[dict[str, Any]]) -> list[str]:
    header = {"game": kind, "seats": len(rules_for(kind).demo_players), "options": {"dealing": "server"}}
    return [p["problem"] for p in fairdeal.verify_events(header, envelopes).problems]


def test_the_checker_shows_a_record_dealt_again_from_another_shuffle() -> None:
    smear = "cutthroat-smear"
    deal = ("deal", {"dealer": 0})
    commit = ("commit", {"hand": 1})

    def back_to(seq: int) -> tuple[str, dict[str, Any]]:
        return ("retract", {"to_seq": seq, "reason": "x"})

    # a seed after the deck dealt and a retract put the cards back
    assert problems(smear, old_record(smear, [commit, deal, back_to(1), ("seed", {"seed": "again"}), deal])) == [
        "redeal"
    ]
    # a retract that takes back the seed of a deck that had dealt
    assert problems(smear, old_record(smear, [commit, ("seed", {"seed": "a"}), deal, back_to(1), deal])) == ["redeal"]
    # a deck abandoned after it dealt: a retract back before its commitment, another deck committed
    assert problems(smear, old_record(smear, [commit, deal, back_to(0), commit, deal])) == ["abandoned"]
    # a hand reopened after its deck was revealed
    assert problems(smear, old_record(smear, [commit, deal, ("reveal", {}), ("commit", {"hand": 2}), back_to(2)])) == [
        "reopened"
    ]
    # the same shapes without a card dealt before the retract are no problem: no card of the deck was seen
    assert problems(smear, old_record(smear, [commit, ("seed", {"seed": "a"}), back_to(1), deal])) == []
    assert problems(smear, old_record(smear, [commit, back_to(0), commit, deal])) == []
    # and a correction inside a hand that puts dealt cards back and deals them again is no problem, but counted
    envelopes = old_record(smear, [commit, deal, back_to(1), deal, ("reveal", {})])
    header = {"game": smear, "seats": 3, "options": {"dealing": "server"}}
    checked = fairdeal.verify_events(header, envelopes)
    assert checked.ok and checked.hands[1]["cards_taken_back"] == 18 and checked.hands[1]["retracts"] == [3]
