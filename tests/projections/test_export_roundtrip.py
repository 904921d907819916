"""Exports read back: random games of all five kinds through json, jsonl and text, without a database.

json/jsonl must give back the very envelopes (so the same head hash); text
must give back the same events (its times and actor are the import's).
Every corruption is refused naming its line (jsonl, text) or index (json).
"""

from __future__ import annotations

import random
import time
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from events.codec import genesis_hash
from events.envelope import Envelope, seal
from projections import engine
from projections.histories import export, importer
from projections.histories.errors import BadImportError
from projections.histories.notation import NotationError, format_value, parse_value
from projections.histories.text import parse_text, write_text
from projections.registry import available, rules_for
from projections.simulate import play
from tests.projections.helpers import AWKWARD_PLAYERS

PLAYERS = AWKWARD_PLAYERS
CREATED = "2026-11-29T14:02:11.123456Z"
WHEN = "2026-11-29T15:00:00.000000Z"


def recorded(kind: str, seed: int, extra: bool = True) -> tuple[dict[str, Any], list[Envelope]]:
    """A simulated game sealed into a chain as the recorder would, plus notes, a claim and a retract."""
    rules = rules_for(kind)
    players = PLAYERS[kind]
    options = rules.options_for(players, {})
    playout = play(rules, players, options, rng=random.Random(seed), max_events=400)
    events: list[dict[str, Any]] = list(playout.events)
    if extra:
        events += [
            {"type": "note", "text": 'Ben said "misdeal?" => no;\nplay on ♥', "ref": 2},
            {"type": "score_claimed", "hand": 1, "points": {str(s): 1.5 if s == 0 else 0 for s in range(len(players))}},
            {"type": "retract", "to_seq": len(events) - 2, "reason": "wrong card; replayed"},
        ]
    state = engine.start(rules, players, options)
    prev = genesis_hash(kind, len(players), options, CREATED)
    kept: dict[int, Any] = {}
    envelopes = []
    for seq, raw in enumerate(events, start=1):
        decision = engine.decide(rules, state, raw)
        if decision.event["type"] == "retract":
            state = engine.restore(kept[decision.event["to_seq"]], seq)
        else:
            state = engine.apply(rules, state, decision.event, seq)
        kept[seq] = state
        env = seal(
            seq=seq,
            hand=state.hand,
            event=decision.event,
            result=state.facts,
            violation=decision.violation,
            recorded_at=WHEN,
            actor="key:abc",
            prev_hash=prev,
        )
        prev = env["hash"]
        envelopes.append(env)
    head = {
        "format": "tablebook/1",
        "id": f"g{kind[:4]}{seed}",
        "game": kind,
        "club": "Chess & Cards",
        "players": players,
        "seats": len(players),
        "options": options,
        "created_at": CREATED,
        "status": "live",
        "seq": len(envelopes),
        "head_hash": prev,
    }
    return head, envelopes


def jsonl_of(head: dict[str, Any], envelopes: list[Envelope]) -> bytes:
    return b"".join(export.jsonl_lines(head, envelopes))


def text_of(head: dict[str, Any], envelopes: list[Envelope]) -> str:
    return "\n".join(write_text(head, rules_for(head["game"]), envelopes)) + "\n"


@pytest.mark.parametrize("kind", available())
@pytest.mark.parametrize("seed", [1, 2])
def test_every_format_reads_back_what_was_written(kind: str, seed: int) -> None:
    head, envelopes = recorded(kind, seed)
    from_json = importer.read_file(orjson.dumps(export.json_document(head, envelopes)), actor="x")
    from_jsonl = importer.read_file(jsonl_of(head, envelopes), actor="x")
    for game in (from_json, from_jsonl):
        assert game.envelopes == envelopes
        assert game.head.head_hash == head["head_hash"] and game.same_chain
        assert game.players == head["players"] and game.options == head["options"]
    text = text_of(head, envelopes)
    from_text = importer.read_file(text.encode(), actor="key:other")
    assert from_text.format == "text"
    assert [(e["type"], e["data"]) for e in from_text.envelopes] == [(e["type"], e["data"]) for e in envelopes]
    assert [(e["hand"], e["result"]) for e in from_text.envelopes] == [(e["hand"], e["result"]) for e in envelopes]
    assert {e["actor"] for e in from_text.envelopes} == {"key:other"}
    assert from_text.genesis == from_json.genesis  # same game, seats, options and created_at
    assert from_text.head.totals == from_json.head.totals and from_text.head.status == from_json.head.status


def test_text_with_the_same_times_and_actor_gives_the_same_head_hash() -> None:
    head, envelopes = recorded("schnapsen", 3)
    again = importer.from_text(text_of(head, envelopes), actor="key:abc", recorded_at=WHEN)
    assert again.envelopes == envelopes and again.head.head_hash == head["head_hash"]


def test_text_reads_like_a_hand_history() -> None:
    head, envelopes = recorded("schnapsen", 1)
    text = text_of(head, envelopes)
    assert '[Game "schnapsen"]' in text and '[Seat0 "Anna"]' in text and '[Club "Chess & Cards"]' in text
    assert "\nHand 1\n" in text and "Score hand 1:" in text
    deal = next(line for line in text.splitlines() if line.startswith("   1. deal"))
    assert deal.startswith("   1. deal dealer=Anna hands=[[") and "trump_card=" in deal
    assert "   2. Ben: play " in text  # the leader is named, the card in its code
    assert "=> trick_winner=" in text
    assert 'text="Ben said \\"misdeal?\\" => no;\\nplay on ♥"' in text
    assert "; retracted by seq" in text


def test_names_that_are_not_plain_words_are_quoted_and_read_back() -> None:
    head, envelopes = recorded("cutthroat-smear", 4, extra=False)
    text = text_of(head, envelopes)
    assert '"Ava Marie": ' in text
    parsed = parse_text(text)
    assert [e for _, e in parsed.events] == [{"type": e["type"], **e["data"]} for e in envelopes]
    twins = {**head, "players": ["Ruby", "Ruby", "Liam"]}
    twin_text = "\n".join(write_text(twins, rules_for("cutthroat-smear"), envelopes))
    assert "#0: " in twin_text and "#1: " in twin_text and "Ruby: " not in twin_text  # a name twice: seat numbers
    assert [e for _, e in parse_text(twin_text).events] == [{"type": e["type"], **e["data"]} for e in envelopes]


def corrupt_line(text: str, number: int, old: str, new: str) -> str:
    lines = text.split("\n")
    assert old in lines[number - 1], lines[number - 1]
    lines[number - 1] = lines[number - 1].replace(old, new, 1)
    return "\n".join(lines)


def test_a_corrupted_jsonl_line_is_refused_with_its_line_number() -> None:
    head, envelopes = recorded("casino", 5)
    lines = jsonl_of(head, envelopes).decode().split("\n")
    env = orjson.loads(lines[9])  # line 10: the envelope of seq 9
    env["data"]["seat"] = (env["data"].get("seat", 0) + 1) % 3 if "seat" in env["data"] else 0
    edited = [*lines[:9], orjson.dumps(env).decode(), *lines[10:]]
    with pytest.raises(BadImportError) as info:
        importer.read_file("\n".join(edited).encode(), actor="x")
    assert info.value.details["line"] == 10 and info.value.details["seq"] == 9
    assert info.value.message.startswith("line 10: seq 9: the stored hash is not the hash of the row")
    broken = [*lines[:4], lines[4][:-7], *lines[5:]]
    with pytest.raises(BadImportError, match=r"^line 5: not valid JSON"):
        importer.read_file("\n".join(broken).encode(), actor="x")
    dropped = [*lines[:6], *lines[7:]]
    with pytest.raises(BadImportError, match=r"^line 7: expected seq 6, found seq 7"):
        importer.read_file("\n".join(dropped).encode(), actor="x")
    truncated = lines[:-4]
    with pytest.raises(BadImportError, match=r"truncated"):
        importer.read_file("\n".join(truncated).encode(), actor="x")


def test_a_json_export_names_the_event_index() -> None:
    head, envelopes = recorded("gin-rummy-3", 6)
    doc = export.json_document(head, envelopes)
    doc["events"][4]["recorded_at"] = "2026-11-30T00:00:00.000000Z"
    with pytest.raises(BadImportError) as info:
        importer.read_file(orjson.dumps(doc), actor="x")
    assert info.value.details["index"] == 4 and info.value.message.startswith("event 4: seq 5:")
    doc = export.json_document(head, envelopes)
    doc["created_at"] = "2026-11-29T14:02:11.000000Z"
    with pytest.raises(BadImportError, match="genesis record"):
        importer.read_file(orjson.dumps(doc), actor="x")
    doc = export.json_document({**head, "redacted": True}, envelopes)
    with pytest.raises(BadImportError, match="redacted"):
        importer.read_file(orjson.dumps(doc), actor="x")


def test_a_text_line_the_rules_refuse_is_named_with_its_line() -> None:
    head, envelopes = recorded("schnapsen", 7, extra=False)
    text = text_of(head, envelopes)
    number = next(i for i, line in enumerate(text.split("\n"), 1) if line.startswith("   3. "))
    card = envelopes[2]["data"]["card"]
    other = next(c for c in ("AS", "AH", "AD", "AC") if c != card)
    with pytest.raises(BadImportError) as info:
        importer.read_file(corrupt_line(text, number, f" {card}", f" {other}").encode(), actor="x")
    assert info.value.details["line"] == number and info.value.code in ("impossible", "illegal")
    garbage = corrupt_line(text, number, "3. ", "3 ")
    with pytest.raises(BadImportError, match=rf"^line {number}: cannot read"):
        importer.read_file(garbage.encode(), actor="x")
    skipped = corrupt_line(text, number, "3. ", "4. ")
    with pytest.raises(BadImportError, match=rf"^line {number}: expected the event with seq 3, found seq 4"):
        importer.read_file(skipped.encode(), actor="x")
    unclosed = corrupt_line(text, number, "play", "play hands=[AS")
    with pytest.raises(BadImportError, match=rf"^line {number}: column \d+: missing"):
        importer.read_file(unclosed.encode(), actor="x")
    stranger = corrupt_line(text, number, ": play", ": play").replace("Anna:", "Zoe:", 1)
    with pytest.raises(BadImportError, match="'Zoe' is not a player"):
        importer.read_file(stranger.encode(), actor="x")
    short = text.replace(f'[Events "{len(envelopes)}"]', f'[Events "{len(envelopes) + 1}"]')
    with pytest.raises(BadImportError, match="truncated"):
        importer.read_file(short.encode(), actor="x")


@settings(max_examples=60, deadline=None)
@example(text="line\u2028separator\x85next\r", name="#1")
@example(text="=> ; [KH] {a=1}", name="Zoë Ann")
@given(text=st.text(min_size=1, max_size=80), name=st.text(min_size=1, max_size=12).filter(str.strip))
def test_any_note_and_any_name_survive_the_text_format(text: str, name: str) -> None:
    head, envelopes = recorded("schnapsen", 1, extra=False)
    rules = rules_for("schnapsen")
    head = {**head, "players": [name, "Ben"]}
    note = seal(
        seq=len(envelopes) + 1,
        hand=envelopes[-1]["hand"],
        event={"type": "note", "text": text},
        result={},
        violation=None,
        recorded_at=WHEN,
        actor="key:abc",
        prev_hash=envelopes[-1]["hash"],
    )
    written = "\n".join(write_text({**head, "seq": len(envelopes) + 1}, rules, [*envelopes, note]))
    events = [e for _, e in parse_text(written).events]
    assert events[-1] == {"type": "note", "text": text}
    assert events[:-1] == [{"type": e["type"], **e["data"]} for e in envelopes]


def test_a_minimal_hand_written_history_imports() -> None:
    text = (
        '[Game "schnapsen"]\n[Seat0 "Anna"]\n[Seat1 "Ben"]\n[Options "first_dealer=1"]\n\n'
        "1. deal dealer=Ben trump_card=JH hands=[[KH QH TD AC JS] [TS AD KC QS JD]]\n"
        "2. Anna: play KH marriage ; Anna announces\n"
        "3. #1: play TS\n"
        '4. note text="Ben\'s card was a ten" ref=3\n'
    )
    game = importer.read_file(text.encode(), actor="x")
    assert [e["type"] for e in game.envelopes] == ["deal", "play", "play", "note"]
    assert game.envelopes[1]["data"] == {"seat": 0, "card": "KH", "marriage": True}
    assert game.envelopes[2]["result"]["trick_winner"] == 0 and game.options["first_dealer"] == 1


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers(-(2**53), 2**53)
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
        max_leaves=12,
    )
)
def test_the_value_notation_reads_back_every_json_value(value: Any) -> None:
    written = format_value(value)
    assert "\n" not in written
    back = parse_value(written)
    assert orjson.dumps(back) == orjson.dumps(value)


def test_the_value_notation_refuses_what_it_cannot_read() -> None:
    for bad in ("[KH", '"open', "{a=}", "{a 1}", "KH ]", "{a=1 a=2}"):
        with pytest.raises(NotationError):
            parse_value(bad)


HEADER = '[Game "schnapsen"]\n[Seat0 "Anna"]\n[Seat1 "Ben"]\n[Options "first_dealer=1"]\n\n'
DEAL = "deal dealer=Ben trump_card=JH hands=[[KH QH TD AC JS] [TS AD KC QS JD]]"
HUGE = "1" * 5000


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (f"{HUGE}. {DEAL}", r"^line 6: the seq has 5,000 digits: at most 10 are read$"),
        (f"1. {DEAL.replace('dealer=Ben', 'dealer=' + HUGE)}", r"^line 6: column 16: a number of 5,000 characters"),
        (
            f"1. {DEAL.replace('dealer=Ben', 'dealer=#' + HUGE)}",
            r"^line 6: dealer: the seat #1+\.\.\. has 5,000 digits",
        ),
        (f"1. #{HUGE}: play KH", r"^line 6: seat: the seat #1+\.\.\. has 5,000 digits"),
        (f"1. {DEAL} x=1e400", r"^line 6: column \d+: the number 1e400 is out of range"),
        (f"1. {DEAL} x=-{'9' * 40}", r"^line 6: column \d+: a number of 41 characters: at most 32 are read"),
        ('1. note text="a\\u0000b"', r"^line 6: text: holds a NUL character"),
    ],
)
def test_a_text_line_with_a_number_or_text_no_store_can_hold_is_refused_with_its_line(line: str, message: str) -> None:
    """More than 4,300 digits (a seq, a dealer) once answered 500: Python's int() refuses to convert them."""
    with pytest.raises(BadImportError, match=message) as refused:
        importer.read_file((HEADER + line + "\n").encode(), actor="x")
    assert refused.value.details["line"] == 6


@pytest.mark.parametrize(
    ("tag", "message"),
    [
        (f'[Seat{HUGE} "Cy"]', r"^line 4: the tag Seat1+\.\.\. has 5,000 digits: at most 10 are read$"),
        ('[Seat999999999999999999 "Cy"]', r"^line 4: the tag Seat9+\.\.\. has 18 digits"),
        ('[Seat9999999999 "Cy"]', r"^the header has no Seat2 tag"),  # the gap is found without a range to 10**10
    ],
)
def test_a_seat_tag_with_a_huge_number_is_refused_at_once(tag: str, message: str) -> None:
    text = HEADER.replace('[Seat1 "Ben"]', f'[Seat1 "Ben"]\n{tag}') + f"1. {DEAL}\n"
    began = time.perf_counter()
    with pytest.raises(BadImportError, match=message):
        importer.read_file(text.encode(), actor="x")
    assert time.perf_counter() - began < 1.0


def test_a_player_name_no_store_can_hold_is_refused_in_every_format() -> None:
    """PostgreSQL refuses a NUL in text: a name holding one is malformed, on SQLite too."""
    text = HEADER.replace('"Ben"', '"Be\\u0000n"') + f"1. {DEAL.replace('dealer=Ben', 'dealer=#1')}\n"
    with pytest.raises(BadImportError, match=r"^line 3: players\[1\]: the name holds a NUL character"):
        importer.read_file(text.encode(), actor="x")
    head, envelopes = recorded("schnapsen", 2, extra=False)
    lines = jsonl_of({**head, "players": ["Anna", "Be\x00n"]}, envelopes)
    with pytest.raises(BadImportError, match=r"^line 1: players\[1\]: the name holds a NUL character"):
        importer.read_file(lines, actor="x")
