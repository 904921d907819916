"""Real server processes for the reliability suite: uvicorn on free loopback ports.

Each process of a group serves `api.asgi:app` on its own port, with
`TABLEBOOK_DATABASE_URL` set (so several processes share one database, as in
a deployment with several API processes); a process can be killed with
SIGKILL and started again on the same port, and its resident memory read
from /proc.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
#: how long a process may take to answer its first request
START_TIMEOUT = 30.0


def free_port() -> int:
    """A TCP port nobody listens on at 127.0.0.1 now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class ServerProcess:
    """One uvicorn process and where it logs."""

    port: int
    log: Path
    env: dict[str, str]
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        command = [
            sys.executable,
            "-m",
            "uvicorn",
            "api.asgi:app",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--log-level",
            "warning",
            "--no-access-log",
        ]
        self.starts += 1
        with self.log.open("ab") as out:
            out.write(f"--- start {self.starts}\n".encode())
            out.flush()
            self.proc = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT)

    def wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server on port {self.port} exited: {self.log.read_text()[-3000:]}")
            try:
                if httpx.get(self.url + "/", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"the server on port {self.port} did not answer within {START_TIMEOUT} s")

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush, no rollback in the process."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def memory_kb(self) -> tuple[int, int]:
        """(VmRSS, VmHWM): resident memory now, and its peak, in kB."""
        assert self.proc is not None
        fields = {}
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                fields[name] = int(value.split()[0])
        return fields["VmRSS"], fields["VmHWM"]

    def bugs_logged(self) -> int:
        """How many unhandled errors (500s) the process logged."""
        return self.log.read_text(errors="replace").count("unhandled error")


@dataclass
class ServerGroup:
    """Several processes on one database."""

    processes: list[ServerProcess] = field(default_factory=list)

    @property
    def urls(self) -> list[str]:
        return [p.url for p in self.processes]

    @property
    def url(self) -> str:
        return self.processes[0].url

    def restart(self, index: int = 0) -> float:
        """Start a killed process again on its port; returns the seconds until it answered."""
        began = time.monotonic()
        process = self.processes[index]
        process.start()
        process.wait_ready()
        return time.monotonic() - began

    def kill(self, index: int = 0) -> None:
        self.processes[index].kill()

    def stop(self) -> None:
        for process in self.processes:
            process.stop()

    def bugs_logged(self) -> int:
        return sum(p.bugs_logged() for p in self.processes)


def start_servers(url: str, processes: int, env: dict[str, str], logs: Path) -> ServerGroup:
    """Start `processes` uvicorn processes on `url`'s database and wait until each answers."""
    logs.mkdir(parents=True, exist_ok=True)
    base = {k: v for k, v in os.environ.items() if not k.startswith("TABLEBOOK_")}
    base.update({"TABLEBOOK_DATABASE_URL": url, "PYTHONUNBUFFERED": "1", **env})
    group = ServerGroup([ServerProcess(free_port(), logs / f"server-{i}.log", dict(base)) for i in range(processes)])
    for process in group.processes:
        process.start()
    for process in group.processes:
        process.wait_ready()
    return group
