"""No secret in the access log: `?access_token=` values (keys and share tokens), and any other query value
that carries one, are written redacted by uvicorn's access log, even where the route refuses them.

A real `tablebook serve` process (access log on, as by default) on a free port, on each store, is sent
keys and share tokens in query strings; its stdout is read once it has stopped.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from api.main import RedactedAccessLog, redact_target
from events.store import Store
from tests.conftest import ROOT, make_club
from tests.reliability.server import free_port


def secret_of(credential: str) -> str:
    """The part of a key (`tb_<id>_<secret>`) or share token (`ts_<id>_<secret>`) that opens something."""
    return credential.split("_", 2)[2]


def head_of(credential: str) -> str:
    """What the log may show of it: the prefix and the id."""
    prefix, ident, _ = credential.split("_", 2)
    return f"{prefix}_{ident}_"


def serve(store_url: str, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """`tablebook serve` on a free port, its output into `log`, once it answers."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLEBOOK_")}
    env["PYTHONUNBUFFERED"] = "1"
    command = [sys.executable, "-m", "api.cli", "serve", "--port", str(port), "--database", store_url]
    with log.open("wb") as out:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, log.read_text()
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, f"the server did not answer within 60 s: {log.read_text()}"
        time.sleep(0.2)


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:  # pragma: no cover - a server that will not stop
        proc.kill()
        proc.wait()


def test_keys_and_share_tokens_in_query_strings_are_redacted_in_the_access_log(
    store: Store, store_url: str, tmp_path: Path
) -> None:
    club = make_club(store)
    key, viewer = club.keys["recorder"], club.keys["viewer"]
    log = tmp_path / "serve.log"
    proc, url = serve(store_url, log)
    try:
        with httpx.Client(base_url=url, timeout=30) as http:
            created = http.post(
                "/v1/games", json={"game": "schnapsen", "players": ["Anna", "Ben"]}, headers=club.recorder
            )
            assert created.status_code == 201, created.text
            game = created.json()["id"]
            token = http.post(f"/v1/games/{game}/share", headers=club.recorder).json()["token"]
            sent = {
                # (target, the status the server answers)
                f"/v1/games/{game}/stream?follow=false&access_token={key}": 200,
                f"/v1/games/{game}/stream?access_token={token}&follow=false": 200,
                f"/v1/games/{game}/stream?follow=false&access%5Ftoken={viewer}": 200,
                f"/v1/games?access_token={key}": 422,  # the route refuses the parameter: it was logged all the same
                f"/v1/games/{game}?token={token}": 422,
                f"/v1/players?name={viewer.replace('_', '%5F')}": 401,  # a key in another parameter, encoded
                f"/replay/{game}?share={token}": 200,  # the page takes any parameter
            }
            answered = {target: http.get(target).status_code for target in sent}
    finally:
        stop(proc)
    assert answered == sent
    text = log.read_text()
    for credential in (key, viewer, token):
        assert secret_of(credential) not in text, f"a secret of {head_of(credential)}... is in the log"
    lines = [line for line in text.splitlines() if '"GET /' in line]
    assert f'"GET /v1/games/{game}/stream?follow=false&access_token={head_of(key)}[redacted] HTTP/1.1" 200' in text
    assert f'access_token={head_of(token)}[redacted]&follow=false HTTP/1.1" 200' in text
    assert f'access%5Ftoken={head_of(viewer)}[redacted] HTTP/1.1" 200' in text
    assert f'"GET /v1/games?access_token={head_of(key)}[redacted] HTTP/1.1" 422' in text
    assert f'"GET /v1/games/{game}?token={head_of(token)}[redacted] HTTP/1.1" 422' in text
    assert f'"GET /v1/players?name={head_of(viewer)}[redacted] HTTP/1.1" 401' in text
    assert f'"GET /replay/{game}?share={head_of(token)}[redacted] HTTP/1.1" 200' in text
    assert len([line for line in lines if "[redacted]" in line]) == len(sent)


def test_redaction_keeps_everything_but_the_secret() -> None:
    key = "tb_1a2b3c4d5e6f_Ab-c_D3"
    cases = {
        "/v1/games?player=Anna&limit=5": "/v1/games?player=Anna&limit=5",
        f"/v1/games/g1/stream?access_token={key}": "/v1/games/g1/stream?access_token=tb_1a2b3c4d5e6f_[redacted]",
        "/v1/games/g1/stream?access_token=not-a-key&x=1": "/v1/games/g1/stream?access_token=[redacted]&x=1",
        "/v1/games?Token=abc": "/v1/games?Token=[redacted]",
        "/v1/games?api_key=abc&password=p": "/v1/games?api_key=[redacted]&password=[redacted]",
        "/v1/games?key=": "/v1/games?key=",
        f"/v1/games/{key}": "/v1/games/tb_1a2b3c4d5e6f_[redacted]",
        "/healthz": "/healthz",
    }
    assert {target: redact_target(target) for target in cases} == cases
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", f"/v1/x?access_token={key}", "1.1", 200),
        None,
    )
    assert RedactedAccessLog().filter(record)
    assert record.getMessage() == '127.0.0.1:5000 - "GET /v1/x?access_token=tb_1a2b3c4d5e6f_[redacted] HTTP/1.1" 200'
