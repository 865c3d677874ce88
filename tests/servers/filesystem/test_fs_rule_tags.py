"""The tags at the rules mirrored from the filesystem server name its releases and code."""

from __future__ import annotations

import re

import pytest
from fs_npm import (  # noqa: F401
    fixture_fs_new_dist,
    fixture_fs_old_dist,
    fixture_fs_server_dist,
)
from rule_tags import rule_tags

from localfs_explorer.servers.filesystem.policy import DEFAULT_VERSION, VERSIONS

#: The server's path rules, each of which must be tagged where the explorer mirrors it.
RULES = {
    ("lib.js", "validatePath"), ("lib.js", "resolveRelativePathAgainstAllowedDirectories"),
    ("lib.js", "resolveUnicodeEquivalentPath"),
    ("path-validation.js", "isPathWithinAllowedDirectories"),
    ("path-utils.js", "normalizePath"), ("roots-utils.js", "getValidRootDirectories"),
    ("index.js", "(startup)"), ("index.js", "updateAllowedDirectoriesFromRoots"),
}
#: The fixture holding each modelled release's ``dist`` folder.
DISTS = {DEFAULT_VERSION: "fs_server_dist", "2.0.1": "fs_new_dist", "2026.7.10": "fs_old_dist"}


def test_the_tags_name_modelled_releases_and_cover_the_path_rules() -> None:
    tags = rule_tags(server="server-filesystem")
    assert {t.release for t in tags} <= set(VERSIONS)
    assert RULES - {(t.where, t.function) for t in tags if t.release == DEFAULT_VERSION} == set()
    assert all(t.function for t in tags), [t for t in tags if not t.function]


@pytest.mark.slow
@pytest.mark.real
def test_each_tag_names_a_file_and_function_of_its_release(
        request: pytest.FixtureRequest) -> None:
    missing = []
    for tag in rule_tags(server="server-filesystem"):
        dist = request.getfixturevalue(DISTS[tag.release])
        script = dist / tag.where
        if not script.is_file():
            missing.append(f"{tag.module}:{tag.line}: no {tag.where} in {tag.release}")
            continue
        if tag.function == "(startup)":
            continue
        text = script.read_text(encoding="utf-8")
        name = re.escape(str(tag.function))
        if not re.search(rf"function {name}\(|\.{name} = ", text):
            missing.append(f"{tag.module}:{tag.line}: no {tag.function} in {tag.where} "
                           f"{tag.release}")
    assert missing == []
