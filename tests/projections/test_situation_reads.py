"""Each game's `situation_reads` (which stored events its `situations` can tag) against its code.

Random legal games of every kind, played by the game's bot and by a uniform chooser: every event that
`situations` tags must be admitted by the game's declaration, by the hand facts' union filter
(`projections.readmodels.hand_facts.READS`) in Python, and by that filter's SQL evaluated by SQLite on the stored
texts. So the prefilter the rebuild reads through cannot drift from the code it stands for.
"""

from __future__ import annotations

import random
import sqlite3
from typing import Any

import pytest

from events.codec import dumps
from projections.core import engine
from projections.core.registry import available, rules_for
from projections.core.rules import SituationReads
from projections.core.simulate import play, uniform
from projections.readmodels.hand_facts import READS
from tests.projections.helpers import PLAYERS

GAMES_PER_KIND = 12
#: the house rules some situations need (Seven and a Half's bonuses, splits, face-down hits), besides the defaults
HOUSE_RULES: dict[str, list[dict[str, Any]]] = {
    "casino": [{"sweeps": True}],
    "seven-and-a-half": [
        {"two_card_bonus": True, "pair_of_sevens": True, "face_down_request": True, "splitting": True}
    ],
}
#: a game known to show a rare situation, played besides the random ones (seed, players): three-handed
#: Casino seed 178 sweeps the table (tests/projections/test_readmodel.py)
KNOWN_GAMES: dict[str, list[tuple[int, list[str]]]] = {"casino": [(178, ["A", "B", "C"])]}
#: each kind's players: Casino for two and for three (some situations need a third hand)
SEATINGS: dict[str, list[list[str]]] = {kind: [PLAYERS[kind]] for kind in available()}
SEATINGS["casino"] = [PLAYERS["casino"], ["Ann", "Bo", "Cy"]]
#: tags random play does not reach in these games
UNREACHED: dict[str, set[str]] = {}


def _voided_hand(rules: Any, players: list[str], options: dict[str, Any], events: Any) -> tuple[dict[str, Any], Any]:
    """The game replayed into its first hand, then a `hand_voided` (a misdeal: no bot or chooser offers
    one): the event and its result."""
    position = engine.start(rules, players, rules.options_for(players, options))
    for event in events:
        if position.seq >= 4 and rules.hand_in_progress(position.game):
            break
        position = engine.apply(rules, position, engine.decide(rules, position, dict(event)).event, position.seq + 1)
    voided = engine.decide(rules, position, {"type": "hand_voided", "reason": "misdeal"})
    assert voided.violation is None
    return voided.event, engine.apply(rules, position, voided.event, position.seq + 1).facts


def _stored(event: dict[str, Any], result: Any) -> tuple[str, str, str]:
    """`(type, data, result)` as the event row holds them (the canonical texts `seal` writes)."""
    return event["type"], dumps({k: v for k, v in event.items() if k != "type"}), dumps(dict(result))


def _sql_admits(rows: list[tuple[str, int, str, str]]) -> list[bool]:
    """`READS`' SQL evaluated by SQLite on each `(type, seq, data, result)`, for rows without read flags (NULL:
    the texts are tested; tests/store/test_read_flags.py checks the flags against `admits`)."""
    assert READS is not None
    db = sqlite3.connect(":memory:")
    db.execute(
        "CREATE TABLE event (n INTEGER PRIMARY KEY, type TEXT, seq INTEGER, data TEXT, result TEXT, read_by INTEGER)"
    )
    db.executemany("INSERT INTO event (type, seq, data, result) VALUES (?, ?, ?, ?)", rows)
    admitted = {n for (n,) in db.execute(f"SELECT n FROM event WHERE {READS.sql('sqlite')}")}
    db.close()
    return [n in admitted for n in range(1, len(rows) + 1)]


@pytest.mark.parametrize("kind", available())
def test_every_event_situations_tags_passes_the_declared_prefilter(kind: str) -> None:
    rules = rules_for(kind)
    reads = rules.situation_reads
    assert isinstance(reads, SituationReads), f"{kind} declares no situation_reads: the hand facts read every event"
    assert READS is not None
    tagged: dict[str, int] = {}
    rows: list[tuple[str, int, str, str]] = []
    wanted: list[bool] = []
    games = [(seed, SEATINGS[kind][seed // 2 % len(SEATINGS[kind])]) for seed in range(GAMES_PER_KIND)]
    for seed, players in [*games, *KNOWN_GAMES.get(kind, [])]:
        rng = random.Random(seed)
        known = seed >= GAMES_PER_KIND  # played as its test plays it: the game's bot, default rules
        bot = None if known or seed % 2 == 0 else uniform  # the game's random playout, then uniform play
        house = [{}, *HOUSE_RULES.get(kind, [])]
        options = {} if known else house[seed % len(house)]
        playout = play(rules, players, options, rng=rng, max_events=600 if known else 800, bot=bot)
        played = list(zip(playout.events, playout.facts, strict=True))
        if seed == 0:
            played.append(_voided_hand(rules, players, options, playout.events))
        for seq, (event, result) in enumerate(played, start=1):
            kind_, data, text = _stored(event, result)
            tags = list(rules.situations(event, result))
            admitted = reads.admits(kind_, data, text)
            assert READS.admits(kind_, seq, data, text) or not admitted  # the union holds each game's reads
            if tags:
                assert admitted, f"{kind} seq {seq}: {tags} from a {kind_} event its situation_reads leaves out"
                for tag in tags:
                    tagged[tag] = tagged.get(tag, 0) + 1
            rows.append((kind_, seq, data, text))
            wanted.append(READS.admits(kind_, seq, data, text))
    assert _sql_admits(rows) == wanted  # SQLite's instr is Python's `in`: the same events, no more, no fewer
    missing = set(rules.situation_tags) - set(tagged) - UNREACHED.get(kind, set())
    assert not missing, f"{kind}: {sorted(missing)} never given in {GAMES_PER_KIND} games: the test did not check them"
    # the filter leaves out most events: that is what it is for
    assert sum(wanted) < len(wanted) * 0.6


def test_a_mark_must_be_a_quoted_plain_name() -> None:
    assert SituationReads(result_marks=('"sweeps"',)).admits("trail", "{}", '{"sweeps":[]}')
    assert not SituationReads(result_marks=('"sweeps"',)).admits("trail", '{"sweeps":1}', "{}")
    for bad in ("sweeps", '"it\'s"', '"a%"', '""'):
        with pytest.raises(ValueError, match="situation mark"):
            SituationReads(result_marks=(bad,))
