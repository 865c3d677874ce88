"""The exposure inventory: findings from the engine's verdicts on every walked entry."""

from __future__ import annotations

import json
import os
import posixpath
import re
import threading
from pathlib import Path

import pytest
from conftest import Layout, can_hardlink
from conftest import run_cli as run
from hypothesis import given
from hypothesis import strategies as st
from random_trees import add_entry

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.exposure import (
    FINDING_COLUMNS,
    SEVERITIES,
    ExposureError,
    Inventory,
    exposure,
    progress_line,
    severity_at_least,
)
from localfs_explorer.fs import load_fs


def kinds(inv: Inventory) -> set[tuple[str, str, str]]:
    """(severity, kind, path) of every finding."""
    return {(f.severity, f.kind, f.path) for f in inv.findings}


def paths_of(inv: Inventory, kind: str) -> set[str]:
    return {f.path for f in inv.findings if f.kind == kind}


def test_git_hook_in_a_root_is_critical_and_outside_it_is_not(layout: Layout):
    hook = layout.data / "repo" / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(parents=True)
    hook.write_text("#!/bin/sh\n")
    other = layout.outside / ".git" / "hooks" / "post-merge"
    other.parent.mkdir(parents=True)
    other.write_text("#!/bin/sh\n")
    inv = exposure(layout.roots())
    # Reported once for the hooks directory, naming the writable hook in it.
    assert ("critical", "executed", str(hook.parent)) in kinds(inv)
    assert not [f for f in inv.findings if str(other.parent) in f.path]
    finding = next(f for f in inv.findings if f.path == str(hook.parent))
    assert finding.op == "write" and "git runs the hooks" in finding.why
    assert f"1 writable file in it (first: {hook})" in finding.why
    assert "LOCAL_FILE_ROOTS" in finding.fix and finding.root == str(layout.data)


def test_executed_files_under_one_directory_are_one_finding(layout: Layout):
    site = layout.data / "venv" / "lib" / "site-packages" / "pkg"
    site.mkdir(parents=True)
    for name in ("a.py", "b.py", "c.py"):
        (site / name).write_text("")
    (layout.data / "repo" / ".git").mkdir(parents=True)
    (layout.data / "repo" / ".git" / "config").write_text("")
    inv = exposure(layout.roots())
    executed = {f.path: f for f in inv.findings if f.kind == "executed"}
    assert set(executed) == {str(site.parent), str(layout.data / "repo" / ".git" / "config")}
    assert "3 writable files in it" in executed[str(site.parent)].why


def test_readable_credentials_are_high_only_when_reachable(layout: Layout):
    (layout.data / "server.pem").write_text("key")
    (layout.home / ".ssh").mkdir()
    (layout.home / ".ssh" / "id_ed25519").write_text("key")
    inv = exposure(layout.roots())
    assert ("high", "credential", str(layout.data / "server.pem")) in kinds(inv)
    # The key at home exists but the root doesn't reach it: no finding.
    assert str(layout.home / ".ssh" / "id_ed25519") not in paths_of(inv, "credential")
    # With the home as a root it is reachable, and found.
    inv = exposure(layout.roots(layout.data, layout.home))
    assert str(layout.home / ".ssh" / "id_ed25519") in paths_of(inv, "credential")


def test_a_hardlink_of_a_credential_in_a_root_is_high(layout: Layout):
    if not can_hardlink(layout.base):
        pytest.skip("no hardlinks on this filesystem")
    (layout.home / ".ssh").mkdir()
    key = layout.home / ".ssh" / "id_rsa"
    key.write_text("key")
    alias = layout.data / "sub" / "harmless.txt"
    os.link(key, alias)
    inv = exposure(layout.roots())
    found = [f for f in inv.findings if f.kind == "credential-alias"]
    assert [f.path for f in found] == [str(alias)]
    assert found[0].severity == "high" and str(key) in found[0].why
    # Both names inside the root: the credential and its alias, counted as one file.
    os.link(key, layout.data / "id_rsa.bak")
    inv = exposure(layout.roots(layout.data, layout.home))
    assert {str(alias), str(layout.data / "id_rsa.bak")} <= paths_of(inv, "credential-alias") | \
        paths_of(inv, "credential")


def test_deny_listed_file_inside_a_root_is_medium(layout: Layout):
    inv = exposure(layout.roots(layout.data, layout.app))
    denied = paths_of(inv, "deny-in-root")
    assert {str(layout.app / "token.json"), str(layout.app / ".env")} <= denied
    assert all(f.severity == "medium" for f in inv.findings if f.kind == "deny-in-root")
    # The same policy without the app directory as a root has none.
    assert not paths_of(exposure(layout.roots()), "deny-in-root")


def test_symlinked_and_overlapping_roots_are_medium(layout: Layout):
    link = layout.base / "data-link"
    link.symlink_to(layout.data)
    inv = exposure(layout.roots(link, layout.data / "sub"))
    assert ("medium", "symlink-root", str(link)) in kinds(inv)
    assert ("medium", "overlapping-roots", str(layout.data / "sub")) in kinds(inv)
    assert not {f for f in inv.findings if f.kind == "symlink-root" and f.path != str(link)}


def test_symlinks_are_checked_never_walked(layout: Layout):
    (layout.data / "escape").symlink_to(layout.outside)
    (layout.data / "alias.csv").symlink_to(layout.data / "report.csv")
    inv = exposure(layout.roots(), keep_paths=True)
    assert inv.readable is not None
    # Nothing below the escaping link was walked or allowed.
    assert not any(p.startswith(str(layout.outside)) for p in inv.readable)
    # The alias is the same file: report.csv and notes.txt, two files in all.
    summary = inv.roots[0]
    assert summary.readable_files == 2
    assert summary.readable_bytes == len("a,b\n") + len("hi")


def test_every_walked_verdict_is_the_engines(layout: Layout):
    (layout.data / "escape").symlink_to(layout.outside / "other.txt")
    (layout.data / "token-link").symlink_to(layout.app / "token.json")
    (layout.data / "deep" / "er").mkdir(parents=True)
    (layout.data / "deep" / "er" / "x.txt").write_text("x")
    policy = layout.roots(layout.data, layout.app)
    expected_read, expected_write = set(), set()
    for top in (layout.data, layout.app):
        for dirpath, dirnames, filenames in os.walk(top):
            for name in dirnames + filenames:
                path = os.path.join(dirpath, name)
                r, w = policy.check_read(path), policy.check_write(path)
                if r.allowed:
                    expected_read.add(r.resolved)
                if w.allowed:
                    expected_write.add(w.resolved)
    for sizes in (True, False):
        inv = exposure(policy, keep_paths=True, sizes=sizes)
        assert inv.readable == expected_read
        assert inv.writable == expected_write
    fast, sized = (exposure(policy, sizes=s) for s in (False, True))
    assert kinds(fast) - {k for k in kinds(fast) if k[1] in ("counts", "largest-directory")} == \
        kinds(sized) - {k for k in kinds(sized) if k[1] in ("counts", "largest-directory")}


def test_full_mode_flags_shell_startup_files_even_when_missing(layout: Layout):
    (layout.home / ".bashrc").write_text("# rc\n")
    policy = layout.policy(LOCAL_FILE_ACCESS="full")
    inv = exposure(policy)
    executed = {f.path: f for f in inv.findings if f.kind == "executed"}
    assert str(layout.home / ".bashrc") in executed
    assert "does not exist yet" in executed[str(layout.home / ".profile")].why
    assert str(layout.home / ".ssh" / "authorized_keys") not in executed  # no ~/.ssh here
    assert "LOCAL_FILE_ACCESS=roots" in executed[str(layout.home / ".bashrc")].fix
    # The default scope of full mode is the home and the startup directory.
    assert inv.walked == [str(layout.home), str(layout.app)]
    # Roots mode over the data directory reaches none of them.
    assert not paths_of(exposure(layout.roots()), "executed")


def test_server_code_is_critical_when_writable(layout: Layout):
    pkg = layout.app / "src" / "server"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "README.txt").write_text("")
    venv_bin = layout.app / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "server-entry").write_text("#!/usr/bin/env python\n")
    (layout.data / "bin").mkdir()
    (layout.data / "bin" / "tool").write_text("")
    inv = exposure(layout.roots(layout.app, layout.data))
    executed = paths_of(inv, "executed")
    assert str(pkg / "__init__.py") in executed
    assert str(venv_bin) in executed
    assert str(pkg / "README.txt") not in executed
    assert str(layout.data / "bin" / "tool") not in executed  # not the server's


def test_nothing_is_reachable_when_off_or_over_the_tripwire(layout: Layout):
    (layout.home / "notes.md").write_text("n")
    off = exposure(layout.policy(LOCAL_FILE_ACCESS="off"), keep_paths=True)
    assert off.readable == frozenset() and off.writable == frozenset()
    assert not off.at_least("high")
    tripped = exposure(layout.policy(), over_http=True, keep_paths=True)  # defaulted full
    assert tripped.readable == frozenset()
    plain = exposure(layout.policy(), over_http=False, keep_paths=True)
    assert plain.readable == {str(layout.home / "notes.md")}


def test_limits_cancel_and_progress(layout: Layout):
    for i in range(30):
        (layout.data / f"f{i}.txt").write_text("")
    inv = exposure(layout.roots(), max_entries=10)
    assert not inv.complete and inv.entries == 11
    assert "stopped after 10 entries" in inv.stopped[0]
    deep = exposure(layout.roots(), max_depth=0)
    assert any("deeper than 0 levels" in s for s in deep.stopped)
    assert str(layout.data / "sub" / "notes.txt") not in (
        exposure(layout.roots(), max_depth=0, keep_paths=True).readable or ())

    seen = []
    from localfs_explorer.servers.gee_sweet.exposure import walker as module

    module._InventoryWalker.PROGRESS_EVERY = 4
    try:
        exposure(layout.roots(), progress=seen.append)
        event = threading.Event()
        event.set()
        cancelled = exposure(layout.roots(), cancel=event)
    finally:
        module._InventoryWalker.PROGRESS_EVERY = 4096
    assert seen and seen[-1].entries >= seen[0].entries and seen[0].current
    assert cancelled.cancelled and not cancelled.complete
    assert cancelled.stopped[0].startswith("cancelled after ")
    assert cancelled.entries < exposure(layout.roots()).entries


def test_scope_adds_to_the_default_and_must_be_a_directory(layout: Layout):
    policy = layout.policy(LOCAL_FILE_ACCESS="full")
    inv = exposure(policy, [str(layout.outside)], keep_paths=True)
    # The scope asked about comes first, then the default directories.
    assert inv.walked == [str(layout.outside), str(layout.home), str(layout.app)]
    assert str(layout.outside / "other.txt") in (inv.readable or ())
    # An outer scope is walked first and the default directories inside it once.
    wide = exposure(policy, [str(layout.base)])
    assert wide.walked == [str(layout.base)]
    assert {r.note for r in wide.roots if r.root == str(layout.home)} == {
        f"inside {layout.base}, counted there"}
    assert wide.entries == exposure(layout.policy(LOCAL_FILE_ACCESS="off"),
                                    [str(layout.base)]).entries
    with pytest.raises(ExposureError, match="not a directory"):
        exposure(policy, [str(layout.data / "report.csv")])
    with pytest.raises(ExposureError):
        exposure(policy, max_entries=0)


def _big_home_fs(files_in_home: int):
    from localfs_explorer.fs import VirtualFS

    fs = VirtualFS(home="/root", cwd="/app")
    fs.mkdir("/app")
    for i in range(files_in_home):
        fs.add_file(f"/root/cache/f{i}.bin")
    fs.add_file("/srv/project/.ssh/id_ed25519")
    fs.add_file("/srv/project/readme.md")
    fs.add_file("/srv/other/.aws/credentials")
    return fs


def test_the_scope_asked_about_is_walked_before_home_and_the_limit():
    fs = _big_home_fs(50)
    env = load_env(None, overrides={"LOCAL_FILE_ACCESS": "full"})
    policy = resolve_policy(env, fs=fs, cwd="/app")
    inv = exposure(policy, ["/srv/project"], max_entries=10, keep_paths=True)
    # The scope is walked whole before the home directory's 50 files stop the walk.
    assert inv.walked[0] == "/srv/project"
    assert "/srv/project/readme.md" in (inv.readable or ())
    assert "/srv/project/.ssh/id_ed25519" in paths_of(inv, "credential")
    project = next(r for r in inv.roots if r.root == "/srv/project")
    assert project.note is None and project.readable_files == 2
    assert not inv.complete and "stopped after 10 entries" in inv.stopped[0]
    assert "/srv/project" in inv.counts_by_root()
    # A scope nested in a default directory is walked once, on its own, first.
    nested = exposure(policy, ["/root/cache"], max_entries=1000)
    assert nested.walked == ["/root/cache", "/root", "/app"]
    assert nested.entries == exposure(policy, ["/root"], max_entries=1000).entries


def test_a_directory_the_limit_stopped_before_has_no_findings_counted():
    fs = _big_home_fs(0)
    for i in range(30):
        fs.add_file(f"/srv/big/f{i}.txt")
    env = load_env(None, overrides={"LOCAL_FILE_ACCESS": "full"})
    policy = resolve_policy(env, fs=fs, cwd="/app")
    inv = exposure(policy, ["/srv/big", "/srv/other", "/srv/project"], max_entries=10)
    notes = {r.root: r.note for r in inv.roots}
    assert notes["/srv/other"] == notes["/srv/project"] == (
        "not walked: the walk stopped before reaching it")
    assert inv.walked == ["/srv/big"]
    counted = inv.counts_by_root()
    assert "/srv/other" not in counted and "/srv/project" not in counted
    assert all(f.root in (None, "/srv/big") for f in inv.findings)
    summary = "\n".join(inv.summary())
    assert "findings in /srv/other" not in summary
    assert "findings in /srv/project" not in summary
    assert "/srv/project: not walked" in summary
    # In roots mode a root the walk never reached keeps its own findings, counted
    # elsewhere, not under the root as if it had been walked.
    fs.symlink("/srv/project", "/srv/link")
    env = load_env(None, overrides={"LOCAL_FILE_ACCESS": "roots",
                                    "LOCAL_FILE_ROOTS": "/srv/big:/srv/link"})
    roots = exposure(resolve_policy(env, fs=fs, cwd="/app"), max_entries=10)
    assert {r.root: r.note for r in roots.roots}["/srv/project"].startswith("not walked")
    assert "symlink-root" in {f.kind for f in roots.findings}
    assert "/srv/project" not in roots.counts_by_root()


def test_described_hosts(layout: Layout):
    traps = load_fs("traps")
    env = load_env(None, overrides={
        "LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/data",
        "TOKEN_PATH": "/app/token.json", "CREDENTIALS_PATH": "/app/credentials.json",
        "CACHE_DB_PATH": "/data/cache/app.db"})
    inv = exposure(resolve_policy(env, fs=traps, cwd="/app", package_dir="/app"))
    assert ("high", "credential", "/data/.env") in kinds(inv)
    # The token's hardlink is refused by identity, and is one rename from being readable.
    assert {"/data/innocent.json", "/data/cache/app.db"} <= paths_of(inv, "deny-in-root")
    assert inv.target == "traps"
    mac = load_fs("macos-laptop")
    env = load_env(None, overrides={"LOCAL_FILE_ACCESS": "roots",
                                    "LOCAL_FILE_ROOTS": "/Users/op/Documents:/tmp"})
    inv = exposure(resolve_policy(env, fs=mac, cwd="/Users/op/mcp"))
    assert ("medium", "case-insensitive-root", "/Users/op/Documents") in kinds(inv)
    assert ("medium", "symlink-root", "/tmp") in kinds(inv)


def test_crontabs_user_units_and_cloud_credentials_are_findings():
    """The issue names these: writable crontabs and systemd user units are critical,
    gcloud's credentials.db, a .netrc, docker's config and a .p12 readable are high;
    roots around their neighbours alone keep them out."""
    from localfs_explorer.fs.spec import load_fs

    named = {
        "/etc/crontab": "executed", "/etc/cron.d/backup": "executed",
        "/var/spool/cron/crontabs/op": "executed",
        "/home/op/.config/systemd/user/sync.service": "executed",
        "/home/op/.config/gcloud/credentials.db": "credential",
        "/home/op/.netrc": "credential", "/home/op/.docker/config.json": "credential",
        "/home/op/certs/client.p12": "credential",
    }
    spec = {"version": 1, "home": "/home/op", "cwd": "/srv/app",
            "entries": {"/": {"type": "dir"}, "/srv/app/server.py": {"type": "file"},
                        "/home/op/notes/todo.md": {"type": "file"},
                        **{path: {"type": "file"} for path in named}}}
    fs = load_fs(spec)

    def inventory(**settings: str) -> Inventory:
        env = load_env(None, overrides={"HOME": "/home/op", **settings})
        return exposure(resolve_policy(env, fs=fs, cwd="/srv/app", package_dir="/srv/app"),
                        ["/"])

    found = {(f.kind, f.resolved or f.path): f.severity for f in
             inventory(LOCAL_FILE_ACCESS="full").findings}
    for path, kind in named.items():
        severity = "critical" if kind == "executed" else "high"
        anchored = [k for k in found if k[0] == kind and path.startswith(k[1])]
        assert anchored and all(found[k] == severity for k in anchored), path
    narrow = inventory(LOCAL_FILE_ACCESS="roots", LOCAL_FILE_ROOTS="/home/op/notes")
    assert {f.severity for f in narrow.findings} <= {"info"}


def test_case_sensitive_host_root_is_not_flagged(layout: Layout):
    inv = exposure(layout.roots())
    from conftest import case_insensitive

    assert bool(paths_of(inv, "case-insensitive-root")) == case_insensitive(layout.data)


def test_summary_counts_and_severity_order(layout: Layout):
    (layout.data / "x.pem").write_text("k")
    inv = exposure(layout.roots())
    counts = inv.counts()
    assert list(counts) == list(SEVERITIES) and counts["high"] == 1
    assert inv.counts_by_root()[str(layout.data)]["high"] == 1
    assert [f.severity for f in inv.findings] == sorted(
        (f.severity for f in inv.findings), key=SEVERITIES.index)
    assert inv.summary()[0].startswith("mode roots on this host: 0 critical, 1 high")
    assert inv.roots[0].readable_files == 3
    assert severity_at_least("critical", "high") and not severity_at_least("medium", "high")
    with pytest.raises(ExposureError):
        severity_at_least("info", "severe")
    frame = inv.dataframe()
    assert list(frame.columns)[:4] == ["severity", "kind", "path", "op"]


def test_listing_inodes_match_lstat(tmp_path: Path):
    """Where the walk takes an entry's type and inode from the listing, they are what
    lstat says (on this machine's filesystem, if it is one where that is trusted)."""
    from localfs_explorer.servers.gee_sweet.exposure.host import _host_mounts

    mounts = _host_mounts()
    points, exact = mounts.points, mounts.exact
    assert mounts.one_device <= exact
    (tmp_path / "f").write_text("")
    (tmp_path / "d").mkdir()
    (tmp_path / "l").symlink_to("f")
    dev = os.lstat(tmp_path).st_dev
    if dev not in exact:
        pytest.skip("this filesystem's listings are not trusted; every entry is lstat'ed")
    with os.scandir(tmp_path) as it:
        for entry in it:
            st = os.lstat(entry.path)
            assert entry.inode() == st.st_ino
            if dev in mounts.one_device and entry.is_dir(follow_symlinks=False):
                assert st.st_dev == dev  # a directory has its filesystem's device
    assert "/" in points


def env_args(layout: Layout, *roots: Path) -> list[str]:
    spelled = ":".join(str(r) for r in (roots or (layout.data,)))
    return ["--set", f"HOME={layout.home}", "--cwd", str(layout.app), "--package-dir",
            str(layout.app), "--set", "LOCAL_FILE_ACCESS=roots",
            "--set", f"LOCAL_FILE_ROOTS={spelled}"]


def test_exposure_cli_exit_status_follows_fail_on(layout: Layout):
    code, out, err = run("exposure", *env_args(layout))
    assert code == 0, err  # nothing high or worse in /data
    assert "mode roots on this host: 0 critical, 0 high" in out
    (layout.data / "id_rsa").write_text("k")
    code, out, _ = run("exposure", *env_args(layout))
    assert code == 1 and f"HIGH     read       {layout.data / 'id_rsa'}" in out
    assert f"findings in {layout.data}: 1 high, 4 info" in out
    assert run("exposure", *env_args(layout), "--fail-on", "critical")[0] == 0
    assert run("exposure", *env_args(layout), "--fail-on", "none")[0] == 0
    assert run("exposure", *env_args(layout, layout.data, layout.data / "sub"),
               "--fail-on", "medium")[0] == 1


def test_exposure_cli_json_and_csv(layout: Layout):
    (layout.data / "x.pem").write_text("k")
    code, out, _ = run("exposure", *env_args(layout), "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert {"severity", "path", "op", "why"} <= set(rows[0])
    assert rows[0] == {**rows[0], "severity": "high", "path": str(layout.data / "x.pem"),
                       "op": "read"}
    code, out, _ = run("exposure", *env_args(layout), "--csv", "--no-sizes")
    lines = out.splitlines()
    assert lines[0] == ",".join(FINDING_COLUMNS)
    assert lines[1].startswith(f"high,credential,{layout.data / 'x.pem'},read,")


def test_exposure_cli_report_and_bad_input(layout: Layout, tmp_path: Path):
    report = tmp_path / "exposure.html"
    code, _, err = run("exposure", *env_args(layout), "--report", str(report))
    assert code == 0, err
    page = report.read_text()
    assert "Findings by severity" in page and "<h2>Findings (" in page and "<script" not in page
    code, _, err = run("exposure", *env_args(layout), "--report", str(report))
    assert code == 2 and "--force" in err
    code, _, err = run("exposure", *env_args(layout), "--report", str(report), "--force")
    assert code == 0, err
    assert (tmp_path / "exposure.html.bak").read_text() == page
    code, _, err = run("exposure", *env_args(layout), "--scope", str(layout.data / "report.csv"))
    assert code == 2 and "not a directory" in err and "Traceback" not in err
    code, _, err = run("exposure", *env_args(layout), "--max-entries", "0")
    assert code == 2


def test_exposure_cli_on_a_described_host():
    code, out, _ = run("exposure", "--fs", "traps", "--set", "LOCAL_FILE_ACCESS=roots",
                       "--set", "LOCAL_FILE_ROOTS=/data", "--set", "TOKEN_PATH=/app/token.json",
                       "--cwd", "/app", "--package-dir", "/app", "--json")
    found = {(r["severity"], r["path"]) for r in map(json.loads, out.splitlines())}
    assert ("high", "/data/.env") in found and ("medium", "/data/innocent.json") in found
    assert code == 1


def test_exposure_report_masks_secrets(layout: Layout):
    from localfs_explorer.review.report import exposure_report, to_html, to_json

    policy = resolve_policy(load_env(str(layout.app / ".env"), overrides={
        "HOME": str(layout.home), "LOCAL_FILE_ACCESS": "roots",
        "LOCAL_FILE_ROOTS": str(layout.data)}), cwd=str(layout.app))
    report = exposure_report(exposure(policy), policy)
    assert report.kind == "exposure"
    assert report.charts[0].counts == exposure(policy).counts()
    for text in (to_html(report), to_json(report)):
        assert "do-not-show" not in text
    from localfs_explorer.review.report import to_csv

    lines = to_csv(report).splitlines()
    assert lines[0] == ",".join(FINDING_COLUMNS) and len(lines) == len(report.rows) + 1
    assert json.loads(to_json(report))["kind"] == "exposure"


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_dashboard_panel_walks_cancels_and_marks_stale(layout: Layout):
    from ui_support import SECRET, text_of, write_roots_env

    from localfs_explorer.ui import Explorer

    (layout.data / "x.pem").write_text("k")
    app = Explorer(cwd=str(layout.app), debounce=0)
    server = app.panel("server")
    server.env_path.value = str(write_roots_env(layout.app, layout.data, layout.home))
    server.env_load.click()
    panel = app.show("exposure")
    assert "Not walked yet" in text_of(panel.status.value)
    panel.start(wait=True)
    assert panel.inventory is not None and panel.inventory.counts()["high"] == 1
    assert "Walked" in text_of(panel.status.value)
    assert str(layout.data / "x.pem") in text_of(panel.findings.value)
    assert ">1</text>" in panel.chart.value  # the high bar says 1
    assert "lfe-exposure-roots" in panel.summary.value
    assert f"findings in {layout.data}: 1 high" in text_of(panel.summary.value)
    assert "localfs-explorer-exposure.csv" in panel.csv.value
    assert SECRET not in panel.findings.value + panel.summary.value
    # A threaded run, cancelled (as by the button) at its first progress report.
    from localfs_explorer.servers.gee_sweet.exposure import walker as module

    shown = panel._on_progress

    def press_cancel(p):
        shown(p)
        panel.cancel_button.click()

    panel._on_progress = press_cancel
    module._InventoryWalker.PROGRESS_EVERY = 1
    try:
        panel.start()
        panel.wait(30)
    finally:
        module._InventoryWalker.PROGRESS_EVERY = 4096
    assert panel.inventory.cancelled and "Cancelled" in text_of(panel.status.value)
    assert panel.run_button.disabled is False and panel.cancel_button.disabled is True
    # Changing the configuration marks the result stale.
    app.model.set_override("LOCAL_FILE_ROOTS", str(layout.outside))
    assert "configuration changed" in text_of(panel.status.value)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_dashboard_panel_walks_the_scope_first_and_counts_only_what_it_walked(
        layout: Layout):
    from ui_support import text_of, write_roots_env

    from localfs_explorer.ui import Explorer

    big, keys = layout.data / "bulk", layout.data / "keys"
    big.mkdir()
    keys.mkdir()
    for i in range(30):
        (big / f"f{i}.txt").write_text("")
    (keys / "deploy.pem").write_text("k")
    app = Explorer(cwd=str(layout.app), debounce=0)
    server = app.panel("server")
    server.env_path.value = str(write_roots_env(layout.app, layout.data, layout.home))
    server.env_load.click()
    panel = app.show("exposure")
    panel.max_entries.value = 10
    panel.scope.value = str(keys)
    panel.start(wait=True)
    summary = text_of(panel.summary.value)
    # The scope asked about is walked before the roots fill the entry limit.
    assert f"findings in {keys}: 1 high" in summary
    assert panel.inventory.walked[0] == str(keys)
    assert "stopped after 10 entries" in text_of(panel.status.value)
    # A scope the limit stopped before is "not walked", with no findings counted in it.
    panel.scope.value = f"{big}:{keys}"
    panel.start(wait=True)
    summary = text_of(panel.summary.value)
    assert f"{keys}: not walked" in summary
    assert f"findings in {keys}" not in summary
    assert str(keys) not in text_of(
        panel.summary.value.split("lfe-exposure-roots", 1)[1])


def test_full_mode_reads_the_servers_environment_and_skips_proc(layout: Layout):
    from localfs_explorer.servers.gee_sweet.exposure.host import _host_mounts

    if "/proc" not in _host_mounts().pseudo:
        pytest.skip("no /proc here")
    full = layout.policy(LOCAL_FILE_ACCESS="full")
    inv = exposure(full, [str(layout.data)])
    assert ("high", "credential", "/proc/self/environ") in kinds(inv)
    assert "/proc/self/environ" not in {f.path for f in exposure(layout.roots()).findings}
    root_walk = exposure(full, ["/"], max_entries=200, max_depth=0)
    assert any("/proc (proc)" in s for s in root_walk.stopped)


def test_cli_progress_line_only_on_a_terminal(layout: Layout):
    import io

    from localfs_explorer.cli.main import main
    from localfs_explorer.servers.gee_sweet.exposure import walker as module

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    module._InventoryWalker.PROGRESS_EVERY = 1
    try:
        tty, plain = Terminal(), io.StringIO()
        main(["exposure", *env_args(layout)], out=io.StringIO(), err=tty)
        main(["exposure", *env_args(layout)], out=io.StringIO(), err=plain)
    finally:
        module._InventoryWalker.PROGRESS_EVERY = 4096
    assert re.search(r"\rwalked \d+ entries in 1 directories", tty.getvalue())
    assert tty.getvalue().endswith("\r")  # the line is cleared before the results
    assert "walked" not in plain.getvalue()


def test_a_snapshot_gives_the_hosts_findings(layout: Layout):
    from localfs_explorer.fs import snapshot

    (layout.data / "x.pem").write_text("k")
    (layout.data / "escape").symlink_to(layout.outside)
    hook = layout.data / ".git" / "hooks" / "pre-push"
    hook.parent.mkdir(parents=True)
    hook.write_text("")
    env = load_env(None, overrides={"HOME": str(layout.home), "LOCAL_FILE_ACCESS": "roots",
                                    "LOCAL_FILE_ROOTS": str(layout.data)})
    on_host = exposure(resolve_policy(env, cwd=str(layout.app)), keep_paths=True)
    shot = snapshot(layout.base, home=str(layout.home), cwd=str(layout.app)).to_fs()
    on_shot = exposure(resolve_policy(env, fs=shot, cwd=str(layout.app)), keep_paths=True)
    assert on_shot.readable == on_host.readable and on_shot.writable == on_host.writable
    kept = ("executed", "credential", "deny-in-root")
    assert {k for k in kinds(on_shot) if k[1] in kept} == {k for k in kinds(on_host)
                                                          if k[1] in kept}
    assert ("high", "credential", str(layout.data / "x.pem")) in kinds(on_shot)


_PARTS = st.sampled_from([".ssh", ".SSH", ".config", "gh", "gcloud", "id_rsa", "x.pem",
                          ".env.local", "notes", "Library", "Keychains", ".docker",
                          "config.json", ".mozilla", "firefox", "a", ".."])


@given(st.lists(_PARTS, max_size=4), _PARTS, st.sampled_from(["/home/u", "/", "/Users/Op"]))
def test_the_walks_sensitive_prefilter_never_hides_a_match(parts, name, home):
    """A child the full match flags always passes the walk's cheap per-directory and
    per-name tests, so skipping the full match when both say no loses nothing."""
    from localfs_explorer.sensitive import (
        home_entries_near,
        name_may_be_sensitive,
        sensitive_reason,
    )

    base = home if parts and parts[0] != ".." else "/srv"
    directory = posixpath.normpath("/".join([base, *parts]))
    if name == "..":
        return
    path = directory.rstrip("/") + "/" + name
    if sensitive_reason(path, home=home) is not None:
        assert home_entries_near(directory, home=home) or name_may_be_sensitive(name)


def test_an_unreadable_directory_is_reported_and_the_rest_walked():
    from localfs_explorer.fs import VirtualFS

    class Locked(VirtualFS):
        def listdir(self, path: str) -> list[str]:
            if path == "/data/locked":
                raise PermissionError(13, "Permission denied", path)
            return super().listdir(path)

    fs = Locked(home="/home/u", cwd="/app")
    fs.mkdir("/app")
    for path in ("/data/a.txt", "/data/locked/b.txt", "/data/z/c.txt"):
        fs.add_file(path)
    env = load_env(None, overrides={"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/data"})
    inv = exposure(resolve_policy(env, fs=fs, cwd="/app"), keep_paths=True)
    assert inv.problems == ["/data/locked: Permission denied"] and not inv.complete
    assert {"/data/a.txt", "/data/z/c.txt"} <= (inv.readable or set())
    assert "1 directories could not be listed" in inv.summary()[-1]


@pytest.mark.parametrize("host, settings, cwd", [
    ("traps", {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/data",
               "TOKEN_PATH": "/app/token.json", "CACHE_DB_PATH": "/data/cache/app.db"}, "/app"),
    ("container", {"LOCAL_FILE_ACCESS": "full"}, None),
    ("macos-laptop", {"LOCAL_FILE_ACCESS": "roots",
                      "LOCAL_FILE_ROOTS": "/Users/op/Documents:/tmp"}, "/Users/op/mcp"),
])
def test_every_verdict_on_a_described_host_is_the_engines(host, settings, cwd):
    """Loops, dangling links, escaping links, hardlinks, bind mounts and case: whatever
    the walk meets, what it counts as reachable is what the engine allows."""
    fs = load_fs(host)
    policy = resolve_policy(load_env(None, overrides=settings), fs=fs, cwd=cwd)
    inv = exposure(policy, ["/"], keep_paths=True)
    expected_read, expected_write = set(), set()
    for path, kind, _target in fs.iter_entries():
        for op, expected in (("read", expected_read), ("write", expected_write)):
            d = policy.check(path, op)
            target = d.resolved or ""
            # The walk counts a link by its target, and not a dangling one nor one to a
            # directory (which is walked as itself when in scope).
            link_counts = fs.exists(target) and not fs.is_dir(target)
            if d.allowed and (kind != "symlink" or link_counts):
                expected.add(d.resolved)
    assert inv.readable == expected_read
    assert inv.writable == expected_write


def _random_host_tree(base: Path, rng) -> dict[str, Path]:
    """A home, an app directory and a data root, with random files, credentials,
    hardlinks (of credentials and deny-listed files, within and across directories),
    symlinks, git hooks and site-packages all over them."""
    app, data, home = base / "app", base / "data", base / "home"
    for d in (app, data, home / ".ssh", data / "repo" / ".git" / "hooks",
              data / "venv" / "lib" / "site-packages"):
        d.mkdir(parents=True)
    for f in (app / "token.json", app / ".env", home / ".ssh" / "id_ed25519",
              home / ".bashrc", data / "plain.txt"):
        f.write_text("x")
    dirs = [app, data, home, home / ".ssh", data / "repo" / ".git" / "hooks",
            data / "venv" / "lib" / "site-packages", data, data]
    files = [app / "token.json", home / ".ssh" / "id_ed25519", data / "plain.txt"]
    links = can_hardlink(base)
    names = ("a.txt", "b", "x.pem", "X.PEM", ".env.local", "id_rsa", "token.json",
             "notes.md", "pre-commit", "mod.py", "sub", "Straße.KEY", "line\nbreak.pem")
    # Directories of plain files (decided at once unless something in them says no),
    # some holding credentials or hardlinks of files met before or beside them.
    for k in range(rng.randint(2, 6)):
        plain = rng.choice(dirs) / f"plain{k}"
        plain.mkdir()
        for j in range(rng.randint(1, 8)):
            path = plain / (rng.choice(names) if rng.random() < 0.2 else f"p{j}.csv")
            if os.path.lexists(path):
                continue
            if links and files and rng.random() < 0.15:
                os.link(rng.choice(files), path)
            elif rng.random() < 0.05:
                os.mkfifo(path)  # neither file nor directory nor symlink
            else:
                path.write_text("x")
            files.append(path)
        dirs.append(plain)
    for i in range(rng.randint(10, 60)):
        parent = rng.choice(dirs)
        name = rng.choice(names) if rng.random() < 0.6 else f"f{i}.csv"
        path = parent / name
        if os.path.lexists(path):
            continue
        kind = rng.choice(("file", "file", "file", "file", "dir", "dir", "hardlink",
                           "symlink", "symlink-dir", "dangling"))
        add_entry(path, kind, rng, files, dirs, links=links)
    return {"app": app, "data": data, "home": home}


def _everything(inv: Inventory) -> dict:
    return {**inv.model_dump(), "readable": inv.readable, "writable": inv.writable}


def _entry_by_entry(*args, **options) -> Inventory:
    """``exposure(*args, **options)`` with no directory decided at once."""
    from localfs_explorer.servers.gee_sweet.exposure import walker as module

    module._InventoryWalker.BULK = False
    try:
        return exposure(*args, **options)
    finally:
        module._InventoryWalker.BULK = True


def test_plain_directories_are_decided_at_once(layout: Layout, monkeypatch):
    """os.scandir's entries tell files from directories, and a directory of files is
    decided at once, not walked entry by entry."""
    from localfs_explorer.servers.gee_sweet.exposure import walker

    plain = layout.data / "plain"
    (plain / "sub").mkdir(parents=True)
    for i in range(5):
        (plain / f"f{i}.csv").write_text("x")
        (plain / "sub" / f"g{i}.csv").write_text("x")
    one_by_one: list[str] = []
    entrywise = walker._InventoryWalker._directory

    def spy(self, directory, *args):
        one_by_one.append(directory)
        return entrywise(self, directory, *args)

    monkeypatch.setattr(walker._InventoryWalker, "_directory", spy)
    inv = exposure(layout.roots(), sizes=False)
    assert inv.entries >= 12
    assert str(plain) not in one_by_one and str(plain / "sub") not in one_by_one


@pytest.mark.parametrize("seed", range(20))
def test_a_directory_at_a_time_gives_the_entry_by_entry_inventory(tmp_path: Path, seed):
    """The walk decides most directories at once (check_entries, one scan of the names),
    with or without sizes; whatever the tree, its inventory is the entry-by-entry
    walk's."""
    import random

    rng = random.Random(seed)
    tree = _random_host_tree(tmp_path.resolve(), rng)

    def policy(transport: str = "stdio", **settings: str):
        return resolve_policy(
            load_env(None, overrides={"HOME": str(tree["home"]), **settings}),
            transport=transport, cwd=str(tree["app"]), package_dir=str(tree["app"]))

    both = f"{tree['data']}:{tree['home']}"
    cases = [
        (policy(LOCAL_FILE_ACCESS="roots", LOCAL_FILE_ROOTS=both), {}),
        (policy(LOCAL_FILE_ACCESS="roots", LOCAL_FILE_ROOTS=str(tree["data"]),
                TOKEN_PATH=str(tree["data"] / "token.json")), {"keep_paths": True}),
        (policy(LOCAL_FILE_ACCESS="full"), {"scope": [str(tmp_path)], "keep_paths": True}),
        (policy(LOCAL_FILE_ACCESS="full"), {"scope": [str(tmp_path)], "max_entries": 25}),
        (policy(LOCAL_FILE_ACCESS="full"), {"max_depth": 1}),
        (policy(transport="streamable-http"), {"over_http": True, "keep_paths": True}),
        (policy(LOCAL_FILE_ACCESS="off"), {"keep_paths": True}),
    ]
    for pol, options in cases:
        scope = options.pop("scope", None)
        for sizes in (False, True):
            at_once = exposure(pol, scope, sizes=sizes, **options)
            one_by_one = _entry_by_entry(pol, scope, sizes=sizes, **options)
            assert _everything(at_once) == _everything(one_by_one), sizes


def test_the_walk_without_sizes_reports_progress_and_can_be_cancelled(layout: Layout):
    from localfs_explorer.servers.gee_sweet.exposure import walker as module

    for i in range(3):
        sub = layout.data / f"d{i}"
        sub.mkdir()
        for j in range(5):
            (sub / f"f{j}.txt").write_text("")
    seen: list = []
    module._InventoryWalker.PROGRESS_EVERY = 4
    try:
        done = exposure(layout.roots(), sizes=False, progress=seen.append)
        event = threading.Event()
        event.set()
        cancelled = exposure(layout.roots(), sizes=False, cancel=event)
        calls = []

        def stop_at_second() -> bool:
            calls.append(1)
            return len(calls) > 1

        halfway = exposure(layout.roots(), sizes=False, cancel=stop_at_second)
    finally:
        module._InventoryWalker.PROGRESS_EVERY = 4096
    assert done.complete and seen and all(p.current for p in seen)
    assert [p.entries for p in seen] == sorted(p.entries for p in seen)
    assert cancelled.cancelled and not cancelled.complete and cancelled.entries < done.entries
    assert cancelled.stopped[0].startswith("cancelled after ")
    assert halfway.cancelled and 0 < halfway.entries < done.entries


def test_a_hardlink_met_again_after_a_directory_walked_entry_by_entry(layout: Layout):
    """A file noted one by one, then met again (as a hardlink) in a directory that could
    otherwise be decided at once, and again below it: each name is one file, counted once."""
    if not can_hardlink(layout.data):
        pytest.skip("no hardlinks here")
    a = layout.data / "a"
    c = a / "b" / "c"
    c.mkdir(parents=True)
    (a / "f1.txt").write_text("x")
    (a / "link").symlink_to("f1.txt")  # a symlink: this directory is walked entry by entry
    os.link(a / "f1.txt", a / "b" / "h1.txt")
    (a / "b" / "n.txt").write_text("x")
    os.link(a / "f1.txt", c / "h2.txt")
    (c / "m.txt").write_text("x")
    at_once = exposure(layout.roots(), sizes=False, keep_paths=True)
    one_by_one = _entry_by_entry(layout.roots(), sizes=False, keep_paths=True)
    assert _everything(at_once) == _everything(one_by_one)
    data = next(r for r in at_once.roots if r.root == str(layout.data))
    assert data.readable_files == 5  # report.csv, notes.txt, f1 (three names), n, m


def test_hardlinks_between_directories_decided_at_once_send_the_walk_round_again(
        layout: Layout, monkeypatch):
    """Two plain directories share a file (hardlinks): the first walk takes both whole,
    finds the repeat at its end, and the tree is walked again knowing it; the answer is
    the entry-by-entry walk's, the file counted once, and progress says it is the
    second walk."""
    from localfs_explorer.servers.gee_sweet.exposure import walker as module

    if not can_hardlink(layout.data):
        pytest.skip("no hardlinks here")
    for d in ("a", "b"):
        (layout.data / d).mkdir()
        for i in range(3):
            (layout.data / d / f"{d}{i}.txt").write_text("x")
    os.link(layout.data / "a" / "a0.txt", layout.data / "b" / "same.txt")
    walks: list[bool] = []
    run = module._InventoryWalker.run

    def counted(self, scope):
        walks.append(self.again)
        return run(self, scope)

    progress: list = []
    monkeypatch.setattr(module._InventoryWalker, "run", counted)
    monkeypatch.setattr(module._InventoryWalker, "PROGRESS_EVERY", 2)
    twice = exposure(layout.roots(), sizes=False, keep_paths=True, progress=progress.append)
    monkeypatch.undo()
    assert walks == [False, True]
    assert [p.again for p in progress] == sorted(p.again for p in progress)
    assert progress[-1].again and not progress[0].again
    assert "again" in progress_line(progress[-1]) and "again" not in progress_line(progress[0])
    one_by_one = _entry_by_entry(layout.roots(), sizes=False, keep_paths=True)
    assert _everything(twice) == _everything(one_by_one)
    data = next(r for r in twice.roots if r.root == str(layout.data))
    # report.csv, sub/notes.txt, a0-a2, b0-b2 and same.txt: nine names, eight files.
    assert (data.entries, data.readable_files) == (3 + 9, 8)


def test_a_cancelled_walk_with_a_repeated_file_says_what_that_means(layout: Layout,
                                                                    monkeypatch):
    """A walk cancelled after meeting a file under two names is not walked again: its
    inventory says the file may be counted twice."""
    from localfs_explorer.servers.gee_sweet.exposure import walker as module

    if not can_hardlink(layout.data):
        pytest.skip("no hardlinks here")
    (layout.data / "sub" / "deeper").mkdir()
    (layout.data / "sub" / "deeper" / "x.txt").write_text("x")
    os.link(layout.data / "report.csv", layout.data / "sub" / "alias.csv")
    reported: list[str] = []

    def after_sub() -> bool:  # the tick after the one for sub (sub/deeper's)
        return str(layout.data / "sub") in reported

    monkeypatch.setattr(module._InventoryWalker, "PROGRESS_EVERY", 1)
    cut = exposure(layout.roots(), sizes=False, cancel=after_sub,
                   progress=lambda p: reported.append(p.current))
    assert cut.cancelled
    assert any("counted once per name" in s for s in cut.stopped), cut.stopped
    data = next(r for r in cut.roots if r.root == str(layout.data))
    assert data.readable_files == 3  # report.csv twice (the cancel kept the count)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_dashboard_progress_says_when_the_tree_is_walked_again(layout: Layout):
    from ui_support import text_of

    from localfs_explorer.exposure import WalkProgress
    from localfs_explorer.ui import Explorer

    panel = Explorer(cwd=str(layout.app), debounce=0).show("exposure")
    panel._on_progress(WalkProgress(10, 2, "/x", 100))
    assert "again" not in text_of(panel.progress_label.value)
    panel._on_progress(WalkProgress(4, 1, "/x", 100, again=True))
    label = text_of(panel.progress_label.value)
    assert "walking again" in label and "4 entries" in label
