"""Every game Tablebook knows, by its wire name.

Game modules are imported lazily, the first time their kind is asked for;
`api/` reaches the games only through `rules_for`.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from events.errors import UnknownGameError
from projections.rules import GameRules

#: wire name -> module that defines `RULES`
KINDS: dict[str, str] = {
    "casino": "projections.casino",
    "schnapsen": "projections.schnapsen",
    "gin-rummy-3": "projections.gin_rummy_3",
    "seven-and-a-half": "projections.seven_and_a_half",
    "cutthroat-smear": "projections.cutthroat_smear",
}

_loaded: dict[str, GameRules[Any]] = {}


def rules_for(kind: str) -> GameRules[Any]:
    """The rules of a game kind.

    Raises:
        UnknownGameError: not a kind this server has.
    """
    rules = _loaded.get(kind)
    if rules is not None:
        return rules
    module_name = KINDS.get(kind)
    if module_name is None:
        raise UnknownGameError(f"unknown game {kind!r}; known games: {', '.join(available())}", field="game")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise UnknownGameError(f"the game {kind!r} is not available on this server yet", field="game") from None
    rules = getattr(module, "RULES", None)
    if not isinstance(rules, GameRules):
        raise UnknownGameError(f"the game {kind!r} is not available on this server yet", field="game")
    _loaded[kind] = rules
    return rules


def available() -> list[str]:
    """The kinds whose modules are installed, in a stable order."""
    found = []
    for kind in KINDS:
        try:
            rules_for(kind)
        except UnknownGameError:
            continue
        found.append(kind)
    return found
