"""The quick loop of scripts/test leaves out what starts processes or real systems."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REAL_MODULES = ("servers/gee_sweet/test_conformance.py",
                "servers/gee_sweet/test_tool_conformance.py",
                "servers/gee_sweet/test_live_server.py",
                "cli/test_verify_cli.py", "servers/filesystem/test_fs_differential.py")


def _pytestmark(path: Path) -> str:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            return ast.unparse(node.value)
    return ""


def test_the_modules_that_run_a_real_system_are_marked_real():
    for name in REAL_MODULES:
        assert "pytest.mark.real" in _pytestmark(ROOT / "tests" / name), name


def test_quick_mode_deselects_slow_browser_and_real_tests():
    source = (ROOT / "scripts" / "test").read_text(encoding="utf-8")
    assert '"not slow and not browser and not real"' in source
    assert "--quick" in source
