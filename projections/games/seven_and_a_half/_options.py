"""Seven and a Half's options (`OPTIONS`): the first banker, the table's stake limits, the variants, the wild
card (`_opt_wild`: a J, Q or K card code, or null) and the house rule `bank_needs_win`; the package docstring
says what each changes.
"""

from __future__ import annotations

from typing import Any

from events.cards import parse_card, rank
from events.errors import InvalidEventError
from events.schema import MAX_AMOUNT
from projections.core.dealing import DEALING
from projections.core.phrases import card as card_text
from projections.core.rules import ENFORCEMENT, OptionSpec, opt_bool, opt_int, opt_seat
from projections.games.seven_and_a_half._cards import FACES


def _opt_wild(value: Any, seats: int) -> str | None:
    if value is None:
        return None
    try:
        code = parse_card(value, "wild_card")
    except InvalidEventError:
        raise ValueError("must be a J, Q or K card code such as 'KD', or null") from None
    if rank(code) not in FACES:
        raise ValueError(f"must name a J, Q or K, not {card_text(code)}")
    return code


OPTIONS: dict[str, OptionSpec] = {
    "first_banker": OptionSpec(0, opt_seat, "the banker of the first hand", seating=True),
    "min_bet": OptionSpec(1, opt_int(1, MAX_AMOUNT), "the smallest stake (table limit), 1 to 10**9 (default 1)"),
    "max_bet": OptionSpec(100, opt_int(1, MAX_AMOUNT), "the largest stake (table limit), 1 to 10**9 (default 100)"),
    "two_card_bonus": OptionSpec(
        False,
        opt_bool,
        "a 7 and a face card as the first two cards are paid double",
        scoring_only=True,
        rule="half.two_card_bonus",
    ),
    "wild_card": OptionSpec(None, _opt_wild, "a J, Q or K that counts as any of ½, 1-7"),
    "pair_of_sevens": OptionSpec(False, opt_bool, "two 7s beat every hand, paid triple"),
    "face_down_request": OptionSpec(False, opt_bool, "a player may ask for one card face down at a time"),
    "splitting": OptionSpec(False, opt_bool, "a hand of two face cards may be split"),
    "enforcement": ENFORCEMENT,
    # house rule (rules "House rules"; a record made before it reads as its default)
    "bank_needs_win": OptionSpec(
        False,
        opt_bool,
        "house rule: false (default): a player's 7½ takes the bank even when the banker's 7½ won the tie; true: "
        "only a 7½ that wins takes the bank",
        rule="half.bank_needs_win",
    ),
    "dealing": DEALING,
}
