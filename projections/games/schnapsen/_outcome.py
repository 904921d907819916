"""A Schnapsen hand's end: who won it, how many game points (rules 1-3), the score line saying why, and the
match's score sheet.

The reasons are written when first read (`deferred_reason`): a fold scores every hand and reads none.
"""

from __future__ import annotations

from projections.core.fastreplace import copy_with
from projections.core.phrases import seat as seat_marker
from projections.core.rules import Facts, HandScore, ScoreLine, ScoreSheet
from projections.core.scores import deferred_reason
from projections.games.schnapsen._state import SchnapsenState


def _game_points(opponent_points: int, opponent_tricks: int) -> int:
    """Rule 1: 1 if the loser has 33, 2 if fewer with a trick, 3 with no trick."""
    if opponent_points >= 33:
        return 1
    return 2 if opponent_tricks > 0 else 3


def end_hand(
    state: SchnapsenState, facts: Facts, *, reacher: int | None, decisive: int
) -> tuple[SchnapsenState, Facts]:
    """Score the hand that just ended (rules 1-3) and move to the next deal; `facts` gains the hand's end."""
    hp = (state.hand_points(0), state.hand_points(1))
    winner, points, rule, reason = _hand_outcome(state, hp, reacher, decisive)
    events = [decisive]
    if state.close_seq is not None:
        events.append(state.close_seq)
    events.extend(m.seq for m in state.marriages if m.seat == winner and m.credited)
    line = ScoreLine(state.hand, winner, points, rule, reason, tuple(sorted(set(events))))
    gained = (points, 0) if winner == 0 else (0, points)
    result = HandScore(state.hand, gained, (line,))  # = hand_score(hand, 2, [line])
    to_go = state.to_go
    to_go = (to_go[0] - points, to_go[1]) if winner == 0 else (to_go[0], to_go[1] - points)
    over = to_go[winner] <= 0
    after = copy_with(
        state,
        {"phase": "over" if over else "deal", "draws_due": (), "results": state.results.append(result), "to_go": to_go},
    )
    ended = dict(facts)
    ended["hand_ended"] = True
    ended["hand_points"] = {"0": hp[0], "1": hp[1]}
    ended["points"] = {"0": gained[0], "1": gained[1]}
    ended["rule"] = rule
    return after, ended


def _hand_outcome(
    state: SchnapsenState, hp: tuple[int, int], reacher: int | None, decisive: int
) -> tuple[int, int, str, str]:
    """(winner, game points, rule id, reason) of a finished hand; `hp`: each seat's hand points.

    The reason names seats and cards with `projections.core.phrases` markers: the reader sees the names.
    It is written when first read (`deferred_reason`): a fold scores every hand and reads no reason.
    """
    if state.closed_by is None:
        if reacher is not None:
            loser = 1 - reacher
            lp, lt = hp[loser], state.tricks[loser]
            points = _game_points(lp, lt)
            reason = deferred_reason(_reached_reason, reacher, hp[reacher], decisive, lp, lt, points)
            return reacher, points, "schnapsen.reached_66", reason
        assert state.last_trick is not None
        last = state.last_trick[0]
        return last, 1, "schnapsen.last_trick", deferred_reason(_last_trick_reason, hp, last, decisive)
    closer, opponent = state.closed_by, 1 - state.closed_by
    op, ot = state.closed_opponent_points, state.closed_opponent_tricks
    if reacher == closer:
        points = _game_points(op, ot)
        reason = deferred_reason(_closer_made_reason, closer, state.close_seq, hp, decisive, op, ot, points)
        return closer, points, "schnapsen.closer_made", reason
    points = 3 if ot == 0 else 2
    reason = deferred_reason(
        _closer_failed_reason, closer, state.close_seq, hp, decisive, reacher == opponent, ot, points
    )
    return opponent, points, "schnapsen.closer_failed", reason


def _reached_reason(reacher: int, reached: int, decisive: int, lp: int, lt: int, points: int) -> str:
    return (
        f"{seat_marker(reacher)} reached {reached} hand points at event {decisive}; "
        f"{seat_marker(1 - reacher)} had {lp} hand points and {_tricks(lt)}: {_why(lp, lt)}, "
        f"{_game_point_text(points)}"
    )


def _last_trick_reason(hp: tuple[int, int], last: int, decisive: int) -> str:
    return (
        f"all ten tricks played and nobody reached 66 ({hp[0]} to {hp[1]}); "
        f"{seat_marker(last)} won the last trick at event {decisive}: {_game_point_text(1)}"
    )


def _closer_made_reason(
    closer: int, close_seq: int | None, hp: tuple[int, int], decisive: int, op: int, ot: int, points: int
) -> str:
    return (
        f"{seat_marker(closer)} closed the talon at event {close_seq} and reached {hp[closer]} "
        f"hand points at event {decisive}; when the talon was closed {seat_marker(1 - closer)} had {op} hand points "
        f"and {_tricks(ot)}: {_why(op, ot)}, {_game_point_text(points)}"
    )


def _closer_failed_reason(
    closer: int, close_seq: int | None, hp: tuple[int, int], decisive: int, opponent_reached: bool, ot: int, points: int
) -> str:
    opponent = 1 - closer
    how = (
        f"{seat_marker(opponent)} reached {hp[opponent]} hand points first at event {decisive}"
        if opponent_reached
        else f"all tricks were played and {seat_marker(closer)} had only {hp[closer]} hand points"
    )
    return (
        f"{seat_marker(closer)} closed the talon at event {close_seq} and failed: {how}; "
        f"{seat_marker(opponent)} had {_tricks(ot)} when the talon was closed: {_game_point_text(points)}"
    )


def _game_point_text(points: int) -> str:
    return "1 game point" if points == 1 else f"{points} game points"


def _tricks(n: int) -> str:
    return "no trick" if n == 0 else ("1 trick" if n == 1 else f"{n} tricks")


def _why(points: int, tricks: int) -> str:
    if points >= 33:
        return "33 or more"
    return "fewer than 33 with a trick" if tricks else "no trick"


def score(state: SchnapsenState) -> ScoreSheet:
    """Totals are match points still to go; the first at 0 or below wins."""
    winner = next((s for s in range(2) if state.to_go[s] <= 0), None)
    return ScoreSheet(state.to_go, state.results, state.phase == "over", winner)
