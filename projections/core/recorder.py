"""The write side and the folded reads: store + rules + a bounded state cache.

An append is decided against the cached state of the game (O(1) per event,
no refold), sealed into hash-chained envelopes and written in one
transaction. The cache is only an optimisation: several processes may share
one database, so a stale entry shows up as a seq conflict from the store,
after which the game is reloaded and the batch decided again.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from events.codec import genesis_hash, utc_now
from events.envelope import Envelope, event_of
from events.errors import ImpossibleEventError, InvalidEventError, NotFoundError, StreamConflictError, TablebookError
from events.store import DuplicateRequest, GameRecord, Head, HeldHead, KeyRecord, SeedRow, Store, notify
from events.store.base import HeadBusyError
from projections.core import dealing, engine, snapshots
from projections.core.boards import Board, BoardDealer, TableLink, table_may
from projections.core.live import Live, StateCache, head_of, initial_state_of
from projections.core.registry import rules_for
from projections.core.rules import GameRules, seat_dict

__all__ = [
    "APPEND_DEADLINE",
    "MAX_BATCH",
    "CheckedAppend",
    "Live",
    "Recorder",
    "ReplicaRecorder",
    "StateCache",
    "head_of",
    "initial_state_of",
    "replay_events",
]

#: a batch holds at most this many events (the body is also capped at 1 MiB)
MAX_BATCH = 1000
#: snapshots one fold writes at most (the newest boundaries it passed): each costs an encode of the state
WRITES_PER_FOLD = 2000
#: seconds an append without `expected_seq` keeps trying for its turn at a busy game's head (then: 503)
APPEND_DEADLINE = 10.0

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class CheckedAppend:
    """An append of one event decided on this process's cached state and checked as it is written
    (`Recorder.append_checked`): the game, the request's events, the key's club, actor and row, and the head the
    request expects (None: any)."""

    game_id: str
    raw_events: Sequence[Any]
    club_id: int
    actor: str
    expected_seq: int | None
    key: KeyRecord


class Recorder:
    """Creates games, appends events, and serves folded states."""

    def __init__(
        self,
        store: Store,
        cache: StateCache | None = None,
        *,
        snapshots: bool = True,
        boards: BoardDealer | None = None,
    ) -> None:
        self.store = store
        self.cache = cache if cache is not None else StateCache()  # an empty cache is falsy (len 0)
        #: read and write the `snapshot` table (projections/core/snapshots.py); off, every fold starts at event 1
        self.snapshots = snapshots
        #: the duplicate boards of the tables of events (projections/core/boards.py)
        self.boards = boards if boards is not None else BoardDealer(store)

    # ------------------------------------------------------------------ games

    def create_game(
        self,
        *,
        club_id: int,
        kind: str,
        players: Sequence[str],
        options: Mapping[str, Any] | None,
        created_at: str | None = None,
        game_id: str | None = None,
        labels: Mapping[str, str | None] | None = None,
    ) -> GameRecord:
        """Register a new game stream with its options checked and defaults filled (and its event, round
        and table `labels`, in the same row).

        Raises:
            UnknownGameError: an unknown kind, a wrong player count, or a bad option.
        """
        rules = rules_for(kind)
        names = [str(p) for p in players]
        filled = rules.options_for(names, options)
        created = created_at or utc_now()
        state = engine.start(rules, names, filled)
        genesis = genesis_hash(kind, len(names), filled, created)
        game = self.store.create_game(
            club_id=club_id,
            kind=kind,
            players=names,
            options=filled,
            created_at=created,
            genesis_hash=genesis,
            totals=seat_dict(rules.score(state.game).totals),
            game_id=game_id,
            labels=labels,
        )
        self.cache.put(Live(game, rules, state, genesis))
        if dealing.is_server_dealt(filled):
            # the deck of the first hand (Gin's cut: hand 0), committed before anything else happens
            self.append(game.id, [], club_id=club_id, actor=dealing.SERVER_ACTOR, server_only=True)
            return self.store.get_game(game.id, club_id)  # its head is that deck_committed, seq 1
        return game

    def live(
        self, game_id: str, club_id: int | None = None, *, fresh: bool = False, game: GameRecord | None = None
    ) -> Live:
        """The game at its head in the database, now: the cached state, caught up if another process appended.

        The cache is never trusted alone: every call reads the game's row (its head seq), so what a
        reader may see and whether an append is valid are decided at the true head, in every process.
        `fresh` folds from the first event whatever the cache holds. `game`: that row, read by the caller
        in this request (with its key, `Registry.find_key_and_game`), so not read again, unless this process
        has cached a later head since (an append of this process went first: read again, rather than meet
        a conflict); a row of another game or club is not used.

        Raises:
            NotFoundError: no such game in that club.
        """
        given = game is not None and game.id == game_id and (club_id is None or game.club_id == club_id)
        if game is None or not given:
            game = self.store.get_game(game_id, club_id)
        entry = None if fresh else self.cache.get(game_id)
        if given and entry is not None and entry.state.seq > game.seq:
            game = self.store.get_game(game_id, club_id)
        if entry is not None and entry.state.seq == game.seq:
            return entry if entry.game == game else Live(game, entry.rules, entry.state, entry.head_hash)
        if entry is not None and entry.state.seq < game.seq:
            newer, head = self.store.read_for_fold(game_id, entry.state.seq, game.seq)
            if head is not None and all(env["type"] != "retract" for env in newer):  # read up to the head
                state = engine.fold(entry.rules, entry.state, newer)
                caught_up = Live(game, entry.rules, state, head)
                self.cache.put(caught_up)
                return caught_up
        return self._load(game)

    def _load(self, game: GameRecord) -> Live:
        """Fold a game up to the head its row names, from its newest snapshot, and cache it."""
        rules = rules_for(game.kind)
        start, envelopes, head = self._start(game, rules, game.seq, whole=False)
        state = self._fold(game, rules, start, envelopes)
        if head is not None:  # the hash of the event at the head, read with the events folded
            head_hash = head
        elif state.seq:  # the snapshot is at the head (or the rows end below it): the last event's hash
            head_hash = self.store.read_events(game.id, state.seq - 1, 1, upto=state.seq)[0]["hash"]
        else:
            head_hash = game.genesis_hash
        entry = Live(game, rules, state, head_hash)
        self.cache.drop(game.id)  # the cache may hold a head this process never saw committed
        self.cache.put(entry)
        return entry

    # ------------------------------------------------------------------ snapshots

    def _start(
        self, game: GameRecord, rules: GameRules[Any], upto: int, at_most: int | None = None, *, whole: bool = True
    ) -> tuple[Any, list[Envelope], str | None]:
        """Where a fold to `upto` starts: a state (a snapshot, or the initial state), the envelopes after it, and
        (unless `whole`) the hash of the event at `upto` (None: no event after the state is there).

        The newest snapshot at or below `at_most` (default `upto`), unless a retract after it restores an
        older state: then the newest at or below that retract's `to_seq`, and so on
        (`projections/core/snapshots.py`). `whole`: the envelopes as stored (a replay shows them); else
        only what a fold reads of them (`Store.read_for_fold`: about half the cost of a whole envelope's
        read and decode, which a load of a game's state spent on hashes, times and results it never read).
        """
        bound = upto if at_most is None else min(at_most, upto)
        head: str | None = None
        while True:
            start = self._snapshot(game, rules, bound)
            if whole:
                envelopes = self.store.read_events(game.id, start.seq, upto=upto)
            else:
                envelopes, head = self.store.read_for_fold(game.id, start.seq, upto)
            lowest = snapshots.lowest_target(envelopes, start.seq)
            if lowest is None:
                return start, envelopes, head
            bound = lowest

    def _snapshot(self, game: GameRecord, rules: GameRules[Any], at_most: int) -> Any:
        """The newest usable snapshot at or below `at_most`, or the initial state."""
        if self.snapshots and at_most > 0:
            version = snapshots.version_of(game.kind, rules)
            found = self.store.read_snapshot(game.id, version, at_most)
            if found is not None:
                try:
                    state = snapshots.decode(found[1], snapshots.Shelf(self.store, game.id, version, found[0]))
                except snapshots.SnapshotError:
                    state = None
                if isinstance(state, engine.Position) and state.seq == found[0]:
                    return state
        return engine.start(rules, list(game.players), game.options)

    def _fold(self, game: GameRecord, rules: GameRules[Any], start: Any, envelopes: Sequence[Envelope]) -> Any:
        """Fold `envelopes` from `start`, and store the snapshots passed on the way."""
        passed: list[tuple[int, Any]] | None = [] if self.snapshots else None
        state = snapshots.fold_from(rules, start, envelopes, passed)
        if passed:
            # every boundary passed (the newest WRITES_PER_FOLD): a snapshot no longer re-encodes its hand
            # history (projections/core/snapshots.py stores each hand once), so each costs O(one hand's state)
            self._keep(game, rules, passed[-WRITES_PER_FOLD:])
        return state

    def _keep(self, game: GameRecord, rules: GameRules[Any], passed: Sequence[tuple[int, Any]]) -> None:
        """Write snapshots (a cache: a failure to write one is only a slower read later)."""
        try:
            snapshots.write(self.store, game.id, snapshots.version_of(game.kind, rules), passed)
        except (snapshots.SnapshotError, SQLAlchemyError) as error:
            log.warning("snapshots of game %s not written: %s", game.id, error)

    def fold_to(self, game: GameRecord, rules: GameRules[Any], seq: int) -> Any:
        """The state after event `seq` (at most the head of `game`), folded from the nearest snapshot."""
        start, envelopes, _ = self._start(game, rules, seq, whole=False)
        return self._fold(game, rules, start, envelopes)

    def span(self, live: Live, at_most: int, upto: int) -> tuple[Any, list[Envelope]]:
        """What a walk from at most seq `at_most` to seq `upto` needs (a replay's, `projections/reading/replay.py`):
        a state at or before `at_most` (the newest snapshot there, or the initial state) and every envelope
        after it up to `upto`, in two reads. Earlier still when a retract among them restores a state
        before it, so that `engine.walk` finds every position it returns to."""
        start, envelopes, _ = self._start(live.game, live.rules, upto, at_most)
        return start, envelopes

    def forget(self, game_id: str) -> None:
        """Drop a game from the cache (after an erasure, say)."""
        self.cache.drop(game_id)

    # ------------------------------------------------------------------ appends

    def append(
        self,
        game_id: str,
        raw_events: Sequence[Any],
        *,
        club_id: int | None,
        actor: str,
        expected_seq: int | None = None,
        idempotency: tuple[str, str] | None = None,
        server_only: bool = False,
        game: GameRecord | None = None,
    ) -> list[Envelope]:
        """Decide and append a batch, all or nothing; returns the stored envelopes.

        In a server-dealt game the batch also holds the server's own events, each where it is due
        (`projections/core/dealing.py`): `deck_revealed` and the next `deck_committed` after the event that
        ends or voids a hand, a `seed` of Gin's recut; `server_only` appends those alone (a new game's
        first deck), and nothing when none is due. A table of an event's duplicate round deals its boards
        (`projections/core/boards.py`): each hand's deck is its board's, committed with the board's
        commitment and revealed by the event once every table has finished it, not by the table.

        Raises:
            InvalidEventError / ImpossibleEventError / IllegalEventError: with `index`,
                the position of the refused event in the batch.
            StreamConflictError: `expected_seq` is not the game's head.
            IdempotencyMismatchError: the key was used with another body.
            HeadBusyError: other appends kept the game busy for APPEND_DEADLINE seconds (nothing written).
        """
        if not raw_events and not server_only:
            raise InvalidEventError("a batch needs at least one event", field="events")
        if len(raw_events) > MAX_BATCH:
            raise InvalidEventError(f"a batch holds at most {MAX_BATCH} events, got {len(raw_events)}", field="events")
        if idempotency is not None:
            prior = self.store.find_request(game_id, idempotency[0])
            if prior is not None:
                self.live(game_id, club_id)  # a key never reveals another club's game
                return self._replay_request(game_id, prior, idempotency[1])
        deadline = time.monotonic() + APPEND_DEADLINE
        held: HeldHead | None = None
        with self.store.recorder.turn(game_id, APPEND_DEADLINE), contextlib.ExitStack() as hold:
            entry = self.live(game_id, club_id, game=game)
            link = self.boards.link(game_id) if dealing.is_server_dealt(entry.game.options) else None

            def again() -> Live:
                """After a lost race: the head held still (events/store/recorder.py `hold_head`: it waits for the
                append ahead to end), the game read again there. Raises HeadBusyError past the deadline."""
                nonlocal held
                hold.close()  # an earlier hold let go first (SQLite: another process got in before it)
                held = hold.enter_context(self.store.recorder.hold_head(game_id, deadline - time.monotonic()))
                return self.live(game_id, club_id)

            while True:
                if expected_seq is not None and expected_seq != entry.state.seq:
                    prior = self.store.find_request(game_id, idempotency[0]) if idempotency else None
                    if prior is not None and idempotency is not None:  # this request, landed meanwhile
                        return self._replay_request(game_id, prior, idempotency[1])
                    raise StreamConflictError(expected_seq, entry.state.seq)
                try:
                    state, envelopes, seeds = self._decide_batch(entry, raw_events, actor, link)
                except TablebookError:
                    moved = self.store.get_game(game_id).seq != entry.state.seq
                    if not moved:
                        raise
                    entry = again()  # refused on a head that another process has moved
                    continue
                if not envelopes:
                    return envelopes
                try:
                    self.store.append(
                        game_id,
                        envelopes,
                        base_seq=entry.state.seq,
                        head=head_of(entry.rules, state, envelopes[-1]["hash"]),
                        idempotency=idempotency,
                        secrets=seeds,
                        held=held,
                    )
                except StreamConflictError as conflict:
                    if expected_seq is not None and conflict.actual != expected_seq:
                        raise StreamConflictError(expected_seq, conflict.actual) from None
                    entry = again()  # without expected_seq, decided again on the new head until it lands
                    continue
                except DuplicateRequest as duplicate:
                    return self._replay_request(game_id, duplicate.prior, idempotency[1] if idempotency else "")
                notify.publish(self.store, game_id)  # committed: wake the game's live streams, here and elsewhere
                self.cache.put(Live(entry.game, entry.rules, state, envelopes[-1]["hash"]))
                if link is not None:
                    self._played(link, entry.rules, state)
                return envelopes

    def append_checked(self, checked: CheckedAppend) -> list[Envelope] | None:
        """`append` of one event decided on this process's cached state of the game, written by one statement that
        checks in the database that the game's head is still that state's and the key still `key` (the row this
        process read on an earlier request: `EventRecorder.append_checked`), with no read before it; None when that
        is not so, or not known here, or the event is refused, or the game is server-dealt: nothing was written,
        and `append`, called then, answers as it would have (a refusal always comes from there, in its order).

        The decision uses the cache only as `live` does when the game's row names the cached head: here the
        statement names it, and a head that moved meanwhile writes nothing. The key is the caller's to have
        checked against its row as `api.auth` does; its role is one that sees every card (a recorder's, an
        auditor's), and the game is its club's before anything is decided on it.
        """
        game_id, key = checked.game_id, checked.key
        try:
            with self.store.recorder.turn(game_id, 0.0):  # busy (another thread of this process): as before
                decided = self._decided_on_cache(checked)
                if decided is None:
                    return None
                entry, state, envelope, head = decided
                if not self.store.recorder.append_checked(
                    game_id, envelope, base_seq=entry.state.seq, head=head, key=key
                ):
                    return None
                return self._landed_checked(entry, state, envelope)
        except HeadBusyError:
            return None

    async def append_checked_in_turn(self, checked: CheckedAppend) -> list[Envelope] | None:
        """SQLite, on the event loop: `append_checked`, its event written in the transaction this turn of the loop
        shares with its other checked appends and answered after that transaction's commit
        (`events/store/turn_commit.py`: one commit, one fsync, for all of them). None as `append_checked`: nothing
        written, and `append` answers. An append to a game already in that transaction first waits for its
        commit, and is decided on the head it moved."""
        commits = self.store.recorder.turn_commit
        if commits is None:
            return None
        await commits.game_free(checked.game_id)
        decided = self._decided_on_cache(checked)
        if decided is None:
            return None
        entry, state, envelope, head = decided
        landed = partial(self._landed_checked, entry, state, envelope)  # at the commit, whoever still waits
        written = self.store.recorder.append_checked_in_turn(
            checked.game_id, envelope, base_seq=entry.state.seq, head=head, key=checked.key, landed=landed
        )
        if written is None or not await written:
            return None
        return [envelope]

    def _decided_on_cache(self, checked: CheckedAppend) -> tuple[Live, Any, Envelope, Head] | None:
        """`append_checked`'s decision of its one event on the cached state of the game: the entry it was decided on,
        the state after it, its envelope and the head it moves the game to; None when it is not decided here (not
        one event, not cached, another club's, server-dealt, another head expected, refused, more than one
        envelope)."""
        entry = self.cache.get(checked.game_id)
        if (
            len(checked.raw_events) != 1
            or entry is None
            or entry.game.club_id != checked.club_id
            or dealing.is_server_dealt(entry.game.options)
            or (checked.expected_seq is not None and checked.expected_seq != entry.state.seq)
        ):
            return None
        try:
            state, envelopes, seeds = self._decide_batch(entry, checked.raw_events, checked.actor)
        except Exception:  # a refusal, or any surprise: `append` decides again and answers
            return None
        if len(envelopes) != 1 or seeds:
            return None
        return entry, state, envelopes[0], head_of(entry.rules, state, envelopes[0]["hash"])

    def _landed_checked(self, entry: Live, state: Any, envelope: Envelope) -> list[Envelope]:
        """After a checked append's commit: the game's streams woken, its new state cached, its answer."""
        notify.publish(self.store, entry.game.id)
        self.cache.put(Live(entry.game, entry.rules, state, envelope["hash"]))
        return [envelope]

    def _played(self, link: TableLink, rules: GameRules[Any], state: engine.Position[Any]) -> None:
        """After an append to a table of a duplicate round: how far the table has played (its deck in play is the
        next board's: the boards before are finished), and the boards every table has finished revealed. A
        failure here loses nothing: the next append, or a read of the event, catches up."""
        finished = rules.is_terminal(state.game)
        done = state.deal.hand - 1 if state.deal is not None else -1
        try:
            self.boards.played(link, done, finished)
        except SQLAlchemyError as error:
            log.warning("the boards of event %s not revealed yet: %s", link.event_id, error)

    def _replay_request(self, game_id: str, prior: Any, body_hash: str) -> list[Envelope]:
        from events.errors import IdempotencyMismatchError

        if prior.body_hash != body_hash:
            raise IdempotencyMismatchError(
                "this Idempotency-Key was used for a different request body; use a new key for a new request"
            )
        return self.store.read_events(game_id, prior.first_seq - 1, prior.last_seq - prior.first_seq + 1)

    def _decide_batch(
        self, entry: Live, raw_events: Sequence[Any], actor: str, link: TableLink | None = None
    ) -> tuple[Any, list[Envelope], list[SeedRow]]:
        """The batch decided on `entry`: the state after it, its envelopes, the server seeds it commits (`link`:
        the game is a table of a duplicate round, whose hands deal its boards)."""
        rules, prev_hash = entry.rules, entry.head_hash
        # every position of the batch is kept for a retract within it; one before it is folded from the store
        replay = engine.Replay(rules, entry.state, earlier=lambda seq: self.fold_to(entry.game, rules, seq))
        envelopes: list[Envelope] = []
        recorded_at = utc_now()
        server = dealing.is_server_dealt(entry.game.options)
        seeds: list[SeedRow] = []
        made: dict[str, bytes] = {}

        def dealer(deal: dealing.DealState) -> list[str]:
            board = None if link is None else link.by_commitment(deal.commitment)
            if link is not None and board is not None:
                return self._board_deck(entry.game, link, board, deal)
            return self._deck(entry.game, deal, made)

        def append(decision: engine.Decision, by: str) -> None:
            nonlocal prev_hash
            state = replay.apply(decision.event)
            envelope = engine.sealed(state, decision, recorded_at=recorded_at, actor=by, prev_hash=prev_hash)
            envelopes.append(envelope)
            prev_hash = envelope["hash"]

        def server_event(event: dict[str, Any]) -> None:
            append(engine.decide(rules, replay.position, event, stored=True), dealing.SERVER_ACTOR)

        def follow_up() -> None:
            """The server's events now due: the reveal of a finished hand's deck, a deck for the next hand."""
            state = replay.position
            due = dealing.follow_up(rules, state.game, state.deal)
            of_board = (
                link is not None and due.reveal is not None and link.by_commitment(due.reveal.commitment) is not None
            )
            if due.reveal is not None and not of_board:  # a board is revealed by its event, not by the table
                secret = made.get(due.reveal.commitment) or self.store.seeds.server_seed(
                    entry.game.id, due.reveal.commitment
                )
                if secret is not None:  # None: an imported game's deck, whose secret stayed where it was dealt
                    server_event(dealing.revealed_event(due.reveal.hand, secret))
            board = None if link is None or due.commit is None else link.board_for(due.commit)
            if board is not None and due.commit is not None:
                server_event(dealing.committed_event(due.commit, board.commitment))
            elif due.commit is not None:
                secret = secrets.token_bytes(32)
                commitment = hashlib.sha256(secret).hexdigest()
                made[commitment] = secret
                seeds.append(SeedRow(commitment, due.commit, secret))
                server_event(dealing.committed_event(due.commit, commitment))

        dealt = dealing.batch_end(rules.kind, raw_events) if server else None
        if server:
            if dealt is not None and dealt < len(raw_events) - 1:
                raise InvalidEventError(
                    f"in a server-dealt game an event the server deals ends its batch: event {dealt} is a "
                    f"{raw_events[dealt]['type']}, so send the events after it in a batch of their own",
                    field="events",
                    index=dealt + 1,
                )
            follow_up()  # a deck due and not committed: a new game, or one whose first append was lost
        for index, raw in enumerate(raw_events):
            try:
                if link is not None:
                    table_may(rules, replay.position, raw)
                if server and index == dealt:
                    recut = 0
                    while dealing.cut_ties(rules, replay.position.game, replay.position.deal, raw, dealer):
                        if not recut:  # refused, if at all, before any recut: as with a deck that needs none
                            engine.dealable(rules, replay.position, raw, dealer)
                        recut += 1
                        append(
                            replay.decide({"type": "seed", "seed": dealing.RECUT.format(n=recut)}), dealing.SERVER_ACTOR
                        )
                decision = replay.decide(raw, dealer=dealer if server else None)
            except TablebookError as error:
                error.details["index"] = index
                raise
            append(decision, actor)
            if server:
                follow_up()
        return replay.position, envelopes, seeds

    def _board_deck(self, game: GameRecord, link: TableLink, board: Board, deal: dealing.DealState) -> list[str]:
        """The deck of a hand of a duplicate table: its board's (`projections/core/boards.py`), the same at every
        table of the round.

        Raises:
            ImpossibleEventError: the board set was imported (its secret stayed where it was made).
        """
        order = rules_for(game.kind).dealing_order
        try:
            return link.deck(board, deal, () if order is None else order.deck)
        except ValueError as exc:
            raise ImpossibleEventError(str(exc)) from None

    def _deck(self, game: GameRecord, deal: dealing.DealState, made: Mapping[str, bytes]) -> list[str]:
        """The shuffled deck of `deal` (`tablebook-shuffle-v1`), from its server seed: made in this batch, or stored.

        Raises:
            ImpossibleEventError: this server does not hold the seed (an imported game's hand in progress).
        """
        secret = made.get(deal.commitment) or self.store.seeds.server_seed(game.id, deal.commitment)
        if secret is None:
            raise ImpossibleEventError(
                f"the deck of hand {deal.hand} was committed by the server this game was imported from; this "
                "server cannot deal from it: void the hand (hand_voided) and the next one is dealt here"
            )
        return dealing.deck_of(rules_for(game.kind), secret, game.genesis_hash, deal)

    # ------------------------------------------------------------------ reads

    def state_at(self, game_id: str, seq: int | None, club_id: int | None = None) -> tuple[Live, Any]:
        """The game at its head and its state after event `seq` (the head when None).

        Raises:
            NotFoundError: no such game, or `seq` beyond its head.
        """
        entry = self.live(game_id, club_id)
        if seq is None or seq == entry.state.seq:
            return entry, entry.state
        if seq < 0 or seq > entry.state.seq:
            raise NotFoundError(f"seq {seq} is not in this game (its events are 1 to {entry.state.seq})")
        return entry, self.fold_to(entry.game, entry.rules, seq)

    def read(
        self, game_id: str, club_id: int | None = None, after: int = 0, limit: int | None = None
    ) -> tuple[Live, list[Envelope]]:
        """The game at its head and its envelopes after `after`, none beyond that head.

        What a reader may see is decided at the returned head; an event appended meanwhile is not in
        this answer (it comes with the next read), so it is never shown by a stale decision.

        Raises:
            NotFoundError: no such game in that club.
        """
        entry = self.live(game_id, club_id)
        return entry, self.store.read_events(game_id, after, limit, upto=entry.state.seq)


class ReplicaRecorder(Recorder):
    """A recorder over a replica (events.store.replicas): it reads snapshots there and never writes one."""

    def _keep(self, game: GameRecord, rules: GameRules[Any], passed: Sequence[tuple[int, Any]]) -> None:
        return None


def replay_events(envelopes: Sequence[Envelope]) -> list[dict[str, Any]]:
    """The client events of stored envelopes, for re-import or re-validation."""
    return [event_of(env) for env in envelopes]
