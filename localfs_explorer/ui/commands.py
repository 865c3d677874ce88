"""What a results row can become: the CLI command asking the same question, or a scenario.

Pure functions of the model (no widgets). Secret values never appear in a command: a
secret setting is named with a placeholder for the reader to fill in.
"""

from __future__ import annotations

import json
import os
import shlex
from typing import Any

from ..secrets import is_secret_key
from .model import EXAMPLE_PREFIX, HOST_TARGET, UPLOAD_TARGET, ExplorerModel

PROGRAM = "localfs-explorer"


def _setting(key: str, value: str) -> list[str]:
    shown = f"<your {key}>" if is_secret_key(key) else value
    return ["--set", f"{key}={shown}"]


def environment_options(model: ExplorerModel) -> list[str]:
    """The shared options naming the model's configuration, as argv words."""
    m = model
    argv: list[str] = []
    if m.env_text is None and m.env_path:
        argv += ["--env", os.path.abspath(os.path.expanduser(m.env_path))]
    elif m.env_text is not None:
        argv += ["--env", m.env_name or ".env"]
    for key, value in m.file_edits.items():
        if not key:
            continue
        argv += ["--unset", key] if value is None else _setting(key, value)
    for key, value in m.overrides:
        if key:
            argv += _setting(key, value)
    for key in m.unset:
        if key:
            argv += ["--unset", key]
    if m.transport != "stdio":
        argv += ["--transport", m.transport]
    if m.target.startswith(EXAMPLE_PREFIX):
        argv += ["--fs", m.target[len(EXAMPLE_PREFIX):]]
    elif m.target == UPLOAD_TARGET:
        argv += ["--fs", m.spec_name or "host.json"]
    cwd = m.cwd.strip() or (m.host_cwd if m.target == HOST_TARGET else "")
    if cwd:
        argv += ["--cwd", cwd]
    if m.package_dir.strip():
        argv += ["--package-dir", m.package_dir.strip()]
    if m.platform != "posix":
        argv += ["--platform", m.platform]
    if m.lenient:
        argv.append("--lenient")
    return argv


def _over_http(model: ExplorerModel) -> list[str]:
    return {"auto": [], "yes": ["--over-http"], "no": ["--no-over-http"]}[model.over_http]


def check_command(model: ExplorerModel, decision: Any) -> str:
    """``localfs-explorer check`` for one path, with the model's configuration."""
    argv = [PROGRAM, "check", *environment_options(model), "--op", decision.op,
            *_over_http(model), "--", decision.path]
    return shlex.join(argv)


def probe_command(model: ExplorerModel, call: dict[str, Any]) -> str:
    """``localfs-explorer probe --call`` for one call, with the model's configuration."""
    argv = [PROGRAM, "probe", *environment_options(model), *_over_http(model)]
    if model.access_text.strip():
        argv += ["--access", "access.json"]
    argv += ["--call", json.dumps(call, ensure_ascii=False)]
    return shlex.join(argv)


def pin_row(model: ExplorerModel, name: str, *, decision: Any = None,
            call: tuple[str, dict[str, Any], Any] | None = None) -> Any:
    """A scenario expecting this row's answer, added to ``model.pinned``."""
    from ..scenarios import pin_scenario
    from .panels.scenarios import config_of

    config, _left_out = config_of(model)
    scenario = pin_scenario(name, config, decisions=[decision] if decision else [],
                            calls=[call] if call else [])
    model.pinned = [*model.pinned, scenario]
    return scenario


def pinned_toml(model: ExplorerModel) -> str:
    """Every pinned row as one scenario file (secrets masked)."""
    from ..scenarios import ScenarioFile, dump_scenario_file

    text = dump_scenario_file(ScenarioFile(title="pinned from localfs-explorer",
                                           scenario=list(model.pinned)))
    return model.clean(text)
