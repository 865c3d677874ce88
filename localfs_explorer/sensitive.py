"""Advice about paths that commonly hold credentials (``~/.ssh``, ``.env``, ``*.pem`` ...).

A match here is shown *beside* the server's verdict and never changes it: the server
being modelled refuses only its own credential, config, cache and log files, so a
``~/.ssh/id_ed25519`` inside a configured root is allowed, and a reviewer should see
that it is allowed and that it is a private key.

The patterns live in ``data/sensitive_patterns.json``:

- *home entries* (``.ssh``, ``.config/gh`` ...) are paths under the home directory. A
  path matches when its leading components equal the entry's, so ``~/.sshx/config`` is
  not inside ``~/.ssh``. A string-prefix test would get that wrong.
- *folder names* (``.ssh``, ``.aws``, ``.gnupg``, ``.kube``) flag a path when any of its
  components is one of them, wherever it sits: a copy of ``.ssh`` in a backup, or a
  ``.aws`` folder in a project, holds the same keys as the one in the home directory.
- *name globs* (``id_*``, ``.env*``, ``*.pem``, ``secrets.*``, ``kubeconfig`` ...) are
  matched against the last component only, so a virtualenv folder called ``.env`` does
  not flag every file in it.

An operator can add name globs of their own (``extra=`` here, ``--sensitive-pattern``
and ``LOCALFS_EXPLORER_SENSITIVE_PATTERNS`` in the CLI, a text box in the dashboard);
they are matched like the shipped ones, after them.

Both compare case-insensitively: ``~/.SSH`` is ``~/.ssh`` on a case-insensitive
filesystem, and for advice a false alarm is cheaper than a miss. Paths are normalised
lexically (``~/x/../.ssh`` is inside ``~/.ssh``). Symlinks are not followed here: the
caller resolves a path on the host it concerns (a :class:`~localfs_explorer.fs.FileSystem`)
and asks about both spellings, as :func:`sensitive_advice` does.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from fnmatch import translate
from functools import lru_cache
from importlib import resources
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import LocalfsError

__all__ = [
    "SENSITIVE_PATTERNS_ENV",
    "SensitiveMatch",
    "SensitivePattern",
    "SensitivePatternsError",
    "check_extra_patterns",
    "extra_patterns_from_env",
    "sensitive_advice",
    "sensitive_match",
    "sensitive_names",
    "sensitive_patterns",
    "sensitive_reason",
    "split_patterns",
]


class SensitivePatternsError(LocalfsError):
    """The sensitive-pattern data file can't be read or has the wrong shape."""


class SensitivePattern(BaseModel):
    """One sensitive-file pattern and why it is on the list."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["home", "dir", "name"]
    #: For ``home``: a relative path under the home directory (``.config/gh``).
    #: For ``dir``: a folder name that flags any path through it (``.ssh``).
    #: For ``name``: an fnmatch glob for the last component (``*.pem``).
    pattern: str
    why: str

    @property
    def label(self) -> str:
        """How the pattern is written for people: ``~/.ssh``, ``.ssh/`` or ``*.pem``."""
        if self.kind == "home":
            return f"~/{self.pattern}"
        return f"{self.pattern}/" if self.kind == "dir" else self.pattern


class SensitiveMatch(BaseModel):
    """The pattern a path matched, with a one-line reason to show."""

    model_config = ConfigDict(frozen=True)

    pattern: SensitivePattern
    #: ``"inside ~/.ssh"``, ``"is ~/.netrc"``, ``"inside a .ssh folder"`` or
    #: ``"matches *.pem"``.
    reason: str


#: The environment variable the CLI reads extra name globs from (comma-separated).
SENSITIVE_PATTERNS_ENV = "LOCALFS_EXPLORER_SENSITIVE_PATTERNS"
#: Why an operator's extra pattern is on the list.
_EXTRA_WHY = "a pattern the operator added"


@lru_cache(maxsize=1)
def sensitive_patterns() -> tuple[SensitivePattern, ...]:
    """The shipped patterns, home entries first (they are the more specific advice)."""
    source = resources.files("localfs_explorer").joinpath("data/sensitive_patterns.json")
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
        home = [
            SensitivePattern(kind="home", pattern=e["path"], why=e["why"]) for e in data["home"]
        ]
        dirs = [
            SensitivePattern(kind="dir", pattern=e["name"], why=e["why"])
            for e in data.get("dirs", [])
        ]
        names = [
            SensitivePattern(kind="name", pattern=e["glob"], why=e["why"]) for e in data["names"]
        ]
    except (OSError, ValueError, KeyError, TypeError, ValidationError) as exc:
        raise SensitivePatternsError(
            f"data/sensitive_patterns.json can't be used: {exc}"
        ) from None
    if any("/" in p.pattern or not p.pattern for p in dirs):
        raise SensitivePatternsError(
            "data/sensitive_patterns.json can't be used: a 'dirs' entry is one folder name"
        )
    return (*home, *dirs, *names)


def check_extra_patterns(globs: Iterable[str]) -> tuple[str, ...]:
    """Extra name globs as given, checked: each is matched against a file's last name,
    so it must be non-empty and hold no ``/``. Raises :class:`SensitivePatternsError`
    naming the first bad one. Duplicates and surrounding spaces are dropped."""
    checked: list[str] = []
    for glob in globs:
        if not isinstance(glob, str):
            raise SensitivePatternsError(
                f"a sensitive pattern must be a string, not {type(glob).__name__}"
            )
        text = glob.strip()
        if not text:
            raise SensitivePatternsError("a sensitive pattern can't be empty")
        if "/" in text or "\x00" in text:
            raise SensitivePatternsError(
                f"sensitive pattern {text!r}: a pattern is matched against a file's name, "
                "so it can't hold '/' (or a NUL)"
            )
        if text not in checked:
            checked.append(text)
    return tuple(checked)


def split_patterns(text: str) -> list[str]:
    """Globs written comma-separated or one per line, blanks skipped (not yet checked)."""
    return [part for part in text.replace("\n", ",").split(",") if part.strip()]


def extra_patterns_from_env(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The extra globs in :data:`SENSITIVE_PATTERNS_ENV` (comma-separated; blanks skipped)."""
    raw = (os.environ if environ is None else environ).get(SENSITIVE_PATTERNS_ENV, "")
    return check_extra_patterns(split_patterns(raw))


def _components(path: str) -> list[str]:
    """The lexically normalised, case-folded components of a POSIX path."""
    return [part.casefold() for part in posixpath.normpath(path).split("/") if part]


def _normal(path: str) -> str:
    """An absolute path normalised lexically and case-folded, as ``/a/b`` (``/`` for the
    root): the components of :func:`_components`, joined."""
    # Most paths are already normal; only "." and ".." names, doubled slashes and a
    # trailing slash need the full treatment (a hidden name like "/.ssh" takes it too).
    if "/." in path or "//" in path or (path.endswith("/") and path != "/"):
        path = "/" + "/".join(part for part in posixpath.normpath(path).split("/") if part)
    return path.casefold()


@lru_cache(maxsize=256)
def _home_normal(home: str) -> str:
    return _normal(home) if home.startswith("/") else "/" + "/".join(_components(home))


class _Prepared(NamedTuple):
    """A pattern list turned into the few regexes the matcher runs."""

    #: Home entries in list order; group ``i + 1`` of :attr:`below_home` is entry ``i``.
    home: tuple[SensitivePattern, ...]
    #: Matches the first home entry (in list order) that a path below home is or is in.
    below_home: re.Pattern[str]
    #: Finds the first folder-name component (``/.ssh/``, or at the start or end).
    any_dir: re.Pattern[str]
    #: Folder-name entries by case-folded name.
    dirs: dict[str, SensitivePattern]
    #: True when every folder name starts with a dot: a path holds one only if it has
    #: a component starting with one ("/." in it, or a leading "."), a test far cheaper
    #: than the search, and most paths fail it.
    dotted_dirs: bool
    #: Matches any name glob: most names match none, so one test goes first.
    any_name: re.Pattern[str]
    names: tuple[tuple[re.Pattern[str], SensitivePattern], ...]


@lru_cache(maxsize=1)
def _prepare_shipped() -> _Prepared:
    return _prepare(sensitive_patterns())


@lru_cache(maxsize=32)
def _prepare(patterns: tuple[SensitivePattern, ...]) -> _Prepared:
    """Home entries and name globs as regexes, computed once per pattern list.

    Discovery asks about every word of a command and a walk about every entry, so the
    cost per path matters.
    """
    home = tuple(p for p in patterns if p.kind == "home")
    # Entry by entry, in order: its components, then the end of the path or a "/", so
    # ".ssh" doesn't take ".sshx". An entry with no components ("~/.") holds everything.
    alternatives = []
    for p in home:
        parts = _components(p.pattern)
        if parts:
            alternatives.append(f"({re.escape('/'.join(parts))})(?=/|\\Z)")
        else:
            alternatives.append("()")
    below_home = re.compile("|".join(alternatives) or r"(?!)", re.DOTALL)
    dirs: dict[str, SensitivePattern] = {}
    for p in patterns:
        if p.kind == "dir":
            dirs.setdefault(p.pattern.casefold(), p)
    folder = "|".join(re.escape(d) for d in dirs)
    any_dir = re.compile(f"(?:^|/)({folder})(?=/|\\Z)" if dirs else r"(?!)", re.DOTALL)
    names = tuple(
        (re.compile(translate(p.pattern.casefold())), p) for p in patterns if p.kind == "name"
    )
    # A folder's own name counts as a name too, so the per-name prefilters of a walk
    # (name_may_be_sensitive, sensitive_names) never skip what the full match flags.
    any_name = re.compile(
        "|".join([*(f"(?:{rx.pattern})" for rx, _ in names),
                  *(f"(?:{re.escape(d)})\\Z" for d in dirs)]) or r"(?!)"
    )
    dotted = all(d.startswith(".") for d in dirs)
    return _Prepared(home, below_home, any_dir, dirs, dotted, any_name, names)


@lru_cache(maxsize=32)
def _prepare_extra(extra: tuple[str, ...]) -> _Prepared:
    """The shipped list plus an operator's extra name globs, prepared once per set."""
    added = tuple(SensitivePattern(kind="name", pattern=g, why=_EXTRA_WHY) for g in extra)
    return _prepare((*sensitive_patterns(), *added))


def _prepared(patterns: Sequence[SensitivePattern] | None, extra: Sequence[str]) -> _Prepared:
    if patterns is None:
        return _prepare_extra(tuple(extra)) if extra else _prepare_shipped()
    if extra:
        added = tuple(SensitivePattern(kind="name", pattern=g, why=_EXTRA_WHY) for g in extra)
        return _prepare((*patterns, *added))
    return _prepare(tuple(patterns))


def _absolute(path: str, home: str, cwd: str | None) -> str | None:
    """``path`` as an absolute path, or None when home containment can't be judged.

    ``~user/...`` names another account whose home we don't know (and must not look
    up on this machine), and a relative path without a ``cwd`` has no anchor.
    """
    if path == "~" or path.startswith("~/"):
        return home.rstrip("/") + path[1:] if home else None
    if path.startswith("~"):
        return None
    if path.startswith("/"):
        return path
    if cwd:
        return posixpath.join(cwd, path)
    return None


def sensitive_match(
    path: str,
    *,
    home: str,
    cwd: str | None = None,
    patterns: Sequence[SensitivePattern] | None = None,
    extra: Sequence[str] = (),
) -> SensitiveMatch | None:
    """The first sensitive pattern ``path`` matches, or None.

    ``home`` is the home directory of the account the tools run as (``~`` expands to
    it); ``cwd`` anchors relative paths for the home-entry test. ``patterns`` defaults
    to the shipped list; ``extra`` adds name globs after it (see
    :func:`check_extra_patterns`).
    """
    found = _match(path, home, cwd, patterns, extra)
    if found is None:
        return None
    return SensitiveMatch(pattern=found[0], reason=found[1])


def _match(
    path: str, home: str, cwd: str | None, patterns: Sequence[SensitivePattern] | None,
    extra: Sequence[str] = (),
) -> tuple[SensitivePattern, str] | None:
    """(pattern, reason) of :func:`sensitive_match`, without building the model."""
    if not path:
        return None
    # The shipped list is prepared once; hashing thirty models per call would cost
    # more than the matching itself.
    prepared = _prepared(patterns, extra)
    absolute = _absolute(path, home, cwd)
    if absolute is not None:
        # Compared as strings of whole components: "/home/ada" + "/" + ".ssh" + "/" or
        # the end, never a bare prefix (~/.sshx is not ~/.ssh).
        normal = _normal(absolute)
        if home:
            home_normal = _home_normal(home)
            below: str | None = None
            if home_normal == "/":
                below = normal[1:]
            elif normal.startswith(home_normal):
                rest = normal[len(home_normal):]
                if not rest:
                    below = ""
                elif rest[0] == "/":
                    below = rest[1:]
            if below is not None:
                found = prepared.below_home.match(below)
                if found is not None:
                    pattern = prepared.home[found.lastindex - 1]  # type: ignore[operator]
                    verb = "is" if found.end() == len(below) else "inside"
                    return pattern, f"{verb} {pattern.label}"
        folder_text = normal
    else:
        # The components as written (after lexical normalisation), so a relative
        # ``.env`` or ``.ssh/config`` with no cwd is still recognised.
        folder_text = "/".join(_components(path))
    if prepared.dirs and (not prepared.dotted_dirs or "/." in folder_text
                          or folder_text.startswith(".")):
        folder = prepared.any_dir.search(folder_text)
        if folder is not None:
            pattern = prepared.dirs[folder.group(1)]
            verb = "is" if folder.end() == len(folder_text) else "inside"
            return pattern, f"{verb} a {pattern.pattern} folder"
    name = folder_text.rpartition("/")[2]
    if not name or not prepared.any_name.match(name):
        return None
    for regex, pattern in prepared.names:
        if regex.match(name):
            return pattern, f"matches {pattern.label}"
    return None


def sensitive_reason(
    path: str, *, home: str, cwd: str | None = None, extra: Sequence[str] = ()
) -> str | None:
    """Why ``path`` looks like a credential file (``"inside ~/.ssh"``), or None.

    Advice only: it never changes the server's verdict on the path. ``extra`` adds an
    operator's name globs to the shipped list.
    """
    found = _match(path, home, cwd, None, extra)
    return found[1] if found is not None else None


def sensitive_advice(
    path: str,
    resolved: str | None,
    *,
    home: str,
    cwd: str | None = None,
    extra: Sequence[str] = (),
) -> str | None:
    """Advice for a path as spelt and as it resolves (a symlink's target), or None.

    The spelling is asked first (``id_rsa`` is a key whatever it links to); when only
    the place it leads to matches, the advice names both: ``"deploy_key resolves to
    /home/ada/.ssh/id_ed25519, inside ~/.ssh"``.
    """
    reason = sensitive_reason(path, home=home, cwd=cwd, extra=extra)
    if reason is not None or not resolved or resolved == path:
        return reason
    target = sensitive_reason(resolved, home=home, cwd=cwd, extra=extra)
    if target is None:
        return None
    spelt = _absolute(path, home, cwd)
    if spelt is not None and posixpath.normpath(spelt) == resolved:
        return target  # the same place spelt another way (relative, "..", "~")
    return f"{path} resolves to {resolved}, {target}"


def name_may_be_sensitive(name: str) -> bool:
    """Whether a file called ``name`` matches a shipped name glob (``*.pem``, ``.env*``)
    or is named like a credential folder (``.ssh``).

    A walk asks this of every entry before the full :func:`sensitive_reason`: it is the
    same test the full match ends with, on the same case-folded name, so it never skips
    a path the full match would flag by name.
    """
    return _prepare_shipped().any_name.match(name.casefold()) is not None


def home_entries_near(directory: str, *, home: str) -> bool:
    """Whether an entry directly inside ``directory`` could match a shipped home entry.

    True when ``directory`` is inside a home entry (``~/.ssh/keys``), or is a home entry
    or one of its ancestors (``~``, ``~/.config``), or has a credential folder among its
    components (``/srv/backup/.ssh``). When False, only a name glob can flag a child of
    ``directory`` (see :func:`name_may_be_sensitive`).
    """
    if not home or not directory.startswith("/"):
        return True  # nothing to compare against: let the full match decide
    normal, home_normal = _normal(directory), _home_normal(home)
    prepared = _prepare_shipped()
    if prepared.dirs and (not prepared.dotted_dirs or "/." in normal) \
            and prepared.any_dir.search(normal) is not None:
        return True
    if home_normal == "/":
        rest = normal[1:]
    elif normal == home_normal:
        rest = ""
    elif normal.startswith(home_normal + "/"):
        rest = normal[len(home_normal) + 1:]
    else:
        return False
    below = rest.split("/") if rest else []
    for pattern in prepared.home:
        parts = _components(pattern.pattern)
        n = min(len(parts), len(below))
        if parts[:n] == below[:n]:
            return True
    return False


#: Characters that make an fnmatch glob more than a literal string.
_WILD = "*?["


def _needle(glob: str) -> str | None:
    """A string every name matching ``glob`` holds within ``"\n" + name + "\n"``,
    chosen to start with a character that is rare in names, or None when the glob has
    no such string (``*``, a bracket expression, a newline)."""
    if "[" in glob or "\n" in glob:
        return None
    wild = [i for i, ch in enumerate(glob) if ch in _WILD]
    head = glob[:wild[0]] if wild else glob
    tail = glob[wild[-1] + 1:] if wild else glob
    if tail:
        # The name ends with the tail: any end of it, newline included, is a needle.
        dot = tail.rfind(".")
        return tail[max(dot, 0):] + "\n"
    if head.startswith("."):
        return head  # anywhere will do, and a dot is searched for anyway
    if head:
        return "\n" + head
    return None


class _NameFinder(NamedTuple):
    """Where in a newline-joined list of case-folded names a name glob may match."""

    #: str.find needles (groups of one) and regexes (one per leading character).
    needles: tuple[str, ...]
    regexes: tuple[re.Pattern[str], ...]
    #: Case-folded whole names (the globs and folder names with no wildcard): looked up
    #: all at once in a set of the listing's names, not searched for one by one.
    literals: frozenset[str]


@lru_cache(maxsize=1)
def _name_finder() -> _NameFinder | None:
    """The shipped name globs as a few searches over the joined names, or None when a
    glob offers no needle (then the names are asked one by one)."""
    groups: dict[str, set[str]] = {}
    literals: set[str] = set()
    for p in sensitive_patterns():
        if p.kind == "home":
            continue
        folded = p.pattern.casefold()
        if not any(ch in folded for ch in _WILD) and "\n" not in folded:
            # A whole name (a folder entry is one too, see _prepare).
            literals.add(folded)
            continue
        needle = _needle(folded)
        if needle is None:
            return None
        groups.setdefault(needle[0], set()).add(needle[1:])
    needles: list[str] = []
    regexes: list[re.Pattern[str]] = []
    for first, rests in sorted(groups.items()):
        if len(rests) <= 3:
            # A few str.find calls beat one regex that stops at every occurrence of the
            # first character (a newline starts every name).
            needles.extend(_findable(first + rest) for rest in sorted(rests))
            continue
        # A rest that shares its next character with no other is one str.find of its own;
        # the others make a regex whose lookahead turns most occurrences of ``first``
        # away at once (".csv" is refused at the "c", not after a dozen tries), then
        # branches a character at a time.
        seconds: dict[str, int] = {}
        for rest in rests:
            seconds[rest[:1]] = seconds.get(rest[:1], 0) + 1
        shared = sorted(r for r in rests if r and seconds[r[0]] > 1)
        needles.extend(_findable(first + r) for r in sorted(rests) if r not in shared)
        if shared:
            ahead = "".join(re.escape(ch) for ch in sorted({r[0] for r in shared}))
            regexes.append(re.compile(f"{re.escape(first)}(?=[{ahead}]){_trie(shared)}"))
    return _NameFinder(tuple(needles), tuple(regexes), frozenset(literals))


def _findable(needle: str) -> str:
    """``needle`` without a last character that most names end near (a newline, a dot):
    str.find tests each place the last character occurs, and those are everywhere. A
    shorter needle only finds more places, which the full match then turns away."""
    trimmed = needle.rstrip("\n.")
    return trimmed if len(trimmed) >= 3 else needle


def _trie(words: Sequence[str]) -> str:
    """A regex matching any of ``words`` (at least one non-empty) that branches on one
    character at a time; an empty word is the last alternative of its branch."""
    branches: dict[str, list[str]] = {}
    ends = False
    for word in words:
        if word:
            branches.setdefault(word[0], []).append(word[1:])
        else:
            ends = True
    parts = [re.escape(ch) + _trie(rests) for ch, rests in sorted(branches.items())]
    if ends:
        parts.append("")
    if len(parts) == 1:
        return parts[0]
    return "(?:" + "|".join(parts) + ")"


def sensitive_names(names: Sequence[str], joined: str | None = None) -> list[int]:
    """The positions in ``names`` of those :func:`name_may_be_sensitive` says yes to.

    The same answer for each name, found per list rather than per name: every glob
    names a string its matches must contain (``.pem`` and the end of the name for
    ``*.pem``, the start of the name and ``id_`` for ``id_*``), and those strings are
    searched for in the names joined by newlines and case-folded (casefold works
    character by character, so that folds each name). Only the names they are found in
    are matched, by :func:`name_may_be_sensitive` itself. ``joined``, when given, is
    ``"\n" + "\n".join(names) + "\n"`` already made.
    """
    if not names:
        return []
    finder = _name_finder()
    if finder is None:  # a glob with no needle: name by name
        return [i for i, name in enumerate(names) if name_may_be_sensitive(name)]
    text = joined if joined is not None else "\n" + "\n".join(names) + "\n"
    folded = text.casefold()
    lines: set[int] = set()
    if finder.literals:
        if folded == text:
            listed: Sequence[str] = names  # nothing to fold: the names as they are
        else:
            listed = folded[1:-1].split("\n")
            if len(listed) != len(names):
                # A name with a newline in it: lines are not names, so name by name.
                return [i for i, name in enumerate(names) if name_may_be_sensitive(name)]
        if not finder.literals.isdisjoint(listed):
            lines.update(i for i, name in enumerate(listed) if name in finder.literals)
    starts: list[int] = []
    for needle in finder.needles:
        at = folded.find(needle)
        while at >= 0:
            starts.append(at)
            at = folded.find(needle, at + 1)
    for regex in finder.regexes:
        if regex.search(folded) is not None:  # most directories: no match at all
            starts.extend(m.start() for m in regex.finditer(folded))
    if not starts and not lines:
        # A name a glob matches holds its needle even with a newline in it (the
        # newline joining it to the next name still ends it), so none matches.
        return []
    if folded.count("\n") != len(names) + 1:
        # A name with a newline in it: lines are not names, so name by name.
        return [i for i, name in enumerate(names) if name_may_be_sensitive(name)]
    # A needle starting at ``at`` lies in the name after the last newline up to
    # ``at`` (a needle's own leading newline counts as that one).
    lines.update(folded.count("\n", 0, at + 1) - 1 for at in starts)
    return [i for i in sorted(lines) if name_may_be_sensitive(names[i])]
