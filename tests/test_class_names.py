"""Every class in the package has a name of its own.

Two classes called ``Difference`` in two modules read the same in a traceback, a type
error or a search, and an import of the wrong one type-checks where the shapes match.
Each class is named for what it is in its domain (``VerifyDifference``,
``FsVerifyDifference``); a renamed public class keeps its old name as an alias, which is
an assignment, not a second class, and so is not counted here.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "localfs_explorer"


def class_homes(package: Path) -> dict[str, list[str]]:
    """Each class name defined anywhere under ``package``, with the modules defining it."""
    homes: dict[str, list[str]] = defaultdict(list)
    for path in sorted(package.rglob("*.py")):
        module = path.relative_to(package.parent).with_suffix("").as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and module not in homes[node.name]:
                homes[node.name].append(module)
    return dict(homes)


def twins(package: Path) -> dict[str, list[str]]:
    """The class names defined in more than one module."""
    return {name: where for name, where in class_homes(package).items() if len(where) > 1}


def test_no_two_modules_define_a_class_of_the_same_name() -> None:
    assert twins(PACKAGE) == {}


def test_the_scan_reads_the_whole_package() -> None:
    homes = class_homes(PACKAGE)
    # Classes at the top of a module, nested in a package, and private ones are all seen.
    assert [m.rsplit("/", 1)[-1] for m in homes["Decision"]] == ["verdict"]
    assert any(m.startswith("localfs_explorer/servers/filesystem/")
               for m in homes["ValidatePathVerdict"])
    assert "_InventoryWalker" in homes and "_CallFolderWalker" in homes
    assert len(homes) > 100


def test_a_twin_is_named_with_both_its_modules(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "a.py").write_text("class Change:\n    pass\n", encoding="utf-8")
    (package / "sub" / "b.py").write_text(
        "if True:\n    class Change:\n        pass\nAlias = Change\n", encoding="utf-8")
    (package / "c.py").write_text("class Own:\n    pass\nChange = Own\n", encoding="utf-8")
    assert twins(package) == {"Change": ["pkg/a", "pkg/sub/b"]}
