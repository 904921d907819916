"""The `tablebook` command line: keys, demo, score, verify."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from typer.testing import CliRunner

from api.auth import authenticate
from api.cli import app
from events.store import Store
from projections.core.recorder import Recorder
from projections.core.registry import rules_for
from tests.projections.helpers import load_example

runner = CliRunner()

#: Schnapsen's totals are game points still to go (`GameRules.units`): read "3 to go", never a bare "3"
TO_GO = rules_for("schnapsen").unit("totals") == "to_go"


def schnapsen_totals(totals: dict[str, int], names: list[str]) -> str:
    """How the CLI writes Schnapsen's totals in a sentence: `Hanna 3 to go, Elias 0 to go`."""
    if TO_GO:
        return ", ".join(f"{n} {max(totals[str(s)], 0)} to go" for s, n in enumerate(names))
    return ", ".join(f"{n} {totals[str(s)]}" for s, n in enumerate(names))


def schnapsen_cell(totals: dict[str, int]) -> str:
    """Schnapsen's totals in a list's column: `3/0 to go`."""
    if TO_GO:
        return f"{max(totals['0'], 0)}/{max(totals['1'], 0)} to go"
    return f"{totals['0']}/{totals['1']}"


@pytest.fixture
def url(tmp_path: object) -> str:
    return f"sqlite:///{tmp_path}/cli.db"


def test_keys_create_prints_the_key_last_and_it_authenticates(url: str) -> None:
    runner.invoke(app, ["migrate", "--database", url])
    result = runner.invoke(app, ["keys", "create", "--club", "Chess & Cards", "--role", "auditor", "--database", url])
    assert result.exit_code == 0, result.output
    key = result.output.strip().splitlines()[-1]
    principal = authenticate(Store(url), f"Bearer {key}")
    assert principal.club == "Chess & Cards" and principal.role == "auditor"
    listed = runner.invoke(app, ["keys", "list", "--database", url])
    assert key.split("_")[1] in listed.output and key.split("_", 2)[2] not in listed.output
    revoked = runner.invoke(app, ["keys", "revoke", key, "--database", url])
    assert revoked.exit_code == 0
    assert runner.invoke(app, ["keys", "revoke", key, "--database", url]).exit_code == 1
    bad = runner.invoke(app, ["keys", "create", "--club", "x", "--role", "king", "--database", url])
    assert bad.exit_code == 2


def test_demo_records_verified_games_once(url: str) -> None:
    result = runner.invoke(app, ["demo", "--games", "1", "--database", url])
    assert result.exit_code == 0, result.output
    store = Store(url)
    ids = store.game_ids()
    assert len(ids) >= 1
    again = runner.invoke(app, ["demo", "--if-empty", "--database", url])
    assert "already holds games" in again.output and store.game_ids() == ids
    verified = runner.invoke(app, ["verify", "--database", url])
    assert verified.exit_code == 0 and f"{len(ids)} of {len(ids)} games verified" in verified.output


def test_score_prints_lines_and_totals_and_verify_fails_on_a_bad_game(url: str) -> None:
    runner.invoke(app, ["migrate", "--database", url])
    store = Store(url)
    recorder = Recorder(store)
    club = store.ensure_club("c")
    example = load_example("schnapsen-9002.json")
    game = recorder.create_game(club_id=club, kind="schnapsen", players=example["players"], options=example["options"])
    recorder.append(game.id, example["events"], club_id=club, actor="t")
    result = runner.invoke(app, ["score", game.id, "--database", url])
    assert result.exit_code == 0
    assert "schnapsen.reached_66" in result.output and "hand 1: Hanna " in result.output
    assert schnapsen_totals({"0": 3, "1": 0}, ["Hanna", "Elias"]) + (" (game points won: " if TO_GO else "") in (
        result.output
    )
    assert "winner: Elias" in result.output
    assert "{seat" not in result.output and "seat 0" not in result.output and "seat 1" not in result.output
    assert runner.invoke(app, ["score", "nope", "--database", url]).exit_code == 1
    with store.engine.connect() as conn, conn.begin():
        conn.exec_driver_sql("DROP TRIGGER event_no_update")
        conn.exec_driver_sql(f"UPDATE event SET actor = 'someone' WHERE game_id = '{game.id}' AND seq = 12")
    failed = runner.invoke(app, ["verify", game.id, "--database", url])
    assert failed.exit_code == 1 and "first bad seq 12" in failed.output


def test_replay_prints_frames_from_a_seat_and_audit_prints_claims(url: str) -> None:
    runner.invoke(app, ["migrate", "--database", url])
    store = Store(url)
    recorder = Recorder(store)
    club = store.ensure_club("c")
    example = load_example("schnapsen-9001.json")
    game = recorder.create_game(club_id=club, kind="schnapsen", players=example["players"], options=example["options"])
    recorder.append(game.id, example["events"][:5], club_id=club, actor="t")
    shown = runner.invoke(app, ["replay", game.id, "--hand", "1", "--seat", "0", "--database", url])
    assert shown.exit_code == 0, shown.output
    assert "Emma play K♣ marriage" in shown.output and "Lukas: 4 cards" in shown.output
    assert "Emma: [" in shown.output and "??" in shown.output  # Lukas's dealt cards are hidden from Emma
    recorder.append(game.id, example["events"][5:], club_id=club, actor="t")
    recorder.append(
        game.id, [{"type": "score_claimed", "hand": 1, "points": {"0": 3, "1": 0}}], club_id=club, actor="t"
    )
    report = runner.invoke(app, ["audit", game.id, "--database", url])
    assert report.exit_code == 0
    assert "chain: ok" in report.output and "claimed 3 for Emma, computed 2" in report.output
    assert runner.invoke(app, ["replay", game.id, "--hand", "99", "--database", url]).exit_code == 1


# --------------------------------------------------------------------------- serve and demo-keys (issue 14)


def _tablebook(args: list[str], env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """`python -m api.cli ARGS` in a process of its own, with `env` added: (exit status, stdout, stderr)."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    environment = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
    done = subprocess.run(
        [sys.executable, "-m", "api.cli", *args], capture_output=True, text=True, timeout=60, env=environment, cwd=ROOT
    )
    return done.returncode, done.stdout, done.stderr


def test_serve_refuses_a_busy_port_before_it_prints_an_address(tmp_path: object) -> None:
    import socket
    from pathlib import Path

    database = f"sqlite:///{tmp_path}/serve.db"
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        by_option = _tablebook(["serve", "--port", str(port), "--database", database])
        by_environment = _tablebook(["serve", "--database", database], {"TABLEBOOK_PORT": str(port)})
    for status, out, err in (by_option, by_environment):
        assert status == 1, (out, err)
        assert err.startswith(f"error: 127.0.0.1:{port} is in use"), err
        assert "http://" not in out
    assert not (Path(str(tmp_path)) / "serve.db").exists()  # refused before anything else was done


def _serve_once(args: list[str], env: dict[str, str]) -> tuple[str, str]:
    """Start `tablebook serve`, wait for /healthz, ask it once more, stop it: (its stdout, its stderr)."""
    import os
    import subprocess
    import sys
    import time

    import httpx

    from tests.conftest import ROOT

    base = f"http://127.0.0.1:{env['TABLEBOOK_PORT']}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "api.cli", "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **env},
        cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, proc.communicate()
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the server did not answer within 30 s"
            time.sleep(0.2)
        assert httpx.head(f"{base}/replay", timeout=5).status_code == 200
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    return out, err


def test_serve_listens_where_the_settings_say_and_logs_each_request(tmp_path: object) -> None:
    from tests.reliability.server import free_port

    env = {"TABLEBOOK_HOST": "127.0.0.1", "TABLEBOOK_PORT": str(free_port())}
    env["TABLEBOOK_DATABASE_URL"] = f"sqlite:///{tmp_path}/serve.db"
    out, err = _serve_once([], env)
    assert f"Tablebook API:  http://127.0.0.1:{env['TABLEBOOK_PORT']}/v1/games" in out, (out, err)
    assert '"GET /healthz HTTP/1.1" 200' in out and '"HEAD /replay HTTP/1.1" 200' in out, out
    env["TABLEBOOK_PORT"] = str(free_port())
    quiet, err = _serve_once(["--no-access-log"], env)
    assert f"http://127.0.0.1:{env['TABLEBOOK_PORT']}/docs" in quiet and "HTTP/1.1" not in quiet, (quiet, err)


def test_demo_keys_are_made_once_and_printed_again(url: str, tmp_path: object) -> None:
    import re
    from pathlib import Path

    from events.errors import UnauthorizedError

    def printed(output: str) -> dict[str, str]:
        return dict(re.findall(r"(recorder|auditor|viewer) key:\s+(tb_\S+)", output))

    runner.invoke(app, ["migrate", "--database", url])
    legacy = runner.invoke(app, ["keys", "create", "--club", "Demo club", "--label", "make run", "--database", url])
    legacy_key = legacy.output.strip().splitlines()[-1]
    first = runner.invoke(app, ["demo-keys", "--database", url])
    assert first.exit_code == 0, first.output
    keys = printed(first.output)
    assert set(keys) == {"recorder", "auditor", "viewer"}, first.output
    assert "Authorization: Bearer" in first.output and f"Bearer {keys['viewer']}" in first.output
    store = Store(url)
    for role, key in keys.items():
        principal = authenticate(store, f"Bearer {key}")
        assert principal.club == "Demo club" and principal.role == role
    with pytest.raises(UnauthorizedError):  # the keys older versions minted at every run are revoked
        authenticate(store, f"Bearer {legacy_key}")
    saved = Path(str(tmp_path)) / "demo-keys.json"  # beside the SQLite file
    assert saved.stat().st_mode & 0o777 == 0o600
    again = runner.invoke(app, ["demo-keys", "--database", url])
    assert again.exit_code == 0 and printed(again.output) == keys, again.output
    assert len([k for k in store.list_keys("Demo club") if k.revoked_at is None]) == 3

    runner.invoke(app, ["keys", "revoke", keys["viewer"], "--database", url])  # a saved key stops working
    third = runner.invoke(app, ["demo-keys", "--database", url])
    renewed = printed(third.output)
    assert set(renewed) == set(keys) and not set(renewed.values()) & set(keys.values()), third.output
    for key in keys.values():
        with pytest.raises(UnauthorizedError):
            authenticate(store, f"Bearer {key}")
    assert len([k for k in store.list_keys("Demo club") if k.revoked_at is None]) == 3
    store.dispose()


# --------------------------------------------------------------------------- list, search, --json, filters (issue 14)


class Recorded:
    """A database with three games of club "c" (oldest first) and one of club "d", and an API over it."""

    def __init__(self, url: str) -> None:
        from fastapi.testclient import TestClient

        from api.auth import create_key
        from api.main import create_app
        from api.settings import Settings
        from events.store.migrate import upgrade

        upgrade(url)
        self.url = url
        self.store = Store(url)
        recorder = Recorder(self.store)
        self.c: list[str] = []
        for name, club in [("schnapsen-9001.json", "c"), ("casino-9002.json", "c"), ("schnapsen-9002.json", "c")]:
            self.c.append(self.record(recorder, name, club))
        self.d = self.record(recorder, "schnapsen-9002.json", "d")
        self.auditor = {"Authorization": f"Bearer {create_key(self.store, 'c', 'auditor')}"}
        self.client = TestClient(create_app(Settings(database_url=url), self.store))

    def record(self, recorder: Recorder, example_name: str, club: str) -> str:
        example = load_example(example_name)
        club_id = self.store.ensure_club(club)
        game = recorder.create_game(
            club_id=club_id, kind=example["game"], players=example["players"], options=example["options"]
        )
        recorder.append(game.id, example["events"], club_id=club_id, actor="t")
        return game.id

    def api(self, path: str) -> Any:
        response = self.client.get(path, headers=self.auditor)
        assert response.status_code == 200, response.text
        return response.json()

    def cli(self, *args: str) -> Any:
        """The document `tablebook ARGS --json` prints: stdout must be one JSON document and nothing else."""
        import orjson

        result = runner.invoke(app, [*args, "--json", "--database", self.url])
        assert result.exit_code == 0, result.output
        return orjson.loads(result.stdout)


@pytest.fixture
def recorded(url: str) -> Iterator[Recorded]:
    games = Recorded(url)
    yield games
    games.store.dispose()


def test_list_prints_a_row_a_game_newest_first_and_its_json_is_the_apis_page(recorded: Recorded) -> None:
    listed = runner.invoke(app, ["list", "--club", "c", "--database", recorded.url])
    assert listed.exit_code == 0, listed.output
    header, *rows = listed.stdout.splitlines()
    assert header.split("\t") == ["id", "game", "players", "status", "seq", "totals", "winner", "created"]
    cells = [row.split("\t") for row in rows]
    assert [row[0] for row in cells] == recorded.c[::-1]
    newest = recorded.store.get_game(recorded.c[-1])
    assert newest.winner is not None
    assert cells[0] == [
        newest.id,
        "schnapsen",
        "Hanna, Elias",
        "finished",
        str(newest.seq),
        schnapsen_cell(newest.totals),
        newest.players[newest.winner],
        newest.created_at,
    ]
    assert recorded.cli("list", "--club", "c") == recorded.api("/v1/games")
    assert recorded.cli("list", "--club", "c", "--game", "casino") == recorded.api("/v1/games?game=casino")
    assert [g["id"] for g in recorded.cli("list", "--player", "Emma")["games"]] == [recorded.c[0]]
    first = recorded.cli("list", "--club", "c", "--limit", "1")
    assert first == recorded.api("/v1/games?limit=1") and first["next_cursor"]
    cursor = first["next_cursor"]
    assert recorded.cli("list", "--club", "c", "--limit", "1", "--cursor", cursor) == recorded.api(
        f"/v1/games?limit=1&cursor={cursor}"
    )
    everyone = recorded.cli("list")["games"]
    assert [g["id"] for g in everyone] == [recorded.d, *recorded.c[::-1]]  # every club, newest first
    # --since: a time with its zone, compared as a time (the same instant written at +01:00)
    second = recorded.store.get_game(recorded.c[1]).created_at  # 2026-11-29T14:02:11.123456Z
    plus_one = datetime.fromisoformat(second).astimezone(timezone(timedelta(hours=1)))
    at_plus_one = plus_one.isoformat(timespec="microseconds")  # the next day after 23:00 UTC
    since = recorded.cli("list", "--club", "c", "--since", at_plus_one)["games"]
    assert [g["id"] for g in since] == recorded.c[:0:-1]
    later = runner.invoke(app, ["list", "--since", "2999-01-01", "--database", recorded.url])
    assert later.exit_code == 0 and later.stdout.splitlines() == [header]


def test_search_lists_each_game_with_its_hits_and_its_json_is_the_apis(recorded: Recorded) -> None:
    found = runner.invoke(app, ["search", "marriage", "--club", "c", "--database", recorded.url])
    assert found.exit_code == 0, found.output
    page = recorded.api("/v1/games?has=marriage")
    games = page["games"]
    assert [g["id"] for g in games] == [recorded.c[2], recorded.c[0]]  # the two Schnapsen games, newest first
    lines = found.stdout.splitlines()
    expected: list[str] = []
    for game in games:
        expected.append(next(line for line in lines if line.startswith(game["id"] + "  schnapsen  ")))
        expected += [
            f"  hand {h['hand']}, seq {h['seq']}: marriage ({game['players'][h['seat']]})" for h in game["hits"]
        ]
    assert lines == expected and len(expected) > 4
    assert recorded.cli("search", "marriage", "--club", "c") == page
    assert recorded.cli("search", "marriage,close", "--club", "c", "--player", "Emma") == recorded.api(
        "/v1/games?has=marriage&has=close&player=Emma"
    )
    assert recorded.cli("search", "build", "three_faces", "--club", "c") == recorded.api(
        "/v1/games?has=build,three_faces"
    )
    unknown = runner.invoke(app, ["search", "slam", "--database", recorded.url])
    assert unknown.exit_code == 2 and "unknown situation 'slam'" in unknown.output


def test_json_of_score_audit_verify_and_replay_is_the_apis_document(recorded: Recorded) -> None:
    game = recorded.c[0]
    for args, path in [
        (["score", game], f"/v1/games/{game}/score"),
        (["audit", game], f"/v1/games/{game}/audit"),
        (["verify", game], f"/v1/games/{game}/verify"),
        (["replay", game, "--hand", "2"], f"/v1/games/{game}/replay?hand=2"),
        (["replay", game, "--hand", "1", "--seat", "1"], f"/v1/games/{game}/replay?hand=1&seat=1"),
    ]:
        assert recorded.cli(*args) == recorded.api(path), args
    every = recorded.cli("verify")
    assert isinstance(every, list) and [r["game"] for r in every] == recorded.store.game_ids()
    for report in every:
        if report["game"] in recorded.c:
            alone = {k: v for k, v in report.items() if k != "game"}
            assert alone == recorded.api(f"/v1/games/{report['game']}/verify")
    both = runner.invoke(app, ["replay", game, "--follow", "--json", "--database", recorded.url])
    assert both.exit_code == 2


def test_audit_prints_the_score_section_and_replay_prints_words_not_python(recorded: Recorded) -> None:
    game = recorded.c[0]
    audit = runner.invoke(app, ["audit", game, "--database", recorded.url])
    assert audit.exit_code == 0, audit.output
    score = audit.stdout.split("\nscore (finished): ", 1)[1]
    sheet = recorded.api(f"/v1/games/{game}/score")
    assert score.startswith(schnapsen_totals(sheet["totals"], ["Emma", "Lukas"]))
    reasons = [line["reason"] for hand in sheet["hands"] for line in hand["lines"]]
    assert reasons and all(reason in audit.stdout for reason in reasons)  # the API's words, with the names
    assert "\n  hand 1: Emma " in score and "schnapsen." in score and "(seqs " in score
    shown = runner.invoke(app, ["replay", game, "--hand", "1", "--database", recorded.url])
    assert shown.exit_code == 0, shown.output
    text = shown.stdout
    for python in ("True", "False", "None", "{'", "':", "[{"):
        assert python not in text, python
    assert "   1  deal dealer Lukas hands (Emma [K♣ A♣ 10♦ J♥ Q♣], Lukas [J♣ 10♠ A♥ K♦ K♥]) trump card A♦" in text
    assert "   2  Emma play K♣ marriage" in text
    assert "table: dealer Lukas, leader Emma, trump suit ♦, trump card A♦, trump face up, talon 10\n" in text
    assert (
        "last trick (winner Emma plays (Emma K♣, Lukas J♣) points 6)" in text
        and "      phase draw; to act: Emma\n" in text
    )


def test_piped_output_is_plain_and_never_wrapped(tmp_path: object) -> None:
    url = f"sqlite:///{tmp_path}/piped.db"
    runner.invoke(app, ["migrate", "--database", url])
    store = Store(url)
    long_name = "Anna-Lena " + "von Hohenzollern-Sigmaringen " * 3  # 97 characters, spaces to wrap at
    club_id = store.ensure_club("c")
    example = load_example("schnapsen-9002.json")
    recorder = Recorder(store)
    players = [long_name.strip(), "Ben"]
    game = recorder.create_game(club_id=club_id, kind="schnapsen", players=players, options=example["options"])
    recorder.append(game.id, example["events"], club_id=club_id, actor="t")
    record = store.get_game(game.id)
    store.dispose()
    env = {"COLUMNS": "40", "TERM": "xterm-256color"}  # a narrow terminal's width must not matter in a pipe
    status, listed, _ = _tablebook(["list", "--database", url], env)
    assert status == 0
    (row,) = listed.splitlines()[1:]
    winner = "Ben" if record.winner == 1 else long_name.strip()
    totals = schnapsen_cell(record.totals)
    assert row.split("\t") == [
        game.id,
        "schnapsen",
        f"{long_name.strip()}, Ben",
        "finished",
        str(record.seq),
        totals,
        winner,
        record.created_at,
    ]
    assert len(row) > 120 and row.index(record.created_at) > 80  # whole, on one line, past column 80
    status, found, _ = _tablebook(["search", "marriage", "--database", url], env)
    assert status == 0 and found.splitlines()[0].startswith(f"{game.id}  schnapsen  {long_name.strip()}, Ben  ")
    assert found.splitlines()[0].endswith(record.created_at)
    status, scored, _ = _tablebook(["score", game.id, "--database", url], env)
    assert status == 0 and f"Schnapsen {game.id}: 0 {long_name.strip()}, 1 Ben\n" in scored
    status, replayed, _ = _tablebook(["replay", game.id, "--database", url], env)
    deal = replayed.splitlines()[0]
    assert status == 0 and deal.startswith("   1  deal dealer Ben hands (") and len(deal) > 80
    for out in (listed, found, scored, replayed):
        assert "\x1b[" not in out and "│" not in out and "━" not in out


@pytest.mark.parametrize(
    "args",
    [
        ["list", "--since", "yesterday"],
        ["list", "--until", "2026-13-45"],
        ["list", "--since", "2026-11-29T10:00"],  # no time zone
        ["list", "--game", "Schnapsen"],
        ["list", "--status", "done"],
        ["search", "sweep", "--since", "yesterday"],
        ["export", "--all", "--since", "yesterday"],
        ["export", "--all", "--game", "poker"],
    ],
)
def test_a_bad_filter_is_refused_with_status_2(url: str, args: list[str]) -> None:
    runner.invoke(app, ["migrate", "--database", url])
    result = runner.invoke(app, [*args, "--database", url])
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '{args[-2]}'" in result.output and args[-1] in result.output
    assert result.stdout == ""


def test_a_date_alone_means_midnight_utc(recorded: Recorded) -> None:
    created = recorded.store.get_game(recorded.c[0]).created_at
    day = created[:10]
    assert recorded.cli("list", "--since", day) == recorded.cli("list", "--since", f"{day}T00:00:00Z")
    assert recorded.cli("list", "--since", day)["games"]
    assert recorded.cli("list", "--until", day) == recorded.cli("list", "--until", f"{day}T01:00:00+01:00")
    assert recorded.cli("list", "--until", day)["games"] == []


def test_seven_and_a_half_prints_chips_and_half_points_in_their_units(url: str) -> None:
    import random
    import re

    from api.service import OPERATOR, Tablebook
    from projections.core import phrases

    runner.invoke(app, ["migrate", "--database", url])
    store = Store(url)
    service = Tablebook(Recorder(store))
    game = service.record_demo_game(service.ensure_club("c"), "seven-and-a-half", random.Random(3))
    scored = runner.invoke(app, ["score", game, "--database", url])
    assert scored.exit_code == 0, scored.output
    assert re.search(r"\t[+-]\d+ chips?\thalf\.", scored.stdout), "a line's points are chips"
    assert re.search(r"^totals \(finished\): Juan -?\d+ chips?, ", scored.stdout, re.M)
    assert "{" not in scored.stdout and not re.search(r"\bseat \d", scored.stdout)
    replayed = runner.invoke(app, ["replay", game, "--database", url])
    assert replayed.exit_code == 0, replayed.output
    assert "min bet 1 chip, max bet 100 chips" in replayed.stdout
    document = service.replay(OPERATOR, game, hand=1)
    totals = [hand["total"] for f in document["frames"] for s in f["state"]["seats"] for hand in s.get("hands", [])]
    assert totals
    for total in totals:  # every total a person reads is in half points' own unit
        assert f"total {phrases.halves(total)}" in replayed.stdout
    store.dispose()
