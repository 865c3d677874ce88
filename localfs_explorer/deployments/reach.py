"""The whole deployment: what each entry of a client config can touch on this machine.

An operator asks one question of a client config: what can the model behind this client
reach? :func:`answer_deployment` answers it for every entry, in file order, with one of
these reaches:

- ``modelled``: a server the explorer models, started here: its policy as predicted (the
  directories it allows, whether it starts at all) and that server's own findings.
- ``container``: a ``docker run``: the container reaches the host only through its mounts
  (host path -> container path, read-only or not); a modelled server inside is judged on
  the container's paths, where docker has created every mount target.
- ``remote``: a URL: the server runs elsewhere, with no file access from this machine
  given by this file.
- ``unmodelled``: a local process the explorer has no model for: it runs with the
  account's own file access, a finding graded by what that account can read (its home
  directory, credentials in it).
- ``disabled``: an entry its client doesn't start (an extension turned off).
- ``invalid``: an entry the client can't start as written (a field of the wrong type, a
  variable that can't be resolved): the reason is its note.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .launch import Mount, identify
from .launchers import package_words
from .load import (
    _WINDOWS_PATH,
    WINDOWS_NOTE_END,
    Deployment,
    _argv,
    _deployment,
    _shown_url,
    _workspace,
    unwrap_launch,
    windows_paths,
)
from .readers import (
    CLIENT_NAMES,
    ClientConfigFile,
    ClientEntry,
    DeploymentError,
    read_client_config,
)

__all__ = ["REACHES", "DeploymentAnswer", "EntryAnswer", "ReachFinding", "answer_deployment"]

Reach = Literal["modelled", "container", "remote", "unmodelled", "disabled", "invalid"]
#: Every reach, in the order the docs describe them.
REACHES: tuple[str, ...] = ("modelled", "container", "remote", "unmodelled", "disabled",
                            "invalid")
#: Severities, most severe first (the same words ``exposure`` grades with).
SEVERITIES: tuple[str, ...] = ("critical", "high", "medium", "info")
#: Why the account's files aren't looked at: a page served to others, a described host.
NOT_READ_SERVED = "this page reads no file of the machine serving it"
NOT_READ_DESCRIBED = "the account's files on the described machine aren't read"
#: How many entries of the home directory (and of each of its dot-folders) are looked at
#: for credentials: enough for any home, bounded for a huge one.
_HOME_SCAN_LIMIT = 2000
#: The Docker daemon's socket: a container that has it can start containers as root.
_DOCKER_SOCKET = "/var/run/docker.sock"


class ReachFinding(BaseModel):
    """Something an operator should know about one entry's reach."""

    model_config = ConfigDict(frozen=True)

    severity: str
    code: str
    message: str


class EntryAnswer(BaseModel):
    """One entry's answer: which server, and what it can touch."""

    model_config = ConfigDict(frozen=True)

    entry: str
    line: int | None = None
    #: The modelled server's id, or None.
    server: str | None = None
    version: str | None = None
    reach: Reach
    #: What the entry runs: the command up to its package or image, or the URL.
    runs: str = ""
    #: One line: what it can touch.
    summary: str = ""
    #: The directories it may use (the server's, the container's own paths for a
    #: container), as the server would resolve them.
    directories: list[str] = Field(default_factory=list)
    #: A container's mounts.
    mounts: list[dict[str, Any]] = Field(default_factory=list)
    findings: list[ReachFinding] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    #: The entry's Windows paths (drive or UNC): its directories can't be checked here.
    windows_paths: list[str] = Field(default_factory=list)

    @property
    def worst(self) -> str | None:
        """The most severe finding's severity, or None."""
        ranks = [SEVERITIES.index(f.severity) for f in self.findings]
        return SEVERITIES[min(ranks)] if ranks else None

    def to_dict(self) -> dict[str, Any]:
        return {**self.model_dump(), "worst": self.worst}


class DeploymentAnswer(BaseModel):
    """Every entry of one client config, in file order."""

    model_config = ConfigDict(frozen=True)

    path: str
    format: str
    entries: list[EntryAnswer]
    #: How the file may be read otherwise (a key given twice, a shape for another client).
    warnings: list[str] = Field(default_factory=list)

    @property
    def client(self) -> str:
        return CLIENT_NAMES[self.format]

    def at_least(self, threshold: str) -> bool:
        """Whether some finding is ``threshold`` or more severe (``none``: never)."""
        if threshold not in SEVERITIES:
            return False
        return any(SEVERITIES.index(f.severity) <= SEVERITIES.index(threshold)
                   for e in self.entries for f in e.findings)


def answer_deployment(path: str | os.PathLike[str], format: str | None = None, *,
                      environ: Mapping[str, str] | None = None, text: str | None = None,
                      read_files: bool = True, platform: str = "posix",
                      home: str | None = None, host: Any = None) -> DeploymentAnswer:
    """What every entry of the client config at ``path`` can touch.

    ``environ`` is the client's environment (default: this process's); ``home`` the
    account's home directory (default: this one's), for entries the explorer has no
    model of; ``platform`` ``windows`` says the file is for a Windows machine. ``host``
    is the machine the client runs on when it isn't this one (a described host, such as
    a Windows machine's :class:`~localfs_explorer.fs.windows.WindowsHost`): modelled
    entries are then checked on it, and the account's files are named, not read.
    ``read_files`` False opens and probes nothing on this machine beyond the config
    itself (an upload to a page served to others): directories and the account's files
    are then named, not checked. Raises :class:`DeploymentError` only for a file that isn't
    a client config; a bad entry is an answer (``invalid``).
    """
    config = read_client_config(path, format, text=text)
    env = dict(os.environ) if environ is None else dict(environ)
    if host is not None:
        account_home = home or host.home()
        answers = [_answer(config, entry, env, False, platform, account_home, host)
                   for entry in config.entries]
    else:
        account_home = home or os.path.expanduser("~")
        answers = [_answer(config, entry, env, read_files, platform, account_home)
                   for entry in config.entries]
    return DeploymentAnswer(path=config.path, format=config.format, entries=answers,
                            warnings=list(config.warnings))


def _answer(config: ClientConfigFile, entry: ClientEntry, environ: dict[str, str],
            read_files: bool, platform: str, home: str, host: Any = None) -> EntryAnswer:
    base: dict[str, Any] = {"entry": entry.name, "line": entry.line}
    if entry.disabled:
        return EntryAnswer(**base, reach="disabled", summary="not started by its client",
                           notes=list(entry.problems))
    if entry.problems:
        return EntryAnswer(**base, reach="invalid", summary="can't be started as written",
                           notes=list(entry.problems))
    if entry.command is None and not entry.image:
        if entry.url:
            return EntryAnswer(**base, reach="remote", runs=_shown_url(entry.url),
                               summary="a server at a URL: no file access on this machine "
                               "comes from this entry", notes=_local_url_note(entry.url))
        return EntryAnswer(**base, reach="invalid", summary="no command",
                           notes=[f"entry {entry.name!r} has no command and no url"])
    from .expand import Expander

    expander = Expander(config.format, environ, _workspace(config.path))
    argv = _argv(entry, expander) or []
    launch = identify(unwrap_launch(config, argv, read_files).argv, environ)
    runs = package_words(argv)
    if launch.server is None:
        if launch.container:
            return _container(base, runs, launch.mounts, None, home, read_files)
        if host is not None:
            return _unmodelled(base, runs, home, False, NOT_READ_DESCRIBED)
        return _unmodelled(base, runs, home, read_files)
    try:
        found = _deployment(config, entry, environ, {}, set(), read_files)
    except DeploymentError as exc:
        return EntryAnswer(**base, server=launch.server, reach="invalid", runs=runs,
                           summary="can't be started as written", notes=[str(exc)])
    base.update(server=found.server, version=found.server_version, runs=runs)
    if found.container:
        return _container(base, runs, found.mounts, found, home, read_files)
    return _modelled(base, found, platform, home, read_files, host)


def _local_url_note(url: str) -> list[str]:
    from urllib.parse import urlsplit

    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return []
    if host in ("localhost", "127.0.0.1", "::1"):
        return [f"the server listens on this machine ({host}), started outside this file: "
                "what it can touch is its own configuration's, which this file doesn't hold"]
    return []


def _modelled(base: dict[str, Any], found: Deployment, platform: str, home: str,
              read_files: bool = True, host: Any = None) -> EntryAnswer:
    from ..config import resolve_config
    from ..errors import LocalfsError

    # The note on Windows paths is said once, here, or dropped where a described
    # Windows machine answers for them.
    notes = [n for n in found.notes if not n.endswith(WINDOWS_NOTE_END)]
    shown = windows_paths([*found.arg_paths, *found.env.values()])[:5]
    if host is not None:
        # A described machine answers for its own paths; its own working directory unless
        # the entry names one.
        named = any(p.setting == "cwd" and p.source == "entry" for p in found.provenance)
        try:
            policy = resolve_config(found.server_config(cwd=found.cwd if named else None),
                                    fs=host).policy
        except LocalfsError as exc:
            return EntryAnswer(**base, reach="invalid", summary="the configuration is refused",
                               notes=[*notes, str(exc)])
        return _described(base, found, policy, notes, home, unread=NOT_READ_DESCRIBED)
    if shown or platform == "windows":
        # Drive and UNC paths mean the file is written for a Windows machine: this Linux
        # host can't say whether its folders exist, and its own rules would misread them.
        what = ", ".join(shown) if shown else "the entry's paths"
        return EntryAnswer(**base, reach="modelled", directories=list(found.arg_paths),
                           windows_paths=shown,
                           summary="Windows paths: the directories can't be checked here",
                           notes=[*notes, f"{what}: Windows paths; the directories can't be "
                                  f"checked on this machine {WINDOWS_NOTE_END}"])
    if not read_files:
        return EntryAnswer(**base, reach="modelled", directories=list(found.arg_paths),
                           summary="not checked: this page reads no file of the machine "
                           "serving it", notes=notes)
    try:
        policy = resolve_config(found.server_config()).policy
    except LocalfsError as exc:
        return EntryAnswer(**base, reach="invalid", summary="the configuration is refused",
                           notes=[*notes, str(exc)])
    return _described(base, found, policy, notes, home, read_files)


def _described(base: dict[str, Any], found: Deployment, policy: Any, notes: list[str],
               home: str, read_files: bool = False, unread: str = NOT_READ_SERVED
               ) -> EntryAnswer:
    """A modelled entry's answer from its resolved policy (on this machine or a
    described one)."""
    from ..server import get_server

    server = get_server(found.server)
    findings = [_finding(f) for f in server.findings(policy)]
    if not policy.serves:
        text = f"the server exits: {policy.exit_message or 'it would not start'}"
        return EntryAnswer(**base, reach="modelled", summary=text, findings=findings,
                           notes=[*notes, *policy.warnings])
    reach = server.reach(policy)
    directories = list(reach.directories)
    if reach.everything:
        findings.append(_account_finding(home, reach.everything, read_files, unread))
    if reach.nothing:
        text = f"no local file access ({reach.label})" if reach.label \
            else "no local file access"
    elif directories:
        text = (f"{reach.label}: " if reach.everything and reach.label
                else "reads and writes under ") + ", ".join(directories)
    else:
        text = reach.label or "no directory allowed"
    return EntryAnswer(**base, reach="modelled", summary=text, directories=directories,
                       findings=findings, notes=[*notes, *policy.warnings])


def _finding(raw: Mapping[str, Any]) -> ReachFinding:
    severity = str(raw.get("severity", "info"))
    return ReachFinding(severity=severity if severity in SEVERITIES else "info",
                        code=str(raw.get("code") or raw.get("kind") or "finding"),
                        message=str(raw.get("message") or raw.get("why") or ""))


def credentials_in(home: str) -> list[str]:
    """Credential files and folders in ``home`` (and one level into its dot-folders) this
    process can read, by the shipped sensitive-file patterns."""
    from ..sensitive import sensitive_match

    found: list[str] = []

    def entries(folder: str) -> list[str]:
        try:
            with os.scandir(folder) as listing:
                return [e.path for _, e in zip(range(_HOME_SCAN_LIMIT), listing, strict=False)]
        except OSError:
            return []

    for entry in entries(home):
        candidates = [entry]
        if os.path.basename(entry).startswith(".") and os.path.isdir(entry) \
                and not os.path.islink(entry):
            candidates += entries(entry)
        for path in candidates:
            if sensitive_match(path, home=home) and os.access(path, os.R_OK):
                found.append(path)
                break
    return sorted(found)


def _account_finding(home: str, what: str, probe: bool = True,
                     unread: str = NOT_READ_SERVED) -> ReachFinding:
    """What the account's own file access amounts to, graded: credentials it can read
    (high), its home directory (medium), neither (info). Without ``probe`` nothing of
    this machine is looked at (``unread`` says why), and the grade is the home
    directory's (medium)."""
    if not probe:
        return ReachFinding(severity="medium", code="account-files",
                            message=f"{what}: whatever the account can read (not checked: "
                            f"{unread})")
    shown = [os.path.join("~", os.path.relpath(p, home)) for p in credentials_in(home)]
    if shown:
        more = f" and {len(shown) - 4} more" if len(shown) > 4 else ""
        return ReachFinding(severity="high", code="account-credentials",
                            message=f"{what}: that includes credentials in the home "
                            f"directory ({', '.join(shown[:4])}{more})")
    if os.access(home, os.R_OK | os.X_OK):
        return ReachFinding(severity="medium", code="account-home",
                            message=f"{what}: that includes the home directory {home}")
    return ReachFinding(severity="info", code="account-files",
                        message=f"{what} (the home directory {home} isn't readable)")


def _unmodelled(base: dict[str, Any], runs: str, home: str, probe: bool = True,
                unread: str = NOT_READ_SERVED) -> EntryAnswer:
    finding = _account_finding(home, f"{runs!r} is a local process the explorer has no "
                               "model of: it runs with the account's own file access", probe,
                               unread)
    return EntryAnswer(**base, reach="unmodelled", runs=runs, findings=[finding],
                       summary="whatever the account can read and write")


def _inside(path: str, folder: str) -> bool:
    path, folder = os.path.normpath(path), os.path.normpath(folder)
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _container(base: dict[str, Any], runs: str, mounts: list[Mount],
               found: Deployment | None, home: str, probe: bool = True) -> EntryAnswer:
    from ..errors import LocalfsError
    from ..server import server_of

    findings: list[ReachFinding] = []
    notes = list(found.notes) if found is not None else [
        "the image runs a server the explorer has no model of: it may use every mount"]
    directories: list[str] = []
    # The mounts the model can reach: every one, unless a modelled server's policy keeps
    # its tools to some directories of the container.
    reached = list(mounts)
    state = ""
    if found is not None:
        try:
            policy = _container_policy(found, probe)
        except LocalfsError as exc:  # a bad configuration is an answer here, not a crash
            notes.append(f"the server's policy in the container can't be predicted: {exc}")
        else:
            reach = server_of(policy).reach(policy)
            directories = list(reach.directories)
            if not policy.serves:
                reached = []
                state = f"the server exits in the container: {policy.exit_message}; "
            elif not reach.everything:
                reached = [m for m in mounts if any(
                    _inside(m.container, d) or _inside(d, m.container) for d in directories)]
                state = f"in the container: {', '.join(directories) or 'nothing'}; "
            findings += _container_server_findings(found, policy)
            notes += list(policy.warnings)
    credentials = credentials_in(home) if probe else []
    for mount in mounts:
        finding = _mount_finding(mount, home, credentials)
        if finding is not None and mount not in reached and finding.code != "docker-socket":
            # Mounted, but the server's tools can't name it: nothing the model reaches.
            finding = finding.model_copy(update={
                "severity": "info", "message": f"{finding.message}; outside the "
                "directories the server allows, so its tools don't reach it"})
        if finding is not None:
            findings.append(finding)
    shown = [{"host": m.host, "container": m.container, "read_only": m.read_only}
             for m in mounts]
    host = "; ".join(m.describe() for m in reached) or (
        "none of the mounted host folders" if mounts else "no host folder is mounted")
    fields: dict[str, Any] = {"runs": runs, **base}
    return EntryAnswer(**fields, reach="container", mounts=shown, directories=directories,
                       findings=findings, summary=f"{state}host folders reached: {host}",
                       notes=notes)


def _mount_finding(mount: Mount, home: str, credentials: list[str]) -> ReachFinding | None:
    """What a mount hands the container: the Docker socket (critical), the home
    directory or credentials in it (high), or nothing to say."""
    host = os.path.normpath(os.path.expanduser(mount.host)) \
        if not _WINDOWS_PATH.match(mount.host) else mount.host
    mode = "read-only" if mount.read_only else "read-write"
    if host == _DOCKER_SOCKET:
        return ReachFinding(severity="critical", code="docker-socket",
                            message=f"{mount.describe()}: the Docker socket lets the "
                            "container start containers as root on the host")
    if host.startswith("/") and _inside(home, host):
        return ReachFinding(severity="high", code="mount-home",
                            message=f"{mount.describe()}: the whole home directory {home} "
                            f"is in the container ({mode}), credentials included")
    if host.startswith("/") and any(_inside(p, host) for p in credentials):
        return ReachFinding(severity="high", code="mount-credentials",
                            message=f"{mount.describe()}: holds credentials of the account "
                            f"({mode})")
    return None


def _container_server_findings(found: Deployment, policy: Any) -> list[ReachFinding]:
    """The server's own findings in the container; those about paths no mount holds are
    the container's own files, nothing of the host (info)."""
    targets = [m.container for m in found.mounts]
    out = []
    for raw in _server_findings(found.server, policy):
        paths = [str(p) for p in raw.get("paths") or [raw.get("path") or ""] if p]
        if paths and not any(_inside(p, t) for p in paths for t in targets):
            raw = {**raw, "severity": "info", "message": f"{raw.get('message')} (in the "
                   "container's own filesystem: no mount holds these paths)"}
        out.append(_finding(raw))
    return out


def _server_findings(server: str, policy: Any) -> list[dict[str, Any]]:
    from ..server import get_server

    return get_server(server).findings(policy)


def _container_policy(found: Deployment, probe: bool = True) -> Any:
    """The server's policy on the container's own filesystem: docker creates every mount
    target (a file for a host file, else a directory), and the working directory (``-w``)
    too. Without ``probe`` every target is taken for a directory."""
    from ..config import resolve_config
    from ..fs.virtual import VirtualFS

    cwd = found.cwd if found.cwd and found.cwd.startswith("/") else "/"
    fs = VirtualFS(home=found.env.get("HOME") or "/root", cwd=cwd,
                   label="the container", root_device="container")
    for i, mount in enumerate(found.mounts):
        if not mount.container.startswith("/"):
            continue
        target = os.path.normpath(mount.container)
        if probe and os.path.isfile(os.path.expanduser(mount.host)):
            fs.add_file(target, device=f"mount{i}")
        else:
            fs.mkdir(target, device=f"mount{i}", exist_ok=True)
    if cwd != "/":
        fs.mkdir(cwd, exist_ok=True)
    return resolve_config(found.server_config(cwd=cwd), fs=fs).policy
