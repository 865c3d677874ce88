"""Which server a command line starts, and what its arguments tell about it.

A client entry names a program and its arguments; the server behind them is found by
peeling off the launchers people use: ``uvx``/``uv tool run``/``pipx run`` (a PyPI
package, maybe pinned: ``pkg@1.2``), ``python -m``, ``npx``/``npm exec`` (an npm
package: ``@scope/pkg@1.2``), ``node`` on the package's script, and ``docker run`` of an
image (its ``-e``/``--env-file`` environment and ``-v``/``--mount`` mounts are kept as
such: they are what the server in the container sees). What each server is called there
is its own :attr:`~localfs_explorer.server.Server.launcher`; its own arguments are then
read the way that server reads them (:meth:`~localfs_explorer.server.Server.read_args`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..server import Launcher, Server, iter_servers

__all__ = ["Launch", "Mount", "identify"]

_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?(\.exe)?$")
#: uv / uvx options that take a value.
_UV_VALUE_OPTIONS = frozenset({
    "--from", "--with", "--with-editable", "--with-requirements", "--python", "-p",
    "--index", "--index-url", "--default-index", "--extra-index-url", "--find-links", "-f",
    "--cache-dir", "--directory", "--project", "--config-file", "--constraints", "-c",
    "--overrides", "--env-file", "--python-platform",
})
_PIPX_VALUE_OPTIONS = frozenset({"--spec", "--python", "--index-url", "--pip-args"})
_NPX_VALUE_OPTIONS = frozenset({"-p", "--package", "--cache", "--registry", "--userconfig",
                                "-c", "--call", "-w", "--workspace"})
#: docker run options that take a value (the rest used here are flags).
_DOCKER_VALUE_OPTIONS = frozenset({
    "-e", "--env", "--env-file", "-v", "--volume", "--mount", "-w", "--workdir", "--name",
    "--network", "--net", "-u", "--user", "-p", "--publish", "--entrypoint", "--platform",
    "-l", "--label", "--cpus", "-m", "--memory", "--add-host", "-h", "--hostname", "--pull",
    "--restart", "--cap-add", "--cap-drop", "--security-opt", "--tmpfs", "--ulimit",
    "--device", "--dns", "--group-add", "--log-driver", "--log-opt", "--shm-size",
    "--stop-signal", "--stop-timeout", "--cidfile", "--ipc", "--pid", "--runtime",
    "--label-file", "--expose", "--health-cmd", "--memory-swap", "--gpus",
})


@dataclass(frozen=True)
class Mount:
    """A folder of the host seen inside a container."""

    host: str
    container: str
    read_only: bool = False

    def describe(self) -> str:
        return f"{self.host} -> {self.container}{' (read-only)' if self.read_only else ''}"


@dataclass
class Launch:
    """What a command line says about the server it starts."""

    argv: list[str]
    #: The registry id of the server it starts, or None when it starts none known.
    server: str | None = None
    #: The version pinned in the command (``@0.9.5``, ``==0.9.5``), None when unpinned.
    version: str | None = None
    #: How the server was found (``uvx pkg@0.9.5``, ``docker image mcp/filesystem``).
    how: str = ""
    #: The server's own arguments (after the package or the image).
    server_args: list[str] = field(default_factory=list)
    #: The ``--transport`` its arguments select (None: not given).
    transport: str | None = None
    #: Settings its arguments give over its environment (``ENABLED_TOOLS``), and the
    #: option that gives each.
    settings: dict[str, str] = field(default_factory=dict)
    settings_from: dict[str, str] = field(default_factory=dict)
    #: The server's own options its arguments give (its allowed directories), and how
    #: each reads in a deployment's provenance.
    options: dict[str, Any] = field(default_factory=dict)
    shown: list[tuple[str, str]] = field(default_factory=list)
    #: docker run: the container's environment from -e/--env (a bare ``-e KEY`` takes the
    #: value the client has), the --env-file files, mounts and working directory.
    container: bool = False
    container_env: dict[str, str | None] = field(default_factory=dict)
    env_files: list[str] = field(default_factory=list)
    mounts: list[Mount] = field(default_factory=list)
    workdir: str | None = None
    notes: list[str] = field(default_factory=list)


def _base(word: str) -> str:
    name = word.replace("\\", "/").rsplit("/", 1)[-1]
    return name[:-4] if name.lower().endswith((".exe", ".cmd")) else name


def _split_pin(spec: str) -> tuple[str, str | None]:
    """``pkg@1.2``, ``pkg==1.2``, ``@scope/pkg@1.2`` -> (package, version)."""
    for sep in ("==", "@"):
        head, found, tail = spec.rpartition(sep)
        if found and head and not (sep == "@" and head == ""):
            # "@scope/pkg" alone has its only "@" at the start: no version there.
            return head, tail or None
    return spec, None


def _positional(args: Sequence[str], value_options: frozenset[str]) -> int | None:
    """Index of the first argument that is not an option (or an option's value)."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return i + 1 if i + 1 < len(args) else None
        if arg.startswith("-"):
            i += 2 if arg in value_options else 1
            continue
        return i
    return None


def _option(args: Sequence[str], names: Sequence[str]) -> str | None:
    for i, arg in enumerate(args):
        if arg in names and i + 1 < len(args):
            return args[i + 1]
        for name in names:
            if name.startswith("--") and arg.startswith(name + "="):
                return arg.split("=", 1)[1]
    return None


def identify(argv: Sequence[str], environ: Mapping[str, str] | None = None) -> Launch:
    """Read ``argv`` (the expanded command and args); ``environ`` is the client's
    environment, for docker's bare ``-e KEY``."""
    launch = Launch(argv=list(argv))
    if argv:
        _identify(launch, list(argv), environ or {}, depth=0)
    return launch


def _identify(launch: Launch, argv: list[str], environ: Mapping[str, str], depth: int) -> None:
    if depth > 4 or not argv:
        return
    program, rest = _base(argv[0]), argv[1:]
    if program.lower() == "cmd" and rest[:1] and rest[0].lower() in ("/c", "/k"):
        # Windows configs wrap npx/uvx in `cmd /c` so that the .cmd shim runs.
        _identify(launch, rest[1:], environ, depth + 1)
        return
    if program in ("sh", "bash", "zsh", "dash") and rest[:1] in (["-c"], ["-lc"]) \
            and len(rest) > 1:
        _shell(launch, program, rest[1], environ, depth)
        return
    own = _known(lambda ln: program in ln.bins)
    if own is not None:
        _start(launch, own, rest, how=argv[0])
    elif program in ("uvx", "uv"):
        if program == "uv":
            if rest[:2] == ["tool", "run"]:
                rest = rest[2:]
            elif rest[:1] == ["run"]:
                # `uv run [--with PKG] server ...` runs a command in a project.
                start = _positional(rest[1:], _UV_VALUE_OPTIONS)
                if start is not None:
                    _identify(launch, rest[1 + start:], environ, depth + 1)
                return
            else:
                return
        start = _positional(rest, _UV_VALUE_OPTIONS)
        if start is None:
            return
        spec = _option(rest[:start], ("--from",))
        package, version = _split_pin(rest[start])
        own = _known(lambda ln: package.split("[")[0] in ln.pypi)
        if own is None:
            return
        if spec is not None:
            from_package, version = _split_pin(spec)
            if from_package.split("[")[0] not in own.launcher.pypi:
                if not any(name in spec for name in own.launcher.pypi):
                    return
                version = None  # a URL or a path: no version to name
        launch.version = version
        _start(launch, own, rest[start + 1:], how=f"{program} {rest[start]}")
    elif program == "pipx" and rest[:1] == ["run"]:
        rest = rest[1:]
        start = _positional(rest, _PIPX_VALUE_OPTIONS)
        if start is None:
            return
        spec = _option(rest[:start], ("--spec",)) or rest[start]
        package, version = _split_pin(spec)
        own = _known(lambda ln: package in ln.pypi)
        if own is not None:
            launch.version = version
            _start(launch, own, rest[start + 1:], how=f"pipx run {spec}")
    elif _PYTHON.match(program):
        module = rest[1] if len(rest) >= 2 and rest[0] == "-m" else None
        own = _known(lambda ln: module in ln.modules) if module else None
        if own is not None and module is not None:
            _start(launch, own, rest[2:], how=f"{program} -m {module}")
            if own.launcher.module_note:
                launch.notes.append(own.launcher.module_note.format(program=program,
                                                                    module=module))
    elif program in ("npx", "bunx", "pnpx") or (program in ("npm", "pnpm")
                                                and rest[:1] in (["exec"], ["dlx"])):
        if program in ("npm", "pnpm"):
            rest = rest[1:]
        package_opt = _option(rest, ("-p", "--package"))
        start = _positional(rest, _NPX_VALUE_OPTIONS)
        if start is None:
            return
        spec = rest[start]
        package, version = _split_pin(spec)
        if package_opt is not None:
            package, version = _split_pin(package_opt)
        own = _known(lambda ln: package in ln.npm)
        if own is not None:
            launch.version = version
            _start(launch, own, rest[start + 1:], how=f"{program} {spec}")
    elif program in ("node", "nodejs", "bun"):
        start = _positional(rest, frozenset())
        script = rest[start].replace("\\", "/") if start is not None else ""
        own = _known(lambda ln: any(word in script for word in ln.scripts))
        if own is not None and start is not None:
            _start(launch, own, rest[start + 1:], how=f"{program} {rest[start]}")
    elif program in ("docker", "podman") and rest[:1] in (["run"], ["container"]):
        rest = rest[2:] if rest[:2] == ["container", "run"] else rest[1:]
        _docker(launch, rest, environ, depth)


def _known(matches: Callable[[Launcher], bool]) -> Server | None:
    """The first registered server whose launcher ``matches``."""
    return next((s for s in iter_servers() if matches(s.launcher)), None)


_SHELL_OPERATORS = frozenset(";&|()")


def _shell_commands(line: str) -> tuple[list[list[str]], bool] | None:
    """The simple commands of a shell line (split at ``;``, ``&&``, ``||``, ``|``, ``&``
    and parentheses; redirections dropped), and whether the line substitutes a command
    (``$(...)``, backquotes). None when the line can't be split into words."""
    import shlex

    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    try:
        tokens = list(lexer)
    except ValueError:
        return None
    skip = False
    for token in tokens:
        if skip:
            skip = False
        elif token and set(token) <= set("<>&|;()") and ("<" in token or ">" in token):
            skip = not token.endswith("&")  # the redirection's target (2>&1 has none)
            if commands[-1] and commands[-1][-1].isdigit():
                commands[-1].pop()  # the descriptor of 2>file
        elif token and set(token) <= _SHELL_OPERATORS:
            commands.append([])
        else:
            commands[-1].append(token)
    simple = []
    for words in commands:
        while words and (words[0] == "exec" or re.fullmatch(r"[A-Za-z_]\w*=.*", words[0])):
            words = words[1:]  # `exec`, and VAR=value before the program
        if words:
            simple.append(words)
    return simple, "$(" in line or "`" in line


def _shell(launch: Launch, program: str, line: str, environ: Mapping[str, str],
           depth: int) -> None:
    """``sh -c LINE``: the server one of its commands starts, and what else the line runs
    (by program name only: the rest of a command may hold a secret)."""
    found = _shell_commands(line)
    if found is None:
        return
    commands, substitutes = found
    chosen = None
    for words in commands:
        probe = Launch(argv=list(words))
        _identify(probe, words, environ, depth + 1)
        if probe.server is not None:
            chosen = words
            break
    if chosen is None:
        return
    _identify(launch, chosen, environ, depth + 1)
    launch.how = f"{program} -c, which runs {launch.how}"
    others = [_base(words[0]) for words in commands if words is not chosen]
    also = []
    if others:
        also.append("also runs " + ", ".join(dict.fromkeys(others)))
    if substitutes:
        also.append("substitutes commands ($(...) or backquotes)")
    launch.notes.append(
        f"the entry runs a shell ({program} -c) that starts {launch.server}"
        + (f"; the line {' and '.join(also)}" if also else "")
        + ": the client runs the whole line, with the shell's own environment and "
        "quoting rules")


def _start(launch: Launch, server: Server, args: list[str], how: str) -> None:
    """``launch`` starts ``server`` with ``args``, read as the server reads them."""
    said = server.read_args(args)
    launch.server, launch.how, launch.server_args = server.id, how, list(args)
    launch.transport = said.transport
    launch.settings, launch.settings_from = dict(said.env), dict(said.env_from)
    launch.options, launch.shown = dict(said.options), list(said.shown)
    launch.notes.extend(said.notes)


def _docker(launch: Launch, args: list[str], environ: Mapping[str, str], depth: int) -> None:
    i = 0
    image_at = None
    while i < len(args):
        arg = args[i]
        if not arg.startswith("-") or arg == "-":
            image_at = i
            break
        name, has_inline, inline = arg.partition("=")
        if arg.startswith("--") and has_inline:
            value: str | None = inline
            i += 1
        elif name in _DOCKER_VALUE_OPTIONS:
            value = args[i + 1] if i + 1 < len(args) else None
            i += 2
        elif len(name) > 2 and not name.startswith("--") and name[:2] in ("-e", "-v", "-w"):
            value, name = name[2:], name[:2]  # -eKEY=VALUE
            i += 1
        else:
            i += 1  # a flag: -i, -t, -it, --rm, --init, --read-only ...
            continue
        if value is None:
            continue
        if name in ("-e", "--env"):
            key, eq, val = value.partition("=")
            launch.container_env[key] = val if eq else environ.get(key)
        elif name == "--env-file":
            launch.env_files.append(value)
        elif name in ("-v", "--volume"):
            parts = value.split(":")
            if len(parts) > 2 and len(parts[0]) == 1 and parts[1][:1] in ("\\", "/") \
                    and parts[2].startswith("/"):
                parts[:2] = [f"{parts[0]}:{parts[1]}"]  # a Windows drive: C:\src:/projects
            if len(parts) >= 2 and parts[0]:
                launch.mounts.append(Mount(parts[0], parts[1],
                                           read_only="ro" in parts[2:3][0].split(",")
                                           if len(parts) > 2 else False))
        elif name == "--mount":
            opts = dict(p.partition("=")[::2] for p in value.split(","))
            source = opts.get("source") or opts.get("src")
            target = opts.get("target") or opts.get("destination") or opts.get("dst")
            if source and target and opts.get("type", "volume") == "bind":
                launch.mounts.append(Mount(source, target,
                                           read_only="readonly" in opts or "ro" in opts))
        elif name in ("-w", "--workdir"):
            launch.workdir = value
    if image_at is None:
        return
    image = args[image_at]
    inside = args[image_at + 1:]
    repository, version = _image_tag(image)
    launch.container = True
    last = repository.rsplit("/", 1)[-1]
    own = _known(lambda ln: repository.endswith(ln.images) if ln.images else False) or \
        _known(lambda ln: last in ln.image_names)
    if own is not None:
        launch.version = version
        _start(launch, own, inside, how=f"docker image {image}")
        return
    # Another image: the server may be the command run inside it.
    _identify(launch, inside, environ, depth + 1)
    if launch.server is not None:
        launch.how = f"docker image {image}, running {launch.how}"


def _image_tag(image: str) -> tuple[str, str | None]:
    name = image.split("@", 1)[0]  # a digest pins bytes, not a version we can name
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        repo, _, tag = name.rpartition(":")
        return repo, tag if tag != "latest" else None
    return name, None

