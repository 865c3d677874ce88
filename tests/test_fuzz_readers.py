"""Every file reader fed random bytes and random or absurdly deep structures.

For each input a reader either returns or raises its own documented error type, which
the command line turns into one line and exit 2. Nothing else may escape (that would be
a traceback), no reader may run past the hang guard of 15 seconds, and no reader may
allocate more than :data:`MEMORY_BOUND` of Python heap (traced with ``tracemalloc``) for
inputs of at most a few hundred kilobytes.
"""

from __future__ import annotations

import contextlib
import json
import signal
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

#: The most Python heap one read of one fuzzed input may allocate.
MEMORY_BOUND = 32 * 1024 * 1024
#: A reader still busy after this long is hung (a guard, not a speed measurement). The
#: deepest inputs take one to two seconds on a loaded two-core machine, and the hangs the
#: guard is for (quadratic or unbounded reading) run for minutes, so the margin is wide.
HANG_GUARD_S = 15.0


@contextlib.contextmanager
def hang_guard(seconds: float = HANG_GUARD_S) -> Iterator[None]:
    def hung(*_args: object) -> None:
        raise TimeoutError(f"reader still busy after {seconds}s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _readers() -> dict[str, tuple[str, Callable[[Path], Any], type[Exception]]]:
    from localfs_explorer.access import AccessListError, load_access
    from localfs_explorer.catalog import CatalogError, load_catalog
    from localfs_explorer.cli.options import UsageError, read_paths_file
    from localfs_explorer.deployments import DeploymentError, load_deployment
    from localfs_explorer.envfile.export import ExportError, export_env
    from localfs_explorer.envfile.load import EnvFileError, load_env
    from localfs_explorer.fs.spec import HostSpecError, load_fs
    from localfs_explorer.probe import ProbeError, iter_call_verdicts
    from localfs_explorer.review.scenarios import ScenarioError, load_scenario_file
    from localfs_explorer.review.sessions import SessionError, load_session
    from localfs_explorer.servers.gee_sweet.policy import resolve_policy
    from localfs_explorer.servers.gee_sweet.profile import ProfileError, load_profile

    policy = resolve_policy(load_env(None, overrides={"LOCAL_FILE_ACCESS": "full"}),
                            fs=load_fs("traps"))

    def calls(path: Path) -> list[Any]:
        return list(iter_call_verdicts(policy, path))

    # name: (file suffix, reader, the error type it documents)
    return {
        "env": (".env", lambda p: load_env(p, strict=False), EnvFileError),
        "env-strict": (".env", load_env, EnvFileError),
        "export-env": (".env", export_env, ExportError),
        "access-json": (".json", load_access, AccessListError),
        "access-toml": (".toml", load_access, AccessListError),
        "session": (".json", load_session, SessionError),
        "host-spec": (".json", load_fs, HostSpecError),
        "catalog-json": (".json", load_catalog, CatalogError),
        "catalog-toml": (".toml", load_catalog, CatalogError),
        "profile": (".json", load_profile, ProfileError),
        "scenarios": (".toml", load_scenario_file, ScenarioError),
        "calls": (".jsonl", calls, ProbeError),
        "paths-file": (".jsonl", read_paths_file, UsageError),
        "client-config-json": (".json", load_deployment, DeploymentError),
        "client-config-yaml": (".yaml", load_deployment, DeploymentError),
    }


READERS = _readers()

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=12), inner,
                                                                max_size=6),
    max_leaves=40,
)


@st.composite
def deep(draw: st.DrawFn) -> bytes:
    depth = draw(st.integers(min_value=1, max_value=200_000))
    shape = draw(st.sampled_from(["array", "object", "toml", "unclosed", "jsonl"]))
    if shape == "array":
        return ("[" * depth + "]" * depth).encode()
    if shape == "object":
        return ('{"a":' * depth + "1" + "}" * depth).encode()
    if shape == "toml":
        return ("a = " + "[" * depth + "]" * depth + "\n").encode()
    if shape == "unclosed":
        return ("[" * depth).encode()
    return (json.dumps("/tmp/x") + "\n" + "[" * depth + "]" * depth + "\n").encode()


inputs = st.one_of(
    st.binary(max_size=4096),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.lists(json_values, max_size=8).map(
        lambda vs: "\n".join(json.dumps(v) for v in vs).encode()),
    st.text(max_size=2000).map(lambda s: s.encode("utf-8", "surrogatepass")),
    deep(),
)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@pytest.mark.parametrize("name", list(READERS))
@settings(max_examples=60)
@given(data=inputs)
def test_readers_fail_only_with_their_own_error(name, data, workdir) -> None:
    suffix, read, error = READERS[name]
    path = workdir / f"input{suffix}"
    path.write_bytes(data)
    tracemalloc.start()
    try:
        with hang_guard(), contextlib.suppress(error):
            read(path)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < MEMORY_BOUND, f"{name}: {peak / 2**20:.1f} MiB for {len(data)} bytes"
