"""HTTP clients and workloads for the reliability suite.

`Api` is a thin client of one server process (httpx, keep-alive); an answer
is `(status, body)`, or `(None, None)` when no answer came (the connection
was refused or cut, or the request timed out): the outcome of such a
request is unknown, and the tests check that it landed whole or not at all.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

from events.store import Store
from projections.core.registry import available, rules_for
from projections.core.simulate import play
from projections.reading.verify import verify_game

#: players of each game kind (seat order): its declared demo players
PLAYERS: dict[str, list[str]] = {kind: list(rules_for(kind).demo_players) for kind in available()}

Answer = tuple[int | None, Any]


class Api:
    """One client of one server process, with one key."""

    def __init__(self, url: str, key: str, timeout: float = 30.0) -> None:
        self.url = url
        self.headers = {"Authorization": f"Bearer {key}"}
        self.http = httpx.Client(base_url=url, headers=self.headers, timeout=timeout)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Api:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request(self, method: str, path: str, **kwargs: Any) -> Answer:
        try:
            response = self.http.request(method, path, **kwargs)
        except httpx.HTTPError:
            return None, None
        try:
            body = response.json() if response.content else None
        except ValueError:
            body = response.text
        return response.status_code, body

    def create_game(self, kind: str, options: Mapping[str, Any] | None = None) -> str:
        status, body = self.request(
            "POST", "/v1/games", json={"game": kind, "players": PLAYERS[kind], "options": options or {}}
        )
        assert status == 201, (status, body)
        game_id: str = body["id"]
        return game_id

    def append(
        self,
        game_id: str,
        events: list[Any],
        expected_seq: int | None = None,
        idempotency_key: str | None = None,
        timeout: float | None = None,
    ) -> Answer:
        document: dict[str, Any] = {"events": events}
        if expected_seq is not None:
            document["expected_seq"] = expected_seq
        headers = {"Content-Type": "application/json"}
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        extra: dict[str, Any] = {} if timeout is None else {"timeout": timeout}
        return self.request("POST", f"/v1/games/{game_id}/events", content=encode(document), headers=headers, **extra)

    def head(self, game_id: str) -> int:
        status, body = self.request("GET", f"/v1/games/{game_id}")
        assert status == 200, (status, body)
        seq: int = body["seq"]
        return seq

    def verify(self, game_id: str) -> dict[str, Any]:
        status, body = self.request("GET", f"/v1/games/{game_id}/verify")
        assert status == 200, (status, body)
        report: dict[str, Any] = body
        return report


def encode(document: Any) -> bytes:
    """JSON bytes; the standard library's encoder for what orjson refuses (nesting over 254 deep)."""
    try:
        return orjson.dumps(document)
    except TypeError:
        return json.dumps(document).encode()


def simulated(kind: str, seed: int, max_events: int = 400) -> list[dict[str, Any]]:
    """The events of a random legal game of `kind` (cut at `max_events`)."""
    playout = play(rules_for(kind), PLAYERS[kind], {}, rng=random.Random(seed), max_events=max_events)
    return list(playout.events)


def kinds() -> list[str]:
    return available()


def note(text: str) -> dict[str, Any]:
    return {"type": "note", "text": text}


def is_error_shape(body: Any) -> bool:
    """`{"error": {"code", "message", ...}}` with a non-empty code and message (DESIGN.md)."""
    return (
        isinstance(body, dict)
        and set(body) == {"error"}
        and isinstance(body["error"], dict)
        and isinstance(body["error"].get("code"), str)
        and bool(body["error"]["code"])
        and isinstance(body["error"].get("message"), str)
        and bool(body["error"]["message"])
    )


@dataclass
class Ledger:
    """What the clients were told about one game's appends."""

    acked: dict[int, str] = field(default_factory=dict)  # seq -> hash of every acknowledged envelope
    acked_texts: list[str] = field(default_factory=list)  # note texts of acknowledged batches
    refused_texts: list[str] = field(default_factory=list)  # note texts of batches refused with 409
    unknown_texts: list[str] = field(default_factory=list)  # note texts of batches without an answer

    def ack(self, envelopes: list[dict[str, Any]]) -> None:
        for env in envelopes:
            self.acked[env["seq"]] = env["hash"]
            if env["type"] == "note":
                self.acked_texts.append(env["data"]["text"])


@dataclass
class Check:
    """What the store holds against what the clients were told."""

    events: int = 0
    lost: int = 0
    duplicated: int = 0
    refused_but_stored: int = 0
    half_batches: int = 0
    gaps: int = 0
    problems: list[str] = field(default_factory=list)

    def merge(self, other: Check) -> None:
        self.events += other.events
        self.lost += other.lost
        self.duplicated += other.duplicated
        self.refused_but_stored += other.refused_but_stored
        self.half_batches += other.half_batches
        self.gaps += other.gaps
        self.problems += other.problems


def check_game(store: Store, game_id: str, ledger: Ledger) -> Check:
    """Every acknowledged event there exactly once, refused ones absent, seqs 1..n, the chain whole."""
    check = Check()
    stored = store.read_events(game_id)
    check.events = len(stored)
    seqs = [env["seq"] for env in stored]
    if seqs != list(range(1, len(stored) + 1)):
        check.gaps += 1
        check.problems.append(f"{game_id}: seqs are not 1..n: {seqs[:10]}...")
    by_seq = {env["seq"]: env for env in stored}
    for seq, hash_ in ledger.acked.items():
        if seq not in by_seq or by_seq[seq]["hash"] != hash_:
            check.lost += 1
            check.problems.append(f"{game_id}: acknowledged seq {seq} is not stored as acknowledged")
    texts: dict[str, int] = {}
    for env in stored:
        if env["type"] == "note":
            texts[env["data"]["text"]] = texts.get(env["data"]["text"], 0) + 1
    for text, count in texts.items():
        if count > 1:
            check.duplicated += count - 1
            check.problems.append(f"{game_id}: note {text!r} stored {count} times")
    for text in ledger.refused_texts:
        if texts.get(text):
            check.refused_but_stored += 1
            check.problems.append(f"{game_id}: note {text!r} was refused with 409 but is stored")
    game = store.get_game(game_id)
    report = verify_game(game, stored)
    if not report.ok:
        check.problems.append(f"{game_id}: verify fails: {report.problems[:1]}")
    return check


def batches_in(store: Store, game_id: str, prefix: str) -> Iterator[tuple[str, int, int]]:
    """(batch id, events stored, events it had) of batches whose notes read `prefix<id>/<i>/<n>`."""
    found: dict[str, list[int]] = {}
    for env in store.read_events(game_id):
        text = env["data"].get("text", "") if env["type"] == "note" else ""
        if text.startswith(prefix):
            batch, _, size = text[len(prefix) :].split("/")
            found.setdefault(batch, [0, int(size)])[0] += 1
    for batch, (count, size) in found.items():
        yield batch, count, size
