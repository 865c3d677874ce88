"""Scenario files: a configuration plus the verdicts a reviewer expects from it, as TOML.

A scenario file holds one or more ``[[scenario]]`` tables. Each names a server
configuration and what the server must answer under it. A file-level ``[config]`` is the
starting point every scenario's own ``[scenario.config]`` overrides key by key
(``settings`` are merged, ``unset`` lists add up)::

    title = "our deployment"

    [config]
    env = "deploy/.env"            # relative to this file
    host = "container"             # "host" (this machine), a shipped example, a host
                                   # spec JSON file, or an inline table (a host spec)
    transport = "sse"

    [[scenario]]
    name = "roots keeps the token out"
    [scenario.config.settings]     # the server process's own variables (win over env)
    LOCAL_FILE_ACCESS = "roots"
    LOCAL_FILE_ROOTS = "/data"

    [[scenario.path]]
    path = "/app/token.json"
    op = "read"                    # read (default), write or read_write
    allowed = false
    reason = "outside_roots"
    message_contains = "Allowed directories: /data"

    [[scenario.call]]
    tool = "upload_local_file"
    arguments = { local_path = "/data/reports/q3.csv" }
    outcome = "ok"

    [scenario.tools]
    registered = ["upload_local_file"]

    [scenario.auth_status]
    mode = "roots"
    roots = ["/data"]

The filesystem server (or any other registered server) is named in a config with
``server``, its release with ``server_version`` and its own settings under ``options``
(merged key by key); its paths expect its own reasons (``inside``, ``outside``,
``symlink-outside``, ...), ``[scenario.policy]`` and ``[scenario.auth_status]`` its
``allowed_directories``::

    [config]
    server = "server-filesystem"
    server_version = "2026.8.31"
    cwd = "."                      # the server's working directory (relative: this file's)
    [config.options]
    directories = ["data"]         # its command line, relative to cwd
    # roots = ["file:///srv/x"]    # MCP roots its client advertises (absent: none)

    [[scenario]]
    name = "the trimming escape"
    [[scenario.path]]
    path = "/srv/data'"
    op = "write"
    allowed = true

With ``access = {hangar = "hangar.yaml", server = "api", via = "core", tenant = "acme"}``
in a config, tool access is what mcp-hangar decides on that route, and
``[[scenario.hangar]]`` cases pin its answer for one tool (``tool``; optionally another
``server``, ``via`` or ``tenant``; expecting ``visible``, ``held``, ``timeout``,
``channel``, ``documented_visible``, ``documented_held``, ``finding``,
``finding_contains``, ``scope_contains``).

Every key is checked: an unknown key or a value of the wrong type is a
:class:`ScenarioError` naming the file and the line, as is malformed TOML. Each
expectation (a path, a call, the tools, auth-status, the policy) must expect something,
so a case can't pass by checking nothing.

:func:`run_scenarios` runs files and folders and returns a :class:`RunResult`: one
:class:`CaseResult` per expectation, with expected-vs-actual mismatches and the trace,
plus :class:`Coverage` of the rules the run exercised (each refusal reason, each
deny-list setting, each catalog tool, each call outcome).
"""

from .format import (
    ConfigSpec,
    Scenario,
    ScenarioError,
    ScenarioFile,
    collect_scenario_files,
    load_scenario_file,
    parse_scenario_text,
)
from .locator import case_lines
from .results import (
    CaseResult,
    Coverage,
    FileResult,
    Mismatch,
    RunResult,
    ScenarioResult,
)
from .runner import (
    BuiltConfig,
    machine_references,
    pin_hangar_scenario,
    pin_scenario,
    policy_from_config,
    run_scenario_file,
    run_scenario_text,
    run_scenarios,
)
from .writer import dump_scenario_file

__all__ = [
    "BuiltConfig",
    "CaseResult",
    "ConfigSpec",
    "Coverage",
    "FileResult",
    "Mismatch",
    "RunResult",
    "Scenario",
    "ScenarioError",
    "ScenarioFile",
    "ScenarioResult",
    "case_lines",
    "collect_scenario_files",
    "dump_scenario_file",
    "load_scenario_file",
    "machine_references",
    "parse_scenario_text",
    "pin_hangar_scenario",
    "pin_scenario",
    "policy_from_config",
    "run_scenario_file",
    "run_scenario_text",
    "run_scenarios",
]
