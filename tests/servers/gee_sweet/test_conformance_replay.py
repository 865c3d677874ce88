"""The real server's recorded answers, replayed against the engine without the server.

``data/server_answers.json.gz`` beside this file holds what ``mcp_gee_sweet.local_files``
(the release it names) answered for a set of random trees from ``test_conformance.py``:
the resolved policy and every check, single and inside ``many_checks()``. Each tree is
built again under tmp_path and the engine must give the same answers. This is the
conformance suite's fast half: it runs where the server can't be installed (Python 3.10)
and inside the mutation run. Record again with
``python tests/servers/gee_sweet/test_conformance.py FIRST COUNT`` (needs the server)
whenever the server release changes.

One thing can't survive the move to another directory: the character position an
encoding error names counts from the start of the absolute path, so it is compared with
the position left out.
"""

from __future__ import annotations

import gzip
import json
import posixpath
import re
from pathlib import Path, PurePosixPath

import pytest

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.servers.gee_sweet.profile import DEFAULT_PROFILE

RECORDING = Path(__file__).with_name("data") / "server_answers.json.gz"
DATA = json.loads(gzip.decompress(RECORDING.read_bytes()).decode("ascii"))
POSITION = re.compile(r"in position \d+")

pytestmark = pytest.mark.skipif(
    not hasattr(posixpath, "_joinrealpath"),
    reason="recorded with a Python whose os.path.realpath handles symlink loops the 3.10-3.12 "
    "way; this interpreter's differs, as a server running on it would",
)


def _fill(value, base: str, package_dir: str):
    if isinstance(value, str):
        return value.replace("{PKG}", package_dir).replace("{B}", base)
    if isinstance(value, list):
        return [_fill(v, base, package_dir) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, base, package_dir) for k, v in value.items()}
    return value


def _build(entries: list, base: str) -> None:
    import os

    for entry in entries:
        kind, rel = entry[0], entry[1]
        path = os.path.join(base, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        try:
            if kind == "dir":
                os.makedirs(path, exist_ok=True)
            elif kind == "file":
                Path(path).write_text("x")
            elif kind == "symlink":
                os.symlink(entry[2], path)
            elif kind == "hardlink":
                os.link(os.path.join(base, entry[2]), path)
        except OSError:
            pass


def _mine(decision) -> dict:
    return {
        "allowed": decision.allowed,
        "message": POSITION.sub("in position N", decision.message),
        "resolved": str(PurePosixPath(decision.resolved)) if decision.allowed else None,
    }


def _theirs(answer: dict) -> dict:
    return {"allowed": answer["allowed"],
            "message": POSITION.sub("in position N", answer["message"]),
            "resolved": answer["resolved"]}


def test_the_recording_is_of_the_release_the_profile_names():
    assert DATA["server_version"] == DEFAULT_PROFILE.server_version
    assert len(DATA["cases"]) >= 10


@pytest.mark.parametrize("index", range(len(DATA["cases"])),
                         ids=[f"seed{c['seed']}" for c in DATA["cases"]])
def test_recorded_answers_replay(index, tmp_path):
    base = str(tmp_path.resolve() / "Deploy Ment")
    package_dir = str(tmp_path.resolve() / "server package")
    case = _fill(DATA["cases"][index], base, package_dir)
    Path(base).mkdir()
    _build(case["entries"], base)
    config = case["config"]
    policy = resolve_policy(load_env(None, overrides=config["env"]), transport=case["transport"],
                            cwd=config["cwd"], package_dir=package_dir)
    want = case["policy"]
    got = {
        "mode": policy.mode.value,
        "explicit": policy.explicit,
        "roots": [[r.configured, r.resolved] for r in policy.roots] if want["mode"] == "roots"
        else [],
        "deny_list": [e.resolved for e in policy.deny_list],
        "deny_dirs": [d.resolved for d in policy.deny_dirs],
        "error": policy.exit_message,
        "exit_line": policy.exit_line,
    }
    assert got == {k: want[k] for k in got}, f"seed {case['seed']}: the resolved policy"
    problems = []
    for i, check in enumerate(config["checks"]):
        d = policy.check(check["path"], check["op"], over_http=check["over_http"])
        if _mine(d) != _theirs(case["single"][i]):
            problems.append(("single", check, _mine(d), case["single"][i]))
    with policy.many_checks() as batch:
        for i, check in enumerate(config["checks"]):
            d = batch.check(check["path"], check["op"], over_http=check["over_http"])
            if _mine(d) != _theirs(case["batch"][i]):
                problems.append(("batch", check, _mine(d), case["batch"][i]))
    assert not problems, f"seed {case['seed']}: {len(problems)} differ, first: {problems[0]}"
