"""The games' bots (`GameRules.bot`): legal choices only, table sense, and demo data with every situation.

The demo (`tablebook demo`, which `make run` calls) must show a club every feature the search knows:
a sweep, a marriage, a gin and an undercut, a set bid, a 7½ and a bust. The bots must only ever
choose among the offered events, and play like players: Gin never throws back the card it has just
taken, Schnapsen closes only when ahead, Casino sweeps when it can, Smear bids what it holds,
Seven and a Half stands on sound totals.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from api.cli import DEMO_CLUB, app
from events.store import Store
from projections.core.registry import available, rules_for
from projections.core.rules import Bot, Event
from projections.core.simulate import Playout, demo_playout, play, situations_of
from projections.games.gin_rummy_3._melds import deadwood_value
from projections.games.schnapsen.bot import points_in_hand
from projections.readmodels.hand_facts import HandFacts

#: every situation the issue asks the demo data to show, by the game that shows it
REQUIRED = {
    "casino": {"sweep"},
    "schnapsen": {"marriage"},
    "gin-rummy-3": {"gin", "undercut"},
    "cutthroat-smear": {"failed_bid"},
    "seven-and-a-half": {"seven_and_a_half", "bust"},
}

#: per kind, the option sets the bots are checked under (the defaults and the variants)
OPTION_SETS: dict[str, list[dict[str, Any]]] = {
    "casino": [{}, {"sweeps": True}],
    "cutthroat-smear": [{}],
    "gin-rummy-3": [{}],
    "schnapsen": [{}],
    "seven-and-a-half": [
        {},
        {"splitting": True, "face_down_request": True, "pair_of_sevens": True, "two_card_bonus": True},
        {"wild_card": "KD", "min_bet": 5, "max_bet": 10_000},
    ],
}

Check = Callable[[Any, Sequence[Event], Event], None]


def bot_for(kind: str) -> Bot[Any]:
    """The game's bot (every game has one: `test_every_game_has_a_bot_and_its_demo_situations`)."""
    bot = rules_for(kind).bot
    assert bot is not None, f"{kind} has no bot"
    return bot


def watched(bot: Bot[Any], check: Check) -> Bot[Any]:
    """The bot, with `check(state, offered, chosen)` asserted on every choice it makes."""

    def choose(state: Any, offered: Sequence[Event], rng: random.Random, history: Sequence[Event]) -> Event:
        chosen = bot(state, offered, rng, history)
        assert chosen in offered, f"the bot chose {chosen}, not one of the {len(offered)} offered events"
        check(state, offered, chosen)
        return chosen

    return choose


def bot_games(kind: str, seeds: range, check: Check = lambda s, o, c: None, **options: Any) -> list[Playout]:
    rules = rules_for(kind)
    bot = watched(bot_for(kind), check)
    return [play(rules, list(rules.demo_players), options, rng=random.Random(s), bot=bot) for s in seeds]


# --------------------------------------------------------------------------- the demo data


def test_every_game_has_a_bot_and_its_demo_situations() -> None:
    assert set(REQUIRED) == set(available())
    for kind, tags in REQUIRED.items():
        rules = rules_for(kind)
        assert rules.bot is not None, kind
        assert tags <= rules.demo_situations, kind
        assert rules.demo_situations <= set(rules.situation_tags), kind


def test_the_demo_records_every_situation_and_search_finds_it(tmp_path: Path) -> None:
    """`tablebook demo` as `make run` runs it; then `has=` for each situation, as docs/api.md's examples."""
    url = f"sqlite:///{tmp_path}/demo.db"
    result = CliRunner().invoke(app, ["demo", "--database", url])
    assert result.exit_code == 0, result.output
    store = Store(url)
    try:
        HandFacts(store).catch_up()
        club = store.clubs()[DEMO_CLUB]
        for kind, tags in REQUIRED.items():
            for tag in tags:
                found = store.search_games(club, situations=[tag], kind=kind)
                assert found, f"no demo {kind} game has a hand with {tag!r}"
        games = [store.get_game(g) for g in store.game_ids()]
        assert all(g.status == "finished" for g in games)  # Seven and a Half: the bot closes the session
    finally:
        store.dispose()


@pytest.mark.parametrize("kind", available())
def test_a_demo_playout_shows_its_situations_and_is_repeatable(kind: str) -> None:
    rules = rules_for(kind)
    players = list(rules.demo_players)
    first = demo_playout(rules, players, rng=random.Random(7))
    assert first.finished
    assert rules.demo_situations <= situations_of(rules, first)
    assert demo_playout(rules, players, rng=random.Random(7)).events == first.events


# --------------------------------------------------------------------------- legal choices only


@pytest.mark.parametrize(("kind", "options"), [(k, o) for k in sorted(OPTION_SETS) for o in OPTION_SETS[k]], ids=repr)
def test_bots_choose_only_offered_events_and_finish(kind: str, options: dict[str, Any]) -> None:
    # `play` also puts every choice through `engine.decide` and asserts it breaks no rule
    for playout in bot_games(kind, range(6), **options):
        assert playout.finished, f"{kind}: a bot game did not end in {len(playout.events)} events"


@pytest.mark.parametrize("players", [2, 4])
def test_the_casino_bot_plays_every_table_size(players: int) -> None:
    rules = rules_for("casino")
    bot = watched(bot_for("casino"), lambda s, o, c: None)
    for seed in range(3):
        names = [f"P{i}" for i in range(players)]
        assert play(rules, names, rng=random.Random(seed), bot=bot).finished


def test_the_smear_bot_plays_two_handed() -> None:
    rules = rules_for("cutthroat-smear")
    bot = watched(bot_for("cutthroat-smear"), lambda s, o, c: None)
    assert all(play(rules, ["A", "B"], rng=random.Random(s), bot=bot).finished for s in range(4))


# --------------------------------------------------------------------------- table sense


def test_gin_never_throws_back_the_card_it_took_and_goes_gin_when_it_can() -> None:
    gins = 0

    def check(state: Any, offered: Sequence[Event], chosen: Event) -> None:
        nonlocal gins
        held = state.hands[state.turn] if state.turn is not None else frozenset()
        gin_offered = [e for e in offered if e["type"] == "knock" and _declared(held, e) == 0]
        if gin_offered:
            gins += 1
            assert chosen["type"] == "knock" and _declared(held, chosen) == 0, "a gin was offered and not taken"

    for playout in bot_games("gin-rummy-3", range(8), check):
        events = playout.events
        for before, after in pairwise(events):
            if before["type"] == "draw" and before["source"] == "discard":
                thrown = after.get("card") if after["type"] == "discard" else after.get("discard")
                assert after["seat"] == before["seat"] and thrown != before["card"], (before, after)
        for i, event in enumerate(events):
            if event["type"] == "draw" and event["source"] == "discard":
                assert event["card"] != _own_last_discard(events[:i], event["seat"]), "took back its own discard"
    assert gins > 0


def _declared(held: frozenset[str], knock: Event) -> int:
    """The deadwood a knock declares, counted here without the bot's helpers."""
    melded = {c for m in knock["melds"] for c in m}
    return deadwood_value(held - melded - {knock["discard"]})


def _own_last_discard(events: Sequence[Event], seat: int) -> str | None:
    for event in reversed(events):
        if event["type"] == "deal":
            return None
        if event["type"] == "discard" and event["seat"] == seat:
            return str(event["card"])
    return None


def test_gin_hands_are_not_a_card_passed_back_and_forth() -> None:
    """No card is taken from the pile again and again within a hand (the 10♦ ping-pong of random play)."""
    for playout in bot_games("gin-rummy-3", range(8)):
        hand, taken = 0, Counter[tuple[int, str]]()
        for event in playout.events:
            hand += event["type"] == "deal"
            if event["type"] == "draw" and event["source"] == "discard":
                taken[hand, event["card"]] += 1
        assert max(taken.values(), default=0) <= 2, taken.most_common(3)


def test_schnapsen_closes_only_when_ahead_and_declares_its_marriages() -> None:
    closes = marriages = 0

    def check(state: Any, offered: Sequence[Event], chosen: Event) -> None:
        nonlocal closes, marriages
        if chosen["type"] == "close":
            closes += 1
            seat = chosen["seat"]
            mine = state.hand_points(seat) + state.pending(seat)
            theirs = state.hand_points(1 - seat) + state.pending(1 - seat)
            assert mine > theirs and points_in_hand(state, seat) >= 66, "closed the talon while not ahead"
        offered_marriage = any(e.get("marriage") for e in offered)
        if offered_marriage and not any(e["type"] == "exchange_trump" for e in offered):
            marriages += 1
            assert chosen.get("marriage"), "held a marriage on lead and did not declare it"

    playouts = bot_games("schnapsen", range(10), check)
    assert closes > 0 and marriages > 0
    hands = sum(1 for p in playouts for e in p.events if e["type"] == "deal")
    assert closes < hands / 2, "most hands closed: the bot closes too eagerly"


def test_casino_sweeps_whenever_a_sweep_is_offered() -> None:
    sweeps = 0

    def check(state: Any, offered: Sequence[Event], chosen: Event) -> None:
        nonlocal sweeps
        table = set(state.loose) | {b.id for b in state.builds}
        clears = [e for e in offered if e["type"] == "capture" and set(e["take"]) == table]
        if clears:
            sweeps += 1
            assert chosen in clears, "a capture clearing the table was offered and not played"
        if chosen["type"] == "trail":
            assert not any(e["type"] == "capture" for e in offered), "trailed with a capture to make"

    bot_games("casino", range(6), check)
    assert sweeps > 0


def test_smear_bids_what_it_holds() -> None:
    """Random bidding sets most bids and never ends a game; the bot makes most of its bids."""
    made = failed = thrown = 0
    for playout in bot_games("cutthroat-smear", range(15)):
        for fact in playout.facts:
            if fact.get("thrown_in"):
                thrown += 1
            if "made" in fact:
                made += bool(fact["made"])
                failed += not fact["made"]
    assert failed > 0, "no bid was ever set"
    assert made > 2 * failed
    assert thrown < (made + failed) / 4, "too many hands thrown in: the bot bids too timidly"


def test_seven_and_a_half_stands_on_sound_totals() -> None:
    def check(state: Any, offered: Sequence[Event], chosen: Event) -> None:
        if chosen["type"] not in ("hit", "stand") or state.turn is None:
            return
        hand = state.hands[state.turn][chosen.get("hand", 0)]
        total = state.total(hand)  # half points: 10 is 5, 11 is 5½
        banker = state.turn == state.banker
        if chosen["type"] == "hit":
            assert total < 11, f"hit at {total / 2}"
        elif any(e["type"] == "hit" for e in offered):
            assert total >= (11 if banker else 10), f"stood at {total / 2}"

    for playout in bot_games("seven-and-a-half", range(6), check):
        stakes = [e["amount"] for e in playout.events if e["type"] == "bet"]
        assert max(stakes) <= 10
