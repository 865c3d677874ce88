"""Least-privilege roots: the narrowest roots allowing the required checks, and why."""

from __future__ import annotations

import json
import os
import posixpath
from pathlib import Path

import pytest
from conftest import Layout, can_hardlink
from conftest import run_cli as run
from hypothesis import given
from hypothesis import strategies as st

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.exposure import exposure
from localfs_explorer.fs import VirtualFS
from localfs_explorer.review.suggest import SuggestError, exposure_delta, parse_requirement
from localfs_explorer.servers.gee_sweet.suggest import (
    requirements_from_calls,
    requirements_from_session,
    suggest_roots,
)


def test_parse_requirement():
    assert parse_requirement("write:/d/x").op == "write"
    assert parse_requirement("read_write:/d/x").path == "/d/x"
    assert parse_requirement("/d/x").op == "read"
    for bad in ("delete:/x", "read:", "read:/a\0b"):
        with pytest.raises(SuggestError):
            parse_requirement(bad)


def test_deepest_directories_and_nested_ones_merged(layout: Layout):
    (layout.data / "sub" / "deep").mkdir()
    policy = layout.policy(LOCAL_FILE_ACCESS="full")
    s = suggest_roots([
        f"read:{layout.data / 'sub' / 'notes.txt'}",
        f"read:{layout.data / 'sub' / 'deep'}",  # a directory: it is its own root
        f"write:{layout.outside / 'new' / 'later' / 'out.csv'}",  # missing dirs: nearest one
    ], policy, delta=False)
    assert s.roots == [str(layout.outside), str(layout.data / "sub")]
    assert s.ok and not [w for w in s.warnings if "nothing narrower" in w]
    # The process environment sets LOCAL_FILE_ACCESS here, and wins over any .env: said.
    assert any("process environment" in w for w in s.warnings)
    assert s.settings == {"LOCAL_FILE_ACCESS": "roots",
                          "LOCAL_FILE_ROOTS": f"{layout.outside}:{layout.data / 'sub'}"}
    assert {c.root: len(c.covers) for c in s.choices} == {str(layout.outside): 1,
                                                           str(layout.data / "sub"): 2}


def test_the_servers_own_files_and_their_neighbours_are_refused(layout: Layout):
    policy = layout.policy(LOCAL_FILE_ACCESS="full")
    s = suggest_roots([f"read:{layout.app / 'token.json'}", f"write:{layout.app / 'out.txt'}",
                       f"read:{layout.data / 'report.csv'}"], policy, delta=False)
    assert s.roots == [str(layout.data)]
    why = {u.requirement.path: u.why for u in s.unmet}
    assert "Nothing can allow this" in why[str(layout.app / "token.json")]
    assert "one of the server's own files" in why[str(layout.app / "out.txt")]
    assert not s.ok


def test_a_root_holding_a_hardlink_of_a_deny_listed_file_is_refused(layout: Layout):
    if not can_hardlink(layout.base):
        pytest.skip("no hardlinks on this filesystem")
    os.link(layout.app / "token.json", layout.data / "sub" / "copy.json")
    policy = layout.policy(LOCAL_FILE_ACCESS="full")
    s = suggest_roots([f"read:{layout.data / 'sub' / 'notes.txt'}",
                       f"read:{layout.data / 'report.csv'}"], policy, delta=False)
    assert str(layout.data) not in s.roots and str(layout.data / "sub") not in s.roots
    assert s.unmet and all("copy.json" in u.why for u in s.unmet)
    assert s.settings == {"LOCAL_FILE_ACCESS": "off"}


def test_home_only_when_nothing_narrower_works(layout: Layout):
    (layout.home / "notes.md").write_text("n")
    (layout.home / "docs").mkdir()
    (layout.home / "docs" / "a.md").write_text("a")
    policy = layout.policy(LOCAL_FILE_ACCESS="full")
    narrow = suggest_roots([f"read:{layout.home / 'docs' / 'a.md'}"], policy, delta=False)
    assert narrow.roots == [str(layout.home / "docs")]
    assert not [w for w in narrow.warnings if "nothing narrower" in w]
    wide = suggest_roots([f"read:{layout.home / 'notes.md'}"], policy, delta=False)
    assert wide.roots == [str(layout.home)]
    assert any("nothing narrower" in w for w in wide.warnings)


def test_a_separator_in_a_directory_name_cannot_be_a_root(layout: Layout):
    odd = layout.data / "a:b"
    odd.mkdir()
    (odd / "x.txt").write_text("x")
    s = suggest_roots([f"read:{odd / 'x.txt'}"], layout.policy(LOCAL_FILE_ACCESS="full"),
                      delta=False)
    assert not s.roots and "separate entries" in s.unmet[0].why


def test_requirements_from_calls_and_sessions(layout: Layout, tmp_path: Path):
    (layout.data / "up").mkdir()
    (layout.data / "up" / "one.txt").write_text("1")
    calls = [
        {"name": "upload_local_file",
         "arguments": {"local_path": str(layout.data / "report.csv"), "parent_folder_id": "F"}},
        {"name": "upload_local_folder",
         "arguments": {"local_path": str(layout.data / "up"), "parent_folder_id": "F"}},
    ]
    policy = layout.roots(layout.outside)  # the current roots don't matter
    reqs = requirements_from_calls(policy, calls)
    paths = {r.path for r in reqs}
    assert str(layout.data / "report.csv") in paths
    assert any(p.endswith("one.txt") for p in paths)  # the folder was walked
    s = suggest_roots(reqs, policy, delta=False)
    assert s.ok and s.roots == [str(layout.data)]
    session = tmp_path / "session.json"
    session.write_text(json.dumps([[calls[0]]]))
    assert {r.path for r in requirements_from_session(policy, str(session))} == {
        str(layout.data / "report.csv")}
    jsonl = tmp_path / "bad.jsonl"
    jsonl.write_text("{not json\n")
    with pytest.raises(SuggestError, match=r"^[^ ]*bad\.jsonl:1: not valid JSON"):
        requirements_from_calls(policy, str(jsonl))


def test_exposure_delta_against_the_current_roots(layout: Layout):
    current = layout.roots()  # all of /data
    s = suggest_roots([f"read:{layout.data / 'sub' / 'notes.txt'}"], current)
    assert s.roots == [str(layout.data / "sub")]
    assert s.delta is not None
    assert s.delta.gained_read == 0
    assert str(layout.data / "report.csv") in s.delta.lost_examples
    assert s.delta.lost_read == 1  # report.csv (notes.txt and sub stay... sub is the root)
    (layout.data / "x.pem").write_text("k")
    delta = exposure_delta(current, s.policy)
    assert [f.path for f in delta.findings_lost] == [str(layout.data / "x.pem")]


def test_export_plan_is_masked_and_writable(layout: Layout, tmp_path: Path):
    env_file = layout.app / ".env"
    original = env_file.read_text()
    policy = resolve_policy(load_env(str(env_file), overrides={"HOME": str(layout.home)}),
                            cwd=str(layout.app), package_dir=str(layout.app))
    s = suggest_roots([f"read:{layout.data / 'report.csv'}"], policy,
                      env_file=str(env_file), delta=False)
    assert f"+LOCAL_FILE_ROOTS={layout.data}" in s.diff
    assert "do-not-show" not in s.diff and "do-not-show" not in json.dumps(s.to_dict())
    out = tmp_path / "new.env"
    s.plan.write(out)
    text = out.read_text()
    assert "CREDENTIALS_CONFIG=do-not-show" in text and "LOCAL_FILE_ACCESS=roots" in text
    assert env_file.read_text() == original


def test_suggest_cli(layout: Layout, tmp_path: Path):
    env = ["--set", f"HOME={layout.home}", "--cwd", str(layout.app), "--package-dir",
           str(layout.app), "--set", "LOCAL_FILE_ACCESS=full"]
    code, out, err = run("suggest", *env, "--require", f"read:{layout.data / 'report.csv'}")
    assert code == 0, err
    assert f"  {layout.data}    for read:{layout.data / 'report.csv'}" in out
    assert f"+LOCAL_FILE_ROOTS={layout.data}" in out
    code, out, _ = run("suggest", *env, "--json", "--no-delta",
                       "--require", f"read:{layout.app / 'token.json'}")
    assert code == 1
    data = json.loads(out)
    assert data["roots"] == [] and data["unmet"][0]["requirement"]["op"] == "read"
    code, _, err = run("suggest", *env, "--require", "delete:/x")
    assert code == 2 and "expected OP:PATH" in err and "Traceback" not in err
    code, _, err = run("suggest", *env)
    assert code == 2 and "nothing is required" in err
    # Writing the .env: an existing output needs --force and keeps a backup.
    dest = tmp_path / "out.env"
    dest.write_text("OLD=1\n")
    req = ["--require", f"read:{layout.data / 'report.csv'}", "--no-delta"]
    code, _, err = run("suggest", *env, *req, "-o", str(dest))
    assert code == 2 and "already exists" in err and dest.read_text() == "OLD=1\n"
    code, _, err = run("suggest", *env, *req, "-o", str(dest), "--force")
    assert code == 0 and "LOCAL_FILE_ROOTS" in dest.read_text()
    assert (tmp_path / "out.env.bak").read_text() == "OLD=1\n"


# --- property tests on random trees --------------------------------------------------------

NAMES = st.sampled_from(["a", "b", "c", "d"])


@st.composite
def trees(draw):
    """A random tree of directories and files, and some of its files as requirements."""
    dirs = draw(st.lists(st.lists(NAMES, min_size=1, max_size=3), min_size=1, max_size=8))
    fs = VirtualFS(home="/home/u", cwd="/srv")
    fs.mkdir("/srv")
    files = []
    for parts in dirs:
        d = "/w/" + "/".join(parts)
        if fs.lstat("/").st_mode and not fs.is_dir(d):
            _mkdirs(fs, d)
        name = draw(st.sampled_from(["f1", "f2"]))
        path = f"{d}/{name}"
        if not fs.exists(path):
            fs.add_file(path)
        files.append(path)
    required = draw(st.lists(st.sampled_from(sorted(set(files))), min_size=1, max_size=4,
                             unique=True))
    ops = draw(st.lists(st.sampled_from(["read", "write", "read_write"]),
                        min_size=len(required), max_size=len(required)))
    return fs, [f"{op}:{p}" for op, p in zip(ops, required, strict=True)]


def _mkdirs(fs: VirtualFS, d: str) -> None:
    parts = d.strip("/").split("/")
    for i in range(1, len(parts) + 1):
        sub = "/" + "/".join(parts[:i])
        if not fs.is_dir(sub):
            fs.mkdir(sub)


def _all_dirs(fs: VirtualFS, top: str) -> list[str]:
    out, stack = [], [top]
    while stack:
        d = stack.pop()
        out.append(d)
        stack.extend(f"{d}/{n}" for n in fs.listdir(d) if fs.is_dir(f"{d}/{n}"))
    return out


def _with_roots(fs: VirtualFS, roots: list[str]):
    env = load_env(None, overrides={"LOCAL_FILE_ACCESS": "roots",
                                    "LOCAL_FILE_ROOTS": ":".join(roots)})
    return resolve_policy(env, fs=fs, cwd="/srv", package_dir="/srv")


def _allows_all(policy, required: list[str]) -> bool:
    for text in required:
        op, _, path = text.partition(":")
        if not policy.check(path, op).allowed:
            return False
    return True


@given(trees(), st.randoms(use_true_random=False))
def test_suggestion_properties(tree, rnd):
    fs, required = tree
    current = resolve_policy(load_env(None, overrides={"LOCAL_FILE_ACCESS": "full"}),
                             fs=fs, cwd="/srv", package_dir="/srv")
    s = suggest_roots(required, current, delta=False)
    assert s.ok, s.unmet
    # 1. Every required call passes under the suggestion (the engine says so).
    assert _allows_all(_with_roots(fs, s.roots), required)
    # 2. No root can be replaced by one of its subdirectories.
    for root in s.roots:
        for sub in _all_dirs(fs, root):
            if sub == root:
                continue
            others = [r for r in s.roots if r != root] + [sub]
            assert not _allows_all(_with_roots(fs, others), required), (root, sub)
    # 3. Its exposure is within that of any other covering set drawn from the tree:
    #    for each required path, any existing ancestor directory of it.
    mine = exposure(_with_roots(fs, s.roots), ["/"], keep_paths=True)
    for _ in range(3):
        alt = []
        for text in required:
            path = text.partition(":")[2]
            ancestors = []
            d = posixpath.dirname(path)
            while True:
                ancestors.append(d)
                if d == "/":
                    break
                d = posixpath.dirname(d)
            alt.append(rnd.choice(ancestors))
        alt_policy = _with_roots(fs, sorted(set(alt)))
        assert _allows_all(alt_policy, required)
        theirs = exposure(alt_policy, ["/"], keep_paths=True)
        assert mine.readable is not None and theirs.readable is not None
        assert mine.readable <= theirs.readable
        assert (mine.writable or frozenset()) <= (theirs.writable or frozenset())


def test_suggest_cli_from_a_calls_file(layout: Layout, tmp_path: Path):
    calls = tmp_path / "calls.jsonl"
    calls.write_text(json.dumps({"name": "upload_local_file", "arguments": {
        "parent_folder_id": "F", "local_path": str(layout.data / "sub" / "notes.txt")}}) + "\n")
    code, out, err = run("suggest", "--set", f"HOME={layout.home}", "--cwd", str(layout.app),
                         "--set", "LOCAL_FILE_ACCESS=roots",
                         "--set", f"LOCAL_FILE_ROOTS={layout.data}", "--calls", str(calls))
    assert code == 0, err
    assert f"  {layout.data / 'sub'}    for read:{layout.data / 'sub' / 'notes.txt'}" in out
    assert "readable: +0 -1" in out  # report.csv stops being reachable


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_dashboard_suggests_roots_with_a_masked_diff(layout: Layout):
    from ui_support import SECRET, text_of, write_roots_env

    from localfs_explorer.ui import Explorer

    app = Explorer(cwd=str(layout.app), debounce=0)
    server = app.panel("server")
    server.env_path.value = str(write_roots_env(layout.app, layout.data, layout.home))
    server.env_load.click()
    panel = app.show("exposure")
    panel.required.value = f"read:{layout.data / 'sub' / 'notes.txt'}\n\n"
    panel.suggest_button.click()
    view = panel.suggestion_view.value
    assert panel.suggestion is not None and panel.suggestion.roots == [str(layout.data / "sub")]
    assert f"-LOCAL_FILE_ROOTS={layout.data}" in text_of(view)
    assert f"+LOCAL_FILE_ROOTS={layout.data / 'sub'}" in text_of(view)
    assert SECRET not in view and "readable: +0 -1" in text_of(view)
    panel.required.value = "delete:/x"
    panel.suggest_button.click()
    assert "expected OP:PATH" in text_of(panel.suggestion_view.value)
