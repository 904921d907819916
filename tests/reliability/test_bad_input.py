"""Bad input against a real server: a corpus of broken events for every game, then schemathesis on every route.

Every broken event is refused with a clear 422 (the code the rules give:
`invalid`, `impossible` or `illegal`, and the event's `index`), and nothing
is written. Schemathesis generates requests from the OpenAPI schema of every
route, valid and invalid: no answer is a 5xx, and every error has the shape
`{"error": {"code", "message", ...}}`.
"""

from __future__ import annotations

import os
import random
import socket
from collections import Counter
from typing import Any

import httpx
import orjson
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from events.errors import TablebookError
from events.store import Store
from projections.core import engine
from projections.core.registry import rules_for
from tests.conftest import Club, make_club
from tests.reliability.corpus import BIG_STAKE, EDGES, WIDEST, Case, Edge, mutations, out_of_order
from tests.reliability.figures import FIGURES
from tests.reliability.load import PLAYERS, Api, is_error_shape, kinds, note, simulated
from tests.reliability.server import ServerGroup

pytestmark = pytest.mark.reliability


def states_of(kind: str, events: list[dict[str, Any]]) -> list[Any]:
    rules = rules_for(kind)
    state = engine.start(rules, PLAYERS[kind], rules.options_for(PLAYERS[kind], {}))
    states = [state]
    for event in events:
        decision = engine.decide(rules, state, dict(event))
        state = engine.apply(rules, state, decision.event, state.seq + 1)
        states.append(state)
    return states


def local_verdict(kind: str, state: Any, event: Any) -> str | None:
    """The code the rules give to `event` at `state` (None: accepted). A crash is a bug and propagates."""
    try:
        engine.decide(rules_for(kind), state, event)
    except TablebookError as refused:
        return refused.code
    return None


def pick(cases: list[Case], per_category: int | None, rng: random.Random) -> list[Case]:
    """Up to `per_category` cases of each category (all when None)."""
    if per_category is None:
        return cases
    by_category: dict[str, list[Case]] = {}
    for case in cases:
        by_category.setdefault(case.category, []).append(case)
    chosen: list[Case] = []
    for group in by_category.values():
        chosen += rng.sample(group, min(per_category, len(group)))
    return chosen


def test_broken_events_of_every_game_are_refused_with_422_and_write_nothing(
    store: Store, shared_server: ServerGroup, full: bool
) -> None:
    key = make_club(store).keys["recorder"]
    per_category = None if full else 3
    tried: Counter[str] = Counter()
    codes: Counter[str] = Counter()
    accepted_locally = 0
    wrong: list[str] = []
    with Api(shared_server.url, key) as api:
        for kind in kinds():
            rng = random.Random(kind)
            events = simulated(kind, seed=3, max_events=400)
            states = states_of(kind, events)
            game_id = api.create_game(kind)
            cuts = sorted({0, 1, len(events) // 3, len(events) // 2} if full else {0, 1, len(events) // 2})
            head = 0
            for at in cuts:
                status, body = (201, None) if at == head else api.append(game_id, events[head:at], expected_seq=head)
                assert status == 201, (status, body)
                head = at
                cases = pick([*mutations(events[at], len(PLAYERS[kind])), *out_of_order(events, at)], per_category, rng)
                for number, case in enumerate(cases):
                    expected = local_verdict(kind, states[at], case.event)
                    if expected is None:  # an optional field left out, or an event that may come in any order
                        accepted_locally += 1
                        continue
                    wrapped = number % 5 == 4  # some go second in a batch, after a good event
                    batch = [note("fine"), case.event] if wrapped else [case.event]
                    status, body = api.append(game_id, batch, expected_seq=head)
                    tried[case.category] += 1
                    error = body.get("error", {}) if isinstance(body, dict) else {}
                    codes[str(error.get("code"))] += 1
                    good = (
                        status == 422
                        and is_error_shape(body)
                        and (error["code"] == expected or wrapped)
                        and error.get("index") == (1 if wrapped else 0)
                        and len(error["message"]) <= 500
                    )
                    if not good:
                        wrong.append(f"{kind} at seq {at}, {case.category}: {case.detail}: {status} {str(body)[:300]}")
                stored = store.get_game(game_id)
                assert stored.seq == at and len(store.read_events(game_id)) == at, "a refused event was written"
    total = sum(tried.values())
    server_errors = sum(1 for line in wrong if ": 5" in line)
    FIGURES.add(fuzz_cases=total, fuzz_accepted=len(wrong), server_errors=server_errors)
    FIGURES.note(
        "bad input",
        f"{store.dialect}: {total:,} broken events over {len(kinds())} games "
        f"({', '.join(f'{n} {c}' for c, n in sorted(tried.items()))}): "
        f"answers {dict(codes)}; {len(wrong)} not refused with a clear 422; nothing written",
    )
    assert not wrong, wrong[:10]


ENVELOPES: list[tuple[str, bytes, dict[str, str], int, str]] = [
    ("not JSON", b"{", {}, 422, "invalid"),
    ("invalid UTF-8", b'{"events": [{"type": "note", "text": "\xff"}]}', {}, 422, "invalid"),
    ("NaN", b'{"events": [{"type": "note", "text": "x", "ref": NaN}]}', {}, 422, "invalid"),
    ("a list", b"[]", {}, 422, "invalid"),
    ("null", b"null", {}, 422, "invalid"),
    ("empty body", b"", {}, 422, "invalid"),
    ("events an object", b'{"events": {}}', {}, 422, "invalid"),
    ("no events", b'{"events": []}', {}, 422, "invalid"),
    ("no events field", b'{"expected_seq": 0}', {}, 422, "invalid"),
    ("an unknown field", b'{"events": [{"type": "note", "text": "x"}], "expected": 0}', {}, 422, "invalid"),
    ("expected_seq -1", b'{"events": [{"type": "note", "text": "x"}], "expected_seq": -1}', {}, 422, "invalid"),
    ("expected_seq a string", b'{"events": [{"type": "note", "text": "x"}], "expected_seq": "0"}', {}, 422, "invalid"),
    ("expected_seq true", b'{"events": [{"type": "note", "text": "x"}], "expected_seq": true}', {}, 422, "invalid"),
    ("expected_seq 1.5", b'{"events": [{"type": "note", "text": "x"}], "expected_seq": 1.5}', {}, 422, "invalid"),
    (
        "expected_seq 2**70",
        b'{"events": [{"type": "note", "text": "x"}], "expected_seq": 1180591620717411303424}',
        {},
        422,
        "invalid",
    ),
    ("1,001 events", orjson.dumps({"events": [note("x")] * 1001}), {}, 422, "invalid"),
    ("a note of 2,001 characters", orjson.dumps({"events": [note("x" * 2001)]}), {}, 422, "invalid"),
    ("an empty note", orjson.dumps({"events": [note("")]}), {}, 422, "invalid"),
    ("nesting 100,000 deep", b'{"events": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", {}, 422, "invalid"),
    (
        "nesting 1,000 deep",
        b'{"events": [{"type": "note", "text": ' + b"[" * 1000 + b"]" * 1000 + b"}]}",
        {},
        422,
        "invalid",
    ),
    (
        "nesting 300 deep, with an Idempotency-Key",
        b'{"events": [{"type": "note", "text": ' + b"[" * 300 + b"]" * 300 + b"}]}",
        {"Idempotency-Key": "deep"},
        422,
        "invalid",
    ),
    (
        "an Idempotency-Key of 201 characters",
        orjson.dumps({"events": [note("x")]}),
        {"Idempotency-Key": "k" * 201},
        422,
        "invalid",
    ),
    ("1.2 MiB of notes", orjson.dumps({"events": [note("x" * 1500)] * 800}), {}, 413, "too_large"),
]


@pytest.mark.parametrize(("name", "body", "headers", "status", "code"), ENVELOPES, ids=[e[0] for e in ENVELOPES])
def test_broken_append_requests_are_refused_clearly(
    store: Store, shared_server: ServerGroup, name: str, body: bytes, headers: dict[str, str], status: int, code: str
) -> None:
    key = make_club(store).keys["recorder"]
    with Api(shared_server.url, key) as api:
        game_id = api.create_game("schnapsen")
        got, answer = api.request(
            "POST", f"/v1/games/{game_id}/events", content=body, headers={"Content-Type": "application/json", **headers}
        )
    FIGURES.add(fuzz_cases=1, fuzz_accepted=int(got != status), server_errors=int(got is not None and got >= 500))
    assert (got, answer["error"]["code"] if is_error_shape(answer) else answer) == (status, code)
    assert len(answer["error"]["message"]) <= 500
    assert store.get_game(game_id).seq == 0 and store.read_events(game_id) == []


# --------------------------------------------------------------------------- requests no store can hold


def raw_request(url: str, edge: Edge, target: str, key: str | None) -> tuple[int | None, Any]:
    """Send `edge` byte for byte and read the answer: (status, JSON body or text), or (None, None).

    A socket, not httpx: the request must reach the server as the outside test sent it (a NUL in a
    header, `²` as one Latin-1 byte, a path percent-encoded as written), which a client may refuse
    to send or re-encode.
    """
    host, _, port = url.removeprefix("http://").partition(":")
    lines = [f"{edge.method} {target} HTTP/1.1".encode(), b"Host: " + host.encode(), b"Connection: close"]
    if key is not None:
        lines.append(b"Authorization: Bearer " + key.encode())
    lines += [name.encode() + b": " + value for name, value in edge.headers]
    if edge.body is not None:
        media = b"text/plain" if target.startswith("/v1/import") else b"application/json"
        lines += [b"Content-Type: " + media, b"Content-Length: %d" % len(edge.body)]
    try:
        with socket.create_connection((host, int(port)), timeout=30) as sock:
            sock.sendall(b"\r\n".join(lines) + b"\r\n\r\n" + (edge.body or b""))
            answer = b"".join(iter(lambda: sock.recv(65536), b""))
    except OSError:
        return None, None
    head, _, body = answer.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 "):
        return None, None
    try:
        return int(head.split(b" ", 2)[1]), orjson.loads(body)
    except orjson.JSONDecodeError:
        return int(head.split(b" ", 2)[1]), body[:300].decode("latin-1")


def refused_well(edge: Edge, status: int | None, body: Any) -> bool:
    """422 `invalid` in the error shape (naming `edge.field`), or the HTTP server's own 400 where it may refuse."""
    if edge.protocol and status == 400:  # h11 refuses a NUL in a header before the app runs
        return True
    if status != 422 or not is_error_shape(body) or body["error"]["code"] != "invalid":
        return False
    return edge.field is None or body["error"].get("field") == edge.field


def test_inputs_no_store_can_hold_are_refused_before_any_query(store: Store, shared_server: ServerGroup) -> None:
    """The outside test's cases 5 to 13, one by one, on this store: each a clear refusal, no 5xx, nothing written."""
    club = make_club(store)
    statuses: Counter[int | None] = Counter()
    wrong: list[str] = []
    with Api(shared_server.url, club.keys["recorder"]) as api:
        game = api.create_game("schnapsen")
        half = api.create_game("seven-and-a-half", {"enforcement": "record", "splitting": True})
        player = api.request("POST", "/v1/players", json={"name": "Cy"})[1]["id"]
        before = {g["id"] for g in api.request("GET", "/v1/games", params={"limit": 200})[1]["games"]}
        players = api.request("GET", "/v1/players")[1]
        for edge in EDGES:
            target = edge.target.format(game=game, half=half, player=player)
            key = club.keys[edge.key] if edge.key is not None else None
            status, body = raw_request(shared_server.url, edge, target, key)
            statuses[status] += 1
            if not refused_well(edge, status, body):
                wrong.append(f"{edge.defect}. {edge.name}: {status} {str(body)[:300]}")
        after = {g["id"] for g in api.request("GET", "/v1/games", params={"limit": 200})[1]["games"]}
        heads = (api.head(game), api.head(half))
        players_after = api.request("GET", "/v1/players")[1]
    server_errors = sum(n for status, n in statuses.items() if status is not None and status >= 500)
    FIGURES.add(fuzz_cases=len(EDGES), fuzz_accepted=len(wrong), server_errors=server_errors)
    FIGURES.note(
        "bad input",
        f"{store.dialect}: {len(EDGES)} requests no store can hold (the outside test's cases 5-13: integers over "
        f"64 bits, 5,000 digits, Last-Event-ID ², NaN and 1e400, NUL in path, query, headers and bodies, "
        f"names, aliases, merges and profiles): "
        f"answers {dict(sorted(statuses.items(), key=str))}; {len(wrong)} not refused clearly; nothing written",
    )
    assert not wrong, wrong
    assert after == before and heads == (0, 0), "a refused request wrote something"
    assert players_after == players, "a refused request changed the club's players"


def test_the_largest_stakes_under_record_never_wedge_a_hand(store: Store, shared_server: ServerGroup) -> None:
    """Stakes of 2**63 - 1 were stored under `record`, then every `stand` answered 500 (case 6); a table of
    1 to 10**9, whose `legal_events` once took 19 s a call, takes stakes at both ends (case 12)."""
    club = make_club(store)
    bets = [{"type": "bet", "seat": s, "amount": BIG_STAKE} for s in (3, 2, 1)]
    hand = [
        *({"type": "bet", "seat": s, "amount": WIDEST} for s in (3, 2, 1)),  # over max_bet 100: violations
        {"type": "deal", "cards": {"0": "6C", "1": "7C", "2": "7D", "3": "AC"}},
        {"type": "hit", "seat": 3, "card": "2C"},
        {"type": "stand", "seat": 3},
        {"type": "hit", "seat": 2, "card": "7H"},
        {"type": "hit", "seat": 1, "card": "7S"},
        {"type": "hit", "seat": 0, "card": "KH"},
        {"type": "stand", "seat": 0},
    ]
    with Api(shared_server.url, club.keys["recorder"]) as api:
        half = api.create_game("seven-and-a-half", {"enforcement": "record", "pair_of_sevens": True})
        status, body = api.append(half, bets)
        assert status == 422 and body["error"]["field"] == "amount", body
        answers = [api.append(half, [event]) for event in hand]
        assert [status for status, _ in answers] == [201] * len(hand), answers
        assert [env["violation"]["rule"] for _, body in answers[:3] for env in body["events"]] == [
            "half.stake_limits"
        ] * 3
        totals = api.request("GET", f"/v1/games/{half}/score")[1]["totals"]
        assert totals == {"0": -5 * WIDEST, "1": 3 * WIDEST, "2": 3 * WIDEST, "3": -WIDEST}
        widest = api.create_game("seven-and-a-half", {"max_bet": WIDEST})
        status, body = api.append(
            widest, [{"type": "bet", "seat": s, "amount": a} for s, a in ((3, 1), (2, 123_456_789), (1, WIDEST))]
        )
        assert status == 201 and not any("violation" in env for env in body["events"]), body
    FIGURES.add(fuzz_cases=1, fuzz_accepted=0)  # the stakes of 2**63 - 1; the rest must be accepted


# --------------------------------------------------------------------------- schemathesis


def game_pool(api: Api, store: Store, other: Club) -> list[str]:
    """Games in every state the routes care about: new, mid-hand, finished, of every kind; one of another club."""
    pool = []
    for number, kind in enumerate(kinds()):
        events = simulated(kind, seed=40 + number, max_events=300)
        fresh = api.create_game(kind)
        mid = api.create_game(kind)
        assert api.append(mid, events[: len(events) // 2])[0] == 201
        done = api.create_game(kind)
        for start in range(0, len(events), 500):
            assert api.append(done, events[start : start + 500])[0] == 201
        pool += [fresh, mid, done]
    with Api(api.url, other.keys["recorder"]) as theirs:
        pool.append(theirs.create_game("schnapsen"))
    return pool


def test_every_route_answers_generated_requests_without_a_5xx(
    store: Store, shared_server: ServerGroup, full: bool
) -> None:
    """Schemathesis, positive and negative cases for every operation of the OpenAPI schema."""
    club, other = make_club(store), make_club(store)
    examples = 60 if full else 4
    # the short run is the same every time; the full one draws new cases (TABLEBOOK_FUZZ_SEED=N repeats a run)
    chosen = os.environ.get("TABLEBOOK_FUZZ_SEED", "")
    fuzz_seed = int(chosen) if chosen else (random.randrange(2**32) if full else None)
    url = shared_server.urls[1]
    schema = schemathesis.openapi.from_url(f"{url}/openapi.json")
    keys = [club.keys["recorder"]] * 3 + [club.keys["viewer"], club.keys["auditor"], None]
    failures: list[str] = []
    statuses: Counter[int] = Counter()
    unsatisfiable: list[str] = []
    http = httpx.Client(base_url=url, timeout=30.0)
    with Api(url, club.keys["recorder"]) as api:
        pool = game_pool(api, store, other)
    operations = [result.ok() for result in schema.get_all_operations()]

    def check(operation: Any, case: Any, game: int, who: int) -> None:
        if "game_id" in (case.path_parameters or {}) and game < len(pool):
            case.path_parameters["game_id"] = pool[game]
        if operation.path.endswith("/stream"):
            case.query = {**(case.query or {}), "follow": "false"}
        headers = {k: v for k, v in (case.headers or {}).items() if k.lower() != "authorization"}
        if keys[who] is not None:
            headers["Authorization"] = f"Bearer {keys[who]}"
        kwargs = case.as_transport_kwargs(base_url=url, headers=headers)
        kwargs.pop("base_url", None)
        # the schema's bearer scheme makes schemathesis generate an Authorization of its own (some not even
        # sendable, such as "Bearer "): the key under test is the only credential sent
        sent = {k: v for k, v in (kwargs.get("headers") or {}).items() if k.lower() != "authorization"}
        if keys[who] is not None:
            sent["Authorization"] = f"Bearer {keys[who]}"
        kwargs["headers"] = sent
        for drop in ("verify", "cert", "allow_redirects", "stream"):
            kwargs.pop(drop, None)
        try:
            if isinstance(kwargs.get("data"), bytes | str):  # raw bytes go as content (httpx's wish)
                kwargs["content"] = kwargs.pop("data")
            if not kwargs.get("cookies"):
                kwargs.pop("cookies", None)
            response = http.request(**{k: v for k, v in kwargs.items() if k != "url"}, url=kwargs["url"])
        except httpx.HTTPError as exc:
            failures.append(f"{case.method} {case.formatted_path}: no answer ({exc!r})")
            return
        statuses[response.status_code] += 1
        if response.status_code >= 500:
            failures.append(
                f"{case.method} {case.formatted_path} {case.query}: {response.status_code} {response.text[:300]}"
            )
        elif response.status_code >= 400:
            try:
                body = response.json()
            except ValueError:
                body = response.text
            if not is_error_shape(body):
                shown = str(body)[:200]
                failures.append(
                    f"{case.method} {case.formatted_path}: {response.status_code} not in the error shape: {shown}"
                )

    def runner(operation: Any, mode: GenerationMode) -> Any:
        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            derandomize=fuzz_seed is None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @seed(fuzz_seed)
        @given(
            case=operation.as_strategy(generation_mode=mode),
            game=st.integers(0, len(pool)),
            who=st.integers(0, len(keys) - 1),
        )
        def run(case: Any, game: int, who: int) -> None:
            check(operation, case, game, who)

        return run

    for operation in operations:
        negatable = operation.get_request_payload_content_types() or any(
            parameter.location.value != "path" for parameter in operation.iter_parameters()
        )  # a lone string path parameter has no negative form: hypothesis would search in vain
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE) if negatable else (GenerationMode.POSITIVE,):
            try:
                runner(operation, mode)()
            except Unsatisfiable:
                unsatisfiable.append(f"{operation.method.upper()} {operation.path} {mode.value}")
    http.close()
    cases = sum(statuses.values())
    server_errors = sum(n for status, n in statuses.items() if status >= 500)
    FIGURES.add(api_cases=cases, server_errors=server_errors)
    FIGURES.note(
        "bad input",
        f"{store.dialect}: schemathesis, {len(operations)} operations, positive and negative cases: "
        f"{cases:,} requests, "
        f"answers {dict(sorted(statuses.items()))}; {len(failures)} failures"
        + (f" (no negative case possible for {len(unsatisfiable)} operations)" if unsatisfiable else "")
        + (f"; TABLEBOOK_FUZZ_SEED={fuzz_seed}" if fuzz_seed is not None else ""),
    )
    assert not failures, failures[:10]


def test_a_name_with_like_wildcards_finds_that_name_only(store: Store, shared_server: ServerGroup) -> None:
    """`%` and `_` in a searched name are letters, not patterns: they once matched other names and cut the page."""
    club = make_club(store)
    with Api(shared_server.url, club.keys["recorder"]) as api:
        wanted = {}
        for name in ("A_n", "A%n"):
            status, body = api.request("POST", "/v1/games", json={"game": "schnapsen", "players": [name, "Bo"]})
            assert status == 201
            wanted[name] = body["id"]
        for _ in range(3):  # newer games whose names the patterns would match
            api.request("POST", "/v1/games", json={"game": "schnapsen", "players": ["Ann", "Bo"]})
        found = {
            name: api.request("GET", "/v1/games", params={"player": name, "limit": 1})[1]["games"] for name in wanted
        }
    assert {name: [g["id"] for g in games] for name, games in found.items()} == {n: [i] for n, i in wanted.items()}


def test_numbers_too_big_for_the_database_are_answered_not_crashed(store: Store, shared_server: ServerGroup) -> None:
    """A query number over 64 bits once reached SQLite as is: `OverflowError`, a 500 (schemathesis found it)."""
    club = make_club(store)
    huge = str(2**70)
    with Api(shared_server.url, club.keys["recorder"]) as api:
        game_id = api.create_game("schnapsen")
        api.append(game_id, simulated("schnapsen", seed=1, max_events=8))
        answers = {
            "events after 2**70": api.request("GET", f"/v1/games/{game_id}/events", params={"after": huge}),
            "stream after 2**70": api.request(
                "GET", f"/v1/games/{game_id}/stream", params={"after": huge, "follow": "false"}
            ),
            "state at 2**70": api.request("GET", f"/v1/games/{game_id}/state", params={"at": huge}),
            "replay of hand 2**70": api.request("GET", f"/v1/games/{game_id}/replay", params={"hand": huge}),
            "games won by seat 2**70": api.request("GET", "/v1/games", params={"winner": huge}),
        }
    assert answers["events after 2**70"][0] == 200 and answers["events after 2**70"][1]["events"] == []
    assert answers["stream after 2**70"][0] == 200
    for name, (status, body) in answers.items():
        assert status is not None and status < 500, (name, status, body)
        assert status < 400 or is_error_shape(body), (name, body)
