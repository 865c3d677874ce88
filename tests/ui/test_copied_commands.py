"""Every copied command runs as shown and gives the row's verdict: a loaded, an uploaded
and a pasted .env, a client-config entry, and each server."""

from __future__ import annotations

import json
import shlex

import pytest
from conftest import run_cli

from localfs_explorer.ui import Explorer
from localfs_explorer.ui.commands import check_command, reads_env, screen_command

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SECRET = "copied-secret-4d1e"


def run_copied(command: str) -> tuple[int, str, str]:
    """Run a copied ``localfs-explorer`` command as a shell would: its words, and the
    here-document it ends with (if any) as stdin."""
    line, sep, rest = command.partition(" <<'")
    stdin = ""
    if sep:
        end, _, body = rest.partition("'\n")
        assert body.endswith(f"\n{end}") or body == end
        stdin = body[: len(body) - len(end)]
    argv = shlex.split(line)
    assert argv[0] == "localfs-explorer"
    return run_cli(*argv[1:], stdin=stdin)


def _env(layout) -> str:
    return (f"LOCAL_FILE_ACCESS=roots\nLOCAL_FILE_ROOTS={layout.data}\n"
            f"CREDENTIALS_CONFIG={SECRET}\n")


def _loaded(layout, app):
    path = layout.app / "deploy.env"
    path.write_text(_env(layout))
    app.model.load_env_path(str(path))


def _uploaded(layout, app):
    app.model.load_env_upload("deploy.env", _env(layout).encode())


def _pasted(layout, app):
    server = app.panel("server")
    server.env_paste.value = _env(layout)
    server.env_paste_use.click()


def _entry(layout, app):
    picker = app.panel("server").client_config
    picker.load_text(".mcp.json", json.dumps({"mcpServers": {"sheets": {
        "command": "uvx", "args": ["mcp-gee-sweet@0.9.5"],
        "env": {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(layout.data),
                "CREDENTIALS_CONFIG": SECRET}}}}))
    picker.use.click()


def _filesystem_after_env(layout, app):
    _loaded(layout, app)
    app.bar.server.value = "server-filesystem"
    app.model.server_options = {"directories": [str(layout.data)]}


@pytest.mark.parametrize("kind", [_loaded, _uploaded, _pasted, _entry, _filesystem_after_env],
                         ids=["loaded", "uploaded", "pasted", "client-config entry",
                              "filesystem after a .env"])
def test_every_copied_command_gives_the_rows_verdict(layout, kind):
    app = Explorer(host_cwd=str(layout.app), debounce=0)
    kind(layout, app)
    m = app.model
    # The bar edits the configuration too: their effect must be in the command.
    if reads_env(m):
        app.bar.add_root(str(layout.outside))
    m.paths_text = "\n".join([str(layout.data / "report.csv"),
                              str(layout.outside / "other.txt"),
                              str(layout.evil / "secret.txt")])
    m.recompute()
    assert m.policy is not None, m.config_error
    expected = ["ALLOWED" if d.allowed else "REFUSED" for d in m.decisions]
    assert "ALLOWED" in expected and "REFUSED" in expected
    for decision, want in zip(m.decisions, expected, strict=True):
        command = check_command(m, decision)
        assert SECRET not in command
        code, out, err = run_copied(command)
        assert code in (0, 1), err
        assert out.split()[0] == want, (command, out, err)
    code, out, err = run_copied(screen_command(m))
    assert code in (0, 1), err
    assert SECRET not in screen_command(m)
    got = [line.split()[0] for line in out.splitlines() if line.split()
           and line.split()[0] in ("ALLOWED", "REFUSED")]
    assert got == expected, (screen_command(m), out)
