"""The explorer's ``validatePath`` on a Windows host against the server's own, in node.

Random Windows hosts (drive and UNC folders, names that differ in case, symlinks that
lead out, back in, in circles or nowhere) are described twice: as a host spec for the
explorer, and as a small in-memory Windows filesystem for the server's ``lib.js``, whose
``fs.promises`` calls (``realpath``, ``readdir``) are answered from it while ``path`` is
``path.win32`` and ``process.platform`` is ``win32``. The filesystem stand-in follows
what the explorer assumes of Windows (names compared by upper case, trailing dots and
spaces dropped, realpath answering the stored spelling); the server's own code does the
rest. Every path must get the same verdict, message and resolved path.
LOCALFS_WINDOWS_TREES sets how many hosts (the suite's default is small; the server's
README gives the larger figure run before a release), LOCALFS_WINDOWS_SEED the seed.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import pytest
from fs_npm import fixture_fs_server_dist  # noqa: F401

from localfs_explorer.fs import load_fs
from localfs_explorer.servers.filesystem.policy import FilesystemConfig
from localfs_explorer.servers.filesystem.winpolicy import WindowsFilesystemPolicy

TREES = int(os.environ.get("LOCALFS_WINDOWS_TREES", "8"))
FIRST_SEED = int(os.environ.get("LOCALFS_WINDOWS_SEED", "0"))
HOME = "C:\\Users\\me"

pytestmark = [pytest.mark.slow, pytest.mark.real]

_FOLDERS = ["C:\\Users\\me\\proj", "C:\\Users\\me\\Proj2", "C:\\Users\\me\\proj\\src",
            "C:\\Users\\me\\proj\\Src2", "C:\\Users\\me\\.ssh", "C:\\Windows\\System32",
            "D:\\data", "D:\\Data-evil", "\\\\srv\\share\\team", "\\\\srv\\share\\other",
            "C:\\Users\\me\\proj\\\u00e9t\u00e9"]
_FILES = ["a.txt", "B.TXT", "id_rsa", "notes.md", "caf\u00e9.txt", "cafe\u0301.txt"]
_TARGETS = ["C:\\Windows", "C:\\Users\\me\\.ssh\\id_rsa", "..\\Proj2", "D:\\data",
            "C:\\Users\\me\\proj\\loop", "C:\\nowhere", "src", "\\\\srv\\share\\other",
            "c:\\users\\ME\\proj\\src"]


def _host(rng: random.Random) -> dict[str, object]:
    entries: dict[str, dict[str, str]] = {}
    folders = rng.sample(_FOLDERS, rng.randint(4, len(_FOLDERS)))
    for folder in folders:
        entries[folder] = {"type": "dir"}
        for name in rng.sample(_FILES, rng.randint(0, 3)):
            entries[f"{folder}\\{name}"] = {"type": "file"}
    for i in range(rng.randint(1, 4)):
        folder = rng.choice(folders)
        entries[f"{folder}\\link{i}"] = {"type": "symlink", "target": rng.choice(_TARGETS)}
    if rng.random() < 0.5:
        entries["C:\\Users\\me\\proj\\loop"] = {"type": "symlink",
                                                "target": "C:\\Users\\me\\proj\\loop"}
    return {"platform": "windows", "home": HOME, "cwd": HOME, "entries": entries}


def _respell(rng: random.Random, path: str) -> str:
    choice = rng.random()
    if choice < 0.15:
        return path.lower()
    if choice < 0.25:
        return path.upper()
    if choice < 0.4:
        return path.replace("\\", "/")
    if choice < 0.5 and path[1:2] == ":":
        return f"/{path[0].lower()}/{path[3:]}".replace("\\", "/")
    if choice < 0.6:
        return path + rng.choice([" ", ".", "'", '"', "\\", "\\.", "\\..\\x", "  \t"])
    if choice < 0.65:
        return "~\\" + path[len(HOME) + 1:] if path.startswith(HOME) else "~/proj"
    return path


def _paths(rng: random.Random, host: dict[str, object]) -> list[str]:
    known = list(host["entries"])  # type: ignore[call-overload]
    out = []
    for _ in range(40):
        base = rng.choice(known)
        if rng.random() < 0.3:
            tail = rng.choice(["new.txt", "NEW", "x\\y.txt", "cafe\u0301.txt"])
            base = base + "\\" + tail
        out.append(_respell(rng, base))
    out += ["C:\\", "\\", "C:", "D:\\data-evil\\x", "relative\\a.txt", "..\\..\\x",
            "\\\\srv\\share", "\\\\SRV\\share\\team\\a.txt", "C:\\Users\\me\\proj\0x"]
    return out


_SCRIPT = r"""
import fsSync from 'fs';
import path from 'path';
import os from 'os';
const dist = process.argv[1];
const lib = await import(dist + '/lib.js');
const fsp = (await import('fs/promises')).default;
const { hosts } = JSON.parse(fsSync.readFileSync(0, 'utf8'));
Object.defineProperty(process, 'platform', { value: 'win32' });
const win = path.win32;
for (const k of ['normalize', 'resolve', 'isAbsolute', 'join', 'relative', 'dirname']) {
  path[k] = win[k];
}
path.sep = '\\';

const up = (s) => Array.from(s).map((c) => {
  const u = c.toUpperCase();
  return u.length === 1 ? u : c;
}).join('');
const strip = (n) => (n === '.' || n === '..') ? n : n.replace(/[. ]+$/, '');
function rootOf(p) {
  let m = /^([A-Za-z]):(?:[\\/]|$)/.exec(p);
  if (m) return [m[1].toUpperCase() + ':', p.slice(2)];
  if (/^[\\/][\\/][^\\/]/.test(p)) {
    const parts = p.split(/[\\/]+/).filter(Boolean);
    if (parts.length < 2) return null;
    return ['\\\\' + parts[0] + '\\' + parts[1], parts.slice(2).join('\\')];
  }
  return null;
}
function makeFs(spec) {
  // node: {kind, name, children: Map(upper -> node), target}
  const roots = new Map();
  const mk = (kind, name) => ({ kind, name, children: new Map(), target: null });
  const rootNode = (root) => {
    const key = up(root);
    if (!roots.has(key)) roots.set(key, mk('dir', root));
    return roots.get(key);
  };
  const entries = Object.entries(spec.entries).sort((a, b) => a[0].length - b[0].length);
  for (const [p, e] of entries) {
    const [root, rest] = rootOf(p);
    let node = rootNode(root);
    const names = rest.split(/[\\/]+/).filter(Boolean).map(strip).filter(Boolean);
    names.forEach((n, i) => {
      const last = i === names.length - 1;
      const key = up(n);
      if (!node.children.has(key)) {
        const kind = last ? (e.type === 'symlink' ? 'link' : e.type) : 'dir';
        const child = mk(kind, n);
        if (last && e.type === 'symlink') child.target = e.target;
        node.children.set(key, child);
      }
      node = node.children.get(key);
    });
  }
  const fail = (code, call, p) => {
    const text = { ENOENT: 'no such file or directory', ENOTDIR: 'not a directory',
                   ELOOP: 'too many symbolic links encountered' }[code];
    const err = new Error(`${code}: ${text}, ${call} '${p}'`);
    err.code = code;
    return err;
  };
  const join = (root, names) => names.length ? root + '\\' + names.join('\\') : root + '\\';
  // Resolve p following every link: {node, root, names} spelled as stored.
  function walk(p, call, original, depth) {
    if (p.includes('\0')) throw fail('ENOENT', call, original);
    const r = rootOf(p);
    if (!r) throw fail('ENOENT', call, original);
    const rn = roots.get(up(r[0]));
    if (!rn) throw fail('ENOENT', call, original);
    let root = rn.name;
    let node = rn;
    let names = [];
    const want = r[1].split(/[\\/]+/).filter(Boolean).map(strip).filter(Boolean);
    for (const n of want) {
      if (n === '.') continue;
      if (n === '..') {
        names = names.slice(0, -1);
        node = roots.get(up(root));
        for (const m of names) node = node.children.get(up(m));
        continue;
      }
      if (node.kind !== 'dir') throw fail('ENOENT', call, original);
      const child = node.children.get(up(n));
      if (!child) throw fail('ENOENT', call, original);
      if (child.kind === 'link') {
        if (depth > 30) throw fail('ELOOP', call, original);
        const t = child.target;
        const to = walk(rootOf(t) ? t : join(root, names) + '\\' + t, call, original, depth + 1);
        ({ node, root, names } = to);
        continue;
      }
      node = child;
      names = [...names, child.name];
    }
    return { node, root, names };
  }
  return {
    realpath: async (p) => { const w = walk(p, 'realpath', p, 0); return join(w.root, w.names); },
    readdir: async (p) => {
      const { node } = walk(p, 'scandir', p, 0);
      if (node.kind !== 'dir') throw fail('ENOTDIR', 'scandir', p);
      return Array.from(node.children.values()).map((c) => c.name);
    },
  };
}
const out = [];
for (const { spec, dirs, paths } of hosts) {
  const vfs = makeFs(spec);
  fsp.realpath = vfs.realpath;
  fsp.readdir = vfs.readdir;
  os.homedir = () => spec.home;
  process.cwd = () => spec.cwd;
  lib.setAllowedDirectories(dirs);
  const answers = [];
  for (const p of paths) {
    try { answers.push([true, '', await lib.validatePath(p)]); }
    catch (e) { answers.push([false, e.message, null]); }
  }
  out.push(answers);
}
process.stdout.write(JSON.stringify(out));
"""


def test_validate_path_on_a_windows_host_agrees(fs_server_dist: Path) -> None:
    hosts = []
    policies = []
    for seed in range(FIRST_SEED, FIRST_SEED + TREES):
        rng = random.Random(seed)
        spec = _host(rng)
        fs = load_fs(spec)
        entries: dict[str, dict[str, str]] = spec["entries"]  # type: ignore[assignment]
        folders = [f for f, e in entries.items() if e["type"] == "dir"]
        allow = rng.sample([*folders, "c:\\users\\me\\PROJ", "~\\proj", "C:\\Users\\me\\proj\\"], 2)
        policy = WindowsFilesystemPolicy(
            FilesystemConfig(directories=tuple(allow), cwd=HOME, home=HOME), fs)
        paths = _paths(rng, spec)
        policies.append((policy, paths))
        hosts.append({"spec": spec, "dirs": list(policy.directories), "paths": paths})
    done = subprocess.run(["node", "--input-type=module", "-e", _SCRIPT,
                           fs_server_dist.as_uri()],
                          input=json.dumps({"hosts": hosts}), capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = json.loads(done.stdout)
    wrong = []
    checked = 0
    for (policy, paths), answers in zip(policies, theirs, strict=True):
        for path, (allowed, message, resolved) in zip(paths, answers, strict=True):
            v = policy.validate(path)
            checked += 1
            if (v.allowed, v.message, v.resolved) != (allowed, message, resolved):
                wrong.append((path, policy.directories, (allowed, message, resolved),
                              (v.allowed, v.message, v.resolved)))
    assert checked >= 40 * TREES
    assert not wrong, f"{len(wrong)} of {checked} differ; first: {wrong[:4]}"
