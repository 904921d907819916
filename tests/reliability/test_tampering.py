"""Tampering, found through the live server: `GET /verify`, the audit and `tablebook verify` name the first bad seq.

The edits are made the way someone holding the database would: triggers
dropped, a row edited, deleted, reordered or forged, triggers restored
(`tamper` of tests/store/helpers.py, which tests/store/test_store.py uses
to check `verify_game` itself; these check what the API and the CLI report,
with a server process that has the game in its cache).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest

from events.codec import dumps, envelope_hash
from events.store import Store
from tests.conftest import make_club
from tests.reliability.figures import FIGURES
from tests.reliability.load import Api, simulated
from tests.reliability.server import ROOT, ServerGroup
from tests.store.helpers import tamper

pytestmark = pytest.mark.reliability

EVENTS = simulated("schnapsen", seed=9001, max_events=100)
N = len(EVENTS)


def edit_data(store: Store, game_id: str) -> None:
    tamper(store, "UPDATE event SET data = :d WHERE game_id = :g AND seq = 40", d='{"card":"AS","seat":1}', g=game_id)


def edit_and_rehash(store: Store, game_id: str) -> None:
    env = store.read_events(game_id, 19, 1)[0]
    env["data"] = {**env["data"], "seat": 1 - env["data"]["seat"]} if "seat" in env["data"] else {**env["data"], "x": 1}
    tamper(
        store,
        "UPDATE event SET data = :d, hash = :h WHERE game_id = :g AND seq = 20",
        d=dumps(env["data"]),
        h=envelope_hash(env),
        g=game_id,
    )


def delete_row(store: Store, game_id: str) -> None:
    tamper(store, "DELETE FROM event WHERE game_id = :g AND seq = 77", g=game_id)


def reorder_rows(store: Store, game_id: str) -> None:
    tamper(store, "UPDATE event SET seq = -1 WHERE game_id = :g AND seq = 30", g=game_id)
    tamper(store, "UPDATE event SET seq = 30 WHERE game_id = :g AND seq = 31", g=game_id)
    tamper(store, "UPDATE event SET seq = 31 WHERE game_id = :g AND seq = -1", g=game_id)


def drop_tail(store: Store, game_id: str) -> None:
    tamper(store, "DELETE FROM event WHERE game_id = :g AND seq = :s", g=game_id, s=N)


def forge_row(store: Store, game_id: str) -> None:
    """A row inserted at the end (INSERT is not refused), chained and hashed right, the game's head left alone."""
    last = store.read_events(game_id, N - 1, 1)[0]
    env = {**last, "seq": N + 1, "type": "note", "data": {"text": "Ben agreed to 3 points"}, "result": {}}
    env.pop("violation", None)
    env["prev_hash"] = last["hash"]
    env["hash"] = envelope_hash({k: v for k, v in env.items() if k != "hash"})
    tamper(
        store,
        "INSERT INTO event (game_id, seq, hand, type, data, result, violation, recorded_at, actor, prev_hash, hash) "
        "VALUES (:g, :s, :hand, 'note', :d, '{}', NULL, :at, :actor, :p, :h)",
        g=game_id,
        s=N + 1,
        hand=env["hand"],
        d=dumps(env["data"]),
        at=env["recorded_at"],
        actor=env["actor"],
        p=env["prev_hash"],
        h=env["hash"],
    )


CASES: dict[str, tuple[Callable[[Store, str], None], int]] = {
    "an edited row": (edit_data, 40),
    "an edited row with its hash recomputed": (edit_and_rehash, 20),
    "a deleted row": (delete_row, 77),
    "two rows swapped": (reorder_rows, 30),
    "the last row deleted": (drop_tail, N),
    "a forged row appended": (forge_row, N + 1),
}


#: cases where `verify` is known to name another seq than the first bad one (none)
KNOWN_WRONG: dict[str, int] = {}


def test_tampering_is_found_by_verify_at_the_first_bad_seq(
    store: Store, shared_server: ServerGroup, full: bool
) -> None:
    club = make_club(store)
    wrong: list[str] = []
    for number, (case, (change, first_bad)) in enumerate(CASES.items()):
        with Api(shared_server.url, club.keys["recorder"]) as api:
            game_id = api.create_game("schnapsen")
            assert api.append(game_id, EVENTS)[0] == 201
            assert api.verify(game_id)["ok"]
            change(store, game_id)
            report = api.verify(game_id)
        with Api(shared_server.urls[1], club.keys["auditor"]) as auditor:
            status, audit = auditor.request("GET", f"/v1/games/{game_id}/audit")
        exit_code = None
        if full or number == 0:  # the CLI takes a second to start: once in the short run
            exit_code = subprocess.run(
                [sys.executable, "-m", "api.cli", "verify", game_id, "--database", store.url],
                cwd=ROOT,
                capture_output=True,
                text=True,
            ).returncode
        named = report["first_bad_seq"]
        FIGURES.note(
            "tampering",
            f"{store.dialect}: {case} (at seq {first_bad}): GET /verify ok={report['ok']}, first_bad_seq={named} "
            f"({report['problems'][0]['problem'] if report['problems'] else '-'}); the audit's chain "
            f"ok={audit['chain']['ok'] if status == 200 else status}"
            + (f"; `tablebook verify` exit {exit_code}" if exit_code is not None else ""),
        )
        if report["ok"] or named not in (first_bad, KNOWN_WRONG.get(case)):
            wrong.append(f"{case}: verify says {report}")
        if status != 200 or audit["chain"]["ok"] or exit_code not in (None, 1):
            wrong.append(f"{case}: the audit says {status} {str(audit)[:200]}; the CLI exits {exit_code}")
    assert not wrong, "\n".join(wrong)
