"""Running scenarios: each configuration resolved, each expectation compared; pinning.

A scenario's configuration becomes a :class:`~localfs_explorer.config.ServerConfig`, so
its verdicts are the ones the command line and the dashboard give for the same inputs.
Each expectation is compared field by field; what the engine raises becomes that case's
error and the run goes on. :func:`pin_scenario` writes today's answers as expectations.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...config import ConfigError, resolve_config
from ...paths import show_nul
from ...secrets import masked, scrub
from ...server import DEFAULT_SERVER, server_of
from ...userfiles import read_text
from .format import (
    AuthStatusCase,
    CallCase,
    CallPathCase,
    ConfigSpec,
    HangarCase,
    PathCase,
    PolicyCase,
    Scenario,
    ScenarioError,
    ToolsCase,
    collect_scenario_files,
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

if TYPE_CHECKING:
    from ...catalog import Catalog, Registration
    from ...probe import CallVerdict
    from ...server import ServerPolicy as Policy
    from ...server import Verdict as Decision

# A test runner reports an engine that raises as that case's error and goes on, the way
# pytest reports an exception in one test; nothing the engine raises stops the run.
_ALWAYS_CAUGHT = (Exception,)


# ----------------------------------------------------------------- building the policy


@dataclass
class BuiltConfig:
    """A configuration resolved into the engine's objects."""

    policy: Policy
    catalog: Catalog
    registration: Registration
    access: Any
    over_http: bool | None
    #: The settings as they may be shown (secrets masked).
    shown: dict[str, Any]
    #: Secret values, for scrubbing free text.
    secrets: set[str]


def policy_from_config(config: ConfigSpec, base_dir: str | os.PathLike[str] = ".") -> BuiltConfig:
    """Resolve ``config`` (relative names against ``base_dir``) into a policy and friends.

    The rules for relative names and directories are :mod:`localfs_explorer.config`'s.
    Raises :class:`ScenarioError` for a configuration that can't be used: a missing
    ``.env``, an unknown host, an invalid host spec, catalog or access lists.
    """
    try:
        resolved = resolve_config(config.server_config(base_dir))
        catalog, access, registration = (resolved.catalog, resolved.access,
                                         resolved.registration)
    except ConfigError as exc:
        named = exc.part in ("env", "host", "catalog", "access")
        raise ScenarioError(f"{exc.part}: {exc}" if named else str(exc)) from None
    policy, env = resolved.policy, resolved.env
    if not _is_default(policy):
        # Another server shows its own configuration (the filesystem server's directories
        # and roots); its findings are the report's, not the scenario's.
        other: dict[str, Any] = {"server": policy.server_id,
                 "host": "this machine" if resolved.on_this_machine else policy.fs.label,
                                 **{k: v for k, v in policy.summary().items()
                                    if k not in ("server", "findings")}}
        if env.values:
            other["settings"] = masked(env.values)
        return BuiltConfig(policy, catalog, registration, access, config.over_http, other,
                           resolved.secrets)
    shown: dict[str, Any] = {
        "env": resolved.env_path,
        "settings": masked(env.values),
        "transport": policy.transport,
        "over_http": config.over_http,
        "host": "this machine" if resolved.on_this_machine else policy.fs.label,
        "cwd": policy.cwd,
        "package_dir": policy.package_dir,
        "platform": policy.platform,
        "mode": policy.mode.value,
        "explicit": policy.explicit,
    }
    return BuiltConfig(policy, catalog, registration, access, config.over_http, shown,
                       resolved.secrets)


# ----------------------------------------------------------------------------- running


def _compare(out: list[Mismatch], name: str, expected: Any, actual: Any) -> None:
    if expected is not None and expected != actual:
        out.append(Mismatch(name, expected, actual))


def _compare_message(out: list[Mismatch], exact: str | None, contains: str | None,
                     actual: str, name: str = "message") -> None:
    if exact is not None and exact != actual:
        out.append(Mismatch(name, exact, actual))
    if contains is not None and contains not in actual:
        out.append(Mismatch(f"{name} contains", contains, actual))


def _compare_warnings(out: list[Mismatch], texts: Iterable[str], warnings: list[str]) -> None:
    for text in texts:
        if not any(text in w for w in warnings):
            out.append(Mismatch("a warning containing", text, warnings))


def _compare_start(out: list[Mismatch], case: PolicyCase, policy: Any) -> list[str]:
    """Compare whether the server starts, its exit message and its warnings with a
    policy expectation (any server answers these); returns the warnings."""
    _compare(out, "serves", case.serves, policy.serves)
    _compare_message(out, case.exit_message, case.exit_message_contains,
                     policy.exit_message or "", "exit_message")
    warnings = [*policy.env.warnings, *policy.warnings]
    _compare_warnings(out, case.warnings_contain, warnings)
    return warnings


def _decision_trace(d: Decision) -> list[str]:
    lines = [f"{s.step:<9} {s.outcome:<8} {s.detail}" for s in d.trace]
    if d.hint:
        lines.append(f"hint: {d.hint}")
    return lines


def _deny_setting(d: Decision) -> str | None:
    # Only mcp-gee-sweet's verdicts come from a deny-list.
    return getattr(d, "deny_setting", None)


def _is_default(policy: Any) -> bool:
    return (getattr(policy, "server_id", None) or DEFAULT_SERVER) == DEFAULT_SERVER


#: The keys of a policy or auth-status expectation only mcp-gee-sweet answers, and the
#: one only the filesystem server answers.
_GEE_POLICY_KEYS = ("mode", "explicit", "deny_list_includes", "deny_list_excludes")
_GEE_STATUS_KEYS = ("mode", "explicit", "roots", "unregistered_tools")
_OTHER_KEYS = ("allowed_directories",)


def _foreign_keys(case: Any, keys: Iterable[str], server: str) -> str | None:
    """The error for a case expecting keys its server doesn't answer (None: none)."""
    given = [k for k in keys if k in case.model_fields_set]
    if not given:
        return None
    return f"{', '.join(given)}: not answered by {server}"


class _ScenarioRunner:
    def __init__(self, file: str, scenario: Scenario, built: BuiltConfig,
                 lines: Mapping[tuple[Any, ...], int], index: int, coverage: Coverage) -> None:
        self.file, self.scenario, self.built = file, scenario, built
        self.lines, self.index, self.coverage = lines, index, coverage

    def line(self, *parts: Any) -> int | None:
        return self.lines.get(("scenario", self.index, *parts)) or self.lines.get(
            ("scenario", self.index))

    def case(self, kind: str, name: str, line: int | None) -> CaseResult:
        return CaseResult(file=self.file, scenario=self.scenario.name, kind=kind,
                          name=name, line=line)

    def clean(self, result: CaseResult) -> CaseResult:
        """Scrub secret values out of every text a case result carries."""
        secrets = self.built.secrets
        if not secrets:
            return result
        result.name = scrub(result.name, secrets)
        result.trace = [scrub(t, secrets) for t in result.trace]
        if result.error:
            result.error = scrub(result.error, secrets)
        for m in result.mismatches:
            m.field = scrub(m.field, secrets)
            m.expected = json.loads(scrub(json.dumps(m.expected), secrets))
            m.actual = json.loads(scrub(json.dumps(m.actual), secrets))
        result.actual = json.loads(scrub(json.dumps(result.actual), secrets))
        return result

    def over_http(self, case_value: bool | None) -> bool | None:
        return case_value if case_value is not None else self.built.over_http

    def run(self) -> list[CaseResult]:
        out: list[CaseResult] = []
        s = self.scenario
        if (policy := s.policy) is not None:
            out.append(self.guarded("policy", "policy", ("policy",),
                                    lambda: self.run_policy(policy)))
        for j, path_case in enumerate(s.path):
            out.append(self.run_path(path_case, j))
        for j, call_case in enumerate(s.call):
            out.append(self.guarded("call", call_case.label or f"call {call_case.tool}",
                                    ("call", j), functools.partial(self.run_call, call_case, j)))
        for j, hangar_case in enumerate(s.hangar):
            out.append(self.guarded("hangar", hangar_case.label or f"hangar {hangar_case.tool}",
                                    ("hangar", j),
                                    functools.partial(self.run_hangar, hangar_case, j)))
        if (tools := s.tools) is not None:
            out.append(self.guarded("tools", "registered tools", ("tools",),
                                    lambda: self.run_tools(tools)))
        if (auth := s.auth_status) is not None:
            status_name = ("auth-status local_file_access" if _is_default(self.built.policy)
                           else "status list_allowed_directories")
            out.append(self.guarded("auth_status", status_name,
                                    ("auth_status",), lambda: self.run_auth(auth)))
        return [self.clean(r) for r in out]

    def guarded(self, kind: str, name: str, where: tuple[Any, ...],
                fn: Callable[[], CaseResult]) -> CaseResult:
        """``fn()``, or a case whose error says what the engine raised."""
        try:
            return fn()
        except _ALWAYS_CAUGHT as exc:
            r = self.case(kind, name, self.line(*where))
            r.error = f"the engine raised {type(exc).__name__}: {exc}"
            return r

    def run_policy(self, case: PolicyCase) -> CaseResult:
        # The scenario format's policy words (mode, explicit, deny-list settings) are the
        # default server's; another server's policy case is answered by the seam below.
        p: Any = self.built.policy
        r = self.case("policy", "policy", self.line("policy"))
        if not _is_default(p):
            return self._run_other_policy(case, r)
        r.error = _foreign_keys(case, _OTHER_KEYS, DEFAULT_SERVER)
        if r.error:
            return r
        m = r.mismatches
        _compare(m, "mode", case.mode, p.mode.value)
        _compare(m, "explicit", case.explicit, p.explicit)
        warnings = _compare_start(m, case, p)
        settings = sorted({e.setting for e in p.deny_list} | {d.setting for d in p.deny_dirs})
        for setting in case.deny_list_includes:
            if setting not in settings:
                m.append(Mismatch("deny-list settings include", setting, settings))
        for setting in case.deny_list_excludes:
            if setting in settings:
                m.append(Mismatch("deny-list settings exclude", setting, settings))
        r.actual = {"mode": p.mode.value, "explicit": p.explicit, "serves": p.serves,
                    "exit_message": p.exit_message or "", "warnings": warnings,
                    "deny_settings": settings}
        r.trace = [f"deny-list: {e.setting} -> {e.resolved}" for e in p.deny_list]
        r.trace += [f"deny dir: {d.setting} -> {d.resolved}/" for d in p.deny_dirs]
        r.trace += [f"warning: {w}" for w in warnings]
        return r

    def _run_other_policy(self, case: PolicyCase, r: CaseResult) -> CaseResult:
        """A policy expectation of a server other than mcp-gee-sweet: whether it starts,
        its exit message and warnings, and (with one) its allowed directories."""
        p = self.built.policy
        r.error = _foreign_keys(case, _GEE_POLICY_KEYS, p.server_id)
        if r.error:
            return r
        m = r.mismatches
        warnings = _compare_start(m, case, p)
        directories = list(getattr(p, "directories", ()))
        _compare(m, "allowed_directories", case.allowed_directories, directories)
        r.actual = {"serves": p.serves, "exit_message": p.exit_message or "",
                    "warnings": warnings, "allowed_directories": directories}
        r.trace = [f"allowed: {d}" for d in directories]
        r.trace += [f"warning: {w}" for w in warnings]
        return r

    def run_path(self, case: PathCase, j: int) -> CaseResult:
        name = case.label or f"{case.op} {show_nul(case.path)}"
        r = self.case("path", name, self.line("path", j))
        try:
            d = self.built.policy.check(case.path, case.op,
                                        over_http=self.over_http(case.over_http))
        except _ALWAYS_CAUGHT as exc:
            r.error = f"the check raised {type(exc).__name__}: {exc}"
            return r
        m = r.mismatches
        _compare(m, "allowed", case.allowed, d.allowed)
        _compare(m, "reason", case.reason, d.reason)
        _compare_message(m, case.message, case.message_contains, d.message)
        _compare(m, "resolved", case.resolved, d.resolved)
        r.actual = {"allowed": d.allowed, "reason": d.reason, "message": d.message,
                    "resolved": d.resolved}
        try:
            r.trace = _decision_trace(d)
            setting = _deny_setting(d)
        except _ALWAYS_CAUGHT as exc:
            # The verdict was compared; only its explanation failed. Say so beside it.
            r.trace = [f"the trace could not be worked out: {type(exc).__name__}: {exc}"]
            setting = None
        self.coverage.add_decision(d.reason, setting)
        return r

    def run_call(self, case: CallCase, j: int) -> CaseResult:
        from ...probe import probe_call

        name = case.label or f"call {case.tool}"
        r = self.case("call", name, self.line("call", j))
        b = self.built
        try:
            v = probe_call(b.policy, case.tool, case.arguments,
                           over_http=self.over_http(case.over_http), access=b.access,
                           catalog=b.catalog, registration=b.registration,
                           expected_paths=case.expected_paths, drive_names=case.drive_names)
        except _ALWAYS_CAUGHT as exc:
            r.error = f"the probe raised {type(exc).__name__}: {exc}"
            return r
        self.coverage.add_call(case.tool, v.outcome)
        for p in v.paths:
            if not p.advisory:
                self.coverage.add_decision(p.reason, self._call_deny_setting(p))
        m = r.mismatches
        _compare(m, "outcome", case.outcome, v.outcome)
        _compare_message(m, case.message, case.message_contains, v.message)
        _compare(m, "gate", case.gate, v.gate)
        _compare(m, "visible", case.visible, v.visible)
        _compare(m, "registered", case.registered, v.registered)
        for text in case.notes_contain:
            if not any(text in n for n in v.notes):
                m.append(Mismatch("a note containing", text, list(v.notes)))
        for k, want in enumerate(case.path):
            self._compare_call_path(m, want, k, v)
        r.actual = v.to_json_dict()
        r.trace = _call_trace(v)
        return r

    def _call_deny_setting(self, p: Any) -> str | None:
        if p.reason != "denied":
            return None
        try:
            # over_http only arms the tripwire, which didn't fire for a deny-list refusal.
            return _deny_setting(self.built.policy.check(p.path, p.op, over_http=False))
        except _ALWAYS_CAUGHT:
            return None

    @staticmethod
    def _compare_call_path(m: list[Mismatch], want: CallPathCase, k: int,
                           v: CallVerdict) -> None:
        label = f"path {show_nul(want.path)}"
        candidates = [p for p in v.paths if p.path == want.path
                      and (want.kind is None or p.kind == want.kind)
                      and (want.argument is None or p.argument == want.argument)]
        if not candidates:
            m.append(Mismatch(f"{label}", "present in the call's verdict",
                              [show_nul(p.path) for p in v.paths]))
            return
        p = candidates[0]
        sub: list[Mismatch] = []
        _compare(sub, "op", want.op, p.op)
        _compare(sub, "allowed", want.allowed, p.allowed)
        _compare(sub, "reason", want.reason, p.reason)
        _compare_message(sub, want.message, want.message_contains, p.message)
        _compare(sub, "step", want.step, p.step)
        _compare(sub, "resolved", want.resolved, p.resolved)
        for item in sub:
            item.field = f"{label} {item.field}"
        m.extend(sub)

    def run_tools(self, case: ToolsCase) -> CaseResult:
        reg = self.built.registration
        r = self.case("tools", "registered tools", self.line("tools"))
        m = r.mismatches
        missing = [t for t in case.registered if not reg.is_registered(t)]
        if missing:
            m.append(Mismatch("registered", case.registered,
                              f"not registered: {', '.join(missing)}"))
        present = [t for t in case.not_registered if reg.is_registered(t)]
        if present:
            m.append(Mismatch("not_registered", case.not_registered,
                              f"registered: {', '.join(present)}"))
        if case.unregistered is not None and sorted(case.unregistered) != sorted(
                reg.unregistered):
            m.append(Mismatch("unregistered", sorted(case.unregistered),
                              sorted(reg.unregistered)))
        _compare_warnings(m, case.warnings_contain, list(reg.warnings))
        r.actual = reg.to_json_dict()
        r.trace = [f"registered: {', '.join(reg.registered) or '(none)'}",
                   f"unregistered (off mode): {', '.join(reg.unregistered) or '(none)'}"]
        if reg.not_enabled:
            r.trace.append(f"not in ENABLED_TOOLS: {', '.join(reg.not_enabled)}")
        r.trace += [f"warning: {w}" for w in reg.warnings]
        for name in case.registered:
            why = reg.why_absent(name)
            if why:
                r.trace.append(why)
        return r

    def run_hangar(self, case: HangarCase, j: int) -> CaseResult:
        from ...access import CallRoute, HangarAccess

        r = self.case("hangar", case.label or f"hangar {case.tool}", self.line("hangar", j))
        access = self.built.access
        if not isinstance(access, HangarAccess):
            r.error = ("a hangar case needs a hangar route in config.access "
                       "({hangar = FILE, server = ID})")
            return r
        if (case.server, case.via, case.tenant) != (None, None, None):
            route = access.route
            access = HangarAccess(access.config, CallRoute(
                case.server or route.server,
                case.via if case.via is not None else route.via,
                case.tenant if case.tenant is not None else route.tenant))
        got = access.answer(case.tool)
        m = r.mismatches
        for key in ("visible", "held", "timeout", "channel"):
            _compare(m, key, getattr(case, key), getattr(got, key))
        _compare(m, "documented_visible", case.documented_visible, got.documented.visible)
        _compare(m, "documented_held", case.documented_held, got.documented.held)
        _compare(m, "finding", case.finding, got.finding is not None)
        if case.finding_contains is not None and case.finding_contains not in (
                got.finding or ""):
            m.append(Mismatch("finding contains", case.finding_contains, got.finding))
        if case.scope_contains is not None and case.scope_contains not in got.scope:
            m.append(Mismatch("scope contains", case.scope_contains, got.scope))
        r.actual = got.to_json_dict()
        r.trace = [f"{access.route.describe()}: {got.state}", f"decided by {got.scope}"]
        if got.finding:
            r.trace.append(f"finding: {got.finding}")
        return r

    def run_auth(self, case: AuthStatusCase) -> CaseResult:
        policy = self.built.policy
        r = self.case("auth_status", "auth-status local_file_access", self.line("auth_status"))
        if not _is_default(policy):
            r.name = "status list_allowed_directories"
            r.error = _foreign_keys(case, _GEE_STATUS_KEYS, policy.server_id)
            if r.error:
                return r
            status = server_of(policy).status(policy, self.built.registration)
            _compare(r.mismatches, "allowed_directories", case.allowed_directories,
                     status.get("allowed_directories"))
            r.actual = status
            r.trace = [json.dumps(status, ensure_ascii=False)]
            return r
        r.error = _foreign_keys(case, _OTHER_KEYS, DEFAULT_SERVER)
        if r.error:
            return r
        actual = server_of(policy).status(policy, self.built.registration)["local_file_access"]
        for key in ("mode", "explicit", "roots", "unregistered_tools"):
            _compare(r.mismatches, key, getattr(case, key), actual.get(key))
        r.actual = actual
        r.trace = [json.dumps({"local_file_access": actual}, ensure_ascii=False)]
        return r


def _call_trace(v: CallVerdict) -> list[str]:
    lines = []
    for p in v.paths:
        verdict = "allowed" if p.allowed else f"refused [{p.reason}]"
        step = f" ({p.step})" if p.step else ""
        extra = " advisory" if p.advisory else ""
        lines.append(f"{p.kind:<10} {p.argument}: {p.op} {show_nul(p.path)} -> "
                     f"{verdict}{step}{extra}")
        if p.message:
            lines.append(f"{'':<10} {p.message}")
    lines += [f"note: {n}" for n in v.notes]
    return lines


def run_scenario_file(path: str | os.PathLike[str], *,
                      coverage: Coverage | None = None, name: str | None = None,
                      base_dir: str | os.PathLike[str] | None = None,
                      base: ConfigSpec | None = None) -> FileResult:
    """Run every scenario of one file. A malformed file is a result with ``error`` set.

    ``name`` is how results name the file (default: its path); relative names in it
    resolve against ``base_dir`` (default: the file's own folder). ``base`` is a
    configuration the file's own is laid over (a deployment's).
    """
    shown = name or str(path)
    try:
        text = read_text(path, ScenarioError)
    except ScenarioError as exc:
        return FileResult(shown, error=str(exc).replace(str(path), shown))
    folder = Path(path).parent if base_dir is None else base_dir
    return run_scenario_text(text, name=shown, base_dir=folder, coverage=coverage,
                             base=base)


def run_scenario_text(
    text: str,
    *,
    name: str = "<scenarios>",
    base_dir: str | os.PathLike[str] = ".",
    coverage: Coverage | None = None,
    allow_this_machine: bool = True,
    base: ConfigSpec | None = None,
) -> FileResult:
    """Run scenario TOML that didn't come from a file (an upload, a text box).

    Relative names in it resolve against ``base_dir``. With ``allow_this_machine`` False,
    a scenario whose configuration reads this machine (its filesystem or a file on it)
    is an error instead of being run: a page served to others must not answer for the
    machine serving it.
    """
    coverage = coverage if coverage is not None else Coverage()
    try:
        parsed = parse_scenario_text(text, name=name,
                                     default_server=base.server if base else None)
    except ScenarioError as exc:
        return FileResult(name, error=str(exc))
    lines = case_lines(text)
    result = FileResult(name, title=parsed.title)
    for i, scenario in enumerate(parsed.scenario):
        line = lines.get(("scenario", i))
        config = parsed.config.merged(scenario.config)
        if base is not None:
            config = base.merged(config)
        sres = ScenarioResult(name, scenario.name, line)
        try:
            if not allow_this_machine:
                uses = machine_references(config)
                if uses:
                    raise ScenarioError(
                        f"reads this machine ({', '.join(uses)}), which this page may not "
                        "do; use a shipped example or an inline host, and inline settings"
                    )
            built = policy_from_config(config, base_dir)
        except ScenarioError as exc:
            sres.error = f"line {line}: {exc}" if line else str(exc)
            result.scenarios.append(sres)
            continue
        sres.config = built.shown
        # The tools that touch local files: the rest of the server's tools have no rule
        # of the policy to exercise. The server's reasons and deny-list labels are rules
        # whether or not a verdict gave them; labels seen but not declared are added.
        coverage.add_catalog([t.name for t in built.catalog.tools if t.touches_disk])
        server = server_of(built.policy)
        coverage.add_rules(server.reasons, server.deny_labels)
        for entry in getattr(built.policy, "deny_list", ()):
            coverage.deny_settings.setdefault(entry.setting, 0)
        sres.cases = _ScenarioRunner(name, scenario, built, lines, i, coverage).run()
        result.scenarios.append(sres)
    return result


def machine_references(config: ConfigSpec) -> list[str]:
    """Which keys of ``config`` read this machine: its filesystem or files on it."""
    from ...fs.spec import list_example_hosts

    uses = []
    if config.host is None or config.host == "host":
        uses.append("host: this machine")
    elif isinstance(config.host, str) and config.host not in list_example_hosts():
        uses.append(f"host file {config.host}")
    for key in ("env", "profile", "catalog"):
        if getattr(config, key):
            uses.append(f"{key} file {getattr(config, key)}")
    if isinstance(config.access, str):
        uses.append(f"access file {config.access}")
    return uses


def run_scenarios(targets: Iterable[str | os.PathLike[str]], *,
                  stdin_file: str | None = None, base: ConfigSpec | None = None) -> RunResult:
    """Run scenario files and folders (searched for ``*.toml``); see :class:`RunResult`.

    A target that doesn't exist raises :class:`ScenarioError`; a file that can't be
    parsed becomes a :class:`FileResult` with ``error`` set, and the rest still run.
    ``stdin_file`` names the file standard input was saved to: it is shown as
    ``<stdin>`` and its relative names mean the current directory. ``base`` is a
    configuration every scenario's own is laid over (a deployment's).
    """
    run = RunResult()
    for path in collect_scenario_files(targets):
        if stdin_file is not None and str(path) == stdin_file:
            run.files.append(run_scenario_file(path, coverage=run.coverage, name="<stdin>",
                                               base_dir=os.getcwd(), base=base))
        else:
            run.files.append(run_scenario_file(path, coverage=run.coverage, base=base))
    return run


# -------------------------------------------------------------- pinning current answers


def pin_scenario(
    name: str,
    config: ConfigSpec,
    *,
    decisions: Iterable[Decision] = (),
    calls: Iterable[tuple[str, Mapping[str, Any], CallVerdict]] = (),
    policy: Policy | None = None,
    registration: Registration | None = None,
    description: str = "",
) -> Scenario:
    """A scenario expecting exactly today's answers: a baseline a later change must keep.

    ``decisions`` become path expectations (allowed, reason and the exact message),
    ``calls`` (``(tool, arguments, verdict)``) call expectations (outcome, message,
    visibility); with ``policy``, the policy and auth-status expectations are pinned too.
    """
    paths = [
        PathCase(path=d.path, op=d.op, allowed=d.allowed, reason=d.reason, message=d.message)
        for d in decisions
    ]
    pinned_calls = [
        CallCase(tool=tool, arguments=dict(arguments), outcome=v.outcome, message=v.message,
                 visible=v.visible)
        for tool, arguments, v in calls
    ]
    extra: dict[str, Any] = {}
    if policy is not None and not _is_default(policy):
        # Another server: whether it starts, and the directories it allows.
        directories = list(getattr(policy, "directories", ()))
        extra["policy"] = PolicyCase(serves=policy.serves,
                                     allowed_directories=directories)
        extra["auth_status"] = AuthStatusCase(allowed_directories=directories)
    elif policy is not None:
        default: Any = policy  # the default server's words (see ``run_policy``)
        extra["policy"] = PolicyCase(mode=default.mode.value, explicit=default.explicit,
                                     serves=policy.serves)
        status = server_of(policy).status(policy, registration)["local_file_access"]
        extra["auth_status"] = AuthStatusCase(**status)
    if description:
        extra["description"] = description
    return Scenario(name=name, config=config, path=paths, call=pinned_calls, **extra)


def pin_hangar_scenario(name: str, config_file: str, route: Any, answers: Iterable[Any],
                        *, description: str = "") -> Scenario:
    """A scenario expecting mcp-hangar's answers of today on ``route`` (a ``CallRoute``).

    The configuration is named by ``config_file`` (relative to the scenario file);
    each ``ToolAnswer`` becomes a ``[[scenario.hangar]]`` case pinning visible, held,
    the wait and channel of a held tool, and whether it is a finding.
    """
    access: dict[str, Any] = {"hangar": config_file, "server": route.server}
    if route.via:
        access["via"] = route.via
    if route.tenant:
        access["tenant"] = route.tenant
    cases = []
    for answer in answers:
        held = {"timeout": answer.timeout, "channel": answer.channel} if answer.held else {}
        cases.append(HangarCase(tool=answer.tool, visible=answer.visible, held=answer.held,
                                finding=answer.finding is not None, **held))
    extra: dict[str, Any] = {"description": description} if description else {}
    return Scenario(name=name, config=ConfigSpec(access=access), hangar=cases, **extra)
