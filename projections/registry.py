"""Every game Tablebook knows, by its wire name.

A game is found, not listed: a module `events/<game>.py` (its event schemas) beside
`projections/<game>.py` or a package `projections/<game>/` that assigns `RULES` at its top level
(its `GameRules` record; read from the source, nothing is imported to find it) is the game of
kind `<game>` with `_` written `-` (`gin_rummy_3` is `gin-rummy-3`). Everything else a game
declares (title, players, options, phases, situation tags...) is in its `RULES` record. Game
modules are imported lazily, the first time their kind is asked for; `api/` reaches the games
only through `rules_for`.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import events
import projections
from events.errors import UnknownGameError
from projections.rules import GameRules

_DECLARES = re.compile(r"^RULES\b", re.MULTILINE)


def _discover() -> dict[str, str]:
    """wire name -> module, for every `events/<game>.py` with a `projections/<game>` rules module, by name."""
    events_dir = Path(events.__file__).parent
    rules_dir = Path(projections.__file__).parent
    found: dict[str, str] = {}
    for path in sorted(events_dir.glob("*.py")):
        name = path.stem
        if name.startswith("_"):
            continue
        for source in (rules_dir / f"{name}.py", rules_dir / name / "__init__.py"):
            if source.is_file() and _DECLARES.search(source.read_text(encoding="utf-8")):
                found[name.replace("_", "-")] = f"projections.{name}"
                break
    return found


#: wire name -> module that defines `RULES`, in the order of the module names
KINDS: dict[str, str] = _discover()

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
