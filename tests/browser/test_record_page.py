"""The table pad (`/record/{id}`, issue 18) in Chromium: games recorded by tapping only what the page offers.

Each whole-game test creates a game over the API, opens the pad, and records the game to its end: at
each step it reads the buttons the page shows (their `data-event`), the amount ranges and, for a deal
or a draw, the cards of the offer's example through the card picker (only unseen cards are
selectable), lets the game's bot (`GameRules.bot`) choose among them, and taps the choice.
The stored record is then folded again here and compared with `/state` and `/score`, and with what
the page shows. The offline test taps a whole Schnapsen trick, its draws and the next lead with the browser context
offline (the pad offering its own unchecked next taps), reloads, comes back online, and loses one
answer on the way; another has an offline tap the rules refuse stop the queue; the two-device test
gets a 409 and recovers by reloading.
Screenshots of the pad on a phone and a tablet go to /work/notes/shots/pad-*.png.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from projections.core import engine
from projections.reading import offers
from tests.browser.conftest import TABLET, Page, Server, settle
from tests.browser.helpers import (
    PHONE,
    PLAYERS,
    Driver,
    Table,
    guessed,
    new_game,
    offline_taps,
    reveal_cards,
    script_errors,
    tap_event,
)

SHOTS = Path("/work/notes/shots")
#: the options that keep each game short (a low target where the game has one)
SHORT = {"casino": {"target": 1}, "cutthroat-smear": {}, "schnapsen": {}, "gin-rummy-3": {}, "seven-and-a-half": {}}
MAX_TAPS = 400
SEAT_NUMBER = re.compile(r"\bseat \d")
#: a seat written as a number where a name belongs ("box 1", "offer to 1", "captain 0")
RAW_SEAT = re.compile(r"\b(seat|box|captain|sitter|offer to|dealer|leader|bidder|banker|winner|turn|knocker) \d")


def shoot(page: Page, name: str) -> None:
    """A screenshot of the pad at a phone's and a tablet's size, into /work/notes/shots."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    p = page.page
    before = p.viewport_size
    for label, size in (("phone", PHONE), ("tablet", TABLET)):
        p.set_viewport_size(size)
        p.wait_for_timeout(150)
        p.screenshot(path=str(SHOTS / f"pad-{name}-{label}.png"), full_page=True)
    if before:
        p.set_viewport_size(before)


# --------------------------------------------------------------------------- whole games


#: the long whole games (a Gin match to 100 is a minute of tapping; Smear to 11 and Casino to 21 half a
#: minute) run in `make reliability`; `make test` taps whole Schnapsen and Seven and a Half games, and the
#: offline and undo tests tap hands of the others
LONG_GAMES = ("gin-rummy-3", "cutthroat-smear", "casino")
WHOLE_GAMES = [pytest.param(k, marks=pytest.mark.slow) if k in LONG_GAMES else k for k in SHORT]


@pytest.mark.parametrize("kind", WHOLE_GAMES)
def test_a_whole_game_is_recorded_by_tapping_what_the_pad_offers(pad: Any, server: Server, kind: str) -> None:
    game_id = new_game(server, kind, SHORT[kind], table="4")
    page = pad(game_id)
    driver = Driver(server, page, game_id, kind)
    shot_at = {"casino": 6, "cutthroat-smear": 5, "schnapsen": 4, "gin-rummy-3": 5, "seven-and-a-half": 7}[kind]
    while driver.step():
        if len(driver.taps) == shot_at:
            shoot(page, kind)
        assert len(driver.taps) < MAX_TAPS, "the game did not end"
    # the stored record, folded again here, agrees with the API's state and score, and the page says so
    state = server.get(f"/v1/games/{game_id}/state")
    score = server.get(f"/v1/games/{game_id}/score")
    events = server.get(f"/v1/games/{game_id}/events")["events"]
    assert [e["seq"] for e in events] == list(range(1, len(driver.taps) + 1))
    assert state["seq"] == len(events) and state["finished"] is True
    sheet = driver.rules.score(driver.position.game)
    assert score["finished"] is True and score["winner"] == sheet.winner == state["winner"]
    assert score["totals"] == {str(seat): total for seat, total in enumerate(sheet.totals)}
    assert state["totals"] == score["totals"]
    folded = engine.render_state(driver.rules, driver.position, engine.OMNISCIENT, PLAYERS[kind])
    assert json.loads(json.dumps(folded)) == state  # the record, folded here, is the table the API shows
    for tapped, stored in zip(driver.taps, events, strict=True):
        assert stored["type"] == tapped["type"]
        assert "violation" not in stored
    p = page.page
    names = PLAYERS[kind]
    turn = p.text_content("#turn") or ""
    assert turn.startswith("The game is over")
    if sheet.winner is not None:
        assert f"{names[sheet.winner]} won" in turn
    assert p.locator("#decisions button").count() == 0 and p.locator("#picker").is_hidden()
    shown = p.eval_on_selector_all("#score tr", "rows => rows.map(r => r.textContent)")
    assert len(shown) == len(names) and all(row.startswith(name) for row, name in zip(shown, names, strict=True))
    record = p.text_content("#record") or ""
    assert not RAW_SEAT.search(record) and not SEAT_NUMBER.search(p.text_content("#pad-main") or "")
    assert page.errors == []


# --------------------------------------------------------------------------- offline and two devices


def deal(driver: Driver) -> None:
    """The first deal of the game, through the picker."""
    assert driver.step()


def pick_offline(page: Page, label: str, cards: list[str]) -> None:
    """Choose the picker's variant labelled so (e.g. "Ben: draw"), or see the one offered named so in its
    heading ("Ben draws"), pick the cards, record (one card: its tap records it)."""
    p = page.page
    labels = p.eval_on_selector_all(
        "#picker label.variant", "ls => ls.map(l => [l.getAttribute('for'), l.textContent.trim()])"
    )
    match = [for_id for for_id, text in labels if text == label]
    if labels:
        assert match, (label, labels)
        p.check(f"#{match[0]}")
    else:
        assert (p.text_content("#picker .picker-head") or "").startswith(label), label
    assert p.locator("#unchecked").is_visible()
    for card in cards:
        p.click(f'#picker .pick[data-card="{card}"]')
    if len(cards) > 1:
        p.click("#picker-send")


def test_offline_the_pad_goes_on_offering_taps_that_survive_a_reload_and_are_stored_once_in_order(
    pad: Any, server: Server
) -> None:
    game_id = new_game(server, "schnapsen")
    page = pad(game_id)
    p = page.page
    p.wait_for_function("() => navigator.serviceWorker && navigator.serviceWorker.controller !== null", timeout=15_000)
    driver = Driver(server, page, game_id, "schnapsen")
    deal(driver)
    names = PLAYERS["schnapsen"]
    table = Table(driver)
    leader = table.offer()["to_act"][0]
    other = 1 - leader
    lead = next(e for e in table.offer()["decisions"] if e["type"] == "play")

    p.context.set_offline(True)
    tap_event(page, lead)  # the server's own button, offered before the network dropped
    table.apply(lead)
    offline_taps(page, 1)
    assert "Offline" in (p.text_content("#net") or "")
    assert "Not checked yet" in (p.text_content("#unchecked") or "")
    # the pad offers the next plays itself: each player's hand as the scorer sees it, less the card played
    state = server.get(f"/v1/games/{game_id}/state")
    hands = [seat["cards"] for seat in state["seats"]]
    assert {e["card"] for e in guessed(page, other)} == set(hands[other])
    assert guessed(page, leader) == []  # the leader does not play twice: the pad knows the follower is next
    follow = next(e for e in table.offer()["decisions"] if e["type"] == "play")
    tap_event(page, follow)
    table.apply(follow)
    offline_taps(page, 2)

    p.reload()  # offline: the service worker serves the pad; the queue and what it knows come from storage
    offline_taps(page, 2)
    assert "2 taps waiting" in (p.text_content("#net") or "")
    assert p.locator("#queue li").count() == 2

    # the draws after the trick, through the picker over the cards not used yet (the talon)
    for _ in range(2):
        reveal = table.offer()["reveal"]
        assert reveal and reveal["type"] == "draw"
        drawer = reveal["event"]["seat"]
        pickable = p.eval_on_selector_all("#picker .pick:not(:disabled)", "bs => bs.map(b => b.dataset.card)")
        assert set(pickable) == set(reveal["unseen"])  # what the rules would let be drawn, nothing more
        card = reveal["unseen"][0]
        pick_offline(page, f"{names[drawer]} draws", [card])
        table.apply({"type": "draw", "seat": drawer, "card": card})
        offline_taps(page, len(table.taps))
    # the winner of the trick leads again: the card drawn is among the cards offered for it
    winner = table.offer()["to_act"][0]
    drawn = table.taps[2]["card"] if table.taps[2]["seat"] == winner else table.taps[3]["card"]
    offered = {e["card"] for e in guessed(page, winner)}
    assert drawn in offered and lead["card"] not in offered and follow["card"] not in offered
    second_lead = {"type": "play", "seat": winner, "card": table.hand(winner)[0]}
    tap_event(page, second_lead)
    table.apply(second_lead)
    offline_taps(page, 5)
    queued = p.eval_on_selector_all("#queue li", "ls => ls.map(l => l.textContent)")
    assert [q.split(".")[0] for q in queued] == ["2", "3", "4", "5", "6"]
    assert not SEAT_NUMBER.search(p.text_content("#pad-main") or "")
    shoot(page, "offline")
    stored_queue = json.loads(p.evaluate(f"localStorage.getItem('tablebook.pad.queue.{game_id}')"))
    assert [k["expected_seq"] for k in stored_queue] == [1, 2, 3, 4, 5] and len({k["key"] for k in stored_queue}) == 5

    # back online, the first answer is lost on the way: the server stored the play, the page never heard
    lost: list[int] = []

    def lose_first_answer(route: Any) -> None:
        if route.request.method == "POST" and not lost:
            route.fetch()
            lost.append(1)
            route.abort()
        else:
            route.continue_()

    p.route(f"**/v1/games/{game_id}/events", lose_first_answer)
    p.context.set_offline(False)
    settle(page, 6)
    assert lost == [1]
    events = server.get(f"/v1/games/{game_id}/events")["events"]
    assert [e["seq"] for e in events] == [1, 2, 3, 4, 5, 6]  # each tap exactly once, in order
    assert [{"type": e["type"], **e["data"]} for e in events[1:]] == table.taps
    assert all("violation" not in e for e in events)
    assert p.evaluate(f"localStorage.getItem('tablebook.pad.queue.{game_id}')") is None
    assert "every tap is recorded" in (p.text_content("#net") or "")
    assert p.locator("#unchecked").is_hidden() and p.get_attribute("body", "data-guess") == "0"
    assert script_errors(page) == []


def test_offline_gin_draws_and_discards_are_offered_from_what_the_pad_knows(pad: Any, server: Server) -> None:
    game_id = new_game(server, "gin-rummy-3")
    page = pad(game_id, PHONE)
    p = page.page
    driver = Driver(server, page, game_id, "gin-rummy-3", seed=4)
    while driver.position.game.phase != "discard":
        assert driver.step()
    table = Table(driver)
    names = PLAYERS["gin-rummy-3"]
    p.context.set_offline(True)
    took = 0
    for count in range(1, 7):
        offer = table.offer()
        decisions = [e for e in offer["decisions"] if e["type"] in ("discard", "draw")]
        on_page = p.eval_on_selector_all("#decisions button.choice", "bs => bs.map(b => b.dataset.event)")
        shown = [json.loads(b) for b in on_page]
        if count > 1:  # the pad's own offer: each discard the rules allow is among the seat's unchecked buttons
            discards = [e for e in decisions if e["type"] == "discard"]
            assert all(e in shown for e in discards), (discards, shown)
        taken = [e for e in decisions if e["type"] == "draw" and e in shown]
        if offer["phase"] == "draw" and taken and count % 2 == 0:  # the discard just made, taken
            event = taken[0]
            tap_event(page, event)
            took += 1
        elif offer["phase"] == "draw":
            seat = offer["to_act"][0]
            event = {"type": "draw", "seat": seat, "source": "stock", "card": offer["reveal"]["unseen"][0]}
            pickable = p.eval_on_selector_all("#picker .pick:not(:disabled)", "bs => bs.map(b => b.dataset.card)")
            assert set(pickable) == set(offer["reveal"]["unseen"])
            pick_offline(page, f"{names[seat]} draws from the stock", [event["card"]])
        else:  # a discard, not the card just taken
            just = table.taps[-1].get("card") if table.taps else None
            event = [e for e in decisions if e["type"] == "discard" and e["card"] != just][-1]
            tap_event(page, event)
        table.apply(event)
        offline_taps(page, count)
    assert took  # a discard taken from the pile, offered offline
    assert "not offered offline" in (p.text_content("#unchecked") or "")  # what it cannot build alone, said
    assert not SEAT_NUMBER.search(p.text_content("#pad-main") or "")
    shoot(page, "offline-gin")
    p.context.set_offline(False)
    settle(page, table.position.seq)
    events = server.get(f"/v1/games/{game_id}/events", after=driver.position.seq)["events"]
    assert [{"type": e["type"], **e["data"]} for e in events] == table.taps
    assert script_errors(page) == []


def test_an_offline_tap_the_rules_refuse_stops_the_queue_with_the_reason(pad: Any, server: Server) -> None:
    game_id = new_game(server, "schnapsen")
    page = pad(game_id, PHONE)
    p = page.page
    driver = Driver(server, page, game_id, "schnapsen")
    deal(driver)
    table = Table(driver)
    leader = table.offer()["to_act"][0]
    follower = 1 - leader
    # the talon closed: the follower must follow suit, which the pad offline does not work out (the rules do)
    close = {"type": "close", "seat": leader}
    tap_event(page, close)
    settle(page, 2)
    table.apply(close)

    def illegal_reply(lead: dict[str, Any]) -> str | None:
        after = engine.apply(
            table.rules, table.position, engine.decide(table.rules, table.position, lead).event, table.position.seq + 1
        )
        legal = {
            e["card"] for e in offers.offer(table.rules, after, engine.OMNISCIENT)["decisions"] if e["type"] == "play"
        }
        wrong = sorted(set(table.hand(follower)) - legal)
        return wrong[0] if wrong else None

    plays = [e for e in table.offer()["decisions"] if e["type"] == "play" and not e.get("marriage")]
    lead = next((e for e in plays if illegal_reply(e)), None)
    if lead is None:
        pytest.skip("this deal leaves the follower no card against the rules")
    p.context.set_offline(True)
    tap_event(page, lead)
    offline_taps(page, 1)
    # offline, the pad offers the follower every card it holds, unchecked: one of them breaks the rules
    again = {"type": "play", "seat": follower, "card": illegal_reply(lead)}
    assert again in guessed(page, follower)
    tap_event(page, again)
    offline_taps(page, 2)
    p.click("#note-button")
    p.fill("#note-text", "after the refused tap")
    p.click("#form-ok")
    offline_taps(page, 3)

    p.context.set_offline(False)
    p.wait_for_selector('body[data-net="refused"] #conflict[data-kind="refused"]:not([hidden])')
    events = server.get(f"/v1/games/{game_id}/events")["events"]
    assert [{"type": e["type"], **e["data"]} for e in events[1:]] == [close, lead]  # nothing sent past the refusal
    refused = httpx.post(  # what the server says of that tap at seq 2 (refused again: nothing is stored)
        f"{server.url}/v1/games/{game_id}/events",
        headers=server.headers(),
        json={"events": [again], "expected_seq": 3},
        timeout=10,
    )
    assert refused.status_code == 422
    reason = p.text_content("#refused-reason") or ""
    assert reason == refused.json()["error"]["message"] and reason
    assert not SEAT_NUMBER.search(p.text_content("#conflict") or "") and "{seat" not in reason
    assert "Nothing after it was sent" in (p.text_content("#conflict") or "")
    assert p.locator("#conflict-taps li").count() == 1 and p.locator("#decisions button").count() == 0
    SHOTS.mkdir(parents=True, exist_ok=True)
    p.screenshot(path=str(SHOTS / "pad-offline-refused-phone.png"), full_page=True)
    p.wait_for_timeout(4500)  # a retry later still sends nothing
    assert len(server.get(f"/v1/games/{game_id}/events")["events"]) == 3

    # the scorer enters that tap again from the server's offer; the note waits and follows it
    p.click("#conflict-edit")
    settle(page, 3)
    assert p.get_attribute("#conflict", "data-kind") == "held"
    table.apply(lead)
    follow = next(e for e in table.offer()["decisions"] if e["type"] == "play")
    tap_event(page, follow)
    settle(page, 5)
    events = server.get(f"/v1/games/{game_id}/events")["events"]
    assert [{"type": e["type"], **e["data"]} for e in events[1:]] == [
        close,
        lead,
        follow,
        {"type": "note", "text": "after the refused tap"},
    ]
    assert p.locator("#conflict").is_hidden()
    assert p.evaluate(f"localStorage.getItem('tablebook.pad.held.{game_id}')") is None
    assert script_errors(page) == []


def test_two_devices_a_409_is_shown_and_resolved_by_reloading(pad: Any, server: Server) -> None:
    game_id = new_game(server, "schnapsen")
    first = pad(game_id)
    driver = Driver(server, first, game_id, "schnapsen")
    deal(driver)
    second = pad(game_id, PHONE)
    assert settle(second) == 1
    # the second device records the lead; the first, still showing seq 1, taps another lead
    leads = second.page.locator("#decisions button.choice[data-type='play']")
    recorded = json.loads(leads.nth(0).get_attribute("data-event") or "{}")
    leads.nth(0).click()
    settle(second, 2)
    stale = first.page.locator("#decisions button.choice[data-type='play']").nth(1)
    stale_event = json.loads(stale.get_attribute("data-event") or "{}")
    stale.click()
    p = first.page
    p.wait_for_selector('body[data-net="conflict"] #conflict:not([hidden])')
    text = p.text_content("#conflict") or ""
    assert "Another device recorded" in text and "not recorded" in text
    assert p.locator("#conflict-taps li").count() == 1 and p.locator("#decisions button").count() == 0
    SHOTS.mkdir(parents=True, exist_ok=True)
    p.screenshot(path=str(SHOTS / "pad-conflict-tablet.png"), full_page=True)
    events = server.get(f"/v1/games/{game_id}/events")["events"]
    assert len(events) == 2 and {"type": "play", **events[1]["data"]} == recorded  # nothing sent blindly
    p.click("#conflict-reload")
    settle(first, 2)
    assert p.locator("#conflict").is_hidden() and p.locator("#queue li").count() == 0
    follow = p.locator("#decisions button.choice[data-type='play']").first
    followed = json.loads(follow.get_attribute("data-event") or "{}")
    assert followed["seat"] != recorded["seat"]
    follow.click()
    settle(first, 3)
    events = server.get(f"/v1/games/{game_id}/events")["events"]
    assert [{"type": e["type"], **e["data"]} for e in events[1:]] == [recorded, followed]
    assert stale_event not in [{"type": e["type"], **e["data"]} for e in events]


# --------------------------------------------------------------------------- undo, claims, notes, disputes


def test_undo_is_a_retract_with_a_reason_shown_in_the_record_with_a_claim_and_a_note(pad: Any, server: Server) -> None:
    game_id = new_game(server, "schnapsen")
    page = pad(game_id, PHONE)
    p = page.page
    driver = Driver(server, page, game_id, "schnapsen")
    deal(driver)
    p.locator("#decisions button.choice[data-type='play']").first.click()
    settle(page, 2)
    p.click("#undo-button")
    assert p.locator("#undo-to option").first.get_attribute("value") == "1"
    p.click("#form-ok")  # no reason: refused by the form
    assert "reason" in (p.text_content("#form-error") or "")
    p.fill("#undo-reason", "wrong card entered")
    p.click("#form-ok")
    settle(page, 3)
    retract = server.get(f"/v1/games/{game_id}/events", after=2)["events"][0]
    assert retract["type"] == "retract" and retract["data"] == {"to_seq": 1, "reason": "wrong card entered"}
    assert "Undo: takes back the events after 1 — “wrong card entered”" in (p.text_content("#record li") or "")
    assert p.locator('#record li.retracted[data-seq="2"]').count() == 1
    # the lead is offered again, and a claim and a note are recorded from the pad
    assert p.locator("#decisions button.choice[data-type='play']").count() > 0
    p.click("#claim-button")
    p.fill("#claim-0", "2")
    p.fill("#claim-1", "0")
    p.click("#form-ok")
    settle(page, 4)
    p.click("#note-button")
    p.fill("#note-text", "Ben disputes the deal")
    p.click("#form-ok")
    settle(page, 5)
    claim, note = server.get(f"/v1/games/{game_id}/events", after=3)["events"]
    assert claim["type"] == "score_claimed" and claim["data"] == {"hand": 1, "points": {"0": 2, "1": 0}}
    assert note["data"] == {"text": "Ben disputes the deal"}
    record = p.eval_on_selector_all("#record li", "ls => ls.map(l => l.textContent)")
    assert record[0] == "5. Note: “Ben disputes the deal”"
    assert record[1] == "4. Score claimed for hand 1: Anna 2, Ben 0 (checked once hand 1 is over)"
    shoot(page, "undo")
    assert page.errors == []


def test_a_disputed_play_is_entered_under_record_with_a_warning_naming_the_rule(pad: Any, server: Server) -> None:
    game_id = new_game(server, "cutthroat-smear", {"enforcement": "record"})
    page = pad(game_id)
    p = page.page
    driver = Driver(server, page, game_id, "cutthroat-smear", seed=3)
    for _ in range(60):
        settle(page)
        if p.locator("#flagged-list button").count():
            break
        assert driver.step()
    else:
        raise AssertionError("no disputed play came up")
    p.click("#flagged summary")
    button = p.locator("#flagged-list button").first
    event = json.loads(button.get_attribute("data-event") or "{}")
    offer = server.get(f"/v1/games/{game_id}/next")
    flag = next(f for f in offer["flagged"] if f["event"] == event)
    button.click()
    warning = p.text_content("#flag-warning") or ""
    assert flag["reason"] in warning and flag["rule"] not in warning  # the rule's id is behind "details"
    assert p.text_content("#form-dialog details.rule-details code") == flag["rule"]
    assert not SEAT_NUMBER.search(warning) and "{" not in warning
    shoot(page, "flagged")
    p.click("#form-ok")
    seq = offer["seq"] + 1
    settle(page, seq)
    stored = server.get(f"/v1/games/{game_id}/events", after=seq - 1)["events"][0]
    assert stored["violation"]["rule"] == flag["rule"]
    line = p.text_content(f'#record li[data-seq="{seq}"] .flag-rule') or ""
    assert "⚠ against the rules" in line and not SEAT_NUMBER.search(line) and "{seat" not in line
    assert p.text_content(f'#record li[data-seq="{seq}"] details.rule-details code') == flag["rule"]


# --------------------------------------------------------------------------- the new-game form


def test_the_new_game_form_creates_a_game_with_options_labels_and_known_players(
    open_page: Callable[..., Page], server: Server
) -> None:
    new_game(server, "casino")  # so that the club has known players: Ann, Ben
    server.post("/v1/profiles", {"name": "tuesday", "games": {"casino": {"sweeps": True}}})
    page = open_page("/record/", width=PHONE["width"], height=PHONE["height"])
    p = page.page
    p.wait_for_selector("#new-options .option")
    known = p.eval_on_selector_all("#known-players option", "os => os.map(o => o.value)")
    assert {"Ann", "Ben"} <= set(known)
    SHOTS.mkdir(parents=True, exist_ok=True)
    p.screenshot(path=str(SHOTS / "pad-newgame-phone.png"), full_page=True)
    p.set_viewport_size(TABLET)
    p.screenshot(path=str(SHOTS / "pad-newgame-tablet.png"), full_page=True)
    p.select_option("#new-kind", "casino")
    p.select_option("#new-count", "3")
    for i, name in enumerate(["Ann", "Zoë", "Cho"]):
        p.fill(f"#player-{i}", name)
    assert "reaches this total" in (p.text_content("#opt-target-help") or "")
    p.fill("#opt-target", "5")
    assert not p.is_checked("#opt-sweeps")
    p.select_option("#new-profile", "tuesday")  # the club's house rules fill the options
    assert p.is_checked("#opt-sweeps") and p.input_value("#opt-target") == "21"
    p.fill("#opt-target", "5")
    p.select_option("#opt-first_dealer", "2")
    assert p.eval_on_selector("#opt-first_dealer", "s => s.selectedOptions[0].textContent") == "Cho"
    p.fill("#new-event", "Winter league")
    p.fill("#new-round", "3")
    p.fill("#new-table", "2")
    p.click("#new-submit")
    p.wait_for_url(re.compile(r"/record/g[0-9a-f]+$"))
    settle(page, 0)
    game_id = p.url.rsplit("/", 1)[1]
    meta = server.get(f"/v1/games/{game_id}")
    assert meta["players"] == ["Ann", "Zoë", "Cho"]
    assert meta["options"]["target"] == 5 and meta["options"]["sweeps"] is True
    assert meta["options"]["first_dealer"] == 2
    assert (meta["event"], meta["round"], meta["table"]) == ("Winter league", "3", "2")
    assert "Cho deals" in (p.text_content("#turn") or "")
    assert page.errors == []


def test_a_viewer_key_is_shown_the_table_but_offered_nothing(pad: Any, server: Server) -> None:
    game_id = new_game(server, "schnapsen")
    page = pad(game_id, role="viewer")
    p = page.page
    assert p.locator("#decisions button").count() == 0 and p.locator("#picker").is_hidden()
    assert "viewer key may not record" in (p.text_content("#waiting") or "")
    assert p.locator("#note-button").is_disabled()


def test_the_pad_pages_and_worker_are_served_by_the_product(server: Server) -> None:
    for path in ("/record", "/record/", "/record/gabc123", "/record/sw.js", "/static/record.js", "/static/newgame.js"):
        response = httpx.get(server.url + path, timeout=10)
        assert response.status_code == 200, path
        assert "default-src 'none'" in response.headers["content-security-policy"]
    assert "javascript" in httpx.get(server.url + "/record/sw.js", timeout=10).headers["content-type"]
    assert httpx.get(server.url + "/record/not.a.game", timeout=10).status_code == 404
    html = httpx.get(server.url + "/record/gabc123", timeout=10).text
    assert "http://" not in html and "https://" not in html


def test_the_pad_works_by_keyboard_alone(pad: Any, server: Server) -> None:
    game_id = new_game(server, "schnapsen")
    page = pad(game_id, PHONE)
    p = page.page
    offer = server.get(f"/v1/games/{game_id}/next")
    cards = reveal_cards(offer["reveal"]["event"], offer["reveal"]["fields"])
    typed = " ".join(("10" if c[0] == "T" else c[0]) + c[1].lower() for c in cards)
    p.focus("#picker-type")
    p.keyboard.type(typed)
    p.keyboard.press("Enter")  # every slot filled: the focus is on the send button
    assert p.evaluate("document.activeElement.id") == "picker-send"
    p.keyboard.press("Enter")
    settle(page, 1)
    deal = server.get(f"/v1/games/{game_id}/events")["events"][0]
    assert deal["data"]["hands"] == offer["reveal"]["event"]["hands"]
    assert deal["data"]["trump_card"] == offer["reveal"]["event"]["trump_card"]
    # the focus went on to the first new choice; Tab moves to the next one, Enter records it
    assert p.evaluate("document.activeElement.dataset.event") is not None
    p.keyboard.press("Tab")
    chosen = json.loads(p.evaluate("document.activeElement.dataset.event"))
    p.keyboard.press("Enter")
    settle(page, 2)
    stored = server.get(f"/v1/games/{game_id}/events", after=1)["events"][0]
    assert {"type": stored["type"], **stored["data"]} == chosen
    assert page.errors == []


def test_the_pad_asks_for_a_key_and_keeps_it_for_the_tab(open_page: Callable[..., Page], server: Server) -> None:
    game_id = new_game(server, "casino")
    page = open_page(f"/record/{game_id}", role=None, width=PHONE["width"], height=PHONE["height"])
    p = page.page
    p.wait_for_selector("#key-dialog[open]")
    p.fill("#key-input", server.keys["recorder"])
    p.click("#key-submit")
    settle(page, 0)
    assert p.evaluate("sessionStorage.getItem('tablebook.key')") == server.keys["recorder"]
    assert p.locator("#picker .pick:not(:disabled)").count() == 52
    assert (p.text_content("#turn") or "").startswith("Deal (Ann deals)")


def test_a_disputed_hit_is_entered_through_the_picker_with_its_warning(pad: Any, server: Server) -> None:
    game_id = new_game(server, "seven-and-a-half", {"enforcement": "record", "face_down_request": True})
    page = pad(game_id)
    p = page.page
    driver = Driver(server, page, game_id, "seven-and-a-half", seed=2)
    disputed = None
    for _ in range(40):
        settle(page)
        offer = server.get(f"/v1/games/{game_id}/next")
        flags = [f for f in offer["flagged"] if f.get("reveal")]
        if flags:
            disputed = flags[0]
            break
        face_down = [v["event"] for v in (offer["reveal"] or {}).get("events", []) if v["event"].get("face_down")]
        if face_down:  # ask for a face-down card: the next one asked for face down breaks the rule
            driver.tap(face_down[0], offer)
            seq = offer["seq"] + 1
            settle(page, seq)
            stored = server.get(f"/v1/games/{game_id}/events", after=seq - 1)["events"][0]
            driver.position = engine.apply(
                driver.rules,
                driver.position,
                engine.decide(driver.rules, driver.position, {"type": stored["type"], **stored["data"]}).event,
                seq,
            )
            continue
        assert driver.step()
    assert disputed is not None, "no disputed hit came up"
    index = len(offer["reveal"]["events"])
    label = p.text_content(f'label[for="variant-{index}"]') or ""
    assert "⚠ against the rules" in label and disputed["rule"] not in label
    p.check(f"#variant-{index}")
    card = offer["reveal"]["unseen"][0]
    p.click(f'#picker .pick[data-card="{card}"]')  # one card: its tap opens the warning
    warning = p.text_content("#flag-warning") or ""
    assert disputed["rule"] not in warning and not SEAT_NUMBER.search(warning)
    assert p.text_content("#form-dialog details.rule-details code") == disputed["rule"]
    p.click("#form-ok")
    seq = offer["seq"] + 1
    settle(page, seq)
    stored = server.get(f"/v1/games/{game_id}/events", after=seq - 1)["events"][0]
    assert stored["data"]["card"] == card and stored["data"]["face_down"] is True
    assert stored["violation"]["rule"] == disputed["rule"]
