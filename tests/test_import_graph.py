"""The layers, read from the modules' own import statements.

Every module of the package is parsed (never imported) and its imports of other package
modules become edges: module-level imports, imports inside functions (lazy ones) and
imports under ``if TYPE_CHECKING:`` (type-only ones: they never run, but a reader still
sees the dependency, so they count too). The graph must have no cycle, even through
lazy and type-only imports, and no edge may point up the layers below. A lazy import
that breaks a cycle is allowed only when listed in ``DOCUMENTED_LAZY_CYCLES`` with the
reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "localfs_explorer"

#: Each top-level module or sub-package, by layer: a module may import its own layer or
#: a lower one, never a higher one. The package's ``__init__`` is the engine's API.
LAYERS: dict[str, int] = {
    # words, errors and pure helpers: import nothing above them
    "errors": 0, "vocab": 0, "paths": 0, "secrets": 0, "userfiles": 0,
    "catalog.locations": 0, "probe.calls_file": 0, "handoff": 0,
    "sensitive": 0, "servers.gee_sweet.profile": 0, "envfile.load": 0, "textsafe": 0,
    "optional": 0,
    # the .env edit: text in, text out, so it can never reach for the engine or the disk
    "envfile.edit": 0,
    # HTML for results: pure functions of the records, duck-typed
    "render": 0,
    # the target host's filesystem
    "fs": 1,
    # the engine: env -> policy -> decisions, tools, the server's configuration, the
    # seam every server implements and the servers behind it
    "": 2, "catalog": 2, "access": 2, "discovery": 2,
    "envfile": 2, "config": 2, "server": 2, "server_records": 2, "servers": 2,
    # tool calls and the review of whole configurations; a running server's live answers
    "probe": 3, "review": 3, "exposure": 3, "live": 3,
    "servers.gee_sweet.server": 3, "servers.gee_sweet.exposure": 3,
    "servers.gee_sweet.suggest": 3, "servers.filesystem.server": 3,
    "servers.filesystem.suggest": 3,
    # deployments read from MCP client configs, and written back into them
    "deployments": 3,
    # the dashboard
    "ui": 4,
    # the command line, serve included
    "cli": 5, "__main__": 5,
}

#: Inside a package, the modules the others build on, and the only siblings each may
#: import: the shared options know no command, the model's scheduling and input checks
#: know no model, the scenario format knows no runner, the catalog's records know
#: neither how a catalog is read nor which tools a policy registers, what looks like a
#: path knows nothing of the search, the inventory's records and host facts know no walk.
FOUNDATIONS: dict[str, set[str]] = {
    "localfs_explorer.cli.options": set(),
    "localfs_explorer.ui.inputs": {"localfs_explorer.handoff"},
    "localfs_explorer.ui.stages": set(),
    "localfs_explorer.review.scenarios.locator": set(),
    "localfs_explorer.review.scenarios.results": set(),
    "localfs_explorer.review.scenarios.format": {"localfs_explorer.review.scenarios.locator"},
    "localfs_explorer.discovery.words": set(),
    "localfs_explorer.exposure.records": set(),
    "localfs_explorer.exposure.rules": {"localfs_explorer.exposure.records"},
    "localfs_explorer.catalog.locations": set(),
    "localfs_explorer.catalog.model": {"localfs_explorer.catalog.locations"},
    "localfs_explorer.catalog.tools_list": {"localfs_explorer.catalog.model",
                                            "localfs_explorer.catalog.locations"},
    "localfs_explorer.catalog.load": {"localfs_explorer.catalog.model",
                                      "localfs_explorer.catalog.tools_list",
                                      "localfs_explorer.catalog.locations"},
    "localfs_explorer.handoff": set(),
}

#: (importer, imported) pairs whose function-local import closes a cycle, with why.
DOCUMENTED_LAZY_CYCLES: dict[tuple[str, str], str] = {}


def _name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = module.split(".")
        if not is_package:
            base.pop()
        base = base[: len(base) - (node.level - 1)]
        source = ".".join([*base, node.module] if node.module else base)
    else:
        source = node.module or ""
    submodules = [f"{source}.{a.name}" for a in node.names if f"{source}.{a.name}" in MODULES]
    # `from . import check` imports the submodule only (its package is already loaded).
    return submodules if len(submodules) == len(node.names) else [source, *submodules]


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _edges() -> dict[tuple[str, str], set[str]]:
    """(importer, imported) -> {"top", "lazy", "type"}."""
    edges: dict[tuple[str, str], set[str]] = {}
    for module, path in MODULES.items():
        is_package = path.name == "__init__.py"

        def visit(node: ast.AST, kind: str, module: str = module,
                  is_package: bool = is_package) -> None:
            for child in ast.iter_child_nodes(node):
                if _is_type_checking(child):
                    child_kind = "type"
                elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    child_kind = "lazy" if kind == "top" else kind
                else:
                    child_kind = kind
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for target in _targets(module, is_package, child):
                        if target in MODULES and target != module:
                            edges.setdefault((module, target), set()).add(child_kind)
                visit(child, child_kind)

        visit(ast.parse(path.read_text(encoding="utf-8")), "top")
    return edges


EDGES = _edges()


def _layer(module: str) -> int:
    """The layer of the longest entry of LAYERS that ``module`` is or is inside."""
    parts = module.removeprefix("localfs_explorer").lstrip(".").split(".")
    for n in range(len(parts), 0, -1):
        key = ".".join(parts[:n])
        if key in LAYERS:
            return LAYERS[key]
    if "" in LAYERS and parts == [""]:
        return LAYERS[""]
    pytest.fail(f"{module}: give it a layer in LAYERS")


def _cycles(kinds: set[str]) -> list[list[str]]:
    graph: dict[str, list[str]] = {}
    for (a, b), found in EDGES.items():
        if found & kinds and (a, b) not in DOCUMENTED_LAZY_CYCLES:
            graph.setdefault(a, []).append(b)
    cycles, state, stack = [], {}, []

    def walk(node: str) -> None:
        state[node] = "open"
        stack.append(node)
        for nxt in graph.get(node, ()):
            if state.get(nxt) == "open":
                cycles.append([*stack[stack.index(nxt):], nxt])
            elif nxt not in state:
                walk(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            walk(node)
    return cycles


def test_the_graph_is_read_from_every_module():
    assert len(MODULES) > 40
    gee = "localfs_explorer.servers.gee_sweet"
    assert (f"{gee}.policy", f"{gee}.check.batch") in EDGES
    assert EDGES[("localfs_explorer.cli.options", "localfs_explorer.config")] == {"top"}
    # type-only imports are edges too
    assert "type" in EDGES[(f"{gee}.check.verdict", f"{gee}.check.tables")]
    # the check imports no policy, not even for its types: the policy imports the check
    assert not [b for (a, b) in EDGES
                if a.startswith(f"{gee}.check") and "gee_sweet.policy" in b]


def test_no_module_is_over_800_lines():
    long = {m: n for m, p in MODULES.items()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800}
    assert long == {}


def test_no_cycle_among_module_level_imports():
    assert _cycles({"top"}) == []


def test_no_cycle_even_through_lazy_imports():
    assert _cycles({"top", "lazy"}) == []


def test_no_cycle_even_through_type_only_imports():
    assert _cycles({"top", "lazy", "type"}) == []


#: The package's ``__init__`` names the whole API for type checkers (the names it loads
#: on first use included), so its type-only imports may reach any layer; what it imports
#: when it runs is still held to its layer.
TYPE_ONLY_FACADE = "localfs_explorer"


def test_no_import_points_up_the_layers():
    upward = sorted(f"{a} -> {b} ({'/'.join(sorted(k))})" for (a, b), k in EDGES.items()
                    if _layer(b) > _layer(a)
                    and not (a == TYPE_ONLY_FACADE and k == {"type"}))
    assert upward == []


def test_the_foundations_of_a_package_import_only_what_they_build_on():
    wrong = []
    for module, allowed in FOUNDATIONS.items():
        assert module in MODULES, module
        package = module.rsplit(".", 1)[0]
        wrong += [f"{a} -> {b}" for (a, b) in EDGES
                  if a == module and (b == package or b.startswith(package + "."))
                  and b not in allowed]
    assert wrong == []


def test_the_cycle_finder_finds_a_cycle():
    EDGES[("localfs_explorer.envfile.load", "localfs_explorer.cli.options")] = {"lazy"}
    try:
        assert _cycles({"top"}) == []
        assert _cycles({"top", "lazy"})
    finally:
        del EDGES[("localfs_explorer.envfile.load", "localfs_explorer.cli.options")]


def _absolute(module: str, path: Path, stmt: ast.ImportFrom) -> str:
    """The module an ``import from`` names, made absolute."""
    if not stmt.level:
        return stmt.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[:len(package) - stmt.level + 1]
    return ".".join([*base, *([stmt.module] if stmt.module else [])])


def test_the_package_is_pure_python():
    """No source of a compiled part: the wheel is py3-none-any."""
    compiled = [p.name for p in PACKAGE.rglob("*")
                if p.suffix in (".c", ".h", ".pyx", ".pyi")]
    assert compiled == []
    assert not (PACKAGE.parent / "setup.py").exists()


def test_no_import_of_the_package_is_guarded_as_optional():
    """``except ImportError`` around our own modules would hide a real import bug."""
    guarded = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Try):
                continue
            caught = {ast.unparse(h.type) for h in node.handlers if h.type is not None}
            if not caught & {"ImportError", "ModuleNotFoundError"}:
                continue
            for stmt in node.body:
                if (
                    isinstance(stmt, ast.ImportFrom)
                    and (stmt.level or (stmt.module or "").startswith("localfs_explorer"))
                ):
                    guarded.append(f"{module}:{stmt.lineno}")
    assert guarded == []
