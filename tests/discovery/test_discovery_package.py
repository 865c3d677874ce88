"""The discovery package's ``__init__`` re-exports the public names of its modules, no more."""

from __future__ import annotations

import ast
from pathlib import Path

import localfs_explorer.discovery as discovery

INIT = Path(discovery.__file__)


def test_the_package_init_only_imports_public_names_from_its_modules() -> None:
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    imported: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if isinstance(node, ast.ImportFrom):
            assert node.level == 1, ast.unparse(node)
            imported += [alias.asname or alias.name for alias in node.names]
            continue
        is_all = isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__"
        is_docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        assert is_all or is_docstring, f"the package defines {ast.unparse(node)[:60]!r}"
    assert not [n for n in imported if n.startswith("_")]
    assert sorted(imported) == sorted(discovery.__all__)


def test_each_public_name_resolves() -> None:
    for name in discovery.__all__:
        assert getattr(discovery, name) is not None, name
    assert discovery.discover_paths({"local_path": "/etc/passwd"}, home="/h")[0].path == (
        "/etc/passwd")
