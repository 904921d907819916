#!/usr/bin/env python3
"""Check the server deals of an exported Tablebook record: `tablebook-shuffle-v1`, with nothing but Python.

This file is self-contained (the Python standard library only, 3.9 or later) so that a player can
check a record without installing Tablebook or trusting its code::

    python3 fairdeal.py game.json          # a json or jsonl export (GET /v1/games/{id}/export)
    python3 fairdeal.py game.json set.json # a table of a duplicate event, against the event's board set
    python3 fairdeal.py event.json         # an event's bulk export: its board set, then every table's record
    python3 fairdeal.py --vectors          # the test vectors of docs/server-deal.md

For every hand with a `deck_revealed` it checks that sha256(server_seed) is the hand's `commitment`,
recomputes the deck from the server seed, the game's genesis hash, the hand number and the hand's
`seed` events, and compares every card that the hand's events took from the deck (the deal, each
draw from the stock or talon, each hit, Gin's cut) with the deck's next card, in order. It names the
first hand and card that does not match. The rules it follows are those of `rules/server-deal.md`:

- the shuffle: HMAC-SHA256 keyed with the server seed over
  `"tablebook-shuffle-v1|" + G + "|" + str(h) + "|" + "|".join(seeds)` gives a key; the byte stream is
  HMAC-SHA256(key, i as 8 bytes big-endian) for i = 0, 1, ...; `draw(n)` reads 4 bytes big-endian,
  rejects x >= (2**32 // n) * n, returns x % n; Fisher-Yates from the last card down over the
  canonical deck (suits C D H S, ranks A 2 ... K, the game's ranks only); deck[0] is the top card;
- the dealing order of each game (the table of `server-deal.md`);
- a `retract` rewinds the deck with the state: the events after it take the same next cards again.

A hand dealt again is shown, not hidden: each hand says how many of its dealt cards a `retract` took
back (`cards_taken_back`, with the retracts' seqs) and whether it was voided (`voided_at`), and three
shapes that deal a hand from another shuffle of its committed deck are problems: a `seed` added after
cards of the deck were dealt (and taken back), a `retract` that takes back seeds of a deck that had
dealt cards, and a `retract` that abandons a deck that had dealt cards without its reveal, or reopens
a hand whose deck was already revealed.

Duplicate boards (`tablebook-boards-v1`, docs/tournaments.md). A table of an event's duplicate round deals
the event's boards: its hand's `deck_committed` names a board's commitment `c_b`, and the board is revealed
by the event's board set (`{algorithm, game, genesis, count, seeds, commitment, boards: [{number, hand,
commitment, seed}]}`), not by the table. The check: the set's commitment is sha256 of
`"tablebook-boards-v1|" + G + "|" + game + "|" + N + "|" + "|".join(c_1 ... c_N)`; each revealed board's
sha256(seed) is its `c_b`; and each of the table's hands committed with a `c_b` deals exactly the cards of
`tablebook-shuffle-v1` with the board's seed, the set's genesis `G`, the board's number for the hand, and the
set's seeds followed by the hand's own. Every table that checks out against the same set got the same deck
for each board.

Exit status: 0 when every revealed hand matches, 1 when one does not, 2 when the file cannot be read.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

ALGORITHM = "tablebook-shuffle-v1"
RANKS = "A23456789TJQK"
SUITS = "CDHS"
#: the ranks of each game's deck (the others use all 13)
GAME_RANKS = {"schnapsen": "ATJQK", "seven-and-a-half": "A234567JQK"}
#: the events that take cards from the deck, per game, and their card fields in dealing order
TAKES: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "schnapsen": {"deal": ("hands", "trump_card"), "draw": ("card",)},
    "casino": {"deal": ("hands", "table")},
    "gin-rummy-3": {"cut": ("cards",), "deal": ("hands", "upcard"), "draw": ("card",)},
    "seven-and-a-half": {"deal": ("cards",), "hit": ("card",)},
    "cutthroat-smear": {"deal": ("hands",)},
}


def canonical_deck(game: str) -> list[str]:
    """The game's unshuffled deck: suits C D H S, within a suit A 2 ... K, the game's ranks only."""
    ranks = GAME_RANKS.get(game, RANKS)
    return [r + s for s in SUITS for r in RANKS if r in ranks]


def _stream(key: bytes) -> Iterator[int]:
    counter = 0
    while True:
        yield from hmac.new(key, counter.to_bytes(8, "big"), hashlib.sha256).digest()
        counter += 1


def shuffle(server_seed: bytes, genesis: str, hand: int, seeds: Sequence[str], cards: Sequence[str]) -> list[str]:
    """`cards` shuffled by `tablebook-shuffle-v1`; `seeds` are the hand's `S:seed` strings in seq order."""
    message = (f"{ALGORITHM}|{genesis}|{hand}|" + "|".join(seeds)).encode("utf-8")
    key = hmac.new(server_seed, message, hashlib.sha256).digest()
    stream = _stream(key)

    def draw(n: int) -> int:
        limit = (2**32 // n) * n
        while True:
            x = int.from_bytes(bytes(next(stream) for _ in range(4)), "big")
            if x < limit:
                return x % n

    deck = list(cards)
    for i in range(len(deck) - 1, 0, -1):
        j = draw(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def commitment_of(server_seed: bytes) -> str:
    """The `commitment` of a server seed: its sha256, in hex."""
    return hashlib.sha256(server_seed).hexdigest()


def seed_string(data: Mapping[str, Any]) -> str:
    """A `seed` event's part of the shuffle's message: `S:seed`, S its seat or `-`."""
    seat = data.get("seat")
    return f"{'-' if seat is None else seat}:{data['seed']}"


def playing_order(seats: int, banker: int) -> list[int]:
    """Seven and a Half's dealing order: the banker's right first, counter-clockwise, the banker last."""
    return [(banker - k) % seats for k in range(1, seats)] + [banker]


# --------------------------------------------------------------------------- the cards an event names


def named_cards(game: str, seats: int, kind: str, data: Mapping[str, Any], banker: int | None) -> list[tuple[str, str]]:
    """`(where, card)` for each card a dealing event names, in the order they left the deck.

    `where` is the field the card is in (`hands[1][3]`, `upcard`...), for messages.
    """
    out: list[tuple[str, str]] = []
    if kind == "deal" and game in ("schnapsen", "casino", "cutthroat-smear"):
        for s, cards in enumerate(data.get("hands") or []):
            out += [(f"hands[{s}][{i}]", c) for i, c in enumerate(cards)]
        if game == "schnapsen" and "trump_card" in data:
            out.append(("trump_card", data["trump_card"]))
        if game == "casino" and "table" in data:
            out += [(f"table[{i}]", c) for i, c in enumerate(data["table"])]
    elif game == "gin-rummy-3" and kind == "cut":
        out += [(f"cards[{i}]", c) for i, c in enumerate(data.get("cards") or [])]
    elif game == "gin-rummy-3" and kind == "deal":
        hands = data.get("hands") or {}
        for key in sorted(hands, key=int):
            out += [(f"hands.{key}[{i}]", c) for i, c in enumerate(hands[key])]
        if "upcard" in data:
            out.append(("upcard", data["upcard"]))
    elif game == "seven-and-a-half" and kind == "deal":
        cards = data.get("cards") or {}
        order = playing_order(seats, banker if banker is not None else 0)
        out += [(f"cards.{s}", cards[str(s)]) for s in order if str(s) in cards]
    elif "card" in data:  # a draw from the stock or talon, a hit
        out.append(("card", data["card"]))
    return out


# --------------------------------------------------------------------------- the walk


@dataclass(frozen=True)
class Deck:
    """The deck of the hand being dealt, as the record stands at one event."""

    hand: int
    commitment: str
    seq: int
    seeds: tuple[str, ...] = ()
    taken: int = 0
    revealed: bool = False


@dataclass(frozen=True)
class Walk:
    """What the check keeps from event to event (restored by a `retract`, like the game's state)."""

    deck: Deck | None = None
    #: Schnapsen: the face-up trump card and the cards left in the talon
    trump: str | None = None
    talon: int = 0
    #: Seven and a Half: the banker of the hand in progress
    banker: int | None = None


@dataclass
class Claim:
    """Cards that one event says left the deck of a hand, from position `start` on."""

    seq: int
    kind: str
    hand: int
    commitment: str
    seeds: tuple[str, ...]
    start: int
    cards: list[tuple[str, str]]
    #: Schnapsen's last draw: the face-up trump card it must take (not a card of the deck)
    fixed: str | None = None


@dataclass
class Report:
    """The answer: each hand's commitment and outcome, and every problem found (the first one first)."""

    game: str = ""
    server_dealt: bool = False
    genesis: str = ""
    hands: dict[int, dict[str, Any]] = field(default_factory=dict)
    problems: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def problem(self, seq: int, hand: int | None, message: str, **details: Any) -> None:
        self.problems.append({"seq": seq, "hand": hand, "message": message, **details})
        if hand is not None and hand in self.hands:
            self.hands[hand]["verified"] = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "game": self.game,
            "server_dealt": self.server_dealt,
            "algorithm": ALGORITHM,
            "hands": [self.hands[h] for h in sorted(self.hands)],
            "first_problem": self.problems[0] if self.problems else None,
            "problems": self.problems,
        }


def _hand_doc(report: Report, deck: Deck) -> dict[str, Any]:
    doc = report.hands.get(deck.hand)
    if doc is None or doc["commitment"] != deck.commitment:
        doc = {
            "hand": deck.hand,
            "commitment": deck.commitment,
            "committed_at": deck.seq,
            "seeds": [],
            "revealed": False,
            "server_seed": None,
            "cards_checked": 0,
            "verified": None,
            "cards_taken_back": 0,
            "retracts": [],
            "voided_at": None,
            "abandoned_at": None,
        }
        report.hands[deck.hand] = doc
    return doc


#: the problems that name no card (a hand dealt again from another shuffle): every reader may see them
DEALT_AGAIN = ("redeal", "abandoned", "reopened")


def _retract_problem(
    report: Report, seq: int, before: Deck | None, after: Deck | None, opened: set[str], public: set[str]
) -> None:
    """What a `retract` at `seq` did to the deck `before` it (restored to `after`): cards taken back are
    counted; seeds taken back from a deck that had dealt, a dealt deck abandoned unrevealed, and a hand
    reopened after its deck was revealed are problems (`opened`: the decks that have dealt a card;
    `public`: the decks revealed so far)."""
    same = before is not None and after is not None and after.commitment == before.commitment
    if same and before is not None and after is not None and before.taken > after.taken:
        doc = _hand_doc(report, before)
        doc["cards_taken_back"] += before.taken - after.taken
        doc["retracts"].append(seq)
    if after is not None and not after.revealed and after.commitment in public:
        report.problem(
            seq,
            after.hand,
            f"seq {seq}: the retract reopens hand {after.hand} after its deck was revealed: the rest of the hand "
            "would be dealt from a public deck",
            problem="reopened",
        )
    if before is None or before.revealed or same:
        if (
            same
            and before is not None
            and after is not None
            and before.commitment in opened
            and after.seeds != before.seeds
        ):
            report.problem(
                seq,
                before.hand,
                f"seq {seq}: the retract takes back seeds of the deck of hand {before.hand}, which had dealt "
                "cards: the cards dealt after it come from another shuffle",
                problem="redeal",
            )
        return
    _hand_doc(report, before)["abandoned_at"] = seq
    if before.commitment in opened:
        report.problem(
            seq,
            before.hand,
            f"seq {seq}: the retract abandons the deck of hand {before.hand} (committed at seq {before.seq}), which "
            "had dealt cards, without revealing it",
            problem="abandoned",
        )


BOARDS_ALGORITHM = "tablebook-boards-v1"


def board_set_problems(board_set: Mapping[str, Any], game: str | None = None) -> list[str]:
    """What is wrong with an event's board set: its commitment over the boards' commitments, each revealed
    seed against its board's commitment (and the game, when given); [] when nothing is."""
    out = []
    boards = sorted(board_set.get("boards") or [], key=lambda b: int(b.get("number", 0)))
    genesis, kind = str(board_set.get("genesis", "")), str(board_set.get("game", ""))
    if board_set.get("algorithm") != BOARDS_ALGORITHM:
        out.append(f"unknown board set algorithm {board_set.get('algorithm')!r}")
    if game is not None and kind != game:
        out.append(f"the board set deals {kind!r}, the record is {game!r}")
    numbers = [int(b.get("number", 0)) for b in boards]
    if numbers != list(range(1, len(boards) + 1)) or len(boards) != board_set.get("count"):
        out.append("the board set's boards are not numbered 1 to its count")
    text = f"{BOARDS_ALGORITHM}|{genesis}|{kind}|{len(boards)}|" + "|".join(str(b.get("commitment")) for b in boards)
    if hashlib.sha256(text.encode("utf-8")).hexdigest() != board_set.get("commitment"):
        out.append("the board set's commitment is not sha256 of its boards' commitments")
    for board in boards:
        seed = board.get("seed")
        if seed is None:
            continue
        try:
            raw = bytes.fromhex(str(seed))
        except ValueError:
            raw = b""
        if len(raw) != 32 or commitment_of(raw) != board.get("commitment"):
            out.append(f"board {board.get('number')}: sha256 of its revealed seed is not its commitment")
    return out


def verify_events(
    header: Mapping[str, Any], envelopes: Sequence[Mapping[str, Any]], board_set: Mapping[str, Any] | None = None
) -> Report:
    """Check the server deals of a record (its header and envelopes, in seq order), its boards against
    `board_set` (a table of a duplicate event: the header's `board_set` when not given); never raises for bad
    data."""
    report = Report(game=str(header.get("game", "")))
    if board_set is None and isinstance(header.get("board_set"), Mapping):
        board_set = header["board_set"]
    options = header.get("options") or {}
    report.server_dealt = isinstance(options, Mapping) and options.get("dealing") == "server"
    if not report.server_dealt:
        return report
    game = report.game
    seats = header.get("seats") or len(header.get("players") or [])
    takes = TAKES.get(game)
    if takes is None:
        report.problem(0, None, f"unknown game {game!r}")
        return report
    report.genesis = str(envelopes[0].get("prev_hash", "")) if envelopes else ""
    targets = {env["data"]["to_seq"] for env in envelopes if env.get("type") == "retract"}
    kept: dict[int, Walk] = {0: Walk()}
    walk = Walk()
    claims: list[Claim] = []
    revealed: dict[tuple[int, str], bytes] = {}
    #: the commitments of the decks that have dealt a card, in the order of the record (a retract does not undo it)
    opened: set[str] = set()
    for env in envelopes:
        seq, kind, data = env.get("seq", 0), env.get("type"), env.get("data") or {}
        deck = walk.deck
        if kind == "retract":
            walk = kept.get(data.get("to_seq", 0), Walk())
            _retract_problem(report, seq, deck, walk.deck, opened, {c for _, c in revealed})
        elif kind == "deck_committed":
            if data.get("algorithm") != ALGORITHM:
                report.problem(seq, data.get("hand"), f"seq {seq}: unknown algorithm {data.get('algorithm')!r}")
            committed = Deck(int(data.get("hand", -1)), str(data.get("commitment", "")), seq)
            walk = replace(walk, deck=committed)
            _hand_doc(report, committed)
        elif kind == "seed":
            if deck is None or deck.revealed:
                report.problem(seq, None, f"seq {seq}: a seed with no deck committed")
            elif deck.taken:
                report.problem(seq, deck.hand, f"seq {seq}: a seed after the first card of hand {deck.hand} was dealt")
            else:
                if deck.commitment in opened:
                    report.problem(
                        seq,
                        deck.hand,
                        f"seq {seq}: a seed for the deck of hand {deck.hand} after cards of it were dealt and taken "
                        "back: the hand is dealt again from another shuffle",
                        problem="redeal",
                    )
                seeded = replace(deck, seeds=(*deck.seeds, seed_string(data)))
                walk = replace(walk, deck=seeded)
                _hand_doc(report, seeded)["seeds"] = list(seeded.seeds)
        elif kind == "deck_revealed":
            hand = data.get("hand")
            if deck is None or deck.hand != hand:
                report.problem(seq, hand, f"seq {seq}: hand {hand} is revealed, but its deck is not the one committed")
                continue
            try:
                seed = bytes.fromhex(str(data.get("server_seed", "")))
            except ValueError:
                seed = b""
            doc = _hand_doc(report, deck)
            doc.update(revealed=True, server_seed=data.get("server_seed"), revealed_at=seq)
            if len(seed) != 32 or commitment_of(seed) != deck.commitment:
                report.problem(
                    seq,
                    deck.hand,
                    f"hand {deck.hand}: sha256 of the revealed server seed (seq {seq}) is not the commitment "
                    f"of seq {deck.seq}",
                    problem="commitment",
                )
            else:
                revealed[(deck.hand, deck.commitment)] = seed
                if doc["verified"] is None:
                    doc["verified"] = True
            walk = replace(walk, deck=replace(deck, revealed=True))
        elif kind in takes and not (game == "gin-rummy-3" and kind == "draw" and data.get("source") != "stock"):
            walk = _take(report, claims, walk, env, game, seats)
            if walk.deck is not None and walk.deck.taken:
                opened.add(walk.deck.commitment)
        elif kind == "hand_voided" and deck is not None:
            _hand_doc(report, deck)["voided_at"] = seq
        else:
            walk = _follow(walk, env, game)
        if seq in targets:
            kept[seq] = walk
    boards: dict[str, Mapping[str, Any]] = {}
    if board_set is not None:
        for message in board_set_problems(board_set, game):
            report.problem(0, None, message, problem="board_set")
        boards = {str(b.get("commitment")): b for b in board_set.get("boards") or []}
        for doc in report.hands.values():
            board = boards.get(doc["commitment"])
            if board is not None:
                doc["board"] = board.get("number")
                if board.get("seed") is not None and not doc["revealed"]:
                    doc.update(revealed=True, server_seed=board["seed"])
                    if doc["verified"] is None:
                        doc["verified"] = True
    for claim in claims:
        secret = revealed.get((claim.hand, claim.commitment))
        genesis, number, seeds = report.genesis, claim.hand, claim.seeds
        board = boards.get(claim.commitment)
        if secret is None and board is not None and board.get("seed") is not None and board_set is not None:
            secret = bytes.fromhex(str(board["seed"]))
            genesis, number = str(board_set.get("genesis", "")), int(board.get("number", 0))
            seeds = (*[str(s) for s in board_set.get("seeds") or []], *claim.seeds)
        if secret is None:
            continue
        deck_cards = shuffle(secret, genesis, number, seeds, canonical_deck(game))
        doc = report.hands[claim.hand]
        if claim.fixed is not None:
            found = claim.cards[0][1] if claim.cards else None
            if found != claim.fixed:
                report.problem(
                    claim.seq,
                    claim.hand,
                    f"hand {claim.hand}, seq {claim.seq}: the last draw of the talon takes the face-up "
                    f"{claim.fixed}, but the record names {found}",
                    problem="card",
                    field="card",
                    expected=claim.fixed,
                    found=found,
                )
            else:
                doc["cards_checked"] += 1
            continue
        for offset, (where, card) in enumerate(claim.cards):
            index = claim.start + offset
            expected = deck_cards[index] if index < len(deck_cards) else None
            if card != expected:
                report.problem(
                    claim.seq,
                    claim.hand,
                    f"hand {claim.hand}, seq {claim.seq} ({claim.kind} {where}): card {index + 1} of the deck is "
                    f"{expected}, but the record names {card}",
                    problem="card",
                    card_index=index,
                    field=where,
                    expected=expected,
                    found=card,
                )
                break
            doc["cards_checked"] += 1
    report.problems.sort(key=lambda p: (p["seq"], p.get("card_index") or 0))
    return report


def _take(report: Report, claims: list[Claim], walk: Walk, env: Mapping[str, Any], game: str, seats: int) -> Walk:
    """A dealing event: its cards are the deck's next ones (checked once the hand is revealed)."""
    seq, kind, data = env.get("seq", 0), str(env.get("type")), env.get("data") or {}
    deck = walk.deck
    cards = named_cards(game, seats, kind, data, walk.banker)
    if game == "schnapsen" and kind == "draw" and walk.talon == 1 and deck is not None:
        # the draw that empties the talon takes the face-up trump card, not a card of the deck
        claims.append(Claim(seq, kind, deck.hand, deck.commitment, deck.seeds, deck.taken, cards, walk.trump or "?"))
        return replace(walk, talon=0, trump=None)
    if deck is None or deck.revealed:
        report.problem(seq, env.get("hand"), f"seq {seq}: a {kind} takes cards, but no deck is committed for it")
        return walk
    if env.get("hand") != deck.hand:
        report.problem(
            seq, deck.hand, f"seq {seq}: a {kind} of hand {env.get('hand')} from the deck of hand {deck.hand}"
        )
    claims.append(Claim(seq, kind, deck.hand, deck.commitment, deck.seeds, deck.taken, cards))
    after = replace(walk, deck=replace(deck, taken=deck.taken + len(cards)))
    if game == "schnapsen" and kind == "deal":
        after = replace(after, trump=data.get("trump_card"), talon=10)
    elif game == "schnapsen" and kind == "draw":
        after = replace(after, talon=walk.talon - 1)
    return after


def _follow(walk: Walk, env: Mapping[str, Any], game: str) -> Walk:
    """The game facts the dealing order depends on: Schnapsen's face-up trump, Seven and a Half's banker."""
    kind, result = env.get("type"), env.get("result") or {}
    if game == "schnapsen" and kind == "exchange_trump" and walk.trump:
        return replace(walk, trump="J" + walk.trump[1])
    if game == "seven-and-a-half" and kind == "bet" and "banker" in result:
        return replace(walk, banker=result["banker"])
    return walk


# --------------------------------------------------------------------------- files


def read_record(body: bytes) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and envelopes of a json export (`{..., "events": [...]}`) or a jsonl one.

    Raises:
        ValueError: neither.
    """
    text = body.decode("utf-8")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        doc = None
    if isinstance(doc, dict) and isinstance(doc.get("events"), list):
        return doc, list(doc["events"])
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    if not lines or not isinstance(lines[0], dict) or "game" not in lines[0]:
        raise ValueError("not a Tablebook json or jsonl export")
    return lines[0], [env for env in lines[1:] if isinstance(env, dict)]


EVENT_FORMAT = "tablebook-event-v1"


def verify_event(doc: Mapping[str, Any]) -> dict[str, Report]:
    """Each table's record of an event's bulk export (`format: tablebook-event-v1`) checked against the
    event's board set: game id -> report.

    Raises:
        ValueError: not an event export.
    """
    if not isinstance(doc, Mapping) or doc.get("format") != EVENT_FORMAT or not isinstance(doc.get("games"), list):
        raise ValueError("not a Tablebook event export")
    board_set = doc.get("board_set")
    if board_set is not None and not isinstance(board_set, Mapping):
        raise ValueError("the event's board_set is not an object")
    out = {}
    for game in doc["games"]:
        if not isinstance(game, Mapping):
            raise ValueError("each of the event's games must be a json export")
        try:
            out[str(game.get("id"))] = verify_events(game, list(game.get("events") or []), board_set)
        except (KeyError, TypeError, AttributeError, IndexError) as exc:
            raise ValueError(f"not a well-formed Tablebook record: {exc!r}") from None
    return out


def verify_file(body: bytes, board_set: Mapping[str, Any] | None = None) -> Report:
    """`verify_events` of an exported file (against an event's `board_set`, when given).

    Raises:
        ValueError: not an export.
    """
    header, envelopes = read_record(body)
    try:
        return verify_events(header, envelopes, board_set)
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        raise ValueError(f"not a well-formed Tablebook record: {exc!r}") from None


VECTORS: tuple[tuple[str, str, int, tuple[str, ...], str, str], ...] = (
    (
        bytes(range(32)).hex(),
        "ab" * 32,
        1,
        ("-:hello", "2:table four"),
        "casino",
        "AH 2D 4H 7H JS JC 9D 2C 8H 3H JH TD QC 3C 3S 5C QS 9S TS 3D 8D 9H AS 2H 5H 4S AC KD 6C AD 2S 4D 6S KC TC "
        "TH 5S 7C 8S 7S KH 6H 4C QD JD QH 7D 6D 5D 8C 9C KS",
    ),
    (
        bytes(range(32)).hex(),
        "ab" * 32,
        3,
        (),
        "schnapsen",
        "KH JS JC AD KS KD TS AS QS TC TD AH KC TH QH JD QC QD AC JH",
    ),
    (
        bytes(32).hex(),
        "00" * 32,
        1,
        ("0:x",),
        "seven-and-a-half",
        "QD 6C 6S JH QH 5S AC 5D 6H 7C 6D 5C 7S 2D 2S AS 4C QS 5H 3C 2C JD 4S JS 3D 3H QC KD AD 3S KS 7H KH AH 2H 4D "
        "KC 7D 4H JC",
    ),
)


def check_vectors() -> list[str]:
    """The test vectors of `rules/server-deal.md`: a line per vector, `ok` or what differs."""
    out = []
    for number, (seed, genesis, hand, seeds, game, expected) in enumerate(VECTORS, start=1):
        got = " ".join(shuffle(bytes.fromhex(seed), genesis, hand, seeds, canonical_deck(game)))
        out.append(f"vector {number}: {'ok' if got == expected else 'DIFFERS: ' + got}")
    return out


def render(report: Report) -> str:
    """The report as lines of text."""
    if not report.server_dealt:
        return f"{report.game}: dealt at the table (option dealing is not 'server'): no server deal to check"
    lines = []
    for h in sorted(report.hands):
        doc = report.hands[h]
        mark = "verified" if doc["verified"] else ("NOT VERIFIED" if doc["verified"] is False else "not revealed yet")
        lines.append(f"hand {h}: commitment {doc['commitment'][:16]}... {mark} ({doc['cards_checked']} cards checked)")
    if report.problems:
        first = report.problems[0]
        lines.append(f"FIRST PROBLEM: {first['message']}")
    else:
        lines.append("every revealed hand matches its commitment and its deck")
    return "\n".join(lines)


def main(argv: Iterable[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--vectors"]:
        lines = check_vectors()
        print("\n".join(lines))
        return 0 if all(line.endswith("ok") for line in lines) else 1
    if len(args) not in (1, 2):
        print(
            "usage: fairdeal.py EXPORT.json|EXPORT.jsonl [BOARD_SET.json]  (or EVENT.json, or --vectors)",
            file=sys.stderr,
        )
        return 2
    try:
        with open(args[0], "rb") as handle:
            body = handle.read()
        board_set = None
        if len(args) == 2:
            with open(args[1], "rb") as handle:
                board_set = json.loads(handle.read())
            board_set = board_set.get("board_set", board_set)
        try:
            whole = json.loads(body)
        except ValueError:
            whole = None  # a jsonl export
        if isinstance(whole, dict) and whole.get("format") == EVENT_FORMAT:
            reports = verify_event(whole)
            for game_id, report in reports.items():
                print(f"table game {game_id}:")
                print(render(report))
            return 0 if reports and all(r.ok for r in reports.values()) else 1
        report = verify_file(body, board_set)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        print(f"cannot read {args[0]}: {exc}", file=sys.stderr)
        return 2
    print(render(report))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
