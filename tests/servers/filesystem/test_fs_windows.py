"""The filesystem server on a described Windows host: each rule that changes a verdict.

The answers here were checked against the server's own code run in node as on Windows
(``test_winpath_differential.py``, ``test_windows_validate_differential.py``); these
tests pin them without node, so the edit-test loop catches a change too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localfs_explorer.cli.main import main
from localfs_explorer.fs import HostSpecError, load_fs
from localfs_explorer.fs.windows import WindowsHost, to_inner, to_windows
from localfs_explorer.servers.filesystem import winpath
from localfs_explorer.servers.filesystem.policy import FilesystemConfig
from localfs_explorer.servers.filesystem.winpolicy import (
    WindowsFilesystemPolicy,
    file_url_to_path,
)

HOST = Path(__file__).with_name("hosts") / "windows-laptop.json"
PROJ = "C:\\Users\\me\\proj"


@pytest.fixture(name="host")
def fixture_host() -> WindowsHost:
    fs = load_fs(str(HOST))
    assert isinstance(fs, WindowsHost)
    return fs


def _policy(host: WindowsHost, *dirs: str, roots: tuple[str, ...] | None = None
            ) -> WindowsFilesystemPolicy:
    config = FilesystemConfig(directories=dirs, cwd="C:\\Users\\me", home="C:\\Users\\me",
                              roots=roots)
    return WindowsFilesystemPolicy(config, host)


# --- node's path.win32 and the server's normalizePath


@pytest.mark.parametrize(("given", "expected"), [
    ("c:/Users/me/", "C:\\Users\\me\\"),
    ("C:\\\\x\\\\y", "C:\\x\\y"),
    ("\\\\\\host\\share\\a\\..\\b", "\\\\host\\share\\b"),
    ("c:", "C:\\"),
    ("/c/Users/me", "C:\\Users\\me"),
    ("/mnt/c/Users", "/mnt/c/Users"),
    ("/usr//lib/", "/usr/lib"),
    (" 'C:\\data' ", "C:\\data"),
])
def test_normalize_path_as_on_windows(given: str, expected: str) -> None:
    assert winpath.normalize_path(given) == expected


def test_resolve_reads_drive_and_root_relative_paths_against_the_working_directory() -> None:
    cwd = "C:\\Users\\me"
    assert winpath.resolve("\\x", cwd=cwd) == "C:\\x"
    assert winpath.resolve("/c/Users", cwd=cwd) == "C:\\c\\Users"
    assert winpath.resolve("D:x", cwd=cwd) == "D:\\x"
    assert winpath.resolve("C:x", cwd=cwd) == "C:\\Users\\me\\x"
    assert winpath.resolve("//srv/sh", cwd=cwd) == "\\\\srv\\sh\\"


def test_containment_is_case_sensitive_past_the_drive_letter() -> None:
    dirs = ("C:\\Users\\me",)
    assert winpath.within_allowed("C:\\Users\\me\\x", dirs, cwd="C:\\")
    assert winpath.within_allowed("c:\\Users\\me\\x", dirs, cwd="C:\\") is False
    assert winpath.within_allowed(winpath.normalize_path("c:\\Users\\me\\x"), dirs, cwd="C:\\")
    assert winpath.within_allowed("C:\\Users\\ME\\x", dirs, cwd="C:\\") is False
    assert winpath.within_allowed("C:\\Users\\me2", dirs, cwd="C:\\") is False


def test_a_drive_root_holds_its_own_drive_and_a_share_root_only_itself() -> None:
    assert winpath.within_allowed("C:\\anything", ("C:\\",), cwd="C:\\")
    # the drive letters are compared without case, the rest of the path is not
    assert winpath.within_allowed("c:\\anything", ("C:\\",), cwd="C:\\") is False
    assert winpath.within_allowed("C:\\anything", ("c:\\",), cwd="C:\\") is False
    assert winpath.within_allowed("D:\\anything", ("C:\\",), cwd="C:\\") is False
    share = ("\\\\srv\\share",)
    assert winpath.within_allowed("\\\\srv\\share", share, cwd="C:\\")
    assert winpath.within_allowed("\\\\srv\\share\\a", share, cwd="C:\\") is False
    assert winpath.within_allowed("\\\\srv\\share\\team\\a", ("\\\\srv\\share\\team",),
                                  cwd="C:\\")
    assert winpath.within_allowed("D:\\x", ("\\",), cwd="C:\\") is False
    assert winpath.within_allowed("\\x", ("\\",), cwd="C:\\")


def test_relative_ignores_case_and_keeps_the_target_spelling() -> None:
    assert winpath.relative("C:\\Data", "c:\\data\\X", cwd="C:\\") == "X"
    assert winpath.relative("C:\\a", "D:\\a", cwd="C:\\") == "D:\\a"


# --- the described host


def test_a_windows_host_ignores_case_and_answers_the_stored_spelling(host: WindowsHost) -> None:
    assert host.final_path("c:\\USERS\\me\\PROJ\\A.TXT") == "C:\\Users\\me\\proj\\a.txt"
    assert host.final_path("C:/Users/me/proj/src") == "C:\\Users\\me\\proj\\src"
    assert host.final_path("C:\\Users\\me\\proj\\out") == "C:\\Users\\me\\.ssh"
    assert host.final_path("C:\\Users\\me\\proj\\docs") == "C:\\Users\\me\\Documents"
    assert host.final_path("\\\\FILESERVER\\Team\\shared") == "\\\\fileserver\\team\\shared"
    assert host.home() == "C:\\Users\\me"
    assert sorted(host.listdir("c:\\users\\me\\proj")) == ["a.txt", "docs", "out", "src"]


def test_a_windows_host_drops_trailing_dots_and_spaces(host: WindowsHost) -> None:
    assert host.final_path("C:\\Users\\me\\proj. ") == PROJ
    assert host.final_path("C:\\Users\\me\\proj\\a.txt.") == PROJ + "\\a.txt"


def test_a_windows_host_fails_as_node_does(host: WindowsHost) -> None:
    with pytest.raises(FileNotFoundError) as missing:
        host.final_path("C:\\Users\\me\\nope")
    assert missing.value.filename == "C:\\Users\\me\\nope"
    with pytest.raises(FileNotFoundError):  # a file used as a folder: ENOENT on Windows
        host.final_path(PROJ + "\\a.txt\\x")
    with pytest.raises(FileNotFoundError):
        host.final_path("relative\\path")


def test_paths_move_in_and_out_of_the_tree() -> None:
    assert to_inner("c:\\a\\b") == "/C:/a/b"
    assert to_inner("\\\\srv\\share\\x") == "/UNC/srv/share/x"
    assert to_windows("/UNC/srv/share") == "\\\\srv\\share\\"
    assert to_windows("/C:") == "C:\\"
    with pytest.raises(ValueError, match="not an absolute Windows path"):
        to_inner("/etc/passwd")


def test_a_windows_spec_with_a_posix_path_names_the_entry(tmp_path: Path) -> None:
    spec = tmp_path / "bad.json"
    spec.write_text(json.dumps({"platform": "windows", "home": "C:\\Users\\me",
                                "entries": {"/etc/passwd": {"type": "file"}}}))
    with pytest.raises(HostSpecError, match="entry '/etc/passwd'"):
        load_fs(str(spec))


# --- validatePath on the host


def test_an_allowed_directory_in_another_case_is_kept_twice(host: WindowsHost) -> None:
    policy = _policy(host, "c:\\users\\me\\PROJ")
    assert policy.directories == ("C:\\users\\me\\PROJ", PROJ)


def test_a_path_spelled_in_another_case_is_refused(host: WindowsHost) -> None:
    policy = _policy(host, PROJ)
    refused = policy.validate("C:\\Users\\ME\\proj\\a.txt")
    assert (refused.allowed, refused.reason) == (False, "outside")
    assert refused.message == ("Access denied - path outside allowed directories: "
                               "C:\\Users\\ME\\proj\\a.txt not in C:\\Users\\me\\proj")
    lower_drive = policy.validate("c:/Users/me/proj/a.txt")
    assert (lower_drive.allowed, lower_drive.resolved) == (True, PROJ + "\\a.txt")
    assert lower_drive.by_trim is False


def test_a_git_bash_spelling_is_read_from_the_drive_root(host: WindowsHost) -> None:
    v = _policy(host, PROJ).validate("/c/Users/me/proj/a.txt")
    assert not v.allowed
    assert "C:\\c\\Users\\me\\proj\\a.txt not in" in v.message


def test_a_drive_path_is_not_refused_as_on_posix(host: WindowsHost) -> None:
    v = _policy(host, PROJ).validate("C:\\Users\\me\\proj\\src\\main.py")
    assert (v.allowed, v.resolved) == (True, PROJ + "\\src\\main.py")


def test_a_symlink_out_of_the_directory_is_refused(host: WindowsHost) -> None:
    policy = _policy(host, PROJ)
    v = policy.validate(PROJ + "\\out\\id_ed25519")
    assert (v.allowed, v.reason) == (False, "symlink-outside")
    assert v.message == ("Access denied - symlink target outside allowed directories: "
                         "C:\\Users\\me\\.ssh\\id_ed25519 not in C:\\Users\\me\\proj")
    new = policy.validate(PROJ + "\\out\\new.txt")
    assert (new.allowed, new.reason) == (False, "symlink-outside")


def test_the_prefix_sibling_and_other_drives_are_outside(host: WindowsHost) -> None:
    policy = _policy(host, PROJ)
    assert policy.validate("C:\\Users\\me\\proj-evil\\x").reason == "outside"
    assert policy.validate("D:\\data\\big.csv").reason == "outside"
    assert _policy(host, "C:\\").validate("D:\\data\\big.csv").reason == "outside"
    assert _policy(host, "C:\\").validate("C:\\Users\\me\\.ssh\\id_ed25519").allowed


def test_a_trailing_space_names_the_directory_itself(host: WindowsHost) -> None:
    v = _policy(host, PROJ).validate(PROJ + " ")
    # only the trimmed spelling is inside, and Windows opens the directory itself
    assert (v.allowed, v.resolved, v.by_trim) == (True, PROJ, True)


def test_a_new_file_keeps_the_names_it_was_given_past_the_stored_ones(
        host: WindowsHost) -> None:
    # the walk down from the allowed directory matches names exactly (then by NFC), never
    # by case: a name given in another case starts the missing tail
    v = _policy(host, "c:\\users\\me\\PROJ").validate("C:\\users\\me\\PROJ\\SRC\\new.py")
    assert (v.allowed, v.resolved) == (True, PROJ + "\\SRC\\new.py")
    missing = _policy(host, PROJ).validate(PROJ + "\\nodir\\x.txt")
    assert (missing.allowed, missing.resolved) == (True, PROJ + "\\nodir\\x.txt")


def test_a_symlink_named_in_another_case_lets_a_new_file_out(host: WindowsHost) -> None:
    # A finding: "out" leads to .ssh. Spelled "OUT", the walk doesn't find it, so it is
    # never resolved and re-checked; Windows then creates the file through the link.
    policy = _policy(host, PROJ)
    assert policy.validate(PROJ + "\\out\\authorized_keys").reason == "symlink-outside"
    escaped = policy.validate(PROJ + "\\OUT\\authorized_keys")
    assert (escaped.allowed, escaped.resolved) == (True, PROJ + "\\OUT\\authorized_keys")
    assert host.final_path(PROJ + "\\OUT") == "C:\\Users\\me\\.ssh"


def test_roots_are_read_from_windows_file_urls(host: WindowsHost) -> None:
    assert file_url_to_path("file:///C:/Users/me/proj") == PROJ
    assert file_url_to_path("file://fileserver/team/shared") == "\\\\fileserver\\team\\shared"
    assert file_url_to_path("file://localhost/c:/x%20y") == "c:\\x y"
    with pytest.raises(ValueError, match="must be absolute"):
        file_url_to_path("file:///etc/passwd")
    with pytest.raises(ValueError, match="encoded"):
        file_url_to_path("file:///C:/a%5Cb")
    policy = _policy(host, PROJ, roots=("file:///d:/data", "file:///C:/nope"))
    assert policy.directories == ("D:\\data",)
    assert policy.allowed.warnings == ("Skipping invalid path or inaccessible: "
                                       "file:///C:/nope",)


def test_only_the_latest_release_is_modelled_on_windows(host: WindowsHost) -> None:
    with pytest.raises(ValueError, match="isn't modelled on Windows"):
        WindowsFilesystemPolicy(FilesystemConfig(directories=(PROJ,), version="2.0.1"), host)


# --- the command line


def test_check_answers_on_a_described_windows_host(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", "--server", "server-filesystem", "--fs", str(HOST),
                 "--allowed-dir", PROJ, PROJ + "\\a.txt", "C:\\Users\\ME\\proj\\a.txt"])
    out = capsys.readouterr().out
    assert code == 1
    assert f"ALLOWED  read       {PROJ}\\a.txt -> {PROJ}\\a.txt" in out
    assert "REFUSED  read       C:\\Users\\ME\\proj\\a.txt  [outside]" in out


def test_platform_windows_without_a_windows_host_says_why(
        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", "--server", "server-filesystem", "--platform", "windows",
                 "--allowed-dir", "C:\\x", "C:\\x\\y"])
    assert code == 2
    err = capsys.readouterr().err
    assert "can't be checked on this machine" in err and "Traceback" not in err


def test_a_server_without_windows_rules_refuses_a_windows_host(
        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", "--fs", str(HOST), "C:\\x"])
    assert code == 2
    assert "windows host isn't modelled" in capsys.readouterr().err


# --- findings and whole client configs on a Windows host


def _config(tmp_path: Path) -> Path:
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(json.dumps({"mcpServers": {
        "files": {"command": "npx", "args": [
            "-y", "@modelcontextprotocol/server-filesystem", PROJ, "c:/users/me/Documents"]},
        "weather": {"command": "npx", "args": ["-y", "@acme/weather-mcp"]}}}, indent=2))
    return path


def test_findings_on_a_windows_host(host: WindowsHost) -> None:
    from localfs_explorer.servers.filesystem.findings import findings

    found = {f.code: f for f in findings(_policy(host, PROJ, "c:/users/me/Documents"))}
    escape = found["case-symlink-escape"]
    assert escape.severity == "high"
    assert escape.paths == (PROJ + "\\out", PROJ + "\\OUT\\new.txt")
    respelled = found["case-respelled-directory"]
    assert respelled.paths == ("C:\\users\\me\\Documents", "C:\\Users\\me\\Documents")
    assert "symlinked-directory" not in found
    siblings = [p for f in findings(_policy(host, PROJ)) if f.code == "trim-sibling"
                for p in f.paths]
    # a quote or an ideographic space makes a new name; '"' and a tab can't be one on
    # Windows, and a trailing space names the directory itself
    assert PROJ + "'" in siblings and PROJ + "\u3000" in siblings
    assert not {PROJ + '"', PROJ + "\t", PROJ + " "} & set(siblings)


def test_deployment_checks_every_entry_on_a_described_windows_host(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(tmp_path)
    code = main(["deployment", "--client-config", str(config), "--fs", str(HOST), "--json"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1
    files, weather = rows
    assert files["reach"] == "modelled" and files["windows_paths"] == []
    assert files["directories"] == [PROJ, "C:\\users\\me\\Documents", "C:\\Users\\me\\Documents"]
    assert "case-symlink-escape" in {f["code"] for f in files["findings"]}
    assert not any("can't be checked" in n for n in files["notes"])
    assert weather["reach"] == "unmodelled"
    assert "described machine aren't read" in weather["findings"][0]["message"]
    # without the described host the same file is named, not checked
    code = main(["deployment", "--client-config", str(config), "--json"])
    files = json.loads(capsys.readouterr().out.splitlines()[0])
    assert files["summary"] == "Windows paths: the directories can't be checked here"
    assert sum("Windows paths" in n for n in files["notes"]) == 1


def test_validate_and_check_of_an_entry_on_a_described_windows_host(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(tmp_path)
    code = main(["validate", "--client-config", str(config), "--entry", "files",
                 "--fs", str(HOST), "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["serves"] is True and "checked" not in summary
    assert summary["allowed_directories"][0] == PROJ
    code = main(["check", "--client-config", str(config), "--entry", "files", "--fs",
                 str(HOST), PROJ + "\\OUT\\authorized_keys", PROJ + "\\out\\id_ed25519"])
    out = capsys.readouterr().out
    assert code == 1
    assert f"ALLOWED  read       {PROJ}\\OUT\\authorized_keys" in out
    assert f"REFUSED  read       {PROJ}\\out\\id_ed25519  [symlink-outside]" in out


def test_tool_walks_join_names_as_node_does_on_windows(
        capsys: pytest.CaptureFixture[str]) -> None:
    call = json.dumps({"name": "search_files",
                       "arguments": {"path": PROJ, "pattern": "*"}})
    code = main(["probe", "--server", "server-filesystem", "--fs", str(HOST),
                 "--allowed-dir", PROJ, "--call", call, "--json"])
    out = capsys.readouterr().out
    assert code == 0
    assert json.dumps(PROJ + "\\src\\main.py") in out
    assert "/src" not in out
    assert '"symlink-outside"' in out


@pytest.mark.parametrize("command", [
    ["exposure"], ["suggest", "--require", "read:C:\\Users\\me\\proj\\a.txt"]])
def test_what_a_windows_host_does_not_model_is_one_line(
        command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code = main([command[0], "--server", "server-filesystem", "--fs", str(HOST),
                 "--allowed-dir", PROJ, *command[1:]])
    err = capsys.readouterr().err
    assert code == 2
    assert "Windows host" in err and "isn't modelled" in err and "Traceback" not in err


def test_a_case_insensitive_posix_host_has_the_same_symlink_escape() -> None:
    from localfs_explorer.servers.filesystem.findings import findings
    from localfs_explorer.servers.filesystem.policy import FilesystemPolicy

    spec = {"home": "/Users/op", "cwd": "/Users/op", "entries": {
        "/Users/op/proj/a.txt": {"type": "file"},
        "/Users/op/proj/out": {"type": "symlink", "target": "/Users/op/.ssh"},
        "/Users/op/.ssh/id": {"type": "file"}}}
    config = FilesystemConfig(directories=("/Users/op/proj",), cwd="/Users/op",
                              home="/Users/op")
    caseless = FilesystemPolicy(config, load_fs({**spec, "case_insensitive": True}))
    assert caseless.validate("/Users/op/proj/OUT/new").allowed
    assert "case-symlink-escape" in {f.code for f in findings(caseless)}
    exact = FilesystemPolicy(config, load_fs(spec))
    assert "case-symlink-escape" not in {f.code for f in findings(exact)}
