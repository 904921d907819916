"""The replicated cluster of `scripts/cluster` (Patroni, etcd, three PostgreSQL nodes), for the failover tests.

`Cluster.start()` runs the script on its own directory and base port (so a `make cluster` a developer
left running is not touched), `stop()` stops every process the script started. The primary is found
through Patroni's REST API (`GET /primary` answers 200 on the leader only), and killed with SIGKILL
to its postmaster (the pid in `postmaster.pid`), as a crash of the machine would leave it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import psycopg

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "cluster"
NODES = (1, 2, 3)


@dataclass
class Cluster:
    """The script's cluster in `directory`, its ports from `base` (PostgreSQL base+1..3, REST base+11..13)."""

    directory: Path
    base: int
    #: pg1 in this network namespace (scripts/cluster's TABLEBOOK_CLUSTER_NETNS), for `partition`
    netns: str | None = None

    @property
    def env(self) -> dict[str, str]:
        env = {**os.environ, "TABLEBOOK_CLUSTER_DIR": str(self.directory), "TABLEBOOK_CLUSTER_PORT": str(self.base)}
        env["TABLEBOOK_CLUSTER_NETNS"] = self.netns or ""
        return env

    def addr(self, node: int) -> str:
        """Where the node listens (the script's `addr_of`)."""
        if self.netns is None:
            return "127.0.0.1"
        return "10.231.0.2" if node == 1 else "10.231.0.1"

    def partition(self) -> None:
        self.run("partition")

    def heal(self) -> None:
        self.run("heal")

    def patronictl(self, *args: str) -> None:
        subprocess.run(
            ["patronictl", "-c", str(self.directory / "pg1.yml"), *args],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )

    def switchover_to(self, node: int) -> None:
        """A planned switchover to `node`, waited for.

        In synchronous mode Patroni takes only the synchronous standby as a candidate, so synchronous mode
        is turned off for the switchover (a clean one: the old primary's shutdown sends its WAL to the
        replicas first) and on again after it.
        """
        leader = self.primary()
        self.patronictl("edit-config", "--force", "-s", "synchronous_mode=false")
        try:
            self.patronictl("switchover", "--leader", f"pg{leader}", "--candidate", f"pg{node}", "--force")
            started = time.monotonic()
            while self.primary() != node:
                if time.monotonic() - started > 60:
                    raise TimeoutError(f"no switchover to pg{node} within 60 s")
                time.sleep(0.2)
        finally:
            self.patronictl("edit-config", "--force", "-s", "synchronous_mode=true")

    def run(self, command: str, timeout: float = 300) -> str:
        done = subprocess.run(
            ["bash", str(SCRIPT), command], env=self.env, capture_output=True, text=True, timeout=timeout, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"scripts/cluster {command} failed: {done.stdout}\n{done.stderr}")
        return done.stdout

    def start(self) -> None:
        self.run("start")

    def stop(self) -> None:
        self.run("stop", timeout=120)

    def destroy(self) -> None:
        self.run("stop", timeout=120)
        shutil.rmtree(self.directory, ignore_errors=True)

    def pg_port(self, node: int) -> int:
        return self.base + node

    def hosts(self) -> str:
        return "&".join(f"host={self.addr(n)}:{self.pg_port(n)}" for n in NODES)

    def url(self, database: str, attrs: str = "read-write") -> str:
        """A multi-host URL: libpq tries each node and keeps the first whose session is `attrs`."""
        return (
            f"postgresql+psycopg://postgres@/{database}?{self.hosts()}&target_session_attrs={attrs}&connect_timeout=2"
        )

    def node_url(self, node: int, database: str) -> str:
        return f"postgresql+psycopg://postgres@{self.addr(node)}:{self.pg_port(node)}/{database}?connect_timeout=2"

    def _answers(self, node: int, path: str) -> bool:
        try:
            return httpx.get(f"http://{self.addr(node)}:{self.base + 10 + node}{path}", timeout=1.0).status_code == 200
        except httpx.HTTPError:
            return False

    def primary(self) -> int | None:
        """The node Patroni names the leader, if one is running as primary now."""
        return next((n for n in NODES if self._answers(n, "/primary")), None)

    def sync_standby(self) -> int | None:
        return next((n for n in NODES if self._answers(n, "/sync")), None)

    def healthy(self) -> bool:
        """A primary, a synchronous standby and the third node streaming (every node's /health is 200)."""
        return (
            self.primary() is not None
            and self.sync_standby() is not None
            and all(self._answers(n, "/health") for n in NODES)
        )

    def wait_healthy(self, timeout: float = 120.0) -> float:
        started = time.monotonic()
        while not self.healthy():
            if time.monotonic() - started > timeout:
                raise TimeoutError(f"the cluster in {self.directory} is not healthy after {timeout:.0f} s")
            time.sleep(0.2)
        return time.monotonic() - started

    def wait_writable(self, database: str, killed: int, killed_at: float, timeout: float = 120.0) -> int:
        """The node on which a write commits (synchronously) again after the kill of `killed`'s postmaster
        at `killed_at` (time.time()): another node, or the same one restarted after the kill."""
        # libpq's own form: in a URI a repeated `host=` keeps the last (SQLAlchemy's URL joins them itself)
        hosts = ",".join(self.addr(n) for n in NODES)
        ports = ",".join(str(self.pg_port(n)) for n in NODES)
        dsn = (
            f"host={hosts} port={ports} dbname={database} user=postgres "
            "target_session_attrs=read-write connect_timeout=1"
        )
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            try:
                with psycopg.connect(dsn, autocommit=True) as conn:
                    conn.execute("SET statement_timeout = '2s'")
                    row = conn.execute(
                        "SELECT inet_server_port(), extract(epoch FROM pg_postmaster_start_time()), "
                        "pg_current_xact_id() IS NOT NULL"
                    ).fetchone()
                assert row is not None
                node = int(row[0]) - self.base
                if node != killed or float(row[1]) > killed_at:
                    return node
            except psycopg.Error:
                pass
            time.sleep(0.05)
        raise TimeoutError(f"no writable primary {timeout:.0f} s after the kill of pg{killed}")

    def patroni_urls(self) -> list[str]:
        """The nodes' Patroni REST APIs (for TABLEBOOK_FOLLOW_PATRONI)."""
        return [f"http://{self.addr(n)}:{self.base + 10 + n}" for n in NODES]

    def kill_machine(self, node: int) -> tuple[int, int]:
        """The loss of the node's whole machine (a power cut): SIGKILL to its Patroni and its postmaster at once.

        Nothing is left to release the leader key: the other nodes wait for it to expire (the TTL).
        Returns the two pids.
        """
        patroni = int((self.directory / f"patroni{node}.pid").read_text().split()[0])
        postmaster = int((self.directory / f"pg{node}" / "data" / "postmaster.pid").read_text().split()[0])
        os.kill(patroni, signal.SIGKILL)
        os.kill(postmaster, signal.SIGKILL)
        return patroni, postmaster

    def restart_lost_nodes(self) -> None:
        """Start the Patroni of every node that is not running (the machine back after the power cut); its
        PostgreSQL recovers and rejoins as a replica (pg_rewind if needed)."""
        self.run("start")

    def kill_postmaster(self, node: int) -> int:
        """SIGKILL to the node's postmaster (its children die with it: they lose their parent's pipe)."""
        pid = int((self.directory / f"pg{node}" / "data" / "postmaster.pid").read_text().split()[0])
        os.kill(pid, signal.SIGKILL)
        return pid
