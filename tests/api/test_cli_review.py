"""`tablebook review GAME [--hand N] [--seat K] [--json]`: the last finished hand by default, one line a
decision with its mark and sentence, each seat's tally; a live hand or a missing one refused with exit code 1."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from api.cli import app
from events.store import Store
from tests.api.helpers import gin_in_hand_2
from tests.conftest import make_club

runner = CliRunner()


def test_review_prints_the_last_finished_hand_and_refuses_the_live_one(tmp_path: object) -> None:
    url = f"sqlite:///{tmp_path}/cli.db"
    assert runner.invoke(app, ["migrate", "--database", url]).exit_code == 0
    store = Store(url)
    game_id, _ = gin_in_hand_2(store, make_club(store))

    shown = runner.invoke(app, ["review", game_id, "--database", url])
    assert shown.exit_code == 0, shown.output
    assert shown.output.startswith(f"Review of hand 1 of {game_id}")
    document = json.loads(runner.invoke(app, ["review", game_id, "--hand", "1", "--json", "--database", url]).output)
    assert document["hand"] == 1 and document["decisions"]
    for decision in document["decisions"]:  # each decision's line: its mark, its seq and its sentence
        mark = decision["mark"] or ""
        assert f"{mark:<2} event {decision['seq']}: {decision['sentence']}" in shown.output
    for tally in document["seats"]:
        assert f"{tally['player']}: {tally['decisions']} decisions, {tally['inaccuracies']} ?!" in shown.output

    live = runner.invoke(app, ["review", game_id, "--hand", "2", "--database", url])
    assert live.exit_code == 1 and "still being played" in live.output
    assert runner.invoke(app, ["review", game_id, "--hand", "99", "--database", url]).exit_code == 1
    store.dispose()
