"""Exports read back: random games of all five kinds through json, jsonl and text, without a database.

json/jsonl must give back the very envelopes (so the same head hash); text
must give back the same events (its times and actor are the import's).
Every corruption is refused naming its line (jsonl, text) or index (json).
"""

from __future__ import annotations

import random
import re
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from events.codec import genesis_hash
from events.envelope import Envelope, seal
from projections.core import engine
from projections.core.registry import available, rules_for
from projections.core.rules import seat_dict
from projections.core.simulate import play
from projections.histories import export, importer, words
from projections.histories.errors import BadImportError
from projections.histories.notation import NotationError, format_value, parse_value
from projections.histories.text import write_text
from projections.histories.text_reader import parse_text
from tests.projections.helpers import AWKWARD_PLAYERS

PLAYERS = AWKWARD_PLAYERS
EXAMPLES = Path(__file__).resolve().parent.parent / "data" / "examples"
CREATED = "2026-11-29T14:02:11.123456Z"
WHEN = "2026-11-29T15:00:00.000000Z"


def sealed(kind: str, players: list[str], options: dict[str, Any], events: list[dict[str, Any]]) -> list[Envelope]:
    """Events decided and sealed into a chain as the recorder would (retracts honoured)."""
    rules = rules_for(kind)
    replay = engine.Replay(rules, engine.start(rules, players, options))
    prev = genesis_hash(kind, len(players), options, CREATED)
    envelopes = []
    for raw in events:
        decision = replay.push(raw)
        state = replay.position
        env = engine.sealed(state, decision, recorded_at=WHEN, actor="key:abc", prev_hash=prev)
        prev = env["hash"]
        envelopes.append(env)
    return envelopes


def header_of(
    kind: str, name: str, players: list[str], options: dict[str, Any], envelopes: list[Envelope]
) -> dict[str, Any]:
    return {
        "format": "tablebook/1",
        "id": name,
        "game": kind,
        "club": "Chess & Cards",
        "players": players,
        "seats": len(players),
        "options": options,
        "created_at": CREATED,
        "status": "live",
        "seq": len(envelopes),
        "head_hash": envelopes[-1]["hash"] if envelopes else genesis_hash(kind, len(players), options, CREATED),
    }


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
    envelopes = sealed(kind, players, options, events)
    return header_of(kind, f"g{kind[:4]}{seed}", players, options, envelopes), envelopes


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


def words_of(text: str) -> list[str]:
    """The body lines' words for people: each line without its bracketed event."""
    body = text.split("\n\n", 1)[1]
    return [line.split("  [", 1)[0] for line in body.split("\n")]


def test_text_reads_like_a_hand_history() -> None:
    head, envelopes = recorded("schnapsen", 1)
    head = {**head, "event": "Winter league", "round": "3", "table": "2"}
    text = text_of(head, envelopes)
    tags = text.split("\n\n", 1)[0].split("\n")
    assert tags[:9] == [
        '[Event "Winter league"]',
        '[Round "3"]',
        '[Table "2"]',
        '[Game "Schnapsen"]',
        '[Club "Chess & Cards"]',
        '[Date "2026.11.29"]',
        '[Players "Anna, Ben"]',
        '[Options "first_dealer=0 enforcement=strict dealing=table"]',
        '[Result "* in progress: Anna 2 to go, Ben 6 to go"]',
    ]
    lines = text.split("\n")
    deal = lines.index("Hand 1") + 1
    assert lines[deal].startswith("  Anna deals; trump J♥ turned up ") and lines[deal].endswith(
        "[1. deal dealer=Anna hands=[[QH JD KS AS AD] [JC QS QC JS QD]] trump_card=JH]"
    )
    # the starting cards by suit (spades, hearts, clubs, diamonds), high to low, tens as 10
    assert lines[deal + 1 : deal + 3] == ["    Anna: A♠ K♠  Q♥  A♦ J♦", "    Ben:  Q♠ J♠  Q♣ J♣  Q♦"]
    # a trick: its plays under a heading, then its winner
    trick = lines.index("  Trick 1")
    assert lines[trick + 1].startswith("    Ben leads J♠ ") and lines[trick + 1].endswith("[2. Ben: play JS]")
    assert (
        lines[trick + 2].startswith("    Anna plays A♠ ") and lines[trick + 3] == "    → Anna wins the trick: 13 points"
    )
    # the hand's score in words, with the players' names, then the running score in the game's unit
    score = lines.index("  Score of hand 1: Anna +3, Ben 0 game points")
    assert lines[score + 1].startswith("    Anna +3: Anna closed the talon")
    assert lines[score + 2] == "  Running score: Anna 4 to go, Ben 7 to go"
    assert '  Note (on event 2): “Ben said "misdeal?" => no; play on ♥”' in text
    assert 'note text="Ben said \\"misdeal?\\" => no;\\nplay on ♥" ref=2]' in text
    assert "(taken back by event " in text
    prose = "\n".join(words_of(text))
    for internal in ("=>", "trick_winner", "talon=", "{seat:", "seat 0", "seat 1"):
        assert internal not in prose.replace('“Ben said "misdeal?" => no', ""), internal
    assert text.rstrip("\n").endswith("\n\nResult: * in progress: Anna 2 to go, Ben 6 to go")


@pytest.mark.parametrize("kind", available())
def test_no_words_of_a_history_leak_markers_internals_or_bare_seats(kind: str) -> None:
    head, envelopes = recorded(kind, 11, extra=False)
    for line in words_of(text_of(head, envelopes)):
        assert "[" not in line and "{" not in line and "=>" not in line, line
        assert not re.search(r"\bseat \d", line), line
        assert not re.search(r"\b[a-z]+_[a-z_]+=", line), line  # no `draws_due=`, `next_roles=`


def test_values_are_in_the_games_units() -> None:
    head, envelopes = recorded("seven-and-a-half", 2, extra=False)
    text = text_of(head, envelopes)
    assert re.search(r"hits [^ ]+: \d*½", text)  # a half-point total as 3½
    assert "Score of hand 1: Juan +61 chips, Inès -26 chips, Carlo -24 chips, Sara -11 chips" in text
    assert "Carlo bust with 12½ at event 10" in text  # a marked reason rendered in the unit
    assert '[Result "* in progress: Juan 396 chips, Inès -471 chips, Carlo 465 chips, Sara -390 chips"]' in text


def test_gin_knocks_show_their_melds_and_smear_its_bids() -> None:
    head, envelopes = recorded("gin-rummy-3", 3, extra=False)
    text = text_of(head, envelopes)
    knock = next(line for line in text.split("\n") if " knocks, discarding " in line or " goes gin" in line)
    assert " · " in knock.split("  [", 1)[0]  # melds apart, not one row
    assert re.search(r"draws .. from the stock|takes .+ \(from the discard pile\)", text)
    head, envelopes = recorded("cutthroat-smear", 3, extra=False)
    text = text_of(head, envelopes)
    assert re.search(r"bids \d", text) and re.search(r"wins the bid at \d", text) and "  Trick 1\n" in text


def test_sorted_hands() -> None:
    def sorted_hand(kind: str, codes: list[str]) -> str:
        return words.sorted_hand(rules_for(kind).words, codes)

    assert sorted_hand("casino", ["TD", "AS", "2C", "KS", "QH", "??"]) == "A♠ K♠  Q♥  2♣  10♦  ??"
    assert sorted_hand("schnapsen", ["KH", "TH", "AH", "JH"]) == "A♥ 10♥ K♥ J♥"
    assert sorted_hand("gin-rummy-3", ["AC", "KC", "5C"]) == "K♣ 5♣ A♣"


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.stem)
def test_the_example_games_round_trip_through_the_text(path: Path) -> None:
    doc = orjson.loads(path.read_bytes())
    rules = rules_for(doc["game"])
    options = rules.options_for(doc["players"], doc.get("options") or {})
    envelopes = sealed(doc["game"], doc["players"], options, doc["events"])
    head = header_of(doc["game"], path.stem, doc["players"], options, envelopes)
    text = text_of({**head, "event": "Examples", "table": path.stem}, envelopes)
    again = importer.read_file(text.encode(), actor="key:abc")
    assert [(e["seq"], e["hand"], e["type"], e["data"], e["result"]) for e in again.envelopes] == [
        (e["seq"], e["hand"], e["type"], e["data"], e["result"]) for e in envelopes
    ]
    assert again.kind == doc["game"] and again.players == doc["players"] and again.options == options
    assert again.labels == {"event": "Examples", "table": path.stem}
    final = engine.fold(rules, engine.start(rules, doc["players"], options), envelopes)
    assert again.head.totals == seat_dict(rules.score(final.game).totals)  # the imported game scores the same
    exact = importer.from_text(text, actor="key:abc", recorded_at=WHEN)
    assert exact.envelopes == envelopes  # the same times and actor: the very chain


def test_labels_and_a_players_tag_read_back_and_seat_tags_serve_awkward_names() -> None:
    head, envelopes = recorded("schnapsen", 2, extra=False)
    text = text_of({**head, "event": "Club night", "round": "Final"}, envelopes)
    game = importer.read_file(text.encode(), actor="x")
    assert game.labels == {"event": "Club night", "round": "Final"} and game.players == ["Anna", "Ben"]
    assert "[Seat0 " not in text
    awkward = text_of({**head, "players": ["Anna, Jr.", "Ben"]}, envelopes)
    assert '[Seat0 "Anna, Jr."]' in awkward and "[Players " not in awkward
    assert importer.read_file(awkward.encode(), actor="x").players == ["Anna, Jr.", "Ben"]
    long_label = text.replace('[Event "Club night"]', f'[Event "{"x" * 81}"]')
    with pytest.raises(BadImportError, match=r"^line 1: event: a label is one line of at most 80 characters"):
        importer.read_file(long_label.encode(), actor="x")
    by_kind = text.replace('[Game "Schnapsen"]', '[Game "schnapsen"]').replace('[Kind "schnapsen"]\n', "")
    assert importer.read_file(by_kind.encode(), actor="x").kind == "schnapsen"


def test_names_that_are_not_plain_words_are_quoted_and_read_back() -> None:
    head, envelopes = recorded("cutthroat-smear", 4, extra=False)
    text = text_of(head, envelopes)
    assert '"Ava Marie": ' in text
    parsed = parse_text(text)
    assert [e for _, e in parsed.events] == [{"type": e["type"], **e["data"]} for e in envelopes]
    twins = {**head, "players": ["Ruby", "Ruby", "Liam"]}
    twin_text = "\n".join(write_text(twins, rules_for("cutthroat-smear"), envelopes))
    assert "[1. deal dealer=#" in twin_text and " #0: " in twin_text and " #1: " in twin_text
    assert ". Ruby: " not in twin_text  # a name twice: seat numbers in the events
    assert "Ruby (#0)" in twin_text and "Ruby (#1)" in twin_text  # and beside the name in the words
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
    number = next(i for i, line in enumerate(text.split("\n"), 1) if "  [3. " in line)
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
    unclosed = corrupt_line(text, number, ": play", ": play hands=[AS")
    with pytest.raises(BadImportError, match=rf"^line {number}: column \d+: missing"):
        importer.read_file(unclosed.encode(), actor="x")
    stranger = text.replace(". Anna: ", ". Zoe: ", 1)
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
    began = time.process_time()  # this process's CPU: a busy machine does not fail it, a range to 10**10 does
    with pytest.raises(BadImportError, match=message):
        importer.read_file(text.encode(), actor="x")
    assert time.process_time() - began < 1.0


def test_a_player_name_no_store_can_hold_is_refused_in_every_format() -> None:
    """PostgreSQL refuses a NUL in text: a name holding one is malformed, on SQLite too."""
    text = HEADER.replace('"Ben"', '"Be\\u0000n"') + f"1. {DEAL.replace('dealer=Ben', 'dealer=#1')}\n"
    with pytest.raises(BadImportError, match=r"^line 3: players\[1\]: the name holds a NUL character"):
        importer.read_file(text.encode(), actor="x")
    head, envelopes = recorded("schnapsen", 2, extra=False)
    lines = jsonl_of({**head, "players": ["Anna", "Be\x00n"]}, envelopes)
    with pytest.raises(BadImportError, match=r"^line 1: players\[1\]: the name holds a NUL character"):
        importer.read_file(lines, actor="x")
