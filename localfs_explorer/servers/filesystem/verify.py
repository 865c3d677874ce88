"""``verify`` for the filesystem server: does a running instance do what is predicted?

The running server is asked three things, none of which changes anything on disk:
``tools/list`` (names and annotation hints), ``list_allowed_directories`` (after the
roots exchange has settled) and a few ``get_file_info`` probes. The handshake's version
says nothing (2026.x all report "0.2.0"), so the probes are chosen to tell the releases
apart: a Windows drive path (2026.7.10 resolves it inside an allowed directory, later
releases refuse it) and an allowed directory with a quote appended (2026.8.31 lets it
through, 2.0.1 refuses it), plus each allowed directory itself.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ...textsafe import one_line
from .policy import VERSIONS, FilesystemConfig, FilesystemPolicy
from .tools import load_tools

if TYPE_CHECKING:
    from ...server import LiveTarget

__all__ = ["FsVerifyDifference", "FsVerifyReport", "expected_answer", "probe_paths",
           "verify_live", "verify_target"]

#: The probe that tells 2026.7.10 from later releases.
DRIVE_PROBE = "C:\\localfs-explorer-probe"


@dataclass(frozen=True)
class FsVerifyDifference:
    """One way the running server differs from the prediction."""

    field: str
    expected: Any
    actual: Any
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "expected": self.expected, "actual": self.actual,
                "message": self.message}


@dataclass
class FsVerifyReport:
    """The comparison: what was predicted, what the server said, and where they differ."""

    command: str
    version: str
    server_name: str = ""
    server_version: str = ""
    allowed_predicted: list[str] = field(default_factory=list)
    allowed_live: list[str] = field(default_factory=list)
    tools_live: list[dict[str, Any]] = field(default_factory=list)
    probes: list[dict[str, Any]] = field(default_factory=list)
    behaves_as: list[str] = field(default_factory=list)
    differences: list[FsVerifyDifference] = field(default_factory=list)

    @property
    def agree(self) -> bool:
        return not self.differences

    def to_dict(self) -> dict[str, Any]:
        return {
            "server": "server-filesystem", "command": self.command,
            "predicted_version": self.version, "behaves_as": self.behaves_as,
            "server_info": {"name": self.server_name, "version": self.server_version},
            "allowed_directories": {"predicted": self.allowed_predicted,
                                    "live": self.allowed_live},
            "tools": self.tools_live, "probes": self.probes, "agree": self.agree,
            "differences": [d.to_dict() for d in self.differences],
        }


    def lines(self) -> list[str]:
        """The report for people: the releases it behaves as, each answer, each
        difference."""
        out = [f"server:   {one_line(self.command)} (stdio)",
               f"explorer: predicts server-filesystem {self.version}"]
        behaves = " or ".join(self.behaves_as) or "none of the modelled releases"
        out.append(f"probes:   the server behaves as {behaves}")
        fields = {d.field for d in self.differences}
        mark = "DIFF" if "allowed_directories" in fields else "same"
        out.append(f"  {mark}  allowed directories: "
                   f"{one_line(', '.join(self.allowed_live) or '(none)')}")
        mark = "DIFF" if "tools" in fields else "same"
        out.append(f"  {mark}  tools: {len(self.tools_live)} listed")
        for p in self.probes:
            shown = p["live"]["text"] if p["live"]["is_error"] else "answered"
            out.append(f"  {'same' if p['same'] else 'DIFF'}  get_file_info "
                       f"{one_line(p['path'])}: {one_line(shown)}")
        out += [f"difference: {one_line(d.message)}" for d in self.differences]
        if self.agree:
            out.append("the server agrees with the explorer")
        else:
            n = len(self.differences)
            out.append(f"{n} difference{'s' if n != 1 else ''}: the running server is not "
                       "the configuration given")
        return out


def _leaf(exc: BaseException) -> BaseException:
    while (inner := getattr(exc, "exceptions", None)) and isinstance(inner[0], BaseException):
        exc = inner[0]
    return exc


def verify_target(server_policy: Any, target: LiveTarget) -> FsVerifyReport:
    """:meth:`FilesystemServer.verify`: start the command line of ``target`` (stdio
    only) and compare it with the prediction for each modelled release.

    The server gets this process's environment with the target's own on top, and the
    ``HOME`` the configuration names (node's home directory is ``$HOME``).
    """
    import os

    from ...server import LiveError, ServerError

    if target.url:
        raise ServerError("server-filesystem speaks stdio only: give --command, not --url")
    argv = list(target.argv or ())
    if not argv:
        raise ServerError("the server's command line is empty")
    base: FilesystemConfig = server_policy.policy.config
    fs = server_policy.policy.fs
    # The target's environment as given (an entry's: what its client passes), else ours.
    env = dict(target.env) if target.env is not None else dict(os.environ)
    if base.home is not None:
        env["HOME"] = base.home
    base = replace(base, home=env.get("HOME") or None,
                   cwd=base.cwd if base.cwd is not None else (target.cwd or os.getcwd()))
    policies: dict[str, FilesystemPolicy] = {}

    def policy_for(version: str) -> FilesystemPolicy:
        if version not in policies:
            policies[version] = FilesystemPolicy(replace(base, version=version), fs)
        return policies[version]

    predicted = policy_for(base.version)
    timeout = target.timeout if target.timeout is not None else 90.0
    try:
        return verify_live(policy_for, base.version, argv,
                           command=target.command or shlex.join(argv), cwd=base.cwd,
                           env=env, roots=base.roots, timeout=timeout)
    except Exception as exc:  # starting, the SDK and the transport raise many kinds
        leaf = _leaf(exc)
        why = " ".join(str(leaf).split()) or type(leaf).__name__
        if isinstance(leaf, TimeoutError):
            why = f"no answer within {timeout:g} s"
        if predicted.allowed.exit_message:
            why += f" (predicted: {one_line(predicted.allowed.exit_message)})"
        raise LiveError(f"can't run the server: {why}") from None


def probe_paths(policy: FilesystemPolicy) -> list[str]:
    """The read-only probes: the drive path, the first directory with a quote appended,
    and every allowed directory."""
    paths = [DRIVE_PROBE]
    if policy.directories:
        paths.append(policy.directories[0] + "'")
    paths.extend(policy.directories)
    return paths


def expected_answer(policy: FilesystemPolicy, path: str) -> tuple[bool, str | None]:
    """What ``get_file_info(path)`` would answer: ``(is_error, error text)``; the text is
    None for a successful answer (its contents, times and sizes, aren't predicted)."""
    v = policy.validate(path)
    if not v.allowed:
        return True, v.message
    if v.resolved is not None and policy.fs.exists(v.resolved):
        return False, None
    return True, f"ENOENT: no such file or directory, stat '{v.resolved}'"


def _tool_hints() -> list[dict[str, Any]]:
    out = []
    for t in load_tools():
        a = t.annotations
        out.append({"name": t.name, "readOnlyHint": a.get("readOnlyHint"),
                    "destructiveHint": a.get("destructiveHint"),
                    "idempotentHint": a.get("idempotentHint"),
                    "openWorldHint": a.get("openWorldHint")})
    return out


def verify_live(
    policy_for: Callable[[str], FilesystemPolicy],
    version: str,
    argv: Sequence[str],
    *,
    command: str,
    cwd: str | None,
    env: Mapping[str, str],
    roots: Sequence[str] | None,
    timeout: float = 30.0,
) -> FsVerifyReport:
    """Start ``argv``, ask it, and compare with ``policy_for(version)``'s prediction.

    ``policy_for(v)`` is the configuration as release ``v`` would resolve it (so each
    release's answers to the probes can be told apart). Raises whatever starting or
    talking to the server raises (the caller reports it as "can't run").
    """
    import anyio

    from .live import session

    policy = policy_for(version)
    probes = probe_paths(policy)
    report = FsVerifyReport(command=command, version=version,
                            allowed_predicted=list(policy.directories))
    answers: list[tuple[bool, str]] = []

    async def ask() -> None:
        with anyio.fail_after(timeout):
            async with session(argv, cwd=cwd, env=env, roots=roots) as live:
                report.server_name, report.server_version = (live.server_name,
                                                             live.server_version)
                report.tools_live = [t.to_dict() for t in await live.tools()]
                report.allowed_live = await live.allowed_directories()
                for path in probes:
                    answers.append(await live.call("get_file_info", {"path": path}))

    anyio.run(ask)
    _compare(report, policy_for, probes, answers)
    return report


def _compare(report: FsVerifyReport, policy_for: Callable[[str], FilesystemPolicy],
             probes: list[str], answers: list[tuple[bool, str]]) -> None:
    diffs = report.differences
    predicted_tools = _tool_hints()
    live_by_name = {t["name"]: t for t in report.tools_live}
    for tool in predicted_tools:
        got = live_by_name.get(tool["name"])
        if got is None:
            diffs.append(FsVerifyDifference("tools", tool["name"], None,
                                    f"tool {tool['name']} is predicted but not listed"))
            continue
        for hint in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"):
            if got.get(hint) != tool[hint]:
                diffs.append(FsVerifyDifference(
                    "tools", tool[hint], got.get(hint),
                    f"{tool['name']} {hint}: predicted {tool[hint]}, listed {got.get(hint)}"))
    known = {t["name"] for t in predicted_tools}
    for name in sorted(set(live_by_name) - known):
        diffs.append(FsVerifyDifference("tools", None, name,
                                        f"tool {name} is listed, not predicted"))
    if report.allowed_live != report.allowed_predicted:
        diffs.append(FsVerifyDifference(
            "allowed_directories", report.allowed_predicted, report.allowed_live,
            "list_allowed_directories: predicted "
            f"{', '.join(report.allowed_predicted) or '(none)'}; the server has "
            f"{', '.join(report.allowed_live) or '(none)'}"))
    matching = []
    by_version = {}
    for v in VERSIONS:
        policy = policy_for(v)
        by_version[v] = [expected_answer(policy, p) for p in probes]
        if all(_same(e, a) for e, a in zip(by_version[v], answers, strict=True)):
            matching.append(v)
    report.behaves_as = matching
    for path, expected, actual in zip(probes, by_version[report.version], answers,
                                      strict=True):
        same = _same(expected, actual)
        report.probes.append({
            "tool": "get_file_info", "path": path,
            "predicted": {"is_error": expected[0], "text": expected[1]},
            "live": {"is_error": actual[0], "text": actual[1] if actual[0] else None},
            "same": same})
        if not same:
            diffs.append(FsVerifyDifference(
                "probe", expected[1] if expected[0] else "(answered)",
                actual[1] if actual[0] else "(answered)",
                f"get_file_info {path!r}: predicted "
                f"{expected[1] if expected[0] else 'an answer'}, the server said "
                f"{actual[1] if actual[0] else 'an answer'}"))
    if report.version not in matching and matching:
        diffs.append(FsVerifyDifference("version", report.version, matching,
                                f"the server behaves as {' or '.join(matching)}, not "
                                f"{report.version}"))


def _same(expected: tuple[bool, str | None], actual: tuple[bool, str]) -> bool:
    if expected[0] != actual[0]:
        return False
    return not expected[0] or expected[1] == actual[1]
