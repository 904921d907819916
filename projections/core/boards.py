"""Duplicate boards (docs/tournaments.md): one committed set of decks that every table of an event deals.

An event that plays duplicate deals its boards once. Its board set has a secret `K` (32 bytes from
`secrets`, kept by the store like a server seed), a public genesis `G` (64 hex) and `N` boards:

- board `b`'s server seed is `s_b = HMAC-SHA256(K, "tablebook-boards-v1|" + G + "|" + str(b))`;
- board `b`'s commitment is `c_b = sha256(s_b)`, in hex;
- the set's commitment is `C = sha256("tablebook-boards-v1|" + G + "|" + game + "|" + str(N) + "|" +
  "|".join(c_1 ... c_N))`, in hex: published with every `c_b` before any board is dealt, like Big Deal's
  checksum, so that no board can be changed afterwards, and each one can be revealed on its own;
- board `b`'s deck is `tablebook-shuffle-v1` (`rules/server-deal.md`) with `s_b` as the server seed, `G` as
  the genesis, `b` as the hand, and as seeds the set's seeds (added by anyone after `C`, before the first
  board is dealt) followed by the hand's own `seed` events at the table (only the server's recuts: a table
  adds no seed of its own, so that every table deals the same deck).

A table of a duplicate round is an ordinary server-dealt game: the server commits each hand's deck with a
`deck_committed` naming `c_b` of the board that hand plays, and deals from that board's deck, so every
table gets the same cards in the same seats. The table does not reveal `s_b` when its hand ends: the set
reveals a board when every table of its round has finished it (`projections/tournaments/`), and then
`projections/fairness/fairdeal.py`, given the table's record and the set's document, checks each dealt
card against the board's deck with nothing but the Python standard library.

Pure, but for `BoardDealer`, which the recorder asks (through the store's `tournament_table`, `board_set`
and `board` rows, `events/store/tournaments.py`) whether a game deals boards, and which.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from cachetools import LRUCache

from events.errors import ImpossibleEventError, InvalidEventError
from events.store import Store
from events.store import tournaments as stored
from projections.core import engine, shuffle
from projections.core.dealing import DealState
from projections.core.rules import GameRules

#: the construction's name, in every message it hashes
BOARDS_ALGORITHM = "tablebook-boards-v1"


def set_genesis(event_id: str, kind: str, count: int, created_at: str) -> str:
    """The set's public genesis `G`: sha256 of `"tablebook-boards-v1|" + event + "|" + game + "|" + N + "|" +
    created_at`, in hex (it names the set in every deck's shuffle, so no two sets deal alike)."""
    text = f"{BOARDS_ALGORITHM}|{event_id}|{kind}|{count}|{created_at}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def board_seed(secret: bytes, genesis: str, number: int) -> bytes:
    """Board `number`'s server seed `s_b`, from the set's secret."""
    return hmac.new(secret, f"{BOARDS_ALGORITHM}|{genesis}|{number}".encode(), hashlib.sha256).digest()


def set_commitment(genesis: str, kind: str, commitments: Sequence[str]) -> str:
    """The set's commitment `C` over the board commitments `c_1 ... c_N`, in order."""
    text = f"{BOARDS_ALGORITHM}|{genesis}|{kind}|{len(commitments)}|" + "|".join(commitments)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def board_deck(seed: bytes, genesis: str, number: int, seeds: Sequence[str], cards: Sequence[str]) -> list[str]:
    """Board `number`'s deck (the top card first): `tablebook-shuffle-v1` of the game's unshuffled `cards` with
    `seed` as the server seed, the set's genesis and the board's number; `seeds` the set's then the hand's."""
    return shuffle.shuffle(seed, genesis, number, seeds, cards)


@dataclass(frozen=True, slots=True)
class Board:
    """One board of a set, as a table deals it: its number, the table hand that plays it, its commitment."""

    number: int
    hand: int
    commitment: str


@dataclass(frozen=True, slots=True)
class TableLink:
    """A table game of a duplicate round: which board each of its hands deals (the write side's view: it
    holds the set's secret, which nothing but the dealer and the reveal read)."""

    event_id: str
    round: int
    table: int
    genesis: str
    #: the set's seeds as the shuffle's `S:seed` strings (final once its first board was dealt)
    seeds: tuple[str, ...]
    #: table hand -> board
    boards: Mapping[int, Board]
    #: the set's secret; None for an imported set (it deals nothing here)
    secret: bytes | None

    def board_for(self, hand: int) -> Board | None:
        """The board the table's hand `hand` plays (None: past the round's boards, an ordinary deck)."""
        return self.boards.get(hand)

    def by_commitment(self, commitment: str) -> Board | None:
        """The board committed with `commitment`, if it is one of this table's."""
        for board in self.boards.values():
            if board.commitment == commitment:
                return board
        return None

    def deck(self, board: Board, deal: DealState, cards: Sequence[str]) -> list[str]:
        """The board's deck as the table deals it: the set's seeds, then the hand's own (the server's recuts).

        Raises:
            ValueError: an imported set, whose secret stayed where it was dealt.
        """
        if self.secret is None:
            raise ValueError("this board set was imported: its secret stayed with the server that dealt it")
        seed = board_seed(self.secret, self.genesis, board.number)
        return board_deck(seed, self.genesis, board.number, (*self.seeds, *deal.seeds), cards)

    def as_board_deal(self, board: Board, deal: DealState) -> DealState:
        """`deal` as the shuffle of the board reads it (the board's number for the hand, the set's seeds first)."""
        return replace(deal, hand=board.number, seeds=(*self.seeds, *deal.seeds))


def link_of(row: Mapping[str, Any]) -> TableLink:
    """A `TableLink` from the store's row (`events/store/tournaments.table_link`)."""
    boards = {int(b["hand"]): Board(int(b["number"]), int(b["hand"]), str(b["commitment"])) for b in row["boards"]}
    secret = row.get("secret")
    return TableLink(
        event_id=str(row["event_id"]),
        round=int(row["round"]),
        table=int(row["table"]),
        genesis=str(row["genesis"]),
        seeds=tuple(str(s) for s in row["seeds"]),  # stored as the shuffle reads them (`-:text`)
        boards=boards,
        secret=bytes.fromhex(secret) if secret else None,
    )


class BoardDealer:
    """What the recorder asks of duplicate boards: whether a game is a table of a duplicate round (cached: a
    table's link is written before its game exists and never changes), and, after each append to one, how far
    the table has played, revealing the boards every table of the round has finished."""

    def __init__(self, store: Store, capacity: int = 4096) -> None:
        self.store = store
        self._links: LRUCache[str, TableLink | None] = LRUCache(maxsize=capacity)
        self._lock = threading.Lock()

    def link(self, game_id: str) -> TableLink | None:
        """The game's table link, or None for a game of no duplicate round."""
        with self._lock:
            if game_id in self._links:
                return self._links[game_id]
        row = stored.table_link(self.store.db, game_id)
        link = None if row is None else link_of(row)
        with self._lock:
            self._links[game_id] = link
        return link

    def forget(self, game_id: str) -> None:
        with self._lock:
            self._links.pop(game_id, None)

    def played(self, link: TableLink, done_through: int, finished: bool) -> list[int]:
        """After an append: the table has finished its hands up to `done_through` (every board when `finished`);
        the boards of its round that every table has now finished are revealed. The numbers revealed."""
        if not stored.table_played(self.store.db, link.event_id, link.round, link.table, done_through, finished):
            return []
        return reveal(self.store, link.event_id, link.genesis, stored.boards_ready(self.store.db, link.event_id))


def reveal(store: Store, event_id: str, genesis: str, numbers: Sequence[int]) -> list[int]:
    """Reveal boards `numbers` of the event's set (their seeds, from the set's secret): the numbers revealed now."""
    if not numbers:
        return []
    secret = stored.set_secret(store.db, event_id)
    if secret is None:
        return []
    seeds = {n: board_seed(bytes.fromhex(secret), genesis, n).hex() for n in numbers}
    return stored.reveal_boards(store.db, event_id, seeds)


def table_may(rules: GameRules[Any], position: engine.Position[Any], raw: Any) -> None:
    """What a table of a duplicate round refuses besides a server-dealt game's rules: a `seed` of its own (its
    decks are the event's boards, whose seeds the event takes before the first board is dealt), and a
    `retract` once its game has ended (its boards' results are in the event's travellers).

    Raises:
        InvalidEventError: a seed.
        ImpossibleEventError: a retract after the game's end.
    """
    kind = raw.get("type") if isinstance(raw, Mapping) else None
    if kind == "seed":
        raise InvalidEventError(
            "this table deals the event's duplicate boards: a seed goes to the event's board set "
            "(POST /v1/events/{id}/seeds) before its first board is dealt, so that every table deals the same deck",
            field="type",
        )
    if kind == "retract" and rules.is_terminal(position.game):
        raise ImpossibleEventError(
            "this table's game is over and its boards' results are in the event's travellers: a retract would "
            "change a board the other tables have compared with",
            field="to_seq",
        )
