"""Per-path cost of the check against the system calls it is built on and the server's own.

    python benchmarks/bench_check.py [--files N] [--rounds R]

Builds N real files (default 10,000) in a temporary directory, then times, side by side
in one run and interleaved chunk by chunk, per path: ``os.lstat``, ``os.path.realpath``,
the explorer's single ``check_read`` and its ``check_read`` inside ``many_checks()``,
and, when the real server package (mcp-gee-sweet, in the test extra) is installed, the
server's own ``check_read`` and its ``many_checks()`` on the same files. The server
module is imported into this process with its environment and startup directory set
first, as it reads them at import (its policy, deny-list and transport). Prints the
median of each and of the per-round ratios the project targets:

- single check <= 0.5 x the server's single check
- batch check  <= 0.2 x the server's many_checks()
- batch check  <= 2.0 x os.lstat
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

from localfs_explorer import load_env, resolve_policy


def build_tree(base: Path, files: int, per_dir: int = 100) -> list[str]:
    """``files`` empty files, ``per_dir`` to a directory, three levels below ``base``."""
    paths = []
    for i in range(files):
        d = base / "data" / f"group{i // (per_dir * 10)}" / f"dir{i // per_dir}"
        if i % per_dir == 0:
            d.mkdir(parents=True, exist_ok=True)
        p = d / f"file{i}.txt"
        p.touch()
        paths.append(str(p))
    return paths


# Settings the server reads at import that must not leak in from this shell.
_SERVER_SETTINGS = (
    "LOCAL_FILE_ACCESS", "LOCAL_FILE_ROOTS", "CREDENTIALS_PATH", "TOKEN_PATH",
    "SERVICE_ACCOUNT_PATH", "CACHE_DB_PATH", "XDG_CACHE_HOME", "CLOUDSDK_CONFIG",
    "GOOGLE_APPLICATION_CREDENTIALS", "LOG_FILE", "ACCESS_LOG_FILE", "ENABLED_TOOLS",
    "DEBUG_LEVEL",
)


@contextlib.contextmanager
def _startup_directory(path: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def import_server(settings: dict[str, str], cwd: Path) -> ModuleType | None:
    """The real server's ``local_files`` module, imported with ``settings`` as its
    environment and ``cwd`` as its startup directory; None when it isn't installed."""
    if importlib.util.find_spec("mcp_gee_sweet") is None:
        return None
    for key in _SERVER_SETTINGS:
        os.environ.pop(key, None)
    os.environ.update(settings)
    with _startup_directory(cwd):
        import mcp_gee_sweet.local_files as local_files
    return local_files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp).resolve()
        (base / "app").mkdir()
        (base / "app" / "token.json").write_text("{}")
        paths = build_tree(base, args.files)
        settings = {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(base / "data"),
                    "HOME": str(base)}
        server = import_server(settings, base / "app")
        package_dir = os.path.dirname(server.__file__) if server else None
        env = load_env(None, overrides=settings)
        policy = resolve_policy(env, cwd=str(base / "app"), package_dir=package_dir)
        assert all(policy.check_read(p).allowed for p in paths[:100])
        if server is not None:
            # Same verdicts on the same files, or the timings compare different work.
            assert [str(server.check_read(p)) for p in paths[:100]] == [
                policy.check_read(p).resolved for p in paths[:100]]

        def batch(chunk: list[str]) -> None:
            with policy.many_checks() as b:
                for p in chunk:
                    b.check_read(p)

        cases: dict[str, Callable[[list[str]], object]] = {
            "os.lstat": lambda chunk: [os.lstat(p) for p in chunk],
            "os.path.realpath": lambda chunk: [os.path.realpath(p) for p in chunk],
            "check_read (single)": lambda chunk: [policy.check_read(p) for p in chunk],
            "check_read (batch)": batch,
        }
        if server is not None:

            def server_batch(chunk: list[str]) -> None:
                with server.many_checks():
                    for p in chunk:
                        server.check_read(p)

            cases["server check_read"] = lambda chunk: [server.check_read(p) for p in chunk]
            cases["server many_checks"] = server_batch
        # Cases alternate chunk by chunk, so a burst of load elsewhere on the machine
        # lands on all of them alike; each round yields one ratio, and the median is kept.
        chunks = [paths[i:i + 1000] for i in range(0, len(paths), 1000)]
        rounds: list[dict[str, float]] = []
        for _ in range(args.rounds):
            spent = dict.fromkeys(cases, 0.0)
            for chunk in chunks:
                for name, fn in cases.items():
                    start = time.perf_counter()
                    fn(chunk)
                    spent[name] += time.perf_counter() - start
            rounds.append({name: t / len(paths) * 1e6 for name, t in spent.items()})
    print(f"{len(paths)} files, {args.rounds} interleaved rounds, Python "
          f"{sys.version.split()[0]}")
    for name in cases:
        print(f"  {name:<22} {statistics.median(r[name] for r in rounds):8.2f} µs/path "
              "(median)")

    def ratio(a: str, b: str) -> float:
        return statistics.median(r[a] / r[b] for r in rounds)

    def line(label: str, value: float, target: float | None) -> None:
        verdict = "" if target is None else (
            f"(target <= {target}) {'ok' if value <= target else 'MISSED'}")
        print(f"{label:<36} = {value:5.2f}  {verdict}".rstrip())

    if server is not None:
        line("single / server check_read", ratio("check_read (single)", "server check_read"),
             0.5)
        line("batch / server many_checks", ratio("check_read (batch)", "server many_checks"),
             0.2)
    else:
        print("the real server (mcp-gee-sweet) is not installed: no server ratios "
              "(pip install -e '.[test]')")
    line("batch / os.lstat", ratio("check_read (batch)", "os.lstat"), 2.0)
    line("single / os.path.realpath", ratio("check_read (single)", "os.path.realpath"), None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
