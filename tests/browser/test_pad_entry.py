"""The table pad's entry in Chromium: typed cards explained where they are typed, one tap a draw, the cut's
slots named, knocks that show their deadwood and say gin, the live games first on a phone, a claim that
disagrees flagged where it is made (and in the replay and the text history), and offline only the seat
to act with the moves that may follow, the waiting taps drawn on the table.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from tests.browser.conftest import Page, Server, settle
from tests.browser.helpers import (
    PHONE,
    PLAYERS,
    Driver,
    Table,
    developer_words,
    game_with,
    guessed,
    new_game,
    offline_taps,
    script_errors,
    shown_text,
    simulated,
    tap_event,
)

SHOTS = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"


class Playing(Driver):
    """The tests' driver, without closing the talon (so that Schnapsen's draws come)."""

    def choose(self, events: list[dict[str, Any]], offer: dict[str, Any]) -> dict[str, Any]:
        return super().choose([e for e in events if e["type"] != "close"], offer)


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    p = page.page
    for width, height in ((390, 844), (1366, 900)):
        p.set_viewport_size({"width": width, "height": height})
        p.wait_for_function(f"() => window.innerWidth === {width}")
        p.screenshot(path=str(SHOTS / f"site-pad-{name}-{width}.png"), full_page=True)


def test_typed_cards_that_are_no_card_or_taken_are_explained_where_typed(pad: Any, server: Server) -> None:
    game_id = new_game(server, "schnapsen")
    page = pad(game_id, PHONE)
    p = page.page
    p.fill("#picker-type", "4x qh qh 2h")
    p.press("#picker-type", "Enter")
    p.wait_for_selector("#picker-problem:not([hidden])")
    said = p.locator("#picker-problem").inner_text()
    assert "“4x” is not a card" in said
    assert "Q♥ is picked twice" in said
    assert "2♥ is not in this game's deck" in said
    assert p.locator('#picker .slot.filled [data-card="QH"]').count() == 1  # the good card was taken
    assert p.input_value("#picker-type") == "4x qh qh 2h"  # what was typed stays, to correct
    shoot(page, "typo")
    # a card already dealt: the draw after the first trick
    driver = Playing(server, page, game_id, "schnapsen")
    p.click("#picker .clear-picks")
    while driver.position.game.phase != "draw":
        assert driver.step()
    dealt = sorted(driver.position.game.hands[0])[0]
    typed = ("10" if dealt[0] == "T" else dealt[0]) + dealt[1].lower()
    p.fill("#picker-type", typed)
    p.press("#picker-type", "Enter")
    p.wait_for_selector("#picker-problem:not([hidden])")
    assert "is already dealt or played" in p.locator("#picker-problem").inner_text()
    assert int(p.get_attribute("body", "data-seq") or 0) == driver.position.seq  # nothing was recorded
    assert page.errors == []


def test_a_draw_is_one_tap(pad: Any, server: Server) -> None:
    game_id = new_game(server, "schnapsen")
    page = pad(game_id, PHONE)
    p = page.page
    driver = Playing(server, page, game_id, "schnapsen")
    while driver.position.game.phase != "draw":
        assert driver.step()
    seq = driver.position.seq
    offer = server.get(f"/v1/games/{game_id}/next")
    drawer = offer["reveal"]["event"]["seat"]
    assert p.locator("#picker-send").count() == 0  # no second tap to make
    assert f"{PLAYERS['schnapsen'][drawer]} draws" in p.text_content("#picker .picker-head")
    card = offer["reveal"]["unseen"][0]
    p.click(f'#picker .pick[data-card="{card}"]')
    settle(page, seq + 1)
    stored = server.get(f"/v1/games/{game_id}/events", after=seq)["events"]
    assert [(e["type"], e["data"]["card"], e["data"]["seat"]) for e in stored] == [("draw", card, drawer)]
    # Gin: taking the discard is one button, a draw from the stock one tap on its card
    gin = new_game(server, "gin-rummy-3")
    page = pad(gin)
    gd = Driver(server, page, gin, "gin-rummy-3", seed=4)
    while (
        "draw" not in {e["type"] for e in server.get(f"/v1/games/{gin}/next")["decisions"]}
        or not server.get(f"/v1/games/{gin}/next")["reveal"]
    ):
        assert gd.step()
    take = page.page.locator("#decisions button.choice[data-type='draw']")
    assert take.count() == 1 and "from the discard pile" in take.inner_text()
    assert page.page.locator("#picker-send").count() == 0
    assert "from the stock: tap the card" in (page.page.text_content("#picker .picker-head") or "")
    assert page.errors == []


def test_the_gin_cut_names_its_slots(pad: Any, server: Server) -> None:
    game_id = new_game(server, "gin-rummy-3")
    page = pad(game_id, PHONE)
    p = page.page
    labels = p.eval_on_selector_all("#picker .slot-label", "ls => ls.map(l => l.textContent)")
    assert labels == [f"{name}'s cut" for name in PLAYERS["gin-rummy-3"]]
    offer = server.get(f"/v1/games/{game_id}/next")
    cards = offer["reveal"]["event"]["cards"]
    for card in cards:
        p.click(f'#picker .pick[data-card="{card}"]')
    p.click("#picker-send")
    settle(page, 1)
    assert server.get(f"/v1/games/{game_id}/events")["events"][0]["data"]["cards"] == cards
    assert page.errors == []


def test_knock_buttons_show_the_deadwood_and_say_gin(pad: Any, server: Server) -> None:
    players = PLAYERS["gin-rummy-3"]
    events, _ = simulated(
        "gin-rummy-3", players, lambda pos, offer: any(d["type"] == "knock" for d in offer["decisions"]), seed=11
    )
    game_id = game_with(server, "gin-rummy-3", players, events)
    page = pad(game_id)
    p = page.page
    offer = server.get(f"/v1/games/{game_id}/next")
    knocks = [d for d in offer["decisions"] if d["type"] == "knock"]
    state = server.get(f"/v1/games/{game_id}/state")
    buttons = p.locator("#decisions button.choice[data-type='knock']")
    assert buttons.count() == len(knocks)
    counts = []
    for i in range(buttons.count()):
        button = buttons.nth(i)
        knock = json.loads(button.get_attribute("data-event") or "{}")
        hand = state["seats"][knock["seat"]]["cards"]
        melded = {c for meld in knock["melds"] for c in meld}
        dead = [c for c in hand if c != knock["discard"] and c not in melded]
        value = sum({"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}.get(c[0]) or int(c[0]) for c in dead)
        text = button.inner_text()
        if not dead:
            assert text.startswith("Gin"), text
            counts.append(-1)
        else:
            assert text.startswith(f"Knock with {value}"), text
            counts.append(value)
        assert "discarding" in text
    assert counts == sorted(counts)  # gin first, then the least deadwood
    shoot(page, "knock")
    assert not developer_words(shown_text(page))
    assert page.errors == []


def test_resume_comes_first_on_a_phone(server: Server, open_page: Any) -> None:
    page = open_page("/record/", width=390, height=844)
    p = page.page
    p.wait_for_selector("#live-games:not([hidden]) #live-list a")
    live = p.locator("#live-games").bounding_box()
    form = p.locator("#new-form").bounding_box()
    assert live is not None and form is not None and live["y"] < form["y"]
    assert live["y"] < 844  # in sight without scrolling
    hrefs = p.eval_on_selector_all("#live-list a", "as => as.map(a => a.getAttribute('href'))")
    live_now = {f"/record/{g['id']}" for g in server.get("/v1/games", status="live", limit=200)["games"]}
    assert hrefs and set(hrefs) <= live_now
    wide = open_page("/record/", width=1366, height=900)
    wide.page.wait_for_selector("#live-games:not([hidden]) #live-list a")
    side = wide.page.locator("#live-games").bounding_box()
    main = wide.page.locator("#new-form").bounding_box()
    assert side is not None and main is not None and side["x"] > main["x"]  # beside the form on a desktop
    assert page.errors == []


def test_a_disagreeing_claim_is_flagged_where_made_in_the_replay_and_the_text_history(
    pad: Any, server: Server, open_page: Any
) -> None:
    players = PLAYERS["schnapsen"]
    events, _ = simulated("schnapsen", players, lambda pos, offer: pos.hand >= 2 and offer["phase"] == "lead")
    game_id = game_with(server, "schnapsen", players, events)
    score = server.get(f"/v1/games/{game_id}/score")
    computed = score["hands"][0]["points"]
    wrong = {seat: points + 1 for seat, points in computed.items()}
    page = pad(game_id, PHONE)
    p = page.page
    p.click("#claim-button")
    p.select_option("#claim-hand", "1")
    assert p.locator("#claim-warning").is_hidden()  # the rules' own score, agreed
    assert "The rules count for hand 1" in p.text_content("#claim-computed")
    for seat, points in wrong.items():
        p.fill(f"#claim-{seat}", str(points))
    p.wait_for_selector("#claim-warning:not([hidden])")
    assert "does not agree with the rules' score" in p.text_content("#claim-warning")
    p.click("#form-ok")
    settle(page, len(events) + 1)
    line = p.locator(f'#record li[data-seq="{len(events) + 1}"]')
    assert "⚠ does not agree with the rules' score for hand 1" in line.inner_text()
    shoot(page, "claim")
    # the replay page flags it on the event
    replay = open_page(f"/replay/{game_id}#{len(events) + 1}")
    replay.wait_seq(len(events) + 1)
    item = replay.page.locator(f'#events li[data-seq="{len(events) + 1}"]')
    assert "claim-disagrees" in (item.get_attribute("class") or "")
    assert "The claim does not agree with the score the rules count for hand 1" in item.inner_text()
    # the text history says so under the claim, and still imports
    text = httpx.get(f"{server.url}/v1/games/{game_id}/export?format=text", headers=server.headers(), timeout=10).text
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if f"[{len(events) + 1}. score_claimed" in line)
    assert lines[at + 1].strip().startswith("⚠ The claim does not agree with the score the rules count for hand 1")
    imported = httpx.post(
        f"{server.url}/v1/import?copy=true",
        content=text.encode(),
        headers={**server.headers(), "Content-Type": "text/plain"},
        timeout=30,
    )
    assert imported.status_code == 201, imported.text
    # an agreeing claim says it agrees
    server.post(f"/v1/games/{game_id}/events", {"events": [{"type": "score_claimed", "hand": 1, "points": computed}]})
    text = httpx.get(f"{server.url}/v1/games/{game_id}/export?format=text", headers=server.headers(), timeout=10).text
    assert "✓ agrees with the score the rules count for hand 1" in text
    assert script_errors(page) == []


def test_offline_only_the_seat_to_act_is_offered_and_the_waiting_taps_are_on_the_table(
    pad: Any, server: Server
) -> None:
    game_id = new_game(server, "schnapsen")
    page = pad(game_id)
    p = page.page
    p.wait_for_function("() => navigator.serviceWorker && navigator.serviceWorker.controller !== null", timeout=15_000)
    driver = Driver(server, page, game_id, "schnapsen")
    assert driver.step()  # the deal
    table = Table(driver)
    leader = table.offer()["to_act"][0]
    follower = 1 - leader
    lead = next(e for e in table.offer()["decisions"] if e["type"] == "play" and not e.get("marriage"))
    p.context.set_offline(True)
    tap_event(page, lead)
    table.apply(lead)
    offline_taps(page, 1)
    # only the follower may play now, and only plays: no marriage, no close
    assert guessed(page, leader) == [] and guessed(page, leader, "close") == []
    offered = p.eval_on_selector_all("#decisions button.choice", "bs => bs.map(b => JSON.parse(b.dataset.event))")
    assert offered and all(e["seat"] == follower and e["type"] == "play" and not e.get("marriage") for e in offered)
    assert {e["card"] for e in offered} == set(table.hand(follower))
    assert PLAYERS["schnapsen"][follower] in (p.text_content("#turn") or "")
    # the waiting tap is on the table: dashed in the leader's hand, and in the middle
    assert p.locator(f'#table .seat[data-seat="{leader}"] .hand [data-card="{lead["card"]}"].pending-out').count() == 1
    assert p.locator("#table .waiting-taps li").count() == 1
    shoot(page, "offline")
    follow = next(e for e in table.offer()["decisions"] if e["type"] == "play")
    tap_event(page, follow)
    table.apply(follow)
    offline_taps(page, 2)
    # the trick's winner draws first, alone: one card, one tap
    reveal = table.offer()["reveal"]
    drawer = reveal["event"]["seat"]
    assert p.locator("#picker label.variant").count() == 0
    assert (p.text_content("#picker .picker-head") or "").startswith(f"{PLAYERS['schnapsen'][drawer]} draws")
    card = reveal["unseen"][0]
    p.click(f'#picker .pick[data-card="{card}"]')
    table.apply({"type": "draw", "seat": drawer, "card": card})
    offline_taps(page, 3)
    assert p.locator(f'#table .seat[data-seat="{drawer}"] .hand [data-card="{card}"].pending-in').count() == 1
    reveal = table.offer()["reveal"]
    assert (p.text_content("#picker .picker-head") or "").startswith(
        f"{PLAYERS['schnapsen'][reveal['event']['seat']]} draws"
    )
    second = reveal["unseen"][0]
    p.click(f'#picker .pick[data-card="{second}"]')
    table.apply({"type": "draw", "seat": reveal["event"]["seat"], "card": second})
    offline_taps(page, 4)
    # the winner leads: their plays, and a marriage only with its king and queen in the hand
    offer = table.offer()
    winner = offer["to_act"][0]
    offered = p.eval_on_selector_all("#decisions button.choice", "bs => bs.map(b => JSON.parse(b.dataset.event))")
    assert {e["seat"] for e in offered} == {winner}
    marriages = {(e["card"]) for e in offered if e.get("marriage")}
    assert marriages == {e["card"] for e in offer["decisions"] if e.get("marriage")}
    assert {e["card"] for e in offered if e["type"] == "play" and not e.get("marriage")} == set(table.hand(winner))
    assert p.locator("#table .waiting-taps li").count() == 4
    # back online: every tap is recorded in order
    p.context.set_offline(False)
    settle(page, 5)
    events = server.get(f"/v1/games/{game_id}/events")["events"]
    assert [{"type": e["type"], **e["data"]} for e in events[1:]] == table.taps
    assert p.locator("#table .waiting-taps").count() == 0
    assert script_errors(page) == []


def test_offline_gin_offers_the_discard_to_the_one_who_drew(pad: Any, server: Server) -> None:
    players = PLAYERS["gin-rummy-3"]
    events, _ = simulated(
        "gin-rummy-3", players, lambda pos, offer: offer["phase"] == "draw" and offer["reveal"] is not None, seed=5
    )
    game_id = game_with(server, "gin-rummy-3", players, events)
    page = pad(game_id, PHONE)
    p = page.page
    offer = server.get(f"/v1/games/{game_id}/next")
    drawer = offer["to_act"][0]
    card = offer["reveal"]["unseen"][0]
    p.context.set_offline(True)
    p.click(f'#picker .pick[data-card="{card}"]')
    offline_taps(page, 1)
    offered = p.eval_on_selector_all("#decisions button.choice", "bs => bs.map(b => JSON.parse(b.dataset.event))")
    assert offered and {e["seat"] for e in offered} == {drawer}
    assert {e["type"] for e in offered} <= {"discard"}
    assert card in {e["card"] for e in offered}
    assert p.locator("#picker").is_hidden()  # nobody draws twice
    discard = next(e for e in offered if e["card"] == card)
    tap_event(page, discard)
    offline_taps(page, 2)
    state = server.get(f"/v1/games/{game_id}/state")
    other = state["table"]["captain"] if drawer == state["table"]["box"] else state["table"]["box"]
    offered = p.eval_on_selector_all("#decisions button.choice", "bs => bs.map(b => JSON.parse(b.dataset.event))")
    assert {e["seat"] for e in offered} == {other}  # the other player takes the discard, or draws
    assert any(e["type"] == "draw" and e.get("source") == "discard" and e["card"] == card for e in offered)
    p.context.set_offline(False)
    settle(page, len(events) + 2)
    assert script_errors(page) == []


def test_a_disputed_play_says_what_it_breaks_in_words(pad: Any, server: Server) -> None:
    players = PLAYERS["schnapsen"]
    events, _ = simulated(
        "schnapsen", players, lambda pos, offer: bool(offer["flagged"]), options={"enforcement": "record"}, seed=9
    )
    game_id = game_with(server, "schnapsen", players, events, options={"enforcement": "record"})
    page = pad(game_id)
    p = page.page
    offer = server.get(f"/v1/games/{game_id}/next")
    flag = offer["flagged"][0]
    p.click("#flagged summary")
    p.locator(
        f"#flagged-list button[data-event='{json.dumps(flag['event'], sort_keys=True, separators=(',', ':'))}']"
    ).click()
    warning = p.text_content("#flag-warning") or ""
    assert warning.startswith("⚠ This is against the rules: ") and flag["rule"] not in warning
    assert p.locator("#form-dialog details.rule-details code").text_content() == flag["rule"]
    p.click("#form-ok")
    settle(page, len(events) + 1)
    line = p.locator(f'#record li[data-seq="{len(events) + 1}"]')
    assert "⚠ against the rules" in line.inner_text() and flag["rule"] not in line.inner_text()
    # no "strict rules" note while the talon is open
    state = server.get(f"/v1/games/{game_id}/state")
    if state["table"]["closed_by"] is None and state["table"]["talon"] > 0:
        assert "follow suit" not in p.locator("#table").inner_text()
    assert not developer_words(shown_text(page)), developer_words(shown_text(page))
