"""Helpers the browser tests share: not a test module, so test modules import from here.

The table pad's driver (what `/record/{id}` offers, tapped: tests/browser/test_record_page.py,
tests/browser/test_pad_entry.py), and what the site's pages show (tests/browser/test_site.py).
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from projections.core import engine
from projections.core.registry import rules_for
from projections.core.simulate import next_options
from projections.reading import offers
from tests.browser.conftest import Page, Server, settle

# --------------------------------------------------------------------------- the table pad

#: a phone's size, for the pad
PHONE = {"width": 360, "height": 740}
#: players per game (Smear for two: fewer plays a hand)
PLAYERS = {
    "casino": ["Ann", "Ben"],
    "cutthroat-smear": ["Ruby", "Liam"],
    "schnapsen": ["Anna", "Ben"],
    "gin-rummy-3": ["Ben", "Jo", "Ida"],
    "seven-and-a-half": ["Juan", "Inès", "Carlo", "Sara"],
}


def canonical(value: Any) -> str:
    """As the page's `canonical` writes an event (keys sorted, no spaces)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def new_game(server: Server, kind: str, options: dict[str, Any] | None = None, **labels: str) -> str:
    body = {"game": kind, "players": PLAYERS[kind], "options": options or {}, **labels}
    created: dict[str, Any] = server.post("/v1/games", body)
    return str(created["id"])


def reveal_cards(reveal_event: dict[str, Any], fields: dict[str, Any]) -> list[str]:
    """The cards of a reveal's event in the order the picker's slots take them (fields, seats, cards)."""
    out: list[str] = []
    for field, spec in fields.items():
        value = reveal_event[field]
        if spec["shape"] == "card":
            out.append(value)
        elif spec["shape"] == "cards":
            out.extend(value)
        elif spec["shape"] == "seat_cards":
            for seat in spec["seats"]:
                out.extend(value[seat])
        else:
            for seat in spec["seats"]:
                cards = value[str(seat)]
                out.extend([cards] if isinstance(cards, str) else cards)
    return out


class Driver:
    """Taps through the pad: what the page offers, chosen by the game's bot, one tap at a time."""

    def __init__(self, server: Server, page: Page, game_id: str, kind: str, seed: int = 1) -> None:
        self.server, self.page, self.game_id, self.kind = server, page, game_id, kind
        self.rules = rules_for(kind)
        meta = server.get(f"/v1/games/{game_id}")
        self.position = engine.start(self.rules, meta["players"], meta["options"])
        self.history: list[dict[str, Any]] = []
        self.rng = random.Random(seed)
        bot = self.rules.bot
        assert bot is not None, f"{kind} has no bot"
        self.bot = bot
        self.taps: list[dict[str, Any]] = []

    def offered(self) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """What the page offers now: its decision buttons, amounts of its ranges, its reveal (from /next)."""
        page = self.page.page
        buttons = page.eval_on_selector_all("#decisions button.choice", "bs => bs.map(b => b.dataset.event)")
        events = [json.loads(b) for b in buttons]
        ranges = page.eval_on_selector_all(
            "#ranges .range",
            "rs => rs.map(r => ({base: r.dataset.range, field: r.dataset.field, "
            "min: Number(r.querySelector('input').min), max: Number(r.querySelector('input').max)}))",
        )
        for r in ranges:
            base = json.loads(r["base"])
            amounts = sorted({r["min"], r["max"], (r["min"] + r["max"]) // 2, min(r["min"] + 1, r["max"])})
            events += [{**base, r["field"]: a} for a in amounts]
        offer = self.server.get(f"/v1/games/{self.game_id}/next")
        if offer["reveal"]:
            assert not page.locator("#picker").is_hidden()
            events += [v["event"] for v in offer["reveal"]["events"]]
        return events, offer

    def choose(self, events: list[dict[str, Any]], offer: dict[str, Any]) -> dict[str, Any]:
        state = self.position.game
        if self.kind == "seven-and-a-half" and state.hand >= 1 and {"type": "session_closed"} in events:
            return {"type": "session_closed"}  # one hand is enough
        closes = [e for e in events if e["type"] == "close"]
        if self.kind == "schnapsen" and closes:
            return closes[0]  # a closed talon: short hands
        return dict(self.bot(state, events, self.rng, self.history))

    def tap(self, event: dict[str, Any], offer: dict[str, Any]) -> None:
        page = self.page.page
        reveal = offer["reveal"]
        variants = [v["event"] for v in reveal["events"]] if reveal else []
        if event in variants:
            index = variants.index(event)
            if len(variants) > 1:
                page.check(f"#variant-{index}")
            for card in reveal_cards(event, reveal["events"][index]["fields"]):
                page.click(f'#picker .pick[data-card="{card}"]')
            if len(reveal_cards(event, reveal["events"][index]["fields"])) > 1:  # one card: its tap records it
                assert page.locator("#picker-send").is_enabled()
                page.click("#picker-send")
            return
        found = page.locator(f"#decisions button.choice[data-event='{canonical(event)}']")
        if found.count():
            if not found.first.is_visible():
                page.click("#decisions .more-choices")
            found.first.click()
            return
        for field in ("amount",):
            if field in event:
                base = {k: v for k, v in event.items() if k != field}
                row = page.locator(f"#ranges .range[data-range='{canonical(base)}']")
                row.locator("input.amount").fill(str(event[field]))
                row.locator("button.range-send").click()
                return
        raise AssertionError(f"the page does not offer {event}")

    def step(self) -> bool:
        """One tap; False once the game is over (the page says so)."""
        seq = settle(self.page)
        assert seq == self.position.seq
        if self.rules.is_terminal(self.position.game):
            return False
        events, offer = self.offered()
        assert offer["seq"] == seq and events, offer
        event = self.choose(events, offer)
        self.tap(event, offer)
        settle(self.page, seq + 1)
        stored = self.server.get(f"/v1/games/{self.game_id}/events", after=seq)["events"]
        assert [e["seq"] for e in stored] == [seq + 1]
        raw = {"type": stored[0]["type"], **stored[0]["data"]}
        decision = engine.decide(self.rules, self.position, raw)
        self.position = engine.apply(self.rules, self.position, decision.event, seq + 1)
        self.history.append(decision.event)
        self.taps.append(event)
        return True


def offline_taps(page: Page, count: int) -> None:
    """Wait until `count` taps wait offline and the pad offers its own (unchecked) next taps."""
    page.page.wait_for_selector(
        f'body[data-net="offline"][data-queue="{count}"][data-guess="1"] #unchecked:not([hidden])'
    )


def guessed(page: Page, seat: int, kind: str = "play") -> list[dict[str, Any]]:
    """The unchecked buttons the offline pad offers a seat for one kind of event."""
    found = page.page.eval_on_selector_all("#decisions button.choice", "bs => bs.map(b => b.dataset.event)")
    events = [json.loads(b) for b in found]
    return [e for e in events if e.get("seat") == seat and e["type"] == kind]


def tap_event(page: Page, event: dict[str, Any]) -> None:
    """Tap the button that carries `event` (showing the hidden ones of its group first)."""
    p = page.page
    button = p.locator(f"#decisions button.choice[data-event='{canonical(event)}']")
    assert button.count() == 1, event
    if not button.is_visible():
        button.locator("xpath=ancestor::div[contains(@class,'choice-list')]").locator(".more-choices").click()
    button.click()


def script_errors(page: Page) -> list[str]:
    """The page's script errors: not the failed loads the test causes (the network cut, a tap refused)."""
    return [e for e in page.errors if not e.startswith("Failed to load resource: ")]


class Table:
    """The game as the test folds it (the engine), to choose legal taps while the pad is offline."""

    def __init__(self, driver: Driver) -> None:
        self.rules, self.position = driver.rules, driver.position
        self.taps: list[dict[str, Any]] = []

    def offer(self) -> dict[str, Any]:
        return offers.offer(self.rules, self.position, engine.OMNISCIENT)

    def apply(self, event: dict[str, Any]) -> None:
        decision = engine.decide(self.rules, self.position, event)  # strict enforcement: raises if illegal
        self.position = engine.apply(self.rules, self.position, decision.event, self.position.seq + 1)
        self.taps.append(event)

    def hand(self, seat: int) -> list[str]:
        return list(self.position.game.hands[seat])


# --------------------------------------------------------------------------- the site's pages

#: what a player-facing page must not say: a rule's id, the program's "seq", a literal of the code, a field's name
DEVELOPER_WORDS = [
    (re.compile(r"\b(?:schnapsen|casino|gin|smear|half)\.[a-z_0-9]+"), "a rule id"),
    (re.compile(r"\bseqs?\b"), "seq"),
    (re.compile(r"\b(?:True|False|None|null|undefined|NaN|true|false)\b"), "a literal"),
    (re.compile(r"[{}]"), "a brace"),
    (re.compile(r"\b[a-z]+_[a-z_]+\b"), "a field name"),
]


def developer_words(text: str) -> list[str]:
    """Each developer's word in `text`, with what it is."""
    return [
        f"{what}: {match.group(0)!r} in …{text[max(0, match.start() - 40) : match.end() + 40]}…"
        for pattern, what in DEVELOPER_WORDS
        for match in pattern.finditer(text)
    ]


def shown_text(page: Page) -> str:
    """What the page shows (closed "details" toggles and hidden parts left out)."""
    text: str = page.page.locator("body").inner_text()
    return text


def simulated(
    kind: str, players: list[str], until: Any, options: dict[str, Any] | None = None, seed: int = 3, limit: int = 2000
) -> tuple[list[dict[str, Any]], Any]:
    """Events of a simulated game of `kind`, played until `until(position, offer)` is true; and the position."""
    rules = rules_for(kind)
    position = engine.start(rules, players, options or {})
    rng = random.Random(seed)
    events: list[dict[str, Any]] = []
    while len(events) < limit:
        offer = offers.offer(rules, position, engine.OMNISCIENT)
        if until(position, offer) or rules.is_terminal(position.game):
            return events, position
        choice = dict(rng.choice(list(next_options(rules, position.game, rng))))
        decision = engine.decide(rules, position, choice)
        position = engine.apply(rules, position, decision.event, position.seq + 1)
        events.append(decision.event)
    raise AssertionError("the simulated game did not get there")


def game_with(
    server: Server, kind: str, players: list[str], events: list[dict[str, Any]], options: dict[str, Any] | None = None
) -> str:
    """A new game of the club with these events recorded (through the API)."""
    created = server.post("/v1/games", {"game": kind, "players": players, "options": options or {}})
    if events:
        server.post(f"/v1/games/{created['id']}/events", {"events": events, "expected_seq": 0})
    return str(created["id"])
