"""The `tablebook` command line: keys, demo, score, verify."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from api.auth import authenticate
from api.cli import app
from events.store import Store
from projections.recorder import Recorder
from tests.projections.helpers import load_example

runner = CliRunner()


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
    assert "schnapsen.reached_66" in result.output and "Hanna 3, Elias 0" in result.output
    assert "winner: Elias" in result.output
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
