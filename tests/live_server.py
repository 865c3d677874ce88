"""Start the real mcp-gee-sweet server on loopback for the live tests.

The server is the pinned package from the test extra, run in its own process with a
clean environment: a scratch HOME and gcloud directory, no Google credentials (it then
starts without Google access, which serves ``tools/list`` and ``server://auth-status``
all the same), Google's metadata-server lookup switched off and pointed at a closed
loopback port, and ``HOST=127.0.0.1``. Nothing here imports the server into the test
process: its import configures logging and reads ``sys.argv``.

Over HTTP it is started as its console entry point would start it. Over stdio the
server stops when it has no credentials, so :func:`stdio_command` imports it in a
fresh interpreter with its argv set to ``--transport stdio`` and its stdio-only "fail
without credentials" switch left off; the policy, the registration and the resource
are the server's own code either way.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

HAVE_SERVER = all(importlib.util.find_spec(m) is not None for m in ("mcp_gee_sweet", "mcp"))
SKIP_REASON = (
    "the real server (mcp-gee-sweet) or the MCP SDK (mcp) is not installed: "
    "install the test extra, pip install -e '.[test]'"
)
needs_server = pytest.mark.skipif(not HAVE_SERVER, reason=SKIP_REASON)

_HTTP_MAIN = "import mcp_gee_sweet; mcp_gee_sweet.main()"
_STDIO_MAIN = (
    "import mcp_gee_sweet.server as server\n"
    "server.set_raise_auth_failures = lambda flag: None\n"
    "server.main()\n"
)


def package_dir() -> str:
    """Where the installed server package lives (its own ``.env`` would sit there)."""
    spec = importlib.util.find_spec("mcp_gee_sweet")
    assert spec is not None and spec.submodule_search_locations
    return str(Path(next(iter(spec.submodule_search_locations))).resolve())


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Host:
    """A scratch machine for one server: startup directory, HOME, gcloud dir."""

    base: Path

    @property
    def app(self) -> Path:
        return self.base / "app"

    @property
    def home(self) -> Path:
        return self.base / "home"

    def make(self) -> Host:
        for d in (self.app, self.home, self.base / "gcloud"):
            d.mkdir(parents=True, exist_ok=True)
        return self

    def base_env(self, port: int | None = None) -> dict[str, str]:
        """What every server process gets besides the settings under test."""
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "CLOUDSDK_CONFIG": str(self.base / "gcloud"),
            # google-auth's ADC fallback must not look for a metadata server.
            "NO_GCE_CHECK": "true",
            "GCE_METADATA_HOST": "127.0.0.1:9",
            "GCE_METADATA_IP": "127.0.0.1:9",
            "HOST": "127.0.0.1",
            "PYTHONUNBUFFERED": "1",
        }
        if port is not None:
            env["PORT"] = str(port)
        return env


@dataclass
class Running:
    url: str
    process: subprocess.Popen[bytes]
    log: Path


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@contextlib.contextmanager
def http_server(
    host: Host, transport: str, settings: Mapping[str, str], *, startup: float = 60.0,
    by_uvicorn: bool = False,
) -> Iterator[Running]:
    """The real server over ``transport`` (sse or streamable-http) on a free loopback
    port, stopped on exit. Fails the test, with the server's log, if it doesn't listen.

    ``by_uvicorn``: serve the server's SSE app with ``uvicorn`` directly, as a deployment
    may, so its command line has no ``--transport`` (the policy then resolves as for
    stdio)."""
    port = free_port()
    env = {**host.base_env(port), **settings}
    log = host.base / f"server-{port}.log"
    argv = [sys.executable, "-c", _HTTP_MAIN, "--transport", transport]
    if by_uvicorn:
        argv = [sys.executable, "-m", "uvicorn", "mcp_gee_sweet.server:app",
                "--host", "127.0.0.1", "--port", str(port)]
    with open(log, "wb") as out:
        process = subprocess.Popen(
            argv, cwd=host.app, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + startup
        while True:
            if process.poll() is not None:
                pytest.fail(f"the server exited ({process.returncode}):\n{log.read_text()}")
            with contextlib.suppress(OSError), socket.create_connection(
                ("127.0.0.1", port), timeout=0.5
            ):
                break
            if time.monotonic() > deadline:
                pytest.fail(f"the server didn't listen within {startup:g} s:\n{log.read_text()}")
            time.sleep(0.05)
        path = "/sse" if transport == "sse" else "/mcp"
        yield Running(f"http://127.0.0.1:{port}{path}", process, log)
    finally:
        _stop(process)


def run_to_exit(
    host: Host, transport: str, settings: Mapping[str, str], *, timeout: float = 60.0
) -> subprocess.CompletedProcess[str]:
    """Start the server expecting it to refuse to serve; its exit status and output."""
    env = {**host.base_env(free_port()), **settings}
    return subprocess.run(
        [sys.executable, "-c", _HTTP_MAIN, "--transport", transport],
        cwd=host.app, env=env, capture_output=True, text=True, timeout=timeout,
    )


def stdio_command() -> list[str]:
    """The real server over stdio, started without Google credentials (see above)."""
    return [sys.executable, "-c", _STDIO_MAIN, "--transport", "stdio"]


def stdio_env(host: Host, settings: Mapping[str, str]) -> dict[str, str]:
    return {**host.base_env(), **settings}
