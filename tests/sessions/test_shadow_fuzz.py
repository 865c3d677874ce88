"""The log readers fed random bytes, random JSON and absurdly deep structures, in every
format and detected: they return calls or raise :class:`LogError`, nothing else, within
the hang guard and the memory bound the other readers keep."""

from __future__ import annotations

import contextlib
import json
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from test_fuzz_readers import MEMORY_BOUND, hang_guard, inputs

from localfs_explorer.sessions import LOG_FORMATS, LogError, read_log

_TOOL_LINE = json.dumps({"type": "assistant", "message": {"content": [
    {"type": "tool_use", "id": "t", "name": "mcp__e__x", "input": {}}]}})


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("shadow-fuzz")


def _read(path: Path, fmt: str | None) -> None:
    tracemalloc.start()
    try:
        with hang_guard(), contextlib.suppress(LogError):
            for _ in read_log(str(path), fmt):
                pass
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < MEMORY_BOUND, f"{fmt}: {peak / 2**20:.1f} MiB"


@pytest.mark.parametrize("fmt", [None, *LOG_FORMATS])
@settings(max_examples=40, deadline=None)
@given(data=inputs)
def test_readers_fail_only_with_log_error(fmt: str | None, data: bytes,
                                          workdir: Path) -> None:
    path = workdir / "input.log"
    path.write_bytes(data)
    _read(path, fmt)


@pytest.mark.parametrize("marker", ["[editor -> server] ", "Message from client: ", ""])
@pytest.mark.parametrize("depth", [10, 5_000, 200_000])
def test_deep_messages_behind_each_marker(marker: str, depth: int, workdir: Path) -> None:
    """A message nested deeper than any parser follows is one unreadable line, not a
    crash: the lines around it are still read."""
    deep = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":' * depth + "1" \
        + "}" * depth
    path = workdir / "deep.log"
    path.write_text(f"{_TOOL_LINE}\n{marker}{deep}\n{_TOOL_LINE}\n", encoding="utf-8")
    _read(path, "jsonrpc" if marker else "claude-code")
