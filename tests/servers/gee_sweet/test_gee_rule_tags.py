"""The tags at the rules mirrored from mcp-gee-sweet name its release and real functions."""

from __future__ import annotations

import ast
import importlib.util
from importlib import metadata
from pathlib import Path

import pytest
from rule_tags import malformed_tags, rule_tags

from localfs_explorer.servers.gee_sweet.profile import DEFAULT_PROFILE

#: The rules of the server's policy module that the check and the resolution mirror: each
#: must be named by a tag where the explorer reproduces it.
POLICY_RULES = {
    "local_files._tripped", "local_files._check", "local_files._realpath",
    "local_files._is_denied", "local_files._deny_stats", "local_files.many_checks",
    "local_files._deny_list_paths", "local_files._deny_list_dirs",
    "local_files.resolve_policy", "local_files._config_error", "local_files._off_message",
}


def test_every_tag_in_the_package_reads_as_one() -> None:
    assert malformed_tags() == []


def test_the_tags_name_the_release_the_engine_reproduces() -> None:
    tags = rule_tags(server="mcp-gee-sweet")
    assert {t.release for t in tags} == {DEFAULT_PROFILE.server_version}


def test_each_rule_of_the_servers_policy_is_tagged_where_it_is_mirrored() -> None:
    tags = rule_tags(server="mcp-gee-sweet")
    assert POLICY_RULES - {t.where for t in tags} == set()
    assert [t for t in tags if len(t.why.split()) < 4] == []


def test_a_tag_without_its_reason_or_release_is_reported(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "rules.py").write_text(
        "x = 1  # mirrors mcp-gee-sweet 0.9.5 local_files._check: off refuses first\n"
        "# mirrors mcp-gee-sweet local_files._check\n"
        "# mirrors server-filesystem 2026.8.31 lib.js validatePath: realpath checked too\n",
        encoding="utf-8")
    tags = rule_tags(package)
    assert [(t.server, t.release, t.where, t.function, t.line) for t in tags] == [
        ("mcp-gee-sweet", "0.9.5", "local_files._check", None, 1),
        ("server-filesystem", "2026.8.31", "lib.js", "validatePath", 3),
    ]
    assert malformed_tags(package) == ["pkg/rules.py:2: # mirrors mcp-gee-sweet "
                                       "local_files._check"]


@pytest.mark.real
def test_each_tag_names_a_function_of_the_installed_release() -> None:
    spec = importlib.util.find_spec("mcp_gee_sweet")
    if spec is None or spec.origin is None:
        pytest.skip("mcp-gee-sweet is not installed (it needs Python 3.11+)")
    assert metadata.version("mcp-gee-sweet") == DEFAULT_PROFILE.server_version
    source = Path(spec.origin).parent
    missing = []
    for tag in rule_tags(server="mcp-gee-sweet"):
        module, function = tag.where.rsplit(".", 1)
        tree = ast.parse((source / f"{module.replace('.', '/')}.py").read_text(encoding="utf-8"))
        defined = {node.name for node in tree.body
                   if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
        if function not in defined:
            missing.append(f"{tag.module}:{tag.line}: {tag.where}")
    assert missing == []
