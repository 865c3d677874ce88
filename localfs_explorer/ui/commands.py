"""What a results row can become: the CLI command asking the same question, or a scenario.

Pure functions of the model (no widgets). Secret values never appear in a command: a
secret setting is named with a placeholder for the reader to fill in.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Collection, Mapping, Sequence
from typing import Any, cast

from ..secrets import hidden_values, holds_secret, is_secret_key, is_secret_setting, scrub
from ..server import DEFAULT_SERVER, get_server
from .model import EXAMPLE_PREFIX, HOST_TARGET, UPLOAD_TARGET, ExplorerModel
from .share import PLACEHOLDER

PROGRAM = "localfs-explorer"


def _setting(key: str, value: str) -> list[str]:
    # Secret by its name, by its value (a URL with a password), or holding a secret the
    # page hides (a token placed inside a root): a placeholder, never the value.
    secret = is_secret_setting(key, value) or holds_secret(value, hidden_values())
    shown = f"<your {key}>" if secret else value
    return ["--set", f"{key}={shown}"]


def reads_env(model: ExplorerModel) -> bool:
    """Whether the model's server takes its settings from a ``.env`` and variables (the
    filesystem server takes directories on its command line, and refuses ``--env``)."""
    from ..server import get_server

    return get_server(model.server).env_file


def env_stdin_text(model: ExplorerModel) -> str | None:
    """The uploaded or pasted ``.env`` as a command reads it from stdin: the bar's edits
    written in, each secret setting's value a placeholder (None: no such text)."""
    if model.env_text is None:
        return None
    from ..envfile.edit import edit_env_text
    from ..envfile.load import parse_env_text

    text = model._edited_text(None, model.env_text) or ""
    secret = {k: f"<your {k}>" for k, v in parse_env_text(text, strict=False)[0]
              if v is not None and (is_secret_setting(k, v) or holds_secret(v, hidden_values()))}
    return edit_env_text(text, secret, []).text if secret else text


def _join(argv: Sequence[str], model: ExplorerModel | None = None) -> str:
    """``argv`` as a command to copy: any other word holding a secret the page hides (a
    directory named after a token) has it replaced by a placeholder. With ``model``, an
    uploaded or pasted ``.env`` the command reads from stdin follows as a here-document."""
    hidden = hidden_values()
    line = shlex.join(scrub(word, hidden, PLACEHOLDER) if hidden else word for word in argv)
    reads = model is not None and reads_env(model) and model.env_text is not None
    text = env_stdin_text(model) if reads and model is not None else None
    if text is None:
        return line
    if hidden:
        text = scrub(text, hidden, PLACEHOLDER)
    end = "ENV"
    while end in text.splitlines():
        end += "_END"
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{line} <<'{end}'\n{body}{end}"


def environment_options(model: ExplorerModel, *, keep: Collection[str] = ()) -> list[str]:
    """The shared options naming the model's configuration, as argv words.

    ``keep``: keys not to unset (a changed configuration sets them again; an unset would
    win over any setting).
    """
    m = model
    argv: list[str] = []
    from_env = reads_env(m)
    if not from_env:
        pass  # its settings are its directories: a .env is refused, not ignored
    elif m.env_text is None and m.env_path:
        argv += ["--env", os.path.abspath(os.path.expanduser(m.env_path))]
    elif m.env_text is not None:
        # An uploaded or pasted .env is no file where the command runs: it reads the
        # text from stdin (see :func:`with_stdin`), the bar's edits written in.
        argv += ["--env", "-"]
    for key, value in m.file_edits.items():
        if not key or not from_env or m.env_text is not None:
            continue
        if value is not None:
            argv += _setting(key, value)
        elif key not in keep:
            argv += ["--unset", key]
    for key, value in m.overrides:
        if key:
            argv += _setting(key, value)
    for key in m.unset:
        if key and key not in keep:
            argv += ["--unset", key]
    if m.transport != "stdio":
        argv += ["--transport", m.transport]
    if m.target.startswith(EXAMPLE_PREFIX):
        argv += ["--fs", m.target[len(EXAMPLE_PREFIX):]]
    elif m.target == UPLOAD_TARGET:
        argv += ["--fs", m.spec_name or "host.json"]
    # The directories the page assumed, always spelled out: left to their defaults, a
    # command run elsewhere (or naming an uploaded .env by its bare name) would take
    # another startup directory, and another package directory whose .env is deny-listed.
    policy = m.policy
    cwd = m.cwd.strip() or (m.host_cwd if m.target == HOST_TARGET else "")
    if not cwd and policy is not None:
        cwd = policy.cwd
    if cwd:
        argv += ["--cwd", cwd]
    package_dir = m.package_dir.strip() or getattr(policy, "package_dir", "") or ""
    if package_dir:
        argv += ["--package-dir", package_dir]
    if m.platform != "posix":
        argv += ["--platform", m.platform]
    argv += _server_options(m)
    if m.lenient:
        argv.append("--lenient")
    return argv


def _server_options(m: ExplorerModel) -> list[str]:
    """``--server`` and the server's own settings, as its command-line options spell
    them (:meth:`~localfs_explorer.server.Server.cli_words`)."""
    if m.server == DEFAULT_SERVER and not m.server_version:
        return []
    argv = ["--server", m.server]
    if m.server_version:
        argv += ["--server-version", m.server_version]
    return argv + get_server(m.server).cli_words(m.server_options)


def _over_http(model: ExplorerModel) -> list[str]:
    return {"auto": [], "yes": ["--over-http"], "no": ["--no-over-http"]}[model.over_http]


def changed_options(model: ExplorerModel, set_: Mapping[str, str] = {},
                    unset: Sequence[str] = (), transport: str = "") -> list[str]:
    """The options naming the model's configuration changed as given, as argv words.

    Secret values set by the change are named with a placeholder, as everywhere.
    """
    argv = environment_options(model, keep=set_.keys())
    for key in unset:
        argv += ["--unset", key]
    for key, value in set_.items():
        argv += _setting(key, value)
    if transport:
        argv += ["--transport", transport]
    return argv


def screen_command(model: ExplorerModel) -> str:
    """``localfs-explorer check`` asking every path of the Paths text as the screen does.

    The whole configuration on screen: the policy bar's edits, the process-environment
    overrides (secret ones as placeholders), the directories assumed, the operation and
    HTTP setting, and a batch check, as the Paths grid answers.
    """
    argv = [PROGRAM, "check", *environment_options(model), "--batch", "--op", model.op,
            *_over_http(model)]
    paths = model.path_lines()
    if paths:
        argv += ["--", *paths]
    return _join(argv, model)


def check_command(model: ExplorerModel, decision: Any, *,
                  options: Sequence[str] | None = None) -> str:
    """``localfs-explorer check`` for one path, with the model's configuration.

    ``options``: the configuration's options instead (e.g. :func:`changed_options`).
    """
    if options is None:
        options = environment_options(model)
    # A decision from a batch (the Paths grid checks its lines as one batch, as a folder
    # walk does) is asked again as a batch: where the two differ (the deny-list statted
    # once, a parent's realpath reused) the command must give the row's answer.
    batch = ["--batch"] if getattr(decision, "_batch", False) else []
    argv = [PROGRAM, "check", *options, *batch, "--op", decision.op,
            *_over_http(model), "--", decision.path]
    return _join(argv, model)


def probe_command(model: ExplorerModel, call: dict[str, Any], *,
                  options: Sequence[str] | None = None) -> str:
    """``localfs-explorer probe --call`` for one call, with the model's configuration.

    ``options``: the configuration's options instead (e.g. :func:`changed_options`).
    """
    if options is None:
        options = environment_options(model)
    argv = [PROGRAM, "probe", *options, *_over_http(model), *access_options(model)]
    argv += ["--call", json.dumps(call, ensure_ascii=False)]
    return _join(argv, model)


#: The file names a session command expects the session and access lists saved under.
SESSION_FILE = "session.json"
ACCESS_FILE = "access.json"
#: The name a command gives the hangar configuration loaded in the Hangar tab.
HANGAR_FILE = "hangar.yaml"


def access_options(model: ExplorerModel) -> list[str]:
    """The command options for the model's tool access: the hangar route when the tabs use
    it, else the access lists saved as :data:`ACCESS_FILE` (none without either)."""
    if model.hangar_use and model.hangar_server:
        argv = ["--hangar", HANGAR_FILE, "--hangar-server", model.hangar_server]
        if model.hangar_via:
            argv += ["--via", model.hangar_via]
        if model.hangar_tenant.strip():
            argv += ["--tenant", model.hangar_tenant.strip()]
        return argv
    return ["--access", ACCESS_FILE] if model.access_text.strip() else []


def access_link(model: ExplorerModel) -> str:
    """A link downloading the model's tool access lists as :data:`ACCESS_FILE` (HTML), for
    a command naming that file; "" without access lists."""
    from . import render

    if not model.access_text.strip() or (model.hangar_use and model.hangar_server):
        return ""  # a hangar route names the operator's own config file
    return render.download_link(model.clean(model.access_text).encode("utf-8"), ACCESS_FILE,
                                "application/json", f"⬇ {ACCESS_FILE}", "lfe-access-file")


def replay_command(model: ExplorerModel, answers: str) -> str:
    """``localfs-explorer replay`` of a whole session, with the model's configuration.

    A session row depends on the calls before it (an approval is remembered), so the
    command replays the session saved as :data:`SESSION_FILE`, with the access lists saved
    as :data:`ACCESS_FILE` when there are any.
    """
    argv = [PROGRAM, "replay", *environment_options(model), *_over_http(model),
            *access_options(model)]
    argv += ["--answers", answers, "--", SESSION_FILE]
    return _join(argv, model)


def changed_config(config: Any, set_: Mapping[str, str] = {}, unset: Sequence[str] = (),
                   transport: str = "") -> tuple[Any, list[str]]:
    """A scenario ``config`` with settings changed, and the secret keys left out of it.

    An unset wins over any setting in a scenario, so a key set here leaves the unset list.
    """
    data = config.model_dump(exclude_unset=True)
    settings = {k: v for k, v in data.get("settings", {}).items() if k not in unset}
    settings.update({k: v for k, v in set_.items() if not is_secret_key(k)})
    removed = [k for k in data.get("unset", []) if k not in set_]
    removed += [k for k in unset if k not in removed]
    data.update(settings=settings, unset=removed)
    if transport:
        data["transport"] = transport
    left_out = sorted(k for k in set_ if is_secret_key(k))
    return type(config).model_validate(data), left_out


def pin_row(model: ExplorerModel, name: str, *, decision: Any = None,
            call: tuple[str, dict[str, Any], Any] | None = None) -> Any:
    """A scenario expecting this row's answer, added to ``model.pinned``."""
    from ..review.scenarios import pin_scenario
    from .panels.scenarios import config_of

    config, _left_out = config_of(model)
    scenario = pin_scenario(name, config, decisions=[decision] if decision else [],
                            calls=[call] if call else [])
    model.pinned = [*model.pinned, scenario]
    return scenario


def pin_asked(model: ExplorerModel, name: str, config: Any, *,
              path: tuple[str, str] | None = None,
              call: tuple[str, dict[str, Any]] | None = None) -> Any:
    """A scenario on ``config`` expecting today's answer to one question, added to
    ``model.pinned``.

    The question (``path``: ``(path, op)``, or ``call``: ``(tool, arguments)``) is asked
    afresh of ``config`` resolved as a scenario run resolves it, so the expectation is the
    one that scenario meets, whatever the row it came from showed alongside.
    """
    from ..probe import probe_call
    from ..review.scenarios import pin_scenario, policy_from_config
    from ..vocab import Op

    built = policy_from_config(config)
    decisions, calls = [], []
    if path is not None:
        op = cast(Op, path[1])
        decisions.append(built.policy.check(path[0], op, over_http=built.over_http))
    if call is not None:
        verdict = probe_call(built.policy, call[0], call[1], over_http=built.over_http,
                             access=built.access, catalog=built.catalog,
                             registration=built.registration)
        calls.append((call[0], dict(call[1]), verdict))
    scenario = pin_scenario(name, config, decisions=decisions, calls=calls)
    model.pinned = [*model.pinned, scenario]
    return scenario


def pinned_toml(model: ExplorerModel) -> str:
    """Every pinned row as one scenario file (secrets masked)."""
    from .panels.scenarios import pinned_scenarios_toml

    return pinned_scenarios_toml(model)
