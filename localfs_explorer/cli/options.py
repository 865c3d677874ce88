"""The options every command shares, and the one way they become a :class:`ServerConfig`.

Every command takes the same environment options, so a configuration is described the
same way whichever question is asked of it. Handlers build the policy with
:func:`build_policy` (or the whole configuration with :func:`server_config`), and report
a problem with the command line as a :class:`UsageError`.
"""

from __future__ import annotations

import argparse
import io
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..config import ConfigError, ResolvedConfig, ServerConfig, resolve_config
from ..errors import LocalfsError
from ..server import (
    DEFAULT_SERVER,
    Server,
    ServerError,
    ServerPolicy,
    get_server,
    iter_servers,
    list_servers,
)
from ..textsafe import one_line
from ..userfiles import parse_json_line, read_stream, read_text
from ..vocab import PLATFORMS, TRANSPORTS

if TYPE_CHECKING:
    from ..deployments import Deployment

#: ``--client-format``'s choices (the deployments package's formats, kept here so the
#: parser is built without importing it).
CLIENT_FORMATS = ("claude-desktop", "claude-code", "cursor", "vscode", "hangar",
                  "claude-extension")


class UsageError(LocalfsError):
    """A problem with the command line or its inputs; reported in one line, exit 2."""


# --- a server's own options -------------------------------------------------------------
# Two servers may name the same setting with the same flag (--allowed-dir, --home): the
# flag is parsed once, by the action of the server that added it first, and its value
# lands under each server's own dest too, so each reads only its own names.

#: server id -> the dests its options fill.
_SERVER_DESTS: dict[str, set[str]] = {}
#: dest -> every dest filled by the same flag (itself included).
_SAME_FLAG: dict[str, set[str]] = {}


class _SharedAction(argparse.Action):
    """Mixed into the action of a flag that more than one server reads."""

    also: list[str]

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        super().__call__(parser, namespace, values, option_string)
        import copy

        for dest in self.also:
            setattr(namespace, dest, copy.copy(getattr(namespace, self.dest)))


class ServerOptionGroup(argparse._ArgumentGroup):
    """The argument group one server's :meth:`~localfs_explorer.server.Server.add_cli_options`
    fills; a flag another server added already is shared instead of conflicting."""

    def __init__(self, container: Any, server_id: str, title: str,
                 description: str | None = None) -> None:
        super().__init__(container, title=title, description=description)
        self.server_id = server_id
        container._action_groups.append(self)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        mine = _SERVER_DESTS.setdefault(self.server_id, set())
        first = next((self._option_string_actions[a] for a in args
                      if a in self._option_string_actions), None)
        if first is None:
            action = super().add_argument(*args, **kwargs)
            mine.add(action.dest)
            return action
        dest = kwargs["dest"]  # a shared flag needs the server's own dest spelled out
        if not isinstance(first, _SharedAction):
            first.__class__ = type(f"Shared{type(first).__name__}",
                                   (_SharedAction, type(first)), {})
            first.also = []  # type: ignore[attr-defined]
        if dest not in first.also:  # type: ignore[attr-defined]
            first.also.append(dest)  # type: ignore[attr-defined]
            if kwargs.get("help"):
                first.help = _merged_help(first.help or "", kwargs["help"])
        self.set_defaults(**{dest: kwargs.get("default")})
        linked = _SAME_FLAG.setdefault(first.dest, {first.dest})
        linked.add(dest)
        _SAME_FLAG[dest] = linked
        mine.add(dest)
        return first


def _merged_help(old: str, new: str) -> str:
    """Two servers' help for one flag (each ``"<server>: <words>"``): the same words are
    said once for both servers, different words one after the other."""
    who, sep, words = new.partition(": ")
    if sep and old.endswith(": " + words):
        return f"{old[: -len(': ' + words)]}, {who}: {words}"
    return f"{old}; {new}"


def server_option_group(parser: Any, server: Any, title: str,
                        description: str | None = None) -> ServerOptionGroup:
    """A :class:`ServerOptionGroup` for ``server`` on ``parser``, filled by the server."""
    group = ServerOptionGroup(parser, server.id, title, description)
    server.add_cli_options(group)
    return group


def without_shared(args: argparse.Namespace, chosen: str) -> argparse.Namespace:
    """``args`` with every flag the ``chosen`` server reads blanked: what is left of
    another server's options was given for that server alone."""
    blank = {d for own in _SERVER_DESTS.get(chosen, ()) for d in _SAME_FLAG.get(own, ())}
    return argparse.Namespace(**{k: (None if k in blank else v)
                                 for k, v in vars(args).items()})


def server_command(name: str, args: argparse.Namespace, out: TextIO, err: TextIO
                   ) -> int | None:
    """The chosen server's own answer to command ``name``
    (:meth:`~localfs_explorer.server.Server.run_command`), or None for the shared one."""
    from ..server import Server

    chosen = getattr(args, "server", None)
    if not chosen or chosen == DEFAULT_SERVER:
        return None
    server = get_server(chosen)
    if type(server).run_command is Server.run_command:
        return None
    return server.run_command(name, build_policy(args), args, out, err)


def key_value(text: str) -> tuple[str, str]:
    """argparse type for ``KEY=VALUE`` options."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {key!r}")
    return key.strip(), value


def environment_options() -> argparse.ArgumentParser:
    """The options every command shares: the simulated server's environment and host."""
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("server environment")
    # No parser default: a --client-config entry names its server unless this is given.
    group.add_argument("--server", metavar="NAME", choices=list_servers(), default=None,
                       help=f"which server answers: {', '.join(list_servers())} "
                       f"(default: {DEFAULT_SERVER})")
    group.add_argument("--server-version", metavar="VERSION",
                       help="the release of that server to reproduce (default: the newest "
                       "modelled)")
    group.add_argument("--env", metavar="FILE", help="the server's .env file (- reads stdin)")
    group.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                       type=key_value, help="a variable in the server process's environment "
                       "(wins over the file; repeatable)")
    group.add_argument("--unset", metavar="KEY", action="append", default=[],
                       help="remove KEY whatever set it (repeatable)")
    group.add_argument("--inherit-env", action="store_true",
                       help="also give the server this shell's environment (off by default, "
                       "so the operator's shell can't leak into verdicts)")
    group.add_argument("--lenient", action="store_true",
                       help="skip .env lines that can't be parsed, as the server does, "
                       "instead of stopping")
    # No parser default: a --client-config entry's own transport applies unless one is
    # given here (server_config fills in stdio).
    group.add_argument("--transport", choices=server_transports(), default=None,
                       help="the server's --transport (default: the --client-config entry's, "
                       "else stdio)")
    group.add_argument("--cwd", metavar="DIR",
                       help="the server's startup directory (default: this directory, or the "
                       "target host's own default)")
    group.add_argument("--package-dir", metavar="DIR",
                       help="the directory holding the server's own .env (default: the --env "
                       "file's directory)")
    group.add_argument("--fs", metavar="SPEC",
                       help="answer for a described host: a host spec JSON file or the name "
                       "of a shipped example (container, macos-laptop, traps; see the hosts "
                       "command) (default: this machine)")
    group.add_argument("--profile", metavar="FILE",
                       help="a server profile JSON replacing the shipped assumptions")
    group.add_argument("--platform", choices=PLATFORMS, default="posix",
                       help="target platform: its default cache directory; windows also "
                       "splits LOCAL_FILE_ROOTS on ';' (paths are checked by POSIX rules)")
    # Each server adds its own settings (the filesystem server's allowed directories, for
    # one) under a group of its own: the command line needs no edit for a new server.
    for server in iter_servers():
        server_option_group(parent, server, f"{server.id} settings (with --server {server.id})")
    client_config_options(parent, "--server, --set/--unset/--transport/--cwd and the "
                          "server's own options given here win")
    return parent


def server_transports() -> list[str]:
    """Every transport a known server speaks (``--transport``'s choices), stdio first (a
    server without transports of its own has no use for one and ignores it)."""
    spoken = {t for server in iter_servers() for t in server.transports}
    return [t for t in TRANSPORTS if t in spoken] + sorted(spoken - set(TRANSPORTS))


def client_config_options(parser: argparse.ArgumentParser, how: str) -> None:
    """``--client-config FILE [--entry NAME] [--client-format FMT]`` on ``parser``
    (the shared options have them; a command with options of its own adds them here)."""
    client = parser.add_argument_group(
        "deployment from an MCP client config",
        "Take the server, its environment, arguments, working directory and transport from "
        f"an entry of a client's config; {how}.")
    client.add_argument("--client-config", metavar="FILE",
                        help="Claude Desktop's claude_desktop_config.json, Claude Code's "
                        ".mcp.json, Cursor's or VS Code's mcp.json, an mcp-hangar YAML, or a "
                        "Claude Desktop extension's settings (Claude Extensions Settings/"
                        "*.json)")
    client.add_argument("--entry", metavar="NAME",
                        help="the server entry to use (default: the one entry that starts "
                        "a known server)")
    client.add_argument("--client-format", choices=CLIENT_FORMATS,
                        help="the client the file is for (default: recognised from its name "
                        "and shape)")


def report_outputs(group: Any) -> None:
    """``-o/--output`` (repeatable report files) and ``--force``, on a parser or an
    argument group, for the commands that write reports."""
    group.add_argument("-o", "--output", metavar="FILE", action="append", default=[],
                       help="write a report (.html, .csv or .json; repeatable)")
    group.add_argument("--force", action="store_true",
                       help="replace existing output files (each kept as a .bak)")


def deployment(args: argparse.Namespace) -> Deployment | None:
    """The ``--client-config`` entry's deployment (read once per command), or None.

    A variable the client would prompt for is fine when ``--set`` gives that key.
    """
    path = getattr(args, "client_config", None)
    if path is None:
        if getattr(args, "entry", None) or getattr(args, "client_format", None):
            raise UsageError("--entry and --client-format go with --client-config FILE")
        return None
    cached = getattr(args, "_deployment", None)
    if cached is not None:
        return cached
    from ..deployments import DeploymentError, load_deployment

    try:
        found = load_deployment(path, args.entry, args.client_format,
                                overridden=[k for k, _ in getattr(args, "set", [])])
    except DeploymentError as exc:
        raise UsageError(str(exc)) from None
    args._deployment = found
    return found


def deployment_warnings(args: argparse.Namespace) -> list[str]:
    """What the entry read by :func:`apply_deployment` warns about (a key given twice)."""
    found = getattr(args, "_deployment", None)
    return list(found.warnings) if found is not None else []


def apply_deployment(args: argparse.Namespace) -> None:
    """Fill ``--server`` from the entry (the server it starts); ``--cwd`` and
    ``--server-version`` (its pin, when modelled) for a server whose settings are its own
    options, and those options (from its arguments) under the ones given by hand. A
    server's environment, transport and working directory are read by
    :func:`server_config`.
    """
    if getattr(args, "writes_client_config", False):
        return  # export-env reads the entry itself, to write it back
    if getattr(args, "entry_per_side", False):
        return  # diff reads an entry for each side itself (--before-entry, --after-entry)
    if getattr(args, "every_entry", False) and getattr(args, "entry", None) is None:
        return  # exposure walks every entry of the file itself
    found = deployment(args)
    if found is None:
        return
    chosen = getattr(args, "server", None)
    if chosen is not None and chosen != found.server:
        raise UsageError(f"--server {chosen}, but entry {found.entry!r} of "
                         f"{found.path} starts {found.server}")
    if hasattr(args, "server"):
        args.server = found.server
    server = get_server(found.server)
    if server.env_file or not hasattr(args, "server_version"):
        return  # (a command without the shared options takes the entry's in server_config)
    if getattr(args, "cwd", None) is None and found.cwd:
        args.cwd = found.cwd
    if getattr(args, "server_version", None) is None:
        args.server_version = found.modelled_version()
    given = server.options_from_args(args)
    args._entry_options = {k: v for k, v in found.server_options.items() if k not in given}


def no_env(server: Server) -> str:
    """Why ``--env`` is refused for a server that reads no ``.env``: its own options say
    its configuration instead."""
    group = argparse.ArgumentParser(add_help=False).add_argument_group()
    server.add_cli_options(group)
    given = [a.option_strings[0] for a in group._group_actions if a.option_strings]
    return f"{server.id} has no .env" + (f": give {', '.join(given)}" if given else "")


def refuse_env(args: argparse.Namespace) -> None:
    """A ``.env`` given for a server that reads none is a usage error (it would silently
    change nothing)."""
    if getattr(args, "env", None):
        try:
            server = get_server(getattr(args, "server", None))
        except ServerError:
            return  # an unknown server: resolving says so
        if not server.env_file:
            raise UsageError(no_env(server))


def server_config(args: argparse.Namespace, **changes: Any) -> ServerConfig:
    """The :class:`ServerConfig` the shared options describe (``changes`` on top).

    Relative names mean relative to the directory the command runs in. With
    ``--client-config``, the entry's environment, transport and working directory come
    first and the options given here win over them.
    """
    found = deployment(args)
    settings = dict(args.set)
    transport, cwd = args.transport, args.cwd
    # diff has its own options, without --server: getattr.
    server = getattr(args, "server", None) or (found.server if found else DEFAULT_SERVER)
    version = getattr(args, "server_version", None)
    options = server_options(args)
    if found is not None:
        # apply_deployment named the server and filled its own options where the command
        # has them; a command without them (diff) takes the entry's here.
        settings = {**found.settings(), **settings}
        transport = transport or found.transport
        cwd = cwd or found.cwd
        version = version or found.modelled_version()
        if found.server == server:
            # The entry's own options (its arguments), under the ones given here.
            entry = getattr(args, "_entry_options", None)
            options = {**(found.server_config().server_options if entry is None else entry),
                       **options}
    fields: dict[str, Any] = {
        "server": server, "server_version": version,
        "server_options": options,
        "env": args.env, "settings": settings, "unset": list(args.unset),
        "inherit_environ": args.inherit_env, "lenient": args.lenient,
        "transport": transport or "stdio", "cwd": cwd, "package_dir": args.package_dir,
        "host": args.fs, "profile": args.profile, "platform": args.platform,
        "base_dir": os.getcwd(),
    }
    fields.update(changes)
    if fields["env"]:
        refuse_env(argparse.Namespace(env=fields["env"], server=fields["server"]))
    return ServerConfig(**fields)


def server_options(args: argparse.Namespace) -> dict[str, Any]:
    """The chosen server's own settings from its options; an option of another server is
    a :class:`UsageError` (it would silently change nothing)."""
    chosen = getattr(args, "server", None) or DEFAULT_SERVER
    others = without_shared(args, chosen)
    owners: list[tuple[str, str]] = []  # a flag two servers share names each of them
    for server in iter_servers():
        if server.id == chosen:
            continue
        given = {k: v for k, v in server.options_from_args(others).items()
                 if v not in (None, [], ())}
        if given:
            owners.append((server.id, ", ".join(sorted(given))))
    if owners:
        whose = "; ".join(f"{names}: a setting of {o}" for o, names in owners)
        raise UsageError(f"{whose}, not of {chosen} "
                         f"(add {' or '.join(f'--server {o}' for o, _ in owners)})")
    try:
        return get_server(chosen).options_from_args(args)
    except ServerError as exc:
        raise UsageError(str(exc)) from None


def resolve(config: ServerConfig) -> ResolvedConfig:
    """Resolve ``config``; a problem is a :class:`UsageError` naming the option."""
    try:
        return resolve_config(config)
    except ConfigError as exc:
        if exc.part == "host":
            raise UsageError(f"--fs {exc.value}: {exc}") from None
        if exc.part == "server":
            raise UsageError(f"--server {exc.value}: {exc}") from None
        raise UsageError(str(exc)) from None


def build_policy(args: argparse.Namespace) -> Any:
    """Resolve the policy the shared options describe."""
    return resolve(server_config(args)).policy


#: What ``-`` stands for in an option naming a file to read.
STDIN = "-"
#: Options (argparse ``dest``) that name a file to read, where ``-`` means stdin.
STDIN_OPTIONS = ("env", "before_env", "after_env", "paths_file", "calls", "session", "access",
                 "catalog", "tools_list", "targets")


def stdin_to_file(args: argparse.Namespace, stdin: TextIO, directory: str) -> str | None:
    """Replace a ``-`` file option by a file holding stdin; the option's name, if any.

    The readers take file names, so stdin is saved once to ``directory``; only one
    option may read it.
    """
    def reads_stdin(value: Any) -> bool:
        # A list option (``test``'s files) reads stdin where one of its entries is ``-``.
        return value == STDIN or (isinstance(value, list) and STDIN in value)

    given = [d for d in STDIN_OPTIONS if reads_stdin(getattr(args, d, None))]
    if not given:
        return None
    if len(given) > 1:
        names = ", ".join("--" + d.replace("_", "-") for d in given)
        raise UsageError(f"only one option can read stdin ('-'), got {names}")
    if given[0] in ("env", "before_env", "after_env"):
        if getattr(args, "in_place", False):
            raise UsageError("--in-place can't replace stdin: use -o OUT or --dry-run")
        if getattr(args, "package_dir", "") is None:
            # The server's own .env is not where stdin was saved: assume this directory.
            args.package_dir = os.getcwd()
    value = getattr(args, given[0])
    if isinstance(value, list) and value.count(STDIN) > 1:
        raise UsageError("stdin ('-') can be read only once")
    # A scenario file read from stdin keeps the extension the readers look for.
    path = Path(directory) / ("stdin.toml" if given[0] == "targets" else "stdin")
    # Bounded like a file: the readers' own (smaller) limits apply to the saved copy.
    data = read_stream(stdin, UsageError)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError("stdin: not UTF-8 text") from None
    # Private, as what stdin carries may be secret: a .env exported from it is 0600, or
    # the bits of the file stdin was redirected from when those are stricter.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.chmod(path, _stdin_mode(stdin))
    args.stdin_file = str(path)
    if isinstance(value, list):
        setattr(args, given[0], [str(path) if v == STDIN else v for v in value])
    else:
        setattr(args, given[0], str(path))
    return str(path)


def _stdin_mode(stdin: Any) -> int:
    """0600, or the bits of the regular file stdin reads when stricter (owner can read)."""
    try:
        info = os.fstat(stdin.fileno())
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return 0o600
    if not stat.S_ISREG(info.st_mode):
        return 0o600
    return (stat.S_IMODE(info.st_mode) & 0o600) | 0o400


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def read_paths_file(name: str) -> list[str]:
    """Paths from a file of one JSON string per line (blank lines skipped)."""
    lines = read_text(name, UsageError).splitlines()
    paths = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        value, problem = parse_json_line(line)
        if problem is not None:
            raise UsageError(f"{name}:{number}: not a JSON string ({problem})")
        if not isinstance(value, str):
            raise UsageError(f"{name}:{number}: expected a JSON string, got {type(value).__name__}")
        paths.append(value)
    return paths


def warn_config(policy: ServerPolicy, err: TextIO) -> None:
    """Print loading warnings, policy warnings and a refusal to serve to ``err``."""
    for warning in (*policy.env.warnings, *policy.warnings):
        err.write(f"warning: {one_line(warning)}\n")
    if policy.errors:
        err.write(f"error: the server would refuse to serve: {one_line(policy.exit_message)}\n")


def hangar_route_options(parser: argparse.ArgumentParser) -> None:
    """``--hangar FILE --hangar-server ID [--via GROUP] [--tenant ID]``: tool access as
    hangar decides it.

    Given instead of ``--access``: the tools a call may use, and which are held, come
    from an mcp-hangar configuration and the call's route through it. The server is
    ``--hangar-server`` here because ``--server`` names which kind of server answers the
    calls (an environment option of every command); the ``access`` command, which asks
    hangar alone, calls it ``--server``.
    """
    group = parser.add_argument_group(
        "tool access from an mcp-hangar config (instead of --access)")
    group.add_argument("--hangar", metavar="FILE", help="the mcp-hangar configuration (YAML)")
    group.add_argument("--hangar-server", metavar="ID",
                       help="the server the calls reach, as the hangar config names it")
    group.add_argument("--via", metavar="GROUP",
                       help="the calls go through this group (default: they name ID directly)")
    group.add_argument("--tenant", metavar="ID", help="the caller's tenant (default: none)")


def access_option(args: argparse.Namespace) -> Any:
    """The tool access ``--access`` or ``--hangar``/``--server``/... name (None: none)."""
    from ..access import load_access

    hangar = getattr(args, "hangar", None)
    route = {key: getattr(args, option, None) for key, option in
             (("server", "hangar_server"), ("via", "via"), ("tenant", "tenant"))}
    if hangar is None:
        flags = {"server": "--hangar-server", "via": "--via", "tenant": "--tenant"}
        given = [flags[key] for key, value in route.items() if value is not None]
        if given:
            raise UsageError(f"{', '.join(given)} need --hangar FILE")
        if not getattr(args, "access", None):
            return None
        source: Any = args.access
    else:
        if getattr(args, "access", None):
            raise UsageError("give --access or --hangar, not both")
        if not route["server"]:
            raise UsageError("--hangar needs --hangar-server ID (the server the calls reach)")
        source = {"hangar": hangar, **{k: v for k, v in route.items() if v is not None}}
    try:
        return load_access(source)
    except (LocalfsError, OSError) as exc:
        where = "" if hangar is not None else f"--access {args.access}: "
        raise UsageError(f"{where}{exc}") from None
