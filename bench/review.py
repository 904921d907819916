"""`make bench`, hand review: how long each game's review of a finished hand takes, beside the issue's ceiling.

Bot games of each kind (`simulate.play` with the game's bot, seeded) are walked with the engine, and every
finished hand of the first `HANDS` is reviewed through the game's own reviewer (`GameRules.review`, as
`GET /v1/games/{id}/review` calls it, without the HTTP and the store). Each line gives the median and the
slowest, the ceiling (issue 32), and the size of what was searched (positions, or 7½'s hand states):

    schnapsen hand with hindsight: median N ms, max N ms (ceiling 100 ms); N decisions, N positions a hand
    schnapsen hand from the players' views: ... (ceiling 1000 ms)   # every figure, hindsight and seen
    seven-and-a-half decision: ... (ceiling 1 ms)                   # a hand's time over its decisions
    gin-rummy-3 hand: ... (ceiling 50 ms)
    casino deal with hindsight: ... (ceiling 1000 ms)               # a round's time over its deals
    cutthroat-smear deal with hindsight: ... (ceiling 1000 ms)      # hindsight and the sampled seen figures

Numbers are printed, never asserted. BENCH_QUICK=1: fewer hands.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from projections.core import engine, simulate
from projections.core.registry import rules_for
from projections.core.review import HINDSIGHT, Decision, HandRecord, Turn
from projections.core.rules import GameRules
from projections.games.schnapsen import review as schnapsen_review

QUICK = bool(os.environ.get("BENCH_QUICK"))
HANDS = 6 if QUICK else 20


def hands_of(kind: str, count: int, seed: int = 7) -> list[HandRecord[Any]]:
    """The first `count` finished hands of bot games of `kind`, as a reviewer is given them."""
    rules = rules_for(kind)
    players = list(rules.demo_players)
    rng = random.Random(seed)
    out: list[HandRecord[Any]] = []
    while len(out) < count:
        played = simulate.play(rules, players, {}, rng=rng, bot=rules.bot, max_events=1500)
        position = engine.start(rules, players, rules.options_for(players, {}))
        turns: dict[int, list[Turn[Any]]] = {}
        for seq, event in enumerate(played.events, 1):
            before = position.game
            position = engine.apply(rules, position, event, seq)
            if event["type"] not in engine.ENGINE_EVENTS:
                turns.setdefault(position.game.hand, []).append(Turn(seq, before, event, position.facts, position.game))
        for hand, hand_turns in sorted(turns.items()):
            if hand >= 1 and not rules.hand_in_progress(hand_turns[-1].after) and len(out) < count:
                out.append(HandRecord(hand, tuple(hand_turns), rules))
    return out


def timed(
    hands: Sequence[HandRecord[Any]], review: Callable[[HandRecord[Any]], Sequence[Decision]]
) -> list[tuple[float, int, int]]:
    """(seconds, decisions, positions searched) of each hand's review."""
    out = []
    for hand in hands:
        start = time.perf_counter()
        decisions = review(hand)
        seconds = time.perf_counter() - start
        out.append((seconds, len(decisions), sum(f.searched for d in decisions for f in d.figures)))
    return out


def line(label: str, times: Sequence[float], ceiling_ms: float, size: str) -> None:
    median, slowest = statistics.median(times) * 1000, max(times) * 1000
    places = 3 if ceiling_ms < 10 else 1
    print(
        f"{label}: median {median:.{places}f} ms, max {slowest:.{places}f} ms (ceiling {ceiling_ms:g} ms); {size}",
        flush=True,
    )


def size(runs: Sequence[tuple[float, int, int]], per: str = "a hand") -> str:
    decisions = statistics.median(r[1] for r in runs)
    searched = statistics.median(r[2] for r in runs)
    return f"{decisions:g} decisions, {searched:,.0f} positions searched {per} (median)"


def whole(rules: GameRules[Any]) -> Callable[[HandRecord[Any]], Sequence[Decision]]:
    reviewer = rules.review
    assert reviewer is not None
    return lambda hand: reviewer.review(hand, None)


def main() -> None:
    print(f"# hand review: {HANDS} finished hands of bot games per kind, each reviewed for every seat")
    hands = hands_of("schnapsen", HANDS)
    runs = timed(hands, lambda h: schnapsen_review.review(h, None, views=(HINDSIGHT,)))
    line("schnapsen hand with hindsight", [r[0] for r in runs], 100, size(runs))
    runs = timed(hands, whole(rules_for("schnapsen")))
    line("schnapsen hand from the players' views (and with hindsight)", [r[0] for r in runs], 1000, size(runs))

    rules = rules_for("seven-and-a-half")
    runs = [r for r in timed(hands_of("seven-and-a-half", HANDS), whole(rules)) if r[1]]
    per = [r[0] / r[1] for r in runs]
    line("seven-and-a-half decision", per, 1, size(runs))

    runs = timed(hands_of("gin-rummy-3", HANDS), whole(rules_for("gin-rummy-3")))
    line("gin-rummy-3 hand", [r[0] for r in runs], 50, size(runs))

    casino = hands_of("casino", max(2, HANDS // 4))
    runs = timed(casino, whole(rules_for("casino")))
    deals = [len({t.before.deals for t in h.turns if t.before.phase == "play"}) or 1 for h in casino]
    per_deal = [(r[0] / d, round(r[1] / d), round(r[2] / d)) for r, d in zip(runs, deals, strict=True)]
    line("casino deal with hindsight", [r[0] for r in per_deal], 1000, size(per_deal, "a deal"))

    runs = timed(hands_of("cutthroat-smear", HANDS), whole(rules_for("cutthroat-smear")))
    line("cutthroat-smear deal with hindsight (and sampled views)", [r[0] for r in runs], 1000, size(runs, "a deal"))


if __name__ == "__main__":
    main()
