"""``verify --client-config`` starts an entry's server as its client would: the client's
few variables, the entry's envFile and env over them, nothing else of the operator's
environment. A stand-in server records the environment it was started with."""

from __future__ import annotations

import json
import sys

import pytest
from client_configs import mcp_servers, write
from conftest import run_cli as run

from localfs_explorer.deployments import load_deployment
from localfs_explorer.deployments.launch_env import (
    CLIENT_INHERITED,
    client_environment,
    launch_environment,
)

#: Writes the environment it got to $DUMP_TO, then exits (verify then can't read it).
STAND_IN = (f"#!{sys.executable}\n"
            "import json, os\n"
            "with open(os.environ['DUMP_TO'], 'w') as f:\n"
            "    json.dump(dict(os.environ), f)\n")

OPERATOR_ONLY = "OPERATOR_ONLY_TOKEN"


def _stand_in(tmp_path, program):
    path = write(tmp_path / "bin" / program, STAND_IN)
    path.chmod(0o755)
    return path


def test_the_launch_environment_is_the_clients_few_variables_and_the_entry(tmp_path):
    (tmp_path / "proj" / ".vscode").mkdir(parents=True)
    write(tmp_path / "proj" / "team.env", "FROM_FILE=1\nSHARED=file\n")
    path = write(tmp_path / "proj" / ".vscode" / "mcp.json", mcp_servers({"g": {
        "command": "mcp-gee-sweet", "envFile": "${workspaceFolder}/team.env",
        "env": {"LOCAL_FILE_ACCESS": "off", "SHARED": "entry", "PATH": "/entry/bin"}}},
        key="servers"))
    operator = {"HOME": "/home/op", "PATH": "/usr/bin", "USER": "op", OPERATOR_ONLY: "x1",
                "SHELL": "() { :; }"}
    found = load_deployment(path, environ=operator)
    env = launch_environment(found, operator)
    assert env == {"HOME": "/home/op", "USER": "op", "PATH": "/entry/bin",
                   "LOCAL_FILE_ACCESS": "off", "FROM_FILE": "1", "SHARED": "entry"}
    assert set(client_environment(operator)) <= set(CLIENT_INHERITED)


@pytest.mark.slow
@pytest.mark.parametrize("program, args", [
    ("mcp-gee-sweet", []),
    ("mcp-server-filesystem", ["DATA"]),
])
def test_verify_starts_every_server_kind_with_the_entrys_environment_only(
        tmp_path, monkeypatch, program, args):
    monkeypatch.setenv(OPERATOR_ONLY, "operator-secret-value")
    data = tmp_path / "data"
    data.mkdir()
    launcher = _stand_in(tmp_path, program)
    dump = tmp_path / "dump.json"
    write(tmp_path / "proj" / "team.env", "FROM_ENV_FILE=yes\n")
    path = write(tmp_path / "proj" / ".vscode" / "mcp.json", mcp_servers({"s": {
        "type": "stdio", "command": str(launcher),
        "args": [str(data) if a == "DATA" else a for a in args],
        "envFile": "${workspaceFolder}/team.env",
        "env": {"DUMP_TO": str(dump), "LOCAL_FILE_ACCESS": "off", "ENTRY_VALUE": "e1"}}},
        key="servers"))
    code, out, err = run("verify", "--client-config", path, "--timeout", "20")
    assert code == 2, out + err  # the stand-in answers nothing
    got = json.loads(dump.read_text())
    assert got["ENTRY_VALUE"] == "e1" and got["FROM_ENV_FILE"] == "yes"
    assert OPERATOR_ONLY not in got
    assert "PATH" in got
    assert set(got) - {"DUMP_TO", "LOCAL_FILE_ACCESS", "ENTRY_VALUE", "FROM_ENV_FILE"} \
        <= set(CLIENT_INHERITED) | {"PWD", "SHLVL", "_", "LC_CTYPE"}
