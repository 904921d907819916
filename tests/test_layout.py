"""The test suite's layout: a test module imports its helpers from a conftest or a helper module, never from
another test module (importing one runs its module-level code and ties one test's file to another's).

Every `tests/**/*.py` is parsed with `ast`; each import (at module level or inside a function, absolute or
relative, `from tests.x import test_y` too) is resolved to a module, and none may be a test module: a file
pytest collects (`test_*.py` or `*_test.py`, pytest's default `python_files`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def is_test_module(name: str) -> bool:
    """Whether the dotted module `name` is one of the suite's test modules."""
    parts = name.split(".")
    if parts[0] != "tests":
        return False
    path = ROOT.joinpath(*parts).with_suffix(".py")
    stem = parts[-1]
    return path.is_file() and (stem.startswith("test_") or stem.endswith("_test"))


def module_of(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def imported(source: str, module: str, *, package: bool = False) -> Iterator[tuple[int, str]]:
    """(line, module) of every module the source of `module` imports, a `from package import name` also as
    `package.name` (the name may be a module)."""
    parent = module.split(".") if package else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = parent[: len(parent) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            yield node.lineno, target
            for alias in node.names:
                yield node.lineno, f"{target}.{alias.name}"


def test_no_test_module_imports_another() -> None:
    files = sorted(TESTS.rglob("*.py"))
    assert TESTS / "test_layout.py" in files
    found = [
        f"{path.relative_to(ROOT)}:{line} imports {target}"
        for path in files
        for line, target in imported(path.read_text(), module_of(path), package=path.name == "__init__.py")
        if is_test_module(target) and target != module_of(path)
    ]
    assert found == [], "move what they share into a conftest or a helper module:\n" + "\n".join(found)


def test_the_check_sees_each_way_of_importing_a_test_module() -> None:
    """The check is not vacuous: each form of import names the test module it reaches."""
    assert is_test_module("tests.api.test_search") and not is_test_module("tests.api.helpers")
    assert not is_test_module("tests.api.test_no_such_module") and not is_test_module("api.test_search")
    source = (
        "import tests.api.test_search\n"
        "from tests.api.test_search import schnapsen\n"
        "from tests.api import test_search\n"
        "from . import test_search\n"
        "from .test_search import schnapsen\n"
        "def later():\n"
        "    from ..api.test_search import schnapsen\n"
        "from tests.api.helpers import schnapsen\n"
        "from . import helpers\n"
    )
    reached = {line for line, target in imported(source, "tests.api.probe") if is_test_module(target)}
    assert reached == {1, 2, 3, 4, 5, 7}
