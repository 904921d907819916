"""The application service (`api/service/`) under the API and the CLI (issue 16).

The routes and the CLI are thin over it; these tests call it directly (as both do) and check the
layering: no SQL in `api/`, no reach through `recorder.store` in the routes, and no `async` route
that does not await (blocking work belongs in the threadpool).
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from api.auth import authenticate
from api.cli import app as cli
from api.service import OPERATOR, Operator, Tablebook
from events.errors import ForbiddenError, InvalidEventError, NotFoundError, UnauthorizedError
from events.store import Store
from projections.reading.verify import verify_game
from tests.conftest import Club, make_club
from tests.projections.helpers import load_example

API = Path(__file__).resolve().parents[2] / "api"
#: routes still allowed to reach the store (none)
NOT_YET: set[str] = set()


def _recorded(store: Store) -> tuple[Tablebook, Club, str]:
    service = Tablebook.open(store)
    club = make_club(store)
    recorder = authenticate(store, f"Bearer {club.keys['recorder']}")
    example = load_example("schnapsen-9002.json")
    game = service.create_game(recorder, kind="schnapsen", players=example["players"], options=example["options"])
    service.append(recorder, game["id"], example["events"])
    return service, club, game["id"]


def test_roles_are_checked_by_the_service_for_every_caller(store: Store) -> None:
    service, club, game_id = _recorded(store)
    keys = club.keys
    viewer = authenticate(store, f"Bearer {keys['viewer']}")
    auditor = authenticate(store, f"Bearer {keys['auditor']}")
    with pytest.raises(ForbiddenError):
        service.create_game(viewer, kind="schnapsen", players=["A", "B"], options={})
    with pytest.raises(ForbiddenError) as refused:
        service.append(auditor, game_id, [{"type": "note", "text": "ok"}, {"type": "play", "seat": 0, "card": "AS"}])
    assert refused.value.details["index"] == 1  # the first event that is not a correction
    head = service.game(auditor, game_id)["seq"]
    assert service.game(auditor, game_id)["seq"] == head  # refused: nothing written
    noted = service.append(auditor, game_id, [{"type": "note", "text": "checked"}])
    assert [env["seq"] for env in noted["events"]] == [head + 1]
    with pytest.raises(ForbiddenError):
        service.audit(viewer, game_id)
    assert service.audit(OPERATOR, game_id)["chain"]["ok"] is True  # the CLI's operator may audit


def test_the_operator_sees_every_club_and_a_club_operator_only_its_own(store: Store) -> None:
    service, club, game_id = _recorded(store)
    _, _, other_id = _recorded(store)
    everyone = {g["id"] for g in service.games(OPERATOR, limit=200)["games"]}
    assert {game_id, other_id} <= everyone
    own = Operator(club_id=service.club_id(club.name))
    ids = {g["id"] for g in service.games(own, limit=200)["games"]}
    assert game_id in ids and other_id not in ids
    with pytest.raises(NotFoundError):
        service.game(own, other_id)
    with pytest.raises(InvalidEventError):  # a write names its club
        service.create_game(OPERATOR, kind="schnapsen", players=["A", "B"], options={})


def test_export_is_rendered_once_for_the_api_and_the_cli(store: Store, tmp_path: Path) -> None:
    service, club, game_id = _recorded(store)
    recorder = authenticate(store, f"Bearer {club.keys['recorder']}")
    for fmt in ("text", "csv", "jsonl"):
        api_body = service.export(recorder, game_id, fmt).body()
        target = tmp_path / f"out.{fmt}"
        result = CliRunner().invoke(cli, ["export", game_id, "-f", fmt, "-o", str(target), "--database", store.url])
        assert result.exit_code == 0, result.output
        cli_body = target.read_bytes()
        if fmt == "text":  # the same history; only the export time differs
            assert [line for line in cli_body.splitlines() if b"Exported" not in line] == [
                line for line in api_body.splitlines() if b"Exported" not in line
            ]
        elif fmt == "jsonl":
            assert cli_body.splitlines()[1:] == api_body.splitlines()[1:]  # every envelope, byte for byte
        else:
            assert cli_body == api_body
    document = service.export(recorder, game_id, "json").document
    assert document is not None and document["seq"] == len(document["events"]) and document["club"] == club.name
    with pytest.raises(InvalidEventError):
        service.export(recorder, game_id, "xml")


def test_a_viewer_gets_a_live_hand_redacted_from_every_read(store: Store) -> None:
    service = Tablebook.open(store)
    club = make_club(store)
    recorder = authenticate(store, f"Bearer {club.keys['recorder']}")
    viewer = authenticate(store, f"Bearer {club.keys['viewer']}")
    example = load_example("schnapsen-9002.json")
    game = service.create_game(recorder, kind="schnapsen", players=example["players"], options=example["options"])
    service.append(recorder, game["id"], example["events"][:3])  # a hand being played
    seen = service.events(viewer, game["id"])["events"]
    assert seen and all(env.get("redacted") for env in seen if env["hand"] >= 1)
    assert all(env["hash"] is None for env in seen if env["hand"] >= 1)
    assert not any(env.get("redacted") for env in service.events(recorder, game["id"])["events"])
    assert service.verify(viewer, game["id"])["head_hash"] is None
    assert service.verify(recorder, game["id"])["head_hash"]
    exported = service.export(viewer, game["id"], "json").document
    assert exported is not None and exported["redacted"] is True and exported["head_hash"] is None


def test_share_links_are_made_checked_and_revoked_through_the_service(store: Store) -> None:
    service, club, game_id = _recorded(store)
    recorder = authenticate(store, f"Bearer {club.keys['recorder']}")
    record, token = service.create_share(recorder, game_id)
    assert token.startswith("ts_") and record.token_hash not in token
    principal = authenticate(store, f"Bearer {token}")
    assert principal.is_share and principal.game_id == game_id
    assert [s.id for s in service.list_shares(recorder, game_id)] == [record.id]
    revoked = service.revoke_share(recorder, game_id, record.id)
    assert revoked.revoked_at is not None
    assert service.revoke_share(recorder, game_id, record.id).revoked_at == revoked.revoked_at  # kept
    with pytest.raises(UnauthorizedError):
        authenticate(store, f"Bearer {token}")
    _, _, other_id = _recorded(store)
    with pytest.raises(NotFoundError):  # another club's game
        service.create_share(recorder, other_id)


def test_demo_games_are_recorded_whole_and_verify(store: Store) -> None:
    service = Tablebook.open(store)
    club_id = service.ensure_club(f"demo-{random.randrange(10**9)}")
    game_id = service.record_demo_game(club_id, "seven-and-a-half", random.Random(3))
    game = store.get_game(game_id)
    assert verify_game(game, store.iter_events(game_id)).ok
    last = store.read_events(game_id)[-1]
    assert game.status == "finished" or last["type"] == "session_closed"


# --------------------------------------------------------------------------- layering


def _functions(path: Path) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    tree = ast.parse(path.read_text())
    return [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _is_route(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(
        isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr in {"get", "post", "delete"}
        for d in node.decorator_list
    )


def _serves_a_static_file(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A page route: it answers one of the product's static files (`_static`, cached in memory)."""
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "_static" for n in ast.walk(node)
    )


def test_no_route_reaches_through_the_recorder_to_the_store() -> None:
    offenders = [
        f"{path.name}:{node.name}"
        for path in sorted((API / "routes").glob("*.py"))
        for node in _functions(path)
        if node.name not in NOT_YET and any(isinstance(n, ast.Attribute) and n.attr == "store" for n in ast.walk(node))
    ]
    assert offenders == []


def test_no_module_of_the_api_imports_sqlalchemy() -> None:
    offenders = []
    for path in sorted(API.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            offenders += [f"{path.name}:{node.lineno}" for name in names if name.split(".")[0] == "sqlalchemy"]
    # `tablebook serve` prints the database URL without its password with sqlalchemy's make_url: the one
    # import left, in a command that is not the service's (see the report of issue 16)
    assert [o for o in offenders if not o.startswith("cli.py:")] == []


def test_an_async_route_awaits_something_else_it_is_a_plain_def() -> None:
    """A route that does database or fold work must not run on the event loop: FastAPI runs a plain
    `def` in its threadpool; an `async def` route is one that awaits (its body, a threadpool call)."""
    offenders = [
        f"{path.name}:{node.name}"
        for path in sorted((API / "routes").glob("*.py"))
        for node in _functions(path)
        if isinstance(node, ast.AsyncFunctionDef)
        and _is_route(node)
        and not _serves_a_static_file(node)  # a cached static file, no database
        and not any(isinstance(n, ast.Await) for n in ast.walk(node))
    ]
    assert offenders == []


def test_a_small_append_is_done_on_the_calling_thread_only_when_the_writer_is_free(store: Store) -> None:
    """`append_if_free`: on SQLite, a batch of at most INLINE_BATCH events is appended at once when no writer
    of the process holds the lock; if one does (a large batch, an import in the threadpool), or on
    PostgreSQL, or for a larger batch, it answers None without waiting and writes nothing."""
    import threading

    from api.service import INLINE_BATCH

    service, club, game_id = _recorded(store)
    recorder = authenticate(store, f"Bearer {club.keys['recorder']}")
    head = service.game(recorder, game_id)["seq"]
    note = {"type": "note", "text": "inline"}
    done = service.append_if_free(recorder, game_id, [note])
    if store.dialect != "sqlite":
        assert done is None and service.game(recorder, game_id)["seq"] == head
        return
    assert done is not None and [env["seq"] for env in done["events"]] == [head + 1]
    assert service.append_if_free(recorder, game_id, [note] * (INLINE_BATCH + 1)) is None
    holding, release = threading.Event(), threading.Event()

    def writer() -> None:
        with store.db.one_writer():
            holding.set()
            release.wait(10)

    other = threading.Thread(target=writer)
    other.start()
    try:
        assert holding.wait(10)
        assert service.append_if_free(recorder, game_id, [note]) is None  # at once, not after the writer
    finally:
        release.set()
        other.join(10)
    assert service.game(recorder, game_id)["seq"] == head + 1  # the refused tries wrote nothing
    again = service.append_if_free(recorder, game_id, [note])
    assert again is not None and [env["seq"] for env in again["events"]] == [head + 2]
