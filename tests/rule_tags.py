"""The ``# mirrors <server> <release> <where>: <why>`` tags at the rules the explorer copies.

Each tag names the real server's release, its file (a Python module path such as
``local_files._check`` or a JavaScript file and function such as ``lib.js validatePath``;
``index.js (startup)`` is a file's top-level code) and why the rule is there. The tests
read them from the package's source, so a tag naming a function the release doesn't have,
or another release than the one modelled, fails instead of misleading the next reader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "localfs_explorer"

TAG = re.compile(
    r"# mirrors (?P<server>mcp-gee-sweet|server-filesystem) (?P<release>\S+) "
    r"(?P<where>[\w.-]+)(?: (?P<function>\w+|\(startup\)))?:(?: (?P<why>\S.*)|$)"
)
#: A comment line carrying on the one above it (a tag's reason may wrap).
_MORE = re.compile(r"^\s*# (?!mirrors )(\S.*)")


@dataclass(frozen=True)
class RuleTag:
    """One tag: where it is written, and what it names."""

    module: str
    line: int
    server: str
    release: str
    where: str
    function: str | None
    why: str


def rule_tags(package: Path = PACKAGE, server: str | None = None) -> list[RuleTag]:
    """Every tag in the package's source, optionally only those naming ``server``."""
    found = []
    for path in sorted(package.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, text in enumerate(lines, 1):
            if "# mirrors " not in text:
                continue
            match = TAG.search(text)
            if match is None:
                continue
            why = [match["why"]] if match["why"] else []
            for following in lines[number:]:
                more = _MORE.match(following)
                if more is None:
                    break
                why.append(more[1])
            tag = RuleTag(str(path.relative_to(package.parent)), number, match["server"],
                          match["release"], match["where"], match["function"], " ".join(why))
            if server is None or tag.server == server:
                found.append(tag)
    return found


def malformed_tags(package: Path = PACKAGE) -> list[str]:
    """Lines that start a tag naming a known server but don't parse as one."""
    bad = []
    for path in sorted(package.rglob("*.py")):
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"# mirrors (mcp-gee-sweet|server-filesystem)", text) and not (
                    TAG.search(text)):
                bad.append(f"{path.relative_to(package.parent)}:{number}: {text.strip()}")
    return bad
