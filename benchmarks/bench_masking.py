"""Cost of masking secrets in every spelling, against output with no secret to mask.

    python benchmarks/bench_masking.py [--rounds R] [--paths N]

Times, side by side in one run and interleaved round by round, ``check --paths-file``
(``cli.main``, in process) over N paths with a ``.env`` holding no secret, and the same
paths with a ``.env`` holding an OAuth client (``CREDENTIALS_CONFIG``, whose JSON yields
a few hundred spellings to hide) and a token interpolated into the root, one path in ten
spelling the token in upper case. Every line printed passes through the masking. Prints
the median of each and their ratio; the project's target is at most 1.5 x.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from localfs_explorer.cli import main as cli

TARGET_RATIO = 1.5
TOKEN = "tok-Abc123xyzQ"
CLIENT = json.dumps({"installed": {
    "client_id": "1234-abc.apps.example.com", "project_id": "proj-1234",
    "client_secret": "client-secret-value-0042",
    "auth_uri": "https://accounts.example.com/o/oauth2/auth",
    "token_uri": "https://oauth2.example.com/token",
    "redirect_uris": ["http://localhost"]}})


def build_inputs(base: Path, count: int) -> dict[str, tuple[Path, Path]]:
    root = base / "data"
    (root / TOKEN).mkdir(parents=True)
    plain = base / "plain.env"
    plain.write_text(f"LOCAL_FILE_ACCESS=roots\nLOCAL_FILE_ROOTS={root}/{TOKEN}\n")
    secret = base / "secret.env"
    secret.write_text(f"CREDENTIALS_CONFIG='{CLIENT}'\nAPI_TOKEN={TOKEN}\n"
                      f"LOCAL_FILE_ACCESS=roots\nLOCAL_FILE_ROOTS={root}/${{API_TOKEN}}\n")
    paths = base / "paths.jsonl"
    lines = [json.dumps(f"{root}/{TOKEN.upper() if i % 10 == 0 else 'elsewhere'}/f{i}.csv")
             for i in range(count)]
    paths.write_text("\n".join(lines) + "\n")
    return {"no secret": (plain, paths), "secrets masked": (secret, paths)}


def run_once(env: Path, paths: Path, masked: bool = False) -> float:
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    code = cli.main(["check", "--env", str(env), "--paths-file", str(paths)], out=out, err=err)
    elapsed = time.perf_counter() - start
    if code not in (0, 1) or len(out.getvalue().splitlines()) < paths.read_text().count("\n"):
        raise SystemExit(f"the check itself failed: {err.getvalue().strip()[:300]}")
    if masked and TOKEN.casefold() in out.getvalue().casefold():
        raise SystemExit("a secret was printed")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--paths", type=int, default=2000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        inputs = build_inputs(Path(tmp), args.paths)
        run_once(*inputs["no secret"])  # imports and caches warmed once
        times: dict[str, list[float]] = {name: [] for name in inputs}
        for _ in range(args.rounds):
            for name, (env, paths) in inputs.items():
                times[name].append(run_once(env, paths, masked=name != "no secret"))
    base = statistics.median(times["no secret"])
    print(f"{'output':<16} {'median':>10} {'x no secret':>12}")
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"{name:<16} {median * 1000:>8.1f}ms {median / base:>11.2f}x")
    ratio = statistics.median(times["secrets masked"]) / base
    verdict = "ok" if ratio <= TARGET_RATIO else "OVER"
    print(f"masking costs {ratio:.2f}x the unmasked run over {args.paths} paths "
          f"(target <= {TARGET_RATIO}x): {verdict}")
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
