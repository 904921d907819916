"""Limits: bodies, batches, notes and pages are bounded; a slow or huge client cannot grow the server's memory.

The documented limits (docs/api.md, "Limits" and "Bounds") are checked against a real server,
then the server's resident memory (VmRSS, and its peak VmHWM, from /proc) is
read while clients misbehave: slowloris bodies that never finish, giant
Content-Lengths, endless chunked bodies, JSON nested a million deep, a
mebibyte of tiny JSON values, a huge header. The figures go to the summary;
the asserts are on behaviour (a clear 4xx, connections closed) and on a
generous memory bound, never on time.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from typing import Any

import orjson
import pytest

from events.store import Store
from tests.conftest import make_club
from tests.reliability.figures import FIGURES
from tests.reliability.load import Api, is_error_shape, note
from tests.reliability.server import ServerProcess

pytestmark = pytest.mark.reliability

MIB = 1024 * 1024
#: the body deadline the test server runs with (TABLEBOOK_BODY_TIMEOUT); production's default is 60 s
BODY_SECONDS = 1.5


def raw_request(port: int, head: bytes, body: bytes = b"", timeout: float = 10.0) -> tuple[int | None, bytes]:
    """Send bytes as they are; (status, whole answer), status None when the connection closed without one."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        with contextlib.suppress(OSError):  # the server may answer and close before the body is all sent
            sock.sendall(head + body)
        return read_answer(sock)


def read_answer(sock: socket.socket) -> tuple[int | None, bytes]:
    data = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
            if b"\r\n\r\n" in data:
                head, _, rest = data.partition(b"\r\n\r\n")
                length = [
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                ]
                if length and len(rest) >= length[0]:
                    break
    except OSError:
        pass
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else None
    return status, data


def headers_for(path: str, key: str, extra: str = "", method: str = "POST") -> bytes:
    return (
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\n"
        f"Content-Type: application/json\r\n{extra}\r\n"
    ).encode()


def memory(process: ServerProcess) -> str:
    rss, hwm = process.memory_kb()
    return f"RSS {rss / 1024:.0f} MiB (peak {hwm / 1024:.0f} MiB)"


def test_documented_limits_hold(store: Store, shared_server: Any) -> None:
    key = make_club(store).keys["recorder"]
    with Api(shared_server.url, key) as api:
        game_id = api.create_game("schnapsen")
        checks = {
            "a note of 2,000 characters": (api.append(game_id, [note("x" * 2000)]), 201, None),
            "a note of 2,001 characters": (api.append(game_id, [note("x" * 2001)]), 422, "invalid"),
            "1,000 events in a batch": (api.append(game_id, [note("n")] * 1000), 201, None),
            "1,001 events in a batch": (api.append(game_id, [note("n")] * 1001), 422, "invalid"),
            "a body of 1 MiB + 1 byte": (
                api.request("POST", f"/v1/games/{game_id}/events", content=b" " * (MIB + 1)),
                413,
                "too_large",
            ),
            "a game body of 1 MiB + 1 byte": (
                api.request("POST", "/v1/games", content=b" " * (MIB + 1)),
                413,
                "too_large",
            ),
            "an audit body of 1 MiB + 1 byte": (
                api.request("POST", f"/v1/games/{game_id}/audit", content=b" " * (MIB + 1)),
                413,
                "too_large",
            ),
            "a page of 1,000 events": (api.request("GET", f"/v1/games/{game_id}/events?limit=1000"), 200, None),
            "a page of 1,001 events": (api.request("GET", f"/v1/games/{game_id}/events?limit=1001"), 422, "invalid"),
            "a page of 200 games": (api.request("GET", "/v1/games?limit=200"), 200, None),
            "a page of 201 games": (api.request("GET", "/v1/games?limit=201"), 422, "invalid"),
            "9 players": (
                api.request("POST", "/v1/games", json={"game": "schnapsen", "players": ["a"] * 9}),
                422,
                "invalid",
            ),
            "a name of 101 characters": (
                api.request("POST", "/v1/games", json={"game": "schnapsen", "players": ["a" * 101, "b"]}),
                422,
                "invalid",
            ),
        }
    wrong = []
    for name, ((status, body), want, code) in checks.items():
        if status != want or (code is not None and not (is_error_shape(body) and body["error"]["code"] == code)):
            wrong.append(f"{name}: {status} {str(body)[:200]}")
    assert len(store.read_events(game_id)) == 1001
    FIGURES.add(server_errors=sum(1 for (s, _), _, _ in checks.values() if s and s >= 500))
    FIGURES.note("limits", f"{store.dialect}: {len(checks)} documented limits checked, {len(wrong)} wrong")
    assert not wrong, wrong


def test_slow_and_huge_clients_cannot_grow_the_servers_memory(
    store: Store, launch: Any, full: bool, request: pytest.FixtureRequest
) -> None:
    if store.dialect != "sqlite" and not full:
        pytest.skip("memory does not depend on the database; the PostgreSQL run is in the full suite")
    group = launch(store.url, processes=1, TABLEBOOK_BODY_TIMEOUT=str(BODY_SECONDS))
    process = group.processes[0]
    port = process.port
    key = make_club(store).keys["recorder"]
    with Api(group.url, key) as api:
        game_id = api.create_game("schnapsen")
        for _ in range(20):  # warm up: the first requests allocate caches and pools
            api.append(game_id, [note("warm")])
            api.request("GET", f"/v1/games/{game_id}/events")
    path = f"/v1/games/{game_id}/events"
    lines = [f"baseline after 40 requests: {memory(process)}"]
    base_rss, _ = process.memory_kb()
    slow = 200 if full else 40

    # 0. half a header, then silence: uvicorn has no header timeout, so each costs a socket until the client leaves
    halves = 2000 if full else 300
    before, _ = process.memory_kb()
    half_open = []
    for _ in range(halves):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.sendall(f"GET /v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\n".encode())
        half_open.append(sock)
    time.sleep(0.3)
    held, _ = process.memory_kb()
    for sock in half_open:
        sock.close()
    per_connection = (held - before) / halves
    lines.append(
        f"{halves} connections that send half a header and wait: +{(held - before) / 1024:.1f} MiB "
        f"({per_connection:.1f} kB each), held until the client leaves (uvicorn has no header timeout)"
    )

    # 1. slowloris: many bodies that declare 1,000,000 bytes, send 900,000, then stall
    sockets = []
    for _ in range(slow):
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall(headers_for(path, key, "Content-Length: 1000000\r\n") + b"[" + b" " * 899_999)
        sockets.append(sock)
    time.sleep(0.5)
    held_rss, _ = process.memory_kb()
    with Api(group.url, key) as api:
        responsive = api.request("GET", f"/v1/games/{game_id}")[0]
    answers = []
    give_up = time.monotonic() + BODY_SECONDS + 10  # bounded, even if the server never answers
    for sock in sockets:
        sock.settimeout(max(0.1, give_up - time.monotonic()))
        answers.append(read_answer(sock)[0])
    for sock in sockets:
        sock.close()
    lines.append(
        f"{slow} slowloris bodies (900 of 1,000 kB sent, then silence): {memory(process)} while held "
        f"(+{(held_rss - base_rss) / 1024:.0f} MiB, {(held_rss - base_rss) / slow:.0f} kB a connection); "
        f"the server answered others meanwhile ({responsive}); each one got "
        f"{sorted(set(map(str, answers)))} after the {BODY_SECONDS} s body deadline"
    )

    # 2. giant Content-Length: refused before a byte of the body is read
    giant = [raw_request(port, headers_for(path, key, "Content-Length: 1000000000000\r\n"))[0] for _ in range(50)]
    imports = raw_request(port, headers_for("/v1/import", key, f"Content-Length: {65 * MIB}\r\n"))[0]
    lines.append(
        f"50 bodies declaring 1 TB: {sorted(set(map(str, giant)))}; an import declaring 65 MiB: {imports}; "
        f"{memory(process)}"
    )

    # 3. an endless chunked body (no Content-Length): cut at 1 MiB
    def chunked() -> int | None:
        with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:
            sock.sendall(headers_for(path, key, "Transfer-Encoding: chunked\r\n"))
            chunk = b"10000\r\n" + b" " * 0x10000 + b"\r\n"
            try:
                for _ in range(320):  # 20 MiB
                    sock.sendall(chunk)
            except OSError:
                pass
            return read_answer(sock)[0]

    endless = [chunked() for _ in range(5)]
    lines.append(f"5 chunked bodies of 20 MiB: {sorted(set(map(str, endless)))}; {memory(process)}")

    # 4. JSON nested a million deep, and a mebibyte of tiny values, 20 at a time
    deep = b"[" * 1_000_000
    wide = orjson.dumps({"events": [0] * 500_000})
    results: dict[str, list[Any]] = {"deep append": [], "deep game": [], "wide": []}

    def send(name: str, target: str, body: bytes) -> None:
        head = headers_for(target, key, f"Content-Length: {len(body)}\r\n")
        results[name].append(raw_request(port, head, body, timeout=60)[0])

    threads = [threading.Thread(target=send, args=("deep append", path, deep)) for _ in range(20)]
    threads += [threading.Thread(target=send, args=("deep game", "/v1/games", deep)) for _ in range(20)]
    threads += [threading.Thread(target=send, args=("wide", path, wide)) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines.append(
        "20 appends nested a million deep, 20 game bodies nested a million deep, 20 batches of 500,000 zeros, "
        f"at once: {', '.join(f'{k} {sorted(set(map(str, v)))}' for k, v in results.items())}; {memory(process)}"
    )

    # 5. a header of 1 MB
    header = raw_request(port, headers_for(path, key, f"X-Filler: {'a' * 1_000_000}\r\nContent-Length: 2\r\n"), b"{}")[
        0
    ]
    with Api(group.url, key) as api:
        still = api.append(game_id, [note("still here")])[0]
    _, peak = process.memory_kb()
    lines.append(f"a 1 MB header: {header}; afterwards an append: {still}; {memory(process)}")
    for line in lines:
        FIGURES.note("memory under abuse", f"{store.dialect}: {line}")

    assert responsive == 200 and still == 201
    assert set(answers) == {408} and set(giant) == {413} and imports == 413
    assert set(endless) <= {413, None} and 413 in endless
    assert set(results["deep append"]) == {422} and set(results["wide"]) == {422}
    assert set(results["deep game"]) <= {422}
    assert header in (400, 431, None)
    assert per_connection < 64  # kB: h11 keeps at most 16 kB of an unfinished head
    # bounded: the peak stays within what the held bodies explain (1 MiB each) plus 150 MiB of parsing
    assert peak - base_rss < slow * 1100 + 150 * 1024, lines
    assert group.bugs_logged() == 0
