"""How fast does ``shadow`` read a recorded session, against just reading the file?

    python benchmarks/bench_shadow.py [--mb 100] [--rounds 3] [--seed S] [--own-tools 0.4]

Writes a Claude Code transcript of about ``--mb`` megabytes into a temporary folder:
conversation turns (the person's messages, the model's text) between tool calls to a
filesystem server entry, each call with its answer: file contents read, listings,
refusals of paths outside the allowed directory, per-file errors, writes; and, between
them in four turns of ten (``--own-tools``), a read by the client's own Read tool
(which shadow passes over). Each line carries the fields a Claude Code transcript line
has (ids, working directory, session, version, branch, timestamp; token usage on the
model's lines; the tool's result kept a second time beside a result message): about
13 KB of log per server call on average (6.5 KB with ``--own-tools 0``). Then it times,
side by side in one run and taking turns going first each round:

- ``lines``: the file read line by line, nothing else (the floor any reader pays);
- ``parse``: every line parsed as JSON (what a reader that looked at every line pays);
- ``shadow``: the whole verification, every call read, predicted and compared.

It prints MB/s of log and calls/s for each, and shadow's time as a ratio of the two
others. Targets: shadow at >= 50 MB/s of log or >= 20,000 calls/s. Times are wall-clock
medians over the rounds; every call must agree (the generated answers are the ones
the model predicts), which the script checks.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from localfs_explorer.sessions import Shadow

PACKAGE = "@modelcontextprotocol/server-filesystem@2026.8.31"
WORDS = ("the", "file", "notes", "report", "we", "should", "check", "whether", "config",
         "directory", "allowed", "server", "read", "write", "again", "later", "because")


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)) + "."


def build(base: Path, megabytes: int, seed: int, own_tools: float = 0.4
          ) -> tuple[Path, Path, int]:
    """The tree, its client config and a transcript of about ``megabytes`` MB."""
    rng = random.Random(seed)
    data, outside = base / "data", base / "outside"
    (data / "sub").mkdir(parents=True)
    outside.mkdir()
    files = []
    for i in range(200):
        f = data / ("sub" if i % 3 else "") / f"f{i}.txt"
        f.write_text(f"contents {i}\n", encoding="utf-8")
        files.append(str(f))
    (outside / "secret.txt").write_text("no", encoding="utf-8")
    config = base / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {"files": {
        "command": "npx", "args": ["-y", PACKAGE, str(data)]}}}), encoding="utf-8")

    def refusal(path: str) -> str:
        return f"Access denied - path outside allowed directories: {path} not in {data}"

    log = base / "session.jsonl"
    target = megabytes * 1_000_000
    calls = 0
    serial = [0]

    def line(kind: str, message: dict, **extra: object) -> str:
        """One transcript line with the fields Claude Code puts on every line."""
        serial[0] += 1
        return json.dumps({
            "parentUuid": f"{serial[0] - 1:08d}-0000-4000-8000-000000000000",
            "isSidechain": False, "userType": "external", "cwd": str(base),
            "sessionId": "5d1c2b7e-0000-4000-8000-000000000000", "version": "2.0.0",
            "gitBranch": "main", "type": kind, "message": message,
            "uuid": f"{serial[0]:08d}-0000-4000-8000-000000000000",
            "timestamp": f"2026-03-01T09:{serial[0] // 60 % 60:02d}:{serial[0] % 60:02d}Z",
            **extra}) + "\n"

    usage = {"input_tokens": 4, "cache_creation_input_tokens": 512,
             "cache_read_input_tokens": 20480, "output_tokens": 96,
             "service_tier": "standard"}
    with open(log, "w", encoding="utf-8") as out:
        while out.tell() < target:
            out.write(line("user", {"role": "user",
                                    "content": _sentence(rng, rng.randint(20, 400))}))
            kind = rng.random()
            ident = f"toolu_{calls:08d}"
            if kind < 0.45:
                path = rng.choice(files)
                call = ("read_text_file", {"path": path})
                answer, error = "x" * rng.randint(100, 6000), False
            elif kind < 0.6:
                path = f"{outside}/secret.txt"
                call = ("read_text_file", {"path": path})
                answer, error = refusal(path), True
            elif kind < 0.75:
                call = ("list_directory", {"path": str(data)})
                answer, error = "\n".join(f"[FILE] f{i}.txt" for i in range(60)), False
            elif kind < 0.85:
                bad = f"{outside}/secret.txt"
                call = ("read_multiple_files", {"paths": [files[0], bad]})
                answer = f"{files[0]}:\ncontents 0\n\n---\n{bad}: Error - {refusal(bad)}"
                error = False
            else:
                path = f"{data}/written-{calls % 50}.txt"
                call = ("write_file", {"path": path, "content": _sentence(rng, 30)})
                answer, error = f"Successfully wrote to {path}", False
            out.write(line("assistant", {
                "id": f"msg_{calls:08d}", "type": "message", "role": "assistant",
                "model": "claude-model", "content": [
                    {"type": "text", "text": _sentence(rng, rng.randint(5, 60))},
                    {"type": "tool_use", "id": ident, "name": f"mcp__files__{call[0]}",
                     "input": call[1]}],
                "stop_reason": "tool_use", "stop_sequence": None, "usage": usage},
                requestId=f"req_{calls:08d}"))
            if rng.random() < own_tools:
                # The client's own tools take turns with the server's: a file read whose
                # result shadow passes over.
                own = f"toolu_own_{calls:08d}"
                out.write(line("assistant", {
                    "id": f"msg_own_{calls:08d}", "type": "message", "role": "assistant",
                    "model": "claude-model", "content": [{
                        "type": "tool_use", "id": own, "name": "Read",
                        "input": {"file_path": rng.choice(files)}}],
                    "stop_reason": "tool_use", "stop_sequence": None, "usage": usage}))
                text = _sentence(rng, rng.randint(300, 2000))
                out.write(line("user", {"role": "user", "content": [{
                    "type": "tool_result", "tool_use_id": own, "content": text}]},
                    toolUseResult={"type": "text", "file": {"content": text}}))
            content = [{"type": "text", "text": answer}]
            block: dict = {"type": "tool_result", "tool_use_id": ident, "content": content}
            if error:
                block["is_error"] = True
            # Claude Code keeps the tool's result a second time beside the message.
            out.write(line("user", {"role": "user", "content": [block]},
                           toolUseResult=f"Error: {answer}" if error else content))
            calls += 1
    return config, log, calls


def _lines(log: Path, config: Path) -> int:
    n = 0
    with open(log, "rb") as f:
        for _ in f:
            n += 1
    return n


def _parse(log: Path, config: Path) -> int:
    n = 0
    with open(log, "rb") as f:
        for raw in f:
            json.loads(raw)
            n += 1
    return n


def _shadow(log: Path, config: Path) -> int:
    shadow = Shadow(str(config))
    rows = 0
    for row in shadow.run([str(log)]):
        if row.agree is not True:
            raise SystemExit(f"call {row.id} didn't agree: {row.why or row.recorded}")
        rows += 1
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=100, help="transcript size (default 100)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--own-tools", type=float, default=0.4,
                        help="share of turns with a read by the client's own tool "
                        "(default 0.4; 0: every line is the server's or conversation)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-shadow-") as scratch:
        base = Path(os.path.realpath(scratch))
        config, log, calls = build(base, args.mb, args.seed, args.own_tools)
        size = log.stat().st_size
        print(f"transcript: {size / 1e6:.1f} MB, {calls:,} calls")
        cases: dict[str, Callable[[Path, Path], int]] = {
            "lines": _lines, "parse": _parse, "shadow": _shadow}
        times: dict[str, list[float]] = {name: [] for name in cases}
        order = list(cases)
        for r in range(args.rounds):
            for name in order[r % len(order):] + order[:r % len(order)]:
                started = time.perf_counter()
                got = cases[name](log, config)
                times[name].append(time.perf_counter() - started)
                if name == "shadow" and got != calls:
                    raise SystemExit(f"shadow verified {got} calls of {calls}")
        median = {name: statistics.median(t) for name, t in times.items()}
        for name, t in median.items():
            print(f"{name:>7}: {t:6.2f} s  {size / 1e6 / t:7.1f} MB/s  {calls / t:9,.0f} calls/s")
        print(f"shadow / lines: {median['shadow'] / median['lines']:.2f}x   "
              f"shadow / parse: {median['shadow'] / median['parse']:.2f}x")
        mbps, cps = size / 1e6 / median["shadow"], calls / median["shadow"]
        ok = mbps >= 50 or cps >= 20_000
        print(f"target (>= 50 MB/s or >= 20,000 calls/s): {'met' if ok else 'missed'} "
              f"({mbps:.1f} MB/s, {cps:,.0f} calls/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
