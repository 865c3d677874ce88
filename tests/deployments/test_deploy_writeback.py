"""Writing validated settings back into an entry: only its env changes, byte for byte."""

from __future__ import annotations

import json
import os
import stat

import pytest
from client_configs import CANARY, write
from conftest import run_cli as run

from localfs_explorer.deployments import DeploymentError, load_deployment
from localfs_explorer.deployments.writeback import plan_write_back

#: A hand-written config: odd indentation, a key order json.dump wouldn't keep, another
#: server after ours, unicode, no newline at the end.
DESKTOP = """{
    "globalShortcut": "Ctrl+Space",
    "mcpServers": {
        "sheets": {
            "command": "uvx",
            "args": [ "mcp-gee-sweet@0.9.5" ],
            "env": {
                "LOCAL_FILE_ACCESS": "roots",
                "LOCAL_FILE_ROOTS": "DATA",
                "CREDENTIALS_CONFIG": "CANARY"
            }
        },
        "files": {"command": "npx", "args": ["@modelcontextprotocol/server-filesystem", "/t"]},
        "notes": {"command": "node", "args": ["notes.js"], "env": {"NAME": "café"}}
    }
}"""


def _desktop(tmp_path, layout):
    text = DESKTOP.replace("DATA", str(layout.data)).replace("CANARY", CANARY)
    return write(tmp_path / "claude_desktop_config.json", text), text


def _outside_env(text: str) -> tuple[str, str]:
    """The text before the sheets entry's env object and after it."""
    start = text.index('"env": {', text.index('"sheets"'))
    end = text.index("}", start) + 1
    return text[:start], text[end:]


def test_a_changed_value_changes_only_its_own_bytes(tmp_path, layout):
    path, original = _desktop(tmp_path, layout)
    code, out, err = run("export-env", "--client-config", str(path), "--entry", "sheets",
                         "--set", f"LOCAL_FILE_ROOTS={layout.outside}", "--in-place")
    assert code == 0, err
    new = path.read_text()
    assert new == original.replace(f'"{layout.data}"', f'"{layout.outside}"')
    assert (tmp_path / "claude_desktop_config.json.bak").read_text() == original
    assert CANARY not in out + err
    assert load_deployment(path, "sheets").env["LOCAL_FILE_ROOTS"] == str(layout.outside)


def test_added_and_removed_keys_rewrite_only_the_env_object(tmp_path, layout):
    path, original = _desktop(tmp_path, layout)
    code, _, err = run("export-env", "--client-config", str(path), "--entry", "sheets",
                       "--unset", "LOCAL_FILE_ROOTS", "--set", "LOCAL_FILE_ACCESS=full",
                       "--set", "CACHE_DB_PATH=/var/cache/c.db", "--in-place")
    assert code == 0, err
    new = path.read_text()
    assert _outside_env(new) == _outside_env(original)
    env_text = new[len(_outside_env(new)[0]):len(new) - len(_outside_env(new)[1])]
    # The file's own indentation, the kept keys in their order, the new one last.
    assert env_text == ('"env": {\n'
                        '                "LOCAL_FILE_ACCESS": "full",\n'
                        f'                "CREDENTIALS_CONFIG": "{CANARY}",\n'
                        '                "CACHE_DB_PATH": "/var/cache/c.db"\n'
                        "            }")
    assert json.loads(new)["mcpServers"]["notes"] == json.loads(original)["mcpServers"]["notes"]


def test_an_entry_without_env_gets_one(tmp_path, layout):
    text = ('{\n  "mcpServers": {\n    "s": {\n      "command": "mcp-gee-sweet"\n    },\n'
            '    "t": {"command": "x"}\n  }\n}\n')
    path = write(tmp_path / ".mcp.json", text)
    plan = plan_write_back(path, "s", set={"LOCAL_FILE_ACCESS": "roots",
                                           "LOCAL_FILE_ROOTS": str(layout.data)})
    assert plan.ok
    assert plan.text == text.replace(
        '"command": "mcp-gee-sweet"\n',
        '"command": "mcp-gee-sweet",\n      "env": {\n        "LOCAL_FILE_ACCESS": "roots",\n'
        f'        "LOCAL_FILE_ROOTS": "{layout.data}"\n      }}\n')


def test_a_one_line_env_stays_on_one_line_and_comments_elsewhere_are_kept(tmp_path, layout):
    text = ('{\n  // team servers\n  "servers": {\n    "s": {"command": "mcp-gee-sweet", '
            '"env": {"LOCAL_FILE_ACCESS": "off"}}, // ours\n  },\n}\n')
    path = write(tmp_path / ".vscode" / "mcp.json", text)
    plan = plan_write_back(path, "s", set={"LOCAL_FILE_ACCESS": "roots",
                                           "LOCAL_FILE_ROOTS": str(layout.data)})
    assert plan.text == text.replace(
        '{"LOCAL_FILE_ACCESS": "off"}',
        f'{{"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "{layout.data}"}}')


def test_a_configuration_the_server_refuses_is_not_written(tmp_path, layout):
    path, original = _desktop(tmp_path, layout)
    code, _, err = run("export-env", "--client-config", str(path), "--entry", "sheets",
                       "--unset", "LOCAL_FILE_ROOTS", "--in-place")
    assert code == 2
    assert "LOCAL_FILE_ROOTS" in err and "refused" in err
    assert path.read_text() == original
    assert not (tmp_path / "claude_desktop_config.json.bak").exists()


def test_dry_run_shows_a_masked_diff_and_writes_nothing(tmp_path, layout):
    path, original = _desktop(tmp_path, layout)
    code, out, err = run("export-env", "--client-config", str(path), "--entry", "sheets",
                         "--set", f"CREDENTIALS_CONFIG={CANARY}-new", "--dry-run")
    assert code == 0, err
    assert '-                "CREDENTIALS_CONFIG": "••••••"' in out
    assert CANARY not in out + err
    assert path.read_text() == original


def test_permissions_kept_backups_never_overwritten_symlinks_refused(tmp_path, layout):
    path, original = _desktop(tmp_path, layout)
    os.chmod(path, 0o640)
    for value in ("/a", "/b"):
        plan = plan_write_back(path, "sheets", set={"CACHE_DB_PATH": value})
        plan.write(in_place=True)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert (tmp_path / "claude_desktop_config.json.bak").read_text() == original
    assert '"/a"' in (tmp_path / "claude_desktop_config.json.bak.1").read_text()
    link = tmp_path / "link.json"
    link.symlink_to(path)
    with pytest.raises(DeploymentError, match="symbolic link"):
        plan_write_back(link, "sheets", set={"CACHE_DB_PATH": "/c"}).write(in_place=True)


def test_a_file_changed_since_it_was_read_is_not_replaced(tmp_path, layout):
    path, _ = _desktop(tmp_path, layout)
    plan = plan_write_back(path, "sheets", set={"CACHE_DB_PATH": "/a"})
    path.write_text(path.read_text() + "\n")
    with pytest.raises(DeploymentError, match="changed since it was read"):
        plan.write(in_place=True)


def test_secrets_in_a_git_checkout_are_warned_about(tmp_path, layout):
    (tmp_path / ".git").mkdir()
    path, _ = _desktop(tmp_path, layout)
    code, _, err = run("export-env", "--client-config", str(path), "--entry", "sheets",
                       "--set", "CACHE_DB_PATH=/c.db", "--in-place")
    assert code == 0
    assert f"inside the git checkout {tmp_path}" in err
    # No secret in the entry: no warning.
    text = path.read_text().replace(f'"CREDENTIALS_CONFIG": "{CANARY}"', '"TOKEN_PATH": "/t"')
    path.write_text(text)
    code, _, err = run("export-env", "--client-config", str(path), "--entry", "sheets",
                       "--set", "CACHE_DB_PATH=/d.db", "--in-place")
    assert code == 0 and "git checkout" not in err


def test_keys_not_in_env_go_to_the_entry_env_file(tmp_path, layout):
    env_file = write(tmp_path / "proj" / "server.env",
                     f"# kept\nCREDENTIALS_CONFIG={CANARY}\nLOCAL_FILE_ROOTS={layout.data}\n")
    text = ('{"servers": {"s": {"command": "mcp-gee-sweet", "envFile": "server.env",\n'
            '  "env": {"LOCAL_FILE_ACCESS": "roots"}}}}\n')
    path = write(tmp_path / "proj" / ".vscode" / "mcp.json", text)
    code, _, err = run("export-env", "--client-config", str(path), "--set",
                       "LOCAL_FILE_ACCESS=full", "--set", "CACHE_DB_PATH=/c.db", "--in-place")
    assert code == 0, err
    assert path.read_text() == text.replace('"roots"', '"full"')
    assert env_file.read_text() == (f"# kept\nCREDENTIALS_CONFIG={CANARY}\n"
                                    f"LOCAL_FILE_ROOTS={layout.data}\nCACHE_DB_PATH=/c.db\n")
    assert (tmp_path / "proj" / "server.env.bak").exists()
    assert CANARY not in err


@pytest.mark.parametrize(("setup", "message"), [
    ("hangar", "mcp-hangar YAML"),
    ("docker", "runs docker"),
    ("filesystem", "takes no settings from its environment"),
])
def test_entries_that_cant_be_written_back(tmp_path, setup, message):
    if setup == "hangar":
        path = write(tmp_path / "h.yaml", "mcp_servers:\n  s:\n    command: [mcp-gee-sweet]\n")
    elif setup == "docker":
        path = write(tmp_path / ".mcp.json", json.dumps({"mcpServers": {"s": {
            "command": "docker", "args": ["run", "-i", "acme/mcp-gee-sweet"]}}}))
    else:
        path = write(tmp_path / ".mcp.json", json.dumps({"mcpServers": {"s": {
            "command": "npx", "args": ["@modelcontextprotocol/server-filesystem", "/a"]}}}))
    code, _, err = run("export-env", "--client-config", str(path), "--set", "A=1",
                       "--in-place")
    assert code == 2 and message in err and err.count("\n") == 1


def test_a_prompted_secret_stays_a_prompt(tmp_path, layout):
    text = ('{\n  "inputs": [{"type": "promptString", "id": "creds", "password": true}],\n'
            '  "servers": {\n    "s": {\n      "command": "mcp-gee-sweet",\n'
            '      "env": {\n        "CREDENTIALS_CONFIG": "${input:creds}",\n'
            '        "LOCAL_FILE_ACCESS": "off"\n      }\n    }\n  }\n}\n')
    path = write(tmp_path / ".vscode" / "mcp.json", text)
    code, _, err = run("export-env", "--client-config", str(path), "--set",
                       "LOCAL_FILE_ACCESS=roots", "--set", f"LOCAL_FILE_ROOTS={layout.data}",
                       "--in-place")
    assert code == 0, err
    new = path.read_text()
    assert '"CREDENTIALS_CONFIG": "${input:creds}"' in new
    assert json.loads(new)["servers"]["s"]["env"]["LOCAL_FILE_ACCESS"] == "roots"


def test_a_windows_file_keeps_its_line_endings(tmp_path, layout):
    text = ('{\r\n  "mcpServers": {\r\n    "s": {\r\n      "command": "mcp-gee-sweet",\r\n'
            '      "env": {\r\n        "LOCAL_FILE_ACCESS": "off"\r\n      }\r\n    }\r\n'
            '  }\r\n}\r\n')
    path = write(tmp_path / "claude_desktop_config.json", "")
    path.write_bytes(text.encode())
    plan = plan_write_back(path, "s", set={"LOCAL_FILE_ACCESS": "roots",
                                           "LOCAL_FILE_ROOTS": str(layout.data)})
    assert plan.text == text.replace(
        '"LOCAL_FILE_ACCESS": "off"\r\n',
        f'"LOCAL_FILE_ACCESS": "roots",\r\n        "LOCAL_FILE_ROOTS": "{layout.data}"\r\n')
    plan.write(in_place=True)
    assert b"\n" not in path.read_bytes().replace(b"\r\n", b"")


def test_vscode_settings_with_an_mcp_object(tmp_path, layout):
    text = ('{\n  "editor.fontSize": 14,\n  "mcp": {\n    "servers": {\n      "s": {\n'
            '        "command": "mcp-gee-sweet",\n        "env": {"LOCAL_FILE_ACCESS": "off"}\n'
            '      }\n    }\n  }\n}\n')
    path = write(tmp_path / "settings.json", text)
    assert load_deployment(path).format == "vscode"
    plan = plan_write_back(path, set={"LOCAL_FILE_ACCESS": "full"})
    assert plan.text == text.replace('"off"', '"full"')


def test_a_neighbouring_entry_secret_in_the_diff_context_is_masked(tmp_path):
    other = "neighbour-token-4d2a"
    text = ('{"mcpServers": {\n  "s": {\n    "command": "mcp-gee-sweet",\n'
            '    "env": {"LOCAL_FILE_ACCESS": "off"}\n  },\n'
            f'  "gh": {{"command": "gh-mcp", "env": {{"GITHUB_TOKEN": "{other}"}}}}\n}}}}\n')
    path = write(tmp_path / ".mcp.json", text)
    code, out, err = run("export-env", "--client-config", str(path), "--entry", "s",
                         "--set", "LOCAL_FILE_ACCESS=full", "--dry-run")
    assert code == 0, err
    assert '"GITHUB_TOKEN": "••••••"' in out and other not in out
    assert other not in plan_write_back(path, "s", set={"LOCAL_FILE_ACCESS": "full"}).diff()


def test_kept_members_keep_their_own_spelling(tmp_path, layout):
    text = ('{"mcpServers": {"s": {"command": "mcp-gee-sweet", "env": {\n'
            '    "LOCAL_FILE_ACCESS" :   "roots",\n    "LOCAL_FILE_ROOTS":"\\u002fdata"\n}}}}\n')
    path = write(tmp_path / ".mcp.json", text)
    plan = plan_write_back(path, set={"CACHE_DB_PATH": "/c.db"})
    assert plan.text == text.replace(
        '"\\u002fdata"\n}', '"\\u002fdata",\n    "CACHE_DB_PATH": "/c.db"\n}')
