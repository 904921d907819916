"""Re-scoring a recorded game under other options (projections/reading/rescore.py, and the use case of
api/service/rescore.py), against a fresh recording.

The oracle is the write path itself: a game recorded *from the start* with the other value of an
option, fed the same events, must give the re-score's sheet (and refuse, if at all, the event the
re-score says it diverges at). Play options are checked on crafted records whose divergence seq is
known by hand. Every re-score leaves the record as it was, byte for byte (its rows and head hash).
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterator
from typing import Any

import pytest

from api.service import OPERATOR
from api.service.rescore import rescore_game
from events.envelope import event_of
from events.errors import InvalidEventError, TablebookError
from events.store import Store
from projections.core import engine, simulate
from projections.core.recorder import Recorder
from projections.core.registry import KINDS, rules_for
from projections.reading.rescore import line_changes, options_under, rescore_record
from tests.projections.helpers import CASINO_DEAL, EXAMPLES, GIN_DEAL, GIN_ROLES, HALF_HAND, SMEAR_TWO, load_example

#: the other value of every scoring-only option of every game (the test below fails when a game declares
#: a scoring-only option that is not listed here)
OTHER: dict[tuple[str, str], Any] = {
    ("casino", "sweeps"): True,
    ("cutthroat-smear", "high_point"): "ace_only",
    ("gin-rummy-3", "gin_bonus"): 20,
    ("gin-rummy-3", "undercut_bonus"): 25,
    ("gin-rummy-3", "gin_scoring"): "flat",
    ("seven-and-a-half", "two_card_bonus"): True,
}
#: the bot games looked at, at most, for one whose score the option changes
SEEDS = 8
EVENTS = 700


@pytest.fixture(scope="module")
def recorder(sqlite_url: str) -> Iterator[Recorder]:
    store = Store(sqlite_url)
    yield Recorder(store)
    store.dispose()


def _club(recorder: Recorder) -> int:
    return recorder.store.ensure_club(f"h9-{secrets.token_hex(4)}")


def _record(
    recorder: Recorder,
    club: int,
    kind: str,
    events: list[dict[str, Any]],
    options: dict[str, Any],
    players: list[str] | None = None,
) -> str:
    """A game recorded through the write path (by the game's demo players unless named); returns its id."""
    rules = rules_for(kind)
    names = players or list(rules.demo_players)
    game = recorder.create_game(club_id=club, kind=kind, players=names, options=options)
    for start in range(0, len(events), 200):
        recorder.append(game.id, events[start : start + 200], club_id=club, actor="test")
    return game.id


def _fresh(
    recorder: Recorder, club: int, kind: str, events: list[dict[str, Any]], options: dict[str, Any]
) -> tuple[str, int | None]:
    """A game recorded from the start with `options`, fed `events` until the first it refuses:
    (its id, the seq refused or None)."""
    rules = rules_for(kind)
    game = recorder.create_game(club_id=club, kind=kind, players=list(rules.demo_players), options=options)
    for start in range(0, len(events), 200):
        batch = events[start : start + 200]
        try:
            recorder.append(game.id, batch, club_id=club, actor="test")
        except TablebookError as refused:
            index = refused.details["index"]
            if index:
                recorder.append(game.id, batch[:index], club_id=club, actor="test")
            return game.id, start + index + 1
    return game.id, None


def _bot_events(kind: str, seed: int) -> list[dict[str, Any]]:
    rules = rules_for(kind)
    playout = simulate.play(
        rules, list(rules.demo_players), {}, rng=random.Random(seed), max_events=EVENTS, bot=rules.bot
    )
    return list(playout.events)


def _rows(recorder: Recorder, game_id: str) -> tuple[str, list[Any]]:
    return recorder.store.get_game(game_id).head_hash, recorder.store.read_events(game_id, 0)


def test_every_scoring_only_option_is_covered() -> None:
    declared = {(k, n) for k in KINDS for n, spec in rules_for(k).options.items() if spec.scoring_only}
    assert declared == set(OTHER)


@pytest.mark.parametrize(("kind", "option"), sorted(OTHER))
def test_a_rescore_agrees_with_a_game_recorded_with_that_value_from_the_start(
    recorder: Recorder, kind: str, option: str
) -> None:
    club = _club(recorder)
    value = OTHER[(kind, option)]
    for seed in range(SEEDS):
        events = _bot_events(kind, seed)
        game_id = _record(recorder, club, kind, events, {})
        before = _rows(recorder, game_id)
        done = rescore_game(recorder.store, OPERATOR, game_id, options={option: value})
        assert _rows(recorder, game_id) == before  # nothing written: the same rows, the same head hash
        assert (
            done.head_hash == before[0]
            and done.mode == "scoring"
            and dict(done.changed) == {option: (rules_for(kind).options[option].default, value)}
        )
        if not done.lines:
            continue  # this game never met the option (no gin, no sweep...): try another
        fresh_id, refused = _fresh(recorder, club, kind, events, {option: value})
        fresh = recorder.live(fresh_id, club)
        assert done.rescored.to_dict() == fresh.rules.score(fresh.state.game).to_dict()
        if refused is None:
            assert done.divergence is None and done.upto == len(events)
        else:  # the other value ended the game earlier: the re-score says where, as the write path refused
            assert done.divergence is not None and done.divergence.seq == refused and done.upto == refused - 1
        assert sum(change.change for change in done.lines) == sum(done.difference())
        return
    pytest.fail(f"no bot game of {SEEDS} had a score that {option}={value!r} changes")


def _envelopes(kind: str, events: list[dict[str, Any]], options: dict[str, Any], players: list[str]) -> list[Any]:
    """Envelopes of `events` sealed as the write path seals them (in memory)."""
    rules = rules_for(kind)
    position = engine.start(rules, players, rules.options_for(players, options))
    out, prev = [], "0" * 64
    for event in events:
        decision = engine.decide(rules, position, event)
        position = engine.apply(rules, position, decision.event, position.seq + 1)
        out.append(
            engine.sealed(position, decision, recorded_at="2026-12-01T00:00:00.000000Z", actor="t", prev_hash=prev)
        )
        prev = out[-1]["hash"]
    return out


CRAFTED: list[tuple[str, list[str], dict[str, Any], list[dict[str, Any]], dict[str, Any], int, str]] = [
    # kind, players, recorded options, events, the play option changed, the seq it diverges at, the rule
    ("casino", ["Ann", "Ben"], {}, [CASINO_DEAL, {"type": "trail", "seat": 1, "card": "7D"}],
     {"trail_only_when_forced": True}, 2, "casino.trail_when_able"),
    ("cutthroat-smear", ["Ann", "Ben", "Cy"], {}, [
        {"type": "deal", "dealer": 0, "hands": [
            ["AS", "KS", "QS", "JS", "TS", "9S"],
            ["AH", "KH", "QH", "JH", "TH", "9H"],
            ["AD", "KD", "QD", "JD", "TD", "9D"],
        ]},
        {"type": "pass", "seat": 1}, {"type": "pass", "seat": 2}, {"type": "bid", "seat": 0, "amount": 2},
    ], {"dealer_bids_after_passes": False}, 4, "smear.throw_in"),
    ("gin-rummy-3", ["Ida", "Jo", "Kim"], GIN_ROLES, [
        GIN_DEAL,
        {"type": "draw", "seat": 1, "source": "discard", "card": "QC"},
        {"type": "discard", "seat": 1, "card": "QC"},
    ], {"discard_taken_card": False}, 3, "gin.discard_taken_card"),
    ("seven-and-a-half", ["Juan", "Ines", "Carlo", "Sara"], {}, [
        *HALF_HAND, {"type": "bet", "seat": 1, "amount": 5}, {"type": "bet", "seat": 0, "amount": 5},
    ], {"bank_needs_win": True}, 10, "half.bank_needs_win"),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "players", "recorded", "events", "change", "seq", "rule"), CRAFTED)
def test_a_play_option_reports_where_the_record_diverges(
    kind: str,
    players: list[str],
    recorded: dict[str, Any],
    events: list[dict[str, Any]],
    change: dict[str, Any],
    seq: int,
    rule: str,
) -> None:
    rules = rules_for(kind)
    envelopes = _envelopes(kind, events, recorded, players)
    options = options_under(rules, players, recorded, options=change)
    done = rescore_record(
        rules,
        game_id="g",
        players=players,
        recorded_options=recorded,
        options=options,
        envelopes=envelopes,
        head_hash="h",
    )
    assert done.mode == "play"
    assert done.divergence is not None
    assert (done.divergence.seq, done.divergence.rule) == (seq, rule)
    assert done.divergence.text() == f"diverges at seq {seq}: rule {rule}"
    assert done.divergence.options == tuple(change)
    assert done.upto == seq - 1
    assert (
        done.recorded.to_dict()
        == rules.score(
            engine.fold(
                rules, engine.start(rules, players, rules.options_for(players, recorded)), envelopes[: seq - 1]
            ).game
        ).to_dict()
    )
    shown = done.to_dict()
    assert shown["divergence"]["text"] == f"diverges at seq {seq}: rule {rule}"
    assert "{seat:" not in shown["divergence"]["message"] and "{seat:" not in shown["summary"]
    # the default reading accepts the whole record
    same = rescore_record(
        rules,
        game_id="g",
        players=players,
        recorded_options=recorded,
        options=rules.options_for(players, recorded),
        envelopes=envelopes,
        head_hash="h",
    )
    assert same.divergence is None and not same.lines and not same.changed


def test_a_play_option_under_record_enforcement_lists_the_violation_and_goes_on() -> None:
    rules = rules_for("casino")
    players = ["Ann", "Ben"]
    recorded = {"enforcement": "record"}
    envelopes = _envelopes("casino", [CASINO_DEAL, {"type": "trail", "seat": 1, "card": "7D"}], recorded, players)
    options = options_under(rules, players, recorded, options={"trail_only_when_forced": True})
    done = rescore_record(
        rules,
        game_id="g",
        players=players,
        recorded_options=recorded,
        options=options,
        envelopes=envelopes,
        head_hash="h",
    )
    assert done.divergence is None and done.upto == 2
    assert [(seq, rule) for seq, rule, _ in done.violations] == [(2, "casino.trail_when_able")]


def test_several_play_options_put_a_divergence_down_to_the_one_that_refuses() -> None:
    rules = rules_for("cutthroat-smear")
    players = ["Ann", "Ben", "Cy"]
    _, _, recorded, events, _, seq, _ = CRAFTED[1]
    envelopes = _envelopes("cutthroat-smear", events, recorded, players)
    options = options_under(
        rules, players, recorded, options={"dealer_bids_after_passes": False, "enforcement": "record"}
    )
    done = rescore_record(
        rules,
        game_id="g",
        players=players,
        recorded_options=recorded,
        options=options,
        envelopes=envelopes,
        head_hash="h",
    )
    assert done.divergence is not None and done.divergence.seq == seq
    assert done.divergence.options == ("dealer_bids_after_passes",)


def test_the_changed_lines_say_which_line_moved_by_how_much_and_why() -> None:
    rules = rules_for("gin-rummy-3")
    players = ["Ida", "Jo", "Kim"]
    events = [
        GIN_DEAL,
        {"type": "pass", "seat": 1},
        {"type": "pass", "seat": 0},
        {"type": "draw", "seat": 1, "source": "stock", "card": "KH"},
        {
            "type": "knock",
            "seat": 1,
            "discard": "KH",
            "melds": [["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS"]],
        },
        {"type": "lay_off", "seat": 0, "melds": [], "layoffs": []},
    ]
    envelopes = _envelopes("gin-rummy-3", events, GIN_ROLES, players)
    options = options_under(rules, players, GIN_ROLES, options={"gin_scoring": "flat"})
    done = rescore_record(
        rules,
        game_id="g",
        players=players,
        recorded_options=GIN_ROLES,
        options=options,
        envelopes=envelopes,
        head_hash="h",
    )
    (change,) = done.lines
    assert (change.hand, change.seat, change.rule, change.change) == (1, 1, "gin.gin_deadwood", -60)
    assert change.before is not None and change.after is not None and change.before.events == change.after.events
    assert done.difference() == (0, -60, 0)
    doc = done.to_dict()
    assert doc["lines"][0]["after"]["reason"].startswith("after Jo (captain)'s gin")
    assert doc["totals"] == {
        "recorded": {"0": 0, "1": 85, "2": 0},
        "rescored": {"0": 0, "1": 25, "2": 0},
        "difference": {"0": 0, "1": -60, "2": 0},
    }
    assert doc["options"]["changed"] == {
        "gin_scoring": {"from": "bonus_plus_deadwood", "to": "flat", "kind": "scoring"}
    }
    assert line_changes(done.recorded, done.recorded) == []


def test_smear_high_point_moves_the_high_line_to_zero_in_place() -> None:
    rules = rules_for("cutthroat-smear")
    players = ["Ann", "Ben"]
    envelopes = _envelopes("cutthroat-smear", SMEAR_TWO, {}, players)
    done = rescore_record(
        rules,
        game_id="g",
        players=players,
        recorded_options={},
        options=options_under(rules, players, {}, options={"high_point": "ace_only"}),
        envelopes=envelopes,
        head_hash="h",
    )
    assert [(c.rule, c.seat, c.change) for c in done.lines if c.change] == [("smear.high", 1, -1)]


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.json")))
def test_an_example_record_reads_the_same_under_its_own_options(name: str) -> None:
    """A record made before the house rules existed (its options name none of them) reads as their defaults."""
    example = load_example(name)
    kind, players, options = example["game"], example["players"], example["options"]
    rules = rules_for(kind)
    envelopes = _envelopes(kind, example["events"], options, players)
    done = rescore_record(
        rules,
        game_id="g",
        players=players,
        recorded_options=options,
        options=rules.options_for(players, options),
        envelopes=envelopes,
        head_hash="h",
    )
    assert done.divergence is None and not done.lines and not done.changed
    assert done.rescored.to_dict() == done.recorded.to_dict()
    assert [event_of(e) for e in envelopes] == [
        engine.decide(
            rules, engine.start(rules, players, rules.options_for(players, options)), example["events"][0]
        ).event,
        *[event_of(e) for e in envelopes[1:]],
    ]


def test_options_under_keep_the_seating_and_take_a_profile() -> None:
    rules = rules_for("gin-rummy-3")
    players = ["Ida", "Jo", "Kim"]
    recorded = {**GIN_ROLES, "undercut_bonus": 20}
    under = options_under(rules, players, recorded, profile={"gin_scoring": "flat"})
    assert under["first_roles"] == GIN_ROLES["first_roles"]  # seating: the record's
    assert under["undercut_bonus"] == 10  # the profile leaves it out: the default
    assert under["gin_scoring"] == "flat"
    assert options_under(rules, players, recorded, options={"gin_bonus": 20})["undercut_bonus"] == 20
    with pytest.raises(InvalidEventError, match="who sits where"):
        options_under(rules, players, recorded, options={"first_roles": {"box": 1, "captain": 0, "sitter": 2}})


def test_rescoring_a_game_needs_options_or_a_profile(recorder: Recorder) -> None:
    club = _club(recorder)
    game_id = _record(recorder, club, "casino", [CASINO_DEAL], {}, ["Ann", "Ben"])
    with pytest.raises(InvalidEventError):
        rescore_game(recorder.store, OPERATOR, game_id)
