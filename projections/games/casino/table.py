"""The shape of Casino's `table` in a state document (`view`), for the API's schema (`GameRules.table`).

A TypedDict, not a pydantic model: the game package knows no HTTP; `api/state_models.py` turns it into the
schema, taking each `Annotated[..., "..."]` string as the field's description.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict


class CasinoTable(TypedDict):
    """The table of a Casino state: the deal, the stock, the loose cards, the builds and the last capture."""

    dealer: int | None
    deal: int
    deals: int
    last_deal: bool
    stock: int
    loose: list[str]
    builds: Annotated[
        list[dict[str, Any]],
        "`[{id, value, cards, multiple, owner, seq, groups}]`; `groups`: the card lists the build was made of, "
        "each adding up to `value` (one group for a single build)",
    ]
    last_capture: Annotated[
        dict[str, Any] | None,
        "`{seat, seq, card, took}`: the card played and the cards it took (builds' cards included)",
    ]
    rest: Annotated[dict[str, Any] | None, "the cards left when the round ended: `{seat, cards}`"]
    target: int
    sweeps_score: bool
