"""Each known way to get the check wrong is caught by a scenario that fails under it.

The mutations are the ones the project's architecture notes name: containment checked
before realpath, string prefixes instead of path components, deny-list entries compared
as strings, and a stat of the path before the check. Each test breaks the engine in that
one way and requires the matching scenario (which passes on the real engine, see
test_check.py) to fail.
"""

from __future__ import annotations

import posixpath

import policy_scenarios as scenarios
import pytest
from conftest import can_hardlink

from localfs_explorer.servers.gee_sweet.check import Decision, DenyHit
from localfs_explorer.servers.gee_sweet.check import tables as tables_module
from localfs_explorer.servers.gee_sweet.check import verdict as check_module


def test_containment_before_realpath_is_caught(layout, monkeypatch):
    real_verdict = check_module._verdict

    def lexical_first(compiled, path, op, over_http, resolved, identity, batch=False):
        # The mutant judges containment on the path as spelled (normalised lexically)
        # and only then trusts it: symlinks inside a root are never followed.
        absolute = path if path.startswith("/") else posixpath.join(compiled.cwd, path)
        return real_verdict(compiled, path, op, over_http, posixpath.normpath(absolute), identity,
                            batch)

    monkeypatch.setattr(check_module, "_verdict", lexical_first)
    with pytest.raises(AssertionError, match="symlink out of the root"):
        scenarios.symlink_in_root_pointing_out(layout)


def test_string_prefix_containment_is_caught(layout, monkeypatch):
    # The mutant's prefixes lack the trailing separator: a bare str.startswith test.
    monkeypatch.setattr(tables_module, "containment_prefixes", lambda dirs: tuple(dirs))
    with pytest.raises(AssertionError, match="sibling sharing the root's prefix"):
        scenarios.prefix_sibling_is_outside(layout)


def test_deny_list_compared_as_strings_is_caught(layout, monkeypatch):
    if not can_hardlink(layout.data):
        pytest.skip("this filesystem has no hardlinks")

    def by_string(compiled, resolved, identity, deny_ids=None):
        if resolved in compiled.deny_paths:
            return DenyHit(setting="TOKEN_PATH", how="same path")
        return None

    monkeypatch.setattr(check_module, "_deny_hit", by_string)
    with pytest.raises(AssertionError, match="hardlink to the token"):
        scenarios.hardlink_to_token_is_denied(layout)


def test_stat_before_check_is_caught(layout, monkeypatch):
    real_check = check_module._check

    def stat_first(compiled, path, op, over_http=None, batch=False):
        # The mutant keeps the old "No file found" pre-check ahead of the policy.
        if isinstance(path, str) and not compiled.fs.exists(path):
            return Decision(path=path, op=op, allowed=False, reason="invalid",
                            message=f"No file found at {path}", resolved=None,
                            _policy=compiled.policy, _over_http=False, _deny_hit=None,
                            _batch=batch)
        return real_check(compiled, path, op, over_http, batch)

    monkeypatch.setattr(check_module, "_check", stat_first)
    with pytest.raises(AssertionError, match="reveals whether the path exists"):
        scenarios.refusal_reads_the_same_whether_or_not_the_path_exists(layout)
