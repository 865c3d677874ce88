"""The explorer's Windows path rules against node's ``path.win32`` and the server's own.

Random path strings built from the pieces that change a Windows answer (drive letters in
both cases, ``/`` and ``\\`` runs, UNC and device starts, ``.``/``..``, quotes and spaces,
reserved device names, stray colons, ``/c/`` and ``/mnt/c/`` spellings, a dotted ``I``)
are given to node's ``path.win32`` functions and to the server's ``normalizePath`` and
``isPathWithinAllowedDirectories`` run in node as on Windows (``path`` switched to
``path.win32`` and ``process.platform`` to ``win32`` once the modules are loaded, and
``process.cwd()`` a Windows directory); each answer must be the explorer's.
LOCALFS_WINPATH_CASES sets how many strings (the suite's default is small; the server's
README gives the larger figure run before a release), LOCALFS_WINPATH_SEED the seed.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import pytest
from fs_npm import fixture_fs_server_dist  # noqa: F401

from localfs_explorer.servers.filesystem import winpath

CASES = int(os.environ.get("LOCALFS_WINPATH_CASES", "1500"))
SEED = int(os.environ.get("LOCALFS_WINPATH_SEED", "0"))
CWD = "C:\\Users\\me\\work"

pytestmark = [pytest.mark.slow, pytest.mark.real]

_STARTS = ["", "", "C:", "c:", "D:", "C:\\", "c:/", "\\", "/", "\\\\", "//", "\\\\\\",
           "\\\\srv\\share", "\\\\SRV\\Share\\", "//srv/share/", "\\\\?\\", "\\\\.\\",
           "/c/", "/C/", "/mnt/c/", "/mnt/", "~", "'", '"', " ", "CON:", "nul", "x:"]
_NAMES = ["Users", "users", "me", "ME", "proj", "a", "b", ".", "..", "...", "data '",
          "data", "x:y", "COM1", "lpt\u00b9", "\u0130x", "\u00df", "a b", "name.txt", ":",
          "C:", "c", "UNC", "?"]
_SEPS = ["\\", "/", "\\\\", "//", "/\\"]
_ENDS = ["", "", "\\", "/", "'", '"', " ", "\t", "\\\\", "/."]


def _path(rng: random.Random) -> str:
    parts = [rng.choice(_STARTS)]
    for _ in range(rng.randint(0, 4)):
        parts.append(rng.choice(_NAMES))
        parts.append(rng.choice(_SEPS))
    if rng.random() < 0.7:
        parts.append(rng.choice(_NAMES))
    parts.append(rng.choice(_ENDS))
    return "".join(parts)


def _cases(count: int, seed: int) -> list[dict[str, object]]:
    rng = random.Random(seed)
    allowed = ["C:\\Users\\me", "C:\\", "c:\\users\\me", "\\\\srv\\share",
               "\\\\srv\\share\\team", "\\", "C:\\data", "D:\\"]
    out = []
    for _ in range(count):
        a, b = _path(rng), _path(rng)
        dirs = rng.sample(allowed, rng.randint(1, 3))
        if rng.random() < 0.3:
            dirs.append(_path(rng))
        out.append({"a": a, "b": b, "dirs": dirs})
    return out


_SCRIPT = """
import fs from 'fs';
import path from 'path';
const dist = process.argv[1];
const { normalizePath } = await import(dist + '/path-utils.js');
const { isPathWithinAllowedDirectories } = await import(dist + '/path-validation.js');
const cases = JSON.parse(fs.readFileSync(0, 'utf8'));
const cwd = CWD;
const win = path.win32;
Object.defineProperty(process, 'platform', { value: 'win32' });
process.cwd = () => cwd;
for (const k of ['normalize', 'resolve', 'isAbsolute', 'join', 'relative', 'dirname']) {
  path[k] = win[k];
}
path.sep = '\\\\';
const attempt = (f) => {
  try { return [true, f()]; } catch (e) { return [false, String(e.message)]; }
};
const out = cases.map(({ a, b, dirs }) => ({
  normalize: win.normalize(a),
  resolve: win.resolve(a),
  resolve2: win.resolve(a, b),
  isAbsolute: win.isAbsolute(a),
  dirname: win.dirname(a),
  join: win.join(a, b),
  relative: win.relative(a, b),
  normalizePath: normalizePath(a),
  within: attempt(() => isPathWithinAllowedDirectories(normalizePath(a), dirs)),
}));
process.stdout.write(JSON.stringify(out));
"""


def _ours(case: dict[str, object]) -> dict[str, object]:
    a, b, dirs = str(case["a"]), str(case["b"]), list(case["dirs"])  # type: ignore[call-overload]

    def within() -> list[object]:
        try:
            return [True, winpath.within_allowed(winpath.normalize_path(a), dirs, cwd=CWD)]
        except ValueError as exc:
            return [False, str(exc)]

    return {
        "normalize": winpath.normalize(a),
        "resolve": winpath.resolve(a, cwd=CWD),
        "resolve2": winpath.resolve(a, b, cwd=CWD),
        "isAbsolute": winpath.is_absolute(a),
        "dirname": winpath.dirname(a),
        "join": winpath.join(a, b),
        "relative": winpath.relative(a, b, cwd=CWD),
        "normalizePath": winpath.normalize_path(a),
        "within": within(),
    }


def test_windows_path_rules_agree_with_node_and_the_server(fs_server_dist: Path) -> None:
    cases = _cases(CASES, SEED)
    script = _SCRIPT.replace("CWD", json.dumps(CWD))
    done = subprocess.run(["node", "--input-type=module", "-e", script, fs_server_dist.as_uri()],
                          input=json.dumps(cases), capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = json.loads(done.stdout)
    wrong = []
    for case, answer in zip(cases, theirs, strict=True):
        mine = _ours(case)
        for key, value in answer.items():
            if mine[key] != value:
                wrong.append((key, case, value, mine[key]))
    assert not wrong, f"{len(wrong)} differences, first: {wrong[:5]}"
