"""The application service: every use case of the API and of the CLI, written once.

A route is its dependencies, one call of `Tablebook`, and the response; a CLI
command is its options, calls of the same `Tablebook`, and the printing. So
there is one export renderer, one single-file import, one bulk import, one
visibility decision per read, one demo recorder (issue 16).

Why here, and one module: the service sits on `projections.core.recorder.Recorder`
(the write side and folded reads) and the store, and decides visibility with
`projections/reading/visibility.py`; nothing in it knows HTTP or the terminal, and
`projections/` must not import `api/` (DESIGN.md), so the caller passes a
`Reader` (an `api.auth.Principal`, or the CLI's `Operator`, which sees
everything in every club). It is one module because each use case is a few
lines over functions that already live in their own modules (`audit`,
`verify`, `replay`, `histories.*`, `readmodel`); a package would only spread
those few lines out.

Every read that decides what a reader may see does so at the game's head in
the database (`Recorder.live` / `Recorder.read`), never at a cached head
alone. Every method is blocking (database and folds): the API calls them
from plain `def` routes, which FastAPI runs in its threadpool, never on the
event loop.
"""

from __future__ import annotations

import base64
import random
import secrets
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from api.service import profiles as rule_profiles
from api.service import rescore
from events.codec import canonical, sha256_hex
from events.envelope import Envelope
from events.errors import (
    ForbiddenError,
    IllegalEventError,
    ImpossibleEventError,
    InvalidEventError,
    NotFoundError,
    TablebookError,
)
from events.schema import unstorable
from events.store import GameRecord, PlayerRecord, Store, shares
from events.store.notify import Subscription, notifier_for
from projections.core import dealing, engine, phrases
from projections.core.recorder import Recorder
from projections.core.registry import rules_for
from projections.core.rules import GameRules, ScoreSheet
from projections.core.simulate import demo_playout, next_options
from projections.fairness import fairdeal
from projections.fairness import report as deal_report
from projections.histories import export, importer
from projections.histories.erasure import Erasure, erase_player
from projections.reading.audit import audit_game, compare_claim
from projections.reading.replay import replay_hand
from projections.reading.verify import verify_game
from projections.reading.visibility import (
    first_hidden_hand,
    live_hand,
    shown_envelopes,
    sight_of,
    sight_over,
    viewpoint_for,
)
from projections.readmodels import standings as player_pages
from projections.readmodels.hand_facts import HandFacts
from projections.readmodels.ratings import RatingsModel

#: event types an auditor may append: the common events the engine handles itself (retract, note,
#: score_claimed), which correct or annotate the record and change no card
CORRECTIONS = engine.ENGINE_EVENTS
#: events a demo game has at most before its session is closed, and the events of one append
DEMO_EVENTS = 1500
DEMO_BATCH = 200


class Reader(Protocol):
    """Who is asking: `api.auth.Principal` for the API, `Operator` for the CLI."""

    @property
    def club_id(self) -> int | None: ...

    @property
    def club(self) -> str | None: ...

    @property
    def role(self) -> str: ...

    @property
    def actor(self) -> str: ...

    @property
    def is_share(self) -> bool: ...

    @property
    def sees_everything(self) -> bool: ...

    def require(self, *roles: str) -> None: ...


@dataclass(frozen=True, slots=True)
class Operator:
    """The CLI's reader: whoever holds the database sees everything, in one club or (None) in every club."""

    club_id: int | None = None
    club: str | None = None
    actor: str = "cli"
    role: str = "operator"

    @property
    def is_share(self) -> bool:
        return False

    @property
    def sees_everything(self) -> bool:
        return True

    def require(self, *roles: str) -> None:
        """The operator may do anything a key may."""


#: the operator of every club
OPERATOR = Operator()


# --------------------------------------------------------------------------- documents


def game_public(game: GameRecord) -> dict[str, Any]:
    """A game as the API shows it (`GET /v1/games/{id}`, and each game of a page)."""
    return {
        "id": game.id,
        "game": game.kind,
        "players": list(game.players),
        "options": game.options,
        "status": game.status,
        "seq": game.seq,
        "hand": game.hand,
        "created_at": game.created_at,
        "updated_at": game.updated_at,
        "totals": game.totals,
        "winner": game.winner,
        "event": game.event,
        "round": game.round,
        "table": game.table,
        "copy_of": game.copy_of,
    }


def encode_cursor(game: GameRecord) -> str:
    """The cursor of a page of games that ends with `game` (newest first by `(created_at, id)`)."""
    return base64.urlsafe_b64encode(f"{game.created_at}|{game.id}".encode()).decode()


def decode_cursor(cursor: str) -> tuple[str, str]:
    """The (created_at, id) a cursor names; one that decodes to text no store holds (a NUL) is refused too.

    Raises:
        InvalidEventError: not a cursor this server gave out.
    """
    try:
        created, _, gid = base64.urlsafe_b64decode(cursor.encode()).decode().partition("|")
    except (ValueError, UnicodeDecodeError):
        raise InvalidEventError("cursor: not a cursor this server gave out", field="cursor") from None
    if not created or not gid or unstorable(created) or unstorable(gid):
        raise InvalidEventError("cursor: not a cursor this server gave out", field="cursor")
    return created, gid


@dataclass(frozen=True, slots=True)
class Scored:
    """A game's score at its head: the game, its rules, the sheet (named: its `to_dict()` renders every
    reason with the game's players, `ScoreSheet.named`)."""

    game: GameRecord
    rules: GameRules[Any]
    sheet: ScoreSheet

    def to_dict(self) -> dict[str, Any]:
        """`GET /v1/games/{id}/score`: every reason rendered with the players, with its template and fields."""
        return self.sheet.to_dict(self.game.players)


@dataclass(frozen=True, slots=True)
class Export:
    """One game's export, rendered once for the API and the CLI."""

    game_id: str
    format: str
    #: the json document (json), else None
    document: dict[str, Any] | None
    #: the body of the other formats
    content: bytes

    @property
    def media_type(self) -> str:
        return export.MEDIA_TYPES[self.format]

    @property
    def filename(self) -> str:
        return f"{self.game_id}.{export.SUFFIXES[self.format]}"

    def body(self, *, indent: bool = False) -> bytes:
        """The bytes of the export; json indented (and ending with a line break) for a file or a terminal."""
        if self.document is None:
            return self.content
        if indent:
            return orjson.dumps(self.document, option=orjson.OPT_INDENT_2) + b"\n"
        return orjson.dumps(self.document, option=orjson.OPT_NON_STR_KEYS)


@dataclass(frozen=True, slots=True)
class ImportResult:
    """A single-file import: what was read, and the game written (or the club's copy of it)."""

    format: str
    checked: importer.Imported
    game: GameRecord
    duplicate: bool

    def to_public(self) -> dict[str, Any]:
        """The answer of `POST /v1/import`."""
        head_hash = self.game.head_hash if self.duplicate else self.checked.head.head_hash
        same = self.checked.source.get("head_hash") == head_hash if self.duplicate else self.checked.same_chain
        return {
            "game": game_public(self.game),
            "duplicate_of": self.game.id if self.duplicate else None,
            "copy_of": None if self.duplicate else self.game.copy_of,
            "format": self.format,
            "events": len(self.checked.envelopes),
            "head_hash": head_hash,
            "same_head_hash": same,
            "source": dict(importer.describe_source(self.checked)),
        }

    def outcome(self) -> importer.Outcome:
        """The same import as one outcome of a file of many (the CLI prints those)."""
        source_id = self.checked.source.get("id")
        if self.duplicate:
            return importer.Outcome(
                source_id, 0, reason=f"already in the club as {self.game.id}", duplicate_of=self.game.id
            )
        return importer.Outcome(source_id, 0, game=self.game, events=len(self.checked.envelopes))


#: the club of an import: an id, or a function of the game read (the CLI: the club its header names)
ClubChoice = int | Callable[[importer.Imported], int]


#: the most events `append_if_free` does on the calling thread (a few ms of decide and write at most)
INLINE_BATCH = 16


class Tablebook:
    """The use cases, on one `Recorder` (and its store)."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        #: the store under the recorder; the API's credential check (`api.auth.authenticate`) reads keys there
        self.store: Store = recorder.store

    @classmethod
    def open(cls, store: Store) -> Tablebook:
        """A service on a new recorder (its own state cache) over `store`."""
        return cls(Recorder(store))

    # ------------------------------------------------------------------ clubs

    def club_id(self, name: str) -> int | None:
        """The id of an existing club, or None (a read never creates a club)."""
        found = self.store.clubs().get(name)
        return None if found is None else int(found)

    def ensure_club(self, name: str) -> int:
        """The id of the club called `name`, created if needed."""
        return self.store.ensure_club(name)

    def _club_name(self, reader: Reader, game: GameRecord) -> str:
        return reader.club if reader.club is not None else self.store.club_name(game.club_id)

    # ------------------------------------------------------------------ games

    def create_game(
        self,
        reader: Reader,
        *,
        kind: str,
        players: Sequence[str],
        options: Mapping[str, Any] | None,
        labels: Mapping[str, str] | None = None,
        profile: str | None = None,
    ) -> dict[str, Any]:
        """A new game of the reader's club; its options echoed with defaults filled in; `labels` its event,
        round and table (registry metadata, in no hash, on the new row); with `profile`, the club's rule
        profile gives the options and `options` go on top.

        Raises:
            ForbiddenError: not a recorder key.
            NotFoundError: no such profile in the club.
            UnknownGameError: an unknown kind, a wrong player count, a bad option.
        """
        reader.require("recorder")
        club_id = _own_club(reader)
        if profile is not None:
            options = rule_profiles.creation_options(self.store, club_id, kind, profile, options)
        game = self.recorder.create_game(club_id=club_id, kind=kind, players=players, options=options, labels=labels)
        return game_public(game)

    def game(self, reader: Reader, game_id: str) -> dict[str, Any]:
        """Metadata, status, head seq and totals of one game of the reader's club.

        Raises:
            NotFoundError: no such game there.
        """
        return game_public(self.store.get_game(game_id, reader.club_id))

    def games(
        self,
        reader: Reader,
        *,
        situations: Sequence[str] = (),
        limit: int = 50,
        cursor: str | None = None,
        **filters: Any,
    ) -> dict[str, Any]:
        """A page of games, newest first (`GET /v1/games`): the reader's club, or every club for the operator.

        With `situations`, the hand-facts read model catches up with the log first (one indexed read when
        nothing is new) and each game lists its `hits`. `filters`: kind, status, player (a name or alias,
        case-insensitive), player_id, winner, since, until, event, round. With a player, `has=` counts only
        that player's own situations (facts at the seat they held) and `hits` lists only those.

        Raises:
            InvalidEventError: a cursor this server did not give out.
        """
        before = decode_cursor(cursor) if cursor else None
        club_ids = [reader.club_id] if reader.club_id is not None else list(self.store.clubs().values())
        if situations:
            HandFacts(self.store).catch_up()
        found: list[GameRecord] = []
        name, player_id = filters.pop("player", None), filters.pop("player_id", None)
        players: list[str] | None = None
        for club_id in club_ids:
            ids = self.store.registry.player_ids(club_id, name, player_id)
            if ids is not None:
                players = [*(players or []), *ids]
            if situations:
                found += self.store.search_games(
                    club_id, situations=situations, limit=limit, before=before, player_ids=ids, **filters
                )
            else:
                found += self.store.list_games(
                    club_id, limit=limit, before=before, player_id=player_id, player=name, **filters
                )
        if len(club_ids) > 1:
            found.sort(key=lambda g: (g.created_at, g.id), reverse=True)  # newest first, as each club's page
            found = found[:limit]
        next_cursor = encode_cursor(found[-1]) if len(found) == limit else None
        if not situations:
            return {"games": [game_public(g) for g in found], "next_cursor": next_cursor}
        hits = self.store.hits([g.id for g in found], situations, player_ids=players)
        return {"games": [{**game_public(g), "hits": hits[g.id]} for g in found], "next_cursor": next_cursor}

    def hand_facts(self) -> HandFacts:
        """The read model behind search (for the CLI's progress bar while it catches up, and `rebuild`)."""
        return HandFacts(self.store)

    def count_games(self, reader: Reader) -> int:
        return self.store.count_games(club_id=reader.club_id)

    def game_ids(self) -> list[str]:
        """Every game's id, oldest first (the operator's `verify` of every game)."""
        return self.store.game_ids()

    # ------------------------------------------------------------------ appends

    def append(
        self,
        reader: Reader,
        game_id: str,
        events: Sequence[Any],
        *,
        expected_seq: int | None = None,
        idempotency_key: str | None = None,
        document: Any = None,
    ) -> dict[str, Any]:
        """Decide and append a batch, all or nothing: `{events: [stored envelopes]}`.

        With an `idempotency_key`, the key is bound to the hash of the request's `document` (`body_hash`).

        Raises:
            ForbiddenError: a key that may not append (an auditor's may append corrections only).
            InvalidEventError / ImpossibleEventError / IllegalEventError, StreamConflictError,
                IdempotencyMismatchError: as `Recorder.append`.
        """
        reader.require("recorder", "auditor")
        if reader.role == "auditor":
            for index, event in enumerate(events):
                kind = event.get("type") if isinstance(event, dict) else None
                if kind not in CORRECTIONS:
                    raise ForbiddenError(
                        f"an auditor key appends only corrections ({', '.join(sorted(CORRECTIONS))}), not {kind!r}",
                        index=index,
                    )
        idempotency = (idempotency_key, body_hash(document)) if idempotency_key else None
        try:
            stored = self.recorder.append(
                game_id,
                events,
                club_id=reader.club_id,
                actor=reader.actor,
                expected_seq=expected_seq,
                idempotency=idempotency,
            )
        except TablebookError as refused:
            if not phrases.has_marker(refused.message):
                raise
            raise rendered_error(refused, self._players(game_id, reader)) from None
        return {"events": stored}

    def _players(self, game_id: str, reader: Reader) -> Sequence[str] | None:
        """The game's players, to render a message with (None if the game cannot be read: `seat N` then)."""
        try:
            return list(self.recorder.live(game_id, reader.club_id).game.players)
        except TablebookError:
            return None

    def append_if_free(
        self,
        reader: Reader,
        game_id: str,
        events: Sequence[Any],
        *,
        expected_seq: int | None = None,
        idempotency_key: str | None = None,
        document: Any = None,
    ) -> dict[str, Any] | None:
        """`append`, done now by the calling thread (the event loop) if it is cheap and nothing waits; else None.

        Cheap: a batch of at most `INLINE_BATCH` events on SQLite, whose writer lock in this process is
        free (taken without waiting, held to the end, so the loop never queues behind a large batch or
        an import in the threadpool). Measured with 16 clients appending one event a request (wrk): the
        threadpool gave 849 req/s at p99 27 ms, doing it here 1,182 req/s at p99 16 ms, since each hop to
        a worker thread waits for the GIL behind the loop. PostgreSQL always answers None (a network
        round trip would stall the loop).
        """
        if len(events) > INLINE_BATCH:
            return None
        with self.store.db.writer_if_free() as free:
            if not free:
                return None
            return self.append(
                reader, game_id, events, expected_seq=expected_seq, idempotency_key=idempotency_key, document=document
            )

    # ------------------------------------------------------------------ reads

    def events(self, reader: Reader, game_id: str, *, after: int = 0, limit: int | None = None) -> dict[str, Any]:
        """`{events, head}`: envelopes after `after`, up to the head read now, as the reader may see them."""
        live, envelopes = self.recorder.read(game_id, reader.club_id, after, limit)
        return {"events": shown_envelopes(sight_of(reader, self.store, live), envelopes), "head": live.state.seq}

    def state(self, reader: Reader, game_id: str, *, at: int | None = None, seat: int | None = None) -> dict[str, Any]:
        """The table after event `at` (the head when None), from `seat` (everything when None), as the reader
        may see it.

        Raises:
            NotFoundError: no such game, or `at` beyond its head.
            InvalidEventError: a seat the game does not have.
            ForbiddenError: a share link asking for a hand still being played.
        """
        live, state = self.recorder.state_at(game_id, at, reader.club_id)
        names = live.game.players
        sight = sight_of(reader, self.store, live)
        shown = sight.table_seq(state.seq, state.hand)  # inside a retracted range of a hidden hand: its to_seq
        if shown != state.seq:
            state = self.recorder.fold_to(live.game, live.rules, shown)
        with _named_errors(names):
            viewpoint = viewpoint_for(sight, seat, state.seats, state.hand)
        return engine.render_state(live.rules, state, viewpoint, names)

    def score(self, reader: Reader, game_id: str) -> Scored:
        """The score at the head, every point explained."""
        live = self.recorder.live(game_id, reader.club_id)
        return Scored(live.game, live.rules, live.rules.score(live.state.game).named(live.game.players))

    # ------------------------------------------------------------------ house rules (issue 21)

    def rules(self) -> dict[str, Any]:
        """Every game with its options, defaults, ranges, help texts and kind (scoring or play)."""
        return rule_profiles.rules_catalog()

    def profiles(self, reader: Reader) -> list[rule_profiles.Profile]:
        """The reader's club's rule profiles, the built-in `default` first."""
        return rule_profiles.list_profiles(self.store, reader)

    def profile(self, reader: Reader, name: str) -> rule_profiles.Profile:
        """One rule profile of the reader's club."""
        return rule_profiles.get_profile(self.store, reader, name)

    def save_profile(self, reader: Reader, name: str, games: Mapping[str, Any]) -> tuple[rule_profiles.Profile, bool]:
        """Create or replace a rule profile; (the profile, whether it is new)."""
        return rule_profiles.save_profile(self.store, reader, name, games)

    def delete_profile(self, reader: Reader, name: str) -> None:
        """Remove a rule profile of the reader's club."""
        rule_profiles.delete_profile(self.store, reader, name)

    def rescore(
        self, reader: Reader, game_id: str, *, options: Mapping[str, Any] | None = None, profile: str | None = None
    ) -> rescore.Rescore:
        """The recorded game scored under other options or a profile, nothing written (`api.service.rescore`)."""
        return rescore.rescore_game(self.store, reader, game_id, options=options, profile=profile)

    def rescore_season(self, reader: Reader, **asked: Any) -> Iterator[dict[str, Any]]:
        """The club's games matching the filters re-scored, one line each, then the standings side by side."""
        return rescore.rescore_season(self.store, reader, **asked)

    def next(self, reader: Reader, game_id: str, *, seat: int | None = None) -> dict[str, Any]:
        """What may be appended next, as the reader may see it (`projections.reading.offers.next_for`): the table pad's
        offer of decisions, amount ranges, the cards a deal or a draw needs, and the plays `record` would flag."""
        from projections.reading.offers import next_for  # offers reads the game through this service

        return next_for(self, reader, game_id, seat)

    def replay(self, reader: Reader, game_id: str, *, hand: int, seat: int | None = None) -> dict[str, Any]:
        """`{game, hand, viewpoint, frames}`: hand `hand` frame by frame, walked from the state before it
        (a snapshot, not event 1), with each frame that a later retract took back marked.

        Raises:
            NotFoundError: no such game, or no such hand.
            InvalidEventError / ForbiddenError: as `state`.
        """
        live = self.recorder.live(game_id, reader.club_id)
        sight = sight_of(reader, self.store, live, hand=hand)
        with _named_errors(live.game.players):
            viewpoint = viewpoint_for(sight, seat, live.state.seats, hand)
        return replay_hand(self.recorder, live, sight, hand, viewpoint)

    def hand_progress(self, reader: Reader, game_id: str, hand: int) -> str:
        """Where the head is against hand `hand`: "to come", "playing", "over" (it is the head's hand, and
        ended), or "past" (the table has played on to a later hand)."""
        live = self.recorder.live(game_id, reader.club_id)
        at = live.state
        if at.hand > hand:
            return "past"
        if at.hand < hand:
            return "to come"
        return "playing" if live.rules.hand_in_progress(at.game) else "over"

    def hands(self, reader: Reader, game_id: str) -> dict[str, Any]:
        """`{game, head, live_hand, hands: [{hand, first_seq, last_seq, events, live}]}` at the head read now."""
        live, envelopes = self.recorder.read(game_id, reader.club_id)
        current = live_hand(live.rules, live.state)
        hidden_from = first_hidden_hand(live.rules, live.state)
        spans: dict[int, dict[str, Any]] = {}
        for env in envelopes:
            span = spans.get(env["hand"])
            if span is None:
                spans[env["hand"]] = {"hand": env["hand"], "first_seq": env["seq"], "last_seq": env["seq"], "events": 1}
            else:
                span["last_seq"] = env["seq"]
                span["events"] += 1
        hands = [
            {**span, "live": hidden_from is not None and span["hand"] >= hidden_from}
            for _, span in sorted(spans.items())
        ]
        head = envelopes[-1]["seq"] if envelopes else 0
        return {"game": game_id, "head": head, "live_hand": current, "hands": hands}

    def subscribe(self, game_id: str) -> Subscription:
        """A live stream's wake-up: set whenever `game_id` is appended to, in any process (`events/store/notify.py`)."""
        return notifier_for(self.store).subscribe(game_id)

    def rows_after(self, game_id: str, after: int, limit: int = 500) -> list[Envelope]:
        """The stored rows after seq `after` (a live stream's next page), not yet bounded by any head: pass
        them through `shown_at_head` before anything of them is sent."""
        return self.store.read_events(game_id, after, limit)

    def shown_at_head(self, reader: Reader, game_id: str, rows: Sequence[Envelope]) -> tuple[bool, list[Envelope]]:
        """(whether any of `rows` is at or below the head read now, those rows as the reader may see them).

        The head is read after the rows (a head commits with its events), so a row past it (a forged one)
        is never shown, and what is hidden is decided at that head in the database.
        """
        live = self.recorder.live(game_id, reader.club_id)
        visible = [env for env in rows if env["seq"] <= live.state.seq]
        return bool(visible), shown_envelopes(sight_of(reader, self.store, live), visible)

    # ------------------------------------------------------------------ checks

    def verify(self, reader: Reader, game_id: str) -> dict[str, Any]:
        """`{ok, events, head_hash, first_bad_seq, problems}`: the chain re-walked and the rules re-run over
        every stored row (also any past the head the game's row names: a forged row there is found).

        A reader not shown every card gets `head_hash: null` and each problem without its hashes (hashes
        over hidden cards, see `projections/reading/visibility.py`); that is decided at the head read now. A reader
        who sees everything needs no fold, so a game whose events no longer fold is still verified.
        """
        if reader.sees_everything:
            game = self.store.get_game(game_id, reader.club_id)
            return _named_report(verify_game(game, self.store.iter_events(game_id)).to_dict(), game.players)
        live = self.recorder.live(game_id, reader.club_id)
        report = _named_report(verify_game(live.game, self.store.iter_events(game_id)).to_dict(), live.game.players)
        if sight_of(reader, self.store, live).hashes_from is not None:
            report["head_hash"] = None
            report["problems"] = [{k: v for k, v in p.items() if "hash" not in k} for p in report["problems"]]
        return report

    # ------------------------------------------------------------------ server deals

    def deals(self, reader: Reader, game_id: str) -> dict[str, Any]:
        """`{server_dealt, algorithm, genesis, ok, hands: [{hand, commitment, seeds, revealed, server_seed,
        verified, cards_checked, ...}], first_problem}`: each hand's commitment and, once revealed, whether
        its deck and every dealt card check (`projections/fairness/fairdeal.py`, as a player would run it).

        Only what the record already shows: a hand's server seed appears once its `deck_revealed` is in
        the record; a problem is named only for a revealed hand (its cards are no longer hidden).
        """
        live, envelopes = self.recorder.read(game_id, reader.club_id)
        game = live.game
        header = {"game": game.kind, "seats": len(game.players), "options": dict(game.options)}
        checked = fairdeal.verify_events(header, envelopes)
        revealed = {h for h, doc in checked.hands.items() if doc["revealed"]}
        problems = [
            p
            for p in checked.problems
            if reader.sees_everything or p.get("hand") in revealed or p.get("problem") in fairdeal.DEALT_AGAIN
        ]
        return {
            "game": game.id,
            "server_dealt": checked.server_dealt,
            "algorithm": fairdeal.ALGORITHM,
            "genesis": checked.genesis or game.genesis_hash,
            "ok": not problems,
            "hands": checked.to_dict()["hands"],
            "first_problem": problems[0] if problems else None,
        }

    def deals_report(self, reader: Reader, *, kind: str | None = None) -> dict[str, Any]:
        """The fairness report of the reader's club (every club for the operator): over every revealed
        server-dealt hand of each game kind, suit patterns of the seats' hands and each card's position in
        the deck, observed against the exact probabilities, with chi-square p-values (`deal_report`).

        Raises:
            ForbiddenError: a share link (it reads one game, not the club).
        """
        if reader.is_share:
            raise ForbiddenError("a share link reads one game; the club's deal report needs a key")
        if kind is not None:
            rules_for(kind)  # an unknown kind is refused, not an empty report
        tallies: dict[str, deal_report.KindTally] = {}
        for game in self.store.iter_games(club_id=reader.club_id, kind=kind):
            if not dealing.is_server_dealt(game.options):
                continue
            envelopes = self.store.read_events(game.id, upto=game.seq)
            deal_report.tally_game(tallies, game.id, game.kind, len(game.players), game.options, envelopes)
        return {"club": reader.club, "algorithm": fairdeal.ALGORITHM, **deal_report.report(tallies)}

    def audit(self, reader: Reader, game_id: str) -> dict[str, Any]:
        """`{chain, violations, retractions, claims, notes, game_notes, score}` (auditors)."""
        reader.require("auditor")
        game = self.store.get_game(game_id, reader.club_id)
        return _named_report(audit_game(game, self.store.read_events(game_id)), game.players)

    def compare_claim(
        self, reader: Reader, game_id: str, *, points: Mapping[str, float], hand: int | None = None
    ) -> dict[str, Any]:
        """A claim not recorded (a hand's points, or the totals) against the computed score (auditors).

        Raises:
            InvalidEventError: the points do not name every seat.
            ImpossibleEventError: a hand that has not begun.
        """
        reader.require("auditor")
        live = self.recorder.live(game_id, reader.club_id)
        seats = [str(s) for s in range(live.state.seats)]
        if sorted(points) != sorted(seats):
            raise InvalidEventError(f"points must name every seat: {', '.join(seats)}", field="points")
        if hand is not None and hand > live.state.hand:
            raise ImpossibleEventError(f"hand {hand} has not begun (hands 1 to {live.state.hand})", field="hand")
        claimed = {k: (int(v) if float(v).is_integer() else v) for k, v in points.items()}
        names = list(live.game.players)
        return _named_report(compare_claim(live.rules.score(live.state.game), names, claimed, hand), names)

    # ------------------------------------------------------------------ exports and imports

    def export(self, reader: Reader, game_id: str, fmt: str = "json") -> Export:
        """The whole game in `fmt` (json, jsonl, text, csv, csv-excel), up to the head read now, as the reader
        may see it.

        The state at the head comes from `Recorder.read` (folded from a snapshot, not from event 1).

        Raises:
            InvalidEventError: an unknown format.
            NotFoundError: no such game.
        """
        if fmt not in export.FORMATS:
            raise InvalidEventError(f"format must be one of {', '.join(export.FORMATS)}", field="format")
        live, envelopes = self.recorder.read(game_id, reader.club_id)
        game, rules, state = live.game, live.rules, live.state
        shown = shown_envelopes(sight_over(reader, rules, state, envelopes), envelopes)
        head_hash = envelopes[-1]["hash"] if envelopes else game.genesis_hash
        club = self._club_name(reader, game)
        head = export.header(game, club, seq=len(envelopes), head_hash=head_hash, state=state, rules=rules)
        export.mark_redacted(head, shown)
        if fmt == "json":
            return Export(game_id, fmt, export.json_document(head, shown), b"")
        if fmt == "jsonl":
            return Export(game_id, fmt, None, b"".join(export.jsonl_lines(head, shown)))
        if fmt == "text":
            return Export(game_id, fmt, None, "".join(export.text_lines(head, rules, envelopes, shown)).encode())
        sheet = export.score_csv(game.players, rules.score(state.game), rules).encode()
        return Export(game_id, fmt, None, export.excel_csv(sheet) if fmt == export.EXCEL else sheet)

    def bulk_export(
        self,
        reader: Reader,
        *,
        kind: str | None = None,
        since: str | None = None,
        until: str | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        on_game: Callable[[GameRecord], None] | None = None,
    ) -> Iterator[bytes]:
        """NDJSON of the reader's games (every club's, for the operator), oldest first, in constant memory
        (`export.bulk_lines`); a viewer's live hands redacted.

        Raises (before the first line):
            InvalidEventError: a cursor of another kind.
        """
        if cursor is not None:
            export.decode_cursor(cursor)
        return export.bulk_lines(
            self.store,
            club_id=reader.club_id,
            kind=kind,
            since=since,
            until=until,
            cursor=cursor,
            limit=limit,
            redact=None if reader.sees_everything else _redactor(reader),
            on_game=on_game,
            position_of=self._head_at,
        )

    def _head_at(self, game: GameRecord, envelopes: Sequence[Envelope]) -> tuple[GameRules[Any], Any]:
        """A game's rules and its position after `envelopes` (its events up to `game.seq`), folded from the
        nearest snapshot rather than event 1."""
        rules = rules_for(game.kind)
        return rules, self.recorder.fold_to(game, rules, envelopes[-1]["seq"] if envelopes else 0)

    def import_file(
        self,
        reader: Reader,
        body: bytes,
        *,
        fmt: str | None = None,
        copy: bool = False,
        club: ClubChoice | None = None,
    ) -> ImportResult:
        """One game from a json, jsonl or text export, checked (chain, rules) and written as a new game of the
        club (the reader's, unless `club`), in one transaction; or the club's game it already is, unless `copy`.

        Raises:
            ForbiddenError: not a recorder key.
            BadImportError: the first thing wrong in the file; nothing is written.
        """
        reader.require("recorder")
        fmt = fmt or importer.sniff(body)
        checked = importer.read_file(body, actor=reader.actor, fmt=fmt)
        club_id = self._import_club(reader, club, checked)
        record, duplicate = importer.import_or_find(self.store, club_id, checked, copy=copy)
        return ImportResult(fmt, checked, record, duplicate)

    def import_lines(
        self,
        reader: Reader,
        lines: Iterable[tuple[int, bytes]],
        *,
        skip_existing: bool = True,
        club: ClubChoice | None = None,
    ) -> Iterator[importer.Outcome]:
        """Each game of an NDJSON file (`(line number, line)`s) checked and imported on its own: a bad game is
        an outcome with its reason, the rest are imported."""
        reader.require("recorder")
        choice: ClubChoice = club if club is not None else _own_club(reader)
        return importer.import_many(self.store, choice, lines, skip_existing=skip_existing)

    def import_bulk(self, reader: Reader, body: bytes, *, skip_existing: bool = True) -> dict[str, Any]:
        """`{imported, skipped, summary}` for the NDJSON file `body` (`POST /v1/import/bulk`)."""
        outcomes = list(self.import_lines(reader, importer.split_lines(body), skip_existing=skip_existing))
        return {
            "imported": [
                {"id": o.game.id, "source_id": o.source_id, "events": o.events} for o in outcomes if o.game is not None
            ],
            "skipped": [
                {"source_id": o.source_id, "line": o.line or None, "reason": o.reason, "duplicate_of": o.duplicate_of}
                for o in outcomes
                if o.game is None
            ],
            "summary": importer.import_summary(outcomes),
        }

    def _import_club(self, reader: Reader, club: ClubChoice | None, checked: importer.Imported) -> int:
        if club is None:
            return _own_club(reader)
        return club if isinstance(club, int) else club(checked)

    # ------------------------------------------------------------------ personal data

    def erase_player(
        self, name: str, replacement: str, *, club_id: int | None = None, dry_run: bool = False
    ) -> Erasure:
        """Replace a player's name in every game's registry row (of one club, or all), and erase the player
        records called so (exactly: their aliases go too); list the free text that mentions it. This
        process's cached states of those games are dropped."""
        report = erase_player(self.store, name, replacement, club_id=club_id, dry_run=dry_run)
        if not dry_run:
            for game_id in report.games:
                self.recorder.forget(game_id)
        return report

    # ------------------------------------------------------------------ players, ratings, standings

    def ratings(self) -> RatingsModel:
        """The ratings read model (for the CLI's progress bar while it catches up, and `rebuild`)."""
        return RatingsModel(self.store)

    def _caught_up(self) -> None:
        """Both read models the players' pages read, caught up with the log (one indexed read each when
        nothing is new), so a page always shows every committed event."""
        HandFacts(self.store).catch_up()
        RatingsModel(self.store).catch_up()

    def players(self, reader: Reader, *, name: str | None = None) -> list[PlayerRecord]:
        """The club's players (every club's for the operator), oldest first; with `name`, those with that
        name or alias, case-insensitively."""
        club_ids = [reader.club_id] if reader.club_id is not None else list(self.store.clubs().values())
        found: list[PlayerRecord] = []
        for club_id in club_ids:
            if name is None:
                found += self.store.players.list_players(club_id)
            else:
                found += self.store.players.find_players(club_id, name)
        return found

    def player(self, reader: Reader, ref: str) -> PlayerRecord:
        """A player of the reader's club by id, or by name or alias (case-insensitive) when that names one.

        Raises:
            NotFoundError: no such player there.
            InvalidEventError: a name that several players have (the message lists their ids).
        """
        try:
            found = self.store.players.get_player(ref, reader.club_id)
        except NotFoundError:
            pass
        else:
            if found.merged_into is not None:  # an old id still finds the player it was merged into
                return self.store.players.get_player(found.merged_into, reader.club_id)
            return found
        named = self.store.players.find_players(reader.club_id, ref)
        if not named:
            raise NotFoundError(f"no player {ref!r}")
        if len(named) > 1:
            ids = [p.id for p in named]
            raise InvalidEventError(
                f"{len(named)} players are called {ref!r}: name one by id ({', '.join(ids)})", field="player", ids=ids
            )
        return named[0]

    def create_player(self, reader: Reader, name: str, aliases: Sequence[str] = ()) -> PlayerRecord:
        """A new player of the reader's club (games that name them later find them by name or alias).

        Raises:
            ForbiddenError: not a recorder key.
        """
        reader.require("recorder")
        return self.store.players.create_player(_own_club(reader), name, aliases)

    def rename_player(self, reader: Reader, ref: str, name: str, *, keep_alias: bool = True) -> PlayerRecord:
        """Rename a player: shown at once in all their games, in every process (the games' rows hold the copy).

        Raises:
            ForbiddenError: not a recorder key.
            NotFoundError: no such player.
        """
        reader.require("recorder")
        player = self.player(reader, ref)
        return self.store.players.rename(player.id, name, club_id=reader.club_id, keep_alias=keep_alias)

    def merge_players(self, reader: Reader, source: str, target: str) -> PlayerRecord:
        """Merge one player into another (their games and names become the target's); the ratings are
        rebuilt from the events, since the two players' results are now one player's.

        Raises:
            ForbiddenError: not a recorder key.
            NotFoundError: either player missing.
            InvalidEventError: the same player, or both sat in one game.
        """
        reader.require("recorder")
        merged = self.store.players.merge(
            self.player(reader, source).id, self.player(reader, target).id, club_id=reader.club_id
        )
        RatingsModel(self.store).rebuild()
        return merged

    def erase_player_record(self, reader: Reader, ref: str, *, dry_run: bool = False) -> tuple[PlayerRecord, Erasure]:
        """Erase a player: the name and aliases gone from the record and from every game that shows them,
        in one transaction (every process reads the new names with the game's row); the chains are
        untouched (events name seats). Free text mentioning the names is listed, not edited.

        Raises:
            ForbiddenError: not a recorder key.
            NotFoundError: no such player.
        """
        reader.require("recorder")
        player = self.player(reader, ref)
        report = Erasure()
        for name in player.names():
            for mention in erase_player(self.store, name, name, club_id=player.club_id, dry_run=True).mentions:
                if mention not in report.mentions:
                    report.mentions.append(mention)
        if dry_run:
            report.games = sorted({g for g, _ in self.store.players.seats_of(player.id)})
            return player, report
        report.games = self.store.players.erase(player.id, club_id=reader.club_id)
        for game_id in report.games:
            self.recorder.forget(game_id)
        return self.store.players.get_player(player.id), report

    def player_profile(self, reader: Reader, ref: str, *, games: int = 100) -> dict[str, Any]:
        """A player's page: statistics, ratings, the rating history explained change by change, their games.

        Raises:
            NotFoundError: no such player.
        """
        player = self.player(reader, ref)
        self._caught_up()
        return player_pages.profile(self.store, player, games=games)

    def standings(
        self,
        reader: Reader,
        kind: str,
        *,
        since: str | None = None,
        until: str | None = None,
        event: str | None = None,
        round: str | None = None,
    ) -> dict[str, Any]:
        """The club's leaderboard of one game over a date range or an event/round.

        Raises:
            UnknownGameError: an unknown kind.
            InvalidEventError: the operator without a club.
        """
        rules_for(kind)
        club_id = _own_club(reader)
        self._caught_up()
        return player_pages.standings(
            self.store, club_id, kind, since=since, until=until, event=event, round_name=round
        )

    # ------------------------------------------------------------------ share links

    def create_share(self, reader: Reader, game_id: str) -> tuple[shares.ShareRecord, str]:
        """A new share token for a game of the reader's club: its record and the token, shown only this once.

        The secret is 192 random bits; only its sha256 is stored (`events/store/shares.py`).

        Raises:
            ForbiddenError: not a recorder or auditor key.
            NotFoundError: no such game in that club.
        """
        reader.require("recorder", "auditor")
        club_id = _own_club(reader)
        self.store.get_game(game_id, club_id)
        share_id, secret = secrets.token_hex(6), secrets.token_urlsafe(24)
        shares.add_share(
            self.store,
            share_id=share_id,
            club_id=club_id,
            game_id=game_id,
            token_hash=sha256_hex(secret.encode()),
            created_by=reader.actor,
        )
        record = shares.find_share(self.store, share_id, club_id=club_id, game_id=game_id)
        return record, shares.token_of(share_id, secret)

    def list_shares(self, reader: Reader, game_id: str) -> list[shares.ShareRecord]:
        """Every share token of a game of the reader's club, oldest first, revoked ones included."""
        reader.require("recorder", "auditor")
        club_id = _own_club(reader)
        self.store.get_game(game_id, club_id)
        return shares.list_shares(self.store, club_id=club_id, game_id=game_id)

    def revoke_share(self, reader: Reader, game_id: str, share_id: str) -> shares.ShareRecord:
        """Revoke a share token of a game of the reader's club; revoking it again changes nothing."""
        reader.require("recorder", "auditor")
        club_id = _own_club(reader)
        self.store.get_game(game_id, club_id)
        return shares.revoke_share(self.store, share_id, club_id=club_id, game_id=game_id)

    # ------------------------------------------------------------------ demo games

    def record_demo_game(self, club_id: int, kind: str, rng: random.Random) -> str:
        """Play one game with the bots (`projections.core.simulate.demo_playout`) and record it through the write
        path of the API.

        The bots play with table sense, and the game shown is one with its kind's `DEMO_SITUATIONS` (a
        sweep, a marriage, a gin and an undercut...), so the demo data shows every feature. A game that
        does not end within `DEMO_EVENTS` events and can close its session (Seven and a Half) plays on
        to the end of the hand in progress and is closed.
        """
        rules = rules_for(kind)
        players = list(rules.demo_players)
        options: dict[str, Any] = {}
        playout = demo_playout(rules, players, options, rng=rng, max_events=DEMO_EVENTS)
        events = list(playout.events)
        if not playout.finished and "session_closed" in rules.events:
            events.extend(_close_session(rules, players, options, events, rng))
        game = self.recorder.create_game(club_id=club_id, kind=kind, players=players, options=options)
        for start in range(0, len(events), DEMO_BATCH):
            self.recorder.append(game.id, events[start : start + DEMO_BATCH], club_id=club_id, actor="demo")
        return game.id


def body_hash(document: Any) -> str:
    """The hash an Idempotency-Key is bound to: of the canonical body, so key order and spacing do not matter.

    Raises:
        InvalidEventError: a body nested deeper than orjson encodes (254 levels; no event is a tenth as deep).
    """
    try:
        return sha256_hex(canonical(document))
    except orjson.JSONEncodeError:
        raise InvalidEventError("the body is nested too deeply to be an append", field="events") from None


@contextmanager
def _named_errors(names: Sequence[str]) -> Iterator[None]:
    """Errors raised inside, with their marked messages rendered with the game's players (`rendered_error`)."""
    try:
        yield
    except TablebookError as refused:
        if not phrases.has_marker(refused.message):
            raise
        raise rendered_error(refused, names) from None


def rendered_error(error: TablebookError, names: Sequence[str] | None) -> TablebookError:
    """The same error (class, code, details, rule) with its message rendered for the game's players, and
    the marked text kept structured in its details (`template`, `fields`), so that a client may render its
    own. The rules raise with markers (`projections/core/phrases.py`); no client ever reads one."""
    template, fields = phrases.structure(error.message)
    out = type(error).__new__(type(error))  # not copy.copy: it would call __init__ with the args alone
    out.__dict__.update(error.__dict__)
    out.message = phrases.render(error.message, names)
    out.args = (out.message,)
    out.details = {
        **{k: phrases.render(v, names) if isinstance(v, str) else v for k, v in error.details.items()},
        "template": template,
        "fields": fields,
    }
    if isinstance(out, IllegalEventError):
        out.reason = out.message
    return out


#: the text fields of a report that the rules or the service wrote, and so may hold markers; free text a
#: person wrote (a note's `text`, a retract's `reason`) is never read as a template
_MARKED_KEYS = frozenset({"message", "summary"})


def _named_report(report: dict[str, Any], names: Sequence[str]) -> dict[str, Any]:
    """A verify, audit or claim document with every marked message rendered with the game's players, and
    every score line (`{seat, points, rule, reason, events}`) given its rendered reason, template and fields.

    Where the report's maker already rendered, this changes nothing: rendered text has no marker left.
    """
    named: dict[str, Any] = _named_doc(report, names)
    return named


def _named_doc(document: Any, names: Sequence[str]) -> Any:
    """`_named_report` of any part of a document."""
    if isinstance(document, list):
        return [_named_doc(item, names) for item in document]
    if not isinstance(document, dict):
        return document
    out = {k: _named_doc(v, names) for k, v in document.items()}
    for key in _MARKED_KEYS & out.keys():
        if isinstance(out[key], str):
            out[key] = phrases.render(out[key], names)
    if {"seat", "points", "rule", "reason"} <= out.keys() and "template" not in out and isinstance(out["reason"], str):
        out.update(phrases.explained(out["reason"], names))
    return out


def _own_club(reader: Reader) -> int:
    """The reader's club, for a write (a game, an import, a share link belongs to one club)."""
    if reader.club_id is None:
        raise InvalidEventError("name the club to write into", field="club")
    return reader.club_id


def _redactor(reader: Reader) -> export.Redactor:
    """For a reader who is not shown every card: envelopes with the live hand's hidden cards replaced."""

    def redact(rules: GameRules[Any], state: Any, envelopes: list[Envelope]) -> list[Envelope]:
        return shown_envelopes(sight_over(reader, rules, state, envelopes), envelopes)

    return redact


def _close_session(
    rules: Any, players: list[str], options: dict[str, Any], events: list[Any], rng: random.Random
) -> list[Any]:
    """Play on to the end of the hand in progress (the simulator's offers), then close the session."""
    start = engine.fold_events(rules, engine.start(rules, players, rules.options_for(players, options)), events)
    replay = engine.Replay(rules, start, keep=())
    tail: list[Any] = []
    while rules.hand_in_progress(replay.position.game):
        tail.append(replay.push(dict(rng.choice(next_options(rules, replay.position.game, rng)))).event)
    return [*tail, {"type": "session_closed"}]
