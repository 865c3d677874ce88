"""From a client config entry to the server's configuration: :func:`load_deployment`.

The entry is read (:mod:`.readers`), its strings expanded the way its client expands
them (:mod:`.expand`), its command line read for the server, version and arguments
(:mod:`.launch`), and its environment put together the way the client starts the
process: ``envFile`` first, the entry's ``env`` over it (VS Code and Cursor); for a
``docker run``, only what ``-e``/``--env``/``--env-file`` hand to the container.
Every value says where it came from (:class:`Provenance`): the entry, its ``envFile``,
or a default the explorer filled in because the entry says nothing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..secrets import note_secret_values, note_secrets, scrub, secret_values, shown_value
from ..server import get_server, list_servers
from .expand import Expander, Unresolved
from .launch import Mount, identify
from .launchers import Unwrapped, unwrap
from .readers import (
    CLIENT_NAMES,
    ClientConfigFile,
    ClientEntry,
    ClientFormat,
    DeploymentError,
    read_client_config,
)

if TYPE_CHECKING:
    from ..config import ServerConfig

__all__ = [
    "Deployment",
    "Provenance",
    "choose_entry",
    "list_entries",
    "load_deployment",
]

#: Where a value came from.
Source = Literal["entry", "envFile", "container", "default"]


class Provenance(BaseModel):
    """One setting of the deployment and where its value came from."""

    model_config = ConfigDict(frozen=True)

    #: ``server``, ``version``, ``transport``, ``cwd``, ``env KEY``, ``allowed dir``...
    setting: str
    #: The value as it may be shown (secrets masked).
    value: str | None
    source: Source
    #: Where in the entry, or why this default (``args, line 7``; ``expanded ${HOME}``).
    detail: str = ""
    line: int | None = None

    def describe(self) -> str:
        where = f"{self.source}" + (f", line {self.line}" if self.line else "")
        detail = f" ({self.detail})" if self.detail else ""
        value = "(not set)" if self.value is None else self.value
        return f"{self.setting} = {value}  [{where}]{detail}"


class Deployment(BaseModel):
    """A server as one client entry launches it."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    path: str
    format: ClientFormat
    entry: str
    line: int | None = None
    #: The registry id of the server.
    server: str
    #: The version pinned in the command, None when it is not pinned.
    server_version: str | None = None
    #: The command line exactly as the client runs it (expanded).
    argv: list[str]
    transport: str = "stdio"
    #: The server process's environment from the entry (secrets: see ``masked_env``).
    env: dict[str, str] = Field(default_factory=dict, repr=False)
    #: The entry's ``envFile``, resolved (None when it has none).
    env_file: str | None = None
    #: The working directory the client starts the server in (None: the client's own,
    #: which the file doesn't say).
    cwd: str | None = None
    #: Settings the server's arguments give over its environment (``ENABLED_TOOLS``).
    arg_settings: dict[str, str] = Field(default_factory=dict)
    #: The server's own options its arguments give (its allowed directories).
    server_options: dict[str, Any] = Field(default_factory=dict)
    #: The values its arguments give those options, as written (its allowed directories).
    arg_paths: list[str] = Field(default_factory=list)
    #: Whether the server runs in a container (``docker run``), and its mounts.
    container: bool = False
    mounts: list[Mount] = Field(default_factory=list)
    provenance: list[Provenance] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    #: How the file may be read otherwise (a repeated key, a byte-order mark), each
    #: ``FILE:LINE: ...``: what the answers assume about it.
    warnings: list[str] = Field(default_factory=list)
    #: Secret values the entry's settings hold, secret-named or expanded from a secret
    #: variable into another setting (``cwd: /tmp/${GITHUB_TOKEN}``): masked wherever
    #: they land.
    secrets: frozenset[str] = Field(default=frozenset(), repr=False, exclude=True)

    @property
    def client(self) -> str:
        return CLIENT_NAMES[self.format]

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path

    def masked_env(self) -> dict[str, str | None]:
        """The entry's environment with secret values masked, for display (a secret
        expanded into another value too)."""
        return {k: None if v is None else scrub(v, self.secrets)
                for k, v in ((k, shown_value(k, v)) for k, v in self.env.items())}

    def settings(self) -> dict[str, str]:
        """The server process's variables the entry sets, with the settings its
        arguments give over them."""
        return {**self.env, **self.arg_settings}

    def server_config(self, **changes: Any) -> ServerConfig:
        """The :class:`ServerConfig` of this deployment (``changes`` on top).

        The server it starts, at the pinned release when the explorer models it; the
        entry's environment as the server process's (``settings``); its transport and
        working directory as the client starts it (an entry that names none: the current
        directory, as the command line assumes); the server's own options its
        arguments give.
        """
        from ..config import ServerConfig

        fields: dict[str, Any] = {
            "server": self.server, "server_version": self.modelled_version(),
            "settings": self.settings(), "transport": self.transport, "cwd": self.cwd,
        }
        if self.server_options:
            fields["server_options"] = dict(self.server_options)
        fields.update(changes)
        return ServerConfig(**fields)

    def modelled_version(self) -> str | None:
        """The release to ask the explorer for: the pin when it is a modelled release other
        than the default one; None (the default, newest modelled) otherwise, so a pin on
        the default release gives the configuration given without ``--server-version``."""
        versions = _versions(self.server)
        if self.server_version in versions[1:]:
            return self.server_version
        return None

def _versions(server: str) -> tuple[str, ...]:
    """The releases of ``server`` the explorer models (none when it isn't registered)."""
    from ..server import ServerError, get_server

    try:
        return tuple(get_server(server).versions)
    except ServerError:
        return ()


def _workspace(path: str) -> str | None:
    """The folder a client has open, when the config sits in its ``.vscode``/``.cursor``."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.basename(folder) in (".vscode", ".cursor"):
        return os.path.dirname(folder)
    return None


def _default_cwd(config: ClientConfigFile) -> tuple[str | None, str]:
    """Where the client starts a server whose entry gives no ``cwd``, and why."""
    fmt = config.format
    workspace = _workspace(config.path)
    if fmt in ("vscode", "cursor") and workspace is not None:
        return workspace, f"{CLIENT_NAMES[fmt]} starts servers in the workspace folder"
    if fmt == "claude-code":
        return (os.path.dirname(os.path.abspath(config.path)),
                "Claude Code starts servers in the project folder, where .mcp.json is")
    return None, (f"{CLIENT_NAMES[fmt]}'s own working directory, which the file doesn't "
                  "say; this directory is assumed")


def list_entries(path: str | os.PathLike[str], format: str | None = None,
                 *, environ: Mapping[str, str] | None = None,
                 text: str | None = None, read_files: bool = True) -> list[dict[str, Any]]:
    """Every entry of a client config: name, line, server (None when unknown), version,
    and the problem with it, if any. For pickers (the dashboard's, ``--entry``'s help).
    ``read_files`` False opens no local copy's metadata (a page served to others)."""
    config = read_client_config(path, format, text=text)
    rows = []
    for entry in config.entries:
        server, version, problem = _classify(config, entry, environ, read_files)
        rows.append({"name": entry.name, "line": entry.line, "server": server,
                     "version": version, "problem": problem, "format": config.format})
    return rows


def _classify(config: ClientConfigFile, entry: ClientEntry,
              environ: Mapping[str, str] | None, read_files: bool = True
              ) -> tuple[str | None, str | None, str | None]:
    if entry.problems:
        return None, None, entry.problems[0]
    env = os.environ if environ is None else environ
    expander = Expander(config.format, env, _workspace(config.path))
    argv = _argv(entry, expander)
    if argv is None:
        return None, None, "a remote (URL) entry" if entry.url else "no command"
    launch = identify(unwrap_launch(config, argv, read_files).argv, env)
    return launch.server, launch.version, None


def unwrap_launch(config: ClientConfigFile, argv: list[str],
                  read_files: bool = True, base: str | None = None) -> Unwrapped:
    """``argv`` with a local launcher (``uv run --directory``, ``npm --prefix``, ``node``
    on a local build) read off (:mod:`.launchers`), relative to ``base``, where the
    client starts the command (default: where it starts servers without a ``cwd``)."""
    base = base or _default_cwd(config)[0] or os.getcwd()
    return unwrap(argv, base, read_files=read_files,
                  known=lambda words: identify(words).server is not None)


def _argv(entry: ClientEntry, expander: Expander) -> list[str] | None:
    command = expander.expand(entry.command, "command") if entry.command else None
    args = [expander.expand(a, "args") for a in entry.args]
    if entry.type in ("docker", "container") and entry.image:
        # hangar's docker mode: its command and args override the image's.
        inside = [command, *args] if command else args
        return ["docker", "run", *_hangar_docker_options(entry), entry.image, *inside]
    if command is None:
        return None
    return [command, *args]


def _hangar_docker_options(entry: ClientEntry) -> list[str]:
    options = ["-i", "--rm"]
    for key in entry.env:
        options += ["-e", key]
    for volume in entry.volumes:
        options += ["-v", volume]
    return options


def choose_entry(config: ClientConfigFile, entry: str | None,
                 environ: Mapping[str, str] | None = None,
                 read_files: bool = True) -> ClientEntry:
    """The entry ``entry`` names, or the one entry that starts a known server."""
    if not config.entries:
        why = f" ({config.warnings[0]})" if config.warnings else ""
        raise DeploymentError(f"{config.path}: no server entries{why}")
    if entry is not None:
        found = config.entry(entry)
        if found is None:
            names = ", ".join(repr(e.name) for e in config.entries[:12])
            raise DeploymentError(f"{config.path}: no entry named {entry!r} (entries: {names})")
        return found
    known = [(e, _classify(config, e, environ, read_files)) for e in config.entries]
    servers = [(e, c) for e, c in known if c[0] is not None]
    if len(servers) == 1:
        return servers[0][0]
    if not servers:
        broken = [e for e in config.entries if e.problems]
        if broken:
            # A malformed entry may be the one meant: say what is wrong with it.
            raise DeploymentError(broken[0].problems[0])
        from .launchers import package_words

        def runs(e: ClientEntry) -> str:
            if e.command:  # as written (nothing expanded), up to its package
                return f"{e.name!r} runs {package_words([e.command, *e.args])!r}"
            return f"{e.name!r} ({'a URL' if e.url else 'no command'})"

        names = "; ".join(runs(e) for e in config.entries[:12])
        raise DeploymentError(f"{config.path}: no entry starts a server the explorer models "
                              f"({', '.join(list_servers())}): {names}; 'localfs-explorer "
                              "deployment' answers for every entry")
    names = ", ".join(f"{e.name!r} ({c[0]}, line {e.line})" if e.line else f"{e.name!r}"
                      for e, c in servers)
    raise DeploymentError(f"{config.path}: {len(servers)} entries start a known server "
                          f"({names}); choose one with --entry NAME")


def load_deployment(path: str | os.PathLike[str], entry: str | None = None,
                    format: str | None = None, *, environ: Mapping[str, str] | None = None,
                    inputs: Mapping[str, str] | None = None,
                    overridden: Iterable[str] = (), text: str | None = None,
                    read_files: bool = True) -> Deployment:
    """The deployment an MCP client config entry describes.

    Args:
        path: the client's config file (Claude Desktop, Claude Code, Cursor, VS Code,
            mcp-hangar).
        entry: the entry's name; None picks the one entry that starts a known server.
        format: the client format, instead of recognising it from the file.
        environ: the client's environment, for ``${VAR}`` and docker's ``-e KEY``
            (default: this process's).
        inputs: answers to VS Code's ``${input:ID}`` prompts, when the caller has them.
        overridden: environment keys the caller sets itself (``--set``): a prompt in
            one of them needs no answer.
        text: the file's contents when they came from elsewhere (an upload).
        read_files: whether the entry's ``envFile`` (or docker's ``--env-file``) may be
            read from this machine (a page served to others may not).

    Raises :class:`DeploymentError` (one line, ``FILE:LINE:`` first) for a malformed
    file, a missing entry, an entry of an unknown server, two known servers and no
    ``entry``, and a variable that can't be resolved.
    """
    config = read_client_config(path, format, text=text)
    env_in = dict(os.environ) if environ is None else dict(environ)
    chosen = choose_entry(config, entry, env_in, read_files)
    return _deployment(config, chosen, env_in, dict(inputs or {}), set(overridden),
                       read_files)


def _deployment(config: ClientConfigFile, entry: ClientEntry, environ: dict[str, str],
                inputs: dict[str, str], overridden: set[str],
                read_files: bool = True) -> Deployment:
    path, fmt = config.path, config.format
    here = f"{path}:{entry.line}" if entry.line else path
    if entry.problems:
        raise DeploymentError(entry.problems[0])
    if entry.command is None and not entry.image:
        if entry.url:
            raise DeploymentError(
                f"{here}: entry {entry.name!r} is a remote server ({_shown_url(entry.url)}): "
                "which server answers there can't be told from the file; give its settings "
                "with --set, or use verify --url")
        raise DeploymentError(f"{here}: entry {entry.name!r} has no command")
    workspace = _workspace(path)
    expander = Expander(fmt, environ, workspace, inputs)
    argv = _argv(entry, expander)
    assert argv is not None
    # Where the client starts the command: a launcher's own directory is relative to it.
    client_cwd = None
    if entry.cwd:
        raw_cwd = expander.expand(entry.cwd, "cwd")
        client_cwd = os.path.normpath(os.path.join(
            workspace or os.path.dirname(os.path.abspath(path)),
            os.path.expanduser(raw_cwd or ".")))
    unwrapped = unwrap_launch(config, argv, read_files, base=client_cwd)
    launch = identify(unwrapped.argv, environ)
    launch.notes[:0] = unwrapped.notes
    if launch.server is None:
        # The command up to the package it runs: later arguments may hold a secret.
        from .launchers import package_words

        at = entry.line_of("command")
        prefix = f"{path}:{at}" if at else path
        raise DeploymentError(
            f"{prefix}: entry {entry.name!r} runs {package_words(argv)!r}, which the "
            f"explorer doesn't model (it models {', '.join(list_servers())})")
    provenance: list[Provenance] = []

    def line(field: str) -> int | None:
        return entry.line_of(field)

    def arg_line(value: str) -> int | None:
        """The line of the argument ``value`` (its last occurrence), else of ``args``."""
        for i in range(len(argv) - 1, 0, -1):
            if argv[i] == value:
                return entry.lines.get(f"args.{i - 1}", line("args"))
        return line("args")

    provenance.append(Provenance(setting="server", value=launch.server, source="entry",
                                 detail=f"command: {launch.how}", line=line("command")))
    if launch.version:
        provenance.append(Provenance(
            setting="version", value=launch.version, source="entry",
            detail=(f"the local copy's, {unwrapped.version_from} ({unwrapped.how})"
                    if unwrapped.version_from else "pinned in the command"),
            line=line("command")))
        modelled = _versions(launch.server)
        if modelled and launch.version not in modelled:
            launch.notes.append(f"the entry pins {launch.server} {launch.version}, which the "
                                f"explorer doesn't model ({', '.join(modelled)}); the answers "
                                "are for the newest modelled release")
    else:
        provenance.append(Provenance(
            setting="version", value=None, source="default",
            detail=("the copy the client bundles with the extension, whose release the file "
                    "doesn't say" if fmt == "claude-extension"
                    else "not pinned: whatever the launcher installs")))

    # The environment: envFile, then env over it; a container sees only what docker
    # hands it.
    entry_env: dict[str, str] = {}
    origin: dict[str, tuple[Source, str, int | None]] = {}
    env_file = None
    if entry.env_file:
        raw = expander.expand(entry.env_file, "envFile")
        base = workspace or os.path.dirname(os.path.abspath(path))
        env_file = os.path.normpath(os.path.join(base, os.path.expanduser(raw)))
        where = f"{path}:{line('envFile')}"
        for key, value in _read_env_file(env_file, where, read_files).items():
            entry_env[key] = value
            origin[key] = ("envFile", env_file, None)
    for key, raw in entry.env.items():
        entry_env[key] = expander.expand(raw, f"env.{key}")
        used = expander.used.get(f"env.{key}")
        origin[key] = ("entry", f"expanded {', '.join(used)}" if used else "env",
                       line(f"env.{key}"))
    _raise_unresolved(path, entry, expander.unresolved, overridden)

    env: dict[str, str] = entry_env
    if launch.container:
        env = {}
        for env_path in launch.env_files:
            # docker reads it relative to where the client starts it.
            start = _default_cwd(config)[0] or os.path.dirname(os.path.abspath(path))
            full = os.path.normpath(os.path.join(start, os.path.expanduser(env_path)))
            for key, value in _read_env_file(full, f"{path}:{line('args')}",
                                             read_files).items():
                env[key] = value
                origin[key] = ("container", f"docker --env-file {env_path}", line("args"))
        for key, cvalue in launch.container_env.items():
            if cvalue is None:
                # `-e KEY`: docker passes the value its own environment has: the entry's
                # env, else the client's.
                cvalue = entry_env.get(key, environ.get(key))
                if cvalue is None:
                    continue
                how = "docker -e " + key + (", value from the entry's env"
                                            if key in entry_env else
                                            ", value from the client's environment")
            else:
                how = f"docker -e {key}=..."
            env[key] = cvalue
            origin[key] = ("container", how, line("args"))
        dropped = sorted(set(entry_env) - set(launch.container_env))
        if dropped:
            launch.notes.append(
                "the entry's env sets " + ", ".join(dropped) + " for the docker command, "
                "not for the server: the container sees only what -e/--env-file pass in")
    note_secrets(without_prompts(env))
    for key in sorted(env):
        source, detail, at = origin[key]
        provenance.append(Provenance(setting=f"env {key}", value=shown_value(key, env[key]),
                                     source=source, detail=detail, line=at))

    # The transport, as the server reads it from its arguments.
    server = get_server(launch.server)
    transport = "stdio"
    if launch.transport is not None:
        transport = launch.transport
        if transport not in server.transports:
            raise DeploymentError(
                f"{path}:{arg_line(transport)}: entry {entry.name!r}: --transport {transport!r} "
                f"makes {server.id} exit (it serves {', '.join(server.transports)})")
        provenance.append(Provenance(setting="transport", value=transport, source="entry",
                                     detail="--transport in the arguments",
                                     line=arg_line(transport)))
    elif len(server.transports) > 1:
        provenance.append(Provenance(setting="transport", value="stdio", source="default",
                                     detail="no --transport in the arguments"))
    if transport != "stdio":
        launch.notes.append(
            f"the server serves {transport} while {CLIENT_NAMES[fmt]} talks to it over "
            "stdin/stdout: the client won't reach it")
    for key, value in launch.settings.items():
        option = launch.settings_from.get(key, "an argument")
        provenance.append(Provenance(
            setting=f"env {key}", value=shown_value(key, value), source="entry",
            detail=f"{option} in the arguments, which wins over {key}", line=line("args")))

    # The working directory: the entry's cwd, where a launcher may change directory again
    # (uv run --directory, relative to the cwd the client starts it in).
    cwd: str | None = client_cwd
    if entry.cwd:
        _raise_unresolved(path, entry, expander.unresolved, overridden)
    if unwrapped.startup_dir is not None:
        cwd = unwrapped.startup_dir
        provenance.append(Provenance(setting="cwd", value=cwd, source="entry",
                                     detail=f"{unwrapped.how}: the server starts there",
                                     line=line("args")))
    elif entry.cwd:
        provenance.append(Provenance(setting="cwd", value=cwd, source="entry", detail="cwd",
                                     line=line("cwd")))
    elif launch.container:
        cwd = launch.workdir
        provenance.append(Provenance(
            setting="cwd", value=cwd, source="container" if cwd else "default",
            detail="docker -w" if cwd else "the image's working directory", line=None))
    else:
        cwd, why = _default_cwd(config)
        provenance.append(Provenance(setting="cwd", value=cwd, source="default", detail=why))
    for setting, value in launch.shown:
        provenance.append(Provenance(setting=setting, value=value, source="entry",
                                     detail="an argument of the server", line=arg_line(value)))
    for mount in launch.mounts:
        provenance.append(Provenance(setting="mount", value=mount.describe(),
                                     source="container", detail="docker -v/--mount",
                                     line=line("args")))
    shown = windows_paths([*(v for _, v in launch.shown), *env.values()])[:3]
    if shown and not launch.container:
        launch.notes.append(
            f"{', '.join(shown)}: Windows paths; the directories can't be checked on this "
            "machine, whose answers read them as relative names " + WINDOWS_NOTE_END)
    if launch.container:
        launch.notes.append("the server runs in a container: its paths are the "
                            "container's" + (", and reach the host only through the mounts"
                                             if launch.mounts else " (no host folder is "
                                             "mounted)"))
    # A secret expanded into any value (a root, the working directory) is masked in
    # everything shown from here, and by the command line in everything it prints.
    secrets = frozenset({*expander.secrets, *secret_values(without_prompts(env)),
                         *secret_values(without_prompts(entry_env))})
    note_secret_values(secrets)
    if secrets:
        provenance = [p.model_copy(update={
            "value": None if p.value is None else scrub(p.value, secrets),
            "detail": scrub(p.detail, secrets)}) for p in provenance]
        launch.notes = [scrub(note, secrets) for note in launch.notes]
    return Deployment(
        path=path, format=fmt, entry=entry.name, line=entry.line, server=launch.server,
        server_version=launch.version, argv=argv, transport=transport, env=env,
        env_file=env_file, cwd=cwd, arg_settings=launch.settings,
        server_options=launch.options, arg_paths=[v for _, v in launch.shown],
        container=launch.container,
        mounts=launch.mounts, provenance=provenance, notes=launch.notes,
        warnings=list(config.warnings), secrets=secrets,
    )


#: How the note on an entry's Windows paths ends (a described Windows host drops it).
WINDOWS_NOTE_END = "(answer on the Windows machine itself, or describe it with --fs)"

#: A Windows drive path (``C:\\x``, ``C:/x``) or UNC path (``\\\\host\\share``).
_WINDOWS_PATH = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\[^\\]+\\)")


def windows_paths(values: Iterable[str]) -> list[str]:
    """The values (or ``;``/``,``-separated parts of them) that are Windows paths."""
    return [v for v in values
            if any(_WINDOWS_PATH.match(part.strip()) for part in re.split(r"[;,]", v))]


def without_prompts(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` without the values still a VS Code prompt (``${input:ID}``): the text of a
    prompt is no secret, and masking it would hide ``${input`` in every message."""
    return {k: v for k, v in env.items() if "${input:" not in v}


def _shown_url(url: str) -> str:
    """``url`` without credentials, query or fragment (any of them may hold a secret)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "a URL"
    return f"{parts.scheme}://{host}{port}{parts.path}" if parts.scheme else "a URL"


def _raise_unresolved(path: str, entry: ClientEntry, unresolved: list[Unresolved],
                      overridden: set[str]) -> None:
    for item in unresolved:
        key = item.field[4:] if item.field.startswith("env.") else None
        if key is not None and key in overridden:
            continue  # the caller gives this variable itself
        where = f"{path}:{entry.line_of(item.field)}" if entry.line else path
        hint = (f"; give its value with --set {key}=VALUE" if key is not None else "")
        raise DeploymentError(f"{where}: entry {entry.name!r} {item.field}: {item.variable} "
                              f"can't be resolved: {item.reason}{hint}")


def _read_env_file(path: str, where: str, allowed: bool = True) -> dict[str, str]:
    from ..envfile.load import load_env
    from ..errors import LocalfsError

    if not allowed:
        raise DeploymentError(f"{where}: the entry reads {path} from this machine, which "
                              "this page may not do; give those variables as overrides")
    if os.path.isdir(path):
        raise DeploymentError(f"{where}: envFile {path} is a folder, not a file")
    if not os.path.isfile(path):
        raise DeploymentError(f"{where}: envFile {path}: no such file")
    try:
        loaded = load_env(path)
    except LocalfsError as exc:
        raise DeploymentError(f"{where}: envFile {exc}") from None
    return {k: v for k, v in loaded.values.items() if v is not None}
