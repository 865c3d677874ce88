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
    "sensitive": 0, "envfile.load": 0, "textsafe": 0,
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
    "probe": 3, "review": 3, "exposure": 3,
    # deployments read from MCP client configs, and written back into them
    "deployments": 3,
    # recorded sessions held against predictions: reads logs, asks probe and deployments
    "sessions": 3,
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


#: A server's own folder (``servers/<id>/``) may build on everything shared up to the
#: review layer (its exposure walk, its suggest, its live checks), and nothing shared
#: imports it (see the seam tests below): only the registry loads it, by name.
SERVER_FOLDER_LAYER = 3


def _server_package(module: str) -> str | None:
    """``localfs_explorer.servers.<id>`` for a module inside a server's folder, else None."""
    parts = module.split(".")
    if len(parts) >= 3 and parts[:2] == ["localfs_explorer", "servers"]:
        return ".".join(parts[:3])
    return None


def _layer(module: str) -> int:
    """The layer of the longest entry of LAYERS that ``module`` is or is inside."""
    if _server_package(module) is not None:
        return SERVER_FOLDER_LAYER
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


# --- the seam: only a server's own folder knows it ----------------------------------------

def seam_breaches(edges: dict[tuple[str, str], set[str]]) -> list[str]:
    """Every import of a server's folder from outside it (the package's ``__init__``
    included: it reaches the default server's engine through the registry)."""
    return sorted(f"{a} -> {b}" for (a, b) in edges
                  if (pkg := _server_package(b)) is not None
                  and _server_package(a) != pkg)


def test_no_module_outside_a_servers_folder_imports_it():
    assert seam_breaches(EDGES) == []


def test_the_seam_check_catches_a_shared_module_importing_a_server():
    # A shared module, a sibling server and a non-default server through the facade.
    for importer, imported in (
        ("localfs_explorer.probe.call", "localfs_explorer.servers.gee_sweet.policy"),
        ("localfs_explorer.servers.filesystem.policy",
         "localfs_explorer.servers.gee_sweet.check.verdict"),
        ("localfs_explorer", "localfs_explorer.servers.filesystem.policy"),
    ):
        assert seam_breaches({**EDGES, (importer, imported): {"lazy"}}) == [
            f"{importer} -> {imported}"]


def _server_words() -> dict[str, str]:
    """Each registered server's id and folder name -> the folder that may spell it."""
    from localfs_explorer.server import iter_servers

    words = {}
    for server in iter_servers():
        package = type(server).__module__.split(".")
        if package[:2] != ["localfs_explorer", "servers"]:
            continue  # a server living outside this tree
        folder = ".".join(package[:3])
        words[server.id] = folder
        words[f"servers.{package[2]}"] = folder
        words[f"servers/{package[2]}"] = folder
    return words


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)):
            out.add(id(body[0].value))
    return out


def spelled_ids(sources: dict[str, str]) -> list[str]:
    """Every string (docstrings and comments aside) outside a server's folder that spells
    a server's id or names its folder (the facade's naming the default server aside)."""
    words = _server_words()
    found = []
    for module, text in sources.items():
        tree = ast.parse(text)
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and id(node) not in docs):
                continue
            for word, folder in words.items():
                if word in node.value and _server_package(module) != folder:
                    found.append(f"{module}:{node.lineno}: {word}")
    return sorted(found)


#: The registry names the server a configuration means when it names none.
REGISTRY = "localfs_explorer.server"


def test_no_module_outside_a_servers_folder_spells_its_id():
    sources = {m: p.read_text(encoding="utf-8") for m, p in MODULES.items()}
    registry_default = [f for f in spelled_ids({REGISTRY: sources.pop(REGISTRY)})]
    assert spelled_ids(sources) == []
    # The registry spells the default server's id once, and no other.
    from localfs_explorer.server import DEFAULT_SERVER

    assert registry_default == [f"{REGISTRY}:{_line_of(REGISTRY, DEFAULT_SERVER)}: "
                                f"{DEFAULT_SERVER}"]


def _line_of(module: str, text: str) -> int:
    lines = MODULES[module].read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if f'"{text}"' in line)


def test_the_id_check_catches_a_spelled_id_and_a_folder_path():
    sources = {
        "localfs_explorer.probe.x": 'SERVER = "server-filesystem"\n',
        "localfs_explorer.catalog.y": 'PKG = "localfs_explorer.servers.gee_sweet"\n',
        "localfs_explorer.review.z": 'def f():\n    """mcp-gee-sweet in a docstring."""\n',
        "localfs_explorer.servers.filesystem.w": 'ID = "server-filesystem"\n',
    }
    assert spelled_ids(sources) == ["localfs_explorer.catalog.y:1: servers.gee_sweet",
                                    "localfs_explorer.probe.x:1: server-filesystem"]


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
