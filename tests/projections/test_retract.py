"""A `retract` takes back game events only (issue 17).

A claim or a note appended in the range a retract corrects is what someone at the table said, not a
move: it stays in force in the replay (not struck through), in the claims and in the audit, which
says it was made before the correction. Retracted plays of a hidden hand are redacted for a viewer
further than live ones: their cards went back into the hands.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from events.errors import ImpossibleEventError
from events.store import Store
from projections.core import engine, phrases
from projections.core.recorder import Recorder
from projections.core.registry import rules_for
from projections.core.rules import HIDDEN, SPECTATOR, ScoreLine, ScoreSheet, hand_score
from projections.reading.audit import audit_game, compare_claim, name_seats
from projections.reading.replay import hand_frames
from projections.reading.visibility import Sight, hide_cards, shown_envelopes, shown_frames

RULES = rules_for("schnapsen")
PLAYERS = ["Anna", "Ben"]
DEAL = {
    "type": "deal",
    "dealer": 1,
    "hands": [["KH", "QH", "TD", "AC", "JS"], ["TS", "AD", "KC", "QS", "JD"]],
    "trump_card": "JH",
}
#: seq 1 the deal, 2-3 a trick, 4 a note and 5 a claim on it, 6 a draw, then the retract at 7 back to seq 1
EVENTS: list[dict[str, Any]] = [
    DEAL,
    {"type": "play", "seat": 0, "card": "TD"},
    {"type": "play", "seat": 1, "card": "AD"},
    {"type": "note", "text": "Anna says she meant AC", "ref": 2},
    {"type": "score_claimed", "hand": 1, "points": {"0": 0, "1": 1}},
    {"type": "draw", "seat": 1, "card": "KD"},
    {"type": "retract", "to_seq": 1, "reason": "Anna meant to lead AC"},
]


@dataclass(frozen=True)
class Viewer:
    """A viewer key as far as visibility goes."""

    sees_everything: bool = False
    is_share: bool = False


def record(store: Store, events: list[dict[str, Any]]) -> tuple[Any, list[Any]]:
    recorder = Recorder(store)
    club_id = store.ensure_club("retracts")
    game = recorder.create_game(club_id=club_id, kind="schnapsen", players=PLAYERS, options={"first_dealer": 1})
    recorder.append(game.id, events, club_id=club_id, actor="test")
    return store.get_game(game.id, club_id), store.read_events(game.id)


def envelopes_of(store: Store) -> list[Any]:
    return record(store, EVENTS)[1]


def test_a_retract_takes_back_the_game_events_of_its_range_only(store: Store) -> None:
    envelopes = envelopes_of(store)
    assert engine.retracted_seqs(envelopes) == {2: 7, 3: 7, 6: 7}
    assert engine.made_before(envelopes) == {4: 7, 5: 7}
    assert engine.corrected_seqs(envelopes) == {s: 7 for s in range(2, 7)}
    assert not engine.takes_back("note") and not engine.takes_back("score_claimed")
    assert engine.takes_back("play") and engine.takes_back("hand_voided")
    assert engine.corrected_by(5, [(7, 1)]) == 7 and engine.corrected_by(7, [(7, 1)]) is None


def test_the_replay_strikes_through_the_game_events_not_the_note_nor_the_claim(store: Store) -> None:
    envelopes = envelopes_of(store)
    start = engine.start(RULES, PLAYERS, RULES.options_for(PLAYERS, {"first_dealer": 1}))
    frames = hand_frames(RULES, start, envelopes, 1, SPECTATOR, PLAYERS)
    assert {f["seq"]: f.get("retracted_by") for f in frames} == {1: None, 2: 7, 3: 7, 4: None, 5: None, 6: 7, 7: None}


def test_the_audit_keeps_the_note_and_the_claim_made_before_the_correction(store: Store) -> None:
    game, envelopes = record(store, EVENTS)
    audit = audit_game(game, envelopes)
    (retraction,) = audit["retractions"]
    assert retraction["retracted"] == [2, 3, 6] and retraction["kept"] == [4, 5]
    (note,) = audit["notes"]
    assert note["retracted"] is False and note["before_retract"] == 7
    assert note["text"] == "Anna says she meant AC"  # the auditor's words, as written
    assert note["remark"] == "made before the retract at seq 7 (back to seq 1); still in force"
    (claim,) = audit["claims"]
    assert claim["retracted"] is False and claim["before_retract"] == 7
    assert claim["summary"].startswith("hand 1 is not finished")
    assert claim["summary"].endswith("Made before the retract at seq 7 (back to seq 1); still in force.")


def test_a_claim_and_a_note_outside_any_range_say_nothing_of_a_correction(store: Store) -> None:
    game, envelopes = record(store, [*EVENTS, {"type": "note", "text": "after"}])
    audit = audit_game(game, envelopes)
    assert [n["before_retract"] for n in audit["notes"]] == [7, None]
    assert "remark" not in audit["notes"][1]


def test_a_retract_is_still_refused_past_the_floor(store: Store) -> None:
    game, envelopes = record(store, [*EVENTS, {"type": "play", "seat": 0, "card": "AC"}])
    position = engine.fold(RULES, engine.start(RULES, PLAYERS, game.options), envelopes)
    assert position.retract_floor == 7
    with pytest.raises(ImpossibleEventError, match="past the retract at seq 7"):
        engine.decide(RULES, position, {"type": "retract", "to_seq": 3, "reason": "no"})
    assert engine.decide(RULES, position, {"type": "retract", "to_seq": 7, "reason": "ok"}).violation is None


def test_the_audit_renders_marked_reasons_and_no_longer_guesses_at_seat_numbers() -> None:
    reason = f"{phrases.seat(1)} won {phrases.card('TD')}"
    line = ScoreLine(hand=1, seat=1, points=2, rule="schnapsen.closed", reason=reason, events=(3,))
    sheet = ScoreSheet(totals=(7, 5), hands=(hand_score(1, 2, [line]),), finished=False, winner=None)
    compared = compare_claim(sheet, PLAYERS, {"0": 1, "1": 0}, 1)
    assert "schnapsen.closed (Ben won 10♦, seqs 3)" in compared["summary"]
    assert compared["lines"][0]["reason"] == "Ben won 10♦" and compared["lines"][0]["fields"] == {
        "seat": 1,
        "card": "TD",
    }
    # text without markers (a game not converted yet, a person's words) is left as it is: no regex
    assert name_seats("seat 1 said so", PLAYERS) == "seat 1 said so"


# --------------------------------------------------------------------------- what a viewer sees


def live_sight(envelopes: list[Any]) -> Sight:
    """A viewer's sight of the recorded game: hand 1 is being played again after the retract."""
    return Sight(Viewer(), RULES, hidden_from=1, hashes_from=1, corrections=((7, 1),))


def test_a_viewer_never_sees_the_cards_of_a_retracted_play_of_a_live_hand(store: Store) -> None:
    envelopes = envelopes_of(store)
    shown = {env["seq"]: env for env in shown_envelopes(live_sight(envelopes), envelopes)}
    for seq in (2, 3, 6):
        assert shown[seq]["redacted"] is True and shown[seq]["result"] == {} and shown[seq]["hash"] is None
        assert set(phrases_cards(shown[seq]["data"])) <= {HIDDEN}
    assert shown[2]["data"] == {"seat": 0, "card": HIDDEN}
    # kept: the note and the claim as written; the deal as any live deal
    assert shown[4]["data"] == envelopes[3]["data"] and shown[5]["data"] == envelopes[4]["data"]
    assert shown[1]["data"]["hands"] == [[HIDDEN] * 5, [HIDDEN] * 5]
    assert shown[1]["data"]["trump_card"] == "JH"


def phrases_cards(data: Any) -> list[str]:
    """Every string in an event's data that is a card code or `??`."""
    if isinstance(data, str):
        return [data] if len(data) == 2 else []
    if isinstance(data, dict):
        return [c for v in data.values() for c in phrases_cards(v)]
    if isinstance(data, list):
        return [c for v in data for c in phrases_cards(v)]
    return []


def test_a_viewer_replay_shows_the_corrected_table_inside_a_retracted_range(store: Store) -> None:
    envelopes = envelopes_of(store)
    start = engine.start(RULES, PLAYERS, RULES.options_for(PLAYERS, {"first_dealer": 1}))
    frames = hand_frames(RULES, start, envelopes, 1, SPECTATOR, PLAYERS)
    assert "TD" in str(frames[1]["event"]) and "TD" in str(frames[1]["state"])  # what the frames leak today
    tables: list[int] = []

    def table_at(seq: int) -> dict[str, Any]:
        tables.append(seq)
        return frames[seq - 1]["state"]

    shown = {f["seq"]: f for f in shown_frames(live_sight(envelopes), 1, frames, table_at)}
    assert tables == [1]  # drawn once for the range
    for seq in (2, 3, 4, 5, 6):
        assert shown[seq]["state"] == frames[0]["state"]
        assert "TD" not in str(shown[seq]) and "AD" not in str(shown[seq])
    assert shown[2]["event"] == {"type": "play", "seat": 0, "card": HIDDEN} and shown[2]["result"] == {}
    assert shown[4]["event"] == frames[3]["event"] and "redacted" not in shown[4]
    assert shown[7] == frames[6] and shown[1] == frames[0]
    # a hand no longer hidden: every frame as drawn
    assert shown_frames(Sight(Viewer(), RULES, None, None), 1, frames, table_at) == frames


def test_hide_cards_keeps_the_shape_of_every_card_field() -> None:
    assert hide_cards(RULES, DEAL) == {
        "type": "deal",
        "dealer": 1,
        "hands": [[HIDDEN] * 5, [HIDDEN] * 5],
        "trump_card": HIDDEN,
    }
