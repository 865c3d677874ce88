"""The Explorer's one model: every input the views edit, every result they show.

:class:`ExplorerModel` is a :class:`traitlets.HasTraits`. Views set its input traits and
observe its result traits; the model recomputes the results through the same engine
functions the command line calls (``load_env``, ``resolve_policy``, ``Policy.check``,
the server's ``register_tools`` and ``status``, ``probe_call``, ``export_env``). It holds no
policy logic of its own.

Recomputing is split into stages so that typing a path doesn't reload the ``.env``:

- ``config``: environment, target filesystem and policy, then registration, the
  auth-status preview and the export plan, which depend on nothing else;
- ``paths``: the verdict for each path in the Paths text;
- ``tool``: the verdict for the tool call;
- ``batch``: the verdicts for the loaded batch of calls.

A change to an input marks the stages that depend on it; :mod:`.stages` schedules the
recomputes (typing coalesced inside a running event loop). What a visitor hands the page
is checked by :mod:`.inputs`.

Errors a user can cause (a missing ``.env``, bad JSON) land in the stage's ``*_error``
trait. Anything else raised while recomputing lands in ``last_error`` with its message:
the page must show it, because Voila hides tracebacks.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from traitlets import Any as AnyTrait
from traitlets import Bool, Dict, Enum, Int, List, Unicode, observe

from ..config import ConfigError, ResolvedConfig, ServerConfig, resolve_config
from ..fs.spec import list_example_hosts
from ..probe.calls_file import Call, parse_calls
from ..secrets import hide_everywhere, scrub, secret_values
from ..sensitive import split_patterns
from ..server import DEFAULT_SERVER, server_of
from ..userfiles import read_text
from ..vocab import OPS, TRANSPORTS
from . import entry_model, hangar_model
from .forms import server_catalog, starting_arguments
from .hangar_model import HangarTraits
from .inputs import (
    ExplorerError,
    any_output_name_from_environ,
    content_json,
    executable_name,
    host_access_from_environ,
    looks_like_env_name,
    upload_text,
)
from .stages import StagedModel

if TYPE_CHECKING:
    from ..vocab import Platform, Transport


#: Most paths checked from the Paths text in one go.
MAX_PATHS = 20_000

#: Most calls taken from one batch.
MAX_BATCH_CALLS = 50_000

OVER_HTTP_CHOICES: tuple[str, ...] = ("auto", "yes", "no")
HOST_TARGET = "host"
UPLOAD_TARGET = "upload"
EXAMPLE_PREFIX = "example:"
#: The Tool call tab opens on this call: the tool operators ask about first.
STARTING_TOOL = "upload_local_file"
#: Every argument the server requires of the starting tool, so the first verdict is a real one.
STARTING_ARGUMENTS = {"local_path": "~/Documents/quarterly-report.pdf",
                      "parent_folder_id": "root"}

# Which stages each input feeds. "config" implies every later stage.
_CONFIG_INPUTS = (
    "server", "server_version", "server_options",
    "env_path", "env_text", "env_name", "lenient", "overrides", "unset", "transport",
    "target", "spec_text", "cwd", "host_cwd", "package_dir", "platform", "file_edits",
    "export_overrides",
)
_PATH_INPUTS = ("paths_text", "op", "over_http")
_TOOL_INPUTS = ("tool_name", "tool_args_text", "access_text", "sensitive_text", "hangar_text",
                "hangar_server", "hangar_via", "hangar_tenant", "hangar_use")
_BATCH_INPUTS = ("batch_path", "batch_text")
# Inputs typed character by character: coalesced. Everything else (dropdowns, buttons,
# uploads) is computed at once.
_TYPED = frozenset({
    "overrides", "unset", "cwd", "package_dir", "paths_text", "tool_args_text", "access_text",
    "sensitive_text", "hangar_text", "hangar_tenant",
})


def _example_hosts() -> list[str]:
    return list(list_example_hosts())


class ExplorerModel(StagedModel, HangarTraits, entry_model.EntryTraits):
    """State and results of one Explorer; see the module docstring."""

    STAGES: ClassVar[tuple[str, ...]] = ("config", "paths", "tool", "batch")

    # ---- inputs: the server's configuration
    #: A ``.env`` path on the machine the kernel runs on ("" for none).
    env_path = Unicode("")
    #: An uploaded ``.env``'s text (None when the source is ``env_path`` or nothing).
    env_text = Unicode(None, allow_none=True)
    #: The uploaded file's name, for messages.
    env_name = Unicode("")
    #: ``env_text`` is the operator's file handed over by ``serve``, not a visitor's
    #: upload: its secrets were never the visitor's, so the page doesn't hand them out.
    env_from_operator = Bool(False)
    #: Skip ``.env`` lines python-dotenv can't parse, as the server does (else: an error).
    lenient = Bool(False)
    #: The server process's own variables, ``(key, value)`` rows; win over the file.
    overrides: List[Any] = List()
    #: Keys removed whatever set them.
    unset: List[Any] = List()
    #: Edits to the ``.env`` being prepared (the policy bar): key -> new value, or None to
    #: take the key out of the file. Kept apart from ``overrides``, the process's own
    #: variables: an edit goes into the exported file, an override only with
    #: ``export_overrides``.
    file_edits: Dict[str, Any] = Dict()
    #: Write the process-environment overrides into the exported ``.env`` as well.
    export_overrides = Bool(False)
    #: Which server answers (a registry id; see :mod:`localfs_explorer.server`).
    server = Unicode(DEFAULT_SERVER)
    #: The release of that server to reproduce ("" for the newest modelled).
    server_version = Unicode("")
    #: The server's own settings (its options model's fields).
    server_options: Dict[str, Any] = Dict()
    transport = Enum(TRANSPORTS, default_value="stdio")
    #: ``host``, ``example:NAME`` or ``upload``.
    target = Unicode(HOST_TARGET)
    spec_text = Unicode(None, allow_none=True)
    spec_name = Unicode("")
    cwd = Unicode("")
    #: The startup directory assumed for this machine when ``cwd`` is empty (``serve``
    #: passes the directory it was started in; else the kernel's own working directory).
    host_cwd = Unicode("")
    package_dir = Unicode("")
    platform = Enum(("posix", "windows"), default_value="posix")

    # ---- inputs: questions
    paths_text = Unicode("")
    op = Enum(OPS, default_value="read")
    over_http = Enum(OVER_HTTP_CHOICES, default_value="auto")
    #: Index of the path whose trace and hint are shown.
    selected = Int(0)
    tool_name = Unicode("")
    tool_args_text = Unicode("{}")
    #: Optional tool access lists as JSON (``{"server": {"approval_list": [...]}}``).
    access_text = Unicode("")
    #: Extra sensitive-file name globs for the advice, by comma or line (``*.kdbx``).
    sensitive_text = Unicode("")
    batch_path = Unicode("")
    batch_text = Unicode(None, allow_none=True)
    batch_name = Unicode("")

    # ---- settings (and ``debounce``, from StagedModel)
    #: May the kernel read this machine's files (target host, .env and batch paths, writes)?
    host_access = Bool(True)
    #: May ``write_export`` write a file whose name doesn't look like a ``.env``?
    any_output_name = Bool(False)
    examples: List[Any] = List()

    # ---- results
    env = AnyTrait(None, allow_none=True)
    policy = AnyTrait(None, allow_none=True)
    registration = AnyTrait(None, allow_none=True)
    config_error = Unicode("")
    target_label = Unicode("")
    target_description = Unicode("")
    auth_status = Dict()
    auth_error = Unicode("")
    export_plan = AnyTrait(None, allow_none=True)
    export_error = Unicode("")
    decisions: List[Any] = List()
    paths_error = Unicode("")
    call_verdict = AnyTrait(None, allow_none=True)
    call_error = Unicode("")
    batch_verdicts: List[Any] = List()
    batch_error = Unicode("")
    batch_total = Int(0)
    batch_done = Int(0)
    batch_running = Bool(False)
    #: Scenarios pinned from result rows (``localfs_explorer.review.scenarios.Scenario``).
    pinned: List[Any] = List()
    #: Where the last export went (a written path or a downloaded name; "" before one).
    export_done = Unicode("")
    # Bumped after each stage recomputes: views observe these, not the result lists,
    # because equal-looking results (same verdicts) can still carry new traces.
    config_rev = Int(0)
    paths_rev = Int(0)
    tool_rev = Int(0)
    batch_rev = Int(0)

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("host_access", host_access_from_environ())
        kwargs.setdefault("any_output_name", any_output_name_from_environ())
        #: The loaded batch's well-formed calls by their line.
        self._batch_calls: dict[int | None, Call] = {}
        super().__init__(**kwargs)  # held: no recompute until every initial value is in
        self.examples = _example_hosts()
        if not self.host_access and self.target == HOST_TARGET:
            self.target = f"{EXAMPLE_PREFIX}{self.examples[0]}" if self.examples else ""
        if not self.tool_name or self.tool_name not in self.catalog().names():
            self.tool_name = _first_tool(self.catalog())
            if self.tool_name == STARTING_TOOL and self.tool_args_text.strip() in ("", "{}"):
                # A call that means something from the first screen, not an error state.
                self.tool_args_text = json.dumps(STARTING_ARGUMENTS, indent=2)
        self._hold = 0
        self.recompute(everything=True)

    # ------------------------------------------------------------------ scheduling

    @observe(*_CONFIG_INPUTS, *_PATH_INPUTS, *_TOOL_INPUTS, *_BATCH_INPUTS)
    def _input_changed(self, change: dict[str, Any]) -> None:
        name = change["name"]
        if name in _CONFIG_INPUTS:
            stages = {"config", "paths", "tool", "batch"}
        elif name in _PATH_INPUTS:
            stages = {"paths"}
        elif name == "sensitive_text":
            stages = {"tool", "batch"}  # the advice of every probed call
        elif name in _TOOL_INPUTS:
            stages = {"tool"}
        else:
            stages = {"batch"}
        self._request(stages, typed=name in _TYPED)

    @observe("server")
    def _server_changed(self, change: dict[str, Any]) -> None:
        # Another server has other tools: the Tool call tab starts on one of its own.
        catalog = self.catalog()
        if self.tool_name not in catalog.names():
            first = _first_tool(catalog)
            tool = catalog.get(first)
            with self.hold():
                self.tool_name = first
                self.tool_args_text = json.dumps(
                    starting_arguments(tool) if tool is not None else {}, indent=2)

    def catalog(self) -> Any:
        """The selected server's shipped tool catalog (the default server's for an
        unknown id, which the configuration reports as its error)."""
        return server_catalog(self.server)

    @observe("selected")
    def _selected_changed(self, change: dict[str, Any]) -> None:
        self.paths_rev += 1

    # ------------------------------------------------------------------ errors

    def secrets(self) -> set[str]:
        """Values that must never be shown (secret settings of the loaded env)."""
        found: set[str] = set()
        if self.env is not None:
            found |= secret_values(self.env.values)
        found |= secret_values(dict(self.overrides))
        return entry_model.real_secrets(self, found)

    def clean(self, text: str) -> str:
        """``text`` with every known secret value masked."""
        return scrub(text, self.secrets())

    # ------------------------------------------------------------------ actions

    def load_env_path(self, path: str) -> None:
        """Use the ``.env`` at ``path`` on the kernel's machine (re-read if unchanged)."""
        with self.hold():
            if path.strip() != self.env_path or self.env_text is not None:
                self.file_edits = {}  # the bar's edits were to the other file
            self.client_entry = ""  # a .env now: the bar edits it, not the entry
            self.env_text = None
            self.env_name = ""
            self.env_path = path.strip()
            self._stale.update({"config", "paths", "tool", "batch"})

    def load_env_upload(self, name: str, content: bytes | str) -> None:
        """Use an uploaded ``.env`` (the way a Voila user supplies one)."""
        text = upload_text(name, content)
        with self.hold():
            self.file_edits = {}  # a new file: the bar's edits were to the other one
            self.client_entry = ""
            self.env_path = ""
            self.env_name = name or "uploaded .env"
            self.env_from_operator = False
            self.env_text = text

    def clear_env(self) -> None:
        """No ``.env`` at all: only overrides."""
        with self.hold():
            self.env_path = ""
            self.env_name = ""
            self.env_text = None

    def load_spec_upload(self, name: str, content: bytes | str) -> None:
        """Describe the target host with an uploaded JSON spec and select it."""
        text = upload_text(name, content)
        with self.hold():
            self.spec_name = name or "uploaded host"
            self.spec_text = text
            self.target = UPLOAD_TARGET

    def set_override(self, key: str, value: str) -> None:
        """Set (or replace) one override row."""
        rows = [(k, v) for k, v in self.overrides if k != key]
        self.overrides = [*rows, (key, value)]

    def load_batch_upload(self, name: str, content: bytes | str) -> None:
        """Probe the calls of an uploaded JSONL file."""
        text = upload_text(name, content)
        with self.hold():
            self.batch_path = ""
            self.batch_name = name or "uploaded calls"
            self.batch_text = text
            self._stale.add("batch")

    def load_batch_path(self, path: str) -> None:
        """Probe the calls of a JSONL file on the kernel's machine."""
        with self.hold():
            self.batch_text = None
            self.batch_name = ""
            self.batch_path = path.strip()
            self._stale.add("batch")

    def write_export(self, dest: str, *, force: bool = False) -> Any:
        """Write the planned ``.env`` to ``dest`` with the engine's overwrite rules.

        Returns the engine's ``WriteResult``; raises ``ExportError`` / :class:`ExplorerError`
        with a message for the page.
        """
        if not self.host_access:
            raise ExplorerError(
                "writing files on the serving machine is off for a page served to other "
                "machines (serve --allow-host-fs turns it on); use the download link"
            )
        self.recompute()
        plan = self.export_plan
        if plan is None:
            raise ExplorerError(self.export_error or "nothing to export yet")
        if not dest.strip():
            raise ExplorerError("give the path to write the .env to")
        if executable_name(dest.strip()):  # .env.pth: Python runs it from a site dir
            raise ExplorerError(f"{dest.strip()}: a name that is run or imported; refused")
        if not self.any_output_name and not looks_like_env_name(dest.strip()):
            raise ExplorerError(
                f"{dest.strip()}: the page writes only files named like a .env (.env, "
                "NAME.env, .env.NAME); serve --allow-any-output-name lifts this")
        result = plan.write(self.export_path(dest), force=force)
        self.export_done = result.path
        return result

    def export_base(self) -> tuple[str, str]:
        """(directory, what it is) that a relative export destination is taken against.

        The loaded ``.env``'s own directory; for an upload or no file, the startup
        directory the page was served from.
        """
        if self.env_text is None and self.env_path:
            folder = os.path.dirname(os.path.abspath(os.path.expanduser(self.env_path)))
            return folder, "the loaded .env's directory"
        return (os.path.abspath(self.host_cwd or os.getcwd()),
                "the directory the page was started in (the .env was not read from disk)")

    def default_export_dest(self) -> str:
        """``<name>.new`` beside the loaded ``.env`` (``.env.new`` in the base otherwise);
        "" for a visitor's upload, which has no place here: the page offers a download."""
        if self.env_text is not None and not self.env_from_operator:
            return ""
        folder, _ = self.export_base()
        name = os.path.basename(self.env_path or self.env_name or ".env") or ".env"
        return os.path.join(folder, f"{name}.new")

    def export_path(self, dest: str) -> str:
        """The absolute path ``dest`` names: ``~`` expanded, relative to :meth:`export_base`."""
        path = os.path.expanduser(dest.strip())
        if not os.path.isabs(path):
            path = os.path.join(self.export_base()[0], path)
        return os.path.normpath(path)

    def export_download_name(self) -> str:
        """The downloaded file's name: the source file's own name (``.env`` by default)."""
        name = self.env_name if self.env_text is not None else self.env_path
        name = os.path.basename((name or "").rstrip("/\\")) or ".env"
        return f"server{name}" if name.startswith(".") else name  # browsers drop a dot

    def batch_call(self, line: int | None) -> dict[str, Any]:
        """The ``{"name", "arguments"}`` call on 1-based ``line`` of the loaded batch."""
        call = self._batch_calls.get(line)
        if call is None:
            raise ExplorerError(f"line {line} of the batch is not a call")
        return {"name": call.name, "arguments": dict(call.arguments)}

    def download_text(self) -> tuple[bytes | None, str]:
        """The exported ``.env`` as the page may hand it to the browser, and a note."""
        from .downloads import env_download

        return env_download(self)

    def batch_csv(self) -> bytes:
        """The batch result as CSV (one row per call and path), as the CLI writes it."""
        from ..probe import VerdictCsv

        buffer = io.StringIO()
        table = VerdictCsv(buffer)
        for v in self.batch_verdicts:
            table.write(v)
        return buffer.getvalue().encode("utf-8")

    # ------------------------------------------------------------------ stages

    def _target(self) -> tuple[str | dict[str, Any] | None, str, str]:
        """The target host as a :class:`ServerConfig` names it, its label and description."""
        target = self.target
        if target == HOST_TARGET:
            if not self.host_access:
                raise ExplorerError(
                    "this machine's filesystem can't be probed from a page served to other "
                    "machines (serve --allow-host-fs turns it on); pick an example or "
                    "upload a host spec"
                )
            return None, "this machine", "The machine the Explorer's kernel runs on."
        if target.startswith(EXAMPLE_PREFIX):
            from ..fs.spec import example_host_path

            name = target[len(EXAMPLE_PREFIX):]
            if name not in self.examples:
                # Only a shipped example: anything else would be a file of this machine.
                raise ExplorerError(f"no example host named {name!r}")
            try:
                data = json.loads(example_host_path(name).read_text(encoding="utf-8"))
                description = str(data.get("description") or "")
            except (OSError, ValueError):
                description = ""
            return name, f"example host {name}", description
        if target == UPLOAD_TARGET:
            if not self.spec_text:
                raise ExplorerError("upload a host spec (JSON) first")
            data = content_json(self.spec_text, self.spec_name or "uploaded host")
            return data, f"uploaded host {self.spec_name}", str(data.get("description") or "")
        raise ExplorerError("no target host is available: pick one")

    def server_config(self) -> ServerConfig:
        """The server configuration the inputs describe (what the CLI's options would say).

        Relative names mean relative to ``host_cwd`` (where ``serve`` was started), else
        to the kernel's working directory. Raises :class:`ExplorerError` for an input the
        page may not use (this machine's files when served to other machines).
        """
        host, _label, _description = self._target()
        env: str | None = None
        if self.env_text is None and self.env_path:
            if not self.host_access:
                raise ExplorerError(
                    "reading a .env from the serving machine is off for a page served to "
                    "other machines; upload the file instead"
                )
            env = self.env_path
        uploaded = self.env_text is not None
        return ServerConfig(
            env=env, env_text=self._edited_text(env, self.env_text),
            env_name=(self.env_name or "uploaded .env") if uploaded else None,
            settings={k: v for k, v in self.overrides if k},
            unset=[k for k in self.unset if k], lenient=self.lenient,
            transport=cast("Transport", self.transport), over_http=self._over_http(),
            cwd=self.cwd.strip() or None, package_dir=self.package_dir.strip() or None,
            host=host, platform=cast("Platform", self.platform),
            server=self.server or DEFAULT_SERVER, server_version=self.server_version or None,
            server_options=dict(self.server_options),
            base_dir=self.host_cwd or None,
        )

    @staticmethod
    def options_for(config: ServerConfig, *, spec_name: str | None = None) -> dict[str, Any]:
        """The model options (JSON-friendly trait values) that describe ``config``.

        The inverse of :meth:`server_config`, holding only what differs from the model's
        defaults. A host spec must be given as a mapping (read the file first).
        """
        options: dict[str, Any] = {}
        if config.env_text is not None:
            options["env_text"] = config.env_text
            options["env_name"] = config.env_name or "uploaded .env"
        elif config.env:
            base = config.base_dir or os.getcwd()
            options["env_path"] = os.path.realpath(
                os.path.join(base, os.path.expanduser(config.env)))
        if config.settings:
            options["overrides"] = [[k, v] for k, v in config.settings.items()]
        if config.unset:
            options["unset"] = list(config.unset)
        if config.lenient:
            options["lenient"] = True
        if config.transport != "stdio":
            options["transport"] = config.transport
        if config.server != DEFAULT_SERVER:
            options["server"] = config.server
        if config.server_version:
            options["server_version"] = config.server_version
        if config.server_options:
            options["server_options"] = dict(config.server_options)
        if config.platform != "posix":
            options["platform"] = config.platform
        if config.over_http is not None:
            options["over_http"] = "yes" if config.over_http else "no"
        for name in ("cwd", "package_dir"):
            if getattr(config, name):
                options[name] = getattr(config, name)
        host = config.host
        if isinstance(host, dict):
            options.update(spec_text=json.dumps(host), spec_name=spec_name or "host spec",
                           target=UPLOAD_TARGET)
        elif host not in (None, HOST_TARGET):
            options["target"] = f"{EXAMPLE_PREFIX}{host}"
        if config.base_dir:
            options["host_cwd"] = config.base_dir
        return options

    def _compute_config(self) -> None:
        self.config_error = ""
        env = None
        try:
            try:
                _host, label, description = self._target()
            except ExplorerError:
                self.target_label, self.target_description = "", ""
                raise
            self.target_label, self.target_description = label, description
            config = self.server_config()
            hide_everywhere(entry_model.real_secrets(self, secret_values(config.settings)))
            resolved = resolve_config(config)
            env = resolved.env
            hide_everywhere(entry_model.real_secrets(self, secret_values(env.values)))
        except (ExplorerError, ConfigError, ValueError, OSError) as exc:
            # ValueError covers a bad row or host spec (HostSpecError) and the like.
            self.env = env
            self.config_error = self.clean(str(exc))
            self.policy = None
            self.registration = None
            self.auth_status = {}
            self.auth_error = ""
            self.export_plan = None
            self.export_error = self.config_error
            entry_model.compute_writeback(self)  # its own validation says why it is refused
            self.config_rev += 1
            return
        env, policy = entry_model.credit_edits_to_bar(self, env, resolved.policy)
        self.env = env
        self.policy = policy
        self.registration = resolved.registration
        self._compute_auth()
        self._compute_export(config, resolved)
        self.config_rev += 1

    def _edited_text(self, source: str | None, text: str | None) -> str | None:
        """The ``.env`` text with the policy bar's edits written in (None: read the file)."""
        if not self.file_edits:
            return text
        from ..envfile.edit import edit_env_text
        from ..envfile.load import read_env_text

        if text is None:
            text = read_env_text(Path(source)) if source else ""
        return edit_env_text(text, self._edit_set(), self._edit_unset()).text

    def _edit_set(self) -> dict[str, str]:
        return {k: v for k, v in self.file_edits.items() if k and v is not None}

    def _edit_unset(self) -> list[str]:
        return [k for k, v in self.file_edits.items() if k and v is None]

    def set_file_value(self, key: str, value: str | None) -> None:
        """Edit ``key`` in the ``.env`` being prepared (None takes it out of the file); with
        a client-config entry in use, in that entry's environment."""
        if self.client_entry:
            return entry_model.set_entry_value(self, key, value)
        self.file_edits = {**self.file_edits, key: value}

    def file_value(self, key: str, *, expanded: bool = False) -> str | None:
        """``key``'s value in the ``.env`` being prepared (edits applied; None: absent), as
        the file spells it (``${VAR}`` kept: an edit built on it must not write a secret in
        clear); ``expanded``: as the server reads it."""
        if self.client_entry:  # the entry's environment is the server's: no .env
            return dict(self.overrides).get(key)
        env = self.env
        if expanded and env is not None and key not in env.from_process:
            return env.values.get(key)  # read from the edited text: edits included
        if key in self.file_edits:
            return self.file_edits[key]
        return self._raw_file_value(key)

    def _env_source(self) -> tuple[str | None, str | None]:
        """(name or path, text) of the loaded .env: text is None when it is a file here."""
        if self.env_text is not None:
            return self.env_name or "uploaded .env", self.env_text
        if self.env_path:
            if not self.host_access:
                raise ExplorerError(
                    "reading a .env from the serving machine is off for a page served to "
                    "other machines; upload the file instead"
                )
            return os.path.expanduser(self.env_path), None
        return None, None

    def _raw_file_value(self, key: str) -> str | None:
        try:
            source, text = self._env_source()
            if text is None:
                if not source:
                    return None
                from ..envfile.load import read_env_text

                text = read_env_text(Path(source))
        except (ExplorerError, ValueError, OSError):
            return None
        from ..envfile.load import parse_env_text

        value = None
        for k, v in parse_env_text(text, strict=False)[0]:
            if k == key:
                value = v
        return value

    def change_destinations(self) -> list[tuple[str, str]]:
        """Each pending change as (key, where it goes): the ``.env``, the process, an entry."""
        if self.client_entry:
            return entry_model.entry_destinations(self)
        rows = [(key, ".env (policy bar)") for key in self.file_edits if key]
        for key, _value in self.overrides:
            if not key:
                continue
            rows.append((key, ".env (process-environment override, written too)"
                         if self.export_overrides else
                         "process environment only: not written to the .env"))
        rows += [(key, ".env (unset: taken out)") for key in self.unset if key]
        return rows

    def _compute_auth(self) -> None:
        self.auth_error = ""
        # The server's own status answer (mcp-gee-sweet's auth-status resource).
        self.auth_status = server_of(self.policy).status(self.policy, self.registration)

    def _compute_export(self, config: ServerConfig, resolved: ResolvedConfig) -> None:
        entry_model.compute_writeback(self)
        self.export_error = ""
        # The loaded .env as it is: the edits (and, when asked, the overrides) are the
        # changes written into it; the overrides otherwise stay the process environment.
        from ..envfile.export import ExportError, export_env

        source = config.env_name if self.env_text is not None else resolved.env_path
        original = self.env_text
        overrides = dict(config.settings)
        written = {**self._edit_set(), **overrides} if self.export_overrides \
            else self._edit_set()
        try:
            self.export_plan = export_env(
                source,
                set=written,
                unset=[*self._edit_unset(), *config.unset],
                text=original,
                config=config.model_copy(update={
                    "settings": {} if self.export_overrides else overrides,
                    "unset": []}),
            )
        except ExportError as exc:
            self.export_plan = None
            self.export_error = self.clean(str(exc))

    def _over_http(self) -> bool | None:
        return {"auto": None, "yes": True, "no": False}[self.over_http]

    def path_lines(self) -> list[str]:
        """The paths of the Paths text: one per line, blank lines skipped, spelling kept."""
        return [line.rstrip("\r") for line in self.paths_text.split("\n") if line.strip()]

    def _compute_paths(self) -> None:
        self.paths_error = ""
        policy = self.policy
        if policy is None:
            self.decisions = []
            self.paths_rev += 1
            return
        lines = self.path_lines()
        if len(lines) > MAX_PATHS:
            self.paths_error = f"only the first {MAX_PATHS} of {len(lines)} paths are checked"
            lines = lines[:MAX_PATHS]
        over_http = self._over_http()
        with policy.many_checks() as batch:
            decisions = [batch.check(p, self.op, over_http=over_http) for p in lines]
        self.decisions = decisions
        if self.selected >= len(decisions) or self.selected < 0:
            self.selected = 0
        self.paths_rev += 1

    def _compute_tool(self) -> None:
        self.call_error = ""
        self.call_verdict = None
        hangar_model.compute(self)
        try:
            if self.policy is None:
                return
            if not self.tool_name:
                self.call_error = "pick a tool"
                return
            from ..probe import ProbeError, probe_call
            from .forms import ArgumentsError, parse_arguments, placeholders_judged

            try:
                arguments = parse_arguments(self.tool_args_text)
                access = self._access()
                self.call_verdict = probe_call(
                    self.policy, self.tool_name, arguments, over_http=self._over_http(),
                    access=access, registration=self.registration,
                    extra_sensitive=split_patterns(self.sensitive_text),
                )
                todo = placeholders_judged(self.call_verdict)
                if todo and self.call_verdict.outcome != "absent":  # absent: whatever paths
                    # A generated call's "<local_path>" is a blank to fill in, not a path:
                    # its verdict would be about a file of that name in the start-up
                    # directory, which nobody asked about.
                    self.call_verdict = None
                    self.call_error = f"fill in {todo}: no verdict until it names a path"
            except (ArgumentsError, ProbeError, ExplorerError) as exc:
                self.call_error = self.clean(str(exc))
            except ValueError as exc:  # the access lists' own error type is a ValueError
                self.call_error = self.clean(str(exc))
        finally:
            self.tool_rev += 1

    def _access(self) -> Any:
        """The tool access in force: the hangar route when in use, else the typed lists."""
        return hangar_model.tool_access(self)

    def _compute_batch(self) -> None:
        self.batch_error = ""
        if self.batch_text is None and not self.batch_path:
            self.batch_verdicts = []
            self.batch_total = self.batch_done = 0
            self.batch_rev += 1
            return
        if self.policy is None:
            self.batch_verdicts = []
            self.batch_error = "fix the configuration first"
            self.batch_rev += 1
            return
        from ..probe import ProbeError, iter_call_verdicts

        try:
            if self.batch_text is not None:
                # An upload is read by the same reader as a file, under its own name.
                text, source = self.batch_text, self.batch_name or "uploaded calls"
            else:
                if not self.host_access:
                    raise ExplorerError(
                        "reading files on the serving machine is off for a page served to "
                        "other machines; upload the calls instead"
                    )
                source = os.path.expanduser(self.batch_path)
                text = read_text(source, ExplorerError)
            calls = list(parse_calls(text, source))
            self._batch_calls = {c.line: c for c in calls if isinstance(c, Call)}
            total = len(calls)
            if total > MAX_BATCH_CALLS:
                raise ExplorerError(f"{total} calls: at most {MAX_BATCH_CALLS} per batch")
            self.batch_total = total
            self.batch_done = 0
            self.batch_running = True
            verdicts = []
            step = max(1, total // 50)  # ~50 progress updates, not one message per call
            for v in iter_call_verdicts(self.policy, calls,
                                        over_http=self._over_http(),
                                        access=self._access(),
                                        registration=self.registration,
                                        extra_sensitive=split_patterns(
                                            self.sensitive_text)):
                verdicts.append(v)
                if len(verdicts) % step == 0:
                    self.batch_done = len(verdicts)
            self.batch_done = len(verdicts)
            self.batch_verdicts = verdicts
        except (ProbeError, ExplorerError, ValueError) as exc:
            self.batch_verdicts = []
            self.batch_error = self.clean(str(exc))
        finally:
            self.batch_running = False
            self.batch_rev += 1


def _first_tool(catalog: Any) -> str:
    names = catalog.names()
    if STARTING_TOOL in names:
        return STARTING_TOOL
    return names[0] if names else ""
