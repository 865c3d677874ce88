"""Reviewer commands: ``test`` (scenario files), ``diff`` (before/after) and ``report``.

``test`` reports like a test runner: each failed expectation with expected vs actual and
the trace, then ``N passed, N failed`` alone on the last line; exit 0 when everything
passed, 1 when something failed, 2 when a file couldn't be read or run.

``diff`` asks two configurations the same questions and prints every verdict that
changed, grouped as new access, removed access and changed message; it exits 1 when
there is new access unless ``--allow-new-access`` is given. The two sides are the same
server (``--server``); each server's own options are taken for both sides and, with a
``--before-``/``--after-`` prefix, for one side (the filesystem server's
``--before-allowed-dir``, ``--after-root``, ...), as are ``--server-version`` and a
``--client-config`` entry (``--before-entry``/``--after-entry``).

``report`` writes a batch of probed calls and checked paths as CSV, JSON or a
self-contained HTML page. ``test`` and ``diff`` write the same reports with ``-o``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
from typing import Any, TextIO

from ..server import DEFAULT_SERVER, get_server, iter_servers, list_servers
from ..textsafe import one_line
from ..userfiles import write_output
from ..vocab import OPS, PLATFORMS
from . import options as cli


def register(sub: Any, env_options: argparse.ArgumentParser) -> None:
    """Add the test, diff and report commands."""
    p = sub.add_parser("test", help="run scenario files (TOML) like a test suite",
                       description="Run scenario files and folders of them; see "
                       "scenarios/spec-000.toml for the format.")
    p.add_argument("targets", nargs="+", metavar="FILE_OR_DIR",
                   help="a scenario file, or a folder searched for *.toml (repeatable); - reads "
                   "one scenario file from stdin (relative names in it then mean the current "
                   "directory)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="also list the expectations that passed")
    p.add_argument("--junit-xml", metavar="PATH", help="write a JUnit XML report for CI")
    p.add_argument("--coverage", action="store_true",
                   help="list which rules of the check the scenarios exercised")
    cli.report_outputs(p)
    p.add_argument("--json", action="store_true",
                   help="print the run as one JSON object (passed, failed, errors, cases, "
                   "coverage) instead of text")
    cli.client_config_options(p, "every scenario's configuration is laid over the entry's")
    p.set_defaults(handler=cmd_test)

    p = sub.add_parser(
        "diff", help="which verdicts change between two configurations",
        description="Ask two configurations the same questions (given paths and calls plus "
        "a generated set) and print every verdict that changed. Exit 1 when the change "
        "grants new access, unless --allow-new-access.",
    )
    _diff_options(p)
    p.set_defaults(handler=cmd_diff, entry_per_side=True)

    p = sub.add_parser("report", parents=[env_options],
                       help="write probed calls and checked paths as CSV, JSON or HTML")
    p.add_argument("--calls", metavar="FILE.jsonl", help="tool calls, one per line")
    p.add_argument("--path", dest="paths", metavar="PATH", action="append", default=[],
                   help="a path to check (repeatable)")
    p.add_argument("--paths-file", metavar="FILE",
                   help="more paths, one JSON string per line")
    p.add_argument("--op", choices=OPS, default="read",
                   help="the operation the paths are checked for (default: read)")
    p.add_argument("--access", metavar="FILE", help="tool access lists (TOML or JSON)")
    cli.hangar_route_options(p)
    p.add_argument("--over-http", action=argparse.BooleanOptionalAction, default=None,
                   help="whether requests arrive over HTTP (default: by transport)")
    p.add_argument("--title", default="localfs-explorer batch report",
                   help="the report's title")
    p.add_argument("-o", "--output", metavar="FILE", action="append", required=True,
                   help="the report to write (.html, .csv or .json; repeatable)")
    p.add_argument("--force", action="store_true",
                   help="replace existing output files (each kept as a .bak)")
    p.set_defaults(handler=cmd_report)


# -------------------------------------------------------------------------------- test

# Characters XML 1.0 can't carry at all; shown escaped instead of dropped.
_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(text: str) -> str:
    return _XML_BAD.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _where(case: Any) -> str:
    return f"{case.file}:{case.line}" if case.line else case.file


def _case_text(case: Any) -> list[str]:
    lines = []
    if case.error:
        lines.append(f"error: {case.error}")
    lines += [m.describe() for m in case.mismatches]
    if case.trace:
        lines.append("trace:")
        lines += [f"  {t}" for t in case.trace]
    return lines


def _print_coverage(run: Any, out: TextIO) -> None:
    cov = run.coverage
    out.write(f"coverage: {cov.exercised}/{cov.total} rules exercised\n")
    for attr, label in cov.CATEGORIES:
        counts = getattr(cov, attr)
        if not counts:
            continue  # a category the run's servers don't have (a deny-list)
        hit = sum(1 for n in counts.values() if n)
        out.write(f"  {label}s ({hit}/{len(counts)}):\n")
        for rule, n in counts.items():
            mark = "ok  " if n else "MISS"
            out.write(f"    {mark} {rule}" + (f"  ({n})" if n else "") + "\n")


def _check_outputs(paths: list[str], force: bool) -> None:
    """Refuse, before any work, to replace an existing output without ``--force``."""
    for path in paths:
        if os.path.islink(path):
            raise cli.UsageError(f"{path} is a symlink; refusing to write through it "
                                 "(remove it or pick another name)")
        if os.path.lexists(path) and not force:
            raise cli.UsageError(f"{path} exists; pass --force to replace it (the old "
                                 "file is kept as a .bak)")


def write_junit(run: Any, path: str, *, force: bool = False) -> None:
    """Write ``run`` as JUnit XML: a testsuite per file, a testcase per expectation."""
    import xml.etree.ElementTree as ET

    suites = ET.Element("testsuites", name="localfs-explorer", tests=str(len(run.cases)),
                        failures=str(run.failed), errors=str(len(run.errors)))
    for f in run.files:
        cases = f.cases
        broken = [s for s in f.scenarios if s.error]
        errors = (1 if f.error else 0) + len(broken)
        suite = ET.SubElement(suites, "testsuite", name=_xml_text(f.path),
                              tests=str(len(cases) + errors),
                              failures=str(sum(1 for c in cases if c.mismatches)),
                              errors=str(errors + sum(1 for c in cases if c.error)))
        if f.error:
            tc = ET.SubElement(suite, "testcase", classname=_xml_text(f.path), name="(file)")
            ET.SubElement(tc, "error", message=_xml_text(f.error.splitlines()[0])).text = \
                _xml_text(f.error)
        for s in broken:
            tc = ET.SubElement(suite, "testcase", classname=_xml_text(f"{f.path}::{s.name}"),
                               name="(configuration)")
            ET.SubElement(tc, "error", message=_xml_text(s.error or "")).text = \
                _xml_text(s.error or "")
        for c in cases:
            attrs = {"classname": _xml_text(f"{c.file}::{c.scenario}"),
                     "name": _xml_text(c.name), "file": _xml_text(c.file)}
            if c.line:
                attrs["line"] = str(c.line)
            tc = ET.SubElement(suite, "testcase", attrs)
            if not c.passed:
                tag = "error" if c.error else "failure"
                first = c.error or (c.mismatches[0].describe() if c.mismatches else "")
                ET.SubElement(tc, tag, message=_xml_text(first)).text = _xml_text(
                    "\n".join(_case_text(c)))
    tree = ET.ElementTree(suites)
    ET.indent(tree)
    buffer = io.BytesIO()
    tree.write(buffer, encoding="utf-8", xml_declaration=True)
    # The shared writer masks the noted secrets, as in every report file.
    write_output(path, buffer.getvalue().decode("utf-8"), cli.UsageError, force=force)


def _deployment_spec(args: argparse.Namespace) -> Any:
    """The ``--client-config`` entry as a scenario configuration (None without one)."""
    found = cli.deployment(args)
    if found is None:
        return None
    from ..review.scenarios import ConfigSpec

    config = found.server_config()
    fields: dict[str, Any] = {"server": config.server, "settings": found.settings(),
                              "transport": found.transport}
    if config.server_version:
        fields["server_version"] = config.server_version
    if config.server_options:
        fields["options"] = {k: list(v) if isinstance(v, tuple) else v
                             for k, v in config.server_options.items()}
    if found.cwd:
        fields["cwd"] = found.cwd
    return ConfigSpec(**fields)


def cmd_test(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..review.report import ReportError, format_for, scenario_report, write_reports
    from ..review.scenarios import ScenarioError, run_scenarios

    _check_outputs([*args.output, *([args.junit_xml] if args.junit_xml else [])], args.force)
    try:
        for name in args.output:
            format_for(name)
        run = run_scenarios(args.targets, stdin_file=getattr(args, "stdin_file", None),
                            base=_deployment_spec(args))
    except (ScenarioError, ReportError) as exc:
        raise cli.UsageError(str(exc)) from None
    text_out = out
    if getattr(args, "json", False):
        out = io.StringIO()  # the text goes nowhere; stdout gets the JSON at the end
    for case in run.cases:
        if case.passed:
            if args.verbose:
                out.write(f"PASSED {_where(case)}  {case.scenario} > {case.name}\n")
            continue
        out.write(f"FAILED {_where(case)}  {case.scenario} > {case.name}\n")
        for line in _case_text(case):
            out.write(f"    {line}\n")
    for error in run.errors:
        out.write(f"ERROR  {error}\n")
    if args.coverage:
        _print_coverage(run, out)
    if args.junit_xml:
        write_junit(run, args.junit_xml, force=args.force)
    if args.output:
        try:
            write_reports(scenario_report(run), args.output, force=args.force)
        except ReportError as exc:
            raise cli.UsageError(str(exc)) from None
    if run.errors:
        noun = "problem" if len(run.errors) == 1 else "problems"
        err.write(f"{len(run.errors)} {noun} kept scenarios from running\n")
    out.write(f"{run.summary}\n")
    if out is not text_out:
        text_out.write(json.dumps(run.to_dict(), ensure_ascii=False, default=str) + "\n")
    return run.exit_code


# -------------------------------------------------------------------------------- diff


def _diff_options(p: argparse.ArgumentParser) -> None:
    shared = p.add_argument_group(
        "both configurations", "options that apply to before and after alike (a side's "
        "own options are added on top)")
    shared.add_argument("--env", metavar="FILE", help="the server's .env for both sides")
    shared.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                        type=cli.key_value, help="a process variable on both sides")
    shared.add_argument("--unset", metavar="KEY", action="append", default=[],
                        help="remove KEY on both sides (repeatable)")
    shared.add_argument("--transport", choices=cli.server_transports(),
                        help="the --transport of both servers")
    shared.add_argument("--inherit-env", action="store_true",
                        help="also give both servers this shell's environment")
    shared.add_argument("--lenient", action="store_true",
                        help="skip .env lines that can't be parsed, as the server does")
    shared.add_argument("--cwd", metavar="DIR", help="the server's startup directory")
    shared.add_argument("--package-dir", metavar="DIR",
                        help="the directory holding the server's own .env")
    shared.add_argument("--fs", metavar="SPEC",
                        help="a described host: a host spec JSON file or a shipped example")
    shared.add_argument("--profile", metavar="FILE",
                        help="a server profile JSON replacing the shipped assumptions")
    shared.add_argument("--platform", choices=PLATFORMS,
                        help="target platform: windows splits LOCAL_FILE_ROOTS on ';'")
    shared.add_argument("--server", metavar="NAME", choices=list_servers(), default=None,
                        help=f"which server both sides are: {', '.join(list_servers())} "
                        f"(default: the --client-config entry's, else {DEFAULT_SERVER})")
    shared.add_argument("--server-version", metavar="VERSION",
                        help="the release both sides reproduce (default: the newest modelled)")
    for server in iter_servers():
        own = cli.server_option_group(p, server,
                                      f"{server.id} settings (with --server {server.id})",
                                      "for both sides; --before-/--after- for one side")
        for side in ("before", "after"):
            _side_copies(server, side, own)
    cli.client_config_options(p, "both sides start from the entry")
    for side in ("before", "after"):
        g = p.add_argument_group(f"the {side} configuration")
        g.add_argument(f"--{side}-entry", metavar="NAME",
                       help=f"the {side} side starts from this entry of --client-config "
                       "instead of --entry")
        g.add_argument(f"--{side}-server-version", metavar="VERSION",
                       help=f"the release the {side} side reproduces")
        g.add_argument(f"--{side}-env", metavar="FILE", help=f"the {side} server's .env")
        g.add_argument(f"--{side}-set", metavar="KEY=VALUE", action="append", default=[],
                       type=cli.key_value,
                       help=f"a process variable of the {side} server (repeatable)")
        g.add_argument(f"--{side}-unset", metavar="KEY", action="append", default=[],
                       help=f"remove KEY on the {side} side (repeatable)")
        g.add_argument(f"--{side}-transport", choices=cli.server_transports(),
                       help=f"the {side} server's --transport")
        g.add_argument(f"--{side}-scenario", metavar="FILE[::NAME]",
                       help="take this side's configuration from a scenario file (the "
                       "scenario NAME, or its first)")
    probes = p.add_argument_group("probes")
    probes.add_argument("--path", dest="paths", metavar="PATH", action="append", default=[],
                        help="a path to ask both sides about (repeatable)")
    probes.add_argument("--paths-file", metavar="FILE",
                        help="more paths, one JSON string per line")
    probes.add_argument("--calls", metavar="FILE.jsonl", help="tool calls, one per line")
    probes.add_argument("--op", dest="ops", action="append",
                        choices=OPS,
                        help="operations to check each path for (default: read and write)")
    probes.add_argument("--no-generated", dest="generated", action="store_false",
                        help="ask only the given paths and calls")
    probes.add_argument("--over-http", action=argparse.BooleanOptionalAction, default=None,
                        help="whether requests arrive over HTTP (default: each side's "
                        "transport decides)")
    probes.add_argument("--walk-limit", type=cli.positive_int, default=200, metavar="N",
                        help="the most folder entries one call's walks check (default 200)")
    res = p.add_argument_group("result")
    res.add_argument("--allow-new-access", action="store_true",
                     help="exit 0 even when the change grants new access")
    res.add_argument("--json", action="store_true", help="print the changes as JSON")
    res.add_argument("--show-unchanged", action="store_true",
                     help="with --json or -o, include the probes whose answer didn't change")
    res.add_argument("--sarif", metavar="PATH",
                     help="write the new-access findings as SARIF 2.1.0, placed on the "
                     "after .env's changed setting (for code scanning)")
    res.add_argument("--junit-xml", metavar="PATH",
                     help="write the changed verdicts as JUnit XML (new access fails)")
    cli.report_outputs(res)


def _side_copies(server: Any, side: str, group: Any) -> None:
    """Add ``server``'s own options again, prefixed for one side (``--after-root``)."""
    import inspect

    scratch = argparse.ArgumentParser(add_help=False)
    server.add_cli_options(scratch.add_argument_group())
    for action in scratch._actions:
        names = [f"--{side}-{o[2:]}" for o in action.option_strings if o.startswith("--")]
        if not names:
            continue
        accepted = inspect.signature(type(action).__init__).parameters
        kwargs = {k: getattr(action, k) for k in ("nargs", "const", "default", "type",
                                                   "choices", "metavar")
                  if k in accepted and getattr(action, k) is not None}
        group.add_argument(*names, dest=f"{side}_{action.dest}", action=type(action),
                           help=f"the {side} side's {action.option_strings[0]}", **kwargs)


def _side_options(args: argparse.Namespace, server: Any, side: str) -> dict[str, Any]:
    """The server's own settings for one side: both sides' options, then the side's."""
    prefix = f"{side}_"
    own = argparse.Namespace(**{k[len(prefix):]: v for k, v in vars(args).items()
                                if k.startswith(prefix)})
    others = cli.without_shared(own, server.id)
    owners: list[tuple[str, str]] = []  # a flag two servers share names each of them
    for other in iter_servers():
        given = {k for k, v in other.options_from_args(others).items()
                 if v not in (None, [], ())}
        if other.id != server.id and given:
            owners.append((other.id, ", ".join(sorted(given))))
    if owners:
        whose = ", ".join(f"{names} is a setting of {o}" for o, names in owners)
        raise cli.UsageError(f"--{side}-...: {whose}, not of {server.id} "
                             f"(add {' or '.join(f'--server {o}' for o, _ in owners)})")
    named = argparse.Namespace(**{**vars(args), "server": server.id})
    return {**cli.server_options(named), **server.options_from_args(own)}


def _side_entry(args: argparse.Namespace, side: str) -> Any:
    """The deployment a side starts from: ``--{side}-entry``, else ``--entry``'s."""
    entry = getattr(args, f"{side}_entry", None)
    if entry is None:
        return cli.deployment(args)
    if not args.client_config:
        raise cli.UsageError(f"--{side}-entry goes with --client-config FILE")
    from ..deployments import DeploymentError, load_deployment

    try:
        return load_deployment(args.client_config, entry, args.client_format,
                               overridden=[k for k, _ in [*args.set,
                                                          *getattr(args, f"{side}_set")]])
    except DeploymentError as exc:
        raise cli.UsageError(str(exc)) from None


class _Side:
    """One resolved side of a diff."""

    def __init__(self, policy: Any, access: Any = None, catalog: Any = None) -> None:
        self.policy, self.access, self.catalog = policy, access, catalog


def _cli_side(args: argparse.Namespace, side: str) -> _Side:
    found = _side_entry(args, side)
    if found is not None and args.server is not None and found.server != args.server:
        raise cli.UsageError(f"--server {args.server}, but entry {found.entry!r} of "
                             f"{found.path} starts {found.server}")
    server_id = args.server or (found.server if found else DEFAULT_SERVER)
    server = get_server(server_id)
    options = _side_options(args, server, side)
    if found is not None:
        options = {**found.server_config().server_options, **options}
    version = (getattr(args, f"{side}_server_version") or args.server_version
               or (found.modelled_version() if found else None))
    env = getattr(args, f"{side}_env") or args.env
    if env and not server.env_file:
        raise cli.UsageError(cli.no_env(server))
    # The entry is read here (per side): the shared reader must not read --entry again.
    plain = argparse.Namespace(**{**vars(args), "client_config": None, "entry": None,
                                  "client_format": None, "server": server_id})
    config = cli.server_config(
        plain,
        env=env,
        settings={**(found.settings() if found else {}),
                  **dict([*args.set, *getattr(args, f"{side}_set")])},
        unset=[*args.unset, *getattr(args, f"{side}_unset")],
        transport=getattr(args, f"{side}_transport") or args.transport
        or (found.transport if found else "stdio"),
        platform=args.platform or "posix",
        cwd=args.cwd or (found.cwd if found else None),
        server_version=version, server_options=options,
    )
    return _Side(cli.resolve(config).policy)


def _scenario_side(args: argparse.Namespace, side: str, spec: str) -> _Side:
    from ..review.scenarios import ConfigSpec, ScenarioError, load_scenario_file, policy_from_config

    file, _, name = spec.partition("::")
    try:
        parsed = load_scenario_file(file)
    except ScenarioError as exc:
        raise cli.UsageError(str(exc)) from None
    chosen = parsed.scenario[0]
    if name:
        matches = [s for s in parsed.scenario if s.name == name]
        if not matches:
            names = ", ".join(repr(s.name) for s in parsed.scenario[:10])
            raise cli.UsageError(f"{file}: no scenario named {name!r} (scenarios: {names})")
        chosen = matches[0]
    overlay: dict[str, Any] = {}
    settings = dict([*args.set, *getattr(args, f"{side}_set")])
    if settings:
        overlay["settings"] = settings
    unset = [*args.unset, *getattr(args, f"{side}_unset")]
    if unset:
        overlay["unset"] = unset
    env = getattr(args, f"{side}_env") or args.env
    if env:
        overlay["env"] = os.path.abspath(env)
    transport = getattr(args, f"{side}_transport") or args.transport
    if transport:
        overlay["transport"] = transport
    if args.fs:
        overlay["host"] = args.fs if args.fs == "host" or not os.path.exists(args.fs) \
            else os.path.abspath(args.fs)
    for key in ("cwd", "package_dir", "profile"):
        value = getattr(args, key)
        if value:
            overlay[key] = value if key != "profile" else os.path.abspath(value)
    if args.platform:
        overlay["platform"] = args.platform
    if args.lenient:
        overlay["lenient"] = True
    config = parsed.config.merged(chosen.config).merged(ConfigSpec.model_validate(overlay))
    try:
        built = policy_from_config(config, os.path.dirname(os.path.abspath(file)))
    except ScenarioError as exc:
        raise cli.UsageError(f"{spec}: {exc}") from None
    return _Side(built.policy, built.access, built.catalog)


def _side(args: argparse.Namespace, side: str) -> _Side:
    spec = getattr(args, f"{side}_scenario")
    return _scenario_side(args, side, spec) if spec else _cli_side(args, side)


def _describe(policy: Any) -> str:
    if getattr(policy, "server_id", DEFAULT_SERVER) != DEFAULT_SERVER:
        # Another server describes itself: its summary's directories and roots.
        s = policy.summary()
        allowed = ", ".join(s.get("allowed_directories") or ()) or "(none)"
        roots = "" if s.get("roots") is None else " · roots " + (
            ", ".join(s["roots"]) or "(none valid)")
        serves = "" if policy.serves else f" · would exit: {policy.exit_message}"
        return (f"{policy.server_id} {policy.server_version} · allowed {allowed}{roots} · "
                f"target {getattr(policy.fs, 'label', 'filesystem')}{serves}")
    how = "explicit" if policy.explicit else "defaulted"
    roots = ""
    if policy.mode.value == "roots":
        roots = " · roots " + ", ".join(r.configured for r in policy.roots)
    serves = "" if policy.serves else f" · would exit: {policy.exit_message}"
    return (f"{policy.mode.value} ({how}) · transport {policy.transport} · "
            f"target {getattr(policy.fs, 'label', 'filesystem')}{roots}{serves}")


def _verdict_word(side: dict[str, Any], kind: str) -> str:
    if kind == "call":
        gate = "" if side.get("gate") in (None, "execute") else f", {side['gate']}"
        shown = side["outcome"] if side.get("visible") else "absent"
        return f"{shown}{gate}"
    return "allowed" if side["allowed"] else f"refused [{side['reason']}]"


def _print_changes(result: Any, out: TextIO) -> None:
    from ..review.diff import elide_common_start

    groups = (("new_access", "NEW ACCESS (refused -> allowed)"),
              ("removed_access", "REMOVED ACCESS (allowed -> refused)"),
              ("changed_message", "CHANGED MESSAGE"))
    for kind, heading in groups:
        changes = result.of(kind)
        out.write(f"\n{heading}: {len(changes)}\n")
        for c in changes:
            where = f"call {c.probe}" if c.kind == "call" else c.probe
            out.write(f"  {one_line(where)}\n")
            out.write(f"      {_verdict_word(c.before, c.kind)} -> "
                      f"{_verdict_word(c.after, c.kind)}    ({c.source})\n")
            if c.detail:
                out.write(f"      {one_line(c.detail)}\n")
            if kind == "changed_message" and c.kind == "path":
                b, a = elide_common_start(c.before["message"], c.after["message"])
                out.write(f"      before: {one_line(b)}\n      after:  {one_line(a)}\n")


def _outputs_and_paths(args: argparse.Namespace) -> list[str]:
    """Refuse unknown report formats before any work; the paths given on the command line."""
    from ..review.report import ReportError, format_for

    try:
        for name in args.output:
            format_for(name)
    except ReportError as exc:
        raise cli.UsageError(str(exc)) from None
    paths = list(args.paths)
    if args.paths_file:
        paths.extend(cli.read_paths_file(args.paths_file))
    return paths


def cmd_diff(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..probe import ProbeError
    from ..review.diff import compare_policies
    from ..review.report import ReportError, diff_report, write_reports

    paths = _outputs_and_paths(args)
    _check_outputs([*args.output, *(p for p in (args.sarif, args.junit_xml) if p)],
                   args.force)
    before, after = _side(args, "before"), _side(args, "after")
    for label, side in (("before", before), ("after", after)):
        for warning in (*side.policy.env.warnings, *side.policy.warnings):
            err.write(f"warning ({label}): {one_line(warning)}\n")
    try:
        result = compare_policies(
            before.policy, after.policy, paths, args.calls or (),
            ops=tuple(args.ops or ("read", "write")), generated=args.generated,
            over_http=args.over_http, catalog=after.catalog or before.catalog,
            before_access=before.access, after_access=after.access,
            walk_limit=args.walk_limit,
        )
    except ProbeError as exc:
        raise cli.UsageError(str(exc)) from None
    counts = result.counts()
    given = sum(1 for c in result.changes if c.source == "given")
    if args.json:
        out.write(json.dumps(result.to_dict(include_unchanged=args.show_unchanged),
                             ensure_ascii=False) + "\n")
    else:
        out.write(f"before: {_describe(before.policy)}\n")
        out.write(f"after:  {_describe(after.policy)}\n")
        out.write(f"{len(result.changes)} probes ({given} given, "
                  f"{len(result.changes) - given} generated): "
                  f"{counts['new_access']} new access, {counts['removed_access']} removed "
                  f"access, {counts['changed_message']} changed message\n")
        _print_changes(result, out)
    if args.output:
        report = diff_report(result, before.policy, after.policy,
                             include_unchanged=args.show_unchanged)
        try:
            write_reports(report, args.output, force=args.force)
        except ReportError as exc:
            raise cli.UsageError(str(exc)) from None
    if getattr(args, "sarif", None):
        _write_diff_sarif(result, before.policy, after.policy, args.sarif, force=args.force)
    if getattr(args, "junit_xml", None):
        write_diff_junit(result, args.junit_xml, allow_new_access=args.allow_new_access,
                         force=args.force)
    for message in result.errors:
        err.write(f"error: {one_line(message)}\n")
    if counts["new_access"] and not args.allow_new_access:
        err.write(f"this change grants new access ({counts['new_access']} verdicts); "
                  "pass --allow-new-access to accept it\n")
    if result.errors:
        return 2  # as probe: some given calls couldn't be asked
    return 1 if counts["new_access"] and not args.allow_new_access else 0


def _write_diff_sarif(result: Any, before: Any, after: Any, path: str, *,
                      force: bool = False) -> None:
    from ..review import sarif

    sarif.write(sarif.diff_results(result, before, after), path, error=cli.UsageError,
                force=force)


def write_diff_junit(result: Any, path: str, *, allow_new_access: bool = False,
                     force: bool = False) -> None:
    """Write the changed verdicts as JUnit XML: one testcase each; new access fails."""
    import xml.etree.ElementTree as ET

    changed = result.changed
    failing = 0 if allow_new_access else len(result.new_access)
    suite = ET.Element("testsuite", name="localfs-explorer diff", tests=str(len(changed)),
                       failures=str(failing), errors="0")
    for c in changed:
        tc = ET.SubElement(suite, "testcase", classname=f"diff.{c.change}",
                           name=_xml_text(c.probe))
        text = _xml_text(f"{c.change} ({c.source}){': ' + c.detail if c.detail else ''}")
        if c.change == "new_access" and not allow_new_access:
            ET.SubElement(tc, "failure", message=text).text = text
        else:
            ET.SubElement(tc, "system-out").text = text
    root = ET.Element("testsuites", name="localfs-explorer")
    root.append(suite)
    tree = ET.ElementTree(root)
    ET.indent(tree)
    buffer = io.BytesIO()
    tree.write(buffer, encoding="utf-8", xml_declaration=True)
    write_output(path, buffer.getvalue().decode("utf-8"), cli.UsageError, force=force)


# ------------------------------------------------------------------------------ report


def cmd_report(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    cli.refuse_env(args)
    from ..probe import ProbeError, iter_call_verdicts
    from ..review.report import ReportError, batch_report, write_reports

    paths = _outputs_and_paths(args)
    _check_outputs(args.output, args.force)
    if not paths and not args.calls:
        raise cli.UsageError("report needs --calls FILE.jsonl, --path or --paths-file")
    policy = cli.build_policy(args)
    cli.warn_config(policy, err)
    verdicts = []
    access = cli.access_option(args)
    if args.calls:
        try:
            verdicts = list(iter_call_verdicts(policy, args.calls, over_http=args.over_http,
                                               access=access))
        except (ProbeError, ValueError) as exc:
            raise cli.UsageError(str(exc)) from None
    decisions = [policy.check(p, args.op, over_http=args.over_http) for p in paths]
    report = batch_report(policy, verdicts, decisions, title=args.title)
    try:
        written = write_reports(report, args.output, force=args.force)
    except ReportError as exc:
        raise cli.UsageError(str(exc)) from None
    for path in written:
        out.write(f"wrote {path}\n")
    broken = [v for v in verdicts if v.outcome == "error"]
    for verdict in broken:
        err.write(f"error: {one_line(verdict.message)}\n")
    # A call that couldn't be read is in the report, but the run is not a clean one.
    return 2 if broken else 0
