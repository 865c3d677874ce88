"""Tests that start processes, kernels or browsers are marked ``slow``.

``-m "not slow"`` is the quick loop while editing; it must not start a subprocess. Read
from the test modules' source: a test function that runs ``subprocess``, a notebook
kernel or a browser must carry ``@pytest.mark.slow`` or sit in a module marked slow.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
HEAVY_CALLS = ("subprocess.", "sys.executable", "NotebookClient", "chromium", "sync_playwright")


def _marks(decorators: list[ast.expr]) -> set[str]:
    return {ast.unparse(d).removeprefix("pytest.mark.") for d in decorators}


def _module_slow(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            return "pytest.mark.slow" in ast.unparse(node.value)
    return False


def _unmarked_heavy_tests() -> list[str]:
    found = []
    for path in sorted(TESTS.rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if _module_slow(tree):
            continue
        for node in tree.body:
            if not (isinstance(node, ast.FunctionDef) and node.name.startswith("test_")):
                continue
            body = ast.unparse(node)
            if any(call in body for call in HEAVY_CALLS) and "slow" not in _marks(
                    node.decorator_list):
                found.append(f"{path.relative_to(TESTS)}::{node.name}")
    return found


def test_every_test_that_starts_a_process_is_marked_slow():
    assert _unmarked_heavy_tests() == []


def test_the_browser_and_notebook_suites_are_slow_as_a_whole():
    for name in ("test_browser.py", "test_notebooks.py"):
        assert _module_slow(ast.parse((TESTS / name).read_text(encoding="utf-8"))), name
