"""An in-memory filesystem that answers the engine's questions for a described host.

:class:`VirtualFS` holds directories, regular files (no contents), symlinks and
hardlinks, on one or several devices, and answers ``realpath`` / ``lstat`` / ``stat`` /
``listdir`` / ``readlink`` exactly as ``os`` would on Linux. Exactness is the point: the
policy engine's verdicts for a described container or laptop are only worth something if
they are the verdicts the real server would reach there.

Two halves mirror the two halves of ``os``:

- ``realpath`` reimplements the running interpreter's non-strict ``posixpath.realpath``
  (two algorithms exist across CPython 3.10-3.13, chosen by feature detection), asking
  the virtual tree instead of ``os.lstat``. It resolves ``..`` *after* the symlink
  before it, keeps missing components, returns a partial result for a symlink loop
  instead of raising, and raises the ``ValueError`` ``os.lstat`` raises for a NUL
  ("embedded null byte"; 3.13 words it "lstat: embedded null character in path").
- ``lstat`` / ``stat`` / ``listdir`` / ``readlink`` follow the kernel's path walk:
  intermediate symlinks are followed (at most 40 per lookup, then ``ELOOP``), ``..`` is
  physical, a trailing slash forces the final symlink to be followed and requires a
  directory, a file used as a directory is ``ENOTDIR``, a component longer than 255
  bytes or a path of 4096 bytes or more is ``ENAMETOOLONG``. The exceptions are the
  ``OSError`` subclasses ``os`` raises, with ``errno`` and ``filename`` set.

Hardlinks are one node reachable under several names, so they share ``(st_dev,
st_ino)``. A *bind mount* (one directory shown at a second place) is one directory node
reachable under two paths. Each node sits on a named device; a directory given a device
starts a mount, and everything created below it inherits that device.

In case-insensitive mode (like macOS's default APFS volume) every lookup ignores case,
while ``realpath`` keeps the caller's spelling of existing non-symlink components, as
macOS does: ``realpath("/Users/op/TOKEN.json")`` is ``/Users/op/TOKEN.json`` even when
the file is stored as ``token.json``. Symlink targets contribute their stored text.
Everything else stays Linux's (errno values, the 255-byte name and 4096-byte path
limits), since only case is what changes a verdict.

Lookups are dictionary-based: every symlink-free path of the tree is a key of one flat
map (rebuilt lazily after a change), and ``realpath`` results are memoised, so a
VirtualFS answers faster than the host's system calls.
"""

from __future__ import annotations

import errno
import os
import posixpath
from collections.abc import Callable, Iterator, Mapping

from ..errors import LocalfsError
from .base import FileSystem
from .virtual_nodes import (
    _DIR,
    _FILE,
    _LEGACY_REALPATH,
    _LINK,
    _MODES,
    _NUL_MESSAGES,
    _REALPATH_CACHE_LIMIT,
    MAXSYMLINKS,
    NAME_MAX,
    PATH_MAX,
    VirtualStat,
    _byte_len,
    _check_path_text,
    _fold_caseless,
    _fold_exact,
    _Node,
    _oserror,
    _too_long,
)

__all__ = ["MAXSYMLINKS", "NAME_MAX", "PATH_MAX", "HostSpecError", "VirtualFS", "VirtualStat"]



class HostSpecError(LocalfsError):
    """A described host is malformed; the message names the offending entry."""


class VirtualFS(FileSystem):
    """An in-memory host: build it with :meth:`mkdir`, :meth:`add_file`, :meth:`symlink`,
    :meth:`link` and :meth:`bind` (or from a spec, see :mod:`localfs_explorer.fs.spec`),
    then hand it to ``resolve_policy(..., fs=...)``.

    Paths given to the building methods are absolute and normalised; missing parent
    directories are created on the way (and not reported by :func:`to_spec` unless
    created explicitly).
    """

    def __init__(
        self,
        *,
        case_insensitive: bool = False,
        home: str = "/",
        cwd: str = "/",
        label: str | None = None,
        description: str | None = None,
        root_device: str = "root",
        users: Mapping[str, str] | None = None,
        name_fold: Callable[[str], str] | None = None,
    ) -> None:
        for what, value in (("home", home), ("cwd", cwd)):
            if not value.startswith("/"):
                raise HostSpecError(f"{what} must be an absolute path, not {value!r}")
        #: The host's accounts by name and their home directories (``~name``).
        self._users: dict[str, str] = {}
        for user, user_home in (users or {}).items():
            if not user or any(ch in user for ch in "/:\x00") or user.strip() != user:
                raise HostSpecError(f"users: {user!r} is not an account name")
            if not isinstance(user_home, str) or not user_home.startswith("/"):
                raise HostSpecError(
                    f"users: {user!r}'s home must be an absolute path, not {user_home!r}"
                )
            self._users[user] = user_home
        self.case_insensitive = case_insensitive
        # How names compare: exactly, as macOS does (case and normal form ignored), or as
        # a caller says (a Windows host compares by simple upper case).
        self._fold = name_fold or (_fold_caseless if case_insensitive else _fold_exact)
        self._home = home
        self._cwd = cwd
        #: The label as described (None when the spec gave none), kept for to_spec.
        self.spec_label = label
        self.label = label or "virtual host"
        self.description = description
        self._devices: dict[str, int] = {}
        self._next_ino = 2  # ext4 numbers its root directory 2
        self._inode_keys: dict[str, _Node] = {}
        self._explicit: set[str] = set()  # folded paths created on purpose, for to_spec
        self._binds: dict[str, tuple[str, str]] = {}  # folded dest -> (dest, source)
        self._root = self._new_node(_DIR, root_device)
        self._canon: dict[str, _Node] | None = None
        self._realpaths: dict[str, str] = {}
        self._nesting = 0  # the deepest nesting of links last reached (link_nesting)

    # ------------------------------------------------------------------ building

    def _new_node(self, kind: str, device: str, *, target: str | None = None) -> _Node:
        if device not in self._devices:
            self._devices[device] = len(self._devices) + 1
        node = _Node(kind, self._next_ino, device, target=target)
        self._next_ino += 1
        return node

    def _changed(self) -> None:
        self._canon = None
        self._realpaths.clear()

    def clear_realpath_cache(self) -> None:
        """Forget memoised realpath results, e.g. to measure cold lookups."""
        self._realpaths.clear()

    def _components(self, path: str) -> list[str]:
        if not isinstance(path, str) or not path.startswith("/"):
            raise HostSpecError(f"entry {path!r}: paths must be absolute")
        if path == "/":
            return []
        parts = path[1:].split("/")
        for part in parts:
            if part in ("", ".", ".."):
                raise HostSpecError(
                    f"entry {path!r}: paths must be normalised (no empty, '.' or '..' "
                    "components, no trailing '/')"
                )
            if "\0" in part:
                raise HostSpecError(f"entry {path!r}: a name can't contain a NUL byte")
            if _byte_len(part) > NAME_MAX:
                raise HostSpecError(
                    f"entry {path!r}: the name {part[:40]!r}... is longer than "
                    f"{NAME_MAX} bytes, which no Linux filesystem stores"
                )
        return parts

    def _parent_for(self, path: str) -> tuple[_Node, str, str]:
        """The directory that will hold ``path``, creating missing parents on the way."""
        parts = self._components(path)
        if not parts:
            raise HostSpecError("entry '/': the root directory always exists")
        node = self._root
        here = ""
        for part in parts[:-1]:
            here += "/" + part
            folded = self._fold(here)
            if folded in self._binds:
                raise HostSpecError(
                    f"entry {path!r}: {here} is a bind mount of {self._binds[folded][1]}; "
                    "list entries under the mount's source instead"
                )
            assert node.children is not None
            hit = node.children.get(self._fold(part))
            if hit is None:
                child = self._new_node(_DIR, node.device)
                node.children[self._fold(part)] = (part, child)
                node.st = None
                node = child
                continue
            node = hit[1]
            if node.kind == _FILE:
                raise HostSpecError(
                    f"entry {path!r}: {here} is a file, and a file can't contain entries"
                )
            if node.kind == _LINK:
                raise HostSpecError(
                    f"entry {path!r}: {here} is a symlink; describe entries at the "
                    "symlink's target instead"
                )
        name = parts[-1]
        assert node.children is not None
        existing = node.children.get(self._fold(name))
        if existing is not None:
            stored = existing[0]
            extra = (
                f" (stored as {stored!r}; names that differ only in case are one entry "
                "on a case-insensitive host)"
                if stored != name
                else ""
            )
            raise HostSpecError(f"entry {path!r}: already exists{extra}")
        return node, name, path

    def _attach(self, parent: _Node, name: str, node: _Node) -> None:
        assert parent.children is not None
        parent.children[self._fold(name)] = (name, node)
        parent.st = None
        self._changed()

    def mkdir(self, path: str, *, device: str | None = None, exist_ok: bool = False) -> None:
        """Create directory ``path``; with ``device``, it is a mount point of that device."""
        if path == "/":
            if device is not None:
                self._set_device(self._root, device)
            self._explicit.add("/")
            return
        existing = self._lookup_entry(path)
        if existing is not None and exist_ok and existing.kind == _DIR:
            if device is not None:
                self._set_device(existing, device)
            self._explicit.add(self._fold(path))
            return
        parent, name, _ = self._parent_for(path)
        node = self._new_node(_DIR, device or parent.device)
        node.device_explicit = device is not None
        self._attach(parent, name, node)
        self._explicit.add(self._fold(path))

    def _set_device(self, node: _Node, device: str) -> None:
        if device not in self._devices:
            self._devices[device] = len(self._devices) + 1
        node.device = device
        node.device_explicit = True
        node.st = None
        self._changed()

    def add_file(self, path: str, *, inode: str | None = None, device: str | None = None) -> None:
        """Create regular file ``path``; files given the same ``inode`` key are hardlinks."""
        parent, name, _ = self._parent_for(path)
        if inode is not None and inode in self._inode_keys:
            node = self._inode_keys[inode]
            if node.kind != _FILE:
                raise HostSpecError(
                    f"entry {path!r}: inode {inode!r} is a symlink's; one inode has one type"
                )
            if device is not None and device != node.device:
                raise HostSpecError(
                    f"entry {path!r}: inode {inode!r} is on device {node.device!r}; "
                    "hardlinks can't span devices"
                )
            node.nlink += 1
            node.st = None
        else:
            node = self._new_node(_FILE, device or parent.device)
            node.device_explicit = device is not None
            if inode is not None:
                node.inode_key = inode
                self._inode_keys[inode] = node
        self._attach(parent, name, node)

    def symlink(self, target: str, path: str, *, inode: str | None = None) -> None:
        """Create symlink ``path`` pointing at ``target`` (stored verbatim, like os.symlink).

        Symlinks given the same ``inode`` key are one link under several names (what
        ``os.link`` makes of a symlink on Linux); they must agree on the target.
        """
        if not isinstance(target, str) or not target:
            raise HostSpecError(f"entry {path!r}: a symlink needs a non-empty target")
        if "\0" in target:
            raise HostSpecError(f"entry {path!r}: a symlink target can't contain a NUL byte")
        if _byte_len(target) >= PATH_MAX:
            raise HostSpecError(f"entry {path!r}: the symlink target is {PATH_MAX} bytes or more")
        parent, name, _ = self._parent_for(path)
        if inode is not None and inode in self._inode_keys:
            node = self._inode_keys[inode]
            if node.kind != _LINK or node.target != target:
                raise HostSpecError(
                    f"entry {path!r}: inode {inode!r} is already a "
                    f"{'symlink to ' + repr(node.target) if node.kind == _LINK else 'file'}; "
                    "names of one inode share its type and target"
                )
            node.nlink += 1
            node.st = None
        else:
            node = self._new_node(_LINK, parent.device, target=target)
            if inode is not None:
                node.inode_key = inode
                self._inode_keys[inode] = node
        self._attach(parent, name, node)

    def link(self, existing: str, path: str) -> None:
        """Give ``existing`` a second name ``path`` (a hardlink, like ``os.link``).

        As Linux's link(2) does, a symlink named as ``existing`` is not followed: the
        link itself gets the second name.
        """
        try:
            node = self._walk(existing, follow_last=False, call="lstat")
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else str(exc)
            raise HostSpecError(f"entry {path!r}: can't hardlink {existing}: {reason}") from None
        if node.kind == _DIR:
            raise HostSpecError(
                f"entry {path!r}: can't hardlink the directory {existing}: directories can't "
                "be hardlinked; use a bind mount to show one directory at two places"
            )
        if node.inode_key is None:
            key = f"ino{node.ino}"
            while key in self._inode_keys:
                key += "+"
            node.inode_key = key
            self._inode_keys[key] = node
        parent, name, _ = self._parent_for(path)
        node.nlink += 1
        node.st = None
        self._attach(parent, name, node)

    def bind(self, source: str, path: str) -> None:
        """Show the directory at ``source`` again at ``path`` (a bind mount): same inodes.

        As ``mount --bind`` does, symlinks in ``source`` are followed.
        """
        try:
            node = self._walk(source, follow_last=True, call="stat")
        except (OSError, ValueError):
            node = None
        if node is None or node.kind != _DIR:
            raise HostSpecError(
                f"entry {path!r}: the bind mount's source {source} is not a directory here"
            )
        parent, name, _ = self._parent_for(path)
        # A directory shown inside itself would make the tree infinite.
        chain = self._fold(path)
        if self._is_within(chain, self._fold(source)) or self._contains_node(node, parent):
            raise HostSpecError(
                f"entry {path!r}: binding {source} here would put a directory inside itself "
                "(a cycle of directories)"
            )
        self._attach(parent, name, node)
        self._binds[self._fold(path)] = (path, source)

    @staticmethod
    def _is_within(path: str, ancestor: str) -> bool:
        return path == ancestor or path.startswith(ancestor.rstrip("/") + "/")

    def _contains_node(self, tree: _Node, wanted: _Node) -> bool:
        stack, seen = [tree], set()
        while stack:
            node = stack.pop()
            if node is wanted:
                return True
            if id(node) in seen or node.children is None:
                continue
            seen.add(id(node))
            stack.extend(child for _, child in node.children.values())
        return False

    def _lookup_entry(self, path: str) -> _Node | None:
        """The node at ``path`` without following any symlink, or None."""
        try:
            parts = self._components(path)
        except HostSpecError:
            return None
        node = self._root
        for part in parts:
            if node.children is None:
                return None
            hit = node.children.get(self._fold(part))
            if hit is None:
                return None
            node = hit[1]
        return node

    # ------------------------------------------------------------------ lookups

    def _canonical(self) -> dict[str, _Node]:
        """Every symlink-free path (folded) -> its node; rebuilt after a change."""
        canon = self._canon
        if canon is not None:
            return canon
        canon = {"/": self._root}
        fold = self._fold
        stack: list[tuple[str, _Node]] = [("", self._root)]
        while stack:
            prefix, node = stack.pop()
            assert node.children is not None
            for name, child in node.children.values():
                path = prefix + "/" + name
                canon[fold(path)] = child
                if child.kind == _DIR:
                    stack.append((path, child))
        self._canon = canon
        return canon

    def _walk(self, path: str, follow_last: bool, call: str) -> _Node:
        """The kernel's path walk: the node ``path`` names, or the OSError it raises."""
        _check_path_text(path, call)
        if not path:
            raise _oserror(errno.ENOENT, path)
        if _too_long(path):
            raise _oserror(errno.ENAMETOOLONG, path)
        original = path
        if not path.startswith("/"):
            path = self.default_cwd().rstrip("/") + "/" + path
        canon = self._canonical()
        hit = canon.get(self._fold(path))
        if hit is not None and (hit.kind != _LINK or not follow_last):
            return hit
        fold = self._fold
        trailing = path.endswith("/")
        # Components still to walk, next one last; a followed link's target parts are
        # pushed in its place, so a link that was the last component passes "last" on.
        todo = [p for p in path.split("/") if p][::-1]
        stack = [self._root]  # the directories walked through, for a physical ".."
        links = 0
        while todo:
            name = todo.pop()
            last = not todo
            cur = stack[-1]
            if cur.children is None:
                raise _oserror(errno.ENOTDIR, original)
            if name == ".":
                continue
            if name == "..":
                if len(stack) > 1:
                    stack.pop()
                continue
            if _byte_len(name) > NAME_MAX:
                raise _oserror(errno.ENAMETOOLONG, original)
            entry = cur.children.get(fold(name))
            if entry is None:
                raise _oserror(errno.ENOENT, original)
            child = entry[1]
            if child.kind == _LINK and (not last or follow_last or trailing):
                links += 1
                if links > MAXSYMLINKS:
                    raise _oserror(errno.ELOOP, original)
                target = child.target
                assert target is not None
                if target.startswith("/"):
                    stack = [self._root]
                if last and target.endswith("/"):
                    trailing = True
                todo.extend([p for p in target.split("/") if p][::-1])
                continue
            stack.append(child)
        node = stack[-1]
        if trailing and node.kind != _DIR:
            raise _oserror(errno.ENOTDIR, original)
        return node

    def _stat_of(self, node: _Node) -> VirtualStat:
        st = node.st
        if st is None:
            if node.kind == _DIR:
                assert node.children is not None
                subdirs = sum(1 for _, c in node.children.values() if c.kind == _DIR)
                nlink, size = 2 + subdirs, 4096
            elif node.kind == _LINK:
                assert node.target is not None
                nlink, size = node.nlink, _byte_len(node.target)
            else:
                nlink, size = node.nlink, 0
            st = node.st = VirtualStat(
                _MODES[node.kind], node.ino, self._devices[node.device], nlink, size
            )
        return st

    # ------------------------------------------------------------------ the interface

    def lstat(self, path: str) -> VirtualStat:
        """Like ``os.lstat``: a final symlink is described, not followed."""
        return self._stat_of(self._walk(path, follow_last=False, call="lstat"))

    def stat(self, path: str) -> VirtualStat:
        """Like ``os.stat``: symlinks are followed; dangling ones and loops raise."""
        return self._stat_of(self._walk(path, follow_last=True, call="stat"))

    def listdir(self, path: str) -> list[str]:
        """Like ``os.listdir``: the stored names of a directory's entries."""
        node = self._walk(path, follow_last=True, call="listdir")
        if node.children is None:
            raise _oserror(errno.ENOTDIR, path)
        return [name for name, _ in node.children.values()]

    def readlink(self, path: str) -> str:
        """Like ``os.readlink``: a symlink's stored target; ``EINVAL`` for anything else."""
        node = self._walk(path, follow_last=False, call="readlink")
        if node.kind != _LINK:
            raise _oserror(errno.EINVAL, path)
        assert node.target is not None
        return node.target

    def home(self) -> str:
        """The simulated account's home directory, as the password database would say."""
        return self._home

    def user_home(self, name: str) -> str | None:
        """Account ``name``'s home as the host spec's ``users`` names it, or None."""
        return self._users.get(name)

    @property
    def users(self) -> dict[str, str]:
        """The described accounts and their homes (a copy, sorted by name)."""
        return dict(sorted(self._users.items()))

    def default_cwd(self) -> str:
        """The simulated working directory, symlink-free as ``os.getcwd`` reports it."""
        return self.realpath(self._cwd) if self._cwd != "/" else "/"

    @property
    def cwd(self) -> str:
        """The working directory as described (before resolving symlinks)."""
        return self._cwd

    def realpath(self, path: str) -> str:
        """Non-strict ``os.path.realpath`` of the running CPython, on this tree."""
        cached = self._realpaths.get(path)
        if cached is not None:
            return cached
        if not isinstance(path, str):
            path = os.fspath(path)
            if not isinstance(path, str):
                raise TypeError("VirtualFS paths are str")
        # getcwd() is symlink-free, so resolving cwd + path is what realpath does with a
        # relative path.
        full = path if path.startswith("/") else self.default_cwd().rstrip("/") + "/" + path
        result = self._realpath_legacy(full) if _LEGACY_REALPATH else self._realpath_stack(full)
        if len(self._realpaths) >= _REALPATH_CACHE_LIMIT:
            self._realpaths.clear()
        self._realpaths[path] = result
        return result

    def link_nesting(self, path: str) -> int:
        """How deep resolving absolute ``path`` nests links (one followed while another's
        target is still being resolved): the recursion depth of CPython 3.10-3.12's."""
        self._nesting = 0
        (self._realpath_legacy if _LEGACY_REALPATH else self._realpath_stack)(path)
        return self._nesting

    def _lstat_quiet(self, newpath: str, name: str, canon: dict[str, _Node]) -> _Node | None:
        """What ``os.lstat(newpath)`` finds for realpath, None where it raises OSError.

        realpath only lstats paths whose parent it has already resolved, so the flat
        map of symlink-free paths answers exactly; anything else (missing, under a file,
        under a loop, too long) is an OSError that realpath swallows.
        """
        if not name.isascii():
            os.fsencode(newpath)
        if "\0" in name:
            raise ValueError(_NUL_MESSAGES["lstat"])
        if _too_long(newpath):
            return None
        return canon.get(self._fold(newpath))

    def _realpath_stack(self, filename: str) -> str:
        # The algorithm of CPython 3.13+: one loop over a stack of components.
        canon = self._canonical()
        rest: list[str | None] = list(filename.split("/")[::-1])
        path = "/"
        seen: dict[str, str | None] = {}
        pending = 0  # links being resolved, one inside another's target
        while rest:
            name = rest.pop()
            if name is None:
                link = rest.pop()
                assert link is not None
                seen[link] = path
                pending -= 1
                continue
            if not name or name == ".":
                continue
            if name == "..":
                path = path[: path.rindex("/")] or "/"
                continue
            newpath = path + name if path == "/" else path + "/" + name
            node = self._lstat_quiet(newpath, name, canon)
            if node is None or node.kind != _LINK:
                path = newpath
                continue
            if newpath in seen:
                known = seen[newpath]
                # A link still being resolved is a loop: keep it as a plain component.
                path = known if known is not None else newpath
                continue
            target = node.target
            assert target is not None
            seen[newpath] = None
            pending += 1
            self._nesting = max(self._nesting, pending)
            if target.startswith("/"):
                path = "/"
            rest.append(newpath)
            rest.append(None)
            rest.extend(target.split("/")[::-1])
        return path

    def _realpath_legacy(self, filename: str) -> str:
        # The algorithm of CPython 3.10-3.12: at a loop it gives up and appends the
        # unresolved rest, which abspath() then normalises lexically.
        path, _ = self._join_legacy("", filename, {}, self._canonical())
        return posixpath.normpath(path)

    def _join_legacy(
        self, path: str, rest: str, seen: dict[str, str | None], canon: dict[str, _Node]
    ) -> tuple[str, bool]:
        # CPython's recurses once per link it follows; here each frame (a link being
        # resolved, and what its caller had left to join) is kept on a list.
        if rest.startswith("/"):
            rest = rest[1:]
            path = "/"
        frames: list[tuple[str, str]] = []
        while True:
            looped = False
            while rest:
                name, _, rest = rest.partition("/")
                if not name or name == ".":
                    continue
                if name == "..":  # path is absolute and normalised: a cut at the last /
                    path = path[: path.rindex("/")] or "/"
                    continue
                newpath = path + name if path == "/" else path + "/" + name
                node = self._lstat_quiet(newpath, name, canon)
                if node is None or node.kind != _LINK:
                    path = newpath
                    continue
                if newpath in seen:
                    known = seen[newpath]
                    if known is not None:
                        path = known
                        continue
                    # posixpath.join on purpose: "loop//x" joins to "/x" there, and must here.
                    path = posixpath.join(newpath, rest)
                    looped = True
                    break
                seen[newpath] = None
                assert node.target is not None
                frames.append((newpath, rest))  # the recursive call
                self._nesting = max(self._nesting, len(frames))
                rest = node.target
                if rest.startswith("/"):
                    rest = rest[1:]
                    path = "/"
            if looped:  # each caller gives up too, appending what it had left
                while frames:
                    path = posixpath.join(path, frames.pop()[1])
                return path, False
            if not frames:
                return path, True
            link, rest = frames.pop()
            seen[link] = path

    # ------------------------------------------------------------------ inspection

    def iter_entries(self) -> Iterator[tuple[str, str, str | None]]:
        """Every path of the tree as ``(path, kind, symlink target)``, sorted, not
        descending into bind mounts (their contents are listed under the source)."""
        stack: list[tuple[str, _Node]] = [("", self._root)]
        out: list[tuple[str, str, str | None]] = []
        while stack:
            prefix, node = stack.pop()
            assert node.children is not None
            for name, child in node.children.values():
                path = prefix + "/" + name
                out.append((path, child.kind, child.target))
                if child.kind == _DIR and self._fold(path) not in self._binds:
                    stack.append((path, child))
        out.sort()
        yield from out

    def spec_entries(self) -> dict[str, dict[str, str]]:
        """The ``entries`` of this tree's canonical spec, sorted by path.

        Files, symlinks and bind mounts always appear; a directory appears when it was
        created on purpose, is empty, or starts a mount. Parents created on the way
        don't, so a spec written by hand comes back as written.
        """
        entries: dict[str, dict[str, str]] = {}

        def dir_entry(node: _Node) -> dict[str, str]:
            item = {"type": _DIR}
            if node.device_explicit:
                item["device"] = node.device
            return item

        if "/" in self._explicit or self._root.device_explicit:
            entries["/"] = dir_entry(self._root)
        stack: list[tuple[str, _Node]] = [("", self._root)]
        while stack:
            prefix, node = stack.pop()
            assert node.children is not None
            for name, child in node.children.values():
                path = prefix + "/" + name
                folded = self._fold(path)
                bind = self._binds.get(folded)
                if bind is not None:
                    entries[path] = {"type": _DIR, "bind": bind[1]}
                elif child.kind == _DIR:
                    if folded in self._explicit or child.device_explicit or not child.children:
                        entries[path] = dir_entry(child)
                    stack.append((path, child))
                elif child.kind == _FILE:
                    item = {"type": _FILE}
                    if child.inode_key is not None:
                        item["inode"] = child.inode_key
                    if child.device_explicit:
                        item["device"] = child.device
                    entries[path] = item
                else:
                    assert child.target is not None
                    item = {"type": _LINK, "target": child.target}
                    if child.inode_key is not None:
                        item["inode"] = child.inode_key
                    entries[path] = item
        return dict(sorted(entries.items()))

    def __len__(self) -> int:
        return sum(1 for _ in self.iter_entries())

    def __repr__(self) -> str:
        mode = ", case_insensitive=True" if self.case_insensitive else ""
        return f"VirtualFS(label={self.label!r}{mode})"
