"""The package's API is what docs/api.md documents, and a type checker sees all of it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import localfs_explorer as lfe

ROOT = Path(__file__).resolve().parent.parent


def _api_section() -> str:
    return (ROOT / "docs" / "api.md").read_text(encoding="utf-8")


def _documented_names() -> set[str]:
    section = _api_section()
    names: set[str] = set()
    for imported in re.findall(r"^from localfs_explorer import (.+)$", section, re.M):
        names.update(n.strip() for n in imported.split(","))
    for row in re.findall(r"^\|(.+)\|$", section, re.M):
        cells = [c.strip() for c in row.split("|")]
        if len(cells) >= 2 and cells[1] not in ("API", "---"):
            # The API column: each `name(...)` or `Name` in backticks.
            names.update(re.findall(r"`([A-Za-z_]\w*)", cells[1]))
    return names


def test_every_name_the_api_page_documents_is_exported():
    documented = _documented_names()
    assert {"load_env", "resolve_policy", "run_scenarios", "diff_policies",
            "ServerConfig"} <= documented  # the reader above sees the table
    assert sorted(documented - set(lfe.__all__)) == []


def test_every_exported_name_resolves():
    missing = [name for name in lfe.__all__ if getattr(lfe, name, None) is None]
    assert missing == []
    assert sorted(dir(lfe)) == sorted(lfe.__all__)


def test_type_checkers_see_every_lazily_loaded_name():
    tree = ast.parse((ROOT / "localfs_explorer" / "__init__.py").read_text(encoding="utf-8"))
    seen: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom)
                for alias in stmt.names:
                    seen[alias.name] = f"localfs_explorer.{stmt.module}"
    # The default server's own lazy names come from its engine module, found through the
    # registry; its engine declares them (and type checkers see that module).
    engine = {name: module for name, module in lfe._LAZY.items()
              if module == lfe._engine.__name__}
    assert set(engine) == set(lfe._engine.LAZY)
    assert seen == {k: v for k, v in lfe._LAZY.items() if k not in engine}
    assert set(lfe._LAZY) <= set(lfe.__all__)
