"""Findings about the roots themselves, asked once per inventory before any walk."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator

from ....exposure.records import Finding
from ....fs import FileSystem
from ....paths import is_within
from ..policy import Mode, Policy


def root_findings(policy: Policy) -> Iterator[Finding]:
    """What is wrong with the roots themselves: a root reached through a symlink, one on
    a case-insensitive volume, a root inside another."""
    fs = policy.fs
    if policy.mode is not Mode.ROOTS:
        return
    valid = [r for r in policy.roots if r.resolved and not r.problem]
    for r in valid:
        assert r.resolved is not None
        spelled = posixpath.normpath(
            r.configured if r.configured.startswith("/")
            else posixpath.join(policy.cwd, r.configured))
        if spelled != r.resolved:
            yield (Finding(
                severity="medium", kind="symlink-root", path=r.configured,
                op="read_write", resolved=r.resolved, root=r.resolved,
                why=(f"the root is reached through a symlink and is really {r.resolved}: "
                     "the server compares resolved paths, so the root moves whenever "
                     "the link does, and paths spelled another way may be refused"),
                fix=f"Name {r.resolved} in LOCAL_FILE_ROOTS instead.",
            ))
        if _ignores_case(fs, r.resolved):
            yield (Finding(
                severity="medium", kind="case-insensitive-root", path=r.configured,
                op="read_write", resolved=r.resolved, root=r.resolved,
                why=("the root sits on a case-insensitive volume: a path spelled in "
                     "another case names the same file but resolves to another "
                     "spelling, which the server refuses as outside the roots"),
                fix="Spell paths exactly as the root is spelled, or keep the data on a "
                    "case-sensitive volume.",
            ))
    for i, a in enumerate(valid):
        for b in valid[i + 1:]:
            assert a.resolved is not None and b.resolved is not None
            if is_within(b.resolved, a.resolved) or is_within(a.resolved, b.resolved):
                inner, outer = (b, a) if is_within(b.resolved, a.resolved) else (a, b)
                yield (Finding(
                    severity="medium", kind="overlapping-roots", path=inner.configured,
                    op="read_write", resolved=inner.resolved, root=outer.resolved,
                    why=(f"inside the root {outer.configured}: it allows nothing more, "
                         "and removing only one of them would not remove the access"),
                    fix=f"Remove {inner.configured} from LOCAL_FILE_ROOTS.",
                ))


def _ignores_case(fs: FileSystem, directory: str) -> bool:
    """Whether ``directory``'s volume ignores case: a case variant of a name names the
    same file. Asked of the directory's own name or of one of its entries."""
    flag = getattr(fs, "case_insensitive", None)
    if isinstance(flag, bool):
        return flag
    candidates: list[tuple[str, str]] = []
    parent, _, name = directory.rpartition("/")
    if name.swapcase() != name:
        candidates.append((directory, (parent or "") + "/" + name.swapcase()))
    if not candidates:
        try:
            names = fs.listdir(directory)
        except (OSError, ValueError):
            names = []
        for n in names[:50]:
            if n.swapcase() != n:
                candidates.append((f"{directory.rstrip('/')}/{n}",
                                   f"{directory.rstrip('/')}/{n.swapcase()}"))
                break
    for original, variant in candidates:
        ident = fs.identity(original)
        if ident is not None and fs.identity(variant) == ident:
            return True
    return False
