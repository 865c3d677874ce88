"""Paths of thousands of components: answered by the single and the batch check alike.

The server resolves such a path part by part in a loop and answers it; the explorer must
too. No code path of the check may call itself once per component (the recursion limit
would turn the answer into an error): a path of 4,000 components is checked inside a
root, outside it, one by one and in a batch, with explanations.
"""

from __future__ import annotations

import json
import sys

import pytest

from localfs_explorer import resolve_policy
from localfs_explorer.cli.main import main

DEPTH = 4_000


@pytest.fixture
def deep(tmp_path):
    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    (tmp_path / "other").mkdir()
    policy = resolve_policy(_env(root), cwd=str(tmp_path))
    inside = str(root) + "/a" * DEPTH + "/file.txt"
    outside = str(tmp_path / "other") + "/a" * DEPTH + "/file.txt"
    return policy, root, inside, outside


def _env(root):
    from localfs_explorer import ServerEnv

    return ServerEnv(values={"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(root)})


def _fields(d) -> tuple:
    return (d.allowed, d.reason, d.message, d.resolved)


def test_the_paths_are_deeper_than_any_recursion_would_go(deep) -> None:
    _policy, _root, inside, outside = deep
    assert inside.count("/") > 2 * sys.getrecursionlimit()
    assert outside.count("/") > 2 * sys.getrecursionlimit()


@pytest.mark.parametrize("op", ["read", "write"])
def test_a_deep_path_is_answered_alike_single_and_batch(deep, op) -> None:
    policy, _root, inside, outside = deep
    single_in, single_out = policy.check(inside, op), policy.check(outside, op)
    assert single_in.allowed and single_in.resolved == inside
    assert single_out.reason == "outside_roots"
    assert single_out.message.startswith(f"{outside} is outside this server's LOCAL_FILE_ROOTS")
    with policy.many_checks() as batch:
        batch_in, batch_out = batch.check(inside, op), batch.check(outside, op)
        # Asked again in the same batch (the parents are cached now) and beside them.
        again = batch.check(inside, op)
        sibling = batch.check(inside.rsplit("/", 1)[0] + "/other.txt", op)
    assert _fields(batch_in) == _fields(single_in) == _fields(again)
    assert _fields(batch_out) == _fields(single_out)
    assert sibling.allowed
    # The explanations walk the same depth (and say nothing of a difference: none).
    for d in (single_in, single_out, batch_in, batch_out):
        steps = [s.step for s in d.trace]
        assert "resolve" in steps and "single-vs-batch" not in steps
        assert d.to_dict()["resolved"] == d.resolved


def test_a_deep_directory_listing_is_decided_entry_by_entry_as_the_batch_would(deep) -> None:
    policy, _root, inside, _outside = deep
    directory = inside.rsplit("/", 1)[0]
    with policy.many_checks() as batch:
        verdicts = batch.check_entries(directory, ["x.txt", "y.txt"])
        assert _fields(verdicts.decision("x.txt")) == _fields(
            policy.check(directory + "/x.txt"))


def test_check_answers_a_deep_path_on_the_command_line(deep, capsys) -> None:
    _policy, root, inside, outside = deep
    for batch in ([], ["--batch"]):
        code = main(["check", "--set", "LOCAL_FILE_ACCESS=roots",
                     "--set", f"LOCAL_FILE_ROOTS={root}", "--json", *batch, inside, outside])
        rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert code == 1
        assert [(r["allowed"], r["reason"]) for r in rows] == [
            (True, "allowed"), (False, "outside_roots")]
