"""Every game Tablebook knows, by its wire name: one explicit list (python-chess's `VARIANTS`).

A game is two modules: `events/games/<game>.py` (its event schemas) and the package
`projections/games/<game>/`, whose `RULES` is its `GameRules` record (title, players, options,
phases, situation tags, bot, dealing order...). `KINDS` lists them, the wire name with the module
that holds its `RULES`; adding a game is adding its line here (docs/adding-a-game.md). The modules
are named, not imported, so that the core stays below the games (`make lint`'s import contracts):
each is imported the first time its kind is asked for; `api/` reaches the games only through
`rules_for`.
"""

from __future__ import annotations

import importlib
from typing import Any

from events.errors import UnknownGameError
from projections.core.rules import GameRules

#: wire name -> the module that defines its `RULES`, in the order the games are listed everywhere
KINDS: dict[str, str] = {
    "casino": "projections.games.casino",
    "cutthroat-smear": "projections.games.cutthroat_smear",
    "gin-rummy-3": "projections.games.gin_rummy_3",
    "schnapsen": "projections.games.schnapsen",
    "seven-and-a-half": "projections.games.seven_and_a_half",
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
