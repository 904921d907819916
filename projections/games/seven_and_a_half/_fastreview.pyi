"""The compiled expectimax of `_fastreview.c` (see `review.Table.compiled`, `review.Banker`, `review.Player`)."""

from collections.abc import Sequence

class Hands:
    def __init__(
        self,
        counts: Sequence[int],
        outcome: Sequence[int],
        child: Sequence[int],
        payoff: Sequence[int],
        flags: Sequence[int],
        empty: int,
    ) -> None: ...
    def banker(
        self, hands: Sequence[tuple[int, int, bool]], pool: Sequence[int], cards: int
    ) -> tuple[float, float, int]: ...
    def player(
        self, stake: int, pool: Sequence[int], banker_pool: Sequence[int], hidden: bool, shown: int, hand: int
    ) -> tuple[float, float, int]: ...
    @property
    def states(self) -> int: ...
