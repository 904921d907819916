"""The score lines of a Gin Rummy hand: a knock's (gin, knock, undercut) and a drawn hand's.

Apart from the fold (`__init__.py`) so that the scoring reads on its own. Reasons name seats and
cards with `projections.core.phrases` markers, rendered with the players' names, and are written when
first read (`deferred_line`): a fold scores every hand it passes and reads none of them (issue 34).
"""

from __future__ import annotations

from projections.core.phrases import card as card_text
from projections.core.phrases import cards as cards_text
from projections.core.phrases import seat as player
from projections.core.rules import ScoreLine
from projections.core.scores import deferred_line
from projections.games.gin_rummy_3._melds import layoff_steps
from projections.games.gin_rummy_3._state import GinState, Knock, Layout


def hand_lines(state: GinState, knock: Knock, layout: Layout) -> list[ScoreLine]:
    """The score lines of a hand ended by a knock and its lay-off (rules "Scoring a hand")."""
    hand, events = state.hand, (knock.seq, layout.seq)
    k, d = knock.seat, layout.seat
    roles = (state.role(k), state.role(d))
    if knock.gin:
        bonus = int(state.options["gin_bonus"])
        # the house rule `gin_scoring: "flat"`: the gin bonus alone (the deadwood line stays, at 0, to say so)
        flat = state.options.get("gin_scoring") == "flat"
        return [
            deferred_line(hand, k, bonus, "gin.gin_bonus", _gin_reason, knock, roles, bonus, events=events),
            deferred_line(
                hand,
                k,
                0 if flat else layout.count,
                "gin.gin_deadwood",
                _gin_deadwood_reason,
                knock,
                layout,
                roles,
                flat,
                events=events,
            ),
        ]
    if knock.count < layout.count:
        points = layout.count - knock.count
        return [deferred_line(hand, k, points, "gin.knock", _knock_reason, knock, layout, roles, events=events)]
    bonus = int(state.options["undercut_bonus"])
    return [
        deferred_line(
            hand, d, bonus, "gin.undercut_bonus", _undercut_bonus_reason, knock, layout, roles, bonus, events=events
        ),
        deferred_line(
            hand,
            d,
            knock.count - layout.count,
            "gin.undercut",
            _undercut_reason,
            knock.count,
            layout.count,
            events=events,
        ),
    ]


def drawn_hand_line(state: GinState, seat: int, card: str, seq: int) -> ScoreLine:
    """The line at 0 of a hand drawn by `seat`'s discard of `card` at `seq` (too few cards left in the stock)."""
    assert state.box is not None
    return deferred_line(
        state.hand, seat, 0, "gin.drawn_hand", _drawn_reason, seat, card, seq, state.stock, state.box, events=(seq,)
    )


# The reasons, written when first read. `roles`: the knocker's and the defender's roles.


def _named(seat: int, role: str | None) -> str:
    return f"{player(seat)} ({role})"


def _cards_or_none(cards: tuple[str, ...]) -> str:
    return cards_text(cards) if cards else "none"


def _defender(layout: Layout, knock: Knock, role: str | None) -> str:
    laid = f", after laying off {_layoffs_text(knock, layout)}" if layout.layoffs else ""
    return (
        f"{_named(layout.seat, role)} kept deadwood {_cards_or_none(layout.deadwood)} = {layout.count}{laid} "
        f"at event {layout.seq}"
    )


def _gin_reason(knock: Knock, roles: tuple[str | None, str | None], bonus: int) -> str:
    melds = " + ".join(cards_text(m) for m in knock.melds)
    return f"{_named(knock.seat, roles[0])} went gin at event {knock.seq} ({melds}): gin bonus {bonus}"


def _gin_deadwood_reason(knock: Knock, layout: Layout, roles: tuple[str | None, str | None], flat: bool) -> str:
    return f"after {_named(knock.seat, roles[0])}'s gin, {_defender(layout, knock, roles[1])}: " + (
        "by the house rule of flat gin scoring it counts for nothing" if flat else "the knocker scores it"
    )


def _knock_reason(knock: Knock, layout: Layout, roles: tuple[str | None, str | None]) -> str:
    return (
        f"{_named(knock.seat, roles[0])} knocked at event {knock.seq} with deadwood {_cards_or_none(knock.deadwood)} "
        f"= {knock.count}; {_defender(layout, knock, roles[1])}: "
        f"{layout.count} - {knock.count} = {layout.count - knock.count}"
    )


def _undercut_bonus_reason(knock: Knock, layout: Layout, roles: tuple[str | None, str | None], bonus: int) -> str:
    return (
        f"{_named(knock.seat, roles[0])} knocked at event {knock.seq} with deadwood {_cards_or_none(knock.deadwood)} "
        f"= {knock.count}; {_defender(layout, knock, roles[1])}, not more than the knocker's: undercut, bonus {bonus}"
    )


def _undercut_reason(knocker: int, defender: int) -> str:
    return f"undercut difference: the knocker's {knocker} - the defender's {defender} = {knocker - defender}"


def _drawn_reason(seat: int, card: str, seq: int, stock: int, box: int) -> str:
    return (
        f"{player(seat)}'s discard of {card_text(card)} at event {seq} left {stock} cards in the stock and nobody "
        f"had knocked: the hand is drawn, nobody scores, and the box, {player(box)}, deals again"
    )


def _layoffs_text(knock: Knock, layout: Layout) -> str:
    """`9S on TS JS QS, 8S on 9S TS JS QS`: each card laid off and the knocker's meld it joined, as it
    was then, named by its cards rather than by a number a reader would have to count."""
    return ", ".join(f"{card_text(c)} on {cards_text(m)}" for c, _, m in layoff_steps(knock.melds, layout.layoffs))
