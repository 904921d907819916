"""`api/tcp.py`: every connection of `tablebook serve` has TCP_NODELAY, with one worker or several."""

from __future__ import annotations

import socket
from typing import Any

from api.tcp import NoDelayH11Protocol


class _Transport:
    """The little of an asyncio transport that `connection_made` reads."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        if name == "socket":
            return self.sock
        if name == "peername":
            return self.sock.getpeername()
        if name == "sockname":
            return self.sock.getsockname()
        return default


def test_a_connection_accepted_from_a_proto_0_listener_gets_tcp_nodelay() -> None:
    """uvicorn's --workers listener is `socket.socket(family=AF_INET)` (proto 0): asyncio leaves Nagle on for
    its connections. The protocol turns it off."""
    listener = socket.socket(family=socket.AF_INET)  # as uvicorn's Config.bind_socket makes it
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    client = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()
    try:
        assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0  # what asyncio would leave
        protocol = NoDelayH11Protocol.__new__(NoDelayH11Protocol)
        calls: list[Any] = []
        # the parent's connection_made (uvicorn's bookkeeping) is not what is tested here
        original = NoDelayH11Protocol.__mro__[1].connection_made
        try:
            NoDelayH11Protocol.__mro__[1].connection_made = lambda self, transport: calls.append(transport)  # type: ignore[method-assign]
            protocol.connection_made(_Transport(accepted))  # type: ignore[arg-type]
        finally:
            NoDelayH11Protocol.__mro__[1].connection_made = original  # type: ignore[method-assign]
        assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
        assert len(calls) == 1  # and uvicorn's own connection_made still runs
    finally:
        client.close()
        accepted.close()
        listener.close()


def test_serve_runs_uvicorn_with_the_no_delay_protocol(monkeypatch: Any, tmp_path: Any) -> None:
    import uvicorn

    from api.cli import server

    seen: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: seen.update(kwargs))
    monkeypatch.setattr(server, "cannot_listen", lambda host, port: None)
    server.serve(host="127.0.0.1", port=8123, workers=2, access_log=False, database=f"sqlite:///{tmp_path}/s.db")
    assert seen["http"] is NoDelayH11Protocol and seen["workers"] == 2
