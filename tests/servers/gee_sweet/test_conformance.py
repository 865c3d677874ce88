"""Conformance with the real server: random trees on disk, the real ``local_files`` and the
explorer's CLI must give the same answers.

For each seed a random deployment is built under a fresh directory: nested directories
and files, absolute and relative symlinks to directories, files, missing targets and
loops, hardlinks to the token, case variants of deny-listed names, a startup directory
and roots spelled through symlinks and with spaces, a home with a cache directory, and
settings drawn for the mode, roots, transport and every deny-listed path (unset, empty,
relative, through a symlink). Probe paths add ``..`` after symlinks, doubled slashes,
``.``, trailing slashes, relative spellings, NUL bytes and lone surrogates.

The real server's answers come from ``conformance_oracle.py`` (one forked process per
configuration, with the environment, working directory and argv the server would have);
the explorer's from ``localfs-explorer check --json`` (single checks) and ``check --batch
--json`` (the server's ``many_checks``) run in-process, and ``validate --json`` for the
resolved policy. Compared: allowed, the exact message, the resolved path; the mode,
explicit, roots, deny-list, deny dirs, the error and the exit line.

Knobs (environment variables):

- ``LOCALFS_CONFORMANCE_TREES``: trees to try (default 6; the suite was run with 300).
- ``LOCALFS_CONFORMANCE_SEED``: the first seed (default 0); seeds are consecutive.
- ``LOCALFS_SERVER_VERSION``: the ``mcp-gee-sweet`` version expected to be installed
  (default: the one the shipped server profile names).

A divergence fails with a reproduction shrunk to the fewest tree entries and settings
that still show it, as a shell script that rebuilds the tree and runs the explorer.
"""

from __future__ import annotations

import gzip
import importlib.util
import io
import json
import os
import posixpath
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path, PurePosixPath

import pytest

from localfs_explorer.cli import main as cli
from localfs_explorer.servers.gee_sweet.profile import DEFAULT_PROFILE

pytestmark = [
    pytest.mark.real,
    pytest.mark.skipif(
        importlib.util.find_spec("mcp_gee_sweet") is None,
        reason="the real server (mcp-gee-sweet, Python >= 3.11) is not installed: "
        "install the test extra to compare the engine with it",
    ),
    pytest.mark.skipif(not hasattr(os, "fork"), reason="the oracle forks per configuration"),
]

TREES = int(os.environ.get("LOCALFS_CONFORMANCE_TREES", "6"))
FIRST_SEED = int(os.environ.get("LOCALFS_CONFORMANCE_SEED", "0"))
ORACLE = Path(__file__).with_name("conformance_oracle.py")
OPS = ("read", "write", "read_write")


# --- the oracle process ------------------------------------------------------------------


class Oracle:
    """One long-lived oracle process; each ``ask`` forks a fresh server import."""

    def __init__(self) -> None:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tempfile.gettempdir()}
        self.proc = subprocess.Popen(
            [sys.executable, str(ORACLE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env=env, text=True, encoding="ascii",
        )

    def ask(self, config: dict) -> dict:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(config, ensure_ascii=True) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the oracle process died")
        answer = json.loads(line)
        if "crash" in answer:
            raise RuntimeError(f"the real server crashed: {answer['crash']}")
        return answer

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


@pytest.fixture(scope="module")
def oracle():
    o = Oracle()
    yield o
    o.close()


# --- random deployments ------------------------------------------------------------------


@dataclass
class Case:
    """A deployment: tree entries (paths relative to the base), settings and probes.

    Every string may contain ``{B}``, replaced by the base directory when materialised, so
    a case can be rebuilt elsewhere while it is shrunk.
    """

    seed: int
    entries: list[tuple] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str = "{B}/app"
    transport: str = "stdio"
    argv_transport: bool = False
    probes: list[tuple[str, str, bool]] = field(default_factory=list)
    #: Whether probes aimed at the resolved policy were added (see policy_probes).
    aimed: bool = False

    def build(self, base: str) -> None:
        for entry in self.entries:
            kind, rel = entry[0], entry[1]
            path = os.path.join(base, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            try:
                if kind == "dir":
                    os.makedirs(path, exist_ok=True)
                elif kind == "file":
                    Path(path).write_text("x")
                elif kind == "symlink":
                    os.symlink(entry[2].replace("{B}", base), path)
                elif kind == "hardlink":
                    os.link(os.path.join(base, entry[2]), path)
            except OSError:
                pass  # an entry shadowed by an earlier one (e.g. a name taken twice)

    def config(self, base: str, probes: list[tuple[str, str, bool]] | None = None) -> dict:
        sub = lambda text: text.replace("{B}", base)  # noqa: E731
        argv = ["mcp-gee-sweet"]
        if self.argv_transport:
            argv += ["--transport", self.transport]
        return {
            "env": {k: sub(v) for k, v in self.env.items()},
            "cwd": sub(self.cwd),
            "argv": argv,
            "checks": [{"path": sub(p), "op": op, "over_http": http}
                       for p, op, http in (self.probes if probes is None else probes)],
        }


NAMES = ["a", "b", "data", "Data", "sub", "x y", "deep", "c"]
DENY_NAMES = ["token.json", "Token.json", "TOKEN.JSON", "credentials.json",
              "service_account.json", "Service_Account.json", "cache.db", "key.json"]


def random_case(seed: int) -> Case:
    rng = random.Random(seed)
    case = Case(seed=seed)
    dirs = ["app", "home", "data", "outside"]
    files: list[str] = []
    for _ in range(rng.randint(2, 7)):
        parent = rng.choice(dirs)
        d = f"{parent}/{rng.choice(NAMES)}"
        if d not in dirs:
            dirs.append(d)
    for d in dirs:
        case.entries.append(("dir", d))
    for _ in range(rng.randint(2, 8)):
        f = f"{rng.choice(dirs)}/{rng.choice(NAMES + DENY_NAMES)}"
        if f not in dirs and f not in files:
            files.append(f)
            case.entries.append(("file", f))
    # The server's own files in the startup directory, some of them missing.
    for name in ("credentials.json", "token.json", "service_account.json"):
        if rng.random() < 0.6:
            files.append(f"app/{name}")
            case.entries.append(("file", f"app/{name}"))
    if rng.random() < 0.5:
        cache_dir = rng.choice(["home/.cache/mcp-gee-sweet", "home/xdg/mcp-gee-sweet",
                                "home/Library/Caches/mcp-gee-sweet"])
        case.entries.append(("dir", cache_dir))
        case.entries.append(("file", f"{cache_dir}/cache.db"))
        files.append(f"{cache_dir}/cache.db")
    links: list[str] = []
    for i in range(rng.randint(2, 7)):
        where = rng.choice(dirs)
        name = f"{where}/l{i}"
        kind = rng.random()
        if kind < 0.35 and dirs:
            target_rel = rng.choice(dirs)
        elif kind < 0.6 and files:
            target_rel = rng.choice(files)
        elif kind < 0.75:
            target_rel = f"{rng.choice(dirs)}/missing{i}"
        elif kind < 0.9:
            target_rel = name  # a loop onto itself, or through a partner below
        else:
            target_rel = f"{where}/l{i + 1}"  # a chain or a loop with the next link
        if rng.random() < 0.5:
            target = "{B}/" + target_rel
        else:
            target = posixpath.relpath(target_rel, posixpath.dirname(name))
        case.entries.append(("symlink", name, target))
        links.append(name)
    if rng.random() < 0.6:
        case.entries.append(("hardlink", f"{rng.choice(dirs)}/hard", "app/token.json"))
        if "app/token.json" not in files:
            case.entries.insert(len(dirs), ("file", "app/token.json"))
            files.append("app/token.json")
        files.append("hard")
    # A startup directory and a root reached through symlinks, and a spaced directory.
    case.entries.append(("symlink", "app-link", "{B}/app"))
    case.entries.append(("symlink", "data link", "{B}/data"))
    case.entries.append(("dir", "data/with space"))
    if rng.random() < 0.3:
        case.cwd = "{B}/app-link"

    # Settings.
    case.transport = rng.choice(["stdio", "stdio", "stdio", "sse", "streamable-http"])
    case.argv_transport = case.transport != "stdio" or rng.random() < 0.3
    env = case.env
    env["HOME"] = rng.choice(["{B}/home", "{B}/home/", "{B}/home", "{B}/home", "home", ""])
    mode = rng.choice([None, None, "full", "full", "FULL", "roots", "roots", "roots", "off",
                       " Roots ", "", "bogus"])
    if mode is not None:
        env["LOCAL_FILE_ACCESS"] = mode
    root_choices = ["{B}/data", "{B}/data link", "{B}/data/with space", " {B}/outside ",
                    "data", "{B}/missing-root", "{B}/app/token.json", "{B}",
                    f"{{B}}/{rng.choice(links)}", "/"]
    if mode in ("roots", " Roots ") or rng.random() < 0.2:
        picked = rng.sample(root_choices, rng.randint(0, 3))
        if rng.random() < 0.85:
            picked = [r for r in picked if "missing" not in r and "token" not in r] or [
                "{B}/data"]
        env["LOCAL_FILE_ROOTS"] = ":".join(picked)
    for setting, choices in {
        "TOKEN_PATH": ["token.json", "{B}/app-link/token.json", "{B}/app/Token.json", "",
                       "{B}/app-link/missing-token.json", "../app/token.json"],
        "CREDENTIALS_PATH": ["{B}/app/credentials.json", "", "creds/c.json"],
        "SERVICE_ACCOUNT_PATH": ["", "{B}/data/key.json", "sa.json"],
        "CACHE_DB_PATH": ["", "{B}/data/cache.db", "{B}/home/.cache/mcp-gee-sweet/cache.db",
                          ":memory:"],
        "XDG_CACHE_HOME": ["{B}/home/xdg", "rel-cache", ""],
        "GOOGLE_APPLICATION_CREDENTIALS": ["{B}/data/key.json", ""],
        "CLOUDSDK_CONFIG": ["{B}/home/gc", ""],
        "LOG_FILE": ["{B}/outside/server.log", ""],
        "ACCESS_LOG_FILE": ["access.log"],
    }.items():
        if rng.random() < 0.35:
            env[setting] = rng.choice(choices)

    # Probes: every entry, spelled many ways, plus the settings' own paths.
    spots = [e[1] for e in case.entries] + ["app/token.json", "app/TOKEN.JSON",
                                            "home/.cache/mcp-gee-sweet/new.db",
                                            "home/.Cache/MCP-GEE-SWEET/x", "data/new.txt"]
    paths: list[str] = []
    for rel in spots:
        absolute = "{B}/" + rel
        paths.append(absolute)
        variant = rng.random()
        if variant < 0.15:
            paths.append(absolute + "/")
        elif variant < 0.3:
            paths.append(absolute + "/../" + rng.choice(NAMES + DENY_NAMES))
        elif variant < 0.45:
            paths.append(absolute.replace("/", "//", 1 + rng.randint(0, 3)))
        elif variant < 0.55:
            paths.append(absolute + "/./x")
        elif variant < 0.7:
            paths.append(absolute + "//" + rng.choice(NAMES))
        elif variant < 0.8:
            paths.append(posixpath.relpath(rel, "app"))
        elif variant < 0.85:
            paths.append("{B}/" + rel.upper())
    for link in links:
        paths.append("{B}/" + link + "//x")
        paths.append("{B}/" + link + "/../token.json")
    paths += ["token.json", "./token.json", "../app/token.json", "", ".", "..",
              "{B}/app/tok\0en.json", "{B}/data/\ud800.txt", "{B}/data/\udcff.txt",
              "{B}/da\ud800ta/x", "\ud800", "{B}//data", "//", "/", "{B}/data/"]
    for value in env.values():
        if value and ":" not in value:
            paths.append(value)
    rng.shuffle(paths)
    for p in paths:
        case.probes.append((p, rng.choice(OPS), rng.random() < 0.5))
    # The same paths once more for every operation, so each verb is asked in a batch.
    for op in OPS:
        case.probes += [(p, op, False) for p in rng.sample(paths, min(12, len(paths)))]
    return case


# --- the explorer's side -----------------------------------------------------------------


def explorer_args(config: dict, package_dir: str, transport: str) -> list[str]:
    args = ["--transport", transport, "--cwd", config["cwd"], "--package-dir", package_dir]
    for key, value in sorted(config["env"].items()):
        args += ["--set", f"{key}={value}"]
    return args


def run_cli(argv: list[str]) -> tuple[int, list[dict]]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(argv, out=out, err=err)
    rows = [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]
    return code, rows


def explorer_answers(config: dict, package_dir: str, transport: str, batch: bool,
                     tmp: str) -> list[dict]:
    """The explorer's answer per check, through the CLI (one run per operation and
    over-HTTP flag, order kept within each run as the batch's parent cache needs)."""
    base_args = explorer_args(config, package_dir, transport)
    answers: list[dict | None] = [None] * len(config["checks"])
    # The CLI takes one operation per run. The tree doesn't change while it is asked, so
    # grouping the checks by operation changes no answer, batched or not.
    groups: dict[tuple[str, bool], list[int]] = {}
    for i, check in enumerate(config["checks"]):
        groups.setdefault((check["op"], check["over_http"]), []).append(i)
    work = list(groups.values())
    for indices in work:
        first = config["checks"][indices[0]]
        paths_file = os.path.join(tmp, "paths.jsonl")
        with open(paths_file, "w", encoding="ascii") as fh:
            for i in indices:
                fh.write(json.dumps(config["checks"][i]["path"], ensure_ascii=True) + "\n")
        argv = ["check", "--json", "--paths-file", paths_file, "--op", first["op"],
                "--over-http" if first["over_http"] else "--no-over-http", *base_args]
        if batch:
            argv.append("--batch")
        code, rows = run_cli(argv)
        assert len(rows) == len(indices), (argv, code)
        for i, row in zip(indices, rows, strict=False):
            answers[i] = row
    return answers  # type: ignore[return-value]


def _norm_resolved(resolved: str | None) -> str | None:
    # The server returns Path(realpath): compare the explorer's realpath the same way.
    return None if resolved is None else str(PurePosixPath(resolved))


def compare_checks(config: dict, server: list[dict], explorer: list[dict],
                   batch_flag: bool) -> list[dict]:
    problems = []
    for i, check in enumerate(config["checks"]):
        s, e = server[i], explorer[i]
        got = {"allowed": e["allowed"], "message": e["message"],
               "resolved": _norm_resolved(e["resolved"]) if e["allowed"] else None}
        want = {"allowed": s["allowed"], "message": s["message"], "resolved": s["resolved"]}
        if got != want:
            problems.append({"check": check, "batch": batch_flag, "server": s,
                             "explorer": got})
    return problems


def compare_policy(server: dict, validate: dict) -> list[str]:
    sp = server["policy"]
    roots = [[r["configured"], r["resolved"]] for r in validate["roots"]] \
        if validate["mode"] == "roots" else []
    got = {
        "mode": validate["mode"],
        "explicit": validate["explicit"],
        "transport": validate["transport"],
        "roots": roots,
        "deny_list": [e["resolved"] for e in validate["deny_list"]],
        "deny_dirs": [d["resolved"] for d in validate["deny_dirs"]],
        "error": validate["exit_message"],
        "exit_line": validate["exit_line"],
    }
    return [f"{key}: server {sp[key]!r}, explorer {got[key]!r}"
            for key in sp if sp[key] != got[key]]


def policy_probes(case: Case, oracle: Oracle, base: str) -> list[tuple[str, str, bool]]:
    """Probes aimed at what the server resolved: each deny-list entry and deny dir in
    other cases and spellings, and each root's inside and edge."""
    rng = random.Random(case.seed * 7919 + 1)
    policy = oracle.ask({**case.config(base, []), "checks": []})["policy"]

    def recase(path: str, how: str) -> str:
        # Change case only below the base, so the probe still names the same tree.
        if not path.startswith(base + "/"):
            return path  # the server package's or the legacy cache's: keep as they are
        return base + getattr(path[len(base):], how)()

    spots: list[str] = []
    for entry in policy["deny_list"]:
        spots += [entry, recase(entry, "upper"), recase(entry, "swapcase"), entry + "-new",
                  posixpath.dirname(entry) + "//" + posixpath.basename(entry)]
    for directory in policy["deny_dirs"]:
        spots += [directory, directory + "/new.db", recase(directory, "upper") + "/X.db",
                  recase(directory, "swapcase"), directory + "-sibling/x", directory + "/../x"]
    for _, real in policy["roots"]:
        spots += [real, real + "/new", real + "-evil/x", real + "/../x",
                  recase(real, "upper") + "/y"]
    return [(p.replace(base, "{B}"), rng.choice(OPS), rng.random() < 0.3) for p in spots]


def divergences(case: Case, oracle: Oracle, base: str,
                probes: list[tuple[str, str, bool]] | None = None) -> dict:
    """Build ``case`` under ``base`` and list every difference (empty: conformant)."""
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    case.build(base)
    if probes is None and not case.aimed:
        case.probes += policy_probes(case, oracle, base)
        case.aimed = True
    config = case.config(base, probes)
    server = oracle.ask(config)
    package_dir = server["package_dir"]
    args = explorer_args(config, package_dir, case.transport)
    _code, rows = run_cli(["validate", "--json", *args])
    found: dict = {"policy": compare_policy(server, rows[0]), "checks": []}
    with tempfile.TemporaryDirectory() as tmp:
        for batch, key in ((False, "single"), (True, "batch")):
            mine = explorer_answers(config, package_dir, case.transport, batch, tmp)
            found["checks"] += compare_checks(config, server[key], mine, batch)
    found["package_dir"] = package_dir
    return found


# --- shrinking and reporting -------------------------------------------------------------


def shrink(case: Case, oracle: Oracle, base: str, probe: tuple[str, str, bool]) -> Case:
    """The case cut down to one probe and the fewest entries and settings still diverging."""
    small = Case(seed=case.seed, entries=list(case.entries), env=dict(case.env),
                 cwd=case.cwd, transport=case.transport, argv_transport=case.argv_transport,
                 probes=[probe])

    def still(candidate: Case) -> bool:
        try:
            found = divergences(candidate, oracle, base)
        except RuntimeError:  # e.g. the startup directory was cut away: no server at all
            return False
        return bool(found["checks"] or found["policy"])

    if not still(small):
        return case  # order-dependent: keep the full case
    # Delta debugging over the tree entries: drop halves, then quarters, ... while the
    # divergence stays.
    chunk = max(1, len(small.entries) // 2)
    while chunk >= 1:
        i = 0
        while i < len(small.entries):
            trial = Case(**{**small.__dict__,
                            "entries": small.entries[:i] + small.entries[i + chunk:]})
            if still(trial):
                small = trial
            else:
                i += chunk
        chunk //= 2
    for key in list(small.env):
        trial = Case(**{**small.__dict__, "env": {k: v for k, v in small.env.items()
                                                  if k != key}})
        if still(trial):
            small = trial
    return small


def reproduction(case: Case, found: dict, package_dir: str) -> str:
    base = "/tmp/conformance-repro"
    lines = ["# the tree", f"rm -rf {base} && mkdir -p {base} && cd {base}"]
    for entry in case.entries:
        kind, rel = entry[0], entry[1]
        q = shlex.quote(rel)
        parent = shlex.quote(posixpath.dirname(rel) or ".")
        if kind == "dir":
            lines.append(f"mkdir -p {q}")
        elif kind == "file":
            lines.append(f"mkdir -p {parent} && echo x > {q}")
        elif kind == "symlink":
            target = shlex.quote(entry[2].replace("{B}", base))
            lines.append(f"mkdir -p {parent} && ln -s {target} {q}")
        else:
            lines.append(f"mkdir -p {parent} && ln {shlex.quote(entry[2])} {q}")
    config = case.config(base)
    args = explorer_args(config, package_dir, case.transport)
    lines.append("# the explorer (the server ran with this environment, cwd and argv: "
                 f"{json.dumps(config['argv'])})")
    for check in config["checks"]:
        lines.append(
            "localfs-explorer check --json "
            + shlex.join([check["path"], "--op", check["op"],
                          "--over-http" if check["over_http"] else "--no-over-http",
                          *args])
        )
    lines.append("# found: " + json.dumps({"policy": found["policy"],
                                           "checks": found["checks"][:3]},
                                          ensure_ascii=True, indent=1))
    return "\n".join(lines)


# --- the tests ---------------------------------------------------------------------------


def test_the_installed_server_is_the_version_the_profile_names():
    expected = os.environ.get("LOCALFS_SERVER_VERSION", DEFAULT_PROFILE.server_version)
    assert metadata.version("mcp-gee-sweet") == expected


@pytest.mark.parametrize("seed", range(FIRST_SEED, FIRST_SEED + TREES))
def test_random_tree_conforms(seed, oracle, tmp_path):
    case = random_case(seed)
    base = str(tmp_path.resolve() / "Deploy Ment")
    found = divergences(case, oracle, base)
    if not found["checks"] and not found["policy"]:
        return
    first = found["checks"][0]["check"] if found["checks"] else None
    small = case
    if first is not None:
        probe = next(p for p in case.probes
                     if p[0].replace("{B}", base) == first["path"]
                     and p[1] == first["op"] and p[2] == first["over_http"])
        small = shrink(case, oracle, base, probe)
    found_small = divergences(small, oracle, base)
    if not (found_small["checks"] or found_small["policy"]):
        small, found_small = case, found
    total = len(found["checks"])
    pytest.fail(
        f"seed {seed}: {total} check(s) and {len(found['policy'])} policy field(s) differ "
        f"from the real server; minimal reproduction:\n"
        + reproduction(small, found_small, found["package_dir"])
    )


def test_a_divergence_is_reported_with_a_reproduction(oracle, tmp_path, monkeypatch):
    """The harness itself: an engine that answers wrongly must be caught and shrunk."""
    from localfs_explorer.servers.gee_sweet.check import verdict as check_module

    case = random_case(FIRST_SEED)
    base = str(tmp_path.resolve() / "Deploy Ment")
    original = check_module.DENY_VERBS
    monkeypatch.setattr(check_module, "DENY_VERBS", {**original, "read": "looked at"})
    case.env = {"HOME": "{B}/home", "LOCAL_FILE_ACCESS": "full", "LOG_FILE": "x.log"}
    case.cwd = "{B}/app"
    case.probes = [("{B}/app/token.json", "read", False)]
    found = divergences(case, oracle, base)
    assert found["checks"] and "looked at" in found["checks"][0]["explorer"]["message"]
    small = shrink(case, oracle, base, case.probes[0])
    assert len(small.entries) < len(case.entries)
    text = reproduction(small, divergences(small, oracle, base), found["package_dir"])
    assert "localfs-explorer check" in text and "token.json" in text


# --- recording the server's answers for the replay test ----------------------------------

RECORDING = Path(__file__).with_name("data") / "server_answers.json.gz"


def _placeholders(value, base: str, package_dir: str):
    if isinstance(value, str):
        return value.replace(package_dir, "{PKG}").replace(base, "{B}")
    if isinstance(value, list):
        return [_placeholders(v, base, package_dir) for v in value]
    if isinstance(value, dict):
        return {k: _placeholders(v, base, package_dir) for k, v in value.items()}
    return value


def record(seeds: range, path: Path = RECORDING) -> None:
    """Ask the real server about the trees of ``seeds`` and store its answers, with the
    tree's base and the server's package directory as placeholders, for the replay test
    (test_conformance_replay.py), which needs no server."""
    oracle = Oracle()
    cases = []
    try:
        for seed in seeds:
            case = random_case(seed)
            with tempfile.TemporaryDirectory() as tmp:
                base = str(Path(tmp).resolve() / "Deploy Ment")
                os.makedirs(base)
                case.build(base)
                case.probes += policy_probes(case, oracle, base)
                config = case.config(base)
                answer = oracle.ask(config)
                package_dir = answer["package_dir"]
                cases.append(_placeholders({
                    "seed": seed, "entries": case.entries, "transport": case.transport,
                    "config": config, "policy": answer["policy"],
                    "single": answer["single"], "batch": answer["batch"],
                }, base, package_dir))
    finally:
        oracle.close()
    data = {"server": "mcp-gee-sweet", "server_version": metadata.version("mcp-gee-sweet"),
            "python": f"{sys.version_info[0]}.{sys.version_info[1]}", "cases": cases}
    path.parent.mkdir(exist_ok=True)
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":")) + "\n"
    path.write_bytes(gzip.compress(text.encode("ascii"), mtime=0))


if __name__ == "__main__":  # python tests/servers/gee_sweet/test_conformance.py [FIRST COUNT]
    first, count = (int(a) for a in (sys.argv[1:3] if len(sys.argv) > 2 else (1000, 16)))
    record(range(first, first + count))
    print(f"recorded {count} trees in {RECORDING}")
