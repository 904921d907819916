"""Events (club evenings, tournaments): create one with its movement and boards, start its rounds (each table
an ordinary game), compare its boards and publish its standings, export its whole record and import it
elsewhere (`/v1/events`, `tablebook events`, the event page).

The rows are the store's (`events/store/tournaments.py`); who sits where is the movement's
(`projections/tournaments/movements.py`), the boards' cryptography `projections/core/boards.py`'s, the
comparison `projections/tournaments/compare.py`'s. Results are computed when read, from the table games as
they are in the database: the append that finishes the last table's board reveals it, and the next read
has it (docs/tournaments.md: measured well under a second).

A reader who is not shown every card (a viewer) reads the same results as everyone: a board is compared,
and its traveller shown, only once every table of its round has finished it.
"""

from __future__ import annotations

import csv
import hashlib
import io
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from api.service.base import own_club
from api.service.exports import Exports
from api.service.imports import Imports
from events.codec import utc_now
from events.errors import ImpossibleEventError, InvalidEventError, NotFoundError
from events.store import new_id
from events.store import tournaments as stored
from projections.core import boards as duplicate_boards
from projections.core import dealing, engine
from projections.core.registry import rules_for
from projections.fairness import fairdeal
from projections.histories import importer
from projections.reading.visibility import Reader
from projections.tournaments import compare, movements

EXPORT_FORMAT = fairdeal.EVENT_FORMAT
#: most players, rounds and boards a round an event may have (each table is a game; each board a hand)
MAX_PLAYERS, MAX_ROUNDS, MAX_BOARDS = 64, 30, 12
KINDS_OF_EVENT = ("evening", "tournament")


def first_hand(kind: str, players: Sequence[str], options: Mapping[str, Any]) -> int:
    """The first hand a new game of `kind` deals (Gin's cut is hand 0, the others start at 1)."""
    rules = rules_for(kind)
    due = dealing.due_hand(rules, engine.start(rules, players, options).game)
    return 1 if due is None else int(due)


class Tournaments(Exports, Imports):
    """A club's events."""

    # ------------------------------------------------------------------ create and read

    def create_event(
        self,
        reader: Reader,
        *,
        name: str,
        kind: str,
        game: str,
        players: Sequence[str],
        seats: int | None,
        movement: str,
        rounds: int,
        options: Mapping[str, Any] | None,
        boards: int,
        scoring: str,
    ) -> dict[str, Any]:
        """A new event with its movement planned (Swiss: its first round) and, with `boards`, its board set
        dealt and committed once.

        Raises:
            ForbiddenError: not a recorder key.
            InvalidEventError / UnknownGameError: a field that does not fit (nothing is written).
        """
        reader.require("recorder")
        club_id = own_club(reader)
        rules = rules_for(game)
        seats = seats or rules.player_counts[0]
        if seats not in rules.player_counts:
            allowed = ", ".join(str(n) for n in rules.player_counts)
            raise InvalidEventError(f"{rules.title} is played by {allowed} at a table, not {seats}", field="seats")
        if kind not in KINDS_OF_EVENT:
            raise InvalidEventError(f"kind must be one of {', '.join(KINDS_OF_EVENT)}", field="kind")
        if scoring not in compare.SCORINGS:
            raise InvalidEventError(f"scoring must be one of {', '.join(compare.SCORINGS)}", field="scoring")
        if boards and scoring == "wins":
            raise InvalidEventError("a duplicate event is scored by matchpoints or imps", field="scoring")
        if not boards and scoring != "wins":
            raise InvalidEventError("an event without boards is scored by wins", field="scoring")
        if boards and rules.duplicate is None:
            raise InvalidEventError(f"{rules.title} is not played with duplicate boards", field="boards")
        if len(set(players)) != len(players):
            raise InvalidEventError("each player once: two players have the same name", field="players")
        if not 0 < rounds <= MAX_ROUNDS and movement != "free":
            raise InvalidEventError(f"rounds must be from 1 to {MAX_ROUNDS}", field="rounds")
        if not 0 <= boards <= MAX_BOARDS:
            raise InvalidEventError(f"boards must be from 0 to {MAX_BOARDS}", field="boards")
        if boards and movement == "free":
            raise InvalidEventError("duplicate boards need a movement that plans the tables", field="movement")
        table_options = {**(options or {}), **({"dealing": "server"} if boards else {})}
        names = [str(p) for p in players[:seats]] if len(players) >= seats else [f"seat {s}" for s in range(seats)]
        filled = rules.options_for(names, table_options)  # UnknownGameError: a bad option, before any write
        try:
            plan = movements.plan(movement, len(players), seats, rounds)
        except (ValueError, RuntimeError) as exc:  # RuntimeError: no seating within the search's budget
            raise InvalidEventError(str(exc), field="movement") from None
        event_id, created = new_id("e"), utc_now()
        record = stored.EventRecord(
            id=event_id,
            club_id=club_id,
            name=name,
            kind=game,
            category=kind,
            players=tuple(players),
            seats=seats,
            movement=movement,
            rounds=rounds,
            options=dict(filled),
            boards=boards,
            scoring=scoring,
            created_at=created,
            created_by=reader.actor,
        )
        planned = [
            stored.RoundRecord(number, tuple(seating.sit_out)) for number, seating in enumerate(plan.rounds, start=1)
        ]
        tables = [
            stored.TableRecord(number, t, tuple(table))
            for number, seating in enumerate(plan.rounds, start=1)
            for t, table in enumerate(seating.tables, start=1)
        ]
        board_set, secret, rows = None, None, []
        if boards:
            first = first_hand(game, names, filled)
            hands = list(range(first, boards + 1))
            genesis = duplicate_boards.set_genesis(event_id, game, rounds * len(hands), created)
            key = secrets.token_bytes(32)
            number = 0
            for rnd in range(1, rounds + 1):
                for hand in hands:
                    number += 1
                    seed = duplicate_boards.board_seed(key, genesis, number)
                    rows.append(stored.BoardRecord(number, rnd, hand, hashlib.sha256(seed).hexdigest()))
            commitment = duplicate_boards.set_commitment(genesis, game, [b.commitment for b in rows])
            board_set = stored.SetRecord(genesis, commitment, len(rows), (), created)
            secret = key.hex()
        stored.create_event(self.store.db, record, planned, tables, board_set, secret, rows)
        return self.event(reader, event_id)

    def event(self, reader: Reader, event_id: str) -> dict[str, Any]:
        """An event as the API shows it: its rounds and tables (players by name, each table's game and how far
        it is), its movement's rule and promise, and its board set's public part.

        Raises:
            NotFoundError: no such event in the reader's club.
        """
        rows = stored.get_event(self.store.db, event_id, reader.club_id)
        return self._document(rows)

    def list_events(self, reader: Reader) -> list[dict[str, Any]]:
        """The reader's club's events, newest first (their headline only)."""
        return [_headline(e) for e in stored.list_events(self.store.db, reader.club_id)]

    def _document(self, rows: stored.EventRows) -> dict[str, Any]:
        ev = rows.event
        names = ev.players
        seatings = [
            movements.Seating(tuple(t.players for t in rows.tables if t.round == r.number), r.sit_out)
            for r in rows.rounds
        ]
        met = movements.meetings(seatings)
        rule = _rule(ev.movement, len(names), ev.seats)
        most = movements.bound(ev.movement, len(names), ev.seats, ev.rounds)
        rounds = []
        for rnd in rows.rounds:
            tables = []
            for table in (t for t in rows.tables if t.round == rnd.number):
                doc: dict[str, Any] = {
                    "table": table.number,
                    "players": [names[p] for p in table.players],
                    "seats": list(table.players),
                    "game_id": table.game_id,
                    "finished": table.finished,
                }
                if table.game_id is not None:
                    game = self.store.get_game(table.game_id)
                    doc.update(status=game.status, seq=game.seq, totals=game.totals)
                    doc["finished"] = bool(table.finished or game.status == "finished")
                else:
                    doc.update(status="planned", seq=0, totals=None)
                tables.append(doc)
            rounds.append(
                {
                    "round": rnd.number,
                    "sit_out": [names[p] for p in rnd.sit_out],
                    "started_at": rnd.started_at,
                    "closed_at": rnd.closed_at,
                    "tables": tables,
                    "finished": bool(tables) and all(t["finished"] for t in tables),
                }
            )
        return {
            **_headline(ev),
            "options": ev.options,
            "movement_rule": rule,
            "most_meetings": most,
            "met_most": max(met.values(), default=0),
            "rounds": rounds,
            "board_set": None if rows.board_set is None else board_set_document(ev.kind, rows),
            "same_deal": None if not ev.boards else _same_deal(ev.kind),
        }

    # ------------------------------------------------------------------ running it

    def start_round(self, reader: Reader, event_id: str, number: int) -> dict[str, Any]:
        """Create the round's table games (their ids linked first, so that each table's first deck is its
        first board), every table with the event's options and players by seat. A round starts once.

        Raises:
            ForbiddenError: not a recorder key.
            NotFoundError: no such event or round.
            ImpossibleEventError: the round has been started already, or the one before it is not.
        """
        reader.require("recorder")
        rows = stored.get_event(self.store.db, event_id, reader.club_id)
        rnd = next((r for r in rows.rounds if r.number == number), None)
        if rnd is None:
            raise NotFoundError(f"event {event_id} has no round {number} (yet)")
        if rnd.started_at is not None:
            raise ImpossibleEventError(f"round {number} has been started already", field="round")
        tables = [t for t in rows.tables if t.round == number]
        ids = {t.number: new_id("g") for t in tables}
        if not stored.link_games(self.store.db, event_id, number, ids):
            raise ImpossibleEventError(f"round {number} has been started already", field="round")
        ev = rows.event
        for table in tables:
            self.recorder.create_game(
                club_id=ev.club_id,
                kind=ev.kind,
                players=[ev.players[p] for p in table.players],
                options=ev.options,
                game_id=ids[table.number],
                labels={"event": ev.name, "round": str(number), "table": str(table.number)},
            )
        return self.event(reader, event_id)

    def pair_round(self, reader: Reader, event_id: str) -> dict[str, Any]:
        """The next Swiss round, paired from the standings once every table of the last round has finished.

        Raises:
            ImpossibleEventError: not a Swiss event, every round paired, or the last round still playing.
        """
        reader.require("recorder")
        rows = stored.get_event(self.store.db, event_id, reader.club_id)
        ev = rows.event
        if ev.movement != "swiss":
            raise ImpossibleEventError("only a Swiss event pairs its rounds one by one", field="movement")
        if len(rows.rounds) >= ev.rounds:
            raise ImpossibleEventError(f"all {ev.rounds} rounds are paired", field="round")
        doc = self._document(rows)
        if not doc["rounds"][-1]["finished"]:
            raise ImpossibleEventError(f"round {len(rows.rounds)} is still being played", field="round")
        ranking = [row["player"] for row in self.results(reader, event_id)["standings"]["rows"]]
        seatings = [
            movements.Seating(tuple(t.players for t in rows.tables if t.round == r.number), r.sit_out)
            for r in rows.rounds
        ]
        history = movements.history_of(len(ev.players), 2, seatings)
        try:
            seating = movements.swiss_round(history, ranking)
        except RuntimeError as exc:
            raise ImpossibleEventError(str(exc), field="round") from None
        number = len(rows.rounds) + 1
        if not stored.add_round(
            self.store.db,
            event_id,
            stored.RoundRecord(number, seating.sit_out),
            [stored.TableRecord(number, t, tuple(p)) for t, p in enumerate(seating.tables, start=1)],
        ):
            raise ImpossibleEventError(f"round {number} has been paired already", field="round")
        return self.event(reader, event_id)

    def attach(self, reader: Reader, event_id: str, game_id: str, number: int, table: int) -> dict[str, Any]:
        """A game already recorded (its labels kept) as table `table` of round `number` of a `free` event.

        Raises:
            ImpossibleEventError: the event plans its tables, or that table or game is taken.
        """
        reader.require("recorder")
        rows = stored.get_event(self.store.db, event_id, reader.club_id)
        if rows.event.movement != "free":
            raise ImpossibleEventError("only a free event takes games recorded elsewhere", field="game_id")
        game = self.store.get_game(game_id, reader.club_id)
        if game.kind != rows.event.kind:
            raise InvalidEventError(f"the event plays {rows.event.kind}, the game is {game.kind}", field="game_id")
        index = {name: i for i, name in enumerate(rows.event.players)}
        missing = [p for p in game.players if p not in index]
        if missing:
            raise InvalidEventError(f"not a player of the event: {', '.join(missing)}", field="game_id")
        record = stored.TableRecord(number, table, tuple(index[p] for p in game.players), game_id)
        if not stored.attach_game(self.store.db, event_id, record):
            raise ImpossibleEventError("that table, or that game, is a table of an event already")
        return self.event(reader, event_id)

    def add_seed(self, reader: Reader, event_id: str, seed: str) -> dict[str, Any]:
        """Anyone's randomness in the board set, before its first board is dealt (the shuffle's `-:seed`).

        Raises:
            ImpossibleEventError: no board set, or a board has been dealt already.
        """
        reader.require("recorder")
        stored.get_event(self.store.db, event_id, reader.club_id)
        if not stored.add_seed(self.store.db, event_id, f"-:{seed}"):
            raise ImpossibleEventError("the board set is sealed: its first board has been dealt", field="seed")
        return self.event(reader, event_id)

    def close_round(self, reader: Reader, event_id: str, number: int) -> dict[str, Any]:
        """The director ends a round: its tables have played every board they will; the boards are revealed."""
        reader.require("recorder")
        rows = stored.get_event(self.store.db, event_id, reader.club_id)
        if not any(r.number == number for r in rows.rounds):
            raise NotFoundError(f"event {event_id} has no round {number}")
        stored.close_round(self.store.db, event_id, number)
        if rows.board_set is not None:
            ready = stored.boards_ready(self.store.db, event_id)
            duplicate_boards.reveal(self.store, event_id, rows.board_set.genesis, ready)
        return self.event(reader, event_id)

    # ------------------------------------------------------------------ results

    def results(self, reader: Reader, event_id: str) -> dict[str, Any]:
        """Every revealed board's traveller, and the standings with each cell explained (see the module)."""
        rows = stored.get_event(self.store.db, event_id, reader.club_id)
        ev = rows.event
        rules = rules_for(ev.kind)
        travellers: list[dict[str, Any]] = []
        games: list[compare.GamePlayed] = []
        sheets: dict[str, Any] = {}
        for table in rows.tables:
            if table.game_id is None:
                continue
            live = self.recorder.live(table.game_id)
            sheets[table.game_id] = rules.score(live.state.game)
            if not ev.boards:
                sheet = sheets[table.game_id]
                games.append(
                    compare.GamePlayed(
                        table.round,
                        table.number,
                        table.game_id,
                        table.players,
                        tuple(sheet.totals),
                        bool(sheet.finished),
                        sheet.winner,
                    )
                )
        duplicate = rules.duplicate
        pending = []
        for board in rows.boards:
            if board.revealed_at is None or duplicate is None:
                pending.append({"board": board.number, "round": board.round, "hand": board.hand})
                continue
            played = [
                compare.Played(
                    t.number,
                    t.game_id,
                    t.players,
                    None if t.game_id is None else sheets[t.game_id].hand(board.hand),
                )
                for t in rows.tables
                if t.round == board.round and t.game_id is not None
            ]
            trav = compare.traveller(duplicate, ev.options, board.number, board.hand, played)
            if not any(t["played"] for t in trav["tables"]):
                continue  # Gin's cut: a board that deals no scored hand
            travellers.append({**trav, "round": board.round})
        return {
            "event": _headline(ev),
            "travellers": travellers,
            "pending_boards": pending,
            "standings": compare.standings(ev.scoring, ev.players, travellers, games),
        }

    def results_csv(self, reader: Reader, event_id: str) -> str:
        """The standings, then every traveller row, as CSV (one header row each)."""
        doc = self.results(reader, event_id)
        names = doc["event"]["players"]
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\r\n")
        w.writerow(["place", "player", "matchpoints", "top", "percentage", "imps", "boards", "wins", "difference"])
        for row in doc["standings"]["rows"]:
            w.writerow(
                [
                    row["place"],
                    row["name"],
                    row["matchpoints"],
                    row["top"],
                    row["percentage"],
                    row["imps"],
                    row["boards"],
                    row["wins"],
                    row["difference"],
                ]
            )
        w.writerow([])
        w.writerow(["round", "board", "table", "game_id", "seat", "player", "points", "result", "matchpoints", "imps"])
        for trav in doc["travellers"]:
            for table in trav["tables"]:
                if not table["played"]:
                    continue
                for seat, player in enumerate(table["players"]):
                    w.writerow(
                        [
                            trav["round"],
                            trav["board"],
                            table["table"],
                            table["game_id"],
                            seat,
                            names[player],
                            table["points"][seat],
                            table["results"][seat],
                            table["matchpoints"][seat],
                            table["imps"][seat],
                        ]
                    )
        return out.getvalue()

    # ------------------------------------------------------------------ the whole record

    def export_event(self, reader: Reader, event_id: str) -> bytes:
        """The event's whole record in one JSON document (`tablebook-event-v1`): the event, its rounds and
        tables, its board set (revealed boards' seeds only) and every table's json export, as the reader may
        see it. `fairdeal.py event.json` checks every table's deals against the set with nothing else."""
        rows = stored.get_event(self.store.db, event_id, reader.club_id)
        doc = self._document(rows)
        games = []
        for table in rows.tables:
            if table.game_id is None:
                continue
            exported = self.export(reader, table.game_id, "json").document
            if exported is not None:
                games.append(exported)
        return orjson.dumps({"format": EXPORT_FORMAT, **doc, "board_set": doc["board_set"], "games": games})

    def import_event(self, reader: Reader, body: bytes) -> dict[str, Any]:
        """An event's bulk export as a new event of the reader's club: its board set checked (commitment,
        revealed seeds), every table game imported after its chain and rules are checked and its deals
        checked against the set (`fairdeal.verify_event`), then the event written with its tables. The set's
        secret stays where it was made: an imported event deals nothing.

        Raises:
            ForbiddenError: not a recorder key.
            InvalidEventError / BadImportError: not an event export, or a problem found in it (nothing is
                written).
        """
        reader.require("recorder")
        club_id = own_club(reader)
        try:
            doc = orjson.loads(body)
            reports = fairdeal.verify_event(doc)
        except (orjson.JSONDecodeError, ValueError) as exc:
            raise InvalidEventError(f"not an event export: {exc}", field="body") from None
        for game_id, report in reports.items():
            if not report.ok:
                raise InvalidEventError(
                    f"table game {game_id}: {report.problems[0]['message']}", field="games", game=game_id
                )
        if any(not isinstance(g, Mapping) or g.get("redacted") for g in doc["games"]):
            raise InvalidEventError("a redacted table record cannot be imported", field="games")
        # every table game checked (chain, rules) before any is written: a bad one writes nothing
        checked = [importer.read_file(orjson.dumps(game), actor=reader.actor, fmt="json") for game in doc["games"]]
        try:
            players = [str(p) for p in doc["players"]]
            board_set = doc.get("board_set")
            ids: dict[str, str] = {}
            for game, read in zip(doc["games"], checked, strict=True):
                ids[str(game["id"])] = importer.import_or_find(self.store, club_id, read, copy=True)[0].id
            event_id, now = new_id("e"), utc_now()
            record = stored.EventRecord(
                id=event_id,
                club_id=club_id,
                name=str(doc["name"]),
                kind=str(doc["game"]),
                category=str(doc["kind"]),
                players=tuple(players),
                seats=int(doc["seats"]),
                movement=str(doc["movement"]),
                rounds=int(doc["planned_rounds"]),
                options=dict(doc["options"]),
                boards=int(doc["boards"]),
                scoring=str(doc["scoring"]),
                created_at=str(doc["created_at"]),
                created_by=reader.actor,
                source_id=str(doc["id"]),
            )
            index = {name: i for i, name in enumerate(players)}
            rounds = [
                stored.RoundRecord(int(r["round"]), tuple(index[n] for n in r["sit_out"]), r["started_at"] or now, now)
                for r in doc["rounds"]
            ]
            tables = [
                stored.TableRecord(
                    int(r["round"]),
                    int(t["table"]),
                    tuple(int(s) for s in t["seats"]),
                    ids.get(str(t["game_id"])),
                    stored.EVERY_BOARD,
                    True,
                )
                for r in doc["rounds"]
                for t in r["tables"]
            ]
            set_row, board_rows = None, []
            if isinstance(board_set, Mapping):
                set_row = stored.SetRecord(
                    str(board_set["genesis"]),
                    str(board_set["commitment"]),
                    int(board_set["count"]),
                    tuple(str(s) for s in board_set["seeds"]),
                    str(doc["created_at"]),
                    now,
                )
                board_rows = [
                    stored.BoardRecord(
                        int(b["number"]),
                        int(b["round"]),
                        int(b["hand"]),
                        str(b["commitment"]),
                        now if b.get("seed") else None,
                        b.get("seed"),
                    )
                    for b in board_set["boards"]
                ]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InvalidEventError(f"not a well-formed event export: {exc!r}", field="body") from None
        stored.create_event(self.store.db, record, rounds, tables, set_row, None, board_rows)
        return self.event(reader, event_id)


def board_set_document(kind: str, rows: stored.EventRows) -> dict[str, Any]:
    """The board set's public part: what `fairdeal.py` checks a table against (a board's seed once revealed)."""
    assert rows.board_set is not None
    bs = rows.board_set
    return {
        "algorithm": duplicate_boards.BOARDS_ALGORITHM,
        "game": kind,
        "genesis": bs.genesis,
        "count": bs.count,
        "seeds": list(bs.seeds),
        "commitment": bs.commitment,
        "sealed_at": bs.sealed_at,
        "boards": [
            {"number": b.number, "round": b.round, "hand": b.hand, "commitment": b.commitment, "seed": b.seed}
            for b in rows.boards
        ],
    }


def _headline(ev: stored.EventRecord) -> dict[str, Any]:
    return {
        "id": ev.id,
        "name": ev.name,
        "kind": ev.category,
        "game": ev.kind,
        "players": list(ev.players),
        "seats": ev.seats,
        "movement": ev.movement,
        "planned_rounds": ev.rounds,
        "boards": ev.boards,
        "scoring": ev.scoring,
        "tie_breaks": list(compare.TIE_BREAKS[ev.scoring]),
        "created_at": ev.created_at,
        "source_id": ev.source_id,
    }


def _rule(method: str, players: int, seats: int) -> str:
    """The movement's rule, in words (as `movements.plan` states it)."""
    if method == "free":
        return "free: the tables are the games attached to the event"
    if method == "swiss":
        return movements.SWISS_RULE
    if method == "round-robin":
        return movements.round_robin(players, 1).rule
    block = movements.block_length(players, seats)
    return (
        f"tables of {seats}: in each block of {block} round{'s' if block > 1 else ''} nobody meets anybody twice, "
        "players who have never met are seated together first, and seat 0 goes to whoever has sat there least"
    )


def _same_deal(kind: str) -> str | None:
    duplicate = rules_for(kind).duplicate
    return None if duplicate is None else duplicate.same
