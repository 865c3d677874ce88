"""Answer policy questions with the real server's own ``local_files`` module.

Run as a process of its own: ``python conformance_oracle.py``. It imports the real
package once, which loads its third-party dependencies and its tool modules. For each
configuration read from stdin (one JSON object per line) it forks a child that sets the
environment, working directory and ``sys.argv`` the way the server process would have
them, imports the modules the policy is computed from (``auth``, ``cache`` and
``local_files``, which read all three at import) afresh, and answers every check twice:
one call at a time, and inside one ``many_checks()`` block. The package's start-up only
adds the package's own ``.env`` to the environment; the oracle refuses to run when that
file exists, so re-importing the three modules is the server's start-up exactly.
The answer is one JSON line on stdout (ASCII only, so lone surrogates survive).

A configuration: ``{"env": {...}, "cwd": "...", "argv": [...], "checks": [{"path": ...,
"op": "read"|"write"|"read_write", "over_http": bool}, ...]}``.

This file is only ever run by the conformance tests; the explorer never imports it.
"""

from __future__ import annotations

import json
import os
import sys

POLICY_MODULES = ("mcp_gee_sweet.auth", "mcp_gee_sweet.cache", "mcp_gee_sweet.local_files")


def _purge() -> None:
    package = sys.modules.get("mcp_gee_sweet")
    for name in POLICY_MODULES:
        sys.modules.pop(name, None)
        # `from . import auth` takes the package's attribute when it is there.
        if package is not None and hasattr(package, name.rpartition(".")[2]):
            delattr(package, name.rpartition(".")[2])


def _answer(lf, fn, path: str) -> dict:
    try:
        result = fn(path)
    except lf.LocalFileAccessError as exc:
        return {"allowed": False, "message": str(exc), "resolved": None, "raised": None}
    except Exception as exc:
        return {"allowed": False, "message": str(exc), "resolved": None,
                "raised": type(exc).__name__}
    return {"allowed": True, "message": "", "resolved": str(result), "raised": None}


def _run(config: dict) -> dict:
    os.chdir(config["cwd"])
    os.environ.clear()
    os.environ.update(config["env"])
    sys.argv = list(config["argv"])
    _purge()
    import importlib

    lf = importlib.import_module("mcp_gee_sweet.local_files")

    policy = lf.POLICY
    try:
        lf.exit_if_invalid()
        exit_line = None
    except SystemExit as exc:
        exit_line = str(exc.code)
    out: dict = {
        "policy": {
            "mode": policy.mode.value,
            "explicit": policy.explicit,
            "transport": policy.transport,
            "roots": [list(r) for r in policy.roots],
            "deny_list": list(policy.deny_list),
            "deny_dirs": list(policy.deny_dirs),
            "error": policy.error,
            "exit_line": exit_line,
        },
        "package_dir": os.path.dirname(os.path.abspath(lf.__file__)),
        "cwd": os.getcwd(),
    }
    functions = {"read": lf.check_read, "write": lf.check_write,
                 "read_write": lf.check_read_write}
    single, batch = [], []
    for check in config["checks"]:
        token = lf.request_over_http.set(check["over_http"])
        try:
            single.append(_answer(lf, functions[check["op"]], check["path"]))
        finally:
            lf.request_over_http.reset(token)
    with lf.many_checks():
        for check in config["checks"]:
            token = lf.request_over_http.set(check["over_http"])
            try:
                batch.append(_answer(lf, functions[check["op"]], check["path"]))
            finally:
                lf.request_over_http.reset(token)
    out["single"], out["batch"] = single, batch
    return out


def main() -> int:
    import mcp_gee_sweet  # loads the third-party modules and the tools once

    package_env = os.path.join(os.path.dirname(mcp_gee_sweet.__file__), ".env")
    if os.path.exists(package_env):
        sys.stderr.write(f"{package_env} exists: the oracle can't reproduce its loading\n")
        return 2
    for line in sys.stdin:
        if not line.strip():
            continue
        config = json.loads(line)
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: one configuration, then exit without cleanup
            os.close(read_fd)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 2)  # the server logs an invalid setting; keep stderr quiet
            try:
                result = _run(config)
            except BaseException as exc:
                result = {"crash": f"{type(exc).__name__}: {exc}"}
            data = json.dumps(result, ensure_ascii=True).encode("ascii")
            with os.fdopen(write_fd, "wb") as fh:
                fh.write(data)
            os._exit(0)
        os.close(write_fd)
        with os.fdopen(read_fd, "rb") as fh:
            data = fh.read()
        os.waitpid(pid, 0)
        sys.stdout.write((data.decode("ascii") or '{"crash": "no answer"}') + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
