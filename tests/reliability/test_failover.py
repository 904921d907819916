"""Failover under load: the primary's postmaster killed -9 several times while clients append (issue 22).

`make reliability` only (the short suite of `make test` skips it: the cluster takes two minutes to
start and the run several more). The cluster is `scripts/cluster`'s (Patroni, etcd, three PostgreSQL
nodes, synchronous replication), on its own directory and ports.

Clients append one note at a time to many games, each with `expected_seq` and an `Idempotency-Key`,
through two API processes whose database URL lists the three nodes with
`target_session_attrs=read-write` (libpq keeps the first node that is the primary). Meanwhile the
primary's postmaster is killed with SIGKILL; Patroni promotes the synchronous standby and rejoins the
old primary as a replica (pg_rewind). A request without an answer, or with a 5xx, is sent again with
the same key and the same `expected_seq` until it is answered. Afterwards, read on the primary:

- lost: an acknowledged append not stored as acknowledged (goal 0);
- duplicated: a note stored twice (goal 0);
- seq gaps: a game whose seqs are not 1..n (0); every chain verifies;
- time without a writable primary, per failover: from the kill until a probe's transaction (one with an id,
  so its commit waits for the synchronous standby) commits on a primary that is not the killed postmaster.

The real read models (HandFacts, RatingsModel) catch up all along with their log read on the
synchronous standby Patroni names (events/store/follow.py), their rows on the primary: afterwards each
must have read every event of the final log its filter admits (skipped: 0; a read model reads only the
events that can matter to it, `LogReader.read_filtered`), none missing from it (phantoms: 0), and its
rows must equal a rebuild from the primary. Two of the clients play whole games, so there are facts and
ratings to compare. A plain follower reads the log through a `target_session_attrs=prefer-standby`
URL (any standby): measured as the counter-example (it may read a phantom; docs/replication.md).

Also: the loss of the primary's whole machine (its Patroni and its postmaster killed -9 together),
and live streams served by the replicas (the wake-up from the primary's NOTIFY).
"""

from __future__ import annotations

import os
import secrets
import shutil
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from api.auth import create_key
from events.envelope import Envelope
from events.store import FollowedLog, Store, SyncStandby
from events.store.follow import sync_url_for
from events.store.log import LogFilter
from events.store.migrate import upgrade
from projections.core.registry import rules_for
from projections.core.simulate import demo_playout
from projections.readmodels.hand_facts import HandFacts
from projections.readmodels.ratings import RatingsModel
from tests.reliability.cluster import Cluster
from tests.reliability.figures import FIGURES
from tests.reliability.load import PLAYERS, Api, Check, Ledger, check_game, note

pytestmark = pytest.mark.reliability

KILLS = 6
PARTITIONS = 3
MACHINE_LOSSES = 3
GAMES = 24
CLIENTS = 6
#: clients that play whole games (demo playouts, one event a request): the read models' facts and ratings
PLAYERS_CLIENTS = 2
PLAYED_KINDS = ("schnapsen", "casino", "cutthroat-smear", "gin-rummy-3")
#: seconds of appends before the first kill, and after each failover before the next
STEADY = 6.0


@pytest.fixture  # one cluster at a time (two would share the 2 cores)
def cluster(full: bool, request: pytest.FixtureRequest) -> Iterator[Cluster]:
    if not full:
        pytest.skip("the failover run needs the cluster: make reliability")
    if not shutil.which("patroni") and not Path("/usr/bin/apt-get").exists():
        pytest.skip("Patroni is not installed and cannot be (no apt-get)")
    yield from _running(request, "tablebook-failover-", 55540)


@pytest.fixture  # one cluster at a time (two would share the 2 cores)
def netns_cluster(full: bool, request: pytest.FixtureRequest) -> Iterator[Cluster]:
    """The cluster with pg1 in its own network namespace (scripts/cluster, TABLEBOOK_CLUSTER_NETNS)."""
    if not full:
        pytest.skip("the partition run needs the cluster: make reliability")
    if os.geteuid() != 0 or not shutil.which("ip"):
        pytest.skip("a network namespace needs root and iproute2 (ip netns)")
    yield from _running(request, "tablebook-partition-", 55640, netns="tbpart")


def _running(request: pytest.FixtureRequest, prefix: str, port: int, *, netns: str | None = None) -> Iterator[Cluster]:
    """A cluster started in a new folder, destroyed afterwards; kept stopped, with its logs, if a test failed."""
    # not under pytest's own temp folder, whose parents the `postgres` user may not enter
    directory = Path(tempfile.mkdtemp(prefix=prefix))
    directory.chmod(0o755)
    found = Cluster(directory, port, netns=netns)
    failed = request.session.testsfailed
    try:
        found.start()  # a start that fails has stopped what it started (scripts/cluster); the folder goes too
        yield found
    finally:
        if request.session.testsfailed == failed:
            found.destroy()
        else:  # the logs of Patroni, PostgreSQL and etcd stay for a look
            found.stop()
            FIGURES.note("cluster logs", f"kept in {directory}")


def _database(cluster: Cluster) -> str:
    name = f"failover_{secrets.token_hex(4)}"
    primary = cluster.primary()
    assert primary is not None
    dsn = cluster.node_url(primary, "postgres").replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    upgrade(cluster.url(name))
    return name


class Client(threading.Thread):
    """Appends notes to its games, one at a time, retrying each with its key until it is answered."""

    def __init__(self, index: int, urls: list[str], key: str, games: list[str], stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.index, self.urls, self.key, self.games, self.stop = index, urls, key, games, stop
        self.ledgers = {game: Ledger() for game in games}
        self.heads = dict.fromkeys(games, 0)
        self.tried = self.acked = self.retries = self.conflicts = self.server_errors = 0
        self.ack_times: list[float] = []
        self.problems: list[str] = []

    def run(self) -> None:
        apis = [Api(url, self.key, timeout=10.0) for url in self.urls]
        try:
            turn = 0
            while not self.stop.is_set():
                game = self.games[turn % len(self.games)]
                self.append(apis[turn % len(apis)], apis, game, turn)
                turn += 1
        finally:
            for api in apis:
                api.close()

    def append(self, api: Api, apis: list[Api], game: str, turn: int) -> None:
        idem = f"c{self.index}-{turn}-{secrets.token_hex(4)}"
        text = f"failover/{idem}"
        self.send(api, apis, game, note(text), idem, text)

    def send(self, api: Api, apis: list[Api], game: str, event: dict[str, Any], idem: str, text: str) -> None:
        """One event appended at the game's head, sent again with its key until it is answered."""
        expected = self.heads[game]
        self.tried += 1
        attempt = 0
        while True:
            status, body = api.append(game, [event], expected_seq=expected, idempotency_key=idem)
            if status == 201:
                self.acked += 1
                self.ack_times.append(time.monotonic())
                self.ledgers[game].ack(body["events"])
                self.heads[game] = body["events"][-1]["seq"]
                return
            if status == 409:  # not ours: another writer moved the head (there is none): a bug to report
                self.conflicts += 1
                self.problems.append(f"{game}: 409 on {idem} at expected {expected}: {body}")
                self.ledgers[game].refused_texts.append(text)
                return
            if status is not None and status < 500:
                self.problems.append(f"{game}: {status} on {idem}: {body}")
                return
            if status is not None:
                self.server_errors += 1
            attempt += 1
            self.retries += 1
            api = apis[attempt % len(apis)]
            time.sleep(min(0.05 * attempt, 0.5))


class Player(Client):
    """Plays whole games (the bots' demo playouts), one event a request, each with its key, retried like a note."""

    def __init__(self, index: int, urls: list[str], key: str, stop: threading.Event) -> None:
        super().__init__(index, urls, key, [], stop)
        self.games_played: list[str] = []

    def run(self) -> None:
        import random

        apis = [Api(url, self.key, timeout=10.0) for url in self.urls]
        rng = random.Random(self.index)
        try:
            turn = 0
            while not self.stop.is_set():
                kind = PLAYED_KINDS[turn % len(PLAYED_KINDS)]
                rules = rules_for(kind)
                events = list(demo_playout(rules, PLAYERS[kind], {}, rng=rng, max_events=600).events)
                game = self.create(apis, kind, turn)
                if game is None:
                    return
                self.games.append(game)
                self.games_played.append(game)
                self.ledgers[game], self.heads[game] = Ledger(), 0
                for number, event in enumerate(events):
                    if self.stop.is_set():
                        break
                    idem = f"p{self.index}-{turn}-{number}-{secrets.token_hex(3)}"
                    self.send(apis[number % len(apis)], apis, game, event, idem, idem)
                turn += 1
        finally:
            for api in apis:
                api.close()

    def create(self, apis: list[Api], kind: str, turn: int) -> str | None:
        """A new game, asked again until one answers (a create without an answer may leave an empty game)."""
        attempt = 0
        while not self.stop.is_set():
            status, body = apis[(turn + attempt) % len(apis)].request(
                "POST", "/v1/games", json={"game": kind, "players": PLAYERS[kind], "options": {}}
            )
            if status == 201:
                return str(body["id"])
            if status is not None and status < 500:
                self.problems.append(f"creating a {kind} game: {status} {body}")
                return None
            attempt += 1
            time.sleep(min(0.05 * attempt, 0.5))
        return None


class RecordingLog(FollowedLog):
    """The log a read model follows from the synchronous standby, recording every position it returned."""

    def __init__(self, primary: Store, standby: SyncStandby) -> None:
        super().__init__(primary, lambda: standby.pick(primary), tail_on_primary=False, recheck=0.5)
        self.seen: list[int] = []
        self.nodes: list[str] = []
        #: the filter the read model reads its pages with (its events; `LogReader.read_filtered`)
        self.only: LogFilter | None = None

    def read_positions(self, after: int = 0, limit: int = 1000) -> list[tuple[int, str, Envelope]]:
        page = super().read_positions(after, limit)
        self.seen.extend(position for position, _, _ in page)
        return page

    def read_texts(self, after: int = 0, limit: int = 1000) -> list[tuple[Any, ...]]:
        page = super().read_texts(after, limit)
        self.seen.extend(int(row[0]) for row in page)
        return page

    def read_filtered(self, after: int, limit: int, only: LogFilter | None) -> tuple[int, list[tuple[Any, ...]]]:
        upto, page = super().read_filtered(after, limit, only)
        self.seen.extend(int(row[0]) for row in page)
        self.only = only
        return upto, page


def admitted(store: Store, only: LogFilter | None) -> list[int]:
    """The positions of the final log (read on the primary) that a read model's filter admits: what it must read."""
    positions: list[int] = []
    after = 0
    while True:
        upto, page = store.log.read_filtered(after, 5000, only)
        positions.extend(int(row[0]) for row in page)
        if upto <= after and not page:
            return positions
        after = upto


class ReadModelFollower(threading.Thread):
    """The real read model (HandFacts or RatingsModel) catching up all along, its log read on the sync standby."""

    def __init__(
        self, cluster: Cluster, url: str, model: type[HandFacts] | type[RatingsModel], stop: threading.Event
    ) -> None:
        super().__init__(daemon=True)
        self.model_type, self.stop = model, stop
        self.store = Store(url)
        self.log = RecordingLog(self.store, SyncStandby(cluster.patroni_urls(), sync_url_for(url, [])))
        self.store.follow_from(self.log)
        self.errors = 0
        self.followed: list[str] = []  # the nodes followed, in turn (a change appended when seen)

    def run(self) -> None:
        model = self.model_type(self.store)
        while not self.stop.is_set():
            try:
                model.catch_up()
            except Exception:  # the primary went away under a commit: a new model, as a restarted process has
                self.errors += 1
                model = self.model_type(self.store)
                time.sleep(0.2)
            node = self.log.followed()
            if not self.followed or self.followed[-1] != node:
                self.followed.append(node)
            time.sleep(0.1)

    def finish(self, head: int, timeout: float = 120.0) -> None:
        """Caught up (from the standby) to `head`, the primary's head position in log order."""
        model = self.model_type(self.store)
        started = time.monotonic()
        while model.position() != head:
            if time.monotonic() - started > timeout:
                raise TimeoutError(f"{self.model_type.__name__} at {model.position()}, not {head}, after {timeout} s")
            try:
                model.catch_up()
            except Exception:
                self.errors += 1
                model = self.model_type(self.store)
            time.sleep(0.2)


class Follower(threading.Thread):
    """Reads the global order from a replica (prefer-standby), page after page from its cursor."""

    def __init__(self, url: str, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.url, self.stop = url, stop
        self.seen: list[int] = []
        #: position -> what the event was, to name a phantom
        self.shown: dict[int, str] = {}
        self.errors = 0
        self.store: Store | None = None

    def run(self) -> None:
        self.store = Store(self.url)
        after = 0
        while not self.stop.is_set():
            after = self.step(after)
            time.sleep(0.05)

    def step(self, after: int) -> int:
        assert self.store is not None
        try:
            page = self.store.log.read_positions(after, 500)
        except Exception:  # the node went away: the next read reconnects (pool_pre_ping)
            self.errors += 1
            self.store.engine.dispose()
            time.sleep(0.2)
            return after
        self.seen.extend(position for position, _, _ in page)
        for position, game_id, env in page:
            self.shown[position] = f"{game_id} seq {env['seq']} {env['type']} {env['data'].get('text', '')}".strip()
        return page[-1][0] if page else after

    def catch_up(self) -> None:
        after = self.seen[-1] if self.seen else 0
        while True:
            new = self.step(after)
            if new == after:
                return
            after = new


Disrupt = Callable[[Cluster, str], tuple[int, int, float]]


def kill_the_primary(cluster: Cluster, database: str) -> tuple[int, int, float]:
    """SIGKILL to the primary's postmaster: (old primary, new primary, seconds without a writable primary)."""
    primary = cluster.primary()
    assert primary is not None
    killed_at, killed_wall = time.monotonic(), time.time()
    cluster.kill_postmaster(primary)
    new = cluster.wait_writable(database, primary, killed_wall, timeout=120)
    return primary, new, time.monotonic() - killed_at


def cut_the_primary_off(cluster: Cluster, database: str) -> tuple[int, int, float]:
    """pg1 made primary (a switchover), then cut off from etcd until another node is writable; healed after."""
    if cluster.primary() != 1:
        cluster.switchover_to(1)
        cluster.wait_healthy(180)
        time.sleep(STEADY)
    cut_at = time.monotonic()
    cluster.partition()
    try:
        new = cluster.wait_writable(database, 1, float("inf"), timeout=120)
        outage = time.monotonic() - cut_at
        # pg1 must have stopped being a primary (Patroni demotes it when it cannot renew its key)
        assert cluster.primary() != 1
    finally:
        cluster.heal()
    return 1, new, outage


def lose_the_primary_machine(cluster: Cluster, database: str) -> tuple[int, int, float]:
    """The primary's whole machine lost: its Patroni and its postmaster killed -9 together; restarted after."""
    primary = cluster.primary()
    assert primary is not None
    killed_at, killed_wall = time.monotonic(), time.time()
    cluster.kill_machine(primary)
    new = cluster.wait_writable(database, primary, killed_wall, timeout=120)
    outage = time.monotonic() - killed_at
    cluster.restart_lost_nodes()  # the machine is back: its node rejoins as a replica
    return primary, new, outage


def run_under_load(cluster: Cluster, launch, rounds: int, disrupt: Disrupt, what: str) -> None:  # type: ignore[no-untyped-def]
    name = _database(cluster)
    write_url = cluster.url(name)
    store = Store(write_url)
    key = create_key(store, f"club-{secrets.token_hex(3)}", "recorder")
    group = launch(write_url, processes=2)
    with Api(group.url, key) as api:
        games = [api.create_game("schnapsen") for _ in range(GAMES)]

    stop = threading.Event()
    clients = [Client(i, group.urls, key, games[i::CLIENTS], stop) for i in range(CLIENTS)]
    players = [Player(CLIENTS + i, group.urls, key, stop) for i in range(PLAYERS_CLIENTS)]
    clients += players
    follower = Follower(cluster.url(name, "prefer-standby"), stop)
    models = [ReadModelFollower(cluster, write_url, model, stop) for model in (HandFacts, RatingsModel)]
    for thread in (*clients, follower, *models):
        thread.start()

    outages: list[float] = []
    promoted: list[str] = []
    try:
        for _ in range(rounds):
            time.sleep(STEADY)
            old, new, outage = disrupt(cluster, name)
            outages.append(outage)
            promoted.append(f"pg{old} -> pg{new}")
            cluster.wait_healthy(180)  # the old primary back as a replica, a synchronous standby again
        time.sleep(STEADY)
    finally:
        stop.set()
        for thread in (*clients, follower, *models):
            thread.join(60)

    cluster.wait_healthy(180)
    total = Check()
    for client in clients:
        for game, ledger in client.ledgers.items():
            total.merge(check_game(store, game, ledger))
    played = [game for player in players for game in player.games_played]
    with Api(group.url, key) as api:
        verified = sum(1 for game in games + played if api.verify(game).get("ok"))

    # the follower, caught up on a replica, against the final log read on the primary
    time.sleep(1.0)
    follower.catch_up()
    final: list[int] = []
    after = 0
    while page := store.log.read_positions(after, 5000):
        final.extend(p for p, _, _ in page)
        after = page[-1][0]
    skipped = len(set(final) - set(follower.seen))
    phantom_events = [follower.shown[p] for p in sorted(set(follower.seen) - set(final))]
    phantoms = len(phantom_events)
    repeated = len(follower.seen) - len(set(follower.seen))

    # the real read models, followed from the synchronous standby all along: caught up there, then against a
    # rebuild from the primary (the same rows), and every event of the final log read by each
    head = store.log.head_position()
    for model in models:
        model.finish(head)
    facts, ratings = store.hand_fact_rows(), store.ratings.rows()
    # each model reads the events its filter admits (issue 20: about one in eight): those are what it must not skip
    model_skips = {m.model_type.__name__: len(set(admitted(store, m.log.only)) - set(m.log.seen)) for m in models}
    model_phantoms = {m.model_type.__name__: len(set(m.log.seen) - set(final)) for m in models}
    read_from = {m.model_type.__name__: dict(m.log.read_from) for m in models}
    followed = {m.model_type.__name__: "/".join(m.followed) for m in models}
    HandFacts(store).rebuild()
    RatingsModel(store).rebuild()
    same_facts, same_ratings = store.hand_fact_rows() == facts, store.ratings.rows() == ratings
    for model in models:
        model.store.dispose()

    tried = sum(c.tried for c in clients)
    acked = sum(c.acked for c in clients)
    retries = sum(c.retries for c in clients)
    problems = [p for c in clients for p in c.problems] + total.problems
    FIGURES.add(
        appends_tried=tried,
        acknowledged=acked,
        refused_409=sum(c.conflicts for c in clients),
        lost=total.lost,
        duplicated=total.duplicated,
        gaps=total.gaps,
        chains_verified=verified,
        chains_broken=len(games) + len(played) - verified,
        crashes=rounds if disrupt in (kill_the_primary, lose_the_primary_machine) else 0,
        retries=retries,
        server_errors=sum(c.server_errors for c in clients),
        skips_in_log_order=skipped + sum(model_skips.values()),
    )
    figures = (
        f"{rounds} {what} ({', '.join(promoted)}), {CLIENTS} clients, {GAMES} games: "
        f"appends tried {tried:,}, acknowledged {acked:,}, lost {total.lost}, duplicated {total.duplicated}, "
        f"seq gaps {total.gaps}, retried requests {retries:,} ({sum(c.server_errors for c in clients):,} after a 503, "
        f"{group.bugs_logged()} 500s logged), chains verifying {verified}/{len(games) + len(played)}; "
        f"time without a writable primary per failover: median {statistics.median(outages):.1f} s, "
        f"max {max(outages):.1f} s ({', '.join(f'{o:.1f}' for o in outages)}); "
        f"log follower on a replica: {len(set(follower.seen)):,} events read, skipped {skipped}, "
        f"phantoms {phantoms} {phantom_events[:3]}, read twice {repeated}, read errors across failovers "
        f"{follower.errors}; "
        f"read models from the synchronous standby ({len(played)} games played through, {len(facts):,} hand facts, "
        f"{len(ratings):,} rating changes): skipped {model_skips}, phantoms {model_phantoms}, "
        f"events read {read_from}, standby behind the cursor {[m.log.behind for m in models]} times, "
        f"errors {[m.errors for m in models]}, nodes followed {followed}; "
        f"same rows as a rebuild from the primary: hand facts {same_facts}, ratings {same_ratings}"
    )
    FIGURES.note("failover", figures)
    figures_seen.append(figures)
    print("\n" + figures)
    store.dispose()
    assert not problems, problems[:5]
    assert acked > 0 and total.lost == 0 and total.duplicated == 0 and total.gaps == 0
    assert verified == len(games) + len(played)
    assert group.bugs_logged() == 0  # a database lost under a request is a 503 to retry, never a 500
    # the prefer-standby follower reads whichever standby libpq takes, an asynchronous one or an old primary
    # rejoining: it may show an event that was never acknowledged and is not in the final log (a phantom; seen
    # in one run in three here), which is why the read models follow the synchronous standby only. Measured, not
    # asserted; the read models below are. A skip with no phantom to explain it would break log.py's argument.
    assert skipped == 0 or phantoms > 0
    assert sum(model_skips.values()) == 0 and sum(model_phantoms.values()) == 0
    assert same_facts and same_ratings and facts and ratings
    assert all(m.log.read_from["standby"] > 0 for m in models)


figures_seen: list[str] = []


def test_failover_under_load(cluster: Cluster, launch) -> None:  # type: ignore[no-untyped-def]
    run_under_load(cluster, launch, KILLS, kill_the_primary, "kills -9 of the primary's postmaster")


def test_loss_of_the_primary_machine_under_load(cluster: Cluster, launch) -> None:  # type: ignore[no-untyped-def]
    """A power cut of the primary's machine: its Patroni dies with its PostgreSQL, nothing releases the leader
    key, and the synchronous standby is promoted once the key expires (the TTL)."""
    run_under_load(
        cluster,
        launch,
        MACHINE_LOSSES,
        lose_the_primary_machine,
        "losses of the primary's machine (Patroni and PostgreSQL killed -9 together)",
    )


def test_partition_of_the_primary_from_etcd_under_load(netns_cluster: Cluster, launch) -> None:  # type: ignore[no-untyped-def]
    run_under_load(netns_cluster, launch, PARTITIONS, cut_the_primary_off, "partitions of the primary from etcd")


def test_reads_on_replicas_see_your_writes(cluster: Cluster, launch) -> None:  # type: ignore[no-untyped-def]
    """Appends on the primary, reads on the two replicas (TABLEBOOK_READ_URLS) with `Tablebook-Min-Seq`:
    no read shows less than the seq its append answered; which node served each is counted. For 50 appends
    WAL replay waits on both replicas (a lock conflict): those reads must go to the primary."""
    name = _database(cluster)
    store = Store(cluster.url(name))
    key = create_key(store, f"club-{secrets.token_hex(3)}", "recorder")
    primary = cluster.primary()
    replicas = [n for n in (1, 2, 3) if n != primary]
    reads = ",".join(cluster.node_url(n, name) for n in replicas)
    group = launch(cluster.url(name), processes=1, TABLEBOOK_READ_URLS=reads, TABLEBOOK_READ_WAIT="0.1")
    served = {"replica": 0, "primary": 0}
    stale = 0
    rounds, paused = 300, range(150, 200)

    # Replicas made to fall behind: each holds a lock on a table the primary then locks exclusively, so
    # its WAL replay waits (up to max_standby_streaming_delay, 30 s) until the holder lets go. WAL still
    # arrives and is flushed, so synchronous commits go on. (pg_wal_replay_pause would do, but Patroni
    # resumes a paused replay within its loop.)
    primary_dsn = cluster.node_url(primary or 1, name).replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(primary_dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE lagger (x int)")
    holders: list[psycopg.Connection[Any]] = []

    def replay(what: str) -> None:
        if what == "pause":
            for n in replicas:
                conn = psycopg.connect(cluster.node_url(n, name).replace("postgresql+psycopg://", "postgresql://"))
                conn.execute("SELECT * FROM lagger")  # the transaction stays open: AccessShareLock held
                holders.append(conn)
            with psycopg.connect(primary_dsn) as conn:  # a transaction, committed on leaving
                conn.execute("LOCK TABLE lagger IN ACCESS EXCLUSIVE MODE")
        else:
            for conn in holders:
                conn.close()

    with Api(group.url, key) as api:
        games = [api.create_game("schnapsen") for _ in range(3)]
        for turn in range(rounds):
            if turn == paused.start:
                replay("pause")
            if turn == paused.stop:
                replay("resume")
            game = games[turn % len(games)]
            status, body = api.append(game, [note(f"ryw/{turn}")], idempotency_key=f"ryw-{turn}")
            assert status == 201, (status, body)
            seq = body["events"][-1]["seq"]
            for path in (f"/v1/games/{game}", f"/v1/games/{game}/events"):
                answer = api.http.get(path, headers={"Tablebook-Min-Seq": str(seq)})
                assert answer.status_code == 200, answer.text
                shown = answer.json()
                stale += (shown["seq"] if "seq" in shown else shown["head"]) < seq
                served[answer.headers["Tablebook-Read-From"]] += 1
    figures = (
        f"read-your-writes on the cluster: {rounds} appends, each read back twice with Tablebook-Min-Seq: "
        f"{served['replica']} reads served by a replica, {served['primary']} by the primary (replay held back on both "
        f"replicas for {len(paused)} appends), {stale} stale"
    )
    FIGURES.note("failover", figures)
    print("\n" + figures)
    store.dispose()
    assert stale == 0
    assert served["replica"] > 0 and served["primary"] >= 2 * len(paused)


class StreamReader(threading.Thread):
    """One live stream of a game (`GET /stream`), recording each note it receives and when."""

    def __init__(self, url: str, key: str, game: str) -> None:
        super().__init__(daemon=True)
        self.url, self.key, self.game = url, key, game
        self.received: list[tuple[int, str, float]] = []  # (seq, text, monotonic time)
        self.read_from = ""
        self.opened = threading.Event()
        self.stop = threading.Event()
        self.error: str | None = None

    def run(self) -> None:
        import httpx
        import orjson

        headers = {"Authorization": f"Bearer {self.key}"}
        try:
            with (
                httpx.Client(base_url=self.url, headers=headers, timeout=httpx.Timeout(5.0, read=None)) as http,
                http.stream("GET", f"/v1/games/{self.game}/stream") as answer,
            ):
                self.read_from = answer.headers.get("Tablebook-Read-From", "")
                self.opened.set()
                for line in answer.iter_lines():
                    if line.startswith("data: ") and '"note"' in line:
                        env = orjson.loads(line[len("data: ") :])
                        self.received.append((env["seq"], env["data"]["text"], time.monotonic()))
                    if self.stop.is_set():
                        return
        except Exception as error:  # reported by the test
            self.error = repr(error)
            self.opened.set()


def _event_scans(cluster: Cluster, nodes: list[int], name: str) -> int:
    """Index and sequential scans of the `event` table counted on `nodes` (each node counts its own reads)."""
    total = 0
    for n in nodes:
        dsn = cluster.node_url(n, name).replace("postgresql+psycopg://", "postgresql://")
        with psycopg.connect(dsn, autocommit=True) as conn:
            row = conn.execute(
                "SELECT coalesce(idx_scan, 0) + coalesce(seq_scan, 0) FROM pg_stat_user_tables WHERE relname = 'event'"
            ).fetchone()
        total += int(row[0]) if row else 0
    return total


def test_streams_read_on_replicas_miss_nothing(cluster: Cluster, launch) -> None:  # type: ignore[no-untyped-def]
    """Live streams on an API whose read URLs are the two replicas: the wake-up from the primary's NOTIFY,
    the pages from a replica that has reached the primary's head. Every appended note reaches every stream
    in order, also while both replicas' WAL replay is held back (then the pages come from the primary);
    the replicas' own counters show the pages they served. The API also follows the read models from the
    synchronous standby (TABLEBOOK_FOLLOW_PATRONI): a search catches up through it."""
    name = _database(cluster)
    store = Store(cluster.url(name))
    key = create_key(store, f"club-{secrets.token_hex(3)}", "recorder")
    primary = cluster.primary()
    assert primary is not None
    replicas = [n for n in (1, 2, 3) if n != primary]
    reads = ",".join(cluster.node_url(n, name) for n in replicas)
    group = launch(
        cluster.url(name),
        processes=1,
        TABLEBOOK_READ_URLS=reads,
        TABLEBOOK_READ_WAIT="0.2",
        TABLEBOOK_FOLLOW_PATRONI=",".join(cluster.patroni_urls()),
    )
    primary_dsn = cluster.node_url(primary, name).replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(primary_dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE lagger (x int)")
    rounds, held = 60, range(25, 40)
    with Api(group.url, key) as api:
        games = [api.create_game("schnapsen") for _ in range(4)]
        streams = [StreamReader(group.url, key, game) for game in games]
        for reader in streams:
            reader.start()
            assert reader.opened.wait(10) and reader.error is None, reader.error
        scans_before = _event_scans(cluster, replicas, name)
        acked: dict[str, list[tuple[int, str, float]]] = {game: [] for game in games}
        holders: list[psycopg.Connection[Any]] = []
        for turn in range(rounds):
            if turn == held.start:  # both replicas' replay waits on a lock conflict (see the test above)
                for n in replicas:
                    conn = psycopg.connect(cluster.node_url(n, name).replace("postgresql+psycopg://", "postgresql://"))
                    conn.execute("SELECT * FROM lagger")
                    holders.append(conn)
                with psycopg.connect(primary_dsn) as conn:
                    conn.execute("LOCK TABLE lagger IN ACCESS EXCLUSIVE MODE")
            if turn == held.stop:
                for conn in holders:
                    conn.close()
            for game in games:
                text = f"stream/{turn}"
                status, body = api.append(game, [note(text)], idempotency_key=f"s-{game}-{turn}")
                assert status == 201, (status, body)
                acked[game].append((body["events"][-1]["seq"], text, time.monotonic()))
            time.sleep(0.05)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(len(r.received) < rounds for r in streams):
            time.sleep(0.1)
        scans = _event_scans(cluster, replicas, name) - scans_before
        status, body = api.request("GET", "/v1/games", params={"has": "marriage"})
        assert status == 200, (status, body)
    for reader in streams:
        reader.stop.set()
    missed = disordered = 0
    delays: list[float] = []
    held_delays: list[float] = []
    for reader in streams:
        got = {(seq, text): at for seq, text, at in reader.received}
        seqs = [seq for seq, _, _ in reader.received]
        disordered += seqs != sorted(seqs) or len(seqs) != len(set(seqs))
        for turn, (seq, text, at) in enumerate(acked[reader.game]):
            if (seq, text) not in got:
                missed += 1
                continue
            (held_delays if turn in held else delays).append(max(0.0, got[(seq, text)] - at))
    figures = (
        f"streams on replicas: {len(streams)} streams, {rounds * len(games)} notes appended, "
        f"{sum(len(r.received) for r in streams)} delivered, missed {missed}, out of order or twice {disordered}; "
        f"first page read from {sorted({r.read_from for r in streams})}; event-table scans on the replicas "
        f"during the run {scans}; delivery after the acknowledgement median {statistics.median(delays) * 1000:.0f} ms, "
        f"max {max(delays) * 1000:.0f} ms; with both replicas' replay held back ({len(held)} rounds) median "
        f"{statistics.median(held_delays) * 1000:.0f} ms, max {max(held_delays) * 1000:.0f} ms"
    )
    FIGURES.note("failover", figures)
    print("\n" + figures)
    store.dispose()
    assert missed == 0 and disordered == 0
    assert scans > 0  # the replicas served pages
    assert group.bugs_logged() == 0
